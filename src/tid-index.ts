/**
 * The tid index (D1): one row per tid ever claimed through the gateway, so a
 * tid creates at most one receipt or transfer, and a retried create is
 * answered from here instead of reaching the upstream again.
 *
 * A create first claims its tid with a `pending` row (INSERT ... ON CONFLICT
 * DO NOTHING is the arbiter when creates race), then completes it with the
 * receipt id and the answer it gave. A pending claim older than its lease
 * belongs to a create that died or whose upstream call has an unknown
 * outcome; a retry with the same body may take it over.
 */
import type { RecordKind } from "./receipt-object";

export interface TidRow {
  tid: string;
  kind: RecordKind;
  owner: string;
  fingerprint: string;
  status: "pending" | "completed";
  claim_token: string;
  receipt_id: string | null;
  response: string | null;
  created_at: number;
  updated_at: number;
}

export type Claim =
  | { kind: "claimed"; token: string; takeover: boolean }
  | { kind: "replay"; row: TidRow }
  | { kind: "conflict" }
  | { kind: "in_progress"; retryAfterSeconds: number };

export interface ClaimRequest {
  tid: string;
  kind: RecordKind;
  owner: string;
  fingerprint: string;
  leaseMs: number;
}

export async function claimTid(db: D1Database, req: ClaimRequest): Promise<Claim> {
  // Two rounds: a row can vanish between our INSERT and SELECT when its create is rejected.
  for (let round = 0; round < 2; round++) {
    const now = Date.now();
    const token = crypto.randomUUID();
    const inserted = await db
      .prepare(
        `INSERT INTO tid_index (tid, kind, owner, fingerprint, status, claim_token, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, 'pending', ?5, ?6, ?6) ON CONFLICT (tid) DO NOTHING`,
      )
      .bind(req.tid, req.kind, req.owner, req.fingerprint, token, now)
      .run();
    if (inserted.meta.changes === 1) return { kind: "claimed", token, takeover: false };

    const row = await findTid(db, req.tid);
    if (!row) continue;
    if (row.owner !== req.owner || row.fingerprint !== req.fingerprint || row.kind !== req.kind) return { kind: "conflict" };
    if (row.status === "completed") return { kind: "replay", row };

    const age = now - row.updated_at;
    if (age < req.leaseMs) return { kind: "in_progress", retryAfterSeconds: Math.max(1, Math.ceil((req.leaseMs - age) / 1000)) };
    const taken = await db
      .prepare("UPDATE tid_index SET claim_token = ?1, updated_at = ?2 WHERE tid = ?3 AND claim_token = ?4 AND status = 'pending'")
      .bind(token, now, req.tid, row.claim_token)
      .run();
    if (taken.meta.changes === 1) return { kind: "claimed", token, takeover: true };
    return { kind: "in_progress", retryAfterSeconds: 1 };
  }
  return { kind: "in_progress", retryAfterSeconds: 1 };
}

export async function completeTid(db: D1Database, tid: string, token: string, receiptId: string, response: unknown): Promise<void> {
  await db
    .prepare(
      "UPDATE tid_index SET status = 'completed', receipt_id = ?1, response = ?2, updated_at = ?3 WHERE tid = ?4 AND claim_token = ?5",
    )
    .bind(receiptId, JSON.stringify(response), Date.now(), tid, token)
    .run();
}

/** The upstream refused the create: nothing exists, the tid is free again. */
export async function releaseTid(db: D1Database, tid: string, token: string): Promise<void> {
  await db.prepare("DELETE FROM tid_index WHERE tid = ?1 AND claim_token = ?2 AND status = 'pending'").bind(tid, token).run();
}

/**
 * The create's outcome is unknown, or it was not fully recorded: keep the
 * claim (pending again if it was completed), but let the next identical
 * retry take it over at once.
 */
export async function expireTid(db: D1Database, tid: string, token: string): Promise<void> {
  await db
    .prepare(
      "UPDATE tid_index SET status = 'pending', receipt_id = NULL, response = NULL, updated_at = 0 WHERE tid = ?1 AND claim_token = ?2",
    )
    .bind(tid, token)
    .run();
}

export async function findTid(db: D1Database, tid: string): Promise<TidRow | null> {
  return db.prepare("SELECT * FROM tid_index WHERE tid = ?1").bind(tid).first<TidRow>();
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * A keyed fingerprint of a create request. Keyed (HMAC) because a transfer
 * carries card numbers, and a plain hash of a card number can be reversed by
 * trying every number of the issuer's range.
 */
const hmacKeys = new Map<string, Promise<CryptoKey>>();

export async function fingerprint(key: string, request: unknown): Promise<string> {
  let cryptoKey = hmacKeys.get(key);
  if (!cryptoKey) {
    cryptoKey = crypto.subtle.importKey("raw", new TextEncoder().encode(key || "unkeyed"), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
    ]);
    hmacKeys.set(key, cryptoKey);
  }
  const mac = await crypto.subtle.sign("HMAC", await cryptoKey, new TextEncoder().encode(canonical(request)));
  return [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
