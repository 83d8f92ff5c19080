/**
 * The event log as a ring of slots (src/d1/ring.ts, migrations/0010_event_log_ring.sql):
 * `events` and `events_0` .. `events_7`. Whatever table holds an event, the
 * partner lists it, resends it, gets it delivered and finds it on the day's
 * statement; the cron's turn of the ring drops a slot whole, writing no row,
 * after copying forward what is still within its window.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { ulid } from "ulid";
import { afterEach, describe, expect, it, vi } from "vitest";
import { retentionPolicy } from "../../src/config/retention-policy";
import { runRetention } from "../../src/cron/retention";
import { slotAt, slotPeriodMs, slotToEmpty } from "../../src/d1/ring";
import { SWEEP_SETTINGS, sweepEvents } from "../../src/events";
import { EVENT_TABLES, recordDeadLettered, recordDeliveries, recordEvents, recordFailedAttempt } from "../../src/events/log-database";
import { receiptStub } from "../../src/record/receipt-object";
import { clock } from "../../src/shared/clock";
import { dateIn } from "../../src/statements/days";
import {
  callGateway,
  consume,
  DEAD_LETTER_QUEUE,
  eventDb,
  eventRow,
  keepBodies,
  lifecycle,
  logRows,
  makeEvent,
  messageOf,
  newRecordId,
  publishKept,
  queueSpy,
  receiver,
  recordEventsDb,
} from "../events";
import { call, createReceipt, expectStatus, PARTNER_KEY } from "../helpers";

afterEach(() => {
  vi.restoreAllMocks();
});

const policy = retentionPolicy(env);
const period = slotPeriodMs(policy.deliveredEventsMs);

const list = (body: Record<string, unknown>) => expectStatus<any>(callGateway("events/list", body), 200);
const idsOf = (page: { events: { id: string }[] }) => page.events.map((e) => e.id);

/** Moves an event's row, wherever it is, into `table` of its database: as a later release's logging or the ring's copy would place it. */
async function moveTo(id: string, table: string, db?: D1Database, batch?: D1Database["batch"]): Promise<void> {
  const into = db ?? (await eventDb(id));
  await (batch ?? into.batch.bind(into))(
    EVENT_TABLES.filter((from) => from !== table).flatMap((from) => [
      into.prepare(`INSERT INTO ${table} SELECT * FROM ${from} WHERE id = ?1`).bind(id),
      into.prepare(`DELETE FROM ${from} WHERE id = ?1`).bind(id),
    ]),
  );
}

const sqlOf = (statement: D1PreparedStatement): string => String((statement as unknown as { statement: string }).statement);

/**
 * A turn of the ring between a read of the log and the change it leads to: before the first batch of `db`
 * whose statements include `isChange`, `id`'s row moves to `table`. Answers every batch of `db` from then on
 * (the move's own left out): each statement's SQL and the rows it wrote.
 */
function moveBeforeTheChange(db: D1Database, isChange: (sql: string) => boolean, move?: { id: string; table: string }) {
  const batches: { sql: string; rowsWritten: number }[][] = [];
  const batch = db.batch.bind(db);
  let moved = move === undefined;
  vi.spyOn(db, "batch").mockImplementation(async (statements) => {
    const sqls = statements.map(sqlOf);
    if (!moved && sqls.some(isChange)) {
      moved = true;
      await moveTo(move!.id, move!.table, db, batch);
    }
    const results = await batch(statements);
    batches.push(sqls.map((sql, i) => ({ sql, rowsWritten: results[i]!.meta.rows_written ?? 0 })));
    return results;
  });
  return batches;
}

/** The rows written by these batches, all together. */
const rowsWritten = (batches: readonly { rowsWritten: number }[][]): number => batches.flat().reduce((n, { rowsWritten }) => n + rowsWritten, 0);

/** The tables of its database holding the event. */
async function tablesHolding(id: string): Promise<string[]> {
  const db = await eventDb(id);
  const held: string[] = [];
  for (const table of EVENT_TABLES) if (await db.prepare(`SELECT 1 FROM ${table} WHERE id = ?1`).bind(id).first()) held.push(table);
  return held;
}

describe("the daily statement, over the log's tables", () => {
  it("is complete for a day whose events sit in several slots and the old table", async () => {
    const receipts = [];
    for (const amount of [110_000, 120_000, 130_000, 140_000]) {
      const receipt = await createReceipt({ merchant_id: 1003, amount });
      await expectStatus(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" } }), 200);
      await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
      receipts.push(receipt);
    }
    // Each receipt's events, into a table of their own: the old one, and three slots.
    const tables = ["events", "events_2", "events_5", "events_7"];
    for (const [i, receipt] of receipts.entries()) {
      const { events } = await list({ receipt_id: receipt.id });
      expect(events.length).toBeGreaterThan(0);
      for (const event of events) await moveTo(event.id, tables[i]!);
    }
    const date = dateIn(clock.now(), "Asia/Tashkent");
    await expectStatus(callGateway("statements/rebuild", { date }), 202);
    const builder = env.STATEMENT.get(env.STATEMENT.idFromName(date));
    while (await runDurableObjectAlarm(builder));
    const json = await (
      await exports.default.fetch(`http://gateway.test/api/v1/gateway/statements/${date}.json`, {
        headers: { authorization: `Bearer ${PARTNER_KEY}` },
      })
    ).json<any>();
    const paid = json.lines.filter((line: any) => line.change === "paid").map((line: any) => [line.id, line.amount]);
    expect(paid.sort()).toEqual(receipts.map((receipt) => [receipt.id, receipt.amount]).sort());
  });
});

describe("events/list over the log's tables", () => {
  it("answers every filter the same when the events sit in several slots and the old table as when in one", async () => {
    const recordId = newRecordId();
    const events = lifecycle(recordId, [
      "receipt.created",
      "receipt.awaiting_supplier",
      "receipt.paid",
      "receipt.held",
      "receipt.cancelled",
      "receipt.created",
    ]);
    const transfer = makeEvent(newRecordId("a2c"), { type: "transfer.paid" });
    await publishKept([...events, transfer]);
    await recordDeliveries(await eventDb(events[0]!.id), [{ id: events[0]!.id, status: 200, at: 1_700_000_000_000 }]);
    await recordDeliveries(await eventDb(events[2]!.id), [{ id: events[2]!.id, status: 204, at: 1_700_000_000_001 }]);
    await recordDeadLettered(await eventDb(events[4]!.id), [events[4]!.id]);
    await recordFailedAttempt(await eventDb(events[1]!.id), events[1]!.id, { status: 502, error: "HTTP 502", nextAttemptAt: Date.now() + 60_000 });
    const ids = events.map((event) => event.id);
    const queries: Record<string, unknown>[] = [
      { receipt_id: recordId },
      { receipt_id: recordId, limit: 2 },
      { receipt_id: recordId, limit: 2, after: ids[4] },
      { receipt_id: recordId, type: "receipt.created" },
      { receipt_id: recordId, delivery: "pending" },
      { receipt_id: recordId, delivery: "delivered", type: "receipt.paid" },
      { type: "receipt.created", limit: 3 },
      { type: "receipt.held", limit: 100 },
      { type: "transfer.paid", limit: 100 },
      { type: "receipt.awaiting_supplier", after: ids[5], limit: 100 },
      { delivery: "pending", limit: 100 },
      { delivery: "delivered", limit: 100 },
      { delivery: "failed", limit: 100 },
      { delivery: "failed", type: "receipt.cancelled", limit: 100 },
      { limit: 4 },
      { after: ids[3], limit: 3 },
    ];
    const answers = async () => Promise.all(queries.map((query) => list(query)));
    const inOne = await answers();
    // Not vacuous: the record's page holds all its events, each filter some of them.
    expect(idsOf(inOne[0])).toEqual([...ids].reverse());
    expect(idsOf(inOne[12])).toContain(ids[4]);
    expect(idsOf(inOne[8])).toContain(transfer.id);

    const spread = ["events_7", "events", "events_3", "events_0", "events_7", "events_5"];
    for (const [i, id] of ids.entries()) await moveTo(id, spread[i]!);
    await moveTo(transfer.id, "events_6");
    expect(await tablesHolding(ids[0]!)).toEqual(["events_7"]);

    expect(await answers()).toEqual(inOne);
  });
});

describe("an event's row in any table", () => {
  it("is logged into the slot of the ring written now, and nowhere else", async () => {
    const [event] = lifecycle(newRecordId(), ["receipt.created"]);
    const at = clock.shared();
    await publishKept([event!]);
    expect(await tablesHolding(event!.id)).toEqual([`events_${slotAt(at, period)}`]);
  });

  it("is logged by a drain in one statement an event and no read; a drain again reads the status of those logged before", async () => {
    const recordId = newRecordId();
    const events = lifecycle(recordId, ["receipt.created", "receipt.paid"]);
    keepBodies(events);
    const db = await recordEventsDb(recordId);
    const prepared: string[] = [];
    const prepare = db.prepare.bind(db);
    vi.spyOn(db, "prepare").mockImplementation((sql: string) => {
      prepared.push(sql.trim().split(/\s+/)[0]!);
      return prepare(sql);
    });
    const queued = (answer: { id: string }[]) => answer.map(({ id }) => id);
    expect(queued(await recordEvents(db, events))).toEqual(events.map((event) => event.id));
    expect(prepared).toEqual(["INSERT", "INSERT"]);

    // The first delivered meanwhile: a drain again (it had not marked them logged) queues only the second.
    await recordDeliveries(db, [{ id: events[0]!.id, status: 204, at: Date.now() }]);
    prepared.length = 0;
    expect(queued(await recordEvents(db, events))).toEqual([events[1]!.id]);
    expect(prepared).toEqual(["INSERT", "INSERT", "SELECT"]);
    vi.restoreAllMocks();
    for (const event of events) expect(await tablesHolding(event.id)).toHaveLength(1);
  });

  it("logged again by a drain that ran again, is still one row, wherever it sits; its delivery mark and a resend find it there", async () => {
    const [event] = lifecycle(newRecordId(), ["receipt.paid"]);
    await publishKept([event!]);
    await moveTo(event!.id, "events_7");
    const db = await eventDb(event!.id);
    // The record's drain again (it had not marked the event logged): the event is still pending, so it is queued again.
    expect(await recordEvents(db, [event!])).toEqual([{ id: event!.id, payload: JSON.stringify(event) }]);
    expect(await tablesHolding(event!.id)).toEqual(["events_7"]);

    // Delivered: the queue consumer marks it where it is.
    receiver(() => new Response(null, { status: 204 }));
    await consume([{ body: { id: event!.id, payload: JSON.stringify(event) } }]);
    expect(await eventRow(event!.id)).toMatchObject({ delivery_status: "delivered", attempts: 1, last_status: 204 });
    // Resent by the partner: pending again, queued, and delivered once more.
    const { sent } = queueSpy();
    expect(await expectStatus(callGateway("events/resend", { id: event!.id }), 200)).toEqual(event);
    expect(await eventRow(event!.id)).toMatchObject({ delivery_status: "pending" });
    await consume(sent.map((body) => ({ body })));
    expect(await eventRow(event!.id)).toMatchObject({ delivery_status: "delivered", attempts: 2 });
    expect(await tablesHolding(event!.id)).toEqual(["events_7"]);
  });
});

describe("a change by id where the consumer's or resend's read found the row", () => {
  /** A logged event of a fresh record, in the slot written now, and another table of the log to move it to. */
  async function loggedEvent(type: "receipt.paid" | "receipt.created" = "receipt.paid") {
    const [event] = lifecycle(newRecordId(), [type]);
    await publishKept([event!]);
    const [table] = await tablesHolding(event!.id);
    const other = EVENT_TABLES.find((one) => one !== table && one !== "events")!;
    return { event: event!, db: await eventDb(event!.id), table: table!, other };
  }

  it("marks a delivery on that table alone, one statement; on every table only if a turn moved the row meanwhile, and once", async () => {
    const stays = await loggedEvent();
    const moves = await loggedEvent();
    receiver(() => new Response(null, { status: 204 }));

    const still = moveBeforeTheChange(stays.db, (sql) => sql.includes("SET status = 1"));
    await consume([{ body: messageOf(stays.event) }]);
    vi.restoreAllMocks();
    expect(still.map((batch) => batch.map(({ sql }) => sql.match(/^UPDATE (\w+)/)?.[1]))).toEqual([[stays.table]]);
    expect(rowsWritten(still)).toBe(1);
    expect(await eventRow(stays.event.id)).toMatchObject({ delivery_status: "delivered", attempts: 1, last_status: 204 });

    receiver(() => new Response(null, { status: 204 }));
    const moved = moveBeforeTheChange(moves.db, (sql) => sql.includes("SET status = 1"), { id: moves.event.id, table: moves.other });
    await consume([{ body: messageOf(moves.event) }]);
    vi.restoreAllMocks();
    expect(await eventRow(moves.event.id)).toMatchObject({ delivery_status: "delivered", attempts: 1, last_status: 204 });
    expect(await tablesHolding(moves.event.id)).toEqual([moves.other]);
    // Where the read found it (no row now), then on every table: the one holding it writes it, once.
    expect(moved.map((batch) => batch.length)).toEqual([1, EVENT_TABLES.length]);
    expect(rowsWritten(moved)).toBe(1);
  });

  it("marks a batch's deliveries where each was read, and each once, when a turn moved one of them meanwhile", async () => {
    const recordId = newRecordId();
    const events = lifecycle(recordId, ["receipt.created", "receipt.paid", "receipt.cancelled"]);
    await publishKept(events);
    const db = await eventDb(events[0]!.id);
    const [table] = await tablesHolding(events[0]!.id);
    const other = EVENT_TABLES.find((one) => one !== table && one !== "events")!;
    receiver(() => new Response(null, { status: 204 }));
    const batches = moveBeforeTheChange(db, (sql) => sql.includes("SET status = 1"), { id: events[1]!.id, table: other });
    await consume(events.map((event) => ({ body: messageOf(event) })));
    vi.restoreAllMocks();
    expect(batches.map((batch) => batch.length)).toEqual([1, EVENT_TABLES.length]);
    expect(rowsWritten(batches)).toBe(3);
    for (const event of events) expect(await eventRow(event.id)).toMatchObject({ delivery_status: "delivered", attempts: 1, last_status: 204 });
  });

  it("counts a failed attempt and writes its attempt's row once, when a turn moved the row between the read and the write", async () => {
    const { event, db, other } = await loggedEvent();
    receiver(() => new Response("down", { status: 503 }));
    const batches = moveBeforeTheChange(db, (sql) => sql.includes("SET attempts = attempts + 1"), { id: event.id, table: other });
    await consume([{ body: messageOf(event) }]);
    vi.restoreAllMocks();
    expect(batches.map((batch) => batch.length)).toEqual([2, EVENT_TABLES.length + 1]);
    // The event's row and its attempt's, once each.
    expect(rowsWritten(batches)).toBe(2);
    expect(await tablesHolding(event.id)).toEqual([other]);
    expect(await eventRow(event.id)).toMatchObject({ delivery_status: "pending", attempts: 1, last_status: 503 });
    expect((await db.prepare("SELECT seq, status FROM event_attempts WHERE event_id = ?1").bind(event.id).all()).results).toEqual([
      { seq: 1, status: 503 },
    ]);
  });

  it("marks a dead letter failed, when a turn moved the row between the read and the write", async () => {
    const { event, db, other } = await loggedEvent();
    const batches = moveBeforeTheChange(db, (sql) => sql.includes("SET status = 2"), { id: event.id, table: other });
    await consume([{ body: messageOf(event) }], { queue: DEAD_LETTER_QUEUE });
    vi.restoreAllMocks();
    expect(batches.map((batch) => batch.length)).toEqual([1, EVENT_TABLES.length]);
    // The event's row once, and its entry in the table's index of watched events.
    expect(rowsWritten(batches)).toBe(2);
    expect(await tablesHolding(event.id)).toEqual([other]);
    expect(await eventRow(event.id)).toMatchObject({ delivery_status: "failed" });
    // Watched, where events/list by failed finds it.
    expect(await logRows(db, "watched", "id = ?1", event.id)).toEqual([{ watched: 1 }]);
  });

  it("claims an overdue event for the sweep where it was read; one a turn moved meanwhile, by the next run where it went, and queues it once", async () => {
    const now = Date.UTC(2007, 0, 1) + 54_321;
    const made = now - 120_000;
    const recordId = newRecordId();
    const event = { ...makeEvent(recordId, { type: "receipt.paid" }), id: `evt_${ulid(made)}`, created: made };
    keepBodies([event]);
    const db = await recordEventsDb(recordId);
    // Logged a minute before `now` (a drain that came late), watched: its first attempt is overdue at `now`.
    await recordEvents(db, [event], now - 60_000, "events_2");
    await db.prepare("UPDATE events_2 SET watched = 1 WHERE id = ?1").bind(event.id).run();
    const { sent } = queueSpy();
    const batches = moveBeforeTheChange(db, (sql) => sql.includes("SET next_attempt_at = ?3"), { id: event.id, table: "events_6" });
    expect(await sweepEvents(env, now, SWEEP_SETTINGS.development)).toMatchObject({ requeued: 0 });
    // The claim on the table read, one statement: it found no row there, so nothing is queued; the event is still overdue.
    expect(batches.at(-1)!.map(({ sql }) => sql.match(/^UPDATE (\w+)/)?.[1])).toEqual(["events_2"]);
    expect(sent).toEqual([]);
    expect(await sweepEvents(env, now + 1_000, SWEEP_SETTINGS.development)).toMatchObject({ requeued: 1 });
    vi.restoreAllMocks();
    expect(sent.map((message) => message.id)).toEqual([event.id]);
    expect(batches.at(-1)!.map(({ sql }) => sql.match(/^UPDATE (\w+)/)?.[1])).toEqual(["events_6"]);
    expect(await tablesHolding(event.id)).toEqual(["events_6"]);
    expect(await logRows(db, "next_attempt_at", "id = ?1", event.id)).toEqual([{ next_attempt_at: now + 1_000 }]);
  });

  it("puts a resent event back to pending, when a turn moved the row between the read and the write", async () => {
    const { event, db, table, other } = await loggedEvent();
    await recordDeliveries(db, [{ id: event.id, status: 204, at: Date.now(), table }]);
    const { sent } = queueSpy();
    const batches = moveBeforeTheChange(db, (sql) => sql.includes("SET status = 0"), { id: event.id, table: other });
    expect(await expectStatus(callGateway("events/resend", { id: event.id }), 200)).toEqual(event);
    vi.restoreAllMocks();
    expect(batches.map((batch) => batch.length)).toEqual([1, EVENT_TABLES.length]);
    // The event's row once, and its entry in the table's index of watched events.
    expect(rowsWritten(batches)).toBe(2);
    expect(await tablesHolding(event.id)).toEqual([other]);
    expect(await eventRow(event.id)).toMatchObject({ delivery_status: "pending", attempts: 1 });
    expect(sent.map((message) => message.id)).toEqual([event.id]);
  });
});

describe("the ring's turn", () => {
  it("drops the slot the next period writes to, writing no row; what is within its window moves to the slot written now, is listed, swept and delivered", async () => {
    // A time of this test's own, at which the cron empties a slot; the events were made past the delivered window.
    const now = Date.UTC(2006, 0, 1) + 12_345;
    const victim = `events_${slotToEmpty(now, period)}`;
    const current = `events_${slotAt(now, period)}`;
    const made = now - policy.deliveredEventsMs - 60_000;
    const recordId = newRecordId();
    const [delivered, failed, pending] = ["receipt.created", "receipt.paid", "receipt.held"].map((type, i) => ({
      ...makeEvent(recordId, { type: type as "receipt.paid" }),
      id: `evt_${ulid(made + i)}`,
      created: made + i,
    }));
    keepBodies([delivered!, failed!, pending!]);
    await publishKept([delivered!, failed!]);
    const db = await eventDb(delivered!.id);
    // Logged a minute ago (a drain that came late): its first attempt is overdue at `now`, within the sweep's horizon.
    await recordEvents(db, [pending!], now - 60_000);
    // Earlier tests' events in that slot, all made today: within their window, so copied too.
    const before = (await db.prepare(`SELECT COUNT(*) AS n FROM ${victim}`).first<number>("n")) ?? 0;
    for (const event of [delivered!, failed!, pending!]) await moveTo(event.id, victim);
    await recordDeliveries(db, [{ id: delivered!.id, status: 204, at: made + 1000 }]);
    await recordDeadLettered(db, [failed!.id]);

    // Every batch the turn runs, with each statement's SQL and its result.
    const batches: { sql: string; rowsWritten: number; changes: number }[][] = [];
    const batch = db.batch.bind(db);
    const spy = vi.spyOn(db, "batch").mockImplementation(async (statements) => {
      const results = await batch(statements);
      batches.push(
        statements.map((statement, i) => ({
          sql: String((statement as unknown as { statement: string }).statement),
          rowsWritten: results[i]!.meta.rows_written ?? 0,
          changes: results[i]!.meta.changes ?? 0,
        })),
      );
      return results;
    });
    const report = await runRetention(env, now);
    spy.mockRestore();

    expect(report.event_slots_emptied).toBeGreaterThanOrEqual(1);
    const turn = batches.find((statements) => statements.some(({ sql }) => sql === `DROP TABLE ${victim}`))!;
    expect(turn.find(({ sql }) => sql === `DROP TABLE ${victim}`)!.rowsWritten).toBe(0);
    // The two still within their window, copied; the delivered one, past its window, gone with the slot.
    expect(turn.find(({ sql }) => sql.startsWith(`INSERT INTO ${current} SELECT * FROM ${victim}`))!.changes).toBe(before + 2);
    expect(await eventRow(delivered!.id)).toBeNull();
    expect(await tablesHolding(failed!.id)).toEqual([current]);
    expect(await tablesHolding(pending!.id)).toEqual([current]);
    expect(await db.prepare(`SELECT COUNT(*) AS n FROM ${victim}`).first("n")).toBe(0);

    // Still listed by their status.
    expect(idsOf(await list({ delivery: "failed", limit: 100 }))).toContain(failed!.id);
    expect(idsOf(await list({ delivery: "pending", limit: 100 }))).toContain(pending!.id);
    expect(idsOf(await list({ receipt_id: recordId }))).toEqual([pending!.id, failed!.id]);

    // Still swept: the pending one is queued again and delivered.
    const { sent } = queueSpy();
    receiver(() => new Response(null, { status: 204 }));
    expect(await sweepEvents(env, now, SWEEP_SETTINGS.development)).toMatchObject({ requeued: 1 });
    expect(sent.map((message) => message.id)).toEqual([pending!.id]);
    await consume(sent.map((body) => ({ body })));
    expect(await eventRow(pending!.id)).toMatchObject({ delivery_status: "delivered", attempts: 1 });
  });

  it("leaves an empty slot as it is, and never the slot written now", async () => {
    const now = Date.UTC(2006, 6, 1);
    const victim = `events_${slotToEmpty(now, period)}`;
    const [event] = lifecycle(newRecordId(), ["receipt.paid"]);
    await publishKept([event!]);
    await moveTo(event!.id, `events_${slotAt(now, period)}`);
    const db = await eventDb(event!.id);
    await db.prepare(`DELETE FROM ${victim}`).run();
    const statements: string[] = [];
    const prepare = db.prepare.bind(db);
    const spy = vi.spyOn(db, "prepare").mockImplementation((sql: string) => {
      statements.push(sql);
      return prepare(sql);
    });
    await runRetention(env, now);
    // Its database's empty slot: one read of a row, nothing dropped.
    expect(statements.filter((sql) => sql.includes(`FROM ${victim}`))).toEqual([`SELECT 1 AS taken FROM ${victim} LIMIT 1`]);
    expect(statements.filter((sql) => sql.startsWith("DROP TABLE"))).toEqual([]);
    spy.mockRestore();
    expect(await tablesHolding(event!.id)).toEqual([`events_${slotAt(now, period)}`]);
  });
});
