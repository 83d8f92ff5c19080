/**
 * Card data must never reach a log line or a stored row. Everything the
 * gateway logs (src/log.ts) or stores passes through `redact`; card numbers
 * that must be shown are masked with `maskPan` (first 6, last 4).
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

const PAN_RUN = /\d{13,19}/g;
const JWT_LIKE = /eyJ[\w-]+\.[\w-]+\.[\w-]*/g;
const SERVER_KEY_LIKE = /\bsk_[\w-]+/g;
const BEARER = /Bearer\s+\S+/gi;

export function maskPan(pan: string): string {
  if (pan.length < 13) return "*".repeat(pan.length);
  return `${pan.slice(0, 6)}${"*".repeat(pan.length - 10)}${pan.slice(-4)}`;
}

/** Anything any of the patterns below could match; most log strings have none of it. */
const SUSPICIOUS = /\d{13}|eyJ|sk_|bearer/i;

function redactString(value: string): string {
  if (!SUSPICIOUS.test(value)) return value;
  return value
    .replace(BEARER, "Bearer [redacted]")
    .replace(JWT_LIKE, "[redacted-jwt]")
    .replace(SERVER_KEY_LIKE, "[redacted-key]")
    .replace(PAN_RUN, maskPan);
}

/** A deep copy of `value` with secrets removed and card numbers masked. */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return redactString(value);
  if (value === null || typeof value !== "object") return value;
  if (depth > 8) return "[truncated]";
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = SECRET_KEYS.has(key.toLowerCase()) && v != null ? "[redacted]" : redact(v, depth + 1);
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
