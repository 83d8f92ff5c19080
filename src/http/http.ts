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
import { ApiError } from "../errors/errors";
import { redact } from "../shared/redact";
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

/**
 * Parses the body once (Hono caches it for the validator) so bad JSON gets its
 * own code. Every operation's body is a JSON object: anything else (an array,
 * a string, a number, a boolean, null) is invalid_request naming the body,
 * whatever the operation's schema. valibot's object() takes an array for an
 * object, so an array of filters would otherwise be a list call with none.
 */
export const parseJson = createMiddleware<GatewayEnv>(async (c, next) => {
  let body: unknown;
  const text = await c.req.text();
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw new ApiError("invalid_json", `The request body is not valid JSON${whereJsonFails(err, text)}.`);
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    refuse([{ path: "", message: notAnObject(body) }], 1);
  }
  await next();
});

/**
 * Field names an operation accepts quietly for a documented one (a2c/create's
 * `tId`, the upstream's own spelling of `tid`): renamed before validation, so
 * the document and every generated client know one name only. Sent both
 * ways with different values, the alias stays and is refused as an unknown
 * field, naming the documented one.
 */
export const acceptAliases = (aliases: Readonly<Record<string, string>>) =>
  createMiddleware<GatewayEnv>(async (c, next) => {
    const body = (await c.req.json()) as Record<string, unknown>;
    let renamed: Record<string, unknown> | undefined;
    for (const [alias, name] of Object.entries(aliases)) {
      if (!Object.hasOwn(body, alias)) continue;
      if (Object.hasOwn(body, name) && body[name] !== body[alias]) continue;
      const { [alias]: value, ...rest } = renamed ?? body;
      renamed = { ...rest, [name]: value };
    }
    // The validator parses the text Hono cached when parseJson read it: replace that text.
    if (renamed) (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(JSON.stringify(renamed));
    await next();
  });

/**
 * Where a body stops being JSON, as a line and column (from the parser's
 * position, never the text around it: it may hold a card number).
 */
export function whereJsonFails(err: unknown, text: string): string {
  const message = err instanceof Error ? err.message : "";
  const position = /at position (\d+)/.exec(message);
  if (position) {
    const before = text.slice(0, Number(position[1]));
    const line = before.split("\n").length;
    const column = before.length - before.lastIndexOf("\n");
    return ` at line ${line}, column ${column}`;
  }
  return text.trim() === "" ? ": it is empty" : /end of (JSON )?input|Unterminated/i.test(message) ? ": it ends too early" : "";
}

/** Validation problems listed in one invalid_request answer (a 16 KiB body could name thousands). */
export const MAX_DETAILS = 20;

type Detail = { path: string; message: string };
type AnySchema = { type?: string; entries?: Record<string, AnySchema>; wrapped?: AnySchema; item?: AnySchema; options?: AnySchema[] };
export interface Issue {
  kind: string;
  type: string;
  input?: unknown;
  expected?: string | null;
  message: string;
  requirement?: unknown;
  path?: ReadonlyArray<{ key?: unknown; origin?: string }>;
}

function issuePath(path: Issue["path"]): string {
  if (!path || path.length === 0) return "";
  return path.map((segment) => String(segment.key)).join(".");
}

/** What a JSON value is, in words: never the value itself. */
function jsonTypeOf(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}

const notAnObject = (body: unknown) => `the body must be a JSON object, not ${jsonTypeOf(body)}`;

const TYPE_WORDS: Record<string, string> = {
  string: "a string",
  number: "a number",
  boolean: "a boolean",
  object: "an object",
  strict_object: "an object",
  array: "an array",
  integer: "an integer",
};

/** valibot's own issue for a field a strictObject does not define (it names the first one only). */
const isUnknownField = (issue: Issue) => issue.kind === "schema" && issue.type === "strict_object" && issue.expected === "never";

/** The message src/api/schemas.ts's setGlobalMessage gives an issue no schema named: replaced by plain words here. */
const isDefaultMessage = (issue: Issue) =>
  issue.message === (issue.kind === "schema" ? `expected ${issue.expected ?? issue.type}` : `invalid ${issue.type}`);

/**
 * A validation issue in plain words: "merchant_id is required", "amount must
 * be an integer". Built from the issue's kind, type and the received TYPE,
 * never from the received value (card numbers and OTPs are never echoed).
 * The messages the schemas set themselves are kept.
 */
export function plainMessage(issue: Issue): string {
  const path = issuePath(issue.path);
  const field = path || "the body";
  if (isUnknownField(issue)) return `unknown field ${field}`;
  if (!isDefaultMessage(issue)) {
    // A schema's own message; those that start with "must" need their field.
    return /^must\b/.test(issue.message) ? `${field} ${issue.message}` : issue.message;
  }
  if (issue.kind === "schema") {
    // valibot reports a missing key as the object's issue, with the key in the path.
    if (issue.input === undefined && path) return `${field} is required`;
    if (!path && TYPE_WORDS[issue.type] === "an object") return notAnObject(issue.input);
    const wanted =
      TYPE_WORDS[issue.type] ??
      (issue.type === "literal" || issue.type === "picklist"
        ? `one of ${issue.expected}`
        : issue.type === "union" || issue.type === "variant"
          ? "one of the documented shapes"
          : (issue.expected ?? issue.type));
    return `${field} must be ${wanted}, not ${jsonTypeOf(issue.input)}`;
  }
  switch (issue.type) {
    case "integer":
      return `${field} must be an integer`;
    case "min_value":
      return `${field} must be at least ${String(issue.requirement)}`;
    case "max_value":
      return `${field} must be at most ${String(issue.requirement)}`;
    case "min_length":
      return `${field} must have at least ${String(issue.requirement)} ${Array.isArray(issue.input) ? "entries" : "characters"}`;
    case "max_length":
      return `${field} must have at most ${String(issue.requirement)} ${Array.isArray(issue.input) ? "entries" : "characters"}`;
    case "regex":
      return `${field} is not in the expected format`;
    default:
      return `${field} is not valid`;
  }
}

// ---------------------------------------------------------------------------
// Unknown fields. Every request object, at every depth, is a strictObject
// (src/api/schemas.ts): a field it does not define is refused, never dropped, so
// `is_hodl` cannot create a receipt without the hold it meant. Each one is
// named once, with the known field at its level it was probably meant to be.

const fold = (name: string) => name.toLowerCase().replace(/[_-]/g, "");

/** Names callers reach for that are no misspelling of the field they mean. */
const ALIASES = new Map<string, string[]>([
  ["receiptid", ["id"]],
  ["transferid", ["id"]],
  // An OTP under another name would be dropped, and the pay answered otp_required.
  ["otpcode", ["otp"]],
  ["code", ["otp"]],
  // The card token sent flat, beside the card object it belongs in.
  ["cardtoken", ["card.token"]],
  ["token", ["card.token"]],
]);

/**
 * The optimal string alignment distance from `a` to `b`: how many characters
 * inserted, deleted, replaced or swapped with their neighbour (`hodl` for
 * `hold` is one swap) turn one into the other, no character edited twice.
 */
export function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) distance = Math.min(distance, (before[j - 2] as number) + 1);
      current.push(distance);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length] as number;
}

/**
 * How many edits a name may be from a known one to be suggested for it: one
 * for a known name of 4 characters or fewer (`otpp` for `otp`; two would
 * make `id` of any two letters), two for a longer one (`merchnat_id`).
 */
const withinReach = (known: string) => (known.length <= 4 ? 1 : 2);

/**
 * The known field an unknown `name` was probably meant to be: the same name
 * in another case or with other separators (`isHold`), a name callers reach
 * for (`otp_code`, a flat `token`), or the nearest within reach (`is_hodl`);
 * none when nothing is close (`cvv` in a card). Compared without case, `_` or `-`.
 */
export function suggestion(name: string, known: readonly string[]): string | undefined {
  const folded = fold(name);
  const same = known.find((field) => fold(field) === folded);
  if (same) return same;
  const alias = ALIASES.get(folded)?.find((field) => known.includes(field.split(".")[0] as string));
  if (alias) return alias;
  let nearest: string | undefined;
  let nearestDistance = Number.POSITIVE_INFINITY;
  for (const field of known) {
    const target = fold(field);
    const reach = withinReach(target);
    if (Math.abs(target.length - folded.length) > reach) continue;
    const distance = editDistance(folded, target);
    if (distance <= reach && distance < nearestDistance) {
      nearest = field;
      nearestDistance = distance;
    }
  }
  return nearest;
}

function unwrapSchema(schema: AnySchema | undefined): AnySchema | undefined {
  let current = schema;
  for (let i = 0; current?.wrapped && i < 8; i++) current = current.wrapped;
  return current;
}

/**
 * The fields an object schema (or a union of them: a card that is a token or
 * a number) defines, and whether it refuses others. A union refuses a field
 * only when every option does, and knows the fields any option knows.
 */
function objectShape(schema: AnySchema | undefined): { entries: Record<string, AnySchema>; strict: boolean } | undefined {
  const shape = unwrapSchema(schema);
  if (shape?.entries) return { entries: shape.entries, strict: shape.type === "strict_object" };
  if ((shape?.type === "union" || shape?.type === "variant") && shape.options) {
    const options = shape.options.map(objectShape);
    if (options.length === 0 || options.some((option) => option === undefined)) return undefined;
    const entries: Record<string, AnySchema> = {};
    for (const option of options) for (const [key, entry] of Object.entries(option?.entries ?? {})) entries[key] ??= entry;
    return { entries, strict: options.every((option) => option?.strict) };
  }
  return undefined;
}

/** An unknown field, named (redacted: a key may itself be a card number), with its suggestion. */
interface Unknown extends Detail {
  /** The path as sent, to match valibot's own issue for the same field. */
  at: string;
}

/**
 * Every field of `value` that `schema` refuses, recursively (`card.cvv`,
 * `account.0.lable`), each with the field it was probably meant to be. Stops
 * after MAX_DETAILS + 1, enough to say there were more.
 */
export function unknownFields(schema: unknown, value: unknown, path: string[] = [], found: Unknown[] = []): Unknown[] {
  const shape = unwrapSchema(schema as AnySchema);
  if (!shape || value === null || typeof value !== "object" || found.length > MAX_DETAILS) return found;
  if (shape.type === "array" && shape.item) {
    if (Array.isArray(value)) for (const [index, item] of value.entries()) unknownFields(shape.item, item, [...path, String(index)], found);
    return found;
  }
  const object = objectShape(shape);
  if (!object) return found;
  const known = Object.keys(object.entries);
  for (const [key, child] of Object.entries(value)) {
    if (found.length > MAX_DETAILS) break;
    if (Object.hasOwn(object.entries, key)) {
      unknownFields(object.entries[key], child, [...path, key], found);
      continue;
    }
    if (!object.strict) continue;
    const at = [...path, key].join(".");
    const right = suggestion(key, known);
    const message = right ? `unknown field ${at}: did you mean ${[...path, right].join(".")}?` : `unknown field ${at}`;
    found.push({ at, path: String(redact(at)), message: String(redact(message)) });
  }
  return found;
}

function refuse(details: Detail[], total: number): never {
  const message =
    total > MAX_DETAILS
      ? `The request body does not match the schema: more than ${MAX_DETAILS} problems, the first ${MAX_DETAILS} are listed.`
      : "The request body does not match the schema.";
  throw new ApiError("invalid_request", message, { details: details.slice(0, MAX_DETAILS) });
}

/**
 * Validates the JSON body against a schema from src/api/schemas.ts and registers
 * it in the OpenAPI document. Failures become 400 invalid_request with one
 * detail per problem (at most MAX_DETAILS), in plain words that never carry
 * the offending value; each field the body's objects do not define is one
 * of them, naming the field it was probably meant to be.
 */
export const jsonBody = <S extends GenericSchema>(schema: S) =>
  documentedValidator("json", schema, (result, _c: Context) => {
    if (!result.success) refuseBody(schema, result.data, result.error as unknown as readonly Issue[]);
  });

/**
 * A body `schema` refused, as 400 invalid_request: each field it does not
 * define named once (with the field it was probably meant to be), then
 * valibot's other issues in plain words, never a value. jsonBody's, and any
 * route's that validates a body the OpenAPI document does not list.
 */
export function refuseBody(schema: unknown, value: unknown, valibotIssues: readonly Issue[]): never {
  const unknown = unknownFields(schema, value);
  const named = new Set(unknown.map(({ at }) => at));
  const issues = valibotIssues.filter((issue) => !(isUnknownField(issue) && named.has(issuePath(issue.path))));
  const details = [
    ...unknown.map(({ path, message }) => ({ path, message })),
    ...issues.slice(0, MAX_DETAILS).map((issue) => ({
      path: String(redact(issuePath(issue.path))),
      message: String(redact(plainMessage(issue))),
    })),
  ];
  refuse(details, unknown.length + issues.length);
}
