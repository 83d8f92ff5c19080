/**
 * Card data must never reach a log line, an answer or a stored row.
 * Everything the gateway logs (src/shared/log.ts) or echoes of what it was sent (a
 * field name, a message) passes through `redact`; card numbers that must be
 * shown are masked with `maskPan` (first 6, last 4), and any run of 12 or
 * more digits, however separated, with `maskDigitRuns`.
 */

/** Keys whose values are secrets whatever they look like. */
const SECRET_KEYS = new Set([
  "otp",
  "token",
  "expire",
  "number",
  "receiver_card",
  "card",
  "authorization",
  "cookie",
  "password",
  "secret",
  "api_key",
]);

/**
 * What may stand between the digits of a card number as people write it:
 * spaces of every kind, dashes, dots, underscores, slashes, commas and
 * invisible formatting characters, up to three in a row.
 */
const SEPARATOR = String.raw`[\s\p{Pd}\p{Cf}._/,]`;
/**
 * A run of 12 or more digits, separators allowed between them: a card
 * number however it is written (`8600 0000 0000 0007`, `8600-0000-...`).
 * Twelve, not thirteen: a card number one digit short is still most of one.
 */
const DIGIT_RUN = String.raw`\d(?:${SEPARATOR}{0,3}\d){11,}`;
/** A UUID (request ids, event ids' kin): its groups are no card number, and a log line must keep it whole. */
const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
/** A UUID is matched first and kept; any other digit run is masked. */
const UUID_OR_DIGIT_RUN = new RegExp(`(${UUID})|${DIGIT_RUN}`, "giu");
const JWT_LIKE = /eyJ[\w-]+\.[\w-]+\.[\w-]*/g;
const SERVER_KEY_LIKE = /\bsk_[\w-]+/g;
const BEARER = /Bearer\s+\S+/gi;

export function maskPan(pan: string): string {
  if (pan.length < 13) return "*".repeat(pan.length);
  return `${pan.slice(0, 6)}${"*".repeat(pan.length - 10)}${pan.slice(-4)}`;
}

/** The digits of a run, its separators dropped, masked: `8600 0000 0000 0007` is `860000******0007`. */
const maskRun = (run: string): string => maskPan(run.replace(/\D/g, ""));

/**
 * `text` with every run of 12 or more digits masked, separators allowed
 * (maskRun), UUIDs kept whole. Every echo of what a caller or the upstream
 * sent (a field name, a message, a card field the upstream answers) and
 * every log line passes through it.
 */
export function maskDigitRuns(text: string): string {
  if (!hasTwelveDigits(text)) return text;
  return text.replace(UUID_OR_DIGIT_RUN, (match, uuid: string | undefined) => (uuid ? match : maskRun(match)));
}

/** Whether `text` holds 12 digits at all: most log strings do not, and skip the pattern. */
function hasTwelveDigits(text: string): boolean {
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57 && ++digits >= 12) return true;
  }
  return false;
}

/** Any credential pattern below could match; most log strings have none of it. */
const CREDENTIAL_LIKE = /eyJ|sk_|bearer/i;

/** Credentials first (a token's digits masked first would break the pattern that finds the token), then digit runs. */
function redactString(value: string): string {
  const withoutCredentials = CREDENTIAL_LIKE.test(value)
    ? value.replace(BEARER, "Bearer [redacted]").replace(JWT_LIKE, "[redacted-jwt]").replace(SERVER_KEY_LIKE, "[redacted-key]")
    : value;
  return maskDigitRuns(withoutCredentials);
}

/** A deep copy of `value` with secrets removed and card numbers masked, in keys as in values (a key may be a card number). */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return redactString(value);
  if (value === null || typeof value !== "object") return value;
  if (depth > 8) return "[truncated]";
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[maskDigitRuns(key)] = SECRET_KEYS.has(key.toLowerCase()) && v != null ? "[redacted]" : redact(v, depth + 1);
  }
  return out;
}

/**
 * A user's erased value (rule 10): its first two and last two characters,
 * the rest starred (shorter values all starred). Idempotent: an erased value
 * erased again is itself.
 */
export function erasedValue(value: string): string {
  if (value.length <= 4) return "*".repeat(value.length);
  return `${value.slice(0, 2)}${"*".repeat(value.length - 4)}${value.slice(-2)}`;
}

/**
 * A deep copy of a record, an event or a stored answer with a user's
 * personal data erased (rule 10): every `account` entry's `value` and every
 * `phone`. Ids, amounts, states and times stay.
 */
export function erasePersonal(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== "object" || depth > 8) return value;
  if (Array.isArray(value)) return value.map((v) => erasePersonal(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === "phone" && typeof v === "string") out[key] = erasedValue(v);
    else if (key === "account" && Array.isArray(v))
      out[key] = v.map((entry) =>
        entry && typeof entry === "object" && typeof entry.value === "string" ? { ...entry, value: erasedValue(entry.value) } : entry,
      );
    else out[key] = erasePersonal(v, depth + 1);
  }
  return out;
}

/** erasePersonal of JSON text, as JSON text. */
export const erasePersonalJson = (json: string): string => JSON.stringify(erasePersonal(JSON.parse(json)));
