/**
 * The queue consumer, called as the queue calls it (messages built with
 * createMessageBatch), against a receiver the test scripts: what the
 * partner's receiver gets, what the queue is told (ack, or retry after how
 * long), and what the event log then says.
 */
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it, vi } from "vitest";
import { publishEvents, RETRY_SCHEDULES } from "../src/events";
import { expectError, expectStatus } from "./helpers";
import { callGateway, consume, DEAD_LETTER_QUEUE, eventRow, makeEvent, messageOf, newRecordId, PRODUCTION_WEBHOOK_SECRET, PRODUCTION_WEBHOOK_URL, productionEnv, receiver } from "./events";

afterEach(() => {
  vi.restoreAllMocks();
});

async function published(count = 1) {
  const recordId = newRecordId();
  const events = Array.from({ length: count }, (_, i) => makeEvent(recordId, { sequence: i + 1 }));
  await publishEvents(env, events);
  return { recordId, events, messages: events.map(messageOf) };
}

const listEvents = (body: Record<string, unknown>) => expectStatus<any>(callGateway("events/list", body), 200);

describe("a delivery the receiver answers with 2xx", () => {
  it("is POSTed as the event's JSON, signed the Standard Webhooks way, acknowledged and marked delivered", async () => {
    const received = receiver(() => new Response(null, { status: 204 }));
    const { events, messages } = await published();
    const before = Date.now();

    const result = await consume([{ body: messages[0]! }]);

    expect(result.explicitAcks).toHaveLength(1);
    expect(result.retryMessages).toEqual([]);
    expect(received).toHaveLength(1);
    const [delivery] = received;
    expect(delivery!.url).toBe(env.WEBHOOK_URL);
    expect(delivery!.headers["content-type"]).toBe("application/json");
    expect(delivery!.headers["webhook-id"]).toBe(events[0]!.id);
    expect(Number(delivery!.headers["webhook-timestamp"])).toBeCloseTo(before / 1000, -1);
    expect(JSON.parse(delivery!.body)).toEqual(events[0]);
    expect(new Webhook(env.WEBHOOK_SECRET).verify(delivery!.body, delivery!.headers)).toEqual(events[0]);

    const row = await eventRow(events[0]!.id);
    expect(row).toMatchObject({ delivery_status: "delivered", attempts: 1, last_status: 204, last_error: null });
    expect(row!.delivered_at).toBeGreaterThanOrEqual(before);
  });

  it("delivers a batch concurrently, each message acknowledged on its own", async () => {
    const received = receiver((delivery) =>
      new Response(null, { status: JSON.parse(delivery.body).sequence === 2 ? 503 : 200 }),
    );
    const { events, messages } = await published(3);

    const result = await consume(messages.map((body) => ({ body })));

    expect(received).toHaveLength(3);
    expect(result.explicitAcks).toHaveLength(2);
    expect(result.retryMessages).toHaveLength(1);
    expect((await eventRow(events[0]!.id))!.delivery_status).toBe("delivered");
    expect((await eventRow(events[1]!.id))!).toMatchObject({ delivery_status: "pending", last_status: 503 });
    expect((await eventRow(events[2]!.id))!.delivery_status).toBe("delivered");
  });
});

describe("a delivery that fails", () => {
  it("a 500 is retried after the schedule's delays, growing, with the same webhook-id and a fresh signature", async () => {
    const received = receiver(() => new Response("receiver is down", { status: 500 }));
    const { events, messages } = await published();
    const schedule = RETRY_SCHEDULES.development;

    const delays: (number | undefined)[] = [];
    for (let attempts = 1; attempts <= 3; attempts++) {
      const result = await consume([{ body: messages[0]!, attempts }]);
      expect(result.explicitAcks).toEqual([]);
      expect(result.retryMessages).toHaveLength(1);
      delays.push(result.retryDelays[0]);
    }

    expect(delays).toEqual(schedule.slice(0, 3));
    expect(delays[0]! < delays[1]! && delays[1]! < delays[2]!).toBe(true);
    // The first three retries of development come within 15 s, so `npm run listen -- --fail 3` shows them.
    expect(delays.reduce((a, b) => a! + b!, 0)).toBeLessThanOrEqual(15);
    expect(new Set(received.map((d) => d.headers["webhook-id"]))).toEqual(new Set([events[0]!.id]));
    for (const delivery of received) expect(new Webhook(env.WEBHOOK_SECRET).verify(delivery.body, delivery.headers)).toEqual(events[0]);

    const row = await eventRow(events[0]!.id);
    expect(row).toMatchObject({ delivery_status: "pending", attempts: 3, last_status: 500, last_error: "HTTP 500: receiver is down", delivered_at: null });
  });

  it("a receiver that does not answer within WEBHOOK_TIMEOUT_MS is given up on and retried", async () => {
    const received = receiver(() => "hang");
    const { events, messages } = await published();
    const started = Date.now();

    const result = await consume([{ body: messages[0]!, attempts: 2 }]);

    expect(Date.now() - started).toBeLessThan(5_000);
    expect(received).toHaveLength(1);
    expect(result.retryMessages).toHaveLength(1);
    expect(result.retryDelays).toEqual([RETRY_SCHEDULES.development[1]]);
    expect(await eventRow(events[0]!.id)).toMatchObject({
      delivery_status: "pending",
      attempts: 1,
      last_status: null,
      last_error: `no answer within ${env.WEBHOOK_TIMEOUT_MS} ms`,
    });
  });

  it("a network error, and a redirect (never followed), are failures too", async () => {
    const redirect = new Response(null, { status: 302, headers: { location: "https://elsewhere.test/" } });
    const answers = ["network-error", redirect] as const;
    const received = receiver((_delivery, n) => answers[n - 1]!);
    const { events, messages } = await published();

    expect((await consume([{ body: messages[0]! }])).retryMessages).toHaveLength(1);
    expect((await eventRow(events[0]!.id))!.last_error).toBe("request failed: Network connection lost.");
    expect((await consume([{ body: messages[0]! }])).retryMessages).toHaveLength(1);
    expect(await eventRow(events[0]!.id)).toMatchObject({ attempts: 2, last_status: 302, last_error: "HTTP 302" });
    expect(received.map((d) => d.url)).toEqual([env.WEBHOOK_URL, env.WEBHOOK_URL]);
  });

  it("production waits a minute, then doubles, to 12 hours: more than 24 hours before the last retry", async () => {
    const received = receiver(() => new Response(null, { status: 500 }), PRODUCTION_WEBHOOK_URL);
    const { messages } = await published();
    const production = await productionEnv();
    const schedule = RETRY_SCHEDULES.production;

    const delays = [];
    for (let attempts = 1; attempts <= schedule.length; attempts++) {
      delays.push((await consume([{ body: messages[0]!, attempts }], { env: production })).retryDelays[0]);
    }
    expect(delays).toEqual([...schedule]);
    expect(delays[0]).toBe(60);
    for (let i = 1; i < delays.length; i++) expect(delays[i]!).toBeGreaterThan(delays[i - 1]!);
    expect(schedule.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(24 * 3600);
    expect(received).toHaveLength(schedule.length);
    expect(new Webhook(PRODUCTION_WEBHOOK_SECRET).verify(received[0]!.body, received[0]!.headers)).toBeTruthy();
  });
});

describe("an event whose retries are spent", () => {
  it("the dead-letter queue's consumer marks it failed and acknowledges the batch", async () => {
    const received = receiver(() => new Response(null, { status: 500 }));
    const { events, messages } = await published(2);
    const last = RETRY_SCHEDULES.development.length + 1;
    await consume(messages.map((body) => ({ body, attempts: last })));

    const dead = await consume(messages.map((body) => ({ body })), { queue: DEAD_LETTER_QUEUE });

    expect(dead.explicitAcks).toHaveLength(2);
    expect(received).toHaveLength(2);
    for (const event of events) {
      expect(await eventRow(event.id)).toMatchObject({ delivery_status: "failed", attempts: 1, last_status: 500, delivered_at: null });
    }
  });

  it("the dead-letter queue's consumer marks it failed, events/list shows it, and resend delivers it", async () => {
    const received = receiver((_delivery, n) => (n === 1 ? new Response(null, { status: 500 }) : new Response(null, { status: 200 })));
    const { recordId, events, messages } = await published();
    await consume([{ body: messages[0]!, attempts: RETRY_SCHEDULES.development.length + 1 }]);

    const dead = await consume([{ body: messages[0]! }], { queue: DEAD_LETTER_QUEUE });
    expect(dead.explicitAcks).toHaveLength(1);
    expect(received).toHaveLength(1);

    const failed = await listEvents({ receipt_id: recordId, delivery: "failed" });
    expect(failed.events.map((e: any) => e.id)).toEqual([events[0]!.id]);
    expect(failed.events[0].delivery).toEqual({ status: "failed", attempts: 1, last_status: 500, last_error: "HTTP 500", delivered_at: null });
    expect(failed.events[0]).toMatchObject(events[0]!);

    const resent = await expectStatus(callGateway("events/resend", { id: events[0]!.id }), 200);
    expect(resent).toEqual(events[0]);
    const pending = await listEvents({ receipt_id: recordId });
    expect(pending.events[0].delivery).toMatchObject({ status: "pending", attempts: 1 });

    await consume([{ body: messages[0]! }]);
    const delivered = await listEvents({ receipt_id: recordId, delivery: "delivered" });
    expect(delivered.events[0].delivery).toMatchObject({ status: "delivered", attempts: 2, last_status: 200, last_error: null });
    expect(received.map((d) => d.headers["webhook-id"])).toEqual([events[0]!.id, events[0]!.id]);
  });

  it("a dead letter does not undo a delivery a resend made meanwhile", async () => {
    receiver(() => new Response(null, { status: 200 }));
    const { events, messages } = await published();
    await consume([{ body: messages[0]! }]);
    await consume([{ body: messages[0]! }], { queue: DEAD_LETTER_QUEUE });
    expect((await eventRow(events[0]!.id))!.delivery_status).toBe("delivered");
  });

  it("resend of an unknown event is 404 not_found", async () => {
    await expectError(callGateway("events/resend", { id: "evt_01ARZ3NDEKTSV4RRFFQ69G5FAV" }), 404, "not_found");
  });
});

describe("a message that is not an event", () => {
  it("is acknowledged and logged, never POSTed nor retried, on either queue", async () => {
    const received = receiver();
    const { events, messages } = await published();
    const junk = { body: { hello: "world" } as never };
    for (const queue of [undefined, DEAD_LETTER_QUEUE]) {
      const result = await consume([junk, { body: messages[0]! }], { queue });
      expect(result.explicitAcks).toHaveLength(2);
      expect(result.retryMessages).toEqual([]);
    }
    expect(received.map((d) => d.headers["webhook-id"])).toEqual([events[0]!.id]);
  });
});

describe("a misconfigured deployment", () => {
  it("holds its events back: nothing is sent, each message is retried and the attempt recorded", async () => {
    const received = receiver();
    const { events, messages } = await published();
    const misconfigured = { ...env, WEBHOOK_SECRET: "not-a-whsec-secret" } as unknown as Env;

    const result = await consume([{ body: messages[0]! }], { env: misconfigured });

    expect(received).toEqual([]);
    expect(result.retryMessages).toHaveLength(1);
    expect(await eventRow(events[0]!.id)).toMatchObject({ delivery_status: "pending", attempts: 1, last_status: null });
    expect((await eventRow(events[0]!.id))!.last_error).toContain("misconfigured");
  });
});
