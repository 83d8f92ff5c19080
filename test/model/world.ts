// How test/integration/model.test.ts looks at the world and moves its time. What it
// judges by: the sandbox's own view of a record and its call log, the events
// the receiver got, and every place card data could leak to. What it drives:
// a record's alarms (it holds them until it says their time has come, then
// moves the record's clock there and runs them) and the delivery of events
// (it takes what the gateway hands the queue and runs the consumer itself).
// It reads no column of the gateway's record for the verdict; it reads the
// object's storage only where the rule is about what is stored (card data, an
// erasure, a record deleted at its end: rule 10), and rewrites the record's
// times only to let time pass, as test/helpers.ts's letOtpWaitPass does.

import {
  createExecutionContext,
  evictDurableObject,
  listDurableObjectIds,
  runDurableObjectAlarm,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { vi } from "vitest";
import { tidShards } from "../../src/d1/shards";
import type { EventMessage } from "../../src/events";
import { EventPager } from "../../src/events/pager";
import worker from "../../src/index";
import { receiptStub } from "../../src/record/receipt-object";
import { clock as gatewayClock } from "../../src/shared/clock";
import { type Place, STORES } from "../../src/stores";
import { TID_TABLES } from "../../src/tids/tid-index";
import { callGateway, consume, type Received, receiver } from "../events";
import { dumpD1, dumpStorage } from "../helpers";
import type { KindName, LoggedCall } from "./contract";

export const stubOf = (kind: KindName, id: string) => receiptStub(env, kind, id);
const sandboxStub = () => env.SANDBOX!.get(env.SANDBOX!.idFromName("sandbox"));

// ---------------------------------------------------------------------------
// The upstream

export interface SandboxSeen {
  state: number;
  /** The tid the upstream holds (a user's is derived from theirs: rule 9). */
  tid: string;
  /** OTP submissions the upstream received, judged or not. */
  otpAttempts: number;
  /** When the receipt's OTP was last sent (ms), null when never. */
  otpSentAt: number | null;
  /** Who cancelled it, as the cancel call said ("gateway" for the cancel after three failed guesses). */
  cancelledBy: string | null;
  /** The reason the cancel that cancelled it gave. */
  cancelReason: string | null;
  /** A receipt's fiscal data block as the upstream shows it (rule 14); null for a transfer or when there is none. */
  ofd: unknown;
  /** When the upstream's missing fiscal data appears (tok_sandbox_fiscal_late, ms), null when none is missing. */
  fiscalDueAt: number | null;
}

/** The sandbox's own view of a record (reading it also applies a supplier's answer that is due). */
export async function sandboxSeen(kind: KindName, id: string): Promise<SandboxSeen> {
  const res = await exports.default.fetch(`http://gateway.test/__sandbox/${kind === "receipt" ? "receipts" : "a2c"}/${id}`);
  if (res.status !== 200) throw new Error(`sandbox view of ${kind} ${id}: ${res.status}`);
  const body = (await res.json()) as Record<string, unknown>;
  return {
    state: body.state as number,
    tid: (body.tid ?? body.tId) as string,
    otpAttempts: body.otp_attempts as number,
    otpSentAt: kind === "receipt" ? ((body.otp_sent_at as number | null) ?? null) : null,
    cancelledBy: (body.cancelled_by as string | null | undefined) ?? null,
    cancelReason: (body.cancel_reason as string | null | undefined) ?? null,
    ofd: kind === "receipt" ? (body.ofd ?? null) : null,
    fiscalDueAt: kind === "receipt" ? ((body.fiscal_due_at as number | null | undefined) ?? null) : null,
  };
}

/** The calls the sandbox logged for one request (a create's name no record: its tid is the upstream's). */
export async function callsOfRequest(requestId: string): Promise<(LoggedCall & { tid: string | null })[]> {
  const res = await exports.default.fetch("http://gateway.test/__sandbox/calls");
  if (res.status !== 200) throw new Error(`sandbox call log: ${res.status}`);
  return ((await res.json()) as (LoggedCall & { tid: string | null })[]).filter((c) => c.request_id === requestId);
}

/** Every call the sandbox received naming the record, oldest first. */
export async function callLog(id: string): Promise<LoggedCall[]> {
  const res = await exports.default.fetch(`http://gateway.test/__sandbox/calls?id=${encodeURIComponent(id)}`);
  if (res.status !== 200) throw new Error(`sandbox call log: ${res.status}`);
  return (await res.json()) as LoggedCall[];
}

// ---------------------------------------------------------------------------
// Time: a record's alarms run when the test says their time has come

/** Parked alarms are moved this far out, so the runtime never fires one behind the test's back. */
const PARK_MS = 6 * 3600_000;

export interface Clock {
  /** The alarm the test parked: when it is really due, and where it was moved to. */
  parked: { due: number; at: number } | null;
  /** How far the record's clock was moved ahead of the real one so far (ms). */
  ahead: number;
}

export const newClock = (): Clock => ({ parked: null, ahead: 0 });

const getAlarm = (kind: KindName, id: string) => runInDurableObject(stubOf(kind, id), (_i, state) => state.storage.getAlarm());

/** When the record's alarm is due, null when none is set (the real time, for one the test parked). */
export async function alarmDue(kind: KindName, id: string, clock: Clock): Promise<number | null> {
  const at = await getAlarm(kind, id);
  if (at === null) return null;
  return clock.parked && clock.parked.at === at ? clock.parked.due : at;
}

/** Moves the record's alarm out of the runtime's reach, remembering when it is due. */
export async function park(kind: KindName, id: string, clock: Clock): Promise<void> {
  const due = await alarmDue(kind, id, clock);
  if (due === null || clock.parked?.due === due) return;
  const at = due + PARK_MS;
  await runInDurableObject(stubOf(kind, id), (_i, state) => state.storage.setAlarm(at));
  clock.parked = { due, at };
}

/**
 * As if `ms` had passed for the record: every time its object stored (the
 * columns named *_at or *_since) and the sandbox's times for it move that far
 * into the past. The object is evicted so that it reads them again.
 */
export async function letRecordTimePass(kind: KindName, id: string, ms: number, clock: Clock): Promise<void> {
  if (ms <= 0) return;
  await runInDurableObject(stubOf(kind, id), (_i, state) => {
    const sql = state.storage.sql;
    const columns = sql
      .exec<{ name: string }>("PRAGMA table_info(record)")
      .toArray()
      .map((c) => c.name)
      .filter((name) => /_(at|since)$/.test(name));
    for (const column of columns) sql.exec(`UPDATE record SET "${column}" = "${column}" - ? WHERE "${column}" > 0`, ms);
  });
  await evictDurableObject(stubOf(kind, id));
  if (kind === "receipt") {
    await runInDurableObject(sandboxStub(), (_i, state) => {
      state.storage.sql.exec("UPDATE receipts SET otp_sent_ms = otp_sent_ms - ?1, supplier_due_ms = supplier_due_ms - ?1 WHERE id = ?2", ms, id);
    });
  }
  clock.ahead += ms;
}

/** Lets time pass until the record's alarm is due and runs it. False when none was set. */
export async function runNextAlarm(kind: KindName, id: string, clock: Clock): Promise<boolean> {
  const due = await alarmDue(kind, id, clock);
  if (due === null) return false;
  await letRecordTimePass(kind, id, due - gatewayClock.now() + 1, clock);
  clock.parked = null;
  await runDurableObjectAlarm(stubOf(kind, id));
  return true;
}

// ---------------------------------------------------------------------------
// Events: the queue and the receiver, in the test's hands

export interface Delivered {
  id: string;
  type: string;
  recordId: string;
  state: number | undefined;
  body: string;
}

/**
 * Takes every message the gateway hands the events queue (the test's queue
 * has no consumer), so the test can run the consumer itself; `lose(recordId)`
 * makes the queue lose that record's next message, as any single component
 * may (the contract's Events section); `refuse(recordId)` makes the receiver
 * answer 500 to that record's deliveries until `accept(recordId)` (the
 * consumer then asks the queue to retry them: the test drops those retries,
 * and the event stays pending in the gateway's log).
 */
export function eventQueue() {
  const queued: EventMessage[] = [];
  const losing = new Map<string, number>();
  const refusing = new Set<string>();
  let lost = 0;
  const taken: Received[] = [];
  receiver((delivery) => {
    if (refusing.has(recordIdOf(delivery.body))) return new Response("down", { status: 500 });
    taken.push(delivery);
    return new Response(null, { status: 204 });
  });
  const take = (body: EventMessage) => {
    const recordId = recordIdOf(body.payload);
    const toLose = losing.get(recordId) ?? 0;
    if (toLose > 0) {
      losing.set(recordId, toLose - 1);
      lost++;
    } else {
      queued.push(body);
    }
  };
  const realSendBatch = env.EVENTS.sendBatch.bind(env.EVENTS);
  vi.spyOn(env.EVENTS, "sendBatch").mockImplementation(async (batch, options) => {
    for (const message of batch) take(message.body as EventMessage);
    return realSendBatch(batch, options);
  });
  // A drain's events are queued once its pager has them (src/events/pager.ts sends them a page at a time).
  const realAdd = EventPager.prototype.add;
  vi.spyOn(EventPager.prototype, "add").mockImplementation(async function (this: EventPager, messages) {
    await realAdd.call(this, messages);
    for (const message of messages) take(message);
  });
  return {
    lose(recordId: string) {
      losing.set(recordId, (losing.get(recordId) ?? 0) + 1);
    },
    refuse(recordId: string) {
      refusing.add(recordId);
    },
    accept(recordId: string) {
      refusing.delete(recordId);
    },
    get lost() {
      return lost;
    },
    /** Runs the consumer on everything queued so far and returns what the receiver took since the last call. */
    async deliver(): Promise<Delivered[]> {
      while (queued.length > 0) {
        const batch = queued.splice(0, 100);
        const refused = batch.filter((body) => refusing.has(recordIdOf(body.payload)));
        const accepted = batch.filter((body) => !refusing.has(recordIdOf(body.payload)));
        // What the receiver refuses the consumer retries: the test drops those messages.
        if (refused.length > 0) await consume(refused.map((body) => ({ body })));
        if (accepted.length === 0) continue;
        const result = await consume(accepted.map((body) => ({ body })));
        // The receiver takes everything else: a retry would be the consumer's failure, not the receiver's.
        if (result.retryMessages.length > 0)
          throw new Error(`the consumer retried ${result.retryMessages.length} of ${accepted.length} events the receiver took`);
      }
      return taken.splice(0).map((r) => parseDelivery(r.body));
    },
  };
}

export type EventQueue = ReturnType<typeof eventQueue>;

function recordIdOf(payload: string): string {
  const object = (JSON.parse(payload) as { data?: { object?: { id?: string; receipt_id?: string } } }).data?.object;
  return object?.receipt_id ?? object?.id ?? "";
}

function parseDelivery(body: string): Delivered {
  const event = JSON.parse(body) as { id: string; type: string; data: { object: { id?: string; receipt_id?: string; state?: number } } };
  return { id: event.id, type: event.type, recordId: recordIdOf(body), state: event.data.object.state, body };
}

/**
 * The minute cron as the runtime would fire it, `aheadMs` (a minute and a
 * half) from now: the events sweep re-queues what stayed pending with no
 * attempt under way (the contract: in development within one minute).
 */
export async function runCron(aheadMs = 90_000): Promise<void> {
  const ctx = createExecutionContext();
  const controller = { scheduledTime: gatewayClock.now() + aheadMs, cron: "* * * * *", noRetry() {} } as ScheduledController;
  await worker.scheduled!(controller, env, ctx);
  await waitOnExecutionContext(ctx);
}

// ---------------------------------------------------------------------------
// Where card data could leak to

/** Every text cell of every table of a record's object: record, audit, outbox (and any other). */
export const dumpObject = (kind: KindName, id: string): Promise<string[]> => dumpStorage(stubOf(kind, id), `${kind} ${id} `);

/** The tid index rows of the given records (by record id) and tids. */
export async function dumpTidIndex(ids: readonly string[], tids: readonly string[]): Promise<string[]> {
  if (ids.length === 0 && tids.length === 0) return [];
  const marks = (n: number) => Array.from({ length: n }, () => "?").join(", ");
  const rows: string[] = [];
  for (const { db } of tidShards(env)) {
    // Every table of the index: tid_index and its ring of slots (src/tids/tid-index.ts).
    for (const table of TID_TABLES) {
      const { results } = await db
        .prepare(`SELECT * FROM ${table} WHERE receipt_id IN (${marks(ids.length) || "NULL"}) OR tid IN (${marks(tids.length) || "NULL"})`)
        .bind(...ids, ...tids)
        .all();
      rows.push(...results.map((row) => `tid_index: ${JSON.stringify(row)}`));
    }
  }
  return rows;
}

// ---------------------------------------------------------------------------
// The gateway's event operations, as the partner backend calls them

export interface ListedEvent {
  id: string;
  type: string;
  data?: { object?: { id?: string; receipt_id?: string; state?: number } };
  delivery?: { status: string };
}

/** events/list for one record (every event the log lists for it, newest first): the status and the events. */
export async function listedEvents(recordId: string): Promise<{ status: number; events: ListedEvent[]; raw: string }> {
  const res = await callGateway("events/list", { receipt_id: recordId, limit: 100 });
  const raw = await res.text();
  const events = res.status === 200 ? ((JSON.parse(raw) as { events: ListedEvent[] }).events ?? []) : [];
  return { status: res.status, events, raw };
}

/** Every receipt fiscal/pending lists (rule 14), by id, page after page as the partner reads them. */
export async function fiscalListed(): Promise<Map<string, { state: number }>> {
  const listed = new Map<string, { state: number }>();
  let after: string | undefined;
  for (;;) {
    const res = await callGateway("fiscal/pending", { limit: 100, ...(after === undefined ? {} : { after }) });
    if (res.status !== 200) throw new Error(`fiscal/pending: ${res.status} ${await res.text()}`);
    const page = (await res.json()) as { receipts: { id: string; state: number }[]; has_more: boolean };
    for (const row of page.receipts) listed.set(row.id, { state: row.state });
    if (!page.has_more || page.receipts.length === 0) return listed;
    after = page.receipts.at(-1)!.id;
  }
}

/** events/resend of one event: its status and body. */
export async function resendEvent(id: string): Promise<{ status: number; raw: string }> {
  const res = await callGateway("events/resend", { id });
  return { status: res.status, raw: await res.text() };
}

/** What a record's object still stores (every row of its tables, the runtime's own left out), and its alarm. */
export async function stored(kind: KindName, id: string): Promise<{ rows: string[]; alarm: number | null }> {
  const rows = (await dumpStorage(stubOf(kind, id))).filter((row) => !row.startsWith("__"));
  return { rows, alarm: await getAlarm(kind, id) };
}

// ---------------------------------------------------------------------------
// Every store the gateway registers (src/stores.ts), as the oracle reads them

/** Every SQLite row and key-value entry of one Durable Object, each as a line. */
async function dumpObjectWhole(stub: DurableObjectStub, label: string): Promise<string[]> {
  const rows = await dumpStorage(stub, label);
  const entries = await runInDurableObject(stub, async (_i, state) => [...(await state.storage.list())]);
  return [...rows, ...entries.map(([key, value]) => `${label}${key}: ${JSON.stringify(value)}`)];
}

/** Rule 13's counters as stored: every RiskObject's entries, sorted (a refusal must leave them as they were). */
export async function riskCounters(): Promise<string[]> {
  const lines: string[] = [];
  // Its key-value entries alone: src/stores.ts names them (keys: log), and a read of each object is what a step pays.
  for (const id of await listDurableObjectIds(env.RISK)) {
    const entries = await runInDurableObject(env.RISK.get(id), async (_i, state) => [...(await state.storage.list())]);
    lines.push(...entries.map(([key, value]) => `risk ${id.toString()} ${key}: ${JSON.stringify(value)}`));
  }
  return lines.sort();
}

/**
 * What a store registered in src/stores.ts holds now, as lines of text, for
 * the oracle to search; or why it cannot be read from here (a store the
 * platform keeps beyond the test's reach). A record's objects are those of
 * `records` (the run's pool and the records it ended); an R2 bucket's
 * objects written since `since` (ms).
 */
async function storeLines(place: Place, records: readonly { kind: KindName; id: string }[], since: number): Promise<string[] | string> {
  switch (place.kind) {
    case "durable-object": {
      if (place.binding === "RECEIPTS") {
        const lines: string[] = [];
        for (const rec of records) lines.push(...(await dumpObjectWhole(stubOf(rec.kind, rec.id), `${rec.kind} ${rec.id} `)));
        return lines;
      }
      const namespace = (env as unknown as Record<string, DurableObjectNamespace>)[place.binding];
      if (!namespace) return `no binding ${place.binding} in the test's configuration`;
      const lines: string[] = [];
      for (const id of await listDurableObjectIds(namespace)) lines.push(...(await dumpObjectWhole(namespace.get(id), `${place.className} `)));
      return lines;
    }
    case "d1":
      return dumpD1();
    case "r2": {
      const bucket = (env as unknown as Record<string, R2Bucket>)[place.binding];
      if (!bucket) return `no binding ${place.binding} in the test's configuration`;
      const lines: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await bucket.list({ cursor, limit: 1000 });
        for (const object of page.objects) {
          if (object.uploaded.getTime() < since) continue;
          const body = await bucket.get(object.key);
          if (body) lines.push(`${place.binding} ${object.key}: ${await body.text()}`);
        }
        cursor = page.truncated ? page.cursor : undefined;
      } while (cursor);
      return lines;
    }
    case "kv": {
      const kv = (env as unknown as Record<string, KVNamespace>)[place.binding];
      if (!kv) return `no binding ${place.binding} in the test's configuration`;
      const lines: string[] = [];
      for (const key of (await kv.list()).keys) lines.push(`${place.binding} ${key.name}: ${await kv.get(key.name)}`);
      return lines;
    }
    case "cache":
      return "the Cache API cannot be listed";
    case "queue":
      return "a queue's messages are read as the receiver gets them";
    case "analytics-engine":
      return "Workers Analytics Engine cannot be read back in a test";
    case "rate-limit":
      return "the platform's rate limiters keep counts only";
    case "logs":
      return "the gateway's log lines are read as the run collects them";
  }
}

/**
 * Every store of src/stores.ts, walked from the list itself, so a store
 * added later is searched as soon as it has its entry: the lines of each one
 * this test can read, and the ones it cannot, with why. A store that may hold
 * a phone number or an `account` value and that the erasure must reach
 * (`record` or `cron`) has to be readable here, or the walk throws.
 */
export async function everyRegisteredStore(
  records: readonly { kind: KindName; id: string }[],
  since: number,
): Promise<{ lines: { store: string; line: string }[]; unread: { store: string; why: string }[] }> {
  const lines: { store: string; line: string }[] = [];
  const unread: { store: string; why: string }[] = [];
  const read = new Set<string>();
  for (const store of STORES) {
    // A place read once for every store in it: every D1 table in one pass (dumpD1 reads every table of every database), an object's whole storage.
    const place = store.place.kind === "d1" ? "d1" : `${store.place.kind} ${"binding" in store.place ? store.place.binding : ""}`;
    if (read.has(place)) continue;
    read.add(place);
    const got = await storeLines(store.place, records, since);
    if (typeof got === "string") {
      const personal = (store.personal as readonly string[]).some((field) => field === "phone" || field === "account values");
      if (personal && (store.erasure.by === "record" || store.erasure.by === "cron"))
        throw new Error(`the model cannot read ${store.name} (${got}), which the erasure must reach`);
      unread.push({ store: store.name, why: got });
      continue;
    }
    lines.push(...got.map((line) => ({ store: store.name, line })));
  }
  return { lines, unread };
}
