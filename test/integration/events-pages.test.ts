/**
 * The queue consumer on pages (a message of many events, src/events/pager.ts)
 * beside messages of one event, called as the queue calls it: what the
 * receiver gets, what the queue is told for each message (ack, or retry after
 * how long), and what the event log then says.
 */
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RETRY_SCHEDULES } from "../../src/events";
import type { EventMessage } from "../../src/events/types";
import { type MetricPoint, observeMetrics } from "../../src/metrics/metrics";
import { callGateway, consume, DEAD_LETTER_QUEUE, eventRow, makeEvent, messageOf, newRecordId, publishKept, receiver } from "../events";
import { expectStatus } from "../helpers";
import { printedLines } from "../support/printed-lines";

afterEach(() => {
  vi.restoreAllMocks();
});

/** `count` events of each of `records` new records, logged and kept as their drains would. */
async function published(count: number, records = 1) {
  const events = Array.from({ length: records }, () => newRecordId()).flatMap((recordId) =>
    Array.from({ length: count }, (_, i) => makeEvent(recordId, { sequence: i + 1 })),
  );
  await publishKept(events);
  return { events, messages: events.map(messageOf) };
}

const page = (messages: readonly EventMessage[]) => ({ page: [...messages] });
const webhookIds = (received: readonly { headers: Record<string, string> }[]) => received.map((d) => d.headers["webhook-id"]);

describe("a page of events", () => {
  it("delivers each event once, signed as its own message would be, marks each delivered, and acknowledges the page", async () => {
    const received = receiver();
    const { events, messages } = await published(4, 2);

    const result = await consume([{ body: page(messages) }]);

    expect(result.explicitAcks).toHaveLength(1);
    expect(result.retryMessages).toEqual([]);
    expect(webhookIds(received).sort()).toEqual(events.map((e) => e.id).sort());
    for (const delivery of received) {
      const event = events.find((e) => e.id === delivery.headers["webhook-id"]);
      expect(new Webhook(env.WEBHOOK_SECRET).verify(delivery.body, delivery.headers)).toEqual(event);
    }
    for (const event of events) expect(await eventRow(event.id)).toMatchObject({ delivery_status: "delivered", attempts: 1 });
  });

  it("one event the receiver refuses: the page is retried after the schedule's delay, and the retry POSTs only that event", async () => {
    const { events, messages } = await published(5);
    const refused = events[2]!.id;
    let down = true;
    const received = receiver((delivery) => new Response(null, { status: down && delivery.headers["webhook-id"] === refused ? 500 : 204 }));

    const first = await consume([{ body: page(messages), attempts: 1 }]);
    expect(first.explicitAcks).toEqual([]);
    expect(first.retryDelays).toEqual([RETRY_SCHEDULES.development[0]]);
    expect(received).toHaveLength(5);
    for (const event of events) {
      expect((await eventRow(event.id))!.delivery_status).toBe(event.id === refused ? "pending" : "delivered");
    }

    const second = await consume([{ body: page(messages), attempts: 2 }]);
    expect(second.retryDelays).toEqual([RETRY_SCHEDULES.development[1]]);
    // The delivered four are skipped by the log's status check: only the refused one is POSTed again.
    expect(webhookIds(received.slice(5))).toEqual([refused]);
    expect(await eventRow(refused)).toMatchObject({ delivery_status: "pending", attempts: 2, last_status: 500 });

    down = false;
    const third = await consume([{ body: page(messages), attempts: 3 }]);
    expect(third.explicitAcks).toHaveLength(1);
    expect(third.retryMessages).toEqual([]);
    expect(webhookIds(received.slice(6))).toEqual([refused]);
    expect(await eventRow(refused)).toMatchObject({ delivery_status: "delivered", attempts: 3 });
  });

  it("retried with development's schedule: the first three retries of a page's failing event within 15 s", async () => {
    receiver(() => new Response(null, { status: 503 }));
    const { messages } = await published(3);
    const delays: (number | undefined)[] = [];
    for (let attempts = 1; attempts <= 3; attempts++) delays.push((await consume([{ body: page(messages), attempts }])).retryDelays[0]);
    expect(delays).toEqual(RETRY_SCHEDULES.development.slice(0, 3));
    expect(delays.reduce((a, b) => a! + b!, 0)).toBeLessThanOrEqual(15);
  });

  it("beside messages of one event in the same batch: each message is settled on its own", async () => {
    const { events, messages } = await published(3, 2);
    const refused = events[4]!.id;
    const received = receiver((delivery) => new Response(null, { status: delivery.headers["webhook-id"] === refused ? 500 : 204 }));

    // The first record's events as one page, the second's as single messages.
    const result = await consume([{ body: page(messages.slice(0, 3)) }, ...messages.slice(3).map((body) => ({ body }))]);

    expect(received).toHaveLength(6);
    expect(result.explicitAcks).toHaveLength(3);
    expect(result.retryMessages).toHaveLength(1);
  });

  it("an event of the page already delivered by another message is not POSTed again", async () => {
    const received = receiver();
    const { events, messages } = await published(3);
    await consume([{ body: messages[1]! }]);
    expect(webhookIds(received)).toEqual([events[1]!.id]);

    const result = await consume([{ body: page(messages) }]);

    expect(result.explicitAcks).toHaveLength(1);
    expect(webhookIds(received).sort()).toEqual(events.map((e) => e.id).sort());
  });

  it("an event a page and a message of its own both carry in one batch (the sweep's copy) is POSTed once, and both are settled", async () => {
    const received = receiver();
    const { events, messages } = await published(2);
    const result = await consume([{ body: page(messages) }, { body: messages[1]! }]);
    expect(result.explicitAcks).toHaveLength(2);
    expect(webhookIds(received).sort()).toEqual(events.map((e) => e.id).sort());
  });

  it("an entry that is not an event is logged and left out; the page's events are delivered and the page acknowledged", async () => {
    const received = receiver();
    const { events, messages } = await published(2);
    const result = await consume([{ body: { page: [messages[0]!, { id: "x", payload: "not json" }, messages[1]!] } as never }]);
    expect(result.explicitAcks).toHaveLength(1);
    expect(webhookIds(received).sort()).toEqual(events.map((e) => e.id).sort());
  });
});

describe("a dead-lettered page", () => {
  it("marks each of its undelivered events failed, leaves the delivered ones delivered, and resend delivers a failed one", async () => {
    const { events, messages } = await published(3);
    const refused = events[0]!.id;
    let down = true;
    const received = receiver((delivery) => new Response(null, { status: down && delivery.headers["webhook-id"] === refused ? 500 : 204 }));
    await consume([{ body: page(messages), attempts: RETRY_SCHEDULES.development.length + 1 }]);

    const dead = await consume([{ body: page(messages) }], { queue: DEAD_LETTER_QUEUE });

    expect(dead.explicitAcks).toHaveLength(1);
    expect(received).toHaveLength(3);
    expect(await eventRow(refused)).toMatchObject({ delivery_status: "failed", last_status: 500 });
    for (const event of events.slice(1)) expect((await eventRow(event.id))!.delivery_status).toBe("delivered");

    down = false;
    await expectStatus(callGateway("events/resend", { id: refused }), 200);
    expect((await eventRow(refused))!.delivery_status).toBe("pending");
    await consume([{ body: messages[0]! }]);
    expect(webhookIds(received.slice(3))).toEqual([refused]);
    expect((await eventRow(refused))!.delivery_status).toBe("delivered");
  });

  it("tells on-call of the undelivered events alone: the delivered ones are neither abandoned in the logs nor counted given up on", async () => {
    const { events, messages } = await published(3);
    const refused = events[0]!.id;
    receiver((delivery) => new Response(null, { status: delivery.headers["webhook-id"] === refused ? 500 : 204 }));
    await consume([{ body: page(messages), attempts: RETRY_SCHEDULES.development.length + 1 }]);
    const points: MetricPoint[] = [];
    const stop = observeMetrics((point) => points.push(point));
    const lines = printedLines();

    try {
      await consume([{ body: page(messages) }], { queue: DEAD_LETTER_QUEUE });
    } finally {
      stop();
    }

    const abandoned = lines.filter((line) => line.event === "event_delivery_abandoned");
    expect(abandoned.map((line) => line.event_id)).toEqual([refused]);
    expect(points.filter((p) => p.blobs[0] === "event_failed").map((p) => p.doubles[0])).toEqual([1]);
  });
});
