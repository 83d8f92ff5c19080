/**
 * From a receipt's outbox to the queue: log first, then send. The receipt
 * object keeps an event in its outbox until publishEvents resolves, so an
 * event is either in the outbox or in the log, never in neither.
 */
import { monotonicFactory } from "ulid";
import { logEvents } from "./log";
import type { EventMessage, GatewayEvent } from "./types";
import { assertWellFormed } from "./types";

const nextUlid = monotonicFactory();

/** A new event id, "evt_<ULID>": time-ordered, and increasing within one isolate even in one millisecond. */
export const newEventId = (now = Date.now()): string => `evt_${nextUlid(now)}`;

/** sendBatch takes at most 100 messages and 256 KB (1 KB = 1000 bytes) per call. */
const MAX_MESSAGES_PER_SEND = 100;
const MAX_BYTES_PER_SEND = 250_000;

const bytes = (message: EventMessage) => new TextEncoder().encode(message.payload).length + message.id.length + 32;

/** Groups messages into sendBatch calls within the queue's limits. */
export function sendBatches(messages: readonly EventMessage[]): EventMessage[][] {
  const batches: EventMessage[][] = [];
  let current: EventMessage[] = [];
  let size = 0;
  for (const message of messages) {
    const n = bytes(message);
    if (current.length > 0 && (current.length === MAX_MESSAGES_PER_SEND || size + n > MAX_BYTES_PER_SEND)) {
      batches.push(current);
      current = [];
      size = 0;
    }
    current.push(message);
    size += n;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** Queues events for delivery (the log rows must exist already). */
export async function enqueue(env: Env, messages: readonly EventMessage[]): Promise<void> {
  const queue = env.EVENTS as Queue<EventMessage>;
  for (const batch of sendBatches(messages)) {
    await queue.sendBatch(batch.map((body) => ({ body, contentType: "json" as const })));
  }
}

/**
 * Called by the receipt Durable Object's alarm to drain its outbox. Writes
 * each event's row into the D1 event log (its record's database) if absent (idempotent by event id: a
 * re-drain after a crash must not duplicate rows) with delivery status
 * `pending`, then sends them to the queue. Throws if anything failed, so the
 * object keeps them in its outbox and tries again.
 *
 * An event of a re-drain that an earlier drain already got delivered (or
 * dead-lettered) is not sent again; one still pending is, since whether its
 * message reached the queue is unknown. Receivers deduplicate by webhook-id.
 */
export async function publishEvents(env: Env, events: GatewayEvent[]): Promise<void> {
  if (events.length === 0) return;
  for (const event of events) assertWellFormed(event);
  const pending = await logEvents(env, events);
  await enqueue(env, pending);
}

/**
 * What the receipt object's drain calls: the events go to the queue only, as
 * their JSON text; the consumer logs them (idempotent by event id, one D1
 * batch per queue batch) before it delivers them. So the object, which
 * serves payments, touches no D1, and the log costs one write per batch
 * instead of one per event. Throws if the queue refused, so the object keeps
 * them in its outbox and tries again.
 */
export async function queueEvents(env: Env, events: readonly { id: string; payload: string }[]): Promise<void> {
  if (events.length === 0) return;
  await enqueue(env, events);
}
