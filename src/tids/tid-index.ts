/**
 * The tid index (D1): one row per tid ever claimed through the gateway, so a
 * tid creates at most one receipt or transfer, and a retried create is
 * recognised here instead of reaching the upstream again; its answer is the
 * one the record's Durable Object kept (src/operations/creation.ts).
 *
 * A tid belongs to its caller's space (rule 9): the key is (owner, tid). A
 * user's tid goes upstream as a UUID derived from the deployment's TID_SECRET,
 * the user and the tid (`upstreamTidFor`), so a user can neither take, block
 * nor probe a partner's tid or another user's.
 *
 * A create first claims its tid with a `pending` row (INSERT ... ON CONFLICT
 * DO NOTHING is the arbiter when creates race): the claim is the create's
 * write-ahead note (rule 8). After the answer is given it is completed with
 * the record's id (one small row: migrations/0001_initial.sql, ~220 B in
 * pages for the partner's). A pending claim holds its tid for a lease; past the lease (or
 * at once, when the create's outcome is known to be unknown) an identical
 * retry may take it over, re-send the create and adopt what the upstream
 * holds, and check-tid stops saying "in progress".
 *
 * Every function works on the one D1 database that holds the tid's row
 * (`claimIndexFor` and `readIndexFor` find it; src/d1/shards.ts places (owner,
 * tid)); retention runs per database.
 *
 * Every function takes the time as an argument (default: src/shared/clock.ts), so
 * tests can stand on either side of a lease without waiting.
 */

import { inPool } from "../d1/fanout";
import { allShards, type Shard, tidShardsFor } from "../d1/shards";
import type { KindName } from "../rules/kinds";
import { clock } from "../shared/clock";
import { hex, hmac } from "../shared/keyed-hash";

export interface TidRow {
  owner: string;
  tid: string;
  /** What the upstream holds: the tid itself (stored NULL) for the partner, a derived UUID for a user. */
  upstream_tid: string;
  kind: KindName;
  /** 32 hex digits (stored as 16 bytes). */
  fingerprint: string;
  status: "pending" | "completed";
  /** The claim's token; null once completed; FENCE_TOKEN for a fence. */
  claim_token: string | null;
  receipt_id: string | null;
  created_at: number;
  updated_at: number;
}

/** The row as D1 holds it (migrations/0001_initial.sql): small integers and raw bytes. */
interface StoredRow {
  owner: string;
  tid: string;
  upstream_hex: string | null;
  kind: number;
  status: number;
  fingerprint: string;
  claim_token: string | null;
  receipt_id: string | null;
  created_at: number;
  updated_at: number;
}

const KIND_CODES: Record<KindName, number> = { receipt: 0, transfer: 1 };
const STATUS_COMPLETED = 1;

/** A row's columns as TidRow reads them. */
const COLUMNS =
  "owner, tid, lower(hex(upstream_tid)) AS upstream_hex, kind, status, lower(hex(fingerprint)) AS fingerprint, claim_token, receipt_id, created_at, updated_at";
const SELECT_KEY = `SELECT ${COLUMNS} FROM tid_index WHERE owner = ?1 AND tid = ?2`;

const uuidOf = (h: string) => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
/** The upstream tid as stored: NULL when it is the tid, else its 32 hex digits (bound through unhex). */
const storedUpstream = (tid: string, upstreamTid: string): string | null => (upstreamTid === tid ? null : upstreamTid.replaceAll("-", ""));

function toRow(raw: StoredRow): TidRow {
  return {
    owner: raw.owner,
    tid: raw.tid,
    upstream_tid: raw.upstream_hex ? uuidOf(raw.upstream_hex) : raw.tid,
    kind: raw.kind === KIND_CODES.transfer ? "transfer" : "receipt",
    fingerprint: raw.fingerprint,
    status: raw.status === STATUS_COMPLETED ? "completed" : "pending",
    claim_token: raw.claim_token,
    receipt_id: raw.receipt_id,
    created_at: raw.created_at,
    updated_at: raw.updated_at,
  };
}

export type Claim =
  /** `upstreamTid`: the one to create under; on a takeover the row's own, whatever TID_SECRET is now. */
  | { kind: "claimed"; token: string; takeover: boolean; upstreamTid: string }
  | { kind: "replay"; row: TidRow }
  /** `row`: this caller's own use of the tid (with another body or kind), when that is what conflicts. */
  | { kind: "conflict"; row?: TidRow }
  | { kind: "in_progress"; retryAfterSeconds: number };

export interface ClaimRequest {
  owner: string;
  tid: string;
  upstreamTid: string;
  kind: KindName;
  fingerprint: string;
  /** The same request's fingerprints under TID_SECRET's earlier values (rotation): a row keyed with one is this request too. */
  formerFingerprints?: readonly string[];
  leaseMs: number;
}

/** The claim's INSERT: a pending row, unless (owner, tid) or a user's upstream tid is taken. */
function insertClaim(db: D1Database, req: Omit<ClaimRequest, "leaseMs">, token: string, createdAt: number, updatedAt: number): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO tid_index (owner, tid, upstream_tid, kind, status, fingerprint, claim_token, created_at, updated_at)
       VALUES (?1, ?2, unhex(?3), ?4, 0, unhex(?5), ?6, ?7, ?8) ON CONFLICT DO NOTHING`,
    )
    .bind(req.owner, req.tid, storedUpstream(req.tid, req.upstreamTid), KIND_CODES[req.kind], req.fingerprint, token, createdAt, updatedAt);
}

/**
 * Claims (owner, tid) for a create: the INSERT and the read of the row it met
 * in one D1 batch, so one round trip in all but rare cases (a takeover, a row
 * refused away between two statements, a user's upstream tid taken).
 */
export async function claimTid(db: D1Database, req: ClaimRequest, now = clock.now()): Promise<Claim> {
  // Two rounds: a row can vanish between our INSERT and SELECT when its create is refused.
  for (let round = 0; round < 2; round++) {
    const token = crypto.randomUUID();
    const [inserted, found] = await db.batch<StoredRow>([insertClaim(db, req, token, now, now), db.prepare(SELECT_KEY).bind(req.owner, req.tid)]);
    if (inserted!.meta.changes === 1) return { kind: "claimed", token, takeover: false, upstreamTid: req.upstreamTid };

    const stored = found?.results[0];
    if (!stored) {
      // A user's derived upstream tid is taken by another row (tid_index_upstream_tid). Partner rows store no
      // upstream tid (it is the tid): a partner tid equal to a derived one takes TID_SECRET to compute, and the
      // upstream's own tid uniqueness (TID_DUPLICATE: tid_conflict) catches it, in any shard.
      if (req.upstreamTid !== req.tid && (await findByUpstreamTid(db, req.upstreamTid))) return { kind: "conflict" };
      continue;
    }
    const row = toRow(stored);
    const same = row.fingerprint === req.fingerprint || (req.formerFingerprints ?? []).includes(row.fingerprint);
    if (!same || row.kind !== req.kind) return { kind: "conflict", row };
    if (row.status === "completed") return { kind: "replay", row };

    if (!leaseExpired(row, req.leaseMs, now)) {
      // A fence (claimIndexFor) never expires: its caller is told to retry within a lease, as for any claim.
      const left = Math.min(req.leaseMs, row.updated_at + req.leaseMs - now);
      return { kind: "in_progress", retryAfterSeconds: Math.max(1, Math.ceil(left / 1000)) };
    }
    const taken = await db
      .prepare("UPDATE tid_index SET claim_token = ?1, updated_at = ?2 WHERE owner = ?3 AND tid = ?4 AND claim_token = ?5 AND status = 0")
      .bind(token, now, req.owner, req.tid, row.claim_token)
      .run();
    if (taken.meta.changes === 1) return { kind: "claimed", token, takeover: true, upstreamTid: row.upstream_tid };
    return { kind: "in_progress", retryAfterSeconds: 1 };
  }
  return { kind: "in_progress", retryAfterSeconds: 1 };
}

/** How long a create's claim holds its tid: longer than any create can take, and a few minutes at most. */
export const leaseMs = (upstreamTimeoutMs: number): number => Math.min(5 * 60_000, Math.max(30_000, 3 * upstreamTimeoutMs));

/** A pending claim whose create can no longer be in flight: died, or its outcome is known to be unknown. */
export function leaseExpired(row: Pick<TidRow, "status" | "updated_at">, leaseMs: number, now: number): boolean {
  return row.status === "pending" && now - row.updated_at >= leaseMs;
}

/** A claim held by a create: what completes, releases or expires it. */
export interface HeldClaim {
  owner: string;
  tid: string;
  token: string;
}

/**
 * The create is answered: the row is completed with its record id, at the
 * time of the answer (`answeredAt`, which the replay window counts from), and
 * forgets its token. Runs after the answer (src/operations/creation.ts): from the
 * request's waitUntil, and from the record object's alarm if that did not
 * happen (src/record/completion.ts). Idempotent; true when this call did it.
 */
export async function completeTid(db: D1Database, claim: HeldClaim, receiptId: string, answeredAt = clock.now()): Promise<boolean> {
  const result = await db
    .prepare(
      "UPDATE tid_index SET status = 1, receipt_id = ?1, claim_token = NULL, updated_at = ?2 WHERE owner = ?3 AND tid = ?4 AND claim_token = ?5",
    )
    .bind(receiptId, answeredAt, claim.owner, claim.tid, claim.token)
    .run();
  return result.meta.changes === 1;
}

/** The upstream refused the create: nothing exists, the tid is free again. */
export async function releaseTid(db: D1Database, claim: HeldClaim): Promise<void> {
  await db
    .prepare("DELETE FROM tid_index WHERE owner = ?1 AND tid = ?2 AND claim_token = ?3 AND status = 0")
    .bind(claim.owner, claim.tid, claim.token)
    .run();
}

/**
 * The create's outcome is unknown, or it was not fully recorded: keep the
 * claim pending, with its lease over, so the next identical retry takes it
 * over at once and check-tid answers 404.
 */
export async function expireTid(db: D1Database, claim: HeldClaim): Promise<void> {
  await db
    .prepare("UPDATE tid_index SET status = 0, receipt_id = NULL, updated_at = 0 WHERE owner = ?1 AND tid = ?2 AND claim_token = ?3")
    .bind(claim.owner, claim.tid, claim.token)
    .run();
}

export async function findTid(db: D1Database, owner: string, tid: string): Promise<TidRow | null> {
  const raw = await db.prepare(SELECT_KEY).bind(owner, tid).first<StoredRow>();
  return raw ? toRow(raw) : null;
}

/**
 * A row answered more than this after its claim is in tid_index_late
 * (migrations/0008_tid_retention_walk.sql, whose condition writes the same
 * number): retention's walk passes it, and deleteLateTids deletes it once
 * due. The walk waits at a row answered within it, since that row is due
 * within it.
 */
export const TID_LATE_MS = 3_600_000;

/**
 * The walk's cursor back to the table's last row when the rows after it are
 * gone, in the batch that deleted them: SQLite gives a new row the largest
 * rowid left plus one, which the walk must still reach.
 */
const CLAMP_WALK = `UPDATE tid_walk SET at = COALESCE((SELECT MAX(rowid) FROM tid_index), 0)
   WHERE name = 'retention' AND at > COALESCE((SELECT MAX(rowid) FROM tid_index), 0)`;

/**
 * Retention, after the retention window: completed rows answered before `now
 * - retentionMs` are deleted, and their pages are free for the rows claimed
 * after them; from then on the upstream's own tid uniqueness answers a reuse
 * (TID_DUPLICATE: tid_conflict). Never a pending claim.
 *
 * A walk by rowid behind its cursor (tid_walk; migrations/0008_tid_retention_walk.sql):
 * rowids follow the claims, so the next `limit` rows claimed before the
 * cutoff, up to the first row answered inside the window within TID_LATE_MS
 * of its claim (due within that), or a claim pending since less than
 * TID_LATE_MS (so one it passes pending can only be completed late). It deletes the
 * completed rows answered before the cutoff among them; a row answered
 * inside the window later than that after its claim is deleteLateTids'.
 * Rows read: the batch, a few times; written: those deleted, and the cursor
 * when it moves (a batch that passes nothing and follows one that did not
 * leaves it as it is). `more`: the walk passed a full batch.
 */
export async function pruneTids(db: D1Database, retentionMs: number, limit: number, now = clock.now()): Promise<{ removed: number; more: boolean }> {
  const cutoff = now - retentionMs;
  const walked = "rowid > (SELECT prev FROM tid_walk WHERE name = 'retention') AND rowid <= (SELECT at FROM tid_walk WHERE name = 'retention')";
  const [, passed, deleted] = await db.batch<{ n: number }>([
    db
      .prepare(
        `WITH start AS (SELECT at FROM tid_walk WHERE name = 'retention'),
              ahead AS (SELECT rowid, status, created_at, updated_at FROM tid_index WHERE rowid > (SELECT at FROM start) ORDER BY rowid LIMIT ?2),
              wait AS (SELECT MIN(rowid) AS at FROM ahead
                       WHERE created_at >= ?1 OR (status = 0 AND created_at >= ?3)
                          OR (status = 1 AND updated_at >= ?1 AND updated_at - created_at <= ${TID_LATE_MS})),
              next AS (SELECT COALESCE((SELECT MAX(rowid) FROM ahead WHERE rowid < COALESCE((SELECT at FROM wait), 9223372036854775807)),
                                       (SELECT at FROM start)) AS at)
         UPDATE tid_walk SET prev = at, at = (SELECT at FROM next)
         WHERE name = 'retention' AND (prev <> at OR (SELECT at FROM next) <> at)`,
      )
      .bind(cutoff, limit, now - TID_LATE_MS),
    db.prepare(`SELECT COUNT(*) AS n FROM tid_index WHERE ${walked}`),
    db.prepare(`DELETE FROM tid_index WHERE ${walked} AND status = 1 AND updated_at < ?1`).bind(cutoff),
    db.prepare(CLAMP_WALK),
  ]);
  return { removed: deleted?.meta.changes ?? 0, more: (passed?.results[0]?.n ?? 0) >= limit };
}

/**
 * Retention of the rows answered more than TID_LATE_MS after their claim
 * (tid_index_late), which the walk passes: those answered before `now -
 * retentionMs`, at most `limit`, oldest answer first. A range scan of the
 * index: rows read, what it deletes.
 */
export async function deleteLateTids(db: D1Database, retentionMs: number, limit: number, now = clock.now()): Promise<number> {
  const [deleted] = await db.batch([
    db
      .prepare(
        `DELETE FROM tid_index WHERE rowid IN (
           SELECT rowid FROM tid_index WHERE status = 1 AND updated_at - created_at > ${TID_LATE_MS} AND updated_at < ?1 ORDER BY updated_at LIMIT ?2)`,
      )
      .bind(now - retentionMs, limit),
    db.prepare(CLAMP_WALK),
  ]);
  return deleted?.meta.changes ?? 0;
}

async function findByUpstreamTid(db: D1Database, upstreamTid: string): Promise<boolean> {
  return (await db.prepare("SELECT 1 AS found FROM tid_index WHERE upstream_tid = unhex(?1)").bind(upstreamTid.replaceAll("-", "")).first()) !== null;
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
 * A keyed fingerprint of a create request. Keyed (HMAC with TID_SECRET)
 * because a transfer carries card numbers, and a plain hash of a card number
 * can be reversed by trying every number of the issuer's range. Truncated to
 * 128 bits (32 hex digits, stored as 16 bytes): it tells one caller's
 * requests for one tid apart, and 2^-128 is no chance of mistaking two.
 */
export async function fingerprint(key: string, request: unknown): Promise<string> {
  return hex((await hmac(key, `fingerprint\0${canonical(request)}`)).slice(0, 16));
}

/**
 * The tid the upstream gets for a caller's tid (rule 9): the partner's as it
 * is; a user's as a UUID (version 8, RFC 9562) of HMAC(TID_SECRET, user, tid).
 */
export async function upstreamTidFor(key: string, owner: string, tid: string): Promise<string> {
  if (!owner.startsWith("user:")) return tid;
  const bytes = (await hmac(key, `user-tid\0${owner}\0${tid}`)).slice(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const h = hex(bytes);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// ---------------------------------------------------------------------------
// The index spread over the databases TID_INDEX_SHARDS names (src/d1/shards.ts).

/** A fence's claim token: the row says "this tid is claimed in a newer database", never a claim of its own. */
export const FENCE_TOKEN = "moved";

/** A fence's updated_at: its lease never runs out, so code on an earlier list answers tid_in_progress, never claims. */
const FENCE_UNTIL = Number.MAX_SAFE_INTEGER;

export const isFence = (row: Pick<TidRow, "claim_token">): boolean => row.claim_token === FENCE_TOKEN;

/**
 * The database a create claims (owner, tid) in. With one list: its shard.
 * While TID_INDEX_SHARDS_PREVIOUS names earlier lists, the key may have had
 * other places, and a Worker still on an earlier list claims there. So before
 * claiming in its place now, a create puts a fence in each earlier place
 * (INSERT ... ON CONFLICT DO NOTHING, then reads what is there, in one D1
 * batch per database, six databases at a time): a pending row with this
 * request's fingerprint whose lease never runs out. Whichever is first in
 * that database wins:
 *
 * - a real row was there: the tid was claimed before (or just now, by a
 *   Worker on the earlier list), and that database is the one, as before;
 * - the fence went in: from then on a Worker on the earlier list finds it,
 *   answers tid_in_progress (or tid_conflict to a different request) and
 *   never claims there; the claim goes to the place now.
 *
 * So a tid is claimed in one database whatever list each running Worker has,
 * and however many times the list has grown (each earlier list is fenced).
 * No row is ever copied. Fences are removed by retention after
 * TID_RETENTION_DAYS (tid_index_fences, migrations/0001_initial.sql).
 *
 * It answers the database with its binding's name: the record object that
 * owes the claim's completion (src/record/completion.ts) names it, and with
 * TID_INDEX_SHARDS_PREVIOUS that may be an earlier list's database.
 */
export async function claimIndexFor(
  env: Env,
  req: Pick<ClaimRequest, "owner" | "tid" | "upstreamTid" | "kind" | "fingerprint">,
  now = clock.now(),
): Promise<Shard> {
  const [here, ...before] = await tidShardsFor(env, req.owner, req.tid);
  if (before.length === 0) return here!;
  const claimedBefore = await inPool(before, async (shard) => {
    const { db } = shard;
    const [, found] = await db.batch<StoredRow>([
      insertClaim(db, req, FENCE_TOKEN, now, FENCE_UNTIL),
      db.prepare(SELECT_KEY).bind(req.owner, req.tid),
    ]);
    const row = found?.results[0];
    return row && !isFence(row) ? shard : null;
  });
  return claimedBefore.find((shard) => shard !== null) ?? here!;
}

/**
 * The database holding (owner, tid)'s row, for reading it (check-tid): the
 * place now, unless an earlier place holds the real row (not a fence). Reads
 * never write: a key with no row anywhere reads its place now.
 */
export async function readIndexFor(env: Env, owner: string, tid: string): Promise<D1Database> {
  const places = await tidShardsFor(env, owner, tid);
  if (places.length === 1) return places[0]!.db;
  const rows = await inPool(places, async ({ db }) => ({ db, row: await findTid(db, owner, tid) }));
  return (rows.find(({ row }) => row !== null && !isFence(row)) ?? rows[0]!).db;
}

/**
 * Retention: fences older than `retentionMs` are deleted (every row they
 * stood for is gone by then, and no Worker on a list that old is running).
 * At most `limit`, oldest first (tid_index_fences).
 */
export async function deleteFences(db: D1Database, retentionMs: number, limit: number, now = clock.now()): Promise<number> {
  const [deleted] = await db.batch([
    db
      .prepare(
        `DELETE FROM tid_index WHERE rowid IN (
           SELECT rowid FROM tid_index WHERE claim_token = '${FENCE_TOKEN}' AND created_at < ?1 ORDER BY created_at LIMIT ?2)`,
      )
      .bind(now - retentionMs, limit),
    db.prepare(CLAMP_WALK),
  ]);
  return deleted?.meta.changes ?? 0;
}

/**
 * The newest `limit` rows of the whole index, newest first (the sandbox
 * console's list): each database's newest `limit`, merged.
 */
export async function latestTids(env: Env, limit: number): Promise<TidRow[]> {
  const pages = await inPool(allShards(env), async ({ db }) => {
    const { results } = await db
      .prepare(`SELECT ${COLUMNS} FROM tid_index WHERE claim_token IS NOT '${FENCE_TOKEN}' ORDER BY created_at DESC, rowid DESC LIMIT ?1`)
      .bind(limit)
      .all<StoredRow>();
    return results.map(toRow);
  });
  // Stable: rows of one instant keep their database's order (newest rowid first).
  return pages
    .flat()
    .sort((a, b) => b.created_at - a.created_at)
    .slice(0, limit);
}

/**
 * One owner's newest `limit` completed rows, newest first (the back office's
 * search by user): each database's, merged. The primary key (owner, tid)
 * finds the owner's rows; they are sorted by creation in the statement.
 */
export async function ownerTids(env: Env, owner: string, limit: number): Promise<TidRow[]> {
  const pages = await inPool(allShards(env), async ({ db }) => {
    const { results } = await db
      .prepare(
        `SELECT ${COLUMNS} FROM tid_index WHERE owner = ?1 AND receipt_id IS NOT NULL AND claim_token IS NOT '${FENCE_TOKEN}'
         ORDER BY created_at DESC LIMIT ?2`,
      )
      .bind(owner, limit)
      .all<StoredRow>();
    return results.map(toRow);
  });
  return pages
    .flat()
    .sort((a, b) => b.created_at - a.created_at)
    .slice(0, limit);
}
