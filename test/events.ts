/**
 * Events for the tests: hand-made ones, a receiver the test scripts, the
 * consumer called as the queue calls it, and the Cron Trigger (the sweep).
 */
import {
  createExecutionContext,
  createMessageBatch,
  getQueueResult,
  type QueueResult,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { vi } from "vitest";
import type { ReceiptBody, TransferBody } from "../src/api/schemas";
import { retentionPolicy } from "../src/config/retention-policy";
import { RING_SLOTS, slotPeriodMs } from "../src/d1/ring";
import { eventShardFor } from "../src/d1/shards";
import { type EventMessage, type EventType, type GatewayEvent, newEventId, publishEvents, type QueuedBody } from "../src/events";
import { locateEvent } from "../src/events/log";
import { acrossLog, type LoggedRow } from "../src/events/log-database";
import { EventPager } from "../src/events/pager";
import { kindOf, recordIdOf } from "../src/events/types";
import worker from "../src/index";
import { storedEvents } from "../src/record/outbox-rows";
import { ReceiptObject, receiptStub } from "../src/record/receipt-object";
import { clock } from "../src/shared/clock";
import { type CallOptions, callAt, expectStatus, letTimePass } from "./helpers";

declare global {
  namespace Cloudflare {
    interface Env {
      /** wrangler.toml's queues as wrangler resolves them (vitest.config.ts). */
      TEST_WRANGLER_QUEUES: Record<"development" | "production", WranglerQueues>;
    }
  }
}

export interface WranglerQueues {
  producers: { binding: string; queue: string }[];
  consumers: {
    queue: string;
    max_batch_size?: number;
    max_batch_timeout?: number;
    max_concurrency?: number | null;
    max_retries?: number;
    dead_letter_queue?: string;
    retry_delay?: number;
  }[];
}

export const EVENTS_QUEUE = "payments-gateway-events-local";
export const DEAD_LETTER_QUEUE = "payments-gateway-events-local-dlq";

export const newRecordId = (label = "rcpt") => `${label}-${crypto.randomUUID()}`;

export function receiptObject(id: string, state = 4): ReceiptBody {
  const now = Date.now();
  return {
    tid: `order-${id}`,
    id,
    state,
    create_date: now - 60_000,
    pay_date: state === 4 ? now : 0,
    cancel_date: state === 21 ? now : 0,
    error: null,
    type: 1,
    description: "Mobile top-up",
    merchant: { merchant_id: 1001, merchant_name: "Sandbox Mobile" },
    account: [{ key: "phone", value: "998901234567" }],
    ofd: null,
    amount: 150_000,
    init_amount: 150_000,
    currency: 860,
    commission: 0,
    is_verify: true,
    rrn: null,
    card_number: "860000******0007",
  };
}

export function transferObject(receiptId: string, state = 4): TransferBody {
  const party = { masked_pan: "860000******0007", amount: 500_000, currency: 860, commission: 0, phone: null };
  return {
    tid: `p2p-${receiptId}`,
    receipt_id: receiptId,
    description: null,
    state,
    type: 5,
    created_date: Date.now() - 60_000,
    pay_date: state === 4 ? Date.now() : null,
    cancel_date: null,
    sender: party,
    receiver: { ...party, masked_pan: "986000******0018" },
    error: null,
    ofd: null,
    is_verify: false,
  };
}

export interface EventOptions {
  type?: EventType;
  sequence?: number;
  state?: number;
  owner?: string;
  previousState?: number | null;
}

/** An event as the receipt object will make it. */
export function makeEvent(recordId: string, options: EventOptions = {}): GatewayEvent {
  const type = options.type ?? "receipt.paid";
  const state = options.state ?? 4;
  return {
    id: newEventId(),
    type,
    created: Date.now(),
    sequence: options.sequence ?? 1,
    request_id: crypto.randomUUID(),
    data: {
      object_type: kindOf(type),
      object: type.startsWith("transfer.") ? transferObject(recordId, state) : receiptObject(recordId, state),
      owner: options.owner ?? "partner",
      previous_state: options.previousState === undefined ? 0 : options.previousState,
    },
  };
}

/** A receipt's lifecycle: created, then paid, ids in order. */
export function lifecycle(recordId: string, types: EventType[]): GatewayEvent[] {
  return types.map((type, i) => makeEvent(recordId, { type, sequence: i + 1, previousState: i === 0 ? null : 0 }));
}

export const messageOf = (event: GatewayEvent): EventMessage => ({ id: event.id, payload: JSON.stringify(event) });

/** The bodies of hand-made events, by id, for the records' eventBodies (keepBodies). */
const handMade = new Map<string, string>();
/** The ids of hand-made events, oldest first, by the name of the record object they belong to (`kind:id`), for its eventIds. */
const handMadeIds = new Map<string, string[]>();

/**
 * Hand-made events kept as their records would keep them: the gateway keeps
 * an event's body only in its record's outbox (events/list, events/resend and
 * the sweep ask the record: src/events/bodies.ts), and these have no record,
 * so every record's eventBodies answers them too, and the record they name
 * (its kind and id) lists their ids in its eventIds (events/list by record
 * reads those), besides what it keeps itself, until the test's mocks are
 * restored.
 */
export function keepBodies(events: readonly GatewayEvent[]): void {
  for (const event of events) {
    handMade.set(event.id, JSON.stringify(event));
    const name = `${kindOf(event.type)}:${recordIdOf(event)}`;
    handMadeIds.set(name, [...(handMadeIds.get(name) ?? []).filter((id) => id !== event.id), event.id]);
  }
  if (!vi.isMockFunction(ReceiptObject.prototype.eventBodies)) {
    const kept = ReceiptObject.prototype.eventBodies;
    vi.spyOn(ReceiptObject.prototype, "eventBodies").mockImplementation(async function (this: ReceiptObject, ids) {
      const bodies = await kept.call(this, ids);
      for (const id of ids) {
        const body = handMade.get(id);
        if (body !== undefined) bodies[id] ??= body;
      }
      return bodies;
    });
  }
  if (vi.isMockFunction(ReceiptObject.prototype.eventIds)) return;
  const keptIds = ReceiptObject.prototype.eventIds;
  vi.spyOn(ReceiptObject.prototype, "eventIds").mockImplementation(async function (this: ReceiptObject) {
    // The object's name is the one receiptStub gave it: `kind:id`.
    const name = (this as unknown as { ctx: DurableObjectState }).ctx.id.name ?? "";
    const own = await keptIds.call(this);
    return [...own, ...(handMadeIds.get(name) ?? []).filter((id) => !own.includes(id))];
  });
}

/** publishEvents for hand-made events, their bodies kept (keepBodies): as a record's drain publishes its own. */
export async function publishKept(events: readonly GatewayEvent[], deployment: Env = env): Promise<void> {
  keepBodies(events);
  await publishEvents(deployment, events);
}

export interface ConsumeResult extends QueueResult {
  /**
   * The delaySeconds each retried message asked for, in message order. The
   * plugin's getQueueResult drops them (its retryMessages carry msgId only,
   * @cloudflare/vitest-plugin 1.5.0), so they are read from a spy on retry().
   */
  retryDelays: (number | undefined)[];
}

/** Runs the Worker's queue() handler on one batch, as the queue would, and answers what it acked and retried. */
export async function consume(
  messages: { body: QueuedBody; attempts?: number; timestamp?: Date }[],
  options: { queue?: string; env?: Env } = {},
): Promise<ConsumeResult> {
  const batch = createMessageBatch<QueuedBody>(
    options.queue ?? EVENTS_QUEUE,
    messages.map((message) => ({
      id: crypto.randomUUID(),
      timestamp: message.timestamp ?? new Date(),
      attempts: message.attempts ?? 1,
      body: message.body,
    })),
  );
  const retries = batch.messages.map((message) => vi.spyOn(message, "retry"));
  const ctx = createExecutionContext();
  await worker.queue(batch, options.env ?? env, ctx);
  const result = await getQueueResult(batch, ctx);
  const retryDelays = retries.filter((spy) => spy.mock.calls.length > 0).map((spy) => spy.mock.calls.at(-1)?.[0]?.delaySeconds);
  return { ...result, retryDelays };
}

export interface Received {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** What the scripted receiver does with the n-th delivery it gets (1-based). */
export type Answer = Response | "hang" | "network-error";

/**
 * Stands in for the partner's receiver at WEBHOOK_URL: the Worker runs in the
 * tests' isolate, so a spy on fetch sees every delivery it sends. "hang"
 * never answers (until the delivery's own timeout aborts it).
 */
export function receiver(
  answer: (delivery: Received, n: number) => Answer = () => new Response(null, { status: 204 }),
  url: string = env.WEBHOOK_URL,
) {
  const received: Received[] = [];
  const realFetch = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = new Request(input as RequestInfo, init);
    if (request.url !== url) return realFetch(input as RequestInfo, init);
    const delivery = { url: request.url, headers: Object.fromEntries(request.headers), body: await request.text() };
    received.push(delivery);
    const reply = answer(delivery, received.length);
    if (reply === "network-error") throw new TypeError("Network connection lost.");
    if (reply === "hang") {
      return new Promise<Response>((_, reject) => {
        const signal = init?.signal ?? request.signal;
        if (signal.aborted) reject(signal.reason);
        signal.addEventListener("abort", () => reject(signal.reason));
      });
    }
    return reply;
  });
  return received;
}

export const GATEWAY = "http://gateway.test/api/v1/gateway";

/** A call to one of the gateway's own operations, by default with the partner's key. */
export const callGateway = (path: string, body: unknown, options: CallOptions = {}): Promise<Response> => callAt(GATEWAY, path, body, options);

export { PRODUCTION_WEBHOOK_SECRET, PRODUCTION_WEBHOOK_URL, productionEnv } from "./helpers";

/**
 * Records every message the gateway sends to the events queue (they still go
 * on to the queue nobody consumes in tests), so a test can hand them to the
 * consumer itself: that is where events are delivered.
 */
export function queueSpy() {
  const sent: EventMessage[] = [];
  const realSendBatch = env.EVENTS.sendBatch.bind(env.EVENTS);
  const spy = vi.spyOn(env.EVENTS, "sendBatch").mockImplementation(async (batch, options) => {
    for (const message of batch) sent.push(message.body as EventMessage);
    return realSendBatch(batch, options);
  });
  // A drain hands its events to a pager (src/events/pager.ts), which sends them a page at a time up to a
  // second later: they count as sent once the pager has them (its pages go on to the queue nobody consumes).
  const realAdd = EventPager.prototype.add;
  const pager = vi.spyOn(EventPager.prototype, "add").mockImplementation(async function (this: EventPager, messages) {
    await realAdd.call(this, messages);
    for (const message of messages) sent.push(message);
  });
  return {
    spy,
    /** The pagers' add: a drain's hand-off, before its fallback to the queue (spy). */
    pager,
    /** The next drain's hand-off fails: its pager refuses it, and so does the queue it then sends to itself. */
    refuseOnce(err: Error) {
      pager.mockImplementationOnce(async () => {
        throw err;
      });
      spy.mockRejectedValueOnce(err);
    },
    /**
     * The next drain's call to its pager goes through `add` instead, in the drain's own object (where a call
     * that never answers holds that object, not the pager): `add` may pass the messages on to the pager.
     */
    callPagerOnce(add: (messages: EventMessage[], pass: (messages: EventMessage[]) => Promise<void>) => Promise<void>) {
      const namespace = env.EVENT_PAGER;
      const realGet = namespace.get.bind(namespace);
      vi.spyOn(namespace, "get").mockImplementationOnce(
        (id) => ({ add: (messages: EventMessage[]) => add(messages, (m) => realGet(id).add(m)) }) as unknown as DurableObjectStub<EventPager>,
      );
    },
    sent,
    /** Consumes, once each, the queued messages about `recordId` (all when omitted), the receiver answering 204. */
    async deliver(recordId?: string): Promise<ConsumeResult> {
      const mine = sent.filter(
        (m) => recordId === undefined || ((JSON.parse(m.payload) as GatewayEvent).data.object && recordIdOfPayload(m.payload) === recordId),
      );
      for (const m of mine) sent.splice(sent.indexOf(m), 1);
      receiver();
      return consume(mine.map((body) => ({ body })));
    },
  };
}

const recordIdOfPayload = (payload: string): string => {
  const object = (JSON.parse(payload) as GatewayEvent).data.object as { id?: string; receipt_id?: string };
  return object.receipt_id ?? object.id ?? "";
};

/** The database holding an event's log row (TID_INDEX_SHARDS: its record's), found by asking each as resend does. */
export async function eventDb(id: string): Promise<D1Database> {
  const found = await locateEvent(env, id);
  if (!found) throw new Error(`no logged event ${id}`);
  return found.db;
}

/** An event's log row, wherever it is; null when no database holds it. */
export const eventRow = async (id: string): Promise<LoggedRow | null> => (await locateEvent(env, id))?.row ?? null;

/** The database a record's events are logged in (src/d1/shards.ts picks it, as the gateway does). */
export const recordEventsDb = async (recordId: string): Promise<D1Database> => (await eventShardFor(env, recordId)).db;

/** A period of the event log's ring (src/d1/ring.ts) for the test deployment's delivered events' window. */
export const ringPeriod = (): number => slotPeriodMs(retentionPolicy(env).deliveredEventsMs);

/**
 * A time at which the cron empties the slot of the log's ring that events
 * logged at `at` went to: during the last period before that slot is written
 * again, when every event it took is past the delivered events' window.
 */
export const ringDropAt = (at: number): number => (Math.floor(at / ringPeriod()) + RING_SLOTS - 1) * ringPeriod() + 1;

/**
 * Lets `ms` pass (letTimePass), the Cron Trigger firing once in each period
 * of the event log's ring on the way and once at the end, as a cron every
 * minute would have: each slot gets its turn.
 */
export async function letTimePassWithTheCron(ms: number): Promise<void> {
  const end = clock.now() + ms;
  for (let at = (Math.floor(clock.now() / ringPeriod()) + 1) * ringPeriod() + 1; at < end; at += ringPeriod()) {
    letTimePass(at - clock.now());
    await fireCron(clock.now());
  }
  letTimePass(end - clock.now());
  await fireCron(clock.now());
}

/** The rows of the log (every table of it) in `db` that `where` picks, with the columns named. */
export async function logRows<T = Record<string, unknown>>(db: D1Database, columns: string, where: string, ...values: unknown[]): Promise<T[]> {
  const { results } = await db
    .prepare(acrossLog((table) => `SELECT ${columns} FROM ${table} WHERE ${where}`))
    .bind(...values)
    .all<T>();
  return results;
}

/** The loopback's type declares fetch only; the runtime serves scheduled() on it too. */
type ScheduledLoopback = { scheduled(options: { scheduledTime: Date; cron: string }): Promise<unknown> };

/**
 * Fires the Worker's Cron Trigger as the runtime does, at `at`: retention and
 * the event sweep, which queues again (to the queue nobody consumes in tests:
 * a queueSpy sees it) what no delivery attempt is scheduled for.
 */
export async function fireCron(at: number): Promise<void> {
  await (exports.default as unknown as ScheduledLoopback).scheduled({ scheduledTime: new Date(at), cron: "* * * * *" });
}

/**
 * What a record's outbox owes as its storage says: its events past those its
 * row counts as logged (a drain's mark waits for the row's next write, or the
 * alarm: a crash then drains those again). 0 when no record is stored.
 */
export async function unsentEvents(kind: "receipt" | "transfer", id: string): Promise<number> {
  return runInDurableObject(receiptStub(env, kind, id), (_instance, state) => {
    const row = state.storage.sql.exec<{ events: string; events_logged: number }>("SELECT events, events_logged FROM record").toArray()[0];
    return row ? (JSON.parse(row.events) as unknown[]).length - row.events_logged : 0;
  });
}

/** The bodies of the events a record's storage still owes (oldest first), as JSON text. */
export async function unsentEventBodies(kind: "receipt" | "transfer", id: string): Promise<string[]> {
  return runInDurableObject(receiptStub(env, kind, id), (_instance, state) => {
    const row = state.storage.sql
      .exec<{ events: string; events_logged: number; body: string; answer: string | null }>("SELECT events, events_logged, body, answer FROM record")
      .one();
    return storedEvents(row)
      .slice(row.events_logged)
      .map(([, body]) => body);
  });
}

/**
 * The types of a record's events, oldest first, as the event log holds them:
 * whatever the outbox still owes is handed on first, as the object's alarm would.
 */
export async function loggedEventTypes(kind: "receipt" | "transfer", id: string): Promise<string[]> {
  const stub = receiptStub(env, kind, id);
  if ((await unsentEvents(kind, id)) > 0) await runDurableObjectAlarm(stub);
  const { events } = await expectStatus(callGateway("events/list", { receipt_id: id, limit: 100 }), 200);
  return (events as { type: string; sequence: number }[]).sort((a, b) => a.sequence - b.sequence).map((event) => event.type);
}
