// Where an event's body lives (docs/events.md): the D1 event log keeps each
// event's delivery and no body; the record that produced the event keeps the
// body in its outbox once logged, and events/list, events/resend and the
// sweep take it from there, byte for byte as the receiver got it. A body found
// nowhere is never invented and never a 500.
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { encodeTime } from "ulid";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DAY_MS } from "../../src/config/retention-policy";
import { EVENT_TYPE_CODES, pruneDelivered } from "../../src/events/log-database";
import { storedEvents } from "../../src/record/outbox-rows";
import { receiptStub } from "../../src/record/receipt-object";
import { callGateway, consume, logRows, newRecordId, queueSpy, receiver, recordEventsDb } from "../events";
import { call, createReceipt, expectError, expectStatus } from "../helpers";

const TOKEN = { token: "tok_sandbox_ok" };

let queue: ReturnType<typeof queueSpy>;
beforeEach(() => {
  queue = queueSpy();
});
afterEach(() => vi.restoreAllMocks());

/** A paid receipt whose two events are logged (the outbox drained) and delivered: what the receiver got, by event id. */
async function deliveredReceipt(): Promise<{ id: string; received: Map<string, string> }> {
  const receipt = await createReceipt({ merchant_id: 1003 });
  await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }), 200);
  await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
  const got = receiver();
  await consume(queue.sent.splice(0).map((body) => ({ body })));
  return { id: receipt.id, received: new Map(got.map((delivery) => [delivery.headers["webhook-id"]!, delivery.body])) };
}

/** The event as the API shows it, without its delivery status, as JSON text. */
const bodyOf = ({ delivery: _delivery, ...event }: Record<string, unknown>) => JSON.stringify(event);

describe("event bodies from their records", () => {
  it("an event logged from the outbox is listed and resent with the very bytes the receiver got, the log holding no body", async () => {
    const { id, received } = await deliveredReceipt();
    expect(received.size).toBe(2);
    // The log holds no body for them: only the record does.
    const rows = await logRows(await recordEventsDb(id), "*", "record_id = ?1", id);
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(Object.values(row)).not.toContain(received.get(String(row.id)));

    const { events } = await expectStatus(callGateway("events/list", { receipt_id: id }), 200);
    expect(events.map((event: { type: string; delivery: { status: string } }) => [event.type, event.delivery.status])).toEqual([
      ["receipt.paid", "delivered"],
      ["receipt.created", "delivered"],
    ]);
    for (const event of events) expect(bodyOf(event)).toBe(received.get(event.id));

    // Resent: answered and delivered again with the same bytes.
    const paid = events[0];
    const resent = await expectStatus(callGateway("events/resend", { id: paid.id }), 200);
    expect(JSON.stringify(resent)).toBe(received.get(paid.id));
    const again = receiver();
    await consume(queue.sent.splice(0).map((body) => ({ body })));
    expect(again.map((delivery) => delivery.body)).toEqual([received.get(paid.id)]);
  });

  it("an event kept or queued before data.object_type existed is listed, resent and delivered with it, every other byte as the receiver got it", async () => {
    const { id, received } = await deliveredReceipt();
    const older = (body: string) => body.replace('"data":{"object_type":"receipt",', '"data":{');
    const stub = receiptStub(env, "receipt", id);
    // The record's events as a gateway before data.object_type kept them.
    await runInDurableObject(stub, (_instance, state) => {
      const sql = state.storage.sql;
      const events = storedEvents(sql.exec<{ events: string; body: string; answer: string | null }>("SELECT events, body, answer FROM record").one());
      expect(events.map(([, body]) => older(body) !== body)).toEqual([true, true]);
      sql.exec("UPDATE record SET events = ?", JSON.stringify(events.map(([eventId, body]) => [eventId, older(body)])));
    });
    await evictDurableObject(stub);

    const { events } = await expectStatus(callGateway("events/list", { receipt_id: id }), 200);
    expect(events.map((event: { data: { object_type: string } }) => event.data.object_type)).toEqual(["receipt", "receipt"]);
    for (const event of events) expect(bodyOf(event)).toBe(received.get(event.id));
    const paid = events[0];
    expect(JSON.stringify(await expectStatus(callGateway("events/resend", { id: paid.id }), 200))).toBe(received.get(paid.id));

    // A message queued before the field existed (the resend's stands for it) is delivered with it.
    queue.sent.splice(0);
    const got = receiver();
    await consume([{ body: { id: paid.id, payload: older(received.get(paid.id)!) } }]);
    expect(got.map((delivery) => delivery.body)).toEqual([received.get(paid.id)]);
  });

  it("a body found nowhere (its record gone) is left out of the list and resent as 404, never a 500 and never invented", async () => {
    const { id } = await deliveredReceipt();
    const { events } = await expectStatus(callGateway("events/list", { receipt_id: id }), 200);
    await runInDurableObject(receiptStub(env, "receipt", id), async (_instance, state) => {
      await state.storage.deleteAlarm();
      await state.storage.deleteAll();
    });
    await evictDurableObject(receiptStub(env, "receipt", id));
    const errors = vi.spyOn(console, "error");
    expect(await expectStatus(callGateway("events/list", { receipt_id: id }), 200)).toEqual({ events: [], has_more: false });
    await expectError(callGateway("events/resend", { id: events[0].id }), 404, "not_found");
    expect(queue.sent).toEqual([]);
    expect(errors.mock.calls.flat().join("\n")).toContain("event_body_missing");
  });
});

describe("the event log's space (rule 10)", () => {
  it("pruned past its window, its pages are reused: inserting as many again does not grow the database", async () => {
    const db = env.DB;
    // The database's size in pages as D1 reports it (meta.size_after), never after a VACUUM.
    const size = async () => (await db.prepare("SELECT 1").run()).meta.size_after;
    const start = Date.UTC(2001, 0, 1);
    const round = async (from: number) => {
      // As the drain logs them and the consumer marks them delivered: rows only, the bodies kept by their
      // records, in no index but the type's. 2,000 events over 2,000 ms.
      const statements = Array.from({ length: 2000 }, (_, i) =>
        db
          .prepare("INSERT INTO events (id, record_id, type, status, next_attempt_at, pending_since) VALUES (?1, ?2, ?3, 1, ?4, ?4)")
          .bind(`evt_${encodeTime(from + i, 10)}${"0".repeat(16)}`, newRecordId(), EVENT_TYPE_CODES["receipt.paid"], from + i),
      );
      await db.batch(statements);
    };
    const empty = await size();
    await round(start);
    const full = await size();
    expect(await pruneDelivered(db, DAY_MS, 5000, start + 2 * DAY_MS)).toEqual({ removed: 2000, more: false });
    await round(start + 3 * DAY_MS);
    // The second round lands in the freed pages: the database grows by at most a page or two where
    // random keys split an index page differently, never by the ~75 pages the first round took.
    expect(full - empty).toBeGreaterThan(50 * 4096);
    expect((await size()) - full).toBeLessThan((full - empty) / 20);
  });
});
