/**
 * What every API call goes through before its handler: a JSON content type,
 * a body of at most 16 KiB, and a body that parses. Each refusal is the
 * contract's error, raised before anything is spent on the request.
 */
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import { validator as documentedValidator } from "hono-openapi";
import type { GenericSchema } from "valibot";
import { ApiError } from "./errors";
import { redact } from "./redact";
import type { GatewayEnv } from "./types";

export const MAX_BODY_BYTES = 16 * 1024;

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

export const requireJson = createMiddleware<GatewayEnv>(async (c, next) => {
  if (!JSON_TYPE.test(c.req.header("content-type") ?? "")) {
    throw new ApiError("unsupported_media_type", "Send the request body as JSON, with Content-Type: application/json.");
  }
  await next();
});

export const limitBody: MiddlewareHandler<GatewayEnv> = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    throw new ApiError("payload_too_large", "Request bodies are limited to 16 KiB.");
  },
});

/** Parses the body once (Hono caches it for the validator) so bad JSON gets its own code. */
export const parseJson = createMiddleware<GatewayEnv>(async (c, next) => {
  try {
    await c.req.json();
  } catch {
    throw new ApiError("invalid_json", "The request body is not valid JSON.");
  }
  await next();
});

function issuePath(path: ReadonlyArray<PropertyKey | { key: PropertyKey }> | undefined): string {
  if (!path || path.length === 0) return "";
  return path.map((segment) => String(typeof segment === "object" ? segment.key : segment)).join(".");
}

/**
 * Validates the JSON body against a schema from src/schemas.ts and registers
 * it in the OpenAPI document. Failures become 400 invalid_request with one
 * detail per problem; messages never carry the offending value.
 */
export const jsonBody = <S extends GenericSchema>(schema: S) =>
  documentedValidator("json", schema, (result, _c: Context) => {
    if (result.success) return;
    const details = result.error.map((issue) => ({
      path: issuePath(issue.path),
      message: String(redact(issue.message)),
    }));
    throw new ApiError("invalid_request", "The request body does not match the schema.", { details });
  });
