/**
 * What the event log costs in D1 rows written (what D1 bills: each index
 * entry a statement writes counts as a row, https://developers.cloudflare.com/d1/platform/pricing/),
 * and what the log still answers now that an event delivered in time is in
 * no status index (migrations/0002_event_log_watch.sql): every list by
 * delivery status, the sweep finding what is still pending, retention
 * freeing delivered events. Its own file, so its databases hold only its
 * events and the walks' cursors start at the beginning.
 */
import { env } from "cloudflare:workers";
import { ulid } from "ulid";
import { describe, expect, it } from "vitest";
import { DAY_MS } from "../../src/config/retention-policy";
import { sweepEvents } from "../../src/events";
import { listLoggedEvents } from "../../src/events/log";
import {
  EVENT_TABLES,
  EVENT_TYPE_CODES,
  INDEXED_TYPES,
  listEvents,
  listEventsIn,
  pruneDelivered,
  pruneWatched,
  recordDeadLettered,
  recordDeliveries,
  recordEvents,
} from "../../src/events/log-database";
import type { EventType } from "../../src/events/types";
import { keepBodies, makeEvent, newRecordId, queueSpy, receiver, recordEventsDb } from "../events";

/** The same database, adding up the rows D1 reports written (each result's meta.rows_written). */
function metered(db: D1Database): { db: D1Database; written: () => number } {
  let written = 0;
  const count = (result: D1Result) => {
    written += result.meta.rows_written ?? 0;
    return result;
  };
  const unwrap = new WeakMap<object, D1PreparedStatement>();
  const statement = (stmt: D1PreparedStatement): D1PreparedStatement => {
    const proxy = new Proxy(stmt, {
      get(target, key) {
        if (key === "bind") return (...values: unknown[]) => statement(target.bind(...values));
        if (key === "run" || key === "all") return async () => count(await target[key]());
        const value = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    unwrap.set(proxy, stmt);
    return proxy;
  };
  const proxy = new Proxy(db, {
    get(target, key) {
      if (key === "prepare") return (sql: string) => statement(target.prepare(sql));
      if (key === "batch")
        return async (statements: D1PreparedStatement[]) => (await target.batch(statements.map((s) => unwrap.get(s) ?? s))).map(count);
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { db: proxy, written: () => written };
}

/** A receipt's event made at `at`, its body kept as its record would keep it. */
function eventAt(at: number, recordId = newRecordId()) {
  const event = { ...makeEvent(recordId), id: `evt_${ulid(at)}`, created: at };
  keepBodies([event]);
  return event;
}

describe("an event's life in D1 rows written", () => {
  it("delivered in time: 1 to log it (its row; no index by record, none by a common type), 1 to deliver it (its row says what the back office shows of the attempt), 1 to prune it", async () => {
    const start = Date.UTC(2001, 0, 1);
    const recordId = newRecordId();
    const same = Array.from({ length: 10 }, (_, i) => eventAt(start + i, recordId));
    const db = await recordEventsDb(recordId);

    const logged = metered(db);
    for (const event of same) await recordEvents(logged.db, [event], event.created);
    expect(logged.written()).toBe(same.length);

    const delivered = metered(db);
    for (const event of same) await recordDeliveries(delivered.db, [{ id: event.id, status: 204, at: event.created + 100 }]);
    expect(delivered.written()).toBe(same.length);

    // Past the delivered window: the walk deletes them, one row each, and moves its cursor (one row a batch).
    const pruned = metered(db);
    expect(await pruneDelivered(pruned.db, DAY_MS, 100, start + DAY_MS + 100)).toEqual({ removed: same.length, more: false });
    expect(pruned.written()).toBe(same.length + 1);
    expect((await listLoggedEvents(env, { receiptId: recordId, limit: 20 })).rows).toEqual([]);
  });
});

describe("events_by_type", () => {
  it("takes an entry for an event of a rare type alone: 2 rows to log one, 1 to log a common one", async () => {
    const start = Date.UTC(2001, 0, 2);
    const recordId = newRecordId();
    const db = await recordEventsDb(recordId);
    for (const type of Object.keys(EVENT_TYPE_CODES) as EventType[]) {
      const event = { ...makeEvent(recordId, { type }), id: `evt_${ulid(start)}`, created: start };
      keepBodies([event]);
      const logged = metered(db);
      await recordEvents(logged.db, [event], start);
      expect([type, logged.written()]).toEqual([type, INDEXED_TYPES.has(type) ? 2 : 1]);
      // Out of the later tests' sweep, which would find it pending.
      await db.prepare("DELETE FROM events WHERE id = ?1").bind(event.id).run();
    }
    expect([...INDEXED_TYPES]).toEqual([
      "receipt.held",
      "receipt.awaiting_supplier",
      "receipt.otp_attempts_exhausted",
      "transfer.cancelled",
      "transfer.otp_attempts_exhausted",
      "receipt.fiscalized",
      "receipt.refund_fiscalized",
    ]);
  });
});

/** Whether the log watches this event (in events_watched): what the sweep's and retention's index scans see. */
const watched = async (db: D1Database, id: string) =>
  (await db.prepare("SELECT watched FROM events WHERE id = ?1").bind(id).first<{ watched: number | null }>())?.watched;

describe("the log, most of it in no status index", () => {
  it("lists by delivery status, record and type find watched and fresh events alike; the sweep watches what is still pending", async () => {
    const start = Date.UTC(2002, 0, 1);
    const recordId = newRecordId();
    const db = await recordEventsDb(recordId);
    // Before the sweep: one pending (its first attempt due in an hour, so the sweep does not queue it), one
    // delivered, one failed by the dead-letter queue.
    const [pendingOld, deliveredOld, failedOld] = [eventAt(start, recordId), eventAt(start + 1, recordId), eventAt(start + 2, recordId)];
    await recordEvents(db, [pendingOld], start + 3_600_000);
    await recordEvents(db, [deliveredOld, failedOld], start + 1);
    await recordDeliveries(db, [{ id: deliveredOld.id, status: 204, at: start + 10 }]);
    await recordDeadLettered(db, [failedOld.id]);

    // The sweep's walk passes them: the pending one is watched (written into events_watched), the delivered one not.
    expect(await sweepEvents(env, start + 60 * 60_000)).toEqual({ failed: 0, requeued: 0 });
    expect([await watched(db, pendingOld.id), await watched(db, deliveredOld.id), await watched(db, failedOld.id)]).toEqual([1, null, 1]);

    // After it, fresh ones ahead of the walk.
    const [pendingNew, deliveredNew] = [eventAt(start + 61 * 60_000, recordId), eventAt(start + 61 * 60_000 + 1, recordId)];
    await recordEvents(db, [pendingNew, deliveredNew], start + 61 * 60_000 + 1);
    await recordDeliveries(db, [{ id: deliveredNew.id, status: 204, at: start + 61 * 60_000 + 10 }]);
    expect([await watched(db, pendingNew.id), await watched(db, deliveredNew.id)]).toEqual([null, null]);

    const ids = async (query: Omit<Parameters<typeof listLoggedEvents>[1], "limit">, limit = 20) =>
      (await listLoggedEvents(env, { ...query, limit })).rows.map((row) => row.id);
    expect(await ids({ delivery: "pending" })).toEqual([pendingNew.id, pendingOld.id]);
    expect(await ids({ delivery: "delivered" })).toEqual([deliveredNew.id, deliveredOld.id]);
    expect(await ids({ delivery: "failed" })).toEqual([failedOld.id]);
    expect(await ids({ delivery: "pending" }, 1)).toEqual([pendingNew.id]);
    expect(await ids({ delivery: "pending", after: pendingNew.id })).toEqual([pendingOld.id]);
    expect(await ids({ receiptId: recordId, delivery: "pending" })).toEqual([pendingNew.id, pendingOld.id]);
    expect(await ids({ type: "receipt.paid", delivery: "delivered" })).toEqual([deliveredNew.id, deliveredOld.id]);
    expect(await ids({})).toEqual([deliveredNew.id, pendingNew.id, failedOld.id, deliveredOld.id, pendingOld.id]);
    expect((await listLoggedEvents(env, { delivery: "pending", limit: 1 })).hasMore).toBe(true);
  });

  it("an event logged after the walk passed its id (a drain minutes late) is logged watched, so the sweep still finds it", async () => {
    receiver();
    const queue = queueSpy();
    const start = Date.UTC(2003, 0, 1);
    const recordId = newRecordId();
    const db = await recordEventsDb(recordId);
    const [late, onTime] = [eventAt(start, recordId), eventAt(start + 60_000, recordId)];
    await recordEvents(db, [onTime], start + 60_000);
    await recordDeliveries(db, [{ id: onTime.id, status: 204, at: start + 60_001 }]);
    await sweepEvents(env, start + 10 * 60_000);
    // Its drain failed and was retried: logged 10 minutes after it was made, behind the walk's cursor.
    await recordEvents(db, [late], start + 10 * 60_000);
    expect(await watched(db, late.id)).toBe(1);
    // Its message lost: the sweep queues it again once its first attempt is overdue.
    await sweepEvents(env, start + 12 * 60_000);
    expect(queue.sent.map((message) => message.id)).toContain(late.id);
  });

  it("retention's walk never leaves an event it passes out of sight: one still pending is watched, and pruned in its own window", async () => {
    const start = Date.UTC(2004, 0, 1);
    const recordId = newRecordId();
    const db = await recordEventsDb(recordId);
    const event = eventAt(start, recordId);
    await recordEvents(db, [event], start);
    // A delivered window shorter than the sweep's stale cutoff: retention's walk passes it before the sweep's.
    await pruneDelivered(db, 1, 100, start + 10);
    expect(await watched(db, event.id)).toBe(1);
    await recordDeliveries(db, [{ id: event.id, status: 204, at: start + 20 }]);
    // Watched, so the range of events_watched prunes it as delivered; the walk, past it, would not.
    await pruneDelivered(db, 1, 100, start + 30);
    expect(await watched(db, event.id)).toBe(1);
    await pruneWatched(db, "delivered", 1, 100, start + 30);
    expect((await listLoggedEvents(env, { receiptId: recordId, limit: 20 })).rows).toEqual([]);
  });
});

describe("events/list by type, in rows read", () => {
  it("reads a page of a common type at about the page over its share of the log, and of a rare one at about the page", async () => {
    // 100 payments in production's mix, one after another: created, then paid (75), cancelled (20: left unpaid) or held (5).
    const epoch = Date.UTC(2005, 0, 1);
    const recordId = newRecordId();
    const db = await recordEventsDb(recordId);
    const events = [];
    for (let i = 0; i < 100; i++) {
      const then: EventType = i % 20 < 15 ? "receipt.paid" : i % 20 < 19 ? "receipt.cancelled" : "receipt.held";
      for (const [j, type] of (["receipt.created", then] as const).entries()) {
        const at = epoch + 10 * i + j;
        events.push({ ...makeEvent(newRecordId(), { type }), id: `evt_${ulid(at)}`, created: at });
      }
    }
    keepBodies(events);
    await recordEvents(db, events, epoch);
    let read = 0;
    const metered = new Proxy(db, {
      get(target, key) {
        if (key === "prepare")
          return (sql: string) => {
            const statement = target.prepare(sql);
            return {
              bind: (...values: unknown[]) => ({
                all: async () => {
                  const result = await statement.bind(...values).all();
                  read += result.meta.rows_read ?? 0;
                  return result;
                },
              }),
            };
          };
        return Reflect.get(target, key);
      },
    }) as D1Database;
    const after = `evt_${ulid(epoch + 10_000)}`;
    const limit = 10;
    const pageOf = async (type: EventType) => {
      read = 0;
      const { rows } = await listEvents(metered, { type, after, limit });
      expect(rows.map((row) => row.type)).toEqual(Array(rows.length).fill(type));
      return { rows: rows.length, read };
    };
    const measured: Record<string, { rows: number; read: number }> = {};
    for (const type of ["receipt.created", "receipt.paid", "receipt.cancelled", "receipt.held"] as const) measured[type] = await pageOf(type);
    console.log(JSON.stringify({ event: "events_list_rows_read", limit, measured }));
    // The page and one more over the type's share of the 200 events (1/2, 3/8, 1/10), and a few rows more; and the
    // page and one more passed up through the levels of the UNION ALL over the log's tables (the slots
    // are empty here), as D1 counts rows read.
    const merged = 3 * (limit + 1);
    expect(measured["receipt.created"]!.read).toBeLessThanOrEqual(2 * (limit + 1) + merged + 5);
    expect(measured["receipt.paid"]!.read).toBeLessThanOrEqual((8 / 3) * (limit + 1) + merged + 5);
    expect(measured["receipt.cancelled"]!.read).toBeLessThanOrEqual(10 * (limit + 1) + merged + 5);
    // A rare type by its index: its own events (and those of older tests' of that type), never the others between.
    expect(measured["receipt.held"]!.rows).toBe(5);
    expect(measured["receipt.held"]!.read).toBeLessThanOrEqual(2 * (limit + 1) + merged + 5);
    await db
      .prepare(`DELETE FROM events WHERE id >= ?1 AND id < ?2`)
      .bind(`evt_${ulid(epoch)}`.slice(0, 14), after)
      .run();
  });
});

describe("events/list's statements", () => {
  it("read an index or a range of the log by the filter, never the whole log for a status the log seldom holds", async () => {
    const plans: Record<string, string> = {};
    /** The database as listEvents sees it, keeping each statement's plan instead of running it. */
    const planning = (name: string) =>
      new Proxy(env.DB, {
        get(target, key) {
          if (key !== "prepare") return Reflect.get(target, key);
          return (sql: string) => ({
            bind: (...values: unknown[]) => ({
              all: async () => {
                const { results } = await target
                  .prepare(`EXPLAIN QUERY PLAN ${sql}`)
                  .bind(...values)
                  .all<{ detail: string }>();
                plans[name] = results.map((row) => row.detail).join(" | ");
                return { results: [] };
              },
            }),
          });
        },
      }) as D1Database;
    await listEvents(planning("failed"), { delivery: "failed", limit: 20 });
    await listEvents(planning("pending"), { delivery: "pending", after: "evt_01", limit: 20 });
    await listEventsIn(planning("record"), [`evt_${ulid()}`, `evt_${ulid()}`], { delivery: "pending", limit: 20 });
    await listEvents(planning("type"), { type: "receipt.held", limit: 20 });
    await listEvents(planning("typeFailed"), { type: "receipt.held", delivery: "failed", limit: 20 });
    // Every type, alone, after an event, and with `delivered`: a rare one by events_by_type, a common one by walking the log.
    for (const type of Object.keys(EVENT_TYPE_CODES) as EventType[]) {
      await listEvents(planning(`${type}`), { type, limit: 20 });
      await listEvents(planning(`${type} after`), { type, after: `evt_${ulid()}`, limit: 20 });
      await listEvents(planning(`${type} delivered`), { type, delivery: "delivered", after: `evt_${ulid()}`, limit: 20 });
    }
    // The steps of a plan that read a table of the log (each table's part of the UNION ALL, merged by id): each is
    // exactly the read named here, of every table in turn, and none scans a table beyond its own page.
    const steps = (plan: string | undefined) => (plan ?? "").split(" | ").filter((step) => /^(SCAN|SEARCH) events(_\d)?( |$)/.test(step));
    const everyTable = (...reads: ((table: string) => string)[]) => EVENT_TABLES.flatMap((table) => reads.map((read) => read(table)));
    expect(plans.failed).toMatch(/^MERGE \(UNION ALL\)/);
    expect(steps(plans.failed)).toEqual(everyTable((t) => `SEARCH ${t} USING INDEX ${t}_watched (status=?)`));
    // The watched pending ones from the index; the fresh ones from the log's newest part, ahead of the walk.
    expect(steps(plans.pending)).toEqual(
      everyTable(
        (t) => `SEARCH ${t} USING INDEX ${t}_watched (status=? AND id<?)`,
        (t) => `SEARCH ${t} USING PRIMARY KEY (id>? AND id<?)`,
      ),
    );
    // A record's events by the ids it keeps: each by primary key, no other row.
    expect(steps(plans.record)).toEqual(everyTable((t) => `SEARCH ${t} USING PRIMARY KEY (id=?)`));
    expect(steps(plans.type)).toEqual(everyTable((t) => `SEARCH ${t} USING INDEX ${t}_by_type (type=?)`));
    const rare = [
      "receipt.held",
      "receipt.awaiting_supplier",
      "receipt.otp_attempts_exhausted",
      "transfer.cancelled",
      "transfer.otp_attempts_exhausted",
    ];
    const common = ["receipt.created", "receipt.paid", "receipt.cancelled", "transfer.created", "transfer.paid", "transfer.expired"];
    for (const type of [...rare, "receipt.fiscalized", "receipt.refund_fiscalized"]) {
      expect(steps(plans[type])).toEqual(everyTable((t) => `SEARCH ${t} USING INDEX ${t}_by_type (type=?)`));
      expect(steps(plans[`${type} after`])).toEqual(everyTable((t) => `SEARCH ${t} USING INDEX ${t}_by_type (type=? AND id<?)`));
      expect(steps(plans[`${type} delivered`])).toEqual(everyTable((t) => `SEARCH ${t} USING INDEX ${t}_by_type (type=? AND id<?)`));
    }
    // The release before binds the type (its list names no index): SQLite prepares the statement again with the
    // value, so a rare type still reads events_by_type after a rollback, and a common one walks the log.
    const previousPlan = async (type: EventType) => {
      const { results } = await env.DB.prepare("EXPLAIN QUERY PLAN SELECT * FROM events WHERE type = ?1 AND id < ?2 ORDER BY id DESC LIMIT ?3")
        .bind(EVENT_TYPE_CODES[type], `evt_${ulid()}`, 21)
        .all<{ detail: string }>();
      return results.map((row) => row.detail).join(" | ");
    };
    for (const type of INDEXED_TYPES) expect(await previousPlan(type)).toBe("SEARCH events USING INDEX events_by_type (type=? AND id<?)");
    for (const type of common) expect(await previousPlan(type as EventType)).toBe("SEARCH events USING PRIMARY KEY (id<?)");
    // A common type walks the log from `after` down, newest first, with no sort: it stops once the page is found.
    for (const type of common) {
      expect(steps(plans[type])).toEqual(everyTable((t) => `SCAN ${t}`));
      expect(steps(plans[`${type} after`])).toEqual(everyTable((t) => `SEARCH ${t} USING PRIMARY KEY (id<?)`));
      expect(steps(plans[`${type} delivered`])).toEqual(everyTable((t) => `SEARCH ${t} USING PRIMARY KEY (id<?)`));
    }
    // The failed ones of a type: the few failed events, not every event of the type.
    expect(steps(plans.typeFailed)).toEqual(everyTable((t) => `SEARCH ${t} USING INDEX ${t}_watched (status=?)`));
  });
});
