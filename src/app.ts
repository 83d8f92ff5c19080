/**
 * The gateway's HTTP surface: request ids, the error envelope, the
 * configuration guard, health, the APIs (src/operations/ describes every
 * operation), the OpenAPI document and its reference page.
 */
import { type Context, Hono } from "hono";
import { requestId } from "hono/request-id";
import { auditCalls } from "./audit/calls";
import { backOffice } from "./backoffice/routes";
import { ApiError, renderError } from "./errors/errors";
import { negotiateLanguage } from "./errors/language";
import { authenticate, requirePartner } from "./http/auth";
import { requireSoundConfig } from "./http/guard";
import { limitBody, parseJson, requireJson } from "./http/http";
import { checkReadiness } from "./http/readiness";
import type { GatewayEnv } from "./http/types";
import { APIS, apiRouter, GATEWAY_API } from "./operations";
import { canonicalLine } from "./operations/canonical-line";
import { openApiDocument } from "./operations/openapi";
import { RESTORE_PATH, restoreDoor, restoreRecord } from "./operations/restore";
import { statementFile } from "./statements/api";

export function createApp() {
  const app = new Hono<GatewayEnv>();

  app.use(requestId());
  // The request's one log line (src/shared/log.ts), written when its answer is: everything below logs into it.
  app.use(canonicalLine);
  // First, so that every error answer, the guard's and a missing route's included, speaks the caller's language.
  app.use(negotiateLanguage);
  app.onError(renderError);
  const operations = new Set(APIS.flatMap((api) => api.sections.flatMap((section) => section.operations.map((op) => `${api.prefix}${op.path}`))));
  app.notFound((c) => {
    const trimmed = c.req.path.replace(/\/+$/, "");
    if (trimmed !== c.req.path && operations.has(trimmed))
      throw new ApiError("not_found", `No such path: the operation is ${trimmed}, without the trailing slash.`);
    throw new ApiError("not_found", "No such path. POST operations live under /api/v1/partner/ (and the partner's own under /api/v1/gateway/).");
  });

  // Before everything, health included: a misconfigured deployment must not look healthy.
  app.use(requireSoundConfig);

  app.get("/healthz", (c) => c.json({ ok: true }));
  app.get("/readyz", async (c) => c.json(await checkReadiness(c.env, c.var.requestId), 200));
  // HEAD is answered as GET (Hono); every other method is 405.
  app.all("/healthz", onlyGet);
  app.all("/readyz", onlyGet);

  // Rule 15: every call to the gateway's own operations, and the operator's restore, is in the audit trail.
  app.use(`${GATEWAY_API.prefix}/*`, auditCalls(GATEWAY_API.prefix));
  app.use(RESTORE_PATH, auditCalls("/api/v1/operator"));

  // The operator's restore of a record (src/operations/restore.ts): no path at all unless RESTORE_KEY_HASH is set.
  app.post(RESTORE_PATH, restoreDoor, requireJson, limitBody, parseJson, restoreRecord);

  // Rule 16's files: GET, the partner's key, streamed as R2 holds them (src/statements/api.ts).
  app.get(`${GATEWAY_API.prefix}/statements/:file`, authenticate, requirePartner, statementFile);

  // Each API's router binds what applies to all its paths, and each operation its own (src/operations/router.ts).
  for (const api of APIS) app.route(api.prefix, apiRouter(api));

  // The back office (src/backoffice/): its own identity (Cloudflare Access), roles and audit, never the API's credentials.
  app.route("/console", backOffice());

  app.get("/openapi.json", openApiDocument(app));
  // The reference page and the landing page are static assets (public/, built by
  // scripts/build-docs-assets.mjs): Workers static assets serve them before the
  // Worker runs. These routes answer the same files when the Worker is reached
  // first (the tests' entry, or a deployment with run_worker_first).
  app.get("/", (c) => serveAsset(c.env, c.req.raw, "/"));
  app.get("/docs", (c) => serveAsset(c.env, c.req.raw, "/docs"));

  return app;
}

/** A probe asked with another method than GET or HEAD: 405 method_not_allowed with `Allow: GET, HEAD`. */
function onlyGet(c: Context<GatewayEnv>): never {
  throw new ApiError("method_not_allowed", `${c.req.path} answers GET (and HEAD); ${c.req.method} is not allowed.`, {
    headers: { Allow: "GET, HEAD" },
  });
}

/** A static asset by path, or 404 not_found if the assets were not built (npm run build:docs). */
async function serveAsset(env: Env, request: Request, path: string): Promise<Response> {
  const response = await env.ASSETS.fetch(new URL(path, request.url), { method: request.method, headers: request.headers });
  if (response.status === 404) throw new ApiError("not_found", "The reference page was not built: run npm run build:docs.");
  return response;
}
