/**
 * The gateway's HTTP surface: middleware, the partner API routes, health,
 * the OpenAPI document and its reference page.
 */
import { Scalar } from "@scalar/hono-api-reference";
import { Hono } from "hono";
import { requestId } from "hono/request-id";
import { openAPIRouteHandler } from "hono-openapi";
import { authenticate } from "./auth";
import { ApiError, renderError } from "./errors";
import { limitBody, parseJson, requireJson } from "./http";
import { receipts } from "./routes/receipts";
import { transfers } from "./routes/transfers";
import type { GatewayEnv } from "./types";

export const API_PREFIX = "/api/v1/partner";

export function createApp() {
  const app = new Hono<GatewayEnv>();

  app.use(requestId());
  app.onError(renderError);
  app.notFound(() => {
    throw new ApiError("not_found", "No such path. POST operations live under /api/v1/partner/.");
  });

  app.get("/healthz", (c) => c.json({ ok: true }));

  app.use(`${API_PREFIX}/*`, async (c, next) => {
    if (c.req.method !== "POST") throw new ApiError("not_found", "Partner operations are POST requests.");
    await next();
  });
  app.use(`${API_PREFIX}/*`, requireJson, limitBody, authenticate, parseJson);
  app.route(API_PREFIX, receipts);
  app.route(API_PREFIX, transfers);

  app.get(
    "/openapi.json",
    openAPIRouteHandler(app, {
      documentation: {
        openapi: "3.1.0",
        info: {
          title: "Payments edge gateway",
          version: "1.0.0",
          description:
            "The partner receipt API of the payment service, proxied at the edge. Paths and bodies are the upstream's; the gateway adds tid uniqueness with safe retries, the three-wrong-OTPs rule, ownership checks and validation. Every error is `{\"error\": {\"code\", \"message\", \"request_id\", ...}}`; every response carries `X-Request-Id`.",
        },
        components: {
          securitySchemes: {
            partnerKey: { type: "http", scheme: "bearer", description: "Partner backend server key (`sk_...`)." },
            userJwt: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "A user's JWT from the partner's identity provider." },
          },
        },
      },
    }),
  );
  app.get("/docs", Scalar({ url: "/openapi.json", pageTitle: "Payments edge gateway" }));

  return app;
}
