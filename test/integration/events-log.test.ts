/**
 * publishEvents and the event log, called directly: what the receipt
 * object's outbox relies on (a row per event, once; queued; a throw when
 * anything failed), and the list queries.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type EventMessage, publishEvents, recordIdOf } from "../../src/events";
import { listLoggedEvents } from "../../src/events/log";
import { EVENT_TABLES, recordDeadLettered, recordDeliveries } from "../../src/events/log-database";
import { sendBatches } from "../../src/events/publish";
import { SWEEP_SELECTS } from "../../src/events/sweep";
import { eventDb, eventRow, lifecycle, makeEvent, newRecordId, publishKept } from "../events";

/** A queue that records what is sent to it, or refuses while `down`. */
function recordingQueue() {
  const sent: EventMessage[] = [];
  const queue = {
    down: false,
    sent,
    async send(): Promise<never> {
      throw new Error("publishEvents sends batches");
    },
    async sendBatch(messages: Iterable<MessageSendRequest<EventMessage>>) {
      if (queue.down) throw new Error("Queue send failed: service unavailable");
      for (const message of messages) sent.push(message.body);
      return { metadata: { metrics: { backlogCount: 0, backlogBytes: 0 } } };
    },
  };
  return { queue, deployment: { ...env, EVENTS: queue } as unknown as Env };
}

async function countRows(ids: string[]): Promise<number> {
  let n = 0;
  for (const id of ids) if (await eventRow(id)) n++;
  return n;
}

describe("publishEvents", () => {
  it("logs each event as pending, with its record and kind and no body, and queues it with its body", async () => {
    const { queue, deployment } = recordingQueue();
    const receiptId = newRecordId();
    const transferId = newRecordId("a2c");
    const events = [
      ...lifecycle(receiptId, ["receipt.created", "receipt.paid"]),
      makeEvent(transferId, { type: "transfer.created", previousState: null, owner: "alice" }),
    ];
    await publishEvents(deployment, events);

    for (const event of events) {
      const row = await eventRow(event.id);
      expect(row).toMatchObject({
        record_id: recordIdOf(event),
        kind: event.type.split(".")[0],
        type: event.type,
        delivery_status: "pending",
        attempts: 0,
        last_status: null,
        last_error: null,
        delivered_at: null,
      });
      // The body is its record's (src/events/bodies.ts): the log keeps the delivery only.
      expect(row).not.toHaveProperty("body");
    }
    expect((await eventRow(events[2]!.id))!.record_id).toBe(transferId);
    expect(queue.sent).toEqual(events.map((event) => ({ id: event.id, payload: JSON.stringify(event) })));
  });

  it("a re-drain after a crash adds no row, and queues again only what is still pending", async () => {
    const { queue, deployment } = recordingQueue();
    const events = lifecycle(newRecordId(), ["receipt.created", "receipt.paid", "receipt.cancelled"]);
    await publishEvents(deployment, events);
    await recordDeliveries(await eventDb(events[0]!.id), [{ id: events[0]!.id, status: 204, at: Date.now() }]);
    await recordDeadLettered(await eventDb(events[1]!.id), [events[1]!.id]);
    queue.sent.length = 0;

    await publishEvents(deployment, events);
    expect(await countRows(events.map((e) => e.id))).toBe(3);
    expect(queue.sent.map((m) => m.id)).toEqual([events[2]!.id]);
    expect((await eventRow(events[0]!.id))!.delivery_status).toBe("delivered");
  });

  it("throws when the queue refuses, keeping the rows; the next drain queues them", async () => {
    const { queue, deployment } = recordingQueue();
    const events = lifecycle(newRecordId(), ["receipt.created", "receipt.paid"]);
    queue.down = true;
    await expect(publishEvents(deployment, events)).rejects.toThrow("Queue send failed");
    expect(await countRows(events.map((e) => e.id))).toBe(2);

    queue.down = false;
    await publishEvents(deployment, events);
    expect(queue.sent.map((m) => m.id)).toEqual(events.map((e) => e.id));
    expect(await countRows(events.map((e) => e.id))).toBe(2);
  });

  it("throws when the log cannot be written, and queues nothing", async () => {
    const { queue } = recordingQueue();
    const statement = { bind: () => statement };
    const db = { prepare: () => statement, batch: () => Promise.reject(new Error("D1_ERROR: storage unavailable")) };
    const broken = { ...env, EVENTS: queue, DB: db, DB_TID_1: db } as unknown as Env;
    await expect(publishEvents(broken, [makeEvent(newRecordId())])).rejects.toThrow("D1_ERROR");
    expect(queue.sent).toEqual([]);
  });

  it("refuses a malformed event by name, before writing anything", async () => {
    const { queue, deployment } = recordingQueue();
    const good = makeEvent(newRecordId());
    const receiptEvent = makeEvent(newRecordId());
    const cases: [string, object][] = [
      ["its id is not evt_<ULID>", { ...makeEvent(newRecordId()), id: "evt_123" }],
      ["is not an event type", { ...makeEvent(newRecordId()), type: "receipt.refunded" }],
      ["its sequence is not a positive integer", { ...makeEvent(newRecordId()), sequence: 0 }],
      ['its data.object_type is not "transfer"', { ...makeEvent(newRecordId()), type: "transfer.paid" }],
      ["has no receipt_id", { ...receiptEvent, type: "transfer.paid", data: { ...receiptEvent.data, object_type: "transfer" } }],
    ];
    for (const [problem, event] of cases) {
      await expect(publishEvents(deployment, [good, event as never])).rejects.toThrow(problem);
    }
    expect(await eventRow(good.id)).toBeNull();
    expect(queue.sent).toEqual([]);
  });

  it("writes and queues large drains in pieces within D1's and the queue's limits", async () => {
    const { queue, deployment } = recordingQueue();
    const recordId = newRecordId();
    const events = Array.from({ length: 120 }, (_, i) => makeEvent(recordId, { sequence: i + 1 }));
    await publishEvents(deployment, events);
    expect(await countRows(events.map((e) => e.id))).toBe(120);
    expect(queue.sent.map((m) => m.id)).toEqual(events.map((e) => e.id));

    const big = { id: "evt_big", payload: "x".repeat(100_000) };
    expect(sendBatches([big, big, big, big]).map((b) => b.length)).toEqual([2, 2]);
    expect(sendBatches(Array.from({ length: 250 }, () => ({ id: "e", payload: "{}" }))).map((b) => b.length)).toEqual([100, 100, 50]);
  });
});

describe("listEvents", () => {
  it("answers newest first, pages with after and has_more, and filters by record, type and delivery", async () => {
    const { deployment } = recordingQueue();
    const recordId = newRecordId();
    const events = lifecycle(recordId, ["receipt.created", "receipt.awaiting_supplier", "receipt.paid", "receipt.cancelled", "receipt.created"]);
    // As a record publishes them: it keeps each one (its id and body), and events/list by record reads those ids.
    await publishKept(events, deployment);
    await publishKept(lifecycle(newRecordId(), ["receipt.created"]), deployment);
    await recordDeliveries(await eventDb(events[0]!.id), [{ id: events[0]!.id, status: 200, at: Date.now() }]);
    const newestFirst = events.map((e) => e.id).reverse();

    const ids = async (query: Parameters<typeof listLoggedEvents>[1]) => {
      const { rows, hasMore } = await listLoggedEvents(env, query);
      return { ids: rows.map((r) => r.id), hasMore };
    };
    expect(await ids({ receiptId: recordId, limit: 20 })).toEqual({ ids: newestFirst, hasMore: false });
    expect(await ids({ receiptId: recordId, limit: 2 })).toEqual({ ids: newestFirst.slice(0, 2), hasMore: true });
    expect(await ids({ receiptId: recordId, limit: 2, after: newestFirst[1] })).toEqual({ ids: newestFirst.slice(2, 4), hasMore: true });
    expect(await ids({ receiptId: recordId, limit: 2, after: newestFirst[3] })).toEqual({ ids: newestFirst.slice(4), hasMore: false });
    expect(await ids({ receiptId: recordId, limit: 5 })).toEqual({ ids: newestFirst, hasMore: false });
    expect(await ids({ receiptId: recordId, type: "receipt.created", limit: 20 })).toEqual({
      ids: [events[4]!.id, events[0]!.id],
      hasMore: false,
    });
    expect(await ids({ receiptId: recordId, delivery: "delivered", limit: 20 })).toEqual({ ids: [events[0]!.id], hasMore: false });
    expect(await ids({ receiptId: recordId, delivery: "pending", type: "receipt.created", limit: 20 })).toEqual({
      ids: [events[4]!.id],
      hasMore: false,
    });
    expect(await ids({ receiptId: newRecordId(), limit: 20 })).toEqual({ ids: [], hasMore: false });
  });
});

describe("the sweep's queries", () => {
  it("scan the watched pending events of events_watched oldest first, never the log", async () => {
    const plan = async (sql: string) =>
      (await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(0, 10).all<{ detail: string }>()).results.map((r) => r.detail).join(" | ");
    for (const table of EVENT_TABLES) {
      for (const select of [SWEEP_SELECTS.expired, SWEEP_SELECTS.overdue]) {
        expect(await plan(select(table))).toMatch(new RegExp(`^SEARCH ${table} USING (COVERING )?INDEX ${table}_watched \\(status=\\?\\)$`));
      }
    }
  });
});
