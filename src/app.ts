/**
 * The gateway's HTTP surface: middleware, the partner API routes, health,
 * the OpenAPI document and its reference page.
 */
import { Scalar } from "@scalar/hono-api-reference";
import { Hono } from "hono";
import { requestId } from "hono/request-id";
import { authenticate, requirePartner } from "./auth";
import { requireSoundConfig } from "./config";
import { ApiError, renderError } from "./errors";
import { limitBody, parseJson, requireJson } from "./http";
import { openApiDocument } from "./openapi";
import { rateLimit } from "./rate-limit";
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

  app.use(`${API_PREFIX}/*`, async (c, next) => {
    if (c.req.method !== "POST") throw new ApiError("not_found", "Partner operations are POST requests.");
    await next();
  });
  // Who is calling is settled before the body is looked at, for every partner
  // path: an unauthenticated caller learns nothing else and costs nothing more.
  app.use(`${API_PREFIX}/*`, authenticate, requireJson, limitBody);
  const limitAuthorize = rateLimit("authorize");
  const limitPay = rateLimit("pay");
  app.use(`${API_PREFIX}/receipt/authorize`, limitAuthorize);
  app.use(`${API_PREFIX}/receipt/anonymous/authorize`, limitAuthorize);
  app.use(`${API_PREFIX}/receipt/pay`, limitPay);
  app.use(`${API_PREFIX}/receipt/anonymous/pay`, limitPay);
  app.use(`${API_PREFIX}/a2c/pay`, limitPay);
  app.use(`${API_PREFIX}/*`, parseJson);
  app.route(API_PREFIX, receipts);
  app.route(API_PREFIX, transfers);

  app.use(`${GATEWAY_PREFIX}/*`, async (c, next) => {
    if (c.req.method !== "POST") throw new ApiError("not_found", "Gateway operations are POST requests.");
    await next();
  });
  // The partner routes' chain, with users refused right after authentication.
  app.use(`${GATEWAY_PREFIX}/*`, authenticate, requirePartner, requireJson, limitBody, parseJson);
  app.route(GATEWAY_PREFIX, gateway);

  app.get("/openapi.json", openApiDocument(app));
  app.get("/docs", Scalar({ url: "/openapi.json", pageTitle: "Payments edge gateway" }));

  return app;
}
