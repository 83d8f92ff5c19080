/**
 * What `npm run restore` (scripts/restore.mjs) does, as data: its arguments
 * read and refused, the wrangler commands of a D1 restore, the SQL that
 * saves and puts back the erasure requests, and which records an
 * every-record restore takes. Pure, so test/unit/restore-plan.test.ts holds
 * it to the runbook (docs/production.md, "Backups and restore") offline.
 */
import { encodeTime } from "ulid";

/** Point-in-time recovery's window, for D1 Time Travel and Durable Objects alike (Workers Paid). */
export const PITR_DAYS = 30;
const DAY_MS = 86_400_000;

/** The event log's type codes (src/events/log-database.ts EVENT_TYPE_CODES) of a transfer's events; every other code is a receipt's. */
export const TRANSFER_EVENT_CODES = [7, 8, 9, 10, 11];
/** The codes of receipt.created and transfer.created: a record whose creation is logged after the time had nothing to restore to. */
export const CREATED_EVENT_CODES = [1, 7];

export class RestoreUsageError extends Error {}

const USAGE = `npm run restore -- d1 <binding> --at <ISO time> [--dry-run]
npm run restore -- record <receipt|transfer> <id> --at <ISO time> [--dry-run] [--url <gateway>]
npm run restore -- records --at <ISO time> [--dry-run] [--url <gateway>]`;

/** An ISO 8601 time with its offset (as D1 Time Travel and the restore path take it). */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The time to restore to, as milliseconds; refused unless it is an ISO time
 * with its offset, in the past and within the window.
 */
export function restoreTime(at, now) {
  if (at === undefined || at === "") {
    throw new RestoreUsageError(
      "--at <ISO time> is required: the time to restore to, e.g. --at 2026-11-24T10:00:00Z. Nothing is restored without one.",
    );
  }
  const ms = Date.parse(at);
  if (!ISO_TIME.test(at) || Number.isNaN(ms))
    throw new RestoreUsageError(`--at ${at} is not an ISO 8601 time with its offset (e.g. 2026-11-24T10:00:00Z).`);
  if (ms > now) throw new RestoreUsageError(`--at ${at} is in the future.`);
  if (now - ms > PITR_DAYS * DAY_MS)
    throw new RestoreUsageError(`--at ${at} is more than ${PITR_DAYS} days ago: point-in-time recovery keeps ${PITR_DAYS} days.`);
  return ms;
}

/**
 * The arguments after `npm run restore --`: the mode and its operands, the
 * time, and the options. `bindings` are the D1 bindings production uses
 * (src/config/config-rules.ts d1Bindings): a D1 restore names one of them.
 */
export function parseRestoreArgs(positionals, values, { now, bindings }) {
  const [mode, ...operands] = positionals;
  const common = { dryRun: values["dry-run"] === true, at: undefined, atMs: undefined };
  if (mode === "d1") {
    const [binding, extra] = operands;
    if (!binding || extra !== undefined) throw new RestoreUsageError(`Name one D1 binding: ${bindings.join(", ")}.\n${USAGE}`);
    if (!bindings.includes(binding)) {
      throw new RestoreUsageError(`${binding} is not a D1 binding of [env.production] (DB and TID_INDEX_SHARDS's): ${bindings.join(", ")}.`);
    }
    return { ...common, mode, binding, at: values.at, atMs: restoreTime(values.at, now) };
  }
  if (mode === "record") {
    const [kind, id, extra] = operands;
    if (kind !== "receipt" && kind !== "transfer") throw new RestoreUsageError(`record takes a kind, receipt or transfer, then the id.\n${USAGE}`);
    if (!id || extra !== undefined)
      throw new RestoreUsageError(`record ${kind} takes one id (a receipt's id, or a transfer's receipt_id).\n${USAGE}`);
    return { ...common, mode, kind, id, at: values.at, atMs: restoreTime(values.at, now) };
  }
  if (mode === "records") {
    if (operands.length > 0)
      throw new RestoreUsageError(`records takes no operand: it restores every record with an event logged since --at.\n${USAGE}`);
    return { ...common, mode, at: values.at, atMs: restoreTime(values.at, now) };
  }
  throw new RestoreUsageError(USAGE);
}

/** A wrangler command of production: its arguments, and what it is for. */
const production = (args, why) => ({ args: [...args, "--env", "production"], why });

/** The bookmark a time corresponds to (read-only). */
export const bookmarkCommand = (binding, atIso) =>
  production(["d1", "time-travel", "info", binding, "--timestamp", atIso, "--json"], `the bookmark of ${binding} at ${atIso}`);

/** The bookmark now: the one that undoes the restore. */
export const currentBookmarkCommand = (binding) =>
  production(["d1", "time-travel", "info", binding, "--json"], `the bookmark of ${binding} now (to undo)`);

/** The restore itself, to the bookmark named before (wrangler asks to confirm). */
export const restoreCommand = (binding, bookmark) =>
  production(["d1", "time-travel", "restore", binding, "--bookmark", bookmark], `restore ${binding} to bookmark ${bookmark}`);

/** One SQL statement against a production database, its rows as JSON. */
export const queryCommand = (binding, sql) => production(["d1", "execute", binding, "--remote", "--json", "--command", sql], `query ${binding}`);

/** A SQL file against a production database. */
export const fileCommand = (binding, path) =>
  production(["d1", "execute", binding, "--remote", "--yes", "--file", path], `run ${path} on ${binding}`);

/**
 * The erasure requests a restore of DB to `atMs` would lose (table erasures,
 * src/cron/erasure.ts: a request made or renewed since then). They live in DB
 * alone (the sub is never logged), so they are read before the restore.
 */
export const erasuresSinceQuery = (atMs) => `SELECT user, requested_at FROM erasures WHERE requested_at >= ${Math.trunc(atMs)} ORDER BY requested_at`;

const sqlText = (text) => `'${String(text).replaceAll("'", "''")}'`;

/** Puts those requests back as open requests, which the Cron Trigger carries out again (erasing is idempotent). */
export function erasuresReinsertSql(rows) {
  return rows
    .map(
      ({ user, requested_at }) =>
        `INSERT INTO erasures (user, requested_at, cursor, done_at) VALUES (${sqlText(user)}, ${Math.trunc(Number(requested_at))}, NULL, NULL) ` +
        "ON CONFLICT (user) DO UPDATE SET requested_at = max(erasures.requested_at, excluded.requested_at), cursor = NULL, done_at = NULL;",
    )
    .join("\n");
}

/** The tables of the tid index: tid_index and its ring of slots (src/tids/tid-index.ts TID_TABLES; migrations/0009_tid_ring.sql). */
export const CLAIM_TABLES = ["tid_index", ...Array.from({ length: 8 }, (_, slot) => `tid_index_${slot}`)];

/** The SELECTs as one UNION ALL, in subqueries of 5: D1 parses at most 5 terms in one compound (src/d1/ring.ts unionAll). */
const unionAll = (selects) => {
  const groups = [];
  for (let i = 0; i < selects.length; i += 5) groups.push(`SELECT * FROM (${selects.slice(i, i + 5).join(" UNION ALL ")})`);
  return groups.join(" UNION ALL ");
};

/** tid_index's columns, its blobs as hex (src/tids/tid-index.ts; migrations/0001_initial.sql). */
const CLAIM_COLUMNS = ["owner", "tid", "upstream_tid", "kind", "status", "fingerprint", "claim_token", "receipt_id", "created_at", "updated_at"];
const CLAIM_BLOBS = new Set(["upstream_tid", "fingerprint"]);

/**
 * The tid claims a restore of a database to `atMs` would lose or take back:
 * every row made or changed since then (updated_at is never before created_at).
 * They record creates the upstream has made, so they are read before the
 * restore and put back after it.
 */
export function claimsSinceQuery(atMs) {
  const columns = CLAIM_COLUMNS.map((c) => (CLAIM_BLOBS.has(c) ? `hex(${c}) AS ${c}` : c)).join(", ");
  return `${unionAll(CLAIM_TABLES.map((table) => `SELECT ${columns} FROM ${table} WHERE updated_at >= ${Math.trunc(atMs)}`))} ORDER BY owner, tid`;
}

const sqlValue = (column, value) => {
  if (value === null || value === undefined) return "NULL";
  if (CLAIM_BLOBS.has(column)) {
    if (!/^[0-9A-Fa-f]*$/.test(String(value))) throw new Error(`${column} is not hex`);
    return `X'${value}'`;
  }
  return typeof value === "number" ? String(Math.trunc(value)) : sqlText(value);
};

/**
 * Puts those claims back as they were just before the restore: a row the restore kept older is replaced by its
 * newer self. Each goes back to tid_index, whichever table held it (every read covers them all); an older copy
 * the restore kept in a slot is deleted, so the key has one row.
 */
export function claimsReinsertSql(rows) {
  const updates = CLAIM_COLUMNS.filter((c) => c !== "owner" && c !== "tid")
    .map((c) => `${c} = excluded.${c}`)
    .join(", ");
  return rows
    .map(
      (row) =>
        CLAIM_TABLES.slice(1)
          .map((slot) => `DELETE FROM ${slot} WHERE owner = ${sqlText(row.owner)} AND tid = ${sqlText(row.tid)}; `)
          .join("") +
        `INSERT INTO tid_index (${CLAIM_COLUMNS.join(", ")}) VALUES (${CLAIM_COLUMNS.map((c) => sqlValue(c, row[c])).join(", ")}) ` +
        `ON CONFLICT (owner, tid) DO UPDATE SET ${updates};`,
    )
    .join("\n");
}

/** The smallest event id of an event created at or after `atMs` (ids are evt_<ULID>: time first). */
export const firstEventIdAt = (atMs) => `evt_${encodeTime(Math.trunc(atMs), 10)}${"0".repeat(16)}`;

/** The records with an event logged since `atMs` in one database of the event log: their ids and the types of those events. */
export const changedRecordsQuery = (atMs) =>
  `SELECT record_id, group_concat(DISTINCT type) AS types FROM (${unionAll(
    EVENT_TABLES.map((table) => `SELECT record_id, type FROM ${table} WHERE id >= '${firstEventIdAt(atMs)}'`),
  )}) GROUP BY record_id ORDER BY record_id`;

/** The event log's tables: `events`, then the ring's slots `events_0` .. `events_7` (src/events/log-database.ts EVENT_TABLES). */
export const EVENT_TABLES = ["events", ...Array.from({ length: 8 }, (_, slot) => `events_${slot}`)];

/**
 * Which records an every-record restore takes: each record with an event
 * since the time, by kind; those whose creation is among those events are
 * left out (there is nothing of them to restore to) and listed apart.
 */
export function recordsToRestore(rows) {
  // A record's events are in one database, or in two after TID_INDEX_SHARDS grew: its codes are gathered first.
  const codesOf = new Map();
  for (const { record_id: id, types } of rows) {
    const codes = String(types ?? "")
      .split(",")
      .filter(Boolean)
      .map(Number);
    codesOf.set(id, [...(codesOf.get(id) ?? []), ...codes]);
  }
  const restore = [];
  const createdSince = [];
  for (const [id, codes] of codesOf) {
    const kind = codes.some((code) => TRANSFER_EVENT_CODES.includes(code)) ? "transfer" : "receipt";
    (codes.some((code) => CREATED_EVENT_CODES.includes(code)) ? createdSince : restore).push({ kind, id });
  }
  return { restore, createdSince };
}

/** The rows of `wrangler d1 execute --json`'s answer (one result per statement). */
export function rowsOf(stdout) {
  const parsed = JSON.parse(stdout.slice(stdout.indexOf("[")));
  return parsed.flatMap((result) => result.results ?? []);
}

/** The bookmark of `wrangler d1 time-travel info --json`'s answer. */
export function bookmarkOf(stdout) {
  const parsed = JSON.parse(stdout.slice(stdout.indexOf("{")));
  if (typeof parsed.bookmark !== "string" || !parsed.bookmark) throw new Error("wrangler answered no bookmark");
  return parsed.bookmark;
}
