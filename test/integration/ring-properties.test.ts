/**
 * Property tests of the two rings of slots (src/d1/ring.ts): the tid index
 * (src/tids/tid-index.ts) and the event log (src/events/log-database.ts),
 * driven through their own functions on the real D1 of the pool with
 * explicit times, a few keys and ids so that they collide often, and a
 * window of seconds so that the ring turns often. Random sequences of what
 * the gateway does (claims and their ends, logging, deliveries, resends),
 * jumps of time up to two turns of the ring, the cron's run (the ring's
 * turn and the first table's own retention) and rows written by the release
 * before the ring; after each step what is stored and what the reads answer
 * is held to a reference model of rule 1 and of the log's retention.
 */
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { encodeTime } from "ulid";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { RetentionPolicy } from "../../src/config/retention-policy";
import { runRetention } from "../../src/cron/retention";
import { RING_SLOTS, slotAt, slotPeriodMs, slotToEmpty, unionAll } from "../../src/d1/ring";
import type { GatewayEvent } from "../../src/events";
import {
  EVENT_TABLES,
  listEvents,
  logTableAt,
  markPendingAgain,
  recordDeadLettered,
  recordDeliveries,
  recordEvents,
  recordFailedAttempt,
} from "../../src/events/log-database";
import type { DeliveryStatus, EventType } from "../../src/events/types";
import { claimTid, completeTid, expireTid, findTid, releaseTid, TID_TABLES } from "../../src/tids/tid-index";
import { makeEvent } from "../events";

/** A few dozen runs of a short sequence each: the file stays well under a minute on a busy machine. */
const RUNS = 40;
const STEPS = 24;
/** A pass takes seconds; a failure's shrinking runs sequences again for up to a minute or two, and then names its counterexample. */
const PROPERTY_TIMEOUT_MS = 240_000;

/** How far ahead of the cron's clock a Worker's clock runs when it writes: mostly not at all, up to a period and a half. */
const ahead = (period: number) => fc.constantFrom(0, 0, 0, Math.floor(period * 0.6), Math.floor(period * 1.5));

/** A time far from 0, at the start of a turn of both rings; a run starts in any of its slots (`start`). */
const T0 = 1_800_000_000_000;
const start = fc.nat({ max: RING_SLOTS - 1 });

const TID_WINDOW = 6_000;
const TID_PERIOD = slotPeriodMs(TID_WINDOW);
const LEASE = 2_000;
const DELIVERED = 6_000;
const UNDELIVERED = 15_000;
const EVENT_PERIOD = slotPeriodMs(DELIVERED);

const policy: RetentionPolicy = {
  replayMs: TID_WINDOW,
  tidRetentionMs: TID_WINDOW,
  deliveredEventsMs: DELIVERED,
  undeliveredEventsMs: UNDELIVERED,
  recordRetentionMs: 30 * 86_400_000,
  batchSize: 1000,
  rounds: 2,
};

const db = () => env.DB;

// Each cron run logs its counts: hundreds of lines here, which say nothing the model does not check.
beforeEach(() => {
  vi.spyOn(console, "log").mockImplementation(() => {});
});
afterEach(() => vi.restoreAllMocks());
const cron = (now: number) => runRetention(env, now, policy, [{ binding: "DB", db: db() }]);

/** A jump of time with no cron run in it: often a little (a lease, a period), up to two turns of a ring. */
const jump = (period: number) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 0, max: 2 * period }) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 2 * RING_SLOTS * period }) },
  );

/** Time passing with the cron running in each period, as it does every minute: `periods` of them, the run `offset` tenths into each. */
const turns = fc.record({
  op: fc.constant("turns" as const),
  periods: fc.integer({ min: 1, max: RING_SLOTS + 2 }),
  offset: fc.integer({ min: 0, max: 9 }),
});

/** The cron running once in each of the next `periods` periods, `offset` tenths into each. */
async function turnRing(at: number, period: number, step: { periods: number; offset: number }, run: (now: number) => Promise<void>): Promise<number> {
  let now = at;
  for (let i = 0; i < step.periods; i++) {
    now = (Math.floor(now / period) + 1) * period + Math.floor((step.offset * period) / 10);
    await run(now);
  }
  return now;
}

// ---------------------------------------------------------------------------
// The tid index.

const KEYS = [
  { owner: "partner:a", tid: "t1" },
  { owner: "partner:a", tid: "t2" },
  { owner: "user:u1", tid: "t1" },
  { owner: "user:u1", tid: "t2" },
] as const;
/** A user's tid goes upstream as a derived UUID (one per key here); the partner's as it is. */
const upstreamOf = (k: number) => (KEYS[k]!.owner.startsWith("user:") ? `00000000-0000-8000-8000-00000000000${k}` : KEYS[k]!.tid);
const FINGERPRINTS = ["aa".repeat(16), "bb".repeat(16)] as const;

type TidOp =
  | { op: "claim"; key: number; fp: number; ahead: number }
  | { op: "complete"; key: number; stale: boolean; backstop: boolean }
  | { op: "release"; key: number; stale: boolean }
  | { op: "expire"; key: number }
  | { op: "plant"; key: number; fp: number; completedAgo: number | null }
  | { op: "jump"; ms: number }
  | { op: "turns"; periods: number; offset: number }
  | { op: "cron" };

const key = fc.nat({ max: KEYS.length - 1 });
const fp = fc.nat({ max: 1 });
const tidOp: fc.Arbitrary<TidOp> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant("claim" as const), key, fp: fc.constantFrom(0, 0, 0, 1), ahead: ahead(TID_PERIOD) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("complete" as const), key, stale: fc.boolean(), backstop: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("release" as const), key, stale: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("expire" as const), key }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("plant" as const),
      key,
      fp,
      completedAgo: fc.option(fc.integer({ min: 0, max: TID_WINDOW * 2 }), { nil: null }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("jump" as const), ms: jump(TID_PERIOD) }) },
  { weight: 2, arbitrary: fc.constant({ op: "cron" as const }) },
  { weight: 2, arbitrary: turns },
);

/** What rule 1 says (owner, tid) is: free (never claimed, released, or forgotten past its window), claimed, or completed. */
type TidState =
  | { state: "free" }
  | { state: "pending"; token: string; fp: number; updatedAt: number; table?: string }
  | { state: "completed"; receipt: string; fp: number; updatedAt: number };

interface TidModel {
  now: number;
  keys: TidState[];
  /** Every token a claim of the key was given, oldest first: a stale one must change nothing. */
  tokens: string[][];
  receipts: number;
}

/** The key as rule 1 sees it at `now`: a completed row past its window is forgotten. */
const tidAt = (m: TidModel, k: number, now = m.now): TidState => {
  const s = m.keys[k]!;
  return s.state === "completed" && s.updatedAt < now - TID_WINDOW ? { state: "free" } : s;
};

async function resetTids(): Promise<void> {
  await db().batch([...TID_TABLES.map((table) => db().prepare(`DELETE FROM ${table}`)), db().prepare("UPDATE tid_walk SET at = 0, prev = 0")]);
}

interface StoredTid {
  at: string;
  owner: string;
  tid: string;
  status: number;
  claim_token: string | null;
  receipt_id: string | null;
  updated_at: number;
}

/** Every row of every table, within its window or not, in one statement. */
const TID_ROWS = unionAll(
  TID_TABLES.map((table) => `SELECT '${table}' AS at, owner, tid, status, claim_token, receipt_id, updated_at FROM ${table}`),
);

async function tidRows(): Promise<StoredTid[]> {
  return (await db().prepare(TID_ROWS).all<StoredTid>()).results;
}

async function checkTids(m: TidModel, trail: string): Promise<void> {
  const all = await tidRows();
  for (let k = 0; k < KEYS.length; k++) {
    const want = tidAt(m, k);
    const rows = all.filter((row) => row.owner === KEYS[k]!.owner && row.tid === KEYS[k]!.tid);
    const live = rows.filter((row) => row.status === 0 || row.updated_at >= m.now - TID_WINDOW);
    const where = `${trail}\nkey ${k} at ${m.now}: rows ${JSON.stringify(rows)}, model ${JSON.stringify(want)}`;
    expect(live.length, `no two rows within their window for one key, and none lost: ${where}`).toBe(want.state === "free" ? 0 : 1);
    const found = await findTid(db(), KEYS[k]!.owner, KEYS[k]!.tid, TID_WINDOW, m.now);
    if (want.state === "free") expect(found, `findTid: ${where}`).toBeNull();
    else if (want.state === "pending")
      expect(found && { status: found.status, token: found.claim_token }, `findTid: ${where}`).toEqual({ status: "pending", token: want.token });
    else
      expect(found && { status: found.status, receipt: found.receipt_id }, `findTid: ${where}`).toEqual({
        status: "completed",
        receipt: want.receipt,
      });
  }
}

async function tidStep(m: TidModel, step: TidOp, trail: string): Promise<void> {
  const k = "key" in step ? step.key : 0;
  const { owner, tid } = KEYS[k]!;
  const s = tidAt(m, k);
  const tokenFor = (stale: boolean) => (stale ? m.tokens[k]![0] : m.tokens[k]!.at(-1)) ?? "never-given";
  switch (step.op) {
    case "claim": {
      // A Worker whose clock runs ahead claims at its own time: rule 1 is as it sees it then. Not when a row
      // passes its window between the two clocks: the claim goes to a slot beside it, and until the clocks meet
      // a Worker on time sees both within their window, which a model of one clock cannot answer.
      const at = tidAt(m, k, m.now + step.ahead).state === tidAt(m, k).state ? m.now + step.ahead : m.now;
      const s = tidAt(m, k, at);
      const claim = await claimTid(
        db(),
        { owner, tid, upstreamTid: upstreamOf(k), kind: "receipt", fingerprint: FINGERPRINTS[step.fp]!, leaseMs: LEASE, windowMs: TID_WINDOW },
        at,
      );
      const told = `${trail}\nclaim at ${at} answered ${JSON.stringify(claim)} for model ${JSON.stringify(s)}`;
      if (s.state === "free" || (s.state === "pending" && s.fp === step.fp && at - s.updatedAt >= LEASE)) {
        expect(claim, told).toMatchObject({ kind: "claimed", takeover: s.state === "pending" });
        if (claim.kind !== "claimed") return;
        m.keys[k] = { state: "pending", token: claim.token, fp: step.fp, updatedAt: at, table: claim.table };
        m.tokens[k]!.push(claim.token);
      } else if (s.fp !== step.fp) expect(claim.kind, told).toBe("conflict");
      else if (s.state === "pending") expect(claim.kind, told).toBe("in_progress");
      else expect(claim.kind === "replay" && claim.row.receipt_id, told).toBe(s.receipt);
      return;
    }
    case "complete": {
      const token = tokenFor(step.stale);
      const receipt = `r-${++m.receipts}`;
      const where = step.backstop || s.state !== "pending" ? undefined : s.table;
      const done = await completeTid(db(), { owner, tid, token }, receipt, m.now, TID_WINDOW, where);
      const owed = s.state === "pending" && s.token === token;
      expect(done, `${trail}\ncompletion with ${step.stale ? "the first" : "the last"} token, model ${JSON.stringify(s)}`).toBe(owed);
      if (owed) m.keys[k] = { state: "completed", receipt, fp: s.fp, updatedAt: m.now };
      return;
    }
    case "release": {
      const token = tokenFor(step.stale);
      await releaseTid(db(), { owner, tid, token });
      if (s.state === "pending" && s.token === token) m.keys[k] = { state: "free" };
      return;
    }
    case "expire": {
      const token = tokenFor(false);
      await expireTid(db(), { owner, tid, token });
      if (s.state === "pending" && s.token === token) m.keys[k] = { ...s, updatedAt: 0 };
      return;
    }
    case "plant": {
      // As the release before the ring writes a row: into tid_index, and only when no row holds the key within its window.
      if (s.state !== "free") return;
      const token = step.completedAgo === null ? crypto.randomUUID() : null;
      const updatedAt = step.completedAgo === null ? m.now : m.now - step.completedAgo;
      const upstream = upstreamOf(k) === tid ? null : upstreamOf(k).replaceAll("-", "");
      const put = await db()
        .prepare(
          `INSERT INTO tid_index (owner, tid, upstream_tid, kind, status, fingerprint, claim_token, receipt_id, created_at, updated_at)
           VALUES (?1, ?2, unhex(?3), 0, ?4, unhex(?5), ?6, ?7, ?8, ?9) ON CONFLICT DO NOTHING`,
        )
        .bind(
          owner,
          tid,
          upstream,
          token ? 0 : 1,
          FINGERPRINTS[step.fp],
          token,
          token ? null : `r-planted-${++m.receipts}`,
          updatedAt - 100,
          updatedAt,
        )
        .run();
      if (put.meta.changes !== 1) return;
      if (token) {
        m.keys[k] = { state: "pending", token, fp: step.fp, updatedAt, table: "tid_index" };
        m.tokens[k]!.push(token);
      } else m.keys[k] = { state: "completed", receipt: `r-planted-${m.receipts}`, fp: step.fp, updatedAt };
      return;
    }
    case "jump":
      m.now += step.ms;
      return;
    case "cron":
      await cron(m.now);
      return;
    case "turns":
      m.now = await turnRing(m.now, TID_PERIOD, step, async (now) => {
        await cron(now);
        await checkTids({ ...m, now }, `${trail}\ncron at ${now}`);
      });
      return;
  }
}

describe("the tid index's ring, under random claims, ends, jumps of time and cron runs", () => {
  it(
    "holds rule 1 for every key after every step",
    async () => {
      await fc.assert(
        fc.asyncProperty(start, fc.array(tidOp, { minLength: STEPS / 2, maxLength: STEPS }), async (slot, steps) => {
          await resetTids();
          const m: TidModel = { now: T0 + slot * TID_PERIOD, keys: KEYS.map(() => ({ state: "free" })), tokens: KEYS.map(() => []), receipts: 0 };
          const trail: string[] = [];
          for (const step of steps) {
            trail.push(`${JSON.stringify(step)} (slot written ${slotAt(m.now, TID_PERIOD)}, emptied ${slotToEmpty(m.now, TID_PERIOD)})`);
            await tidStep(m, step, trail.join("\n"));
            await checkTids(m, trail.join("\n"));
          }
        }),
        { numRuns: RUNS },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );
});

// ---------------------------------------------------------------------------
// The event log.

/** A handful of events: a third of a type of INDEXED_TYPES (its own index), the rest of a dense type. */
const EVENTS = 6;
const typeOf = (e: number): EventType => (e % 3 === 0 ? "receipt.held" : "receipt.paid");
/** The event's id: its creation time, then its number (Crockford base32 digits). */
const eventId = (e: number, createdAt: number) => `evt_${encodeTime(createdAt, 10)}${String(e).padStart(16, "0")}`;

type EventOp =
  | { op: "log"; events: number[]; lag: number; old: boolean; ahead: number }
  | { op: "deliver" | "fail" | "dead" | "resend"; event: number }
  | { op: "jump"; ms: number }
  | { op: "turns"; periods: number; offset: number }
  | { op: "cron" };

const event = fc.nat({ max: EVENTS - 1 });
const eventOp: fc.Arbitrary<EventOp> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant("log" as const),
      events: fc.uniqueArray(event, { minLength: 1, maxLength: 3 }),
      // How long after its creation an event is first logged: at once, a little late, or past the delivered window.
      lag: fc.constantFrom(0, 0, 700, DELIVERED + 500),
      // Logged by the release before the ring, into `events`.
      old: fc.boolean(),
      ahead: ahead(EVENT_PERIOD),
    }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("deliver" as const), event }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("fail" as const), event }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("dead" as const), event }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("resend" as const), event }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("jump" as const), ms: jump(EVENT_PERIOD) }) },
  { weight: 2, arbitrary: fc.constant({ op: "cron" as const }) },
  { weight: 2, arbitrary: turns },
);

/** Where an event's row is: the table holding it, or none. */
interface EventState {
  id: string;
  createdAt: number;
  status: DeliveryStatus;
  table: string | null;
}

interface EventModel {
  now: number;
  /** By event number, once first logged. */
  events: (EventState | undefined)[];
}

const withinWindow = (e: EventState, now: number) => e.createdAt >= now - (e.status === "delivered" ? DELIVERED : UNDELIVERED);
const stored = (m: EventModel) => m.events.filter((e): e is EventState => e !== undefined && e.table !== null);

async function resetEvents(): Promise<void> {
  await db().batch([
    ...EVENT_TABLES.map((table) => db().prepare(`DELETE FROM ${table}`)),
    db().prepare("DELETE FROM event_attempts"),
    db().prepare("UPDATE events_cursors SET id = 'evt_', prev = 'evt_'"),
  ]);
}

const STATUS_NAMES: DeliveryStatus[] = ["pending", "delivered", "failed"];

const EVENT_ROWS = unionAll(EVENT_TABLES.map((table) => `SELECT id, status, '${table}' AS at FROM ${table}`));

/** Every row of the log, in every table. */
async function eventRows(): Promise<{ id: string; status: DeliveryStatus; at: string }[]> {
  const { results } = await db().prepare(EVENT_ROWS).all<{ id: string; status: number; at: string }>();
  return results.map((row) => ({ id: row.id, status: STATUS_NAMES[row.status]!, at: row.at })).sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** The filters a partner lists with, and which events of the model each answers. */
const filters = (m: EventModel): { name: string; query: Parameters<typeof listEvents>[1]; keep: (e: EventState) => boolean }[] => {
  const ids = stored(m)
    .map((e) => e.id)
    .sort();
  const middle = ids[Math.floor(ids.length / 2)] ?? eventId(0, m.now);
  return [
    { name: "all", query: { limit: 20 }, keep: () => true },
    { name: "pending", query: { delivery: "pending", limit: 20 }, keep: (e) => e.status === "pending" },
    { name: "failed", query: { delivery: "failed", limit: 20 }, keep: (e) => e.status === "failed" },
    { name: "delivered", query: { delivery: "delivered", limit: 20 }, keep: (e) => e.status === "delivered" },
    { name: "held", query: { type: "receipt.held", limit: 20 }, keep: (e) => typeOf(m.events.indexOf(e)) === "receipt.held" },
    { name: "paid", query: { type: "receipt.paid", limit: 20 }, keep: (e) => typeOf(m.events.indexOf(e)) === "receipt.paid" },
    { name: `after ${middle}`, query: { after: middle, limit: 20 }, keep: (e) => e.id < middle },
    { name: "limit 3", query: { limit: 3 }, keep: () => true },
  ];
};

async function checkEvents(m: EventModel, trail: string, lists = true): Promise<void> {
  const rows = await eventRows();
  const want = stored(m)
    .map((e) => ({ id: e.id, status: e.status, at: e.table! }))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  const where = `${trail}\nat ${m.now}: stored ${JSON.stringify(rows)}\nmodel ${JSON.stringify(m.events)}`;
  expect(rows, `each event stored once, in the model's table, with the model's status: ${where}`).toEqual(want);
  for (const e of m.events)
    if (e && withinWindow(e, m.now)) expect(e.table, `an event within its window is stored: ${JSON.stringify(e)}\n${where}`).not.toBeNull();
  if (!lists) return;
  for (const { name, query, keep } of filters(m)) {
    const answer = await listEvents(db(), query);
    const matching = stored(m)
      .filter(keep)
      .sort((a, b) => (a.id < b.id ? 1 : -1));
    expect({ rows: answer.rows.map((row) => [row.id, row.delivery_status]), hasMore: answer.hasMore }, `listEvents ${name}: ${where}`).toEqual({
      rows: matching.slice(0, query.limit).map((e) => [e.id, e.status]),
      hasMore: matching.length > query.limit,
    });
  }
}

function gatewayEvent(e: number, id: string, createdAt: number): GatewayEvent {
  return { ...makeEvent(`rcpt-prop-${e}`, { type: typeOf(e) }), id, created: createdAt };
}

async function eventStep(m: EventModel, step: EventOp, trail: string): Promise<void> {
  const e = "event" in step ? m.events[step.event] : undefined;
  const id = "event" in step ? (e?.id ?? eventId(step.event, m.now)) : "";
  switch (step.op) {
    case "log": {
      // A Worker whose clock runs ahead logs into the slot of its own time, and makes its events then.
      const at = m.now + step.ahead;
      const into = step.old ? "events" : logTableAt(at, DELIVERED);
      for (const n of step.events) m.events[n] ??= { id: eventId(n, at - step.lag), createdAt: at - step.lag, status: "pending", table: null };
      const items = step.events.map((n) => gatewayEvent(n, m.events[n]!.id, m.events[n]!.createdAt));
      const queued = await recordEvents(db(), items, at, into);
      // An event no table holds is written (again, if retention ended it: a drain that comes that late logs it anew).
      for (const n of step.events) {
        const state = m.events[n]!;
        if (state.table === null) Object.assign(state, { status: "pending", table: into });
      }
      const pending = step.events.map((n) => m.events[n]!).filter((state) => state.status === "pending");
      expect(queued.map((q) => q.id).sort(), `${trail}\nwhat recordEvents queues`).toEqual(pending.map((state) => state.id).sort());
      return;
    }
    case "deliver":
      await recordDeliveries(db(), [{ id, status: 200, at: m.now }]);
      if (e?.table) e.status = "delivered";
      return;
    case "fail":
      await recordFailedAttempt(db(), id, { status: 500, error: "receiver down", nextAttemptAt: m.now + 1_000, at: m.now });
      return;
    case "dead":
      await recordDeadLettered(db(), [id]);
      if (e?.table && e.status === "pending") e.status = "failed";
      return;
    case "resend": {
      const before = await markPendingAgain(db(), id, m.now);
      expect(before?.delivery_status ?? null, `${trail}\nresend of ${JSON.stringify(e)}`).toBe(e?.table ? e.status : null);
      if (e?.table) e.status = "pending";
      return;
    }
    case "jump":
      m.now += step.ms;
      return;
    case "turns":
      m.now = await turnRing(m.now, EVENT_PERIOD, step, async (now) => {
        m.now = now;
        await eventStep(m, { op: "cron" }, `${trail}\ncron at ${now}`);
        await checkEvents(m, `${trail}\ncron at ${now}`, false);
      });
      return;
    case "cron": {
      await cron(m.now);
      // The ring's turn: the slot the next period writes to keeps what is within its window, in the slot written now.
      const victim = `events_${slotToEmpty(m.now, EVENT_PERIOD)}`;
      const current = logTableAt(m.now, DELIVERED);
      for (const state of stored(m)) if (state.table === victim) state.table = withinWindow(state, m.now) ? current : null;
      // The first table keeps its own retention, in bounded batches: what it removed must have been past its window.
      const { results } = await db().prepare("SELECT id FROM events").all<{ id: string }>();
      const left = new Set(results.map((row) => row.id));
      for (const state of stored(m))
        if (state.table === "events" && !left.has(state.id)) {
          expect(withinWindow(state, m.now), `${trail}\nthe first table's retention removed ${JSON.stringify(state)} at ${m.now}`).toBe(false);
          state.table = null;
        }
      return;
    }
  }
}

describe("the event log's ring, under random logging, deliveries, resends, jumps of time and cron runs", () => {
  it(
    "keeps each event within its window once, lists what the model lists, and ends what is past its window",
    async () => {
      await fc.assert(
        fc.asyncProperty(start, fc.array(eventOp, { minLength: STEPS / 2, maxLength: STEPS }), async (slot, steps) => {
          await resetEvents();
          const m: EventModel = { now: T0 + slot * EVENT_PERIOD, events: [] };
          const trail: string[] = [];
          for (const step of steps) {
            trail.push(`${JSON.stringify(step)} (slot written ${slotAt(m.now, EVENT_PERIOD)}, emptied ${slotToEmpty(m.now, EVENT_PERIOD)})`);
            await eventStep(m, step, trail.join("\n"));
            await checkEvents(m, trail.join("\n"));
          }
        }),
        { numRuns: RUNS },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );
});
