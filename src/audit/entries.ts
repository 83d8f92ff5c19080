/**
 * What the audit trail in R2 holds (rule 15): one JSON line per entry, from
 * a record's own trail, a call to the gateway's own operations, or a back
 * office view or action. Only the fields below are copied into an entry,
 * and every string passes through `redact` (src/shared/redact.ts), so no card
 * number, expiry, OTP, token, key or JWT can reach a batch; the personal
 * values an entry may hold (a record's `account` values, a phone number in
 * its `detail`) are masked by erasure (src/audit/erase.ts).
 */
import { fnv1a } from "../shared/fnv1a";
import { redact } from "../shared/redact";

export type AuditSource = "record" | "gateway" | "staff";

export interface AuditLine {
  /** Deterministic: the same entry exported twice has the same id, and readers keep one. */
  id: string;
  at: number;
  source: AuditSource;
  op: string;
  actor: string;
  request_id: string;
  outcome: string;
  /** A record's state after the entry, as its trail shows it. */
  state?: number | null;
  kind?: "receipt" | "transfer";
  receipt_id?: string;
  /** The user (`sub`) a record belongs to, or a gateway call names. */
  user?: string;
  staff?: string;
  role?: string;
  target?: string;
  /** A record's create: what the payment was for. A gateway call: the filters it was asked with. */
  detail?: Record<string, unknown>;
}

/** The fields a line may have, in the order it is written. */
const FIELDS = [
  "id",
  "at",
  "source",
  "op",
  "actor",
  "request_id",
  "outcome",
  "state",
  "kind",
  "receipt_id",
  "user",
  "staff",
  "role",
  "target",
  "detail",
] as const satisfies readonly (keyof AuditLine)[];

/**
 * Written whole: the entry's id and the record it names, which the gateway or the payment service made, and
 * who it names: the user's sub (as their token's issuer signed it, or as the partner names them), the actor
 * (`user:<sub>`, `partner`, ...) and the staff member (as Cloudflare Access signed them in). Masked, an id's
 * time (thirteen digits) would make two entries of one source 10 s apart to the millisecond one, and readers
 * keep one entry per id; a receipt id is 24 hex characters, one in twenty of which holds twelve digits in a
 * row, and search by receipt_id would miss it; a sub that holds twelve digits (a numeric id, or `u1-` before a
 * UUID of digits) would name nobody, and search by user and erasure (rule 10), which look for the sub itself,
 * would miss every entry of that user. These are identifiers, never card data; the record keeps them whole
 * too. An id's parts a caller may send (a request id) are redacted where the id is made.
 */
const WHOLE: ReadonlySet<string> = new Set(["id", "receipt_id", "user", "actor", "staff"]);

/** The entry as it is written: its known fields only, in order, every other string redacted. */
export function cleanLine(line: AuditLine): AuditLine {
  const out: Record<string, unknown> = {};
  for (const field of FIELDS) {
    const value = line[field];
    if (value !== undefined) out[field] = WHOLE.has(field) ? value : redact(value);
  }
  return out as unknown as AuditLine;
}

/** The keys a batch's filter holds for this entry: its receipt, its user, its staff member, and the user whose personal values it holds. */
export function filterKeys(line: AuditLine): string[] {
  const keys: string[] = [];
  if (line.receipt_id) keys.push(`r:${line.receipt_id}`);
  if (line.user) keys.push(`u:${line.user}`);
  if (line.staff) keys.push(`s:${line.staff.toLowerCase()}`);
  if (line.user && holdsPersonalValues(line)) keys.push(`p:${line.user}`);
  return keys;
}

/** An entry whose detail holds a user's personal values (an account value or a phone), which erasure masks. */
export function holdsPersonalValues(line: AuditLine): boolean {
  const detail = line.detail;
  if (!detail) return false;
  return Array.isArray(detail.account) ? detail.account.length > 0 : typeof detail.phone === "string";
}

/** AUDIT_CHAINS: how many writers (chains) the trail is appended by; 2 unless set to a positive integer. */
export function auditChains(env: Env): number {
  const n = Number(env.AUDIT_CHAINS);
  return Number.isInteger(n) && n > 0 && n <= 64 ? n : 2;
}

/** The chain (writer) a key's entries go to: `w<n>`. */
export const chainFor = (env: Env, key: string): string => `w${fnv1a(key) % auditChains(env)}`;

/** AUDIT_FLUSH_SECONDS in ms: how long an appended entry may wait for its batch (60 s unless set). */
export function flushMs(env: Env): number {
  const n = Number(env.AUDIT_FLUSH_SECONDS);
  return (Number.isFinite(n) && n > 0 ? n : 60) * 1000;
}

/**
 * How long a record may hold its entries before it sends them to its writer: half of AUDIT_FLUSH_SECONDS,
 * so that with the writer's flush, which comes within AUDIT_FLUSH_SECONDS of an entry's time, every entry is in
 * R2 within AUDIT_FLUSH_SECONDS (src/record/audit-export.ts).
 */
export const holdMs = (env: Env): number => flushMs(env) / 2;

/** AUDIT_RETENTION_DAYS: how long batches (and statements) are kept; 365 unless set. */
export function auditRetentionDays(env: { AUDIT_RETENTION_DAYS?: string }): number {
  const n = Number(env.AUDIT_RETENTION_DAYS);
  return Number.isFinite(n) && n > 0 ? n : 365;
}
