/**
 * The gateway's HTTP surface: middleware, the partner API routes, health,
 * the OpenAPI document and its reference page.
 */
import { type Context, Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { requestId } from "hono/request-id";
import { authenticate, requirePartner } from "./auth";
import { requireSoundConfig } from "./guard";
import { ApiError, renderError } from "./errors";
import { limitBody, parseJson, requireJson } from "./http";
import { openApiDocument } from "./openapi";
import { checkReadiness } from "./readiness";
import { gateway } from "./routes/gateway";
import { receipts } from "./routes/receipts";
import { transfers } from "./routes/transfers";
import type { GatewayEnv } from "./types";

export const API_PREFIX = "/api/v1/partner";
/** The gateway's own operations (events, audit): partner server key only. */
export const GATEWAY_PREFIX = "/api/v1/gateway";

export function createApp() {
  const app = new Hono<GatewayEnv>();

  app.use(requestId());
  app.onError(renderError);
  app.notFound(() => {
    throw new ApiError("not_found", "No such path. POST operations live under /api/v1/partner/.");
  });

  // Before everything, health included: a misconfigured deployment must not look healthy.
  app.use(requireSoundConfig);

  app.get("/healthz", (c) => c.json({ ok: true }));
  app.get("/readyz", async (c) => c.json(await checkReadiness(c.env, c.var.requestId), 200));
  // HEAD is answered as GET (Hono); every other method is 405.
  app.all("/healthz", onlyGet);
  app.all("/readyz", onlyGet);

  app.use(`${API_PREFIX}/*`, onlyPost(app, "Partner"));
  // Who is calling is settled before the body is looked at, for every partner
  // path: an unauthenticated caller learns nothing else and costs nothing more.
  // The rate limits of authorize and pay come last, in their routes after the
  // body's validation: a malformed request is 400 and spends no budget.
  app.use(`${API_PREFIX}/*`, authenticate, requireJson, limitBody, parseJson);
  app.route(API_PREFIX, receipts);
  app.route(API_PREFIX, transfers);

  app.use(`${GATEWAY_PREFIX}/*`, onlyPost(app, "Gateway"));
  // The partner routes' chain, with users refused right after authentication.
  app.use(`${GATEWAY_PREFIX}/*`, authenticate, requirePartner, requireJson, limitBody, parseJson);
  app.route(GATEWAY_PREFIX, gateway);

  app.get("/openapi.json", openApiDocument(app));
  // The reference page and the landing page are static assets (public/, built by
  // scripts/build-docs-assets.mjs): Workers static assets serve them before the
  // Worker runs. These routes answer the same files when the Worker is reached
  // first (the tests' entry, or a deployment with run_worker_first).
  app.get("/", (c) => serveAsset(c.env, c.req.raw, "/"));
  app.get("/docs", (c) => serveAsset(c.env, c.req.raw, "/docs"));

  return app;
}

/**
 * A partner or gateway operation asked with another method than POST: 405
 * method_not_allowed with `Allow: POST`. A path that is no operation stays 404.
 */
function onlyPost(app: Hono<GatewayEnv>, kind: "Partner" | "Gateway") {
  let operations: Set<string> | undefined;
  return createMiddleware<GatewayEnv>(async (c, next) => {
    if (c.req.method === "POST") return next();
    operations ??= new Set(app.routes.filter((route) => route.method === "POST").map((route) => route.path));
    if (!operations.has(c.req.path)) {
      throw new ApiError("not_found", `No such operation. ${kind} operations are POST requests with a JSON body.`);
    }
    throw new ApiError("method_not_allowed", `${kind} operations are POST requests with a JSON body; ${c.req.method} is not allowed.`, {
      headers: { Allow: "POST" },
    });
  });
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
