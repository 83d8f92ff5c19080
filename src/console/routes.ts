/**
 * The sandbox console (local development only): pages for people at
 * /__sandbox/ over what the gateway recorded, beside the sandbox's own JSON
 * views. Mounted by the development entry (src/dev.ts) where the sandbox is,
 * never by the production entry.
 *
 *   GET  /__sandbox/                          the latest receipts and transfers
 *   GET  /__sandbox/receipts/{id}/view        one receipt: timeline, events, calls, audit
 *   GET  /__sandbox/a2c/{id}/view             one transfer, the same
 *   POST /__sandbox/events/{event id}/resend  events/resend's own function; 303 back to the record
 *
 * The resend is the gateway's resendEvent itself, with no partner key: this
 * is a developer's own machine. A POST from another site is refused all the
 * same (any page the developer visits could otherwise trigger it).
 */

import { Hono } from "hono";
import { csrf } from "hono/csrf";
import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import { secureHeaders } from "hono/secure-headers";
import { ApiError } from "../errors/errors";
import { kindOfEvent, recordIdOf, resendEvent } from "../events";
import type { KindName } from "../rules/lifecycle";
import { clock } from "../shared/clock";
import { log } from "../shared/log";
import { LATEST_RECORDS, latestRecords, recordView } from "./data";
import { KIND_SEGMENTS, listPage, problemPage, recordPage, recordPath } from "./html";

type App = { Bindings: Env };

/** Pages only: no script, nothing from another origin, forms post only here, never framed. */
const pageHeaders = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'none'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", "data:"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
    baseUri: ["'none'"],
  },
  // Served over plain http on a developer's machine.
  strictTransportSecurity: false,
});

/** What the pages show changes by the second: never from a cache. */
const noStore = createMiddleware(async (c, next) => {
  await next();
  c.header("Cache-Control", "no-store");
});

/** Mounted at "/" by src/dev.ts: its paths are spelled whole, since under a "/__sandbox" mount "/" would lose its slash. */
export const sandboxConsole = new Hono<App>();

sandboxConsole.onError((err, c) => {
  if (err instanceof HTTPException && err.status === 403) {
    c.status(403);
    return c.html(problemPage("Refused", "This form may only be sent from the console's own pages."));
  }
  if (err instanceof ApiError && err.code === "not_found") {
    c.status(404);
    return c.html(problemPage("Not found", err.message));
  }
  log("error", "sandbox_console_failed", { error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
  c.status(err instanceof ApiError ? err.status : 500);
  return c.html(problemPage("The console failed", "See the gateway's log (wrangler dev's output) for why."));
});

sandboxConsole.get("/__sandbox/", pageHeaders, noStore, async (c) => {
  return c.html(listPage(await latestRecords(c.env), clock.now(), LATEST_RECORDS));
});

const showRecord = (kind: KindName) =>
  sandboxConsole.get(`/__sandbox/${KIND_SEGMENTS[kind]}/:id/view`, pageHeaders, noStore, async (c) => {
    const id = c.req.param("id");
    const view = await recordView(c.env, kind, id);
    if (!view) {
      c.status(404);
      return c.html(problemPage("Not found", `The gateway holds no ${kind} with the id ${JSON.stringify(id)}.`));
    }
    return c.html(recordPage(view, clock.now(), c.req.query("resent")));
  });
showRecord("receipt");
showRecord("transfer");

sandboxConsole.post("/__sandbox/events/:id/resend", pageHeaders, csrf(), async (c) => {
  const event = await resendEvent(c.env, c.req.param("id"));
  return c.redirect(`${recordPath(kindOfEvent(event.type), recordIdOf(event))}?resent=${encodeURIComponent(event.id)}#events`, 303);
});
