/**
 * The back office's routes, under /console (the contract, "The back
 * office"): the page, its JSON operations at POST /console/api/<name>, a
 * statement's files, and in development the development sign-in.
 *
 * Every route first verifies the Cloudflare Access identity (src/backoffice/
 * access.ts): none or a bad one is 401, a partner's server key or a user's
 * JWT 403, a person STAFF_ROLES gives no role 403. Then each operation checks
 * the role (src/config/staff-roles.ts), and every view and action, refusals
 * included, is an entry of the audit trail with the staff member's email
 * and role (rule 15) before its answer leaves: an operation whose entry
 * cannot be written is refused.
 */
import { type Context, Hono } from "hono";
import { setCookie } from "hono/cookie";
import { csrf } from "hono/csrf";
import * as v from "valibot";
import { auditStaff, type StaffAction } from "../audit/staff";
import { retentionPolicy } from "../config/retention-policy";
import { CAN, may, type Operation, ROLES, type Role } from "../config/staff-roles";
import { fiscalPendingPage } from "../d1/fiscal-list";
import { ApiError } from "../errors/errors";
import { listLoggedEvents, resendEvent } from "../events";
import { limitBody, parseJson, refuseBody, requireJson } from "../http/http";
import type { GatewayEnv } from "../http/types";
import { KIND_NAMES, type KindName } from "../rules/kinds";
import { clock } from "../shared/clock";
import { log } from "../shared/log";
import { listStatements, statementFile } from "../statements/api";
import { findTid, ownerTids, readIndexFor } from "../tids/tid-index";
import { ACCESS_COOKIE, DEV_SESSION_SECONDS, devSignInOffered, identifyStaff, type Staff, signDevToken } from "./access";
import { chartsFor } from "./charts";
import { type Located, recordOf, revealed, type Stored, summaryOf, timelineOf } from "./timeline";

type ConsoleEnv = GatewayEnv & { Variables: GatewayEnv["Variables"] & { staff: Staff } };
type Ctx = Context<ConsoleEnv>;

const Id = v.pipe(v.string("id must be a string"), v.minLength(1, "id must not be empty"), v.maxLength(128, "id must be at most 128 characters"));
const Text = (name: string) =>
  v.pipe(
    v.string(`${name} must be a string`),
    v.minLength(1, `${name} must not be empty`),
    v.maxLength(255, `${name} must be at most 255 characters`),
  );
const Kind = v.optional(v.picklist(KIND_NAMES, "kind must be receipt or transfer"));
const Day = v.pipe(v.string("date must be a string"), v.regex(/^\d{4}-\d{2}-\d{2}$/, "date must be a date, YYYY-MM-DD"));
const Millis = (name: string) =>
  v.pipe(v.number(`${name} must be a number`), v.integer(`${name} must be an integer`), v.minValue(0, `${name} must not be negative`));

/** The most a finder answers. */
const FIND_LIMIT = 20;
/** resend_failed's window, and how many events one call queues again. */
const RESEND_SPAN_MS = 31 * 86_400_000;
const RESEND_LIMIT = 100;

interface Handled {
  /** The answer's body. */
  body: unknown;
  /** What the audit entry names (never a revealed value). */
  target: string;
  receipt_id?: string;
}

interface OperationSpec {
  schema: v.GenericSchema;
  handle: (c: Ctx, input: never) => Promise<Handled>;
}

/** Looks a record up by kind and id, both kinds when none is given. */
async function locate(env: Env, id: string, kind?: KindName): Promise<Stored | null> {
  for (const k of kind ? [kind] : KIND_NAMES) {
    const stored = await recordOf({ kind: k, id })(env);
    if (stored) return stored;
  }
  return null;
}

async function byTid(env: Env, owner: string, tid: string, kind?: KindName): Promise<Stored[]> {
  const row = await findTid(await readIndexFor(env, owner, tid), owner, tid, retentionPolicy(env).tidRetentionMs);
  if (!row?.receipt_id || (kind && row.kind !== kind)) return [];
  const stored = await recordOf({ kind: row.kind, id: row.receipt_id } satisfies Located)(env);
  return stored ? [stored] : [];
}

const FindRequest = v.strictObject({
  id: v.optional(Id),
  tid: v.optional(Text("tid")),
  user: v.optional(Text("user")),
  user_tid: v.optional(Text("user_tid")),
  kind: Kind,
});

const OPERATIONS: Record<Operation, OperationSpec | null> = {
  me: {
    schema: v.strictObject({}),
    handle: async (c) => {
      const { email, role } = c.var.staff;
      return { body: { email, role, environment: c.env.ENVIRONMENT, can: CAN[role as Role] }, target: "me" };
    },
  },
  find: {
    schema: FindRequest,
    handle: async (c, query: v.InferOutput<typeof FindRequest>) => {
      const named = [query.id, query.tid, query.user].filter((x) => x !== undefined).length;
      if (named !== 1 || (query.user_tid !== undefined && query.user === undefined)) {
        refuse("id", "give exactly one of id, tid and user (user_tid with user)");
      }
      let found: Stored[];
      if (query.id !== undefined) found = [await locate(c.env, query.id, query.kind)].filter((s): s is Stored => s !== null);
      else if (query.tid !== undefined) found = await byTid(c.env, "partner:partner", query.tid, query.kind);
      else if (query.user_tid !== undefined) found = await byTid(c.env, `user:${query.user}`, query.user_tid, query.kind);
      else {
        const rows = (await ownerTids(c.env, `user:${query.user}`, FIND_LIMIT)).filter((row) => !query.kind || row.kind === query.kind);
        const stored = await Promise.all(rows.map((row) => recordOf({ kind: row.kind, id: row.receipt_id! })(c.env)));
        found = stored.filter((s): s is Stored => s !== null);
      }
      const results = found.map(summaryOf).sort((a, b) => b.created_at - a.created_at);
      const target = query.id ?? (query.tid ? `tid:${query.tid}` : `user:${query.user}${query.user_tid ? ` tid:${query.user_tid}` : ""}`);
      return { body: { results }, target };
    },
  },
  record: {
    schema: v.strictObject({ id: Id, kind: Kind }),
    handle: async (c, { id, kind }: { id: string; kind?: KindName }) => {
      const stored = await locate(c.env, id, kind);
      if (!stored) throw new ApiError("receipt_not_found", "No receipt or transfer has this id.");
      return { body: await timelineOf(c.env, stored), target: id, receipt_id: id };
    },
  },
  reveal: {
    schema: v.strictObject({ id: Id, kind: Kind, field: v.picklist(["phone", "account"], "field must be phone or account") }),
    handle: async (c, { id, kind, field }: { id: string; kind?: KindName; field: "phone" | "account" }) => {
      const stored = await locate(c.env, id, kind);
      if (!stored) throw new ApiError("receipt_not_found", "No receipt or transfer has this id.");
      return { body: { value: revealed(stored, field) }, target: `${id} ${field}`, receipt_id: id };
    },
  },
  statements: {
    schema: v.strictObject({ after: v.optional(Day), limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)), 31) }),
    handle: async (c, { after, limit }: { after?: string; limit: number }) => {
      const page = await listStatements(c.env, after, limit);
      const statements = page.statements.map((s) => ({
        ...s,
        files: { csv: `/console/files/statements/${s.date}.csv`, json: `/console/files/statements/${s.date}.json` },
      }));
      return { body: { statements, has_more: page.has_more }, target: after ? `statements before ${after}` : "statements" };
    },
  },
  statement: {
    schema: v.strictObject({ date: Day }),
    handle: async (c, { date }: { date: string }) => {
      const object = await c.env.STATEMENTS.get(`statements/${date}.json`);
      if (!object) throw new ApiError("not_found", `No statement of ${date} is written.`);
      const statement = (await object.json()) as Record<string, unknown>;
      return { body: { date, totals: statement.totals ?? [], mismatches: statement.mismatches ?? [] }, target: date };
    },
  },
  // The GET route below serves a statement's file; its permission is this name's.
  statement_file: null,
  fiscal_pending: {
    schema: v.strictObject({ after: v.optional(Id), limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)), 20) }),
    handle: async (c, query: { after?: string; limit: number }) => {
      const page = await fiscalPendingPage(c.env, query);
      if (!page) refuse("after", "after must be the id of a receipt the list showed");
      return { body: page, target: "fiscal_pending" };
    },
  },
  resend: {
    schema: v.strictObject({ event_id: Id }),
    handle: async (c, { event_id }: { event_id: string }) => {
      const event = await resendEvent(c.env, event_id);
      return { body: { resent: 1 }, target: event_id, receipt_id: (event.data as { object?: { id?: string } }).object?.id };
    },
  },
  resend_failed: {
    schema: v.strictObject({ from: Millis("from"), to: Millis("to") }),
    handle: async (c, { from, to }: { from: number; to: number }) => {
      if (to < from) refuse("to", "to must not be before from");
      if (to - from > RESEND_SPAN_MS) refuse("to", "to must be at most 31 days after from");
      const { rows } = await listLoggedEvents(c.env, { delivery: "failed", limit: RESEND_LIMIT });
      let resent = 0;
      for (const row of rows) {
        const created = decodeTime(row.id);
        if (created < from || created > to) continue;
        await resendEvent(c.env, row.id);
        resent++;
      }
      return { body: { resent }, target: `failed ${from}..${to}` };
    },
  },
  erasures: {
    schema: v.strictObject({}),
    handle: async (c) => {
      const { results } = await c.env.DB.prepare(
        "SELECT user, requested_at, done_at, cursor FROM erasures ORDER BY requested_at DESC LIMIT 100",
      ).all<{ user: string; requested_at: number; done_at: number | null; cursor: string | null }>();
      const requests = results.map((row) => {
        const progress = row.cursor ? (JSON.parse(row.cursor) as Record<string, unknown>) : {};
        const parts = Object.values(progress);
        return {
          user_masked:
            row.user.length <= 4 ? "*".repeat(row.user.length) : `${row.user.slice(0, 2)}${"*".repeat(row.user.length - 4)}${row.user.slice(-2)}`,
          requested_at: row.requested_at,
          done_at: row.done_at,
          state: row.done_at !== null ? "done" : "in_progress",
          progress: { steps_done: parts.filter((p) => p === true).length, steps_started: parts.length },
        };
      });
      return { body: { requests }, target: "erasures" };
    },
  },
  charts: {
    schema: v.strictObject({ hours: v.picklist([1, 6, 24], "hours must be 1, 6 or 24") }),
    handle: async (c, { hours }: { hours: 1 | 6 | 24 }) => ({ body: await chartsFor(c.env, hours, clock.now()), target: `charts ${hours}h` }),
  },
};

/** The time an event id (evt_<ULID>) was made at. */
function decodeTime(id: string): number {
  const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  let time = 0;
  for (const char of id.slice(4, 14)) time = time * 32 + ALPHABET.indexOf(char);
  return time;
}

function refuse(path: string, message: string): never {
  throw new ApiError("invalid_request", "The request does not match the schema.", { details: [{ path, message }] });
}

/** An entry of the audit trail for this request (rule 15); a failed write refuses what it was for. */
async function audit(c: Ctx, entry: Omit<StaffAction, "email" | "role" | "request_id">): Promise<void> {
  const { email, role } = c.var.staff;
  try {
    await auditStaff(c.env, { email, role: role ?? "none", request_id: c.var.requestId, ...entry });
  } catch (err) {
    log("error", "staff_audit_failed", { action: entry.action, error: err instanceof Error ? err.message : String(err) });
    throw new ApiError("not_ready", "The audit trail could not record this; nothing is answered that it cannot record. Retry shortly.");
  }
}

/** Who is asking: verified, or a thrown 401/403. */
async function staffOf(c: Ctx): Promise<Staff> {
  const staff = await identifyStaff(c.env, c as never);
  c.set("staff", staff);
  return staff;
}

/** The role's permission for `operation`: a person with no role, or a role without it, is refused 403 and the refusal audited. */
async function allow(c: Ctx, operation: Operation, target: string): Promise<void> {
  const { role } = c.var.staff;
  if (role && may(role, operation)) return;
  await audit(c, { action: `console.${operation}`, target, outcome: "forbidden" });
  throw new ApiError(
    "forbidden",
    role ? `The ${role} role may not use ${operation}.` : "STAFF_ROLES gives this identity no role in the console; ask the partner's operator.",
  );
}

/** The development sign-in's page: an email and a role. */
const SIGN_IN_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Console: development sign-in</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>Development sign-in</h1>
<p>Production signs staff in through Cloudflare Access; this page exists only under <code>npm run dev</code>.</p>
<form method="post" action="/console/dev-sign-in">
<p><label for="email">Email</label> <input id="email" name="email" type="email" required autocomplete="email"></p>
<p><label for="role">Role</label> <select id="role" name="role">${ROLES.map((r) => `<option value="${r}">${r}</option>`).join("")}</select></p>
<p><button type="submit">Sign in</button></p>
</form></main></body></html>`;

const NOT_SIGNED_IN_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Console: sign in</title></head>
<body><main><h1>Sign in through Cloudflare Access</h1><p>This console is reached through the partner's Cloudflare Access application.</p></main></body></html>`;

const SignIn = v.strictObject({
  email: v.pipe(v.string("email must be a string"), v.trim(), v.toLowerCase(), v.email("email must be an email"), v.maxLength(255)),
  role: v.picklist(ROLES, `role must be one of ${ROLES.join(", ")}`),
});

export function backOffice() {
  const app = new Hono<ConsoleEnv>();
  // The forms of the development sign-in only from the console's own origin (JSON operations cannot be sent by a cross-site form).
  app.use("*", csrf());

  app.get("/dev-sign-in", (c) => {
    if (!devSignInOffered(c.env)) throw new ApiError("not_found", "No such path.");
    return c.html(SIGN_IN_PAGE);
  });
  app.post("/dev-sign-in", async (c) => {
    if (!devSignInOffered(c.env)) throw new ApiError("not_found", "No such path.");
    const form: Record<string, unknown> = await c.req.parseBody().catch(() => ({}));
    const parsed = v.safeParse(SignIn, { email: form.email, role: form.role });
    if (!parsed.success) refuseBody(SignIn, form, parsed.issues);
    const token = await signDevToken(c.env, parsed.output.email, parsed.output.role);
    setCookie(c, ACCESS_COOKIE, token, { path: "/console", httpOnly: true, sameSite: "Strict", maxAge: DEV_SESSION_SECONDS });
    return c.redirect("/console/", 303);
  });

  // The page: only to a verified identity with a role.
  const page = async (c: Ctx) => {
    try {
      const staff = await staffOf(c);
      if (!staff.role) throw new ApiError("forbidden", "STAFF_ROLES gives this identity no role in the console.");
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== "unauthorized") throw err;
      if (devSignInOffered(c.env)) return c.redirect("/console/dev-sign-in", 303);
      return c.html(NOT_SIGNED_IN_PAGE, 401);
    }
    const path = c.req.path === "/console" ? "/console/" : c.req.path;
    const response = await c.env.ASSETS.fetch(new URL(path, c.req.url), { method: "GET" });
    if (response.status === 404) throw new ApiError("not_found", "No such page of the console.");
    await audit(c, { action: "console.page", target: path, outcome: "ok" });
    return new Response(response.body, {
      status: response.status,
      headers: { ...Object.fromEntries(response.headers), "cache-control": "no-store" },
    });
  };

  app.get("/files/statements/:file", async (c) => {
    await staffOf(c);
    const file = c.req.param("file");
    await allow(c, "statement_file", file);
    const response = await statementFile(c as never);
    await audit(c, { action: "console.statement_file", target: file, outcome: "ok" });
    return response;
  });

  app.post("/api/:name", requireJson, limitBody, async (c, next) => {
    await staffOf(c);
    await next();
  });
  app.post("/api/:name", parseJson, async (c) => {
    const name = c.req.param("name") as Operation;
    const spec = Object.hasOwn(OPERATIONS, name) ? OPERATIONS[name] : null;
    if (!spec) throw new ApiError("not_found", `No console operation ${name}.`);
    const body = await c.req.json();
    const target = typeof body?.id === "string" ? body.id : name;
    await allow(c, name, target);
    const parsed = v.safeParse(spec.schema, body);
    if (!parsed.success) {
      await audit(c, { action: `console.${name}`, target, outcome: "invalid_request" });
      refuseBody(spec.schema, body, parsed.issues);
    }
    let handled: Handled;
    try {
      handled = await spec.handle(c, parsed.output as never);
    } catch (err) {
      const code = err instanceof ApiError ? err.code : "internal_error";
      await audit(c, { action: `console.${name}`, target, outcome: code });
      throw err;
    }
    await audit(c, {
      action: `console.${name}`,
      target: handled.target,
      outcome: "ok",
      ...(handled.receipt_id ? { receipt_id: handled.receipt_id } : {}),
    });
    return c.json(handled.body as object, 200, { "cache-control": "no-store" });
  });
  app.all("/api/*", () => {
    throw new ApiError("method_not_allowed", "Console operations are POST /console/api/<name>.", { headers: { Allow: "POST" } });
  });

  app.get("/", page);
  app.get("/*", page);
  return app;
}
