/**
 * The OpenAPI document, built from the same valibot schemas that validate
 * requests: `documented()` describes each operation from its description
 * (src/operations/; hono-openapi generates the paths from it), and
 * `openApiDocument()` serves GET /openapi.json, finishing
 * what hono-openapi cannot say itself in one place (finish()): named schemas
 * hoisted into components by the `title` set on them in src/api/schemas.ts, the
 * events as `webhooks`, servers. Every shape still comes from a valibot schema
 * and every error code list from the error table (src/errors/error-codes.ts) and the
 * operation's `errors`.
 */
import type { Context, Hono } from "hono";
import { describeRoute, openAPIRouteHandler, resolver } from "hono-openapi";
import type { OpenAPIV3_1 } from "openapi-types";
import type { GenericSchema } from "valibot";
import { ErrorBody, IDEMPOTENCY_KEY_PATTERN } from "../api/schemas";
import { DECLINE_REASONS, ERROR_CODE_NAMES, ERROR_CODES, type ErrorCode, errorExample, LANGUAGES } from "../errors/error-codes";
import { eventWebhooks } from "../events/openapi";
import { KEYED_OPERATIONS } from "../rules/lifecycle";

/** What the document says of one operation, beside its request (which its validator documents). */
export interface RouteDoc {
  operationId: string;
  summary: string;
  /** The prose (src/operations/docs/). */
  description: string;
  response: GenericSchema;
  /** What the sandbox answers to the request's example (src/api/examples.ts; test/docs/examples.test.ts holds them to each other). */
  example: { summary: string; value: unknown };
  /** The contract codes this operation may answer, beyond the ones every call may. */
  errors: ErrorCode[];
  /** Headers of the success answer beyond X-Request-Id. */
  headers?: HeaderName[];
  /** The success status (200 unless said). */
  status?: 200 | 202;
  /** Operations that take an id from the answer (OpenAPI links), by name. */
  links?: Record<string, Link>;
  /** Its lifecycle operation (src/rules/lifecycle.ts): the money moves take an Idempotency-Key (rule 11). */
  lifecycle?: string;
  /**
   * Field names accepted for a documented one, `{alias: name}`: renamed
   * before validation (src/http/http.ts acceptAliases). The document admits the
   * body with the alias as a second shape of its own (finish()).
   */
  aliases?: Readonly<Record<string, string>>;
}

/** Rule 11's request header, declared once under components.parameters. */
const IDEMPOTENCY_KEY_PARAMETER: OpenAPIV3_1.ParameterObject = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "Makes the request safe to repeat (rule 11): a repeat by the same caller of this operation on this record with the same key and body gets the first answer again (with `Idempotent-Replayed: true`) and reaches nothing upstream; another body is 409 `idempotency_key_reused`; while the first is in flight, 409 `operation_in_progress`. Use one key per logical operation (a UUID) and the same key on every retry. 1 to 255 printable ASCII characters, neither the first nor the last a space (HTTP trims those: a key of spaces only arrives empty); anything else is 400 `invalid_request`. On a create it is accepted, and the tid decides (rule 1).",
  schema: { type: "string", minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY_PATTERN },
};

/** An OpenAPI link: the operation that takes the answer's `field` as its body's `id`. */
export interface Link {
  operationId: string;
  description: string;
  field: string;
}

/** Codes any authenticated JSON call can answer. */
export const COMMON: ErrorCode[] = [
  "invalid_json",
  "invalid_request",
  "unauthorized",
  "method_not_allowed",
  "payload_too_large",
  "unsupported_media_type",
  "internal_error",
  "upstream_error",
  "upstream_refused",
  "upstream_unavailable",
  "service_misconfigured",
  // A record a newer release stored, met after a rollback (src/errors/errors.ts).
  "not_ready",
  "upstream_timeout",
];

/** The codes whose answers carry Retry-After (the contract's Errors section); no other code sends it. */
export const RETRY_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "tid_in_progress",
  "operation_in_progress",
  "rate_limited",
  "otp_resend_too_soon",
  "risk_limited",
  "upstream_unavailable",
  "not_ready",
]);

/** Response headers, declared once under components.headers. */
const HEADERS: Record<HeaderName, OpenAPIV3_1.HeaderObject> = {
  "X-Request-Id": {
    description: "The request's id, on every response; quote it when reporting a problem. Also in every error body as `request_id`.",
    required: true,
    schema: { type: "string", maxLength: 255, pattern: "^[\\w\\-=]{1,255}$" },
  },
  "Retry-After": {
    description: "Seconds to wait before retrying.",
    required: true,
    schema: { type: "integer", format: "int32", minimum: 1, maximum: 86400 },
  },
  "Idempotent-Replayed": {
    description:
      "`true` when this is the answer kept for an earlier request: an identical create (rule 1), or a repeat of an Idempotency-Key (rule 11); absent otherwise.",
    schema: { type: "string", enum: ["true"] },
  },
  "WWW-Authenticate": {
    description: "The Bearer challenge (RFC 6750).",
    required: true,
    schema: { type: "string", maxLength: 1024, pattern: "^Bearer" },
  },
  Allow: {
    description: "The methods the path answers: `POST`.",
    required: true,
    schema: { type: "string", enum: ["POST"] },
  },
  "Content-Language": {
    description:
      "The language of the error's `user_message`: the one Accept-Language prefers among `uz` (Uzbek, Latin script; `uz-Latn` and `uz-UZ` ask for it too), `uz-Cyrl`, `ru` and `en`; `en` when none is acceptable or the header is absent.",
    required: true,
    schema: { type: "string", enum: [...LANGUAGES] },
  },
};

type HeaderName = "X-Request-Id" | "Retry-After" | "Idempotent-Replayed" | "WWW-Authenticate" | "Allow" | "Content-Language";

const headerRef = (name: HeaderName) => ({ $ref: `#/components/headers/${name}` });

/** The codes an operation may answer, by status: the error table's statuses applied to COMMON and the route's list. */
export function errorCodesByStatus(errors: readonly ErrorCode[]): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...COMMON, ...errors]) {
    const { status } = ERROR_CODES[code];
    byStatus.set(status, [...new Set([...(byStatus.get(status) ?? []), code])]);
  }
  return new Map([...byStatus.entries()].sort(([a], [b]) => a - b));
}

/** The Error component, narrowed to the codes one status carries on one operation. */
const errorSchema = (codes: ErrorCode[]): OpenAPIV3_1.SchemaObject => ({
  allOf: [
    { $ref: "#/components/schemas/Error" },
    {
      type: "object",
      properties: { error: { type: "object", properties: { code: { type: "string", enum: codes } } } },
    },
  ],
});

/** What the document says of codes it does not list: the ErrorCode component and the error's `code`. */
const OPEN_CODES =
  "The list grows: a client must expect a code it does not know, and handle it by its HTTP status (the typed client answers it as `unknown_error`, with the code in `gatewayCode`).";

/**
 * The ErrorCode component: every code known today, with its meaning (shown in
 * /docs and by generators that read `x-enum-descriptions`), and the
 * user_message texts of each code and of each card_declined's decline_reason,
 * by language (the `x-user-messages` and `x-decline-reason-user-messages`
 * extensions), so an app can see every sentence its user may be shown. The
 * error's `code` is this or any other string (ERROR_SCHEMA_CODE), so a strict
 * decoder generated from the document reads a newer gateway's code too.
 */
export const ERROR_CODE_SCHEMA: OpenAPIV3_1.SchemaObject & Record<string, unknown> = {
  type: "string",
  title: "ErrorCode",
  description: `What went wrong, as the contract names it. The HTTP status follows from the code. ${OPEN_CODES} Every error also carries \`user_message\`, a sentence for the app's user in the language Accept-Language prefers (${LANGUAGES.map((language) => `\`${language}\``).join(", ")}; Content-Language names it): \`x-user-messages\` lists each code's, by language, and \`x-decline-reason-user-messages\` card_declined's by \`decline_reason\` (a reason not listed there keeps card_declined's own).\n\n| code | HTTP | meaning |\n|---|---|---|\n${ERROR_CODE_NAMES.map(
    (code) => `| \`${code}\` | ${ERROR_CODES[code].status} | ${ERROR_CODES[code].meaning} |`,
  ).join("\n")}`,
  enum: [...ERROR_CODE_NAMES],
  "x-enum-descriptions": ERROR_CODE_NAMES.map((code) => ERROR_CODES[code].meaning),
  "x-user-messages": Object.fromEntries(ERROR_CODE_NAMES.map((code) => [code, ERROR_CODES[code].user_message])),
  "x-decline-reason-user-messages": DECLINE_REASONS,
};

/** The Error component's `code`: a known code (ErrorCode) or a newer one. */
export const ERROR_SCHEMA_CODE: OpenAPIV3_1.SchemaObject = {
  description: `The contract's error code: one of ErrorCode; each response lists the codes its status carries on that operation. ${OPEN_CODES}`,
  anyOf: [{ $ref: "#/components/schemas/ErrorCode" }, { type: "string", description: "A code newer than this document." }],
};

function errorResponse(status: number, codes: ErrorCode[]) {
  const headers: Record<string, unknown> = { "X-Request-Id": headerRef("X-Request-Id"), "Content-Language": headerRef("Content-Language") };
  const retrying = codes.filter((code) => RETRY_CODES.has(code));
  if (retrying.length === codes.length) headers["Retry-After"] = headerRef("Retry-After");
  else if (retrying.length > 0) {
    headers["Retry-After"] = {
      ...HEADERS["Retry-After"],
      required: false,
      description: `Seconds to wait before retrying; sent with ${retrying.map((code) => `\`${code}\``).join(" and ")} only.`,
    };
  }
  if (status === 401) headers["WWW-Authenticate"] = headerRef("WWW-Authenticate");
  if (status === 405) headers.Allow = headerRef("Allow");
  return {
    description: `Error:\n${codes.map((code) => `- \`${code}\`: ${ERROR_CODES[code].meaning}`).join("\n")}`,
    headers,
    content: {
      "application/json": {
        schema: errorSchema(codes),
        examples: Object.fromEntries(codes.map((code) => [code, { summary: code, value: errorExample(code) }])),
      },
    },
  };
}

/** The route's part of the document: `tags` from its section, and whether only the partner may call it. */
export function documented(doc: RouteDoc, { tags, partnerOnly }: { tags: string[]; partnerOnly: boolean }) {
  const keyed = doc.lifecycle !== undefined && (KEYED_OPERATIONS as readonly string[]).includes(doc.lifecycle);
  const errors: ErrorCode[] = keyed ? [...doc.errors, "idempotency_key_reused"] : doc.errors;
  const errorResponses = Object.fromEntries(
    [...errorCodesByStatus(errors).entries()].map(([status, codes]) => [String(status), errorResponse(status, codes)]),
  );
  const links = doc.links;
  const takesKey = keyed || (doc.headers ?? []).includes("Idempotent-Replayed");
  const successHeaders: HeaderName[] = [...new Set([...(doc.headers ?? []), ...(keyed ? (["Idempotent-Replayed"] as const) : [])])];
  return describeRoute({
    operationId: doc.operationId,
    // Read and removed by finish(), once the request body is a component to copy.
    ...(doc.aliases ? { [ALIASES]: doc.aliases } : {}),
    ...(takesKey ? { parameters: [{ $ref: "#/components/parameters/IdempotencyKey" }] } : {}),
    summary: doc.summary,
    description: doc.description,
    tags,
    security: partnerOnly ? [{ partnerKey: [] }] : [{ partnerKey: [] }, { userJwt: [] }],
    responses: {
      [doc.status ?? 200]: {
        description: doc.status === 202 ? "Accepted" : "Success",
        headers: {
          "X-Request-Id": headerRef("X-Request-Id"),
          ...Object.fromEntries(successHeaders.map((name) => [name, headerRef(name)])),
        },
        content: { "application/json": { schema: resolver(doc.response), examples: { sandbox: doc.example } } },
        ...(links
          ? {
              links: Object.fromEntries(
                Object.entries(links).map(([name, link]) => [
                  name,
                  { operationId: link.operationId, description: link.description, requestBody: { id: `$response.body#/${link.field}` } },
                ]),
              ),
            }
          : {}),
      },
      ...errorResponses,
    },
  } as Parameters<typeof describeRoute>[0]);
}

// ---------------------------------------------------------------------------
// The document

/** Where the API is served; `x-internal` says who each is for (OWASP API9: inventory). */
const SERVERS: (OpenAPIV3_1.ServerObject & { "x-internal": boolean })[] = [
  {
    url: "/",
    description:
      "This gateway, wherever it answers (the try-it panel of /docs sends here; `npm run dev` serves http://127.0.0.1:8787 with the sandbox upstream).",
    "x-internal": false,
  },
  {
    url: "https://{host}",
    description: "Production: the partner's own deployment (a placeholder until it has a name).",
    variables: { host: { default: "gateway.partner.invalid", description: "The production deployment's host name." } },
    "x-internal": false,
  },
];

const DOCUMENTATION: NonNullable<Parameters<typeof openAPIRouteHandler>[1]>["documentation"] = {
  openapi: "3.1.0",
  info: {
    title: "Payments edge gateway",
    version: "1.0.0",
    description:
      'The partner receipt API of the payment service, proxied at the edge. Paths and bodies are the upstream\'s; the gateway adds tid uniqueness with safe retries, the three-wrong-OTPs rule, ownership checks and validation. Every error is `{"error": {"code", "message", "user_message", "request_id", ...}}`, its `user_message` a sentence for the app\'s user in the language Accept-Language prefers (`uz`, `uz-Cyrl`, `ru` or `en`, named by Content-Language); every response carries `X-Request-Id`. Calls without a valid partner key or user JWT answer 401 `unauthorized`. A deployment whose configuration is unsafe (development credentials in production, no way to verify callers) answers every call with 503 `service_misconfigured`, naming the problem. Every operation is a POST; another method answers 405 `method_not_allowed` with `Allow: POST`.',
  },
  tags: [
    { name: "Receipts", description: "Payment receipts: create, send the OTP, pay, hold-confirm, cancel, read." },
    { name: "Transfers (a2c)", description: "Card-to-card transfers: create, confirm, read." },
    {
      name: "Gateway",
      description:
        "The gateway's own operations (partner server key only): audit trails, events, erasure and the receipts whose fiscal receipt is missing.",
    },
    { name: "Operations", description: "Probes for load balancers and the engineer on call: GET, no credentials." },
    { name: "Events (webhooks)", description: "What the gateway POSTs to the partner's WEBHOOK_URL, signed as Standard Webhooks do." },
  ],
  components: {
    parameters: { IdempotencyKey: IDEMPOTENCY_KEY_PARAMETER },
    securitySchemes: {
      partnerKey: {
        type: "http",
        scheme: "bearer",
        description:
          "Partner backend server key (`sk_...`): every operation on every receipt and transfer. Not subject to the per-user and per-address limits.",
      },
      userJwt: {
        type: "http",
        scheme: "bearer",
        bearerFormat: "JWT",
        description:
          "A user's JWT from the partner's identity provider: RS256 or ES256, verified against its JWKS (HS256 with a shared secret in local development only). Handled as RFC8725 (JSON Web Token Best Current Practices) asks: the algorithms are pinned (never `none`, never chosen by the token), `sub` is the user and `exp` is required; `iss` and `aud` are checked when the deployment sets them; 30 s of clock skew is allowed. A user acts only on their own receipts and transfers (another's answers `receipt_not_found`); hold-confirm and the cancel of a paid receipt are partner-only (`forbidden`). authorize and pay are limited per user and per client address (`rate_limited` with `Retry-After`).",
      },
    },
  },
};

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * Replaces every schema whose `title` names a component by a `$ref` to it,
 * innermost first, keeping the first copy of each under components.schemas.
 */
function hoist(node: Json, schemas: Record<string, Json>, names: ReadonlySet<string>): Json {
  if (Array.isArray(node)) return node.map((item) => hoist(item, schemas, names));
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, Json> = {};
  for (const [key, value] of Object.entries(node)) out[key] = hoist(value, schemas, names);
  const title = out.title;
  if (
    typeof title === "string" &&
    names.has(title) &&
    (out.type !== undefined || out.allOf !== undefined || out.anyOf !== undefined || out.oneOf !== undefined)
  ) {
    schemas[title] ??= out;
    return { $ref: `#/components/schemas/${title}` };
  }
  return out;
}

/** The schemas that become components, by the `title` src/api/schemas.ts gives them. */
export const COMPONENT_NAMES = new Set([
  "Receipt",
  "ReducedReceipt",
  "TransferReceipt",
  "Party",
  "MerchantDetails",
  "MerchantField",
  "OfdDetails",
  "TransferOfd",
  "AuthorizeResult",
  "Event",
  "ReceiptEvent",
  "TransferEvent",
  "Error",
  "ReceiptState",
  "TransferState",
  "AccountEntry",
  "AccountEntryInput",
  "TokenCard",
  "NumberCard",
  "AuditTrail",
  "CreateReceiptRequest",
  "ReceiptIdRequest",
  "AuthorizeRequest",
  "AnonymousAuthorizeRequest",
  "PayRequest",
  "AnonymousPayRequest",
  "CancelRequest",
  "CheckTidRequest",
  "CreateTransferRequest",
  "PayTransferRequest",
  "AuditRequest",
  "AuditSearchRequest",
  "AuditSearchPage",
  "ListStatementsRequest",
  "StatementPage",
  "RebuildStatementRequest",
  "StatementStatus",
  "ListEventsRequest",
  "ResendEventRequest",
  "EraseUserRequest",
  "ErasureAccepted",
  "ListFiscalPendingRequest",
  "FiscalPendingPage",
]);

async function finish(generated: OpenAPIV3_1.Document): Promise<OpenAPIV3_1.Document> {
  const { webhooks, event } = await eventWebhooks();
  const error = (await resolver(ErrorBody).toOpenAPISchema()).schema as { properties: { error: { properties: Record<string, unknown> } } };
  error.properties.error.properties.code = ERROR_SCHEMA_CODE;
  const schemas: Record<string, Json> = {};
  const hoisted = hoist(
    {
      paths: generated.paths as Json,
      webhooks: webhooks as Json,
      components: { schemas: { ...(generated.components?.schemas as Record<string, Json>), Event: event as Json, Error: error as Json } },
    },
    schemas,
    COMPONENT_NAMES,
  ) as unknown as {
    paths: OpenAPIV3_1.PathsObject;
    webhooks: Record<string, OpenAPIV3_1.PathItemObject>;
    components: { schemas: Record<string, Json> };
  };
  // The two seeded above are now refs to themselves: the hoisted copies replace them.
  const all: Record<string, Json> = { ...hoisted.components.schemas, ...schemas, ErrorCode: ERROR_CODE_SCHEMA as Json };
  admitAliases(hoisted.paths, all);
  return {
    ...generated,
    servers: SERVERS,
    paths: { ...hoisted.paths, ...STATEMENT_FILES, ...PROBES },
    webhooks: hoisted.webhooks,
    components: {
      ...generated.components,
      schemas: Object.fromEntries(
        Object.keys(all)
          .sort()
          .map((name) => [name, all[name]]),
      ) as Record<string, OpenAPIV3_1.SchemaObject>,
      headers: HEADERS,
    },
  };
}

/** The extension documented() carries an operation's aliases in, until finish() makes them a request shape of their own. */
const ALIASES = "x-gateway-aliases";

type AliasedOperation = OpenAPIV3_1.OperationObject & { [ALIASES]?: Readonly<Record<string, string>> };
type ObjectSchema = { properties: Record<string, Record<string, Json>>; required: string[]; examples?: Record<string, Json>[]; title: string };

/**
 * An operation that accepts aliases (a2c/create's `tId`, the payment
 * service's own spelling of `tid`) takes either of two bodies: its request
 * component as it is, or a copy with each alias in the place of its name
 * (required where the name is, marked deprecated; the name beside it
 * optional, since both may be sent with one value). Each stays a closed
 * object, so a generated client types the body as a union of two typed
 * objects, not as one whose every field is optional.
 */
function admitAliases(paths: OpenAPIV3_1.PathsObject, schemas: Record<string, Json>): void {
  for (const item of Object.values(paths)) {
    const post = item?.post as AliasedOperation | undefined;
    const aliases = post?.[ALIASES];
    if (!post || !aliases) continue;
    delete post[ALIASES];
    const media = (post.requestBody as OpenAPIV3_1.RequestBodyObject).content["application/json"] as OpenAPIV3_1.MediaTypeObject;
    const ref = (media.schema as OpenAPIV3_1.ReferenceObject).$ref;
    const name = ref.split("/").pop() as string;
    const aliased = `${name}${Object.keys(aliases)
      .map((alias) => alias[0]?.toUpperCase() + alias.slice(1))
      .join("")}`;
    schemas[aliased] = withAliases(schemas[name] as unknown as ObjectSchema, aliases, aliased) as unknown as Json;
    media.schema = { anyOf: [{ $ref: ref }, { $ref: `#/components/schemas/${aliased}` }] };
  }
}

/** `shape` with each alias in the place of its name, titled `title`. */
function withAliases(shape: ObjectSchema, aliases: Readonly<Record<string, string>>, title: string): ObjectSchema {
  const aliasOf = new Map(Object.entries(aliases).map(([alias, name]) => [name, alias]));
  const properties: ObjectSchema["properties"] = {};
  for (const [key, schema] of Object.entries(shape.properties)) {
    const alias = aliasOf.get(key);
    if (alias === undefined) {
      properties[key] = schema;
      continue;
    }
    properties[alias] = {
      ...schema,
      deprecated: true,
      description: `\`${key}\` as the payment service spells it, accepted for it (prefer \`${key}\`). ${String(schema.description ?? "")}`.trim(),
    };
    properties[key] = { ...schema, description: `Optional beside \`${alias}\`; when both are sent, they must be the same value.` };
  }
  const rename = (key: string) => aliasOf.get(key) ?? key;
  return {
    ...shape,
    properties,
    required: shape.required.map(rename),
    ...(shape.examples
      ? { examples: shape.examples.map((example) => Object.fromEntries(Object.entries(example).map(([key, value]) => [rename(key), value]))) }
      : {}),
    title,
  };
}

/** A probe's Allow: the methods it answers (every other is 405 method_not_allowed). */
const PROBE_ALLOW: OpenAPIV3_1.HeaderObject = {
  description: "The methods the probe answers: `GET, HEAD`.",
  required: true,
  schema: { type: "string", enum: ["GET, HEAD"] },
};

/**
 * The two probes for load balancers and the engineer on call, no
 * credentials: GET, and HEAD (the same status and headers, no body). Each
 * lists the path's 405, as every partner operation lists its own under
 * POST: the answer to any other method on the path.
 */
const probe = (operationId: string, summary: string, description: string, failure: string): OpenAPIV3_1.PathItemObject => {
  const failures: ErrorCode[] = failure === "not_ready" ? ["not_ready", "service_misconfigured"] : ["service_misconfigured"];
  const unavailable = errorResponse(503, failures);
  const wrongMethod = errorResponse(405, ["method_not_allowed"]);
  const wrongMethodHeaders = { ...wrongMethod.headers, Allow: PROBE_ALLOW };
  return {
    get: {
      operationId,
      summary,
      description: `${description} HEAD answers the same status and headers without a body. Another method than GET or HEAD answers 405 \`method_not_allowed\` with \`Allow: GET, HEAD\`.`,
      tags: ["Operations"],
      security: [],
      responses: {
        "200": {
          description: "Ready",
          headers: { "X-Request-Id": headerRef("X-Request-Id") } as never,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["ok"],
                properties: { ok: { type: "boolean", const: true }, upstream: { type: "string", const: "ok" }, db: { type: "string", const: "ok" } },
              },
            },
          },
        },
        "405": { ...wrongMethod, headers: wrongMethodHeaders } as never,
        "503": unavailable as never,
      },
    },
    head: {
      operationId: `${operationId}Head`,
      summary: `${summary} (status and headers only)`,
      description: `As GET ${operationId === "health" ? "/healthz" : "/readyz"}, without a body.`,
      tags: ["Operations"],
      security: [],
      responses: {
        "200": { description: "Ready (no body)", headers: { "X-Request-Id": headerRef("X-Request-Id") } as never },
        "405": { description: `${wrongMethod.description}\n\n(As GET's, without the body.)`, headers: wrongMethodHeaders as never },
        "503": { description: `${unavailable.description}\n\n(As GET's, without the body.)`, headers: unavailable.headers as never },
      },
    },
  };
};

const PROBES: OpenAPIV3_1.PathsObject = {
  "/healthz": probe(
    "health",
    "Is the process up and its configuration sound?",
    '200 `{"ok": true}` while the configuration passes the misconfiguration guard; 503 `service_misconfigured` naming the problem otherwise. It does not call the upstream or D1: that is /readyz.',
    "service_misconfigured",
  ),
  "/readyz": probe(
    "readiness",
    "Can the gateway serve payments right now?",
    "An authenticated probe of the upstream (check-id of an id that cannot exist: 404 means it answers and accepts the gateway's credential) and a D1 query, each within 2 s, which also checks that the database's schema is at the newest migration the code was built with. 503 `not_ready` names what failed (never a secret), with `Retry-After`.",
    "not_ready",
  ),
};

const int = (description: string): OpenAPIV3_1.SchemaObject => ({
  type: "integer",
  format: "int64",
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  description,
});
const text = (description: string): OpenAPIV3_1.SchemaObject => ({ type: "string", maxLength: 255, description });
const nullableInt = (description: string) =>
  ({ type: ["integer", "null"], format: "int64", minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description }) as unknown as OpenAPIV3_1.SchemaObject;
const nullableText = (description: string) => ({ type: ["string", "null"], maxLength: 255, description }) as unknown as OpenAPIV3_1.SchemaObject;
const CHANGES = ["paid", "held", "cancelled", "refunded", "expired", "closed_at_edge"];
const KINDS_ENUM: OpenAPIV3_1.SchemaObject = { type: "string", enum: ["receipt", "transfer"] };

/** The statement's JSON file, as src/statements/statement-object.ts writes it. */
const STATEMENT_JSON: OpenAPIV3_1.SchemaObject = {
  type: "object",
  required: [
    "date",
    "timezone",
    "from",
    "to",
    "complete",
    "lines",
    "totals",
    "mismatches",
    "mismatches_total",
    "checked",
    "lines_total",
    "generated_at",
  ],
  properties: {
    date: text("The day, YYYY-MM-DD in STATEMENT_TIMEZONE."),
    timezone: text("STATEMENT_TIMEZONE."),
    from: int("The day's first millisecond."),
    to: int("The next day's first millisecond."),
    complete: { type: "boolean", description: "false: written before the day ended." },
    lines: {
      type: "array",
      maxItems: 100_000_000,
      items: {
        type: "object",
        required: ["id", "kind", "tid", "owner", "merchant_id", "change", "state", "amount", "commission", "at", "time", "fiscal_sign", "event_id"],
        properties: {
          id: text("The receipt's id or the transfer's receipt_id."),
          kind: KINDS_ENUM,
          tid: nullableText("As its owner chose it."),
          owner: nullableText("partner, or the user's sub."),
          merchant_id: nullableInt("null: a transfer."),
          change: { type: "string", enum: CHANGES },
          state: nullableInt("The state the change left."),
          amount: nullableInt("Tiyin."),
          commission: nullableInt("Tiyin."),
          at: int("Milliseconds."),
          time: text("Local time, YYYY-MM-DD HH:MM:SS."),
          fiscal_sign: nullableText("The fiscal sign the change showed, if any."),
          event_id: text("The event of the change."),
        },
      },
    },
    totals: {
      type: "array",
      maxItems: 100_000,
      items: {
        type: "object",
        required: ["merchant_id", "change", "count", "amount", "commission", "amount_sum", "commission_sum"],
        properties: {
          merchant_id: nullableInt("null: transfers."),
          change: { type: "string", enum: CHANGES },
          count: int("Lines."),
          amount: int("Tiyin."),
          commission: int("Tiyin."),
          amount_sum: text("Sum, two decimals."),
          commission_sum: text("Sum, two decimals."),
        },
      },
    },
    mismatches: {
      type: "array",
      maxItems: 10_000,
      items: {
        type: "object",
        required: ["id", "kind", "event_id", "field", "statement", "upstream"],
        properties: {
          id: text("The receipt or transfer."),
          kind: KINDS_ENUM,
          event_id: text("The line's event."),
          field: text("amount, commission, merchant_id, state or exists."),
          statement: text("What the line says."),
          upstream: text("What the payment service shows."),
        },
      },
    },
    mismatches_total: int("Every mismatch (the first 10,000 are listed)."),
    checked: int("Lines compared with the payment service."),
    lines_total: int("Lines."),
    generated_at: int("Milliseconds: when it was written."),
  },
};

/** Rule 16's files: GET, the partner's key, streamed as R2 holds them. */
const statementFile = (format: "csv" | "json"): OpenAPIV3_1.PathItemObject => ({
  get: {
    operationId: format === "csv" ? "getStatementCsv" : "getStatementJson",
    summary: `A day's statement as ${format.toUpperCase()} (partner only)`,
    description:
      format === "csv"
        ? "The day's statement (rule 16) as a CSV a spreadsheet opens as it is: UTF-8 with a BOM, CRLF, a header row, RFC 4180 quoting; one row per line (`record` line), then its totals per merchant and change (`total`), then its mismatches with the payment service (`mismatch`); amounts as integers in tiyin and as sums. Streamed as written; 404 `not_found` for a day not written (statements/rebuild writes one)."
        : "The day's statement (rule 16) as JSON: `{date, timezone, from, to, complete, lines, totals, mismatches, mismatches_total, checked, lines_total, generated_at}`. Streamed as written; 404 `not_found` for a day not written.",
    tags: ["Gateway"],
    security: [{ partnerKey: [] }],
    parameters: [
      {
        name: "date",
        in: "path",
        required: true,
        description: "A day in STATEMENT_TIMEZONE.",
        schema: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$", maxLength: 10 },
      },
    ],
    responses: {
      "200": {
        description: "The statement",
        headers: { "X-Request-Id": headerRef("X-Request-Id") } as never,
        content:
          format === "csv"
            ? { "text/csv": { schema: { type: "string", maxLength: 5_000_000_000 } } }
            : { "application/json": { schema: STATEMENT_JSON as never } },
      },
      ...Object.fromEntries(
        [...errorCodesByStatus(["forbidden", "not_found"]).entries()]
          .filter(([status]) => [401, 403, 404, 500, 503].includes(status))
          .map(([status, codes]) => [
            String(status),
            errorResponse(
              status,
              codes.filter((code) =>
                ["unauthorized", "forbidden", "not_found", "internal_error", "service_misconfigured", "not_ready"].includes(code),
              ),
            ) as never,
          ]),
      ),
    },
  },
});

const STATEMENT_FILES: OpenAPIV3_1.PathsObject = {
  "/api/v1/gateway/statements/{date}.csv": statementFile("csv"),
  "/api/v1/gateway/statements/{date}.json": statementFile("json"),
};

/** GET /openapi.json: the document for `app`, built once per isolate. */
// biome-ignore lint/suspicious/noExplicitAny: any app's routes are documented alike
export function openApiDocument(app: Hono<any>) {
  const generate = openAPIRouteHandler(app, { documentation: DOCUMENTATION });
  let built: Promise<OpenAPIV3_1.Document> | undefined;
  return async (c: Context) => {
    built ??= (async () => {
      const res = (await generate(c, async () => {})) as Response;
      return finish((await res.json()) as OpenAPIV3_1.Document);
    })().catch((err) => {
      built = undefined;
      throw err;
    });
    return c.json(await built);
  };
}
