/**
 * Authentication: decides who the caller is and sets `c.var.caller`.
 *
 * This is the seam every rule reads the caller from. Until partner keys and
 * users' JWTs are verified here, every caller is the partner.
 */
import { createMiddleware } from "hono/factory";
import type { GatewayEnv } from "./types";

export const authenticate = createMiddleware<GatewayEnv>(async (c, next) => {
  c.set("caller", { kind: "partner", id: "partner" });
  await next();
});
