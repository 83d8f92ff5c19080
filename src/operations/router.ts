/**
 * An API's router, made from its operations' descriptions. What applies to
 * every path of the API is bound once, on the router: another method than
 * POST is 405 (404 on a path that is no operation), then who is calling is
 * settled before the body is looked at (an unauthenticated caller learns
 * nothing else and costs nothing more; a partner-only API refuses users
 * here), then the body must be JSON of at most 16 KiB. What applies to one
 * operation is bound on its route: its part of the document, its body's
 * validation, then its rate limit, so a malformed request is 400 and spends
 * no budget.
 */
import { type Context, Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { ApiError } from "../errors/errors";
import { authenticate, requirePartner } from "../http/auth";
import { acceptAliases, jsonBody, limitBody, parseJson, requireJson } from "../http/http";
import { rateLimit } from "../http/rate-limit";
import type { GatewayEnv } from "../http/types";
import { documented } from "./openapi";
import type { Section } from "./operation";

export interface Api {
  prefix: `/${string}`;
  /** How messages name its operations: "Partner operations are POST requests ...". */
  name: "Partner" | "Gateway";
  /** "partner": every operation of the API is for the partner's server key; users are refused 403 at the door. */
  callers?: "partner";
  sections: readonly Section[];
}

/** A route's input once jsonBody has validated it: the operation's own type, which its handle declares. */
type ValidJson = { in: { json: unknown }; out: { json: unknown } };

export function apiRouter(api: Api): Hono<GatewayEnv> {
  const router = new Hono<GatewayEnv>();
  const routes = api.sections.flatMap((section) => section.operations.map((operation) => ({ operation, tags: [section.tag] })));

  router.use(onlyPost(new Set(routes.map(({ operation }) => `${api.prefix}${operation.path}`)), api.name));
  router.use(authenticate);
  if (api.callers === "partner") router.use(requirePartner);
  router.use(requireJson, limitBody, parseJson);

  for (const { operation, tags } of routes) {
    if (operation.callers === "partner" && api.callers !== "partner" && operation.lifecycle === undefined) {
      throw new Error(`${operation.operationId} is partner-only, but neither its API nor a lifecycle operation refuses users.`);
    }
    const partnerOnly = api.callers === "partner" || operation.callers === "partner";
    const limit = operation.limit ? [rateLimit(operation.limit)] : [];
    router.post(
      operation.path,
      documented(operation, { tags, partnerOnly }),
      ...(operation.aliases ? [acceptAliases(operation.aliases)] : []),
      jsonBody(operation.request),
      ...limit,
      (c: Context<GatewayEnv, string, ValidJson>) => operation.handle(c, c.req.valid("json")),
    );
  }
  return router;
}

/**
 * An operation asked with another method than POST: 405 method_not_allowed
 * with `Allow: POST`. A path that is no operation stays 404.
 */
function onlyPost(operations: ReadonlySet<string>, name: Api["name"]) {
  return createMiddleware<GatewayEnv>(async (c, next) => {
    if (c.req.method === "POST") return next();
    if (!operations.has(c.req.path)) {
      throw new ApiError("not_found", `No such operation. ${name} operations are POST requests with a JSON body.`);
    }
    throw new ApiError("method_not_allowed", `${name} operations are POST requests with a JSON body; ${c.req.method} is not allowed.`, {
      headers: { Allow: "POST" },
    });
  });
}
