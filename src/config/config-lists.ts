/**
 * The settings that hold lists, and how each is read: secrets that hold
 * several values while one is rotated (TID_SECRET, WEBHOOK_SECRET) and the
 * tid index's lists of D1 bindings. The running gateway reads them with
 * these (src/config/config.ts, src/d1/shards.ts), and so do the production rules
 * (src/config/config-rules.ts) and `npm run deploy`'s offline check. Node loads this
 * file as it is (it strips the types), so it imports nothing and uses only
 * erasable TypeScript.
 *
 * Every problem is a sentence that names the setting and never its value.
 */

/** A setting as text: trimmed, and empty when it is unset or not a string. */
export const settingText = (value: unknown): string => (typeof value === "string" ? value.trim() : "");

/** Several values of one secret, space-separated (WEBHOOK_SECRET, TID_SECRET while rotating). */
export const secretList = (value: unknown): string[] => settingText(value).split(/\s+/).filter(Boolean);

/** How WEBHOOK_SECRET's values begin (the Standard Webhooks form `whsec_<base64>`). */
export const WEBHOOK_SECRET_PREFIX = "whsec_";
/** The Standard Webhooks spec asks for 24 to 64 random bytes; fewer are refused. */
export const MIN_WEBHOOK_SECRET_BYTES = 24;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function decodeBase64(text: string): Uint8Array | null {
  if (!BASE64.test(text)) return null;
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

export interface WebhookSecrets {
  /** The decoded key of each well-formed secret, in the order configured: what src/events/signing.ts signs with. */
  keys: Uint8Array[];
  /** One sentence per malformed entry; never the entry itself. */
  problems: string[];
}

/**
 * Reads WEBHOOK_SECRET: one or more `whsec_<base64>` secrets, space-separated
 * (several while one is rotated: every delivery is then signed with each).
 */
export function parseWebhookSecrets(value: string | undefined): WebhookSecrets {
  const keys: Uint8Array[] = [];
  const problems: string[] = [];
  const entries = secretList(value);
  entries.forEach((entry, i) => {
    const name = entries.length > 1 ? `WEBHOOK_SECRET entry ${i + 1}` : "WEBHOOK_SECRET";
    const key = entry.startsWith(WEBHOOK_SECRET_PREFIX) ? decodeBase64(entry.slice(WEBHOOK_SECRET_PREFIX.length)) : null;
    if (!key) problems.push(`${name} is not of the form whsec_<base64>.`);
    else if (key.length < MIN_WEBHOOK_SECRET_BYTES)
      problems.push(`${name} encodes fewer than ${MIN_WEBHOOK_SECRET_BYTES} bytes; use 24 to 64 random bytes.`);
    else keys.push(key);
  });
  return { keys, problems };
}

/** The tid index's D1 bindings when TID_INDEX_SHARDS is absent or empty: the one database a deployment starts with. */
export const DEFAULT_TID_INDEX_SHARDS = ["DB"] as const;

/**
 * TID_INDEX_SHARDS: the D1 bindings the tid index is spread over, in order,
 * separated by commas or spaces. The order is part of the data's layout (a
 * row's shard is a position in this list): append, never reorder.
 */
export const tidShardList = (value: unknown): string[] => {
  const names = settingText(value)
    .split(/[\s,]+/)
    .filter(Boolean);
  return names.length > 0 ? names : [...DEFAULT_TID_INDEX_SHARDS];
};

/**
 * TID_INDEX_SHARDS_PREVIOUS: every earlier list that may still place a row,
 * separated by semicolons (`DB; DB DB_TID_1`); empty when none. A key whose
 * database differs between them is looked for in each, and a create fences
 * each earlier place before it claims in the current one (src/tids/tid-index.ts).
 * An earlier list is dropped once its rows are gone (TID_RETENTION_DAYS after
 * the list after it was deployed). This: every binding any of them names.
 */
export const previousTidShardList = (value: unknown): string[] => previousTidShardLayouts(value).flat();

/** TID_INDEX_SHARDS_PREVIOUS's earlier lists, each as TID_INDEX_SHARDS spells one. */
export const previousTidShardLayouts = (value: unknown): string[][] =>
  settingText(value)
    .split(";")
    .map((list) => list.split(/[\s,]+/).filter(Boolean))
    .filter((list) => list.length > 0);

/** What is wrong with a list itself, before any binding is looked at. `setting` names the var. */
export function tidShardListProblems(names: readonly string[], setting = "TID_INDEX_SHARDS"): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) problems.push(`${setting} names "${name}", which is not a binding name.`);
    else if (seen.has(name)) problems.push(`${setting} names ${name} twice: each tid must have exactly one database.`);
    seen.add(name);
  }
  return problems;
}

/** The units a duration of a list may take (FISCAL_READS), in milliseconds. */
const DURATION_UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** Reads a schedule may hold: each is an alarm and an upstream read per fiscal-late receipt. */
export const MAX_SCHEDULED_READS = 10;

/**
 * FISCAL_READS (rule 14): when the gateway reads a fiscal-pending receipt
 * again, as offsets after its payment or refund, e.g. `5m 1h 24h`: 1 to
 * MAX_SCHEDULED_READS durations separated by spaces or commas, each a positive
 * number (fractions accepted) and a unit (s, m, h, d), each later than the
 * one before. Milliseconds, or null when the value is not such a list (unset
 * is the caller's to default).
 */
export function durationList(value: unknown): number[] | null {
  const entries = settingText(value)
    .split(/[\s,]+/)
    .filter(Boolean);
  if (entries.length === 0 || entries.length > MAX_SCHEDULED_READS) return null;
  const offsets = entries.map((entry) => {
    const match = /^(\d+(?:\.\d+)?)([smhd])$/.exec(entry);
    return match ? Math.round(Number(match[1]) * DURATION_UNIT_MS[match[2]!]!) : Number.NaN;
  });
  if (offsets.some((ms, i) => !Number.isFinite(ms) || ms <= 0 || (i > 0 && ms <= offsets[i - 1]!))) return null;
  return offsets;
}
