/**
 * Route documentation for the OpenAPI document, built from the same valibot
 * schemas that validate requests.
 */
import { describeRoute, resolver } from "hono-openapi";
import type { GenericSchema } from "valibot";
import { ERROR_STATUS, type ErrorCode } from "./errors";
import { ErrorBody } from "./schemas";

export interface RouteDoc {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  response: GenericSchema;
  /** The contract codes this operation may answer, beyond the ones every call may. */
  errors: ErrorCode[];
  /** Partner-only operations say so. */
  partnerOnly?: boolean;
  headers?: Record<string, { description: string; schema: { type: "string" } }>;
}

/** Codes any authenticated JSON call can answer. */
const COMMON: ErrorCode[] = [
  "invalid_json",
  "invalid_request",
  "unauthorized",
  "payload_too_large",
  "unsupported_media_type",
  "upstream_error",
  "service_misconfigured",
  "upstream_timeout",
];

export function documented(doc: RouteDoc) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...COMMON, ...doc.errors]) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...new Set([...(byStatus.get(status) ?? []), code])]);
  }
  const errorResponses = Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, codes]) => [
        String(status),
        {
          description: `Error: ${codes.map((code) => `\`${code}\``).join(", ")}`,
          content: { "application/json": { schema: resolver(ErrorBody) } },
        },
      ]),
  );
  return describeRoute({
    operationId: doc.operationId,
    summary: doc.summary,
    description: doc.description,
    tags: doc.tags,
    security: doc.partnerOnly ? [{ partnerKey: [] }] : [{ partnerKey: [] }, { userJwt: [] }],
    responses: {
      200: {
        description: "Success",
        ...(doc.headers ? { headers: doc.headers } : {}),
        content: { "application/json": { schema: resolver(doc.response) } },
      },
      ...errorResponses,
    },
  });
}
