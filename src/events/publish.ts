/**
 * From a receipt's outbox to the queue: log first, then send. The receipt
 * object keeps an event in its outbox until publishOutbox resolves, so an
 * event is either in the outbox or in the log, never in neither.
 */

import { monotonicFactory } from "ulid";
import { clock } from "../shared/clock";
import { log } from "../shared/log";
import { logEvents } from "./log";
import type { Loggable } from "./log-database";
import { pagerCount, pagerName } from "./pager";
import type { EventMessage, GatewayEvent } from "./types";
import { assertWellFormed, recordIdOf } from "./types";

let nextUlid = monotonicFactory();
let lastIdAt = 0;

/**
 * A new event id, "evt_<ULID>": time-ordered, and increasing within one
 * isolate even in one millisecond. Its time is the event's: retention prunes
 * by it (src/events/log-database.ts pruneEvents). Should the clock step back, the ids
 * follow it instead of running ahead of every window read from them (the
 * monotonic factory alone would keep issuing the latest time it saw).
 */
export function newEventId(now = clock.now()): string {
  if (now < lastIdAt) nextUlid = monotonicFactory();
  lastIdAt = now;
  return `evt_${nextUlid(now)}`;
}

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
 * Writes each event's row into the D1 event log (its record's database) if
 * absent (idempotent by event id: a re-drain after a crash must not duplicate
 * rows) with delivery status `pending`, then hands what is still pending to
 * `send` (the queue, one message each; publishOutbox's: the record's pager). Throws
 * if anything failed, so the caller keeps them and tries again. The log keeps
 * no body: the caller's record keeps each one (publishOutbox).
 *
 * An event of a re-drain that an earlier drain already got delivered (or
 * dead-lettered) is not sent again; one still pending is, since whether its
 * message reached the queue is unknown. Receivers deduplicate by webhook-id.
 * Once logged, an event whose message the queue loses is sent again by the
 * sweep (src/events/sweep.ts).
 */
export async function publishEvents(
  env: Env,
  events: readonly Loggable[],
  send: (pending: EventMessage[]) => Promise<void> = (pending) => enqueue(env, pending),
): Promise<void> {
  if (events.length === 0) return;
  for (const event of events) assertWellFormed("event" in event && "body" in event ? event.event : event);
  await send(await logEvents(env, events));
}

/**
 * Hands logged events to their record's pager (src/events/pager.ts), which
 * queues them a page at a time and answers once they are in its memory. If
 * the pager does not take them (unreachable, overloaded, a deploy), they are
 * queued here one message each, which every release's consumer reads: no
 * event waits on a broken pager. One the pager takes and then loses is still pending in the
 * log, and the sweep sends it again.
 */
export async function handToPager(env: Env, recordId: string, messages: readonly EventMessage[]): Promise<void> {
  if (messages.length === 0) return;
  try {
    const pagers = env.EVENT_PAGER;
    await pagers.get(pagers.idFromName(pagerName(recordId, pagerCount(env)))).add([...messages]);
  } catch (err) {
    log("warn", "event_pager_failed", { events: messages.length, error: err instanceof Error ? err.message : String(err) });
    await enqueue(env, messages);
  }
}

/**
 * What the receipt object's drain calls with its outbox's unsent events (their
 * JSON text): logs them (the log keeping their delivery and no body: the
 * outbox keeps each body, byte for byte, until the record is deleted, and the
 * queue carries the same bytes), then hands them to the record's pager
 * (handToPager). The object marks them logged only once this resolved, so an
 * event is always in the outbox or in the log, and every crash between the
 * steps is followed by a re-drain: one D1 batch (a record's events share a
 * database; a drain takes at most 50), then one call to the pager.
 */
export async function publishOutbox(env: Env, entries: readonly EventMessage[]): Promise<void> {
  const events = entries.map((entry) => ({ event: JSON.parse(entry.payload) as GatewayEvent, body: entry.payload }));
  // A record's events share its record id (a transfer's, its receipt's), and so its pager.
  await publishEvents(env, events, (pending) => handToPager(env, recordIdOf(events[0]!.event), pending));
}
