/**
 * The queue consumer, called as the queue calls it (messages built with
 * createMessageBatch), against a receiver the test scripts: what the
 * partner's receiver gets, what the queue is told (ack, or retry after how
 * long), and what the event log then says.
 */
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { ulid } from "ulid";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MAX_CONNECTIONS } from "../../src/d1/fanout";
import { RETRY_SCHEDULES, recordEvents, SWEEP_SETTINGS, sweepEvents } from "../../src/events";
import {
  callGateway,
  consume,
  DEAD_LETTER_QUEUE,
  EVENTS_QUEUE,
  eventRow,
  fireCron,
  keepBodies,
  makeEvent,
  messageOf,
  newRecordId,
  PRODUCTION_WEBHOOK_SECRET,
  PRODUCTION_WEBHOOK_URL,
  productionEnv,
  publishKept,
  queueSpy,
  receiver,
  recordEventsDb,
} from "../events";
import { expectError, expectStatus, refuseStatements } from "../helpers";

afterEach(() => {
  vi.restoreAllMocks();
});

async function published(count = 1) {
  const recordId = newRecordId();
  const events = Array.from({ length: count }, (_, i) => makeEvent(recordId, { sequence: i + 1 }));
  await publishKept(events);
  return { recordId, events, messages: events.map(messageOf) };
}

const listEvents = (body: Record<string, unknown>) => expectStatus<any>(callGateway("events/list", body), 200);

describe("a batch of deliveries", () => {
  it("is POSTed in parallel, six at a time (the Workers connection limit), never more", async () => {
    // A receiver that holds every answer until six are waiting (or every delivery left is): a consumer that
    // sent one at a time would never get an answer past its first, a consumer that sent all twelve at once
    // would be seen with twelve waiting. A turn of the event loop lets a seventh show before the answers go.
    let waiting: (() => void)[] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    let arrived = 0;
    const { messages } = await published(12);
    const realFetch = globalThis.fetch;
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const request = new Request(input as RequestInfo, init);
      if (request.url !== env.WEBHOOK_URL) return realFetch(input as RequestInfo, init);
      arrived++;
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      const answered = new Promise<void>((resolve) => waiting.push(resolve));
      if (waiting.length === Math.min(MAX_CONNECTIONS, messages.length - (arrived - waiting.length))) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        const release = waiting;
        waiting = [];
        for (const answer of release) answer();
      }
      await answered;
      inFlight--;
      return new Response(null, { status: 204 });
    });

    const result = await consume(messages.map((body) => ({ body })));

    expect(result.explicitAcks).toHaveLength(12);
    expect(arrived).toBe(12);
    expect(mostInFlight).toBe(MAX_CONNECTIONS);
    for (const message of messages) expect((await eventRow(message.id))?.delivery_status).toBe("delivered");
  });

  it("writes its deliveries into the event log in one D1 round trip, not one each", async () => {
    receiver(() => new Response(null, { status: 204 }));
    const { events, messages } = await published(12);
    // Every D1 call of the tests' databases that writes a delivery, and how many deliveries each carried.
    const writes: number[] = [];
    const isDelivery = (statement: D1PreparedStatement) =>
      String((statement as unknown as { statement: string }).statement).includes("SET status = 1");
    for (const db of [env.DB, env.DB_TID_1]) {
      const batch = db.batch.bind(db);
      vi.spyOn(db, "batch").mockImplementation((statements) => {
        if (statements.some(isDelivery)) writes.push(statements.length);
        return batch(statements);
      });
    }

    const result = await consume(messages.map((body) => ({ body })));

    expect(result.explicitAcks).toHaveLength(12);
    // One batch of one statement carrying the 12: on the table the consumer's read found them in (the slot
    // written now), not on each table of the log.
    expect(writes).toEqual([1]);
    for (const event of events) expect(await eventRow(event.id)).toMatchObject({ delivery_status: "delivered", attempts: 1, last_status: 204 });
  });

  it("whose log write fails is still delivered and acknowledged, and each event's failed write is logged", async () => {
    const received = receiver(() => new Response(null, { status: 204 }));
    const { events, messages } = await published(3);
    refuseStatements((sql) => sql.includes("SET status = 1"));
    const logged = vi.spyOn(console, "error");

    const result = await consume(messages.map((body) => ({ body })));

    expect(received).toHaveLength(3);
    expect(result.explicitAcks).toHaveLength(3);
    expect(result.retryMessages).toEqual([]);
    const failed = logged.mock.calls.map(([line]) => String(line)).filter((line) => line.includes(`"event":"event_log_write_failed"`));
    expect(failed).toHaveLength(3);
    for (const event of events) expect(failed.some((line) => line.includes(event.id))).toBe(true);
  });
});

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
    const received = receiver((delivery) => new Response(null, { status: JSON.parse(delivery.body).sequence === 2 ? 503 : 200 }));
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
    expect(row).toMatchObject({
      delivery_status: "pending",
      attempts: 3,
      last_status: 500,
      last_error: "HTTP 500: receiver is down",
      delivered_at: null,
    });
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

    const dead = await consume(
      messages.map((body) => ({ body })),
      { queue: DEAD_LETTER_QUEUE },
    );

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

describe("a message whose event the log does not hold", () => {
  it("is delivered all the same, its outcome recorded nowhere, and logged as event_not_logged; the dead-letter queue acknowledges it", async () => {
    // Every event is logged before it is queued: such a message outlived its row (a log restored to an earlier
    // time, a late copy of a pruned event) or its row is in a database this Worker does not know (src/events/delivery.ts).
    const received = receiver((_delivery, n) => new Response(null, { status: n === 1 ? 503 : 204 }));
    const warn = vi.spyOn(console, "warn");
    const event = makeEvent(newRecordId());
    const failed = await consume([{ body: messageOf(event) }]);
    expect(failed.retryMessages).toHaveLength(1);
    const delivered = await consume([{ body: messageOf(event), attempts: 2 }]);
    expect(delivered.explicitAcks).toHaveLength(1);
    const dead = await consume([{ body: messageOf(event) }], { queue: DEAD_LETTER_QUEUE });
    expect(dead.explicitAcks).toHaveLength(1);
    expect(received.map((d) => JSON.parse(d.body))).toEqual([event, event]);
    expect(await eventRow(event.id)).toBeNull();
    const lines = warn.mock.calls.map(([line]) => JSON.parse(String(line))).filter((line) => line.event === "event_not_logged");
    expect(lines.map((line) => line.queue)).toEqual([EVENTS_QUEUE, EVENTS_QUEUE, DEAD_LETTER_QUEUE]);
    expect(lines.every((line) => line.event_id === event.id)).toBe(true);
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

describe("an event no attempt is scheduled for (the sweep, run by the Cron Trigger)", () => {
  const dev = SWEEP_SETTINGS.development;
  /** What the sweep queued of these events. */
  const requeued = (queue: ReturnType<typeof queueSpy>, ids: string[]) => queue.sent.filter((m) => ids.includes(m.id));

  it("whose retry was lost is queued again once that retry is overdue, never while it waits out its backoff, and is delivered", async () => {
    const received = receiver((_delivery, n) => new Response(null, { status: n <= 2 ? 503 : 204 }));
    const { recordId, events, messages } = await published();
    const ids = [events[0]!.id];
    const queue = queueSpy();
    // Two failed attempts; the second's retry (the 5th of the schedule: 16 s) is lost with its message.
    await consume([{ body: messages[0]! }]);
    const before = Date.now();
    await consume([{ body: messages[0]!, attempts: 5 }]);
    const after = Date.now();
    const due = RETRY_SCHEDULES.development[4]! * 1000;

    // The retry is due 16 s later: until it is overdue by the sweep's margin, nothing is sent again.
    await fireCron(before + due + dev.staleMs - 1);
    expect(requeued(queue, ids)).toEqual([]);
    await fireCron(after + due + dev.staleMs + 1);
    expect(requeued(queue, ids)).toEqual([messages[0]]);
    // Queued again, its next attempt is due now: the next sweep leaves that copy alone.
    await fireCron(after + due + dev.staleMs + 2);
    expect(requeued(queue, ids)).toHaveLength(1);

    await consume(requeued(queue, ids).map((body) => ({ body })));
    expect(received.map((d) => d.headers["webhook-id"])).toEqual([...ids, ...ids, ...ids]);
    const [event] = (await listEvents({ receipt_id: recordId })).events;
    expect(event.delivery).toMatchObject({ status: "delivered", attempts: 3, last_status: 204 });
  });

  it("production: a retry waiting out an hour-long backoff is not sent again; once overdue by 5 minutes it is", async () => {
    receiver(() => new Response(null, { status: 500 }), PRODUCTION_WEBHOOK_URL);
    const production = await productionEnv();
    const { events, messages } = await published();
    const queue = queueSpy();
    const attempts = 7;
    const before = Date.now();
    const { retryDelays } = await consume([{ body: messages[0]!, attempts }], { env: production });
    const after = Date.now();
    const delay = RETRY_SCHEDULES.production[attempts - 1]! * 1000;
    expect(retryDelays).toEqual([delay / 1000]);

    // Long past the last attempt (a threshold on the last attempt alone would send it), but its retry is not due yet.
    await sweepEvents(production, before + delay - 1);
    await sweepEvents(production, before + delay + SWEEP_SETTINGS.production.staleMs - 1);
    expect(requeued(queue, [events[0]!.id])).toEqual([]);
    await sweepEvents(production, after + delay + SWEEP_SETTINGS.production.staleMs + 1);
    expect(requeued(queue, [events[0]!.id])).toEqual([messages[0]]);
  });

  it("that is logged but whose message never reached the consumer is queued again, as its first attempt", async () => {
    const received = receiver();
    const queue = queueSpy();
    const before = Date.now();
    const { events, messages } = await published(2);
    const ids = events.map((e) => e.id);
    const first = requeued(queue, ids);
    expect(first).toEqual(messages);

    await fireCron(before + dev.staleMs - 1);
    expect(requeued(queue, ids)).toEqual(first);
    await fireCron(Date.now() + dev.staleMs + 1);
    const again = requeued(queue, ids).slice(2);
    expect(again.map((m) => m.id).sort()).toEqual([...ids].sort());
    await consume(again.map((body) => ({ body })));
    expect(received.map((d) => d.headers["webhook-id"]).sort()).toEqual([...ids].sort());
    for (const id of ids) expect((await eventRow(id))!.delivery_status).toBe("delivered");
  });

  it("still pending past the retry horizon becomes failed: events/list finds it, events/resend delivers it, and the sweep leaves the resent one alone", async () => {
    const received = receiver((_delivery, n) => new Response(null, { status: n === 1 ? 502 : 204 }));
    const before = Date.now();
    const { recordId, events, messages } = await published();
    const after = Date.now();
    const ids = [events[0]!.id];
    await consume([{ body: messages[0]! }]);
    const queue = queueSpy();

    // The horizon counts from when the event was logged.
    await fireCron(before + dev.horizonMs - 1);
    expect((await listEvents({ receipt_id: recordId, delivery: "failed" })).events).toEqual([]);
    await fireCron(after + dev.horizonMs + 1);
    const failed = await listEvents({ receipt_id: recordId, delivery: "failed" });
    expect(failed.events.map((e: any) => e.id)).toEqual(ids);
    expect(failed.events[0].delivery).toMatchObject({ status: "failed", attempts: 1, last_status: 502 });
    // A failed event is not sent again on its own.
    const sentBefore = requeued(queue, ids).length;
    await fireCron(after + dev.horizonMs + dev.staleMs + 2);
    expect(requeued(queue, ids)).toHaveLength(sentBefore);

    await expectStatus(callGateway("events/resend", { id: events[0]!.id }), 200);
    const resent = requeued(queue, ids).slice(sentBefore);
    expect(resent).toEqual([messages[0]]);
    // Resent: a new round, its horizon counted from now.
    await fireCron(Date.now() + dev.horizonMs - 1000);
    expect((await listEvents({ receipt_id: recordId })).events[0].delivery.status).toBe("pending");
    await consume(resent.map((body) => ({ body })));
    expect((await listEvents({ receipt_id: recordId, delivery: "delivered" })).events[0].delivery).toMatchObject({ attempts: 2, last_status: 204 });
    expect(received).toHaveLength(2);
  });

  it("stranded since long before (logged, its queue message lost, never attempted): failed by the next sweep; resent, a new round that the sweep leaves pending", async () => {
    receiver();
    const recordId = newRecordId();
    // Made and logged 10 minutes ago; no attempt ever came.
    const loggedAt = Date.now() - 10 * 60_000;
    const event = { ...makeEvent(recordId), id: `evt_${ulid(loggedAt)}`, created: loggedAt };
    keepBodies([event]);
    await recordEvents(await recordEventsDb(recordId), [event], loggedAt);
    const queue = queueSpy();

    await fireCron(Date.now());
    expect((await listEvents({ receipt_id: recordId })).events[0].delivery).toMatchObject({ status: "failed", attempts: 0 });
    const resentAt = Date.now();
    await expectStatus(callGateway("events/resend", { id: event.id }), 200);
    await fireCron(resentAt + dev.staleMs - 1);
    expect((await listEvents({ receipt_id: recordId })).events[0].delivery.status).toBe("pending");
    expect(requeued(queue, [event.id])).toEqual([messageOf(event)]);
  });
});
