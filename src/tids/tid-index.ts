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

import { DAY_MS, RETENTION_DEFAULTS, retentionPolicy } from "../config/retention-policy";
import { inPool } from "../d1/fanout";
import { changedRows, slotAt, slotNames, slotPeriodMs, slotToEmpty, unionAll } from "../d1/ring";
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

/** A fence's claim token (claimIndexFor): the row says "this tid is claimed in a newer database", never a claim of its own. */
export const FENCE_TOKEN = "moved";
const STATUS_COMPLETED = 1;

/** A row's columns as TidRow reads them. */
const COLUMNS =
  "owner, tid, lower(hex(upstream_tid)) AS upstream_hex, kind, status, lower(hex(fingerprint)) AS fingerprint, claim_token, receipt_id, created_at, updated_at";

/**
 * The tables the index lives in: the first one (tid_index, a rowid table
 * pruned by a walk) and the ring of slots that replaces it
 * (tid_index_0 .. tid_index_7, src/d1/ring.ts; migrations/0009_tid_ring.sql).
 * A slot is WITHOUT ROWID, keyed by (owner, tid): a claim writes one b-tree
 * entry where tid_index writes its row and its key's index entry, and a slot
 * is emptied by DROP TABLE, which writes no row, where retention's DELETE
 * writes one a row.
 *
 * A row may be in any of them: rows move between slots when a slot is
 * emptied, so every statement on a key covers all of them, and the
 * uniqueness of (owner, tid) and of a user's upstream tid is checked across
 * all of them in the claim's own statement.
 */
export const TID_SLOTS = slotNames("tid_index");
export const TID_TABLES: readonly string[] = ["tid_index", ...TID_SLOTS];

/** A slot's table and its one index: the migration's text is tested equal to this (test/integration/d1-schema.test.ts). */
export const tidSlotSchema = (table: string): string[] => [
  `CREATE TABLE ${table} (
  owner        TEXT NOT NULL,
  tid          TEXT NOT NULL,
  upstream_tid BLOB,
  kind         INTEGER NOT NULL CHECK (kind IN (0, 1)),
  status       INTEGER NOT NULL CHECK (status IN (0, 1)),
  fingerprint  BLOB NOT NULL,
  claim_token  TEXT,
  receipt_id   TEXT,
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL,
  PRIMARY KEY (owner, tid)
) STRICT, WITHOUT ROWID`,
  `CREATE UNIQUE INDEX ${table}_upstream_tid ON ${table} (upstream_tid) WHERE upstream_tid IS NOT NULL`,
];

/**
 * A row still within its window at the cutoff `c` (the time minus
 * TID_RETENTION_DAYS), as retention decides it: a pending claim always (its
 * lease decides what becomes of it), a fence made since the cutoff, a
 * completed row answered since the cutoff. Reads and the claim's uniqueness
 * go by this, never by whether the row's table is dropped yet: a row past
 * its window is forgotten (rule 1) though its slot still holds it.
 */
const within = (c: string) =>
  `(claim_token IS '${FENCE_TOKEN}' AND created_at >= ${c} OR claim_token IS NOT '${FENCE_TOKEN}' AND (status = 0 OR updated_at >= ${c}))`;

/** (owner, tid)'s row within its window, in whichever table holds it: at most one does (the claim's uniqueness). */
const SELECT_KEY = unionAll(TID_TABLES.map((table) => `SELECT ${COLUMNS} FROM ${table} WHERE owner = ?1 AND tid = ?2 AND ${within("?3")}`));

/** The same statement on every table of the index, in one batch: only the table holding the row writes it. */
const onEveryTidTable = (db: D1Database, sql: (table: string) => string, ...values: unknown[]): D1PreparedStatement[] =>
  TID_TABLES.map((table) => db.prepare(sql(table)).bind(...values));

/**
 * The table a claim writes: the slot of its time (src/d1/ring.ts), for the
 * retention window. tid_index takes no new row: it keeps its walk until it
 * is empty (docs/production.md, "Expand, then contract").
 */
const claimTable = (now: number, windowMs: number): string => TID_SLOTS[slotAt(now, slotPeriodMs(windowMs))]!;

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
  /**
   * `upstreamTid`: the one to create under; on a takeover the row's own, whatever TID_SECRET is now. `table`:
   * the table of the index that holds the row now, for its completion (completeTid); kept in memory only.
   */
  | { kind: "claimed"; token: string; takeover: boolean; upstreamTid: string; table: string }
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
  /** TID_RETENTION_DAYS: a row past it is forgotten and blocks no claim (default: the policy's default). */
  windowMs?: number;
}

/** TID_RETENTION_DAYS's default, for a caller that has no env's policy at hand. */
const DEFAULT_WINDOW_MS = RETENTION_DEFAULTS.tidRetentionDays * DAY_MS;

/**
 * The claim's INSERT: a pending row, unless (owner, tid) or a user's upstream
 * tid is taken by a row within its window in any table of the index. The
 * check is in the statement itself (one statement is atomic in D1), and each
 * table's own keys back it. In a slot, a row of the same key past its window
 * (its slot not emptied yet: a slot holds rows up to a period past it) is
 * replaced; in tid_index, as before the ring, it holds its key until the
 * cron's next run deletes it (the walk deletes by rowid, so it is never
 * rewritten in place).
 */
function insertClaim(
  db: D1Database,
  req: Omit<ClaimRequest, "leaseMs" | "formerFingerprints">,
  token: string,
  createdAt: number,
  updatedAt: number,
  now: number,
): D1PreparedStatement {
  const windowMs = req.windowMs ?? DEFAULT_WINDOW_MS;
  // A row of the same key past its window in the slot (the cron was late to empty it) is replaced.
  return db
    .prepare(
      `INSERT INTO ${claimTable(now, windowMs)} (owner, tid, upstream_tid, kind, status, fingerprint, claim_token, created_at, updated_at)
       SELECT ?1, ?2, unhex(?3), ?4, 0, unhex(?5), ?6, ?7, ?8
       WHERE ${TID_TABLES.map((t) => `NOT EXISTS (SELECT 1 FROM ${t} WHERE owner = ?1 AND tid = ?2 AND ${within("?9")})`).join(" AND ")}
         AND (?3 IS NULL OR ${TID_TABLES.map((t) => `NOT EXISTS (SELECT 1 FROM ${t} WHERE upstream_tid = unhex(?3) AND ${within("?9")})`).join(" AND ")})
       ON CONFLICT (owner, tid) DO UPDATE SET upstream_tid = excluded.upstream_tid, kind = excluded.kind, status = 0,
           fingerprint = excluded.fingerprint, claim_token = excluded.claim_token, receipt_id = NULL,
           created_at = excluded.created_at, updated_at = excluded.updated_at
         WHERE NOT ${within("?9")} ON CONFLICT DO NOTHING`,
    )
    .bind(
      req.owner,
      req.tid,
      storedUpstream(req.tid, req.upstreamTid),
      KIND_CODES[req.kind],
      req.fingerprint,
      token,
      createdAt,
      updatedAt,
      now - windowMs,
    );
}

/**
 * Claims (owner, tid) for a create: the INSERT and the read of the row it met
 * in one D1 batch, so one round trip in all but rare cases (a takeover, a row
 * refused away between two statements, a user's upstream tid taken).
 */
export async function claimTid(db: D1Database, req: ClaimRequest, now = clock.now()): Promise<Claim> {
  // Two rounds: a row can vanish between our INSERT and SELECT when its create is refused.
  const windowMs = req.windowMs ?? DEFAULT_WINDOW_MS;
  for (let round = 0; round < 2; round++) {
    const token = crypto.randomUUID();
    const [inserted, found] = await db.batch<StoredRow>([
      insertClaim(db, req, token, now, now, now),
      db.prepare(SELECT_KEY).bind(req.owner, req.tid, now - windowMs),
    ]);
    if (inserted!.meta.changes === 1)
      return { kind: "claimed", token, takeover: false, upstreamTid: req.upstreamTid, table: claimTable(now, windowMs) };

    const stored = found?.results[0];
    if (!stored) {
      // A user's derived upstream tid is taken by another row (tid_index_upstream_tid). Partner rows store no
      // upstream tid (it is the tid): a partner tid equal to a derived one takes TID_SECRET to compute, and the
      // upstream's own tid uniqueness (TID_DUPLICATE: tid_conflict) catches it, in any shard.
      if (req.upstreamTid !== req.tid && (await findByUpstreamTid(db, req.upstreamTid, windowMs, now))) return { kind: "conflict" };
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
    const taken = await db.batch(
      onEveryTidTable(
        db,
        (table) => `UPDATE ${table} SET claim_token = ?1, updated_at = ?2 WHERE owner = ?3 AND tid = ?4 AND claim_token = ?5 AND status = 0`,
        token,
        now,
        req.owner,
        req.tid,
        row.claim_token,
      ),
    );
    if (changedRows(taken) === 1) {
      const table = TID_TABLES[taken.findIndex((result) => result.meta.changes === 1)]!;
      return { kind: "claimed", token, takeover: true, upstreamTid: row.upstream_tid, table };
    }
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
 *
 * The request knows the table its claim answered (`where`, from claimTid):
 * one statement there. The record's backstop does not, and finds the row
 * completed already nearly always: the table a claim made at the answer's
 * time goes to (`windowMs`, TID_RETENTION_DAYS, places it), and in the same
 * batch a read of where the claim's row is, if not there (one statement over
 * every table). Only a row elsewhere (moved by a slot's emptying, claimed in
 * an earlier period or release) costs one more UPDATE, where it is.
 */
export async function completeTid(
  db: D1Database,
  claim: HeldClaim,
  receiptId: string,
  answeredAt = clock.now(),
  windowMs = DEFAULT_WINDOW_MS,
  where?: string,
): Promise<boolean> {
  const complete = (table: string) =>
    db
      .prepare(
        `UPDATE ${table} SET status = 1, receipt_id = ?1, claim_token = NULL, updated_at = ?2 WHERE owner = ?3 AND tid = ?4 AND claim_token = ?5`,
      )
      .bind(receiptId, answeredAt, claim.owner, claim.tid, claim.token);
  const locate = db.prepare(LOCATE_CLAIM).bind(claim.owner, claim.tid, claim.token);
  let elsewhere: { at: string }[];
  if (where) {
    if ((await complete(where).run()).meta.changes === 1) return true;
    elsewhere = (await locate.all<{ at: string }>()).results;
  } else {
    const [first, found] = await db.batch<{ at: string }>([complete(claimTable(answeredAt, windowMs)), locate]);
    if (first!.meta.changes === 1) return true;
    elsewhere = found!.results;
  }
  for (const { at } of elsewhere) if ((await complete(at).run()).meta.changes === 1) return true;
  return false;
}

/** The table holding a claim's row by its token, if one does: ?1 owner, ?2 tid, ?3 the token. */
const LOCATE_CLAIM = unionAll(TID_TABLES.map((table) => `SELECT '${table}' AS at FROM ${table} WHERE owner = ?1 AND tid = ?2 AND claim_token = ?3`));

/** The upstream refused the create: nothing exists, the tid is free again. */
export async function releaseTid(db: D1Database, claim: HeldClaim): Promise<void> {
  await db.batch(
    onEveryTidTable(
      db,
      (table) => `DELETE FROM ${table} WHERE owner = ?1 AND tid = ?2 AND claim_token = ?3 AND status = 0`,
      claim.owner,
      claim.tid,
      claim.token,
    ),
  );
}

/**
 * The create's outcome is unknown, or it was not fully recorded: keep the
 * claim pending, with its lease over, so the next identical retry takes it
 * over at once and check-tid answers 404.
 */
export async function expireTid(db: D1Database, claim: HeldClaim): Promise<void> {
  await db.batch(
    onEveryTidTable(
      db,
      (table) => `UPDATE ${table} SET status = 0, receipt_id = NULL, updated_at = 0 WHERE owner = ?1 AND tid = ?2 AND claim_token = ?3`,
      claim.owner,
      claim.tid,
      claim.token,
    ),
  );
}

/** (owner, tid)'s row, unless it is past its window (`windowMs`, TID_RETENTION_DAYS): then, as when none is stored, null. */
export async function findTid(db: D1Database, owner: string, tid: string, windowMs = DEFAULT_WINDOW_MS, now = clock.now()): Promise<TidRow | null> {
  const raw = await db
    .prepare(SELECT_KEY)
    .bind(owner, tid, now - windowMs)
    .first<StoredRow>();
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

async function findByUpstreamTid(db: D1Database, upstreamTid: string, windowMs: number, now: number): Promise<boolean> {
  const sql = unionAll(TID_TABLES.map((table) => `SELECT 1 AS found FROM ${table} WHERE upstream_tid = unhex(?1) AND ${within("?2")}`));
  return (
    (await db
      .prepare(sql)
      .bind(upstreamTid.replaceAll("-", ""), now - windowMs)
      .first()) !== null
  );
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
  const windowMs = retentionPolicy(env).tidRetentionMs;
  const claimedBefore = await inPool(before, async (shard) => {
    const { db } = shard;
    const [, found] = await db.batch<StoredRow>([
      insertClaim(db, { ...req, windowMs }, FENCE_TOKEN, now, FENCE_UNTIL, now),
      db.prepare(SELECT_KEY).bind(req.owner, req.tid, now - windowMs),
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
  const windowMs = retentionPolicy(env).tidRetentionMs;
  const rows = await inPool(places, async ({ db }) => ({ db, row: await findTid(db, owner, tid, windowMs) }));
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
 * The newest `limit` rows of the whole index within their window, newest
 * first (the sandbox console's list): each database's newest `limit`,
 * merged. No index orders the index by creation (one would cost a row
 * written a claim): each table is read whole, which the sandbox's few rows
 * allow.
 */
export async function latestTids(env: Env, limit: number, now = clock.now()): Promise<TidRow[]> {
  const cutoff = now - retentionPolicy(env).tidRetentionMs;
  const pages = await inPool(allShards(env), async ({ db }) => {
    const { results } = await db
      .prepare(
        unionAll(
          TID_TABLES.map((table) => `SELECT ${COLUMNS} FROM ${table} WHERE claim_token IS NOT '${FENCE_TOKEN}' AND ${within("?2")}`),
          "ORDER BY created_at DESC, owner, tid LIMIT ?1",
        ),
      )
      .bind(limit, cutoff)
      .all<StoredRow>();
    return results.map(toRow);
  });
  // Stable: rows of one instant keep their database's order.
  return pages
    .flat()
    .sort((a, b) => b.created_at - a.created_at)
    .slice(0, limit);
}

/**
 * One owner's newest `limit` completed rows within their window, newest
 * first (the back office's search by user): each database's, merged. The
 * primary key (owner, tid) of each table finds the owner's rows; they are
 * sorted by creation in the statement.
 */
export async function ownerTids(env: Env, owner: string, limit: number, now = clock.now()): Promise<TidRow[]> {
  const cutoff = now - retentionPolicy(env).tidRetentionMs;
  const pages = await inPool(allShards(env), async ({ db }) => {
    const { results } = await db
      .prepare(
        unionAll(
          TID_TABLES.map(
            (table) =>
              `SELECT ${COLUMNS} FROM ${table} WHERE owner = ?1 AND receipt_id IS NOT NULL AND claim_token IS NOT '${FENCE_TOKEN}' AND ${within("?3")}`,
          ),
          "ORDER BY created_at DESC LIMIT ?2",
        ),
      )
      .bind(owner, limit, cutoff)
      .all<StoredRow>();
    return results.map(toRow);
  });
  return pages
    .flat()
    .sort((a, b) => b.created_at - a.created_at)
    .slice(0, limit);
}

// ---------------------------------------------------------------------------
// The ring of slots (src/d1/ring.ts): retention empties a slot whole.

/**
 * The batch that empties the slot the next period writes to, at `now`
 * (slotToEmpty), while the current one takes the claims: first the rows of
 * the victim still within their window (a pending claim, a row answered long
 * after its claim, a fence, a row a Worker whose clock runs ahead wrote) go
 * to the current slot, then the victim is dropped and made again as the
 * migration made it. One D1 batch is one transaction: a claim lands in the
 * victim before it (and is copied) or in the new table after it, never in
 * between. A copied row takes its key's place over a row of the same key
 * past its window (a late cron); a clash of a user's upstream tid fails the
 * batch, and the victim is kept whole for the next run.
 */
export function tidSlotEmptying(db: D1Database, victim: string, current: string, cutoff: number): D1PreparedStatement[] {
  const columns = "owner, tid, upstream_tid, kind, status, fingerprint, claim_token, receipt_id, created_at, updated_at";
  const replaced = columns
    .split(", ")
    .filter((c) => c !== "owner" && c !== "tid")
    .map((c) => `${c} = excluded.${c}`)
    .join(", ");
  return [
    db
      .prepare(
        `INSERT INTO ${current} (${columns}) SELECT ${columns} FROM ${victim} WHERE ${within("?1")}
         ON CONFLICT (owner, tid) DO UPDATE SET ${replaced}`,
      )
      .bind(cutoff),
    db.prepare(`DROP TABLE ${victim}`),
    ...tidSlotSchema(victim).map((sql) => db.prepare(sql)),
  ];
}

/**
 * Retention of the slots: empties the one the next period writes to, unless
 * it is empty (a read of one row), so a slot is rebuilt once a period. Rows
 * written: those still within their window it moves (normally none); the
 * drop writes none. Answers 0: the dropped rows are not counted (counting
 * them would read the whole slot).
 */
export async function emptyTidSlot(db: D1Database, windowMs: number, now = clock.now()): Promise<number> {
  const period = slotPeriodMs(windowMs);
  const victim = TID_SLOTS[slotToEmpty(now, period)]!;
  if ((await db.prepare(`SELECT 1 AS found FROM ${victim} LIMIT 1`).first()) === null) return 0;
  await db.batch(tidSlotEmptying(db, victim, TID_SLOTS[slotAt(now, period)]!, now - windowMs));
  return 0;
}

/** Statements of one emptyTidSlot: the probe, then the batch's. */
export const EMPTY_TID_SLOT_QUERIES = 1 + 2 + tidSlotSchema("tid_index_0").length;

/** A user's row as the erasure walks them: the record it names. */
export interface OwnedRow {
  tid: string;
  kind: KindName;
  receipt_id: string | null;
}

/**
 * The erasure's walk over an owner's rows (src/cron/erasure.ts), every table
 * of the index, in tid order after `after`, about `limit` a call: each table's
 * primary key delivers its rows in order and the statement merges them
 * (a MERGE of the UNION ALL, reading about `limit` from each). Every row,
 * within its window or not: the erasure forgets what is stored. A tid held
 * in two tables (a copy past its window beside the live row) is read whole
 * at the page's end, so the cursor, its tid, leaves none of it behind.
 */
export async function ownerRowsAfter(db: D1Database, owner: string, after: string, limit: number): Promise<OwnedRow[]> {
  const select = (where: string, tail?: string) =>
    unionAll(
      TID_TABLES.map(
        (table) => `SELECT tid, CASE kind WHEN 1 THEN 'transfer' ELSE 'receipt' END AS kind, receipt_id FROM ${table} WHERE owner = ?1 AND ${where}`,
      ),
      tail,
    );
  const { results: page } = await db.prepare(select("tid > ?2", "ORDER BY tid LIMIT ?3")).bind(owner, after, limit).all<OwnedRow>();
  if (page.length < limit || page.length === 0) return page;
  const last = page[page.length - 1]!.tid;
  const { results: rest } = await db.prepare(select("tid = ?2")).bind(owner, last).all<OwnedRow>();
  return [...page.filter((row) => row.tid !== last), ...rest];
}
