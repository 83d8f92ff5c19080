/**
 * The queue consumer: POSTs each event to WEBHOOK_URL, signed, and records
 * the outcome in the event log. A 2xx acknowledges the message; anything else
 * (another status, no answer within WEBHOOK_TIMEOUT_MS, a network error)
 * retries it after the next delay of the retry schedule. Once the queue's
 * max_retries are spent it moves the message to the dead-letter queue, whose
 * batches come to this same handler and mark the events failed.
 *
 * Every event is logged by its record before it is queued
 * (src/events/publish.ts), so the consumer only reads the log: a copy of an
 * event the log shows delivered or failed is acknowledged without a POST. A
 * message whose event no database of the log holds (src/events/log.ts
 * findLogged) is delivered all the same, its outcome recorded nowhere, and
 * logged as `event_not_logged` (a warning): the message carries the event as
 * signed, and at least once must not hang on a row. That is a log restored
 * to before the event was logged (Time Travel: docs/production.md), a late
 * copy of an event retention pruned, or a row in a database this Worker's
 * TID_INDEX_SHARDS does not name yet (a new list deploying gradually: the
 * row stays pending, and the sweep of a Worker on the new list sends it once
 * more); receivers deduplicate by webhook-id.
 */

import { readConfig } from "../config/config";
import { inPool, MAX_CONNECTIONS } from "../d1/fanout";
import { configProblems } from "../http/guard";
import { metric } from "../metrics/metrics";
import { clock } from "../shared/clock";
import { currentLine, inLine, LogLine, log } from "../shared/log";
import { redact } from "../shared/redact";
import { findLogged } from "./log";
import { recordDeadLettered, recordDeliveries, recordFailedAttempt } from "./log-database";
import { signWebhook } from "./signing";
import { assertWellFormed, type EventMessage, type EventPage, type GatewayEvent, type QueuedBody, withObjectType } from "./types";

/**
 * Seconds to wait before each retry: entry n follows the n-th failed attempt.
 * wrangler.toml's max_retries for the events queue is the schedule's length
 * (a test holds them together); the attempt after the last retry that fails
 * sends the message to the dead-letter queue.
 *
 * - production: 1 min, doubling, at most 12 h: 11 retries, the last one
 *   about 29 h after the first attempt (the contract asks for at least 24 h).
 * - development: 1, 2, 4, 8, 16, 32 s: the first three retries 7 s after the
 *   first attempt by the schedule (about 10 s with the queue's latency of
 *   about a second per retry; the contract: within 15 s), so they can be
 *   watched with `npm run listen -- --fail 3`; the last retry ~63 s after the
 *   first attempt, so the event is failed well within 3 minutes even if every
 *   attempt waits its full 10 s.
 *
 * An attempt's retry is due at the time recordFailedAttempt notes, so the
 * sweep (src/events/sweep.ts) tells a retry waiting out its delay from a lost one.
 */
export const RETRY_SCHEDULES = {
  production: [60, 120, 240, 480, 960, 1920, 3840, 7680, 15360, 30720, 43200],
  development: [1, 2, 4, 8, 16, 32],
} as const satisfies Record<string, readonly number[]>;

/** ENVIRONMENT=development retries quickly; anything else (or nothing) is production, as the guard holds it. */
export const retrySchedule = (env: Env): readonly number[] =>
  env.ENVIRONMENT === "development" ? RETRY_SCHEDULES.development : RETRY_SCHEDULES.production;

/** The delay before the retry that follows failed attempt `attempts` (1-based, as Message.attempts counts). */
export function retryDelaySeconds(schedule: readonly number[], attempts: number): number {
  return schedule[Math.min(Math.max(attempts, 1), schedule.length) - 1] ?? 60;
}

/** A dead-letter queue's name ends in this; wrangler.toml names them so (a test checks it). */
export const DEAD_LETTER_SUFFIX = "-dlq";
export const isDeadLetterQueue = (queue: string): boolean => queue.endsWith(DEAD_LETTER_SUFFIX);

export type DeliveryOutcome = { ok: true; status: number } | { ok: false; status: number | null; error: string };

/** Deliveries of one batch in flight at once: the Workers limit of six simultaneous open connections per invocation. */
export const DELIVERY_PARALLELISM = MAX_CONNECTIONS;

/** The longest piece of a refusal's body kept in last_error. */
const ERROR_SNIPPET = 200;

/** One signed POST of one event. Never throws: every failure is an outcome. */
export async function postEvent(env: Env, message: EventMessage, now = Date.now()): Promise<DeliveryOutcome> {
  const { webhook } = readConfig(env);
  const timestamp = Math.floor(now / 1000);
  // A message queued before data.object_type existed is sent in the shape the document gives.
  const payload = withObjectType(message.payload);
  let response: Response;
  try {
    response = await fetch(webhook.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "payments-gateway-webhooks/1",
        "webhook-id": message.id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": await signWebhook(webhook.keys, message.id, timestamp, payload),
      },
      body: payload,
      // A redirect is an answer, not a 2xx: following it would send the event where nobody configured.
      redirect: "manual",
      signal: AbortSignal.timeout(webhook.timeoutMs),
    });
  } catch (err) {
    const timedOut = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
    return {
      ok: false,
      status: null,
      error: timedOut ? `no answer within ${webhook.timeoutMs} ms` : `request failed: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
  if (response.status >= 200 && response.status < 300) {
    await response.body?.cancel();
    return { ok: true, status: response.status };
  }
  const text = await response.text().catch(() => "");
  const snippet = String(redact(text.slice(0, ERROR_SNIPPET))).trim();
  return { ok: false, status: response.status, error: `HTTP ${response.status}${snippet ? `: ${snippet}` : ""}` };
}

const isEventMessage = (body: unknown): body is EventMessage =>
  typeof (body as EventMessage | null)?.id === "string" && typeof (body as EventMessage).payload === "string";

/** A page's message: only its events' array is read (src/events/pager.ts). */
const isPage = (body: unknown): body is EventPage => Array.isArray((body as EventPage | null)?.page);

/** One event of the batch (a message's, or one of its page's), with the message that carries it. */
interface Received {
  message: Message<QueuedBody>;
  body: EventMessage;
  event: GatewayEvent;
}

/** An event to deliver, and the database of its log row (null: the log does not hold it) and the table the read found it in. */
interface Due {
  message: Message<QueuedBody>;
  body: EventMessage;
  db: D1Database | null;
  table?: string;
}

/** A delivery its batch writes into the event log with the batch's others of that database (recordDeliveries). */
interface Delivered {
  db: D1Database;
  id: string;
  status: number;
  at: number;
  table?: string;
}

/** One event's delivery: whether it reached the receiver, and the log's write for the batch (null: none to make). */
interface Attempted {
  message: Message<QueuedBody>;
  ok: boolean;
  delivered: Delivered | null;
}

/** Delivers one event; a delivered one the log holds is answered for the batch to write, a failed one is written here. */
async function deliver(env: Env, { message, body, db, table }: Due): Promise<Attempted> {
  const { id } = body;
  const started = Date.now();
  const outcome = await postEvent(env, body);
  metric(env, "event_delivery", {
    outcome: outcome.ok ? "delivered" : "failed",
    ms: Date.now() - started,
    queued_ms: started - message.timestamp.getTime(),
  });
  if (outcome.ok) {
    // On the batch's canonical line (src/shared/log.ts), a list of every delivery; a line of its own outside one.
    const delivered = { event_id: id, attempt: message.attempts, status: outcome.status };
    const line = currentLine();
    if (line) line.push("delivered", delivered);
    else log("info", "event_delivered", delivered);
    return { message, ok: true, delivered: db ? { db, id, status: outcome.status, at: clock.now(), table } : null };
  }
  const delaySeconds = retryDelaySeconds(retrySchedule(env), message.attempts);
  log("warn", "event_delivery_failed", {
    event_id: id,
    attempt: message.attempts,
    status: outcome.status,
    error: outcome.error,
    retry_in_seconds: delaySeconds,
  });
  try {
    if (db)
      await recordFailedAttempt(db, id, { status: outcome.status, error: outcome.error, nextAttemptAt: clock.now() + delaySeconds * 1000 }, table);
  } catch (err) {
    log("error", "event_log_write_failed", { event_id: id, error: String(err) });
  }
  return { message, ok: false, delivered: null };
}

/**
 * Acknowledges each message whose every event is settled (delivered now, or
 * found delivered or failed by the log), and retries the others after the
 * schedule's delay for their attempt: a page one of whose events failed comes
 * back whole, and the log's status check skips the ones delivered meanwhile,
 * so a retry POSTs only what is still pending. Each message is settled once.
 */
function settleMessages(env: Env, messages: readonly Message<QueuedBody>[], failed: ReadonlySet<Message<QueuedBody>>): void {
  const schedule = retrySchedule(env);
  for (const message of messages) {
    if (failed.has(message)) message.retry({ delaySeconds: retryDelaySeconds(schedule, message.attempts) });
    else message.ack();
  }
}

/**
 * The batch's deliveries into the event log: one D1 batch per database (six at a time), after every POST of the
 * batch, not one round trip each. Until then a delivered event's row still reads pending, as it did between its
 * POST and its own write. The batch ends when its last POST does, at most 16 rounds of WEBHOOK_TIMEOUT_MS (6
 * messages of at most 16 events each: wrangler.toml's max_batch_size, src/events/pager.ts PAGE_EVENTS; six at a
 * time), under 3 minutes; the sweep's staleMs (5 in production) covers that (src/events/sweep.ts). Development's
 * 30 s does not cover a full batch to a receiver that answers nothing: the sweep may send such an event again, a
 * copy its receiver drops by webhook-id (development's pages hold a few events).
 */
async function writeDeliveries(deliveries: readonly (Delivered | null)[]): Promise<void> {
  const byDb = new Map<D1Database, Delivered[]>();
  for (const delivered of deliveries) {
    if (!delivered) continue;
    const list = byDb.get(delivered.db);
    if (list) list.push(delivered);
    else byDb.set(delivered.db, [delivered]);
  }
  await inPool([...byDb], async ([db, list]) => {
    try {
      await recordDeliveries(db, list);
    } catch (err) {
      // The receiver has them; a second delivery only to fix our own log would be noise for the partner.
      for (const { id } of list) log("error", "event_log_write_failed", { event_id: id, error: String(err) });
    }
  });
}

/** Holds events back while the deployment is misconfigured: never signed with a development secret, never sent to an unchecked URL. */
async function holdBack(env: Env, messages: readonly Message<QueuedBody>[], held: readonly Due[], problems: readonly string[]): Promise<void> {
  // Each try counts as an attempt: after max_retries the events show failed, to be resent once fixed.
  settleMessages(env, messages, new Set(held.map(({ message }) => message)));
  log("error", "service_misconfigured", { problems: problems.join(" "), held_events: held.length });
  const error = "not sent: this deployment is misconfigured (503 service_misconfigured names the problem)";
  const now = clock.now();
  const schedule = retrySchedule(env);
  await inPool(held, async ({ message, body, db, table }) => {
    if (!db) return;
    const nextAttemptAt = now + retryDelaySeconds(schedule, message.attempts) * 1000;
    await recordFailedAttempt(db, body.id, { status: null, error, nextAttemptAt }, table).catch((err) =>
      log("error", "event_log_write_failed", { event_id: body.id, error: String(err) }),
    );
  });
}

/** The Worker's `queue(batch, env, ctx)` handler, for the events queue and its dead-letter queue: one canonical line (src/shared/log.ts) a batch. */
export const handleEventBatch: ExportedHandlerQueueHandler<Env, QueuedBody> = async (batch, env) => {
  const started = Date.now();
  // A batch has no request id: its line draws on its own. A failed delivery or a dead letter writes a warning or an error, which always keeps it.
  const line = new LogLine("queue_batch", { queue: batch.queue, messages: batch.messages.length }, { sample: readConfig(env).logSuccessSample });
  try {
    await inLine(line, () => deliverBatch(batch, env));
  } finally {
    line.set({ ms: Date.now() - started });
    line.write();
  }
};

/** The events a message carries: its own (a message of one event), or each of its page's; what is not an event is left out and logged. */
function eventsOf(message: Message<QueuedBody>, queue: string): Received[] {
  const bodies: unknown[] = isPage(message.body) ? message.body.page : [message.body];
  const received: Received[] = [];
  for (const body of bodies) {
    const event = isEventMessage(body) ? parseEvent(body.payload) : null;
    if (event && isEventMessage(body) && event.id === body.id) received.push({ message, body, event });
    // Not something the gateway queued: no retry can make it an event, and the log holds no row for it.
    else log("error", "event_message_malformed", { message_id: message.id, queue });
  }
  return received;
}

async function deliverBatch(batch: MessageBatch<QueuedBody>, env: Env): Promise<void> {
  const received = batch.messages.flatMap((message) => eventsOf(message, batch.queue));
  // A message with no event in it (malformed, or an empty page) has nothing to wait for.
  const carrying = new Set(received.map(({ message }) => message));
  for (const message of batch.messages) if (!carrying.has(message)) message.ack();
  const messages = batch.messages.filter((message) => carrying.has(message));

  // Where each event is logged and whether it is still pending: one read per database that may hold
  // them. Throws when D1 does: the queue retries the batch, nothing is acknowledged.
  const logged = await findLogged(
    env,
    received.map(({ event }) => event),
  );
  const notLogged = (id: string) => log("warn", "event_not_logged", { event_id: id, queue: batch.queue });

  if (isDeadLetterQueue(batch.queue)) {
    // A dead-lettered page carries the events its tries delivered beside the one that kept failing: only the ones
    // the log still shows pending (or does not hold) are given up on. A settled one is neither marked, nor told to
    // on-call as abandoned (whose runbook resends it), nor counted: the partner got it, or it was counted when failed.
    const abandoned = received.filter(({ event }) => logged.get(event.id)?.pending !== false);
    const groups = new Map<D1Database, string[]>();
    for (const { event } of abandoned) {
      const at = logged.get(event.id);
      if (at) groups.set(at.db, [...(groups.get(at.db) ?? []), event.id]);
    }
    // One write per database, six at a time. Throws when D1 does: the queue retries the batch (retry_delay), nothing is acknowledged.
    await inPool([...groups], ([db, ids]) => recordDeadLettered(db, ids, (id) => logged.get(id)?.table));
    for (const message of messages) message.ack();
    for (const { body } of abandoned) {
      if (!logged.has(body.id)) notLogged(body.id);
      log("error", "event_delivery_abandoned", { event_id: body.id, queue: batch.queue });
    }
    // One data point for the batch (up to 100 messages): Analytics Engine takes a bounded number per invocation.
    if (abandoned.length > 0) metric(env, "event_failed", { operation: "dead_letter", count: abandoned.length });
    return;
  }

  // A copy of an event that an earlier message already got delivered (a re-drain's, a sweep's, a resend's,
  // a page's earlier try) or that is failed is settled without a delivery; one the log does not hold is
  // delivered (see the top of this file).
  const toDeliver: Due[] = [];
  for (const { message, body } of received) {
    const at = logged.get(body.id);
    if (!at) notLogged(body.id);
    if (!at || at.pending) toDeliver.push({ message, body, db: at?.db ?? null, table: at?.table });
  }

  const problems = configProblems(env);
  if (problems.length > 0) return holdBack(env, messages, toDeliver, problems);
  // In parallel, six at a time (DELIVERY_PARALLELISM) over every event of the batch, whatever message carries it:
  // each delivery holds one connection at a time (its POST; the log's writes follow the batch's POSTs), so the
  // invocation stays within the Workers limit of six, and 12 events to a receiver that takes 200 ms are done in
  // about 400 ms (docs/capacity.md, "Webhooks").
  // An event two messages of the batch carry (a page's copy and the sweep's) is POSTed once: each copy is settled
  // by that delivery's outcome.
  const copies = new Map<string, Due[]>();
  for (const due of toDeliver) copies.set(due.body.id, [...(copies.get(due.body.id) ?? []), due]);
  const firsts = [...copies.values()].map((dues) => dues[0]!);
  const attempts = await inPool(firsts, (due) => deliver(env, due), DELIVERY_PARALLELISM);
  const settled = attempts.flatMap((attempt, i) => [
    attempt,
    ...copies
      .get(firsts[i]!.body.id)!
      .slice(1)
      .map(({ message }) => ({ message, ok: attempt.ok, delivered: null })),
  ]);
  settleMessages(env, messages, new Set(settled.filter((attempt) => !attempt.ok).map((attempt) => attempt.message)));
  await writeDeliveries(attempts.map((attempt) => attempt.delivered));
}

function parseEvent(payload: string): GatewayEvent | null {
  try {
    // Read as postEvent sends it: a message queued before data.object_type existed is still an event.
    const event = JSON.parse(withObjectType(payload)) as GatewayEvent;
    assertWellFormed(event);
    return event;
  } catch {
    return null;
  }
}
