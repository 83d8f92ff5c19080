/**
 * One database of the event log (D1, table `events`): every event a record
 * published, with how its delivery stands, and no body (its record keeps it:
 * src/events/bodies.ts). Plain functions over one database, so tests can call
 * them directly; the log over the deployment's databases is src/events/log.ts.
 */

import { encodeTime } from "ulid";
import { changedRows, slotAt, slotNames, slotPeriodMs, slotToEmpty, unionAll } from "../d1/ring";
import { clock } from "../shared/clock";
import { redact } from "../shared/redact";
import { lineFields, STATEMENT_CHANGES } from "./statement-lines";
import type { DeliveryStatus, EventDelivery, EventKind, EventMessage, EventType, EventWithDelivery, GatewayEvent } from "./types";
import { kindOf, recordIdOf } from "./types";

/**
 * Codes the event log stores for types and delivery statuses
 * (migrations/0001_initial.sql): a code is never reused or renumbered.
 */
export const EVENT_TYPE_CODES = {
  "receipt.created": 1,
  "receipt.paid": 2,
  "receipt.held": 3,
  "receipt.awaiting_supplier": 4,
  "receipt.cancelled": 5,
  "receipt.otp_attempts_exhausted": 6,
  "transfer.created": 7,
  "transfer.paid": 8,
  "transfer.cancelled": 9,
  "transfer.otp_attempts_exhausted": 10,
  "transfer.expired": 11,
  "receipt.fiscalized": 12,
  "receipt.refund_fiscalized": 13,
} as const satisfies Record<EventType, number>;
export const DELIVERY_STATUS_CODES = { pending: 0, delivered: 1, failed: 2 } as const satisfies Record<DeliveryStatus, number>;

/**
 * The types events_by_type holds (migrations/0007_events_by_rare_type.sql, whose condition names the same codes):
 * those a payment seldom makes. events/list reads one of them by that index; any other type it finds by walking
 * the log by id, where that type is dense (created, paid, and cancelled or expired: every payment makes two of
 * them), so an event of a common type costs no index entry.
 */
export const INDEXED_TYPES: ReadonlySet<EventType> = new Set<EventType>([
  "receipt.held",
  "receipt.awaiting_supplier",
  "receipt.otp_attempts_exhausted",
  "transfer.cancelled",
  "transfer.otp_attempts_exhausted",
  "receipt.fiscalized",
  "receipt.refund_fiscalized",
]);

/**
 * The log's tables: `events`, which took every row before the ring, then the
 * ring's slots (src/d1/ring.ts; migrations/0010_event_log_ring.sql), each
 * taking the events logged during one period and emptied whole by the cron
 * (emptyEventSlot). A row may move from a slot to another (the copy of the
 * rows still within their window), so no statement computes a row's table
 * from its id: reads cover every table. A change by id runs on the table its
 * caller has just read the row in (the read answers it), and on each
 * table only when that changed no row of the id (onTheTableRead).
 */
export const EVENT_TABLES: readonly string[] = ["events", ...slotNames("events")];

/** One table of the log, as migrations/0010_event_log_ring.sql makes each slot: the same columns as `events`, in its order, and its two partial indexes. */
export const eventTableDefinition = (table: string): string[] => [
  `CREATE TABLE ${table} (
  id               TEXT PRIMARY KEY,
  record_id        TEXT NOT NULL,
  type             INTEGER NOT NULL,
  status           INTEGER NOT NULL DEFAULT 0,
  attempts         INTEGER NOT NULL DEFAULT 0,
  last_status      INTEGER,
  last_error       TEXT,
  delivered_at     INTEGER,
  next_attempt_at  INTEGER,
  pending_since    INTEGER,
  watched          INTEGER CHECK (watched = 1),
  change           INTEGER,
  amount           INTEGER,
  commission       INTEGER,
  merchant         INTEGER,
  tid              TEXT,
  owner            TEXT,
  state            INTEGER,
  fiscal_sign      TEXT
) STRICT, WITHOUT ROWID`,
  `CREATE INDEX ${table}_watched ON ${table} (status, id) WHERE watched = 1`,
  `CREATE INDEX ${table}_by_type ON ${table} (type, id)
  WHERE type = 3 OR type = 4 OR type = 6 OR type = 9 OR type = 10 OR type = 12 OR type = 13`,
];

/**
 * One statement reading the whole log: `arm` for each table, joined by UNION
 * ALL, each arm a subquery of its own, so its ORDER BY and LIMIT bound what it
 * reads of its table (a page of each, never a sort of the whole log).
 */
export const acrossLog = (arm: (table: string) => string, tables: readonly string[] = EVENT_TABLES): string =>
  unionAll(tables.map((table) => `SELECT * FROM (${arm(table)})`));

/** The same change on every table of the log (for a batch): only the table holding the row writes it. */
const onEveryLogTable = (db: D1Database, sql: (table: string) => string, ...values: unknown[]): D1PreparedStatement[] =>
  EVENT_TABLES.map((table) => db.prepare(sql(table)).bind(...values));

/** A change's statements for each table of the log: only the table holding the row writes it. */
const everyLogTable = (statements: (table: string) => D1PreparedStatement[]): D1PreparedStatement[] => EVENT_TABLES.flatMap(statements);

/** A read's arm that also answers which table holds each row (`log_table`): a literal, so it costs no row read. */
export const withTable = (columns: string, table: string, where: string): string =>
  `SELECT ${columns}, '${table}' AS log_table FROM ${table} WHERE ${where}`;

/** A table name a read answered, or none: a change names it in its SQL, so only a table of the log is taken. */
const knownTable = (table: string | undefined): string | undefined => (table !== undefined && EVENT_TABLES.includes(table) ? table : undefined);

/**
 * A change by id where its caller has just read the rows (`tableOf`: the table each id was read in, or none
 * known): one statement per table read, each answering the ids it changed (`RETURNING id`); then the ids of
 * none, or that changed no row there, on every table of the log (`everywhere`), in a second batch. A turn of
 * the ring may move a row between the read and the change (src/d1/ring.ts: it copies the row forward and drops
 * its slot in one transaction), so a change that finds no row where it was read looks everywhere, as every
 * change did before; a row is one row in the whole log (loggedNowhereElse), so a change that landed is never
 * made again. In the steady state: one statement a table read, not one a table of the log. Answers the rows
 * the changes returned, both batches'.
 */
async function onTheTableRead<T, R extends { id: string } = { id: string }>(
  db: D1Database,
  items: readonly T[],
  idOf: (item: T) => string,
  tableOf: (id: string) => string | undefined,
  there: (table: string, items: T[]) => D1PreparedStatement[],
  everywhere: (items: T[]) => D1PreparedStatement[],
): Promise<R[]> {
  const byTable = new Map<string, T[]>();
  const unknown: T[] = [];
  for (const item of items) {
    const table = knownTable(tableOf(idOf(item)));
    if (table === undefined) unknown.push(item);
    else byTable.set(table, [...(byTable.get(table) ?? []), item]);
  }
  const rows: R[] = [];
  if (byTable.size > 0)
    for (const result of await db.batch<R>([...byTable].flatMap(([table, some]) => there(table, some)))) rows.push(...result.results);
  const changed = new Set(rows.map((row) => row.id));
  const rest = [...unknown, ...[...byTable.values()].flat().filter((item) => !changed.has(idOf(item)))];
  if (rest.length > 0) for (const result of await db.batch<R>(everywhere(rest))) rows.push(...result.results);
  return rows;
}

const TYPE_OF_CODE = new Map(Object.entries(EVENT_TYPE_CODES).map(([type, code]) => [code as number, type as EventType]));
const STATUS_OF_CODE = new Map(Object.entries(DELIVERY_STATUS_CODES).map(([status, code]) => [code as number, status as DeliveryStatus]));

/** What the stored and the decoded row share: the event's delivery (its body is its record's: src/events/bodies.ts). */
interface DeliveryOf {
  id: string;
  record_id: string;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  delivered_at: number | null;
  /** ms: when the next delivery attempt of a pending event is due (the sweep queues again one long overdue). */
  next_attempt_at: number | null;
  /** ms: when the current round of delivery began (logged, or last resent); the retry horizon counts from it. */
  pending_since: number | null;
}

/** A row of the event log as stored: type and status as codes. */
export interface StoredRow extends DeliveryOf {
  type: number;
  status: number;
}

/** A row of the event log, decoded. */
export interface LoggedRow extends DeliveryOf {
  kind: EventKind;
  type: EventType;
  delivery_status: DeliveryStatus;
}

/** A logged event with its body, from its record (src/events/bodies.ts). */
export interface EventRow extends LoggedRow {
  /** The event's JSON, exactly as it is signed and sent. */
  body: string;
  sequence: number;
  created: number;
  owner: string;
  request_id: string;
}

export function decodeRow(row: StoredRow): LoggedRow {
  const type = TYPE_OF_CODE.get(row.type) ?? "receipt.created";
  return {
    id: row.id,
    record_id: row.record_id,
    kind: kindOf(type),
    type,
    delivery_status: STATUS_OF_CODE.get(row.status) ?? "failed",
    attempts: row.attempts,
    last_status: row.last_status,
    last_error: row.last_error,
    delivered_at: row.delivered_at,
    next_attempt_at: row.next_attempt_at,
    pending_since: row.pending_since,
  };
}

/** A logged row with its body: the fields the body holds, read from it. */
export function withBody(row: LoggedRow, body: string): EventRow {
  const event = JSON.parse(body) as GatewayEvent;
  return { ...row, body, sequence: event.sequence, created: event.created, owner: event.data.owner, request_id: event.request_id };
}

/**
 * An event to log: the event, or the event with its JSON text exactly as it
 * will be signed and sent (the outbox's payload), so the queue carries those
 * very bytes.
 */
export type Loggable = GatewayEvent | { event: GatewayEvent; body: string };

export const unpack = (item: Loggable): { event: GatewayEvent; body: string } =>
  "body" in item && "event" in item ? item : { event: item, body: JSON.stringify(item) };

/** D1 allows 100 bound parameters per statement; the pending-ids query binds one per event. */
const MAX_EVENTS_PER_WRITE = 50;

/** The smallest event id of the millisecond `at`: ids are evt_<ULID>, and a ULID begins with its time. */
export const idAt = (at: number): string => `evt_${encodeTime(Math.max(0, at), 10)}`;

/**
 * Writes each event's row unless it is there already (idempotent by event id:
 * a re-drain after a crash adds nothing), in one transaction, and answers what
 * must be queued: every one of these events whose delivery is still pending,
 * with its body. Each insert answers whether it wrote the row (RETURNING): a
 * row it wrote is pending, so a first drain makes one statement an event and
 * no read; only an event an earlier drain logged is read for its status, in a
 * second round trip (a re-drain's, after a crash or a failed send). One
 * already delivered or dead-lettered by an earlier drain is not queued
 * again. A new row is `pending`, its first attempt due `now`
 * (the sweep's clock: src/events/sweep.ts), and watched only when a walk
 * over the log has passed its id already (migrations/0002_event_log_watch.sql:
 * a drain that comes minutes after the event was made, as after a failure),
 * since neither the sweep's walk nor retention's would find it. No body is stored: the record whose
 * outbox the events come from keeps them. Rows written: one per new event,
 * one more in events_by_type for a type of INDEXED_TYPES, and one more in
 * events_watched for a late one; rows read: the events of the batch and the
 * walk's cursor.
 */
/** Rule 16: a statement line's fields, written with the event's row (migrations/0005_statement_fields.sql); all null for an event that is no line. */
function statementColumns(event: GatewayEvent): (string | number | null)[] {
  const line = lineFields(event);
  if (!line) return [null, null, null, null, null, null, null, null];
  return [STATEMENT_CHANGES[line.change], line.amount, line.commission, line.merchant, line.tid, line.owner, line.state, line.fiscal_sign];
}

/** The table of the log new events go to at `now`: the ring's slot written now, for the delivered events' window. */
export const logTableAt = (now: number, deliveredMs: number): string => `events_${slotAt(now, slotPeriodMs(deliveredMs))}`;

/**
 * The condition that no table of the log but `into` holds the event ?1: with
 * `into`'s own primary key, an event is one row in the whole log, whichever
 * table a drain that ran before put it in. One statement is atomic in D1, so
 * the check and the write are one.
 */
export const loggedNowhereElse = (into: string): string =>
  EVENT_TABLES.filter((table) => table !== into)
    .map((table) => `NOT EXISTS (SELECT 1 FROM ${table} WHERE id = ?1)`)
    .join(" AND ");

export async function recordEvents(db: D1Database, items: readonly Loggable[], now = clock.now(), into = "events"): Promise<EventMessage[]> {
  const pending: EventMessage[] = [];
  for (let start = 0; start < items.length; start += MAX_EVENTS_PER_WRITE) {
    const chunk = items.slice(start, start + MAX_EVENTS_PER_WRITE).map(unpack);
    const inserts = chunk.map(({ event }) =>
      db
        .prepare(
          `INSERT INTO ${into} (id, record_id, type, next_attempt_at, pending_since, watched,
                               change, amount, commission, merchant, tid, owner, state, fiscal_sign)
           SELECT ?1, ?2, ?3, ?4, ?4, CASE WHEN ?1 <= (SELECT MAX(id) FROM events_cursors) THEN 1 END,
                  ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12
           WHERE ${loggedNowhereElse(into)}
           ON CONFLICT (id) DO NOTHING RETURNING id`,
        )
        .bind(event.id, recordIdOf(event), EVENT_TYPE_CODES[event.type], now, ...statementColumns(event)),
    );
    // A row this batch wrote is pending; only an event an earlier drain logged is asked for its status, after.
    const written = new Set((await db.batch<{ id: string }>(inserts)).flatMap((result) => result.results.map((row) => row.id)));
    const bodyOf = new Map(chunk.map(({ event, body }) => [event.id, body]));
    const before = [...bodyOf.keys()].filter((id) => !written.has(id));
    const stillPending = before.length === 0 ? new Set<string>() : await pendingOf(db, before);
    for (const [id, payload] of bodyOf) if (written.has(id) || stillPending.has(id)) pending.push({ id, payload });
  }
  return pending;
}

/** A row read by id, with the table of the log holding it when it was read (a change by id goes there first: onTheTableRead). */
export type LocatedRow = LoggedRow & { table: string };

/** Which of these events (at most MAX_EVENTS_PER_WRITE) the log holds still pending. */
async function pendingOf(db: D1Database, ids: readonly string[]): Promise<Set<string>> {
  const { results } = await db
    .prepare(acrossLog((table) => `SELECT id FROM ${table} WHERE status = 0 AND id IN (${placeholders(ids)})`))
    .bind(...ids)
    .all<{ id: string }>();
  return new Set(results.map((row) => row.id));
}

export async function findEvent(db: D1Database, id: string): Promise<LocatedRow | null> {
  const row = await db
    .prepare(acrossLog((table) => withTable("*", table, "id = ?1")))
    .bind(id)
    .first<StoredRow & { log_table: string }>();
  return row ? { ...decodeRow(row), table: row.log_table } : null;
}

export interface EventQuery {
  /** A receipt's id or a transfer's receipt_id: read through its records' event ids (src/events/log.ts), never by an index. */
  receiptId?: string;
  type?: EventType;
  delivery?: DeliveryStatus;
  /** An event id: only events older than it (the last one of the previous page). */
  after?: string;
  limit: number;
}

/**
 * Newest first (by id, which is time-ordered), at most `limit`, and whether
 * older ones remain. The statement follows the filters, so that each reads
 * about what it answers (D1 bills rows read too); a list by record is
 * listEventsIn's:
 *
 * - by `failed` (and a type, or none): events_watched (a failed event is
 *   always watched);
 * - by `pending` (and a type, or none): the watched pending events of
 *   events_watched, and the fresh ones, which are all ahead of the sweep's
 *   walk (events_cursors 'sweep'): the log's newest few minutes are read
 *   for them;
 * - by a type of INDEXED_TYPES otherwise: events_by_type, the events of
 *   that type, from `after` down (the statement names the index and its
 *   condition: a literal code, so SQLite can use the partial index);
 * - by another type: the log in id order from `after` down, reading the
 *   events of other types between those it answers: the page over the
 *   type's share of the log (about 2 to 10 times the page at production's
 *   mix; docs/events.md prices the worst case);
 * - by `delivered`, or no filter: the log in id order from `after` down,
 *   reading the events it answers and, for `delivered`, the undelivered
 *   ones between them (none in the steady state; during a receiver's
 *   outage, those of the outage).
 */
export async function listEvents(db: D1Database, query: Omit<EventQuery, "receiptId">): Promise<{ rows: LoggedRow[]; hasMore: boolean }> {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (clause: string, value: unknown) => {
    params.push(value);
    where.push(clause.replaceAll("?", `?${params.length}`));
  };
  if (query.type !== undefined) add("type = ?", EVENT_TYPE_CODES[query.type]);
  if (query.delivery !== undefined) add("status = ?", DELIVERY_STATUS_CODES[query.delivery]);
  if (query.after !== undefined) add("id < ?", query.after);
  params.push(query.limit + 1);
  const limit = `?${params.length}`;
  // Each table's page (at most `limit` + 1 rows of it); `index` may name the index it reads (`<table>_watched`,
  // `<table>_by_type`), so that a type filter does not trade it for all the events of that type.
  const page = (table: string, extra: string[], index?: string) => {
    const all = [...where, ...extra];
    const from = index ? `${table} INDEXED BY ${table}_${index}` : table;
    return `SELECT * FROM ${from} ${all.length ? `WHERE ${all.join(" AND ")}` : ""} ORDER BY id DESC LIMIT ${limit}`;
  };
  let arm = (table: string) => page(table, []);
  if (query.delivery === "failed") arm = (table) => page(table, ["watched = 1"], "watched");
  else if (query.delivery === "pending")
    // Either watched, or fresh: then ahead of the sweep's walk, which watches every event it finds pending.
    arm = (table) => `SELECT * FROM (${page(table, ["watched = 1"], "watched")})
           UNION ALL SELECT * FROM (${page(table, ["watched IS NULL", "id > (SELECT id FROM events_cursors WHERE name = 'sweep')"])})`;
  else if (query.type !== undefined && INDEXED_TYPES.has(query.type)) {
    // The code as a literal: SQLite uses a partial index only for a condition the statement itself implies.
    const code = EVENT_TYPE_CODES[query.type];
    arm = (table) => page(table, [`type = ${code}`], "by_type");
  }
  const { results } = await db
    .prepare(`SELECT * FROM (${acrossLog(arm)}) ORDER BY id DESC LIMIT ${limit}`)
    .bind(...params)
    .all<StoredRow>();
  return { rows: results.slice(0, query.limit).map(decodeRow), hasMore: results.length > query.limit };
}

/** Bound parameters a by-id read leaves for its filters and limit: D1 allows 100 per statement. */
const MAX_IDS_PER_READ = 90;

/** The ids in statements of at most MAX_IDS_PER_READ, in the order given. */
const inChunks = (ids: readonly string[]): string[][] =>
  Array.from({ length: Math.ceil(ids.length / MAX_IDS_PER_READ) }, (_, i) => ids.slice(i * MAX_IDS_PER_READ, (i + 1) * MAX_IDS_PER_READ));

const placeholders = (ids: readonly string[]): string => ids.map((_, i) => `?${i + 1}`).join(", ");

/**
 * A page of listEvents among these event ids (a record's: src/events/log.ts),
 * read by primary key: rows read, those of these ids the database holds and
 * no other. The ids are taken newest first, a statement of up to 90 at a
 * time, until the page and one more are found; `after` leaves out the ids
 * from it up, `type` and `delivery` filter as listEvents does.
 */
export async function listEventsIn(
  db: D1Database,
  ids: readonly string[],
  query: Omit<EventQuery, "receiptId">,
): Promise<{ rows: LoggedRow[]; hasMore: boolean }> {
  const newestFirst = [...new Set(ids)].filter((id) => query.after === undefined || id < query.after).sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  const rows: StoredRow[] = [];
  for (const chunk of inChunks(newestFirst)) {
    const params: unknown[] = [...chunk];
    const where = [`id IN (${placeholders(chunk)})`];
    if (query.type !== undefined) where.push(`type = ?${params.push(EVENT_TYPE_CODES[query.type])}`);
    if (query.delivery !== undefined) where.push(`status = ?${params.push(DELIVERY_STATUS_CODES[query.delivery])}`);
    const { results } = await db
      .prepare(
        `SELECT * FROM (${acrossLog((table) => `SELECT * FROM ${table} WHERE ${where.join(" AND ")}`)})
         ORDER BY id DESC LIMIT ?${params.push(query.limit + 1 - rows.length)}`,
      )
      .bind(...params)
      .all<StoredRow>();
    rows.push(...results);
    if (rows.length > query.limit) break;
  }
  return { rows: rows.slice(0, query.limit).map(decodeRow), hasMore: rows.length > query.limit };
}

/** The rows of these events this database holds, in no order: read by primary key, no other row. */
export async function eventsIn(db: D1Database, ids: readonly string[]): Promise<LoggedRow[]> {
  const rows: LoggedRow[] = [];
  for (const chunk of inChunks(ids)) {
    const { results } = await db
      .prepare(acrossLog((table) => `SELECT * FROM ${table} WHERE id IN (${placeholders(chunk)})`))
      .bind(...chunk)
      .all<StoredRow>();
    rows.push(...results.map(decodeRow));
  }
  return rows;
}

/** Where an event's row is, as one read saw it: its delivery status (its code) and the table of the log holding it. */
export interface EventStatus {
  status: number;
  table: string;
}

/** The delivery status of each of these events this database holds, and its table, by id (at most 100 ids). */
export async function eventStatuses(db: D1Database, ids: readonly string[]): Promise<Map<string, EventStatus>> {
  const { results } = await db
    .prepare(acrossLog((table) => withTable("id, status", table, `id IN (${placeholders(ids)})`)))
    .bind(...ids)
    .all<{ id: string; status: number; log_table: string }>();
  return new Map(results.map((row) => [row.id, { status: row.status, table: row.log_table }]));
}

/**
 * Whether this database holds any of these events (a record's, at its end):
 * read by primary key, a statement of up to 90 ids, until one is found.
 */
export async function holdsAnyOf(db: D1Database, ids: readonly string[]): Promise<boolean> {
  for (const chunk of inChunks(ids)) {
    const row = await db
      .prepare(`SELECT 1 AS found FROM (${acrossLog((table) => `SELECT id FROM ${table} WHERE id IN (${placeholders(chunk)})`)}) LIMIT 1`)
      .bind(...chunk)
      .first<{ found: number }>();
    if (row !== null) return true;
  }
  return false;
}

/**
 * Deliveries that got a 2xx, a queue batch's whose events this database logs, in one D1 batch: one round trip
 * for them all (a consumer batch takes up to 12 events). Delivered is final whatever happened before (a
 * duplicate may have failed meanwhile). The event's row says all the back office shows of it (when, the status,
 * the attempt's number: attemptsOf), so a delivery writes one row, not an attempt's row beside it: most events
 * are delivered at their first attempt. Each delivery's `table` is where the consumer's read found its row
 * (findLogged): marked there, and on every table only if that changed no row (onTheTableRead).
 */
export async function recordDeliveries(
  db: D1Database,
  deliveries: readonly { id: string; status: number; at: number; table?: string }[],
): Promise<void> {
  if (deliveries.length === 0) return;
  // One statement per table for the whole batch (the deliveries as a VALUES list: 3 parameters each).
  const marks = (table: string, some: readonly { id: string; status: number; at: number }[]): D1PreparedStatement[] => {
    const statements: D1PreparedStatement[] = [];
    for (let start = 0; start < some.length; start += MAX_DELIVERIES_PER_WRITE) {
      const chunk = some.slice(start, start + MAX_DELIVERIES_PER_WRITE);
      const values = chunk.map((_, i) => `(?${3 * i + 1}, ?${3 * i + 2}, ?${3 * i + 3})`).join(", ");
      statements.push(
        db
          .prepare(
            `UPDATE ${table} SET status = 1, attempts = attempts + 1, last_status = d.column2, last_error = NULL, delivered_at = d.column3
             FROM (VALUES ${values}) AS d WHERE ${table}.id = d.column1 RETURNING id`,
          )
          .bind(...chunk.flatMap(({ id, status, at }) => [id, status, at])),
      );
    }
    return statements;
  };
  const tableOf = new Map(deliveries.map((delivery) => [delivery.id, delivery.table]));
  await onTheTableRead(
    db,
    deliveries,
    (delivery) => delivery.id,
    (id) => tableOf.get(id),
    marks,
    (some) => everyLogTable((table) => marks(table, some)),
  );
}

/** Deliveries a statement of recordDeliveries binds: 3 parameters each, under D1's 100. */
const MAX_DELIVERIES_PER_WRITE = 30;

/** The longest answer an attempt keeps. */
export const ATTEMPT_ANSWER_CHARS = 200;

/**
 * One failed delivery attempt of an event (migrations/0006_event_attempts.sql),
 * for the back office: written in the batch that counts it in `events`, so its
 * `seq` is the event's attempt count after it. The answer is trimmed and
 * redacted here, whoever worded it. The attempt that delivered is the event's
 * own row (recordDeliveries).
 */
function insertAttempt(
  db: D1Database,
  id: string,
  attempt: { at: number; status: number | null; ok: boolean; answer: string },
  tables: readonly string[] = EVENT_TABLES,
): D1PreparedStatement {
  const answer = String(redact(attempt.answer.slice(0, ATTEMPT_ANSWER_CHARS))).trim();
  return db
    .prepare(
      `INSERT OR IGNORE INTO event_attempts (event_id, at, seq, status, ok, answer)
       SELECT id, ?2, attempts, ?3, ?4, ?5 FROM (${acrossLog((table) => `SELECT id, attempts FROM ${table} WHERE id = ?1`, tables)})`,
    )
    .bind(id, attempt.at, attempt.status, attempt.ok ? 1 : 0, answer);
}

/** An event's delivery attempt, as the back office shows it. */
export interface DeliveryAttempt {
  event_id: string;
  at: number;
  seq: number;
  status: number | null;
  ok: boolean;
  answer: string;
}

/** The delivery attempts of these events in this database, oldest first. */
export async function attemptsOf(db: D1Database, ids: readonly string[]): Promise<DeliveryAttempt[]> {
  if (ids.length === 0) return [];
  const attempts: DeliveryAttempt[] = [];
  for (let i = 0; i < ids.length; i += MAX_EVENTS_PER_WRITE) {
    const slice = ids.slice(i, i + MAX_EVENTS_PER_WRITE);
    const { results } = await db
      .prepare(
        `SELECT event_id, at, seq, status, ok, answer FROM event_attempts
         WHERE event_id IN (${slice.map((_, j) => `?${j + 1}`).join(", ")}) ORDER BY event_id, at, seq`,
      )
      .bind(...slice)
      .all<Omit<DeliveryAttempt, "ok"> & { ok: number }>();
    for (const row of results) attempts.push({ ...row, ok: row.ok === 1 });
    // The attempt that delivered, from the event's row.
    const delivered = await db
      .prepare(
        acrossLog(
          (table) => `SELECT id, delivered_at, attempts, last_status FROM ${table}
         WHERE id IN (${slice.map((_, j) => `?${j + 1}`).join(", ")}) AND status = 1 AND delivered_at IS NOT NULL`,
        ),
      )
      .bind(...slice)
      .all<{ id: string; delivered_at: number; attempts: number; last_status: number | null }>();
    for (const row of delivered.results) {
      attempts.push({
        event_id: row.id,
        at: row.delivered_at,
        seq: row.attempts,
        status: row.last_status,
        ok: true,
        answer: row.last_status === null ? "delivered" : `HTTP ${row.last_status}`,
      });
    }
  }
  return attempts.sort((a, b) => (a.event_id < b.event_id ? -1 : a.event_id > b.event_id ? 1 : a.at - b.at || a.seq - b.seq));
}

/** Retention: deletes up to `limit` attempts of events created before `now - olderThanMs`, oldest first. */
export async function pruneAttempts(db: D1Database, olderThanMs: number, limit: number, now = clock.now()): Promise<number> {
  const result = await db
    .prepare(
      `DELETE FROM event_attempts WHERE (event_id, at, seq) IN (
         SELECT event_id, at, seq FROM event_attempts WHERE event_id < ?1 ORDER BY event_id LIMIT ?2)`,
    )
    .bind(idAt(now - olderThanMs), limit)
    .run();
  return result.meta.changes;
}

/**
 * A delivery failed and will be retried by the queue at `nextAttemptAt` (ms):
 * the status stays as it is, and the sweep leaves the event alone until well
 * after that retry was due. `table`: where the consumer's read found the row
 * (findLogged); the attempt is counted there, its attempt's row written from
 * there in the same batch, and both on every table only if that changed no
 * row (onTheTableRead).
 */
export async function recordFailedAttempt(
  db: D1Database,
  id: string,
  outcome: { status: number | null; error: string; nextAttemptAt: number; at?: number },
  table?: string,
): Promise<void> {
  const attempt = { at: outcome.at ?? clock.now(), status: outcome.status, ok: false, answer: outcome.error };
  const count = (table: string) =>
    db
      .prepare(`UPDATE ${table} SET attempts = attempts + 1, last_status = ?2, last_error = ?3, next_attempt_at = ?4 WHERE id = ?1 RETURNING id`)
      .bind(id, outcome.status, outcome.error, outcome.nextAttemptAt);
  await onTheTableRead(
    db,
    [id],
    (one) => one,
    () => table,
    (table) => [count(table), insertAttempt(db, id, attempt, [table])],
    () => [...everyLogTable((table) => [count(table)]), insertAttempt(db, id, attempt)],
  );
}

/**
 * The queue gave up on these events (they reached the dead-letter queue).
 * Only a pending event becomes failed: one a resend has delivered meanwhile
 * stays delivered. A failed event is watched, so events/list finds it in
 * events_watched, and retention keeps it for the undelivered window.
 * `tableOf`: where the consumer's read found each row (findLogged).
 */
export async function recordDeadLettered(
  db: D1Database,
  ids: readonly string[],
  tableOf: (id: string) => string | undefined = () => undefined,
): Promise<void> {
  if (ids.length === 0) return;
  const fail = (table: string, some: readonly string[]) =>
    inChunks(some).map((chunk) =>
      db.prepare(`UPDATE ${table} SET status = 2, watched = 1 WHERE id IN (${placeholders(chunk)}) AND status = 0 RETURNING id`).bind(...chunk),
    );
  await onTheTableRead(
    db,
    ids,
    (id) => id,
    tableOf,
    fail,
    (some) => everyLogTable((table) => fail(table, some)),
  );
}

/**
 * Puts an event back to pending for a resend, as a new round of delivery (its
 * attempt due now, the retry horizon counted from now), watched, since the
 * sweep's walk may have passed it; answers the row as it was, with the table
 * it was read in, or null for an unknown id.
 */
export async function markPendingAgain(db: D1Database, id: string, now = clock.now()): Promise<LocatedRow | null> {
  const before = await findEvent(db, id);
  if (!before) return null;
  const pend = (table: string) =>
    db
      .prepare(
        `UPDATE ${table} SET status = 0, delivered_at = NULL, next_attempt_at = ?2, pending_since = ?2, watched = 1 WHERE id = ?1 RETURNING id`,
      )
      .bind(id, now);
  await onTheTableRead(
    db,
    [id],
    (one) => one,
    () => before.table,
    (table) => [pend(table)],
    () => everyLogTable((table) => [pend(table)]),
  );
  return before;
}

/** Undoes markPendingAgain when the event could not be queued after all: where markPendingAgain read the row first. */
export async function restoreDelivery(db: D1Database, row: LoggedRow & { table?: string }): Promise<void> {
  const restore = (table: string) =>
    db
      .prepare(`UPDATE ${table} SET status = ?2, delivered_at = ?3 WHERE id = ?1 AND status = 0 RETURNING id`)
      .bind(row.id, DELIVERY_STATUS_CODES[row.delivery_status], row.delivered_at);
  await onTheTableRead(
    db,
    [row.id],
    (one) => one,
    () => row.table,
    (table) => [restore(table)],
    () => everyLogTable((table) => [restore(table)]),
  );
}

/**
 * Retention for one record's events only (`ids`, at most 90 of its outbox's),
 * at `now` in that record's own time (the sandbox's test clock moves one
 * record's time, not the deployment's cron): the delivered ones created
 * before `now - deliveredMs`, the others before `now - undeliveredMs`, as
 * the cron's runs delete them. Rows read and deleted: those events.
 */
export async function pruneEventsOf(
  db: D1Database,
  ids: readonly string[],
  deliveredMs: number,
  undeliveredMs: number,
  now: number,
): Promise<number> {
  if (ids.length === 0) return 0;
  const list = ids.map((_, i) => `?${i + 4}`).join(", ");
  const results = await db.batch(
    onEveryLogTable(
      db,
      (table) => `DELETE FROM ${table} WHERE id IN (${list}) AND ((status = ?1 AND id < ?2) OR (status <> ?1 AND id < ?3))`,
      DELIVERY_STATUS_CODES.delivered,
      idAt(now - deliveredMs),
      idAt(now - undeliveredMs),
      ...ids,
    ),
  );
  return changedRows(results);
}

/**
 * Retention: deletes events in `status` created before `now - olderThanMs`,
 * at most `limit`, oldest first: for `delivered`, those never watched first
 * (pruneDelivered), then the watched ones (pruneWatched). Retention runs the
 * two as steps of their own, each with its own bound.
 */
export async function pruneEvents(db: D1Database, status: DeliveryStatus, olderThanMs: number, limit: number, now = clock.now()): Promise<number> {
  const walked = status === "delivered" ? (await pruneDelivered(db, olderThanMs, limit, now)).removed : 0;
  return walked + (walked < limit ? await pruneWatched(db, status, olderThanMs, limit - walked, now) : 0);
}

/**
 * Deletes watched events in `status` created before `now - olderThanMs`, at
 * most `limit`, oldest first. An event id begins with its creation time
 * (evt_<ULID>), so this is a range scan of events_watched up to the first id
 * of the cutoff's millisecond: rows read, what it deletes. An event never
 * watched was delivered in time, and pruneDelivered deletes it. Deleted rows
 * free their pages for new ones.
 */
export async function pruneWatched(db: D1Database, status: DeliveryStatus, olderThanMs: number, limit: number, now = clock.now()): Promise<number> {
  const result = await db
    .prepare(
      `DELETE FROM events WHERE id IN (
         SELECT id FROM events WHERE watched = 1 AND status = ?1 AND id < ?2 ORDER BY id LIMIT ?3)`,
    )
    .bind(DELIVERY_STATUS_CODES[status], idAt(now - olderThanMs), limit)
    .run();
  return result.meta.changes;
}

/**
 * The statement that moves a walk's cursor (events_cursors) over the next
 * `limit` events (?2) before `?1`, oldest first, keeping where it was in
 * `prev`: the batch is then (prev, id]. A walk with nothing new leaves the
 * row as it is once prev has caught up. Rows read: the batch; written: 1.
 */
export const advanceWalk = (name: "sweep" | "prune", tables: readonly string[] = ["events"]): string =>
  `UPDATE events_cursors SET prev = id,
     id = COALESCE((SELECT MAX(id) FROM (SELECT id FROM (${acrossLog((table) => `SELECT id FROM ${table} WHERE id > events_cursors.id AND id < ?1 ORDER BY id LIMIT ?2`, tables)}) ORDER BY id LIMIT ?2)), id)
   WHERE name = '${name}' AND (prev <> id OR EXISTS (${acrossLog((table) => `SELECT id FROM ${table} WHERE id > events_cursors.id AND id < ?1 LIMIT 1`, tables)}))`;

/** The events of a walk's last batch (after advanceWalk), as a condition on `id`. */
export const walkedBatch = (name: "sweep" | "prune"): string =>
  `id > (SELECT prev FROM events_cursors WHERE name = '${name}') AND id <= (SELECT id FROM events_cursors WHERE name = '${name}')`;

/**
 * Retention's walk: the next `limit` events created before
 * `now - olderThanMs`, oldest first, behind the 'prune' cursor: deletes the
 * delivered ones, and watches any other it passes (pending or failed, never
 * watched: only with a delivered window shorter than the sweep's stale
 * cutoff), so that pruneEvents finds it in its own window. Rows read: the
 * batch (about three times); written: the deleted rows, the watched ones
 * twice, and the cursor. `more`: events older than the cutoff remain ahead.
 */
export async function pruneDelivered(
  db: D1Database,
  olderThanMs: number,
  limit: number,
  now = clock.now(),
): Promise<{ removed: number; more: boolean }> {
  const cutoff = idAt(now - olderThanMs);
  const [, , deleted, ahead] = await db.batch<{ more: number }>([
    db.prepare(advanceWalk("prune")).bind(cutoff, limit),
    db.prepare(`UPDATE events SET watched = 1 WHERE ${walkedBatch("prune")} AND status <> 1 AND watched IS NULL`),
    db.prepare(`DELETE FROM events WHERE ${walkedBatch("prune")} AND status = 1`),
    db
      .prepare("SELECT EXISTS (SELECT 1 FROM events WHERE id > (SELECT id FROM events_cursors WHERE name = 'prune') AND id < ?1) AS more")
      .bind(cutoff),
  ]);
  return { removed: deleted?.meta.changes ?? 0, more: (ahead?.results[0]?.more ?? 0) === 1 };
}

/**
 * The ring's turn (src/d1/ring.ts), one database: empties the slot the next
 * period writes to, with W the delivered events' window, once it holds any
 * row (a cheap read of one row first, so a slot is rebuilt once a period).
 * One batch, one transaction: the rows still within their window (as
 * pruneEvents keeps them: a delivered event younger than `deliveredMs`, any
 * other younger than `undeliveredMs`) are copied into the slot written now,
 * then the slot is dropped and made again as migrations/0010_event_log_ring.sql
 * made it. A dropped table writes no row (a delete writes one a row), and
 * an undelivered event moves forward a slot at each turn until its own
 * window ends. Answers the rows copied, or null when the slot was empty.
 */
export async function emptyEventSlot(db: D1Database, deliveredMs: number, undeliveredMs: number, now: number): Promise<number | null> {
  const period = slotPeriodMs(deliveredMs);
  const current = `events_${slotAt(now, period)}`;
  const victim = `events_${slotToEmpty(now, period)}`;
  if ((await db.prepare(`SELECT 1 AS taken FROM ${victim} LIMIT 1`).first()) === null) return null;
  const [copied] = await db.batch([
    db
      .prepare(
        `INSERT INTO ${current} SELECT * FROM ${victim}
         WHERE (status = ?1 AND id >= ?2) OR (status <> ?1 AND id >= ?3)
         ON CONFLICT (id) DO NOTHING`,
      )
      .bind(DELIVERY_STATUS_CODES.delivered, idAt(now - deliveredMs), idAt(now - undeliveredMs)),
    db.prepare(`DROP TABLE ${victim}`),
    ...eventTableDefinition(victim).map((sql) => db.prepare(sql)),
  ]);
  return copied?.meta.changes ?? 0;
}

/** Statements of one emptyEventSlot: the probe, then the batch's copy, drop and the slot's definition. */
export const EMPTY_EVENT_SLOT_QUERIES = 1 + 2 + eventTableDefinition("events_0").length;

export function deliveryOf(row: LoggedRow): EventDelivery {
  return {
    status: row.delivery_status,
    attempts: row.attempts,
    last_status: row.last_status,
    last_error: row.last_error,
    delivered_at: row.delivered_at,
  };
}

export const eventOf = (row: EventRow): GatewayEvent => JSON.parse(row.body) as GatewayEvent;

export const withDelivery = (row: EventRow): EventWithDelivery => ({ ...eventOf(row), delivery: deliveryOf(row) });
