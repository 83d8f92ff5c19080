/**
 * The event log over the deployment's databases (TID_INDEX_SHARDS,
 * src/d1/shards.ts): a record's events live in the database its record id
 * hashes to, and while the list changes, also in the one an earlier list
 * placed it in. Each database's own statements are src/events/log-database.ts.
 */

import { retentionPolicy } from "../config/retention-policy";
import { inPool } from "../d1/fanout";
import { allShards, eventShardFor, eventShardsFor } from "../d1/shards";
import { receiptStub } from "../record-stub";
import type { KindName } from "../rules/kinds";
import { clock } from "../shared/clock";
import {
  attemptsOf,
  DELIVERY_STATUS_CODES,
  type DeliveryAttempt,
  type EventQuery,
  type EventStatus,
  eventStatuses,
  eventsIn,
  findEvent,
  holdsAnyOf,
  type LocatedRow,
  type Loggable,
  type LoggedRow,
  listEvents,
  listEventsIn,
  logTableAt,
  pruneEventsOf,
  recordEvents,
  unpack,
} from "./log-database";
import type { EventMessage, GatewayEvent } from "./types";
import { recordIdOf } from "./types";

/** Groups events by the database of their record, in the list's order. */
async function byShard<T>(env: Env, items: readonly T[], recordIdOfItem: (item: T) => string): Promise<[D1Database, T[]][]> {
  const groups = new Map<D1Database, T[]>();
  for (const item of items) {
    const { db } = await eventShardFor(env, recordIdOfItem(item));
    const group = groups.get(db);
    if (group) group.push(item);
    else groups.set(db, [item]);
  }
  return [...groups];
}

/**
 * recordEvents, each event in its record's database: one batch per database
 * (of up to 50 events). Their first attempt is due by the deployment's time,
 * also for a record whose own time runs ahead (src/shared/clock.ts): the sweep that
 * watches them runs on the deployment's. They go to the slot of the log's ring
 * written now (src/d1/ring.ts, the delivered events' window): by the time of
 * logging, not the event's creation, so a drain that comes late never writes
 * into a slot the cron is emptying; its creation time stays its id, which
 * every window counts from.
 */
export async function logEvents(env: Env, items: readonly Loggable[], now = clock.shared()): Promise<EventMessage[]> {
  const groups = await byShard(env, items, (item) => recordIdOf(unpack(item).event));
  const into = logTableAt(now, retentionPolicy(env).deliveredEventsMs);
  // At most six databases at a time (the Workers connection limit; src/d1/fanout.ts).
  return (await inPool(groups, ([db, group]) => recordEvents(db, group, now, into))).flat();
}

/**
 * An event by id alone (resend): asked of every database, since an event id
 * does not name its record. While the list changes, a copy may sit in both
 * the record's database before and its database now (an event a drain logged
 * before the change and a re-drain logged again after it, its record not
 * having marked it logged): the one now is the one.
 * One query per database, six at a time (src/d1/fanout.ts): within D1's 1,000
 * queries per invocation up to the 410 databases of 10,000,000 creates a day.
 */
export async function locateEvent(env: Env, id: string): Promise<{ db: D1Database; row: LocatedRow } | null> {
  const found = await inPool(allShards(env), async ({ db }) => ({ db, row: await findEvent(db, id) }));
  const hits = found.filter((hit): hit is { db: D1Database; row: LocatedRow } => hit.row !== null);
  if (hits.length <= 1) return hits[0] ?? null;
  const { db } = await eventShardFor(env, hits[0]!.row.record_id);
  return hits.find((hit) => hit.db === db) ?? hits[0]!;
}

/**
 * The ids of the events the records named `recordId` keep (a receipt's, and a
 * transfer's whose receipt_id it is): one call to each, at once. No index of
 * the log by record is kept (migrations/0003_events_without_record_index.sql):
 * a record keeps every event it published until it is deleted, and it is
 * deleted only once the log holds none of them (rule 10, src/record/end.ts),
 * so these are every event the log may hold of it. A record that does not
 * exist answers none.
 */
async function keptEventIds(env: Env, recordId: string): Promise<string[]> {
  const kinds: KindName[] = ["receipt", "transfer"];
  return (await Promise.all(kinds.map((kind) => receiptStub(env, kind, recordId).eventIds()))).flat();
}

/**
 * listEvents over the log: by type or delivery status, `limit + 1` from each
 * database, merged newest first by id (ids are time-ordered), cut to
 * `limit`: one query per database, six at a time (src/d1/fanout.ts). By
 * receipt_id, the ids its records keep (keptEventIds), read by primary key
 * from the record's database (and, while the list changes, its database
 * before): no D1 read at all for a record that keeps none.
 */
export async function listLoggedEvents(env: Env, query: EventQuery): Promise<{ rows: LoggedRow[]; hasMore: boolean }> {
  const { receiptId, ...filters } = query;
  const ids = receiptId !== undefined ? await keptEventIds(env, receiptId) : null;
  if (ids?.length === 0) return { rows: [], hasMore: false };
  const page = (db: D1Database) => (ids ? listEventsIn(db, ids, filters) : listEvents(db, filters));
  const shards = receiptId !== undefined ? await eventShardsFor(env, receiptId) : allShards(env);
  if (shards.length === 1) return page(shards[0]!.db);
  const pages = await inPool(shards, async ({ db }) => ({ db, ...(await page(db)) }));
  const rows = await withoutCopies(
    env,
    pages.flatMap((page) => page.rows.map((row) => ({ db: page.db, row }))),
  );
  rows.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  return { rows: rows.slice(0, query.limit), hasMore: rows.length > query.limit || pages.some((page) => page.hasMore) };
}

/** One row per event id: of two copies (see locateEvent), the one in the record's database now. */
async function withoutCopies(env: Env, rows: readonly { db: D1Database; row: LoggedRow }[]): Promise<LoggedRow[]> {
  const byId = new Map<string, { db: D1Database; row: LoggedRow }[]>();
  for (const hit of rows) byId.set(hit.row.id, [...(byId.get(hit.row.id) ?? []), hit]);
  const kept: LoggedRow[] = [];
  for (const hits of byId.values()) {
    if (hits.length === 1) kept.push(hits[0]!.row);
    else {
      const { db } = await eventShardFor(env, hits[0]!.row.record_id);
      kept.push((hits.find((hit) => hit.db === db) ?? hits[0]!).row);
    }
  }
  return kept;
}

/**
 * Where the queue consumer finds an event: the database of its row, whether its delivery is still pending, and
 * the table of the log holding the row when it was read (its marks go there first: log-database.ts onTheTableRead).
 */
export interface LoggedAt {
  db: D1Database;
  pending: boolean;
  table: string;
}

/**
 * Where each of these events is logged (the queue consumer): asked of the
 * databases that may hold its record's events (src/d1/shards.ts eventShardsFor),
 * one read per database for the whole batch, six at a time; of two copies
 * (see locateEvent), the one in its database now. One not found there is
 * looked for in every other database (a row an earlier list placed, once
 * TID_INDEX_SHARDS_PREVIOUS no longer names that list). An event found
 * nowhere is absent from the answer.
 */
export async function findLogged(env: Env, events: readonly GatewayEvent[]): Promise<Map<string, LoggedAt>> {
  const places = new Map<string, D1Database[]>();
  const asked = new Map<D1Database, string[]>();
  for (const event of events) {
    const dbs = (await eventShardsFor(env, recordIdOf(event))).map((shard) => shard.db);
    places.set(event.id, dbs);
    for (const db of dbs) asked.set(db, [...(asked.get(db) ?? []), event.id]);
  }
  const logged = pickLogged(places, await statusesIn(asked));
  const missing = events.map((event) => event.id).filter((id) => !logged.has(id));
  const rest = allShards(env).flatMap(({ db }) => (asked.has(db) ? [] : [db]));
  if (missing.length === 0 || rest.length === 0) return logged;
  const elsewhere = pickLogged(new Map(missing.map((id) => [id, rest])), await statusesIn(new Map(rest.map((db) => [db, missing]))));
  return new Map([...logged, ...elsewhere]);
}

/** The delivery status of each of these ids each database holds: one read per database (a batch is at most 100 ids), six at a time. */
async function statusesIn(asked: ReadonlyMap<D1Database, string[]>): Promise<Map<D1Database, Map<string, EventStatus>>> {
  return new Map(await inPool([...asked], async ([db, ids]) => [db, await eventStatuses(db, ids)] as const));
}

/** Each id's first database (in the order given) holding it, whether it is pending there, and in which table. */
function pickLogged(places: ReadonlyMap<string, D1Database[]>, statuses: ReadonlyMap<D1Database, Map<string, EventStatus>>): Map<string, LoggedAt> {
  const logged = new Map<string, LoggedAt>();
  for (const [id, dbs] of places) {
    const db = dbs.find((one) => statuses.get(one)?.has(id));
    const at = db && statuses.get(db)!.get(id)!;
    if (db && at) logged.set(id, { db, pending: at.status === DELIVERY_STATUS_CODES.pending, table: at.table });
  }
  return logged;
}

/**
 * Whether the log still holds any of these events of a record (the ids its
 * outbox keeps: every event it published), in any database that may place
 * them (rule 10): the record keeps the bodies the log lists, so it is deleted
 * only once retention has pruned every one of its events. Read by primary
 * key, a few rows per database, taken once at the record's end; none for a
 * record that published no event.
 */
export async function recordHasLoggedEvents(env: Env, recordId: string, eventIds: readonly string[]): Promise<boolean> {
  if (eventIds.length === 0) return false;
  for (const { db } of await eventShardsFor(env, recordId)) if (await holdsAnyOf(db, eventIds)) return true;
  return false;
}

/** pruneEventsOf in each database that may hold the record's events (the sandbox's test clock: src/console/test-clock.ts). */
export async function pruneRecordEvents(
  env: Env,
  recordId: string,
  eventIds: readonly string[],
  windows: { deliveredMs: number; undeliveredMs: number },
  now: number,
): Promise<number> {
  let removed = 0;
  for (const { db } of await eventShardsFor(env, recordId)) {
    // D1 binds at most 100 parameters a statement.
    for (let start = 0; start < eventIds.length; start += 90) {
      removed += await pruneEventsOf(db, eventIds.slice(start, start + 90), windows.deliveredMs, windows.undeliveredMs, now);
    }
  }
  return removed;
}

/**
 * The newest logged event of each of these records, one per record (the
 * sandbox console's list): each record is asked for the ids it keeps (six
 * at a time), and each database read by primary key for those of the records
 * it may hold; while the list changes, of a record's two databases the later
 * event (by id, as within one). Bodies: src/events/bodies.ts.
 */
export async function newestEvents(env: Env, records: readonly { kind: KindName; id: string }[]): Promise<LoggedRow[]> {
  const kept = await inPool(records, async ({ kind, id }) => ({ id, ids: await receiptStub(env, kind, id).eventIds() }));
  const groups = new Map<D1Database, string[]>();
  for (const { id, ids } of kept) {
    if (ids.length === 0) continue;
    for (const { db } of await eventShardsFor(env, id)) groups.set(db, [...(groups.get(db) ?? []), ...ids]);
  }
  const newest = new Map<string, LoggedRow>();
  for (const row of (await inPool([...groups], ([db, ids]) => eventsIn(db, ids))).flat()) {
    const key = `${row.kind}:${row.record_id}`;
    if ((newest.get(key)?.id ?? "") < row.id) newest.set(key, row);
  }
  return [...newest.values()];
}

/**
 * The delivery attempts of a record's events (the back office's timeline),
 * oldest first: from the record's database, and while the list changes its
 * database before (an attempt is written where its event's row is).
 */
export async function recordAttempts(env: Env, recordId: string, eventIds: readonly string[]): Promise<DeliveryAttempt[]> {
  if (eventIds.length === 0) return [];
  const shards = await eventShardsFor(env, recordId);
  const found = await inPool(shards, ({ db }) => attemptsOf(db, eventIds));
  return found.flat().sort((a, b) => a.at - b.at || a.seq - b.seq);
}
