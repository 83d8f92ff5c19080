/**
 * Bench-only: the gateway exactly as src/dev.ts builds it, with its bindings
 * wrapped. The gateway's code is not changed; what it is handed is:
 *
 * - every D1 binding: each round trip (a statement's run/all/first/raw, a
 *   batch, an exec) is delayed by BENCH_D1_DELAY_MS, half on the way there
 *   and the rest on the way back (it ends that long after it started), as a
 *   D1 primary that far away would be (the `@platform` rows). 0: no delay;
 * - and, for a request that carries `x-bench-trace: <id>`, a record of what
 *   it set off, in order: D1 round trips, Durable Object hops (stub calls),
 *   the Durable Objects' storage commits, queue sends and upstream calls,
 *   each with where it started and ended against the answer. GET
 *   /__bench/traces hands the records over (and forgets them); GET
 *   /__bench/commits, the record objects' commits no trace holds (their
 *   alarms', untraced calls'), so that every commit is counted somewhere.
 *
 * How a storage commit is counted (workerd's ActorSqlite, the SQLite-backed
 * objects' storage): the first write after the object's last commit (an
 * `sql.exec` that writes, `transactionSync`, `setAlarm`/`deleteAlarm`,
 * `put`/`delete`) opens an implicit transaction that commits once the
 * current JavaScript turn ends, and the object's output gate holds every
 * answer it sends until that commit is durable. So every turn with writes is
 * one commit. A turn ends where the object waits for something: here, when
 * one of the wrapped calls settles, when the object is called, or at the
 * latest when a zero-delay timer set at the turn's first write fires.
 * bench/README.md ("Round trips and commits") gives the limits.
 *
 * Besides the traces, counters of what the platform bills, for every
 * request, alarm and queue batch alike (counted, not estimated): D1
 * statements, rows read and written (each result's `meta`; a `first()` runs
 * as `all()` so that its meta is seen), the objects' rows read and written
 * (each `sql.exec` cursor's `rowsRead` and `rowsWritten`; with the
 * synchronous KV API, a row read per key got and a row written per key put
 * or deleted, its keys being rows too), each `setAlarm()`
 * and `deleteAlarm()` (Cloudflare bills each as a row written), the rows a
 * `deleteAll()` removes (deletes are billed as rows written: counted in the
 * object's tables and their indexes, and its KV keys, just before it
 * runs), object requests
 * (stub calls and alarms), Worker invocations, queue messages, and the wall
 * time of each object request with what of it was spent waiting on D1, the
 * queue and the upstream (so that the model can put production's latencies
 * in their place). GET /__bench/counters hands them over (`?reset`: and
 * starts again).
 *
 * Rule 13's counters (RiskObject: each card fingerprint and user a part of
 * one of a day's RISK_CHUNKS chunks, in RISK_SHARDS shared objects) are counted the same way and reported
 * apart, as `risk_*`: their requests (stub calls and alarms), rows written and read, alarm
 * writes, deletions and the rows deleteAll removes, wall time, and the bytes
 * of each live subject's key and value (`risk_objects_live` of them now: a
 * subject is what production bills per payment). A shard's own writes, the
 * same whatever the traffic (a guard in RISK_LOG, which 030096c wrote and this code does not:
 * `risk_guard_writes`; the sweep's deletions of its days' chunks: `risk_chunk_deletes`; its alarms and
 * its end, counted as above), are priced per shard by
 * bench/capacity-model.mjs (`risk_shards`, `risk_chunks`). BENCH_RISK_DAY_MS, when set, shrinks every counter's window in
 * proportion, a day to that many milliseconds (an hour to a 24th of it), so
 * a run sees the objects end while their rows still end in the order
 * production's would; the object's own code is unchanged, only the windows
 * it is handed.
 *
 * The trace crosses into a Durable Object as one extra, trailing argument of
 * the stub call, which the object's wrapper takes off before the gateway's
 * method sees its arguments. Inside the worker and the objects the trace
 * follows the code through AsyncLocalStorage.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import gateway, {
  AuditWriter,
  EventPager,
  ReceiptObject as GatewayReceiptObject,
  SandboxObject,
  SandboxUpstream,
  StatementObject,
} from "../../src/dev";
import type { Counter } from "../../src/risk/judge";
import { CHUNK, RiskObject as GatewayRiskObject, RISK_CHUNKS, RISK_LOG, RISK_SHARDS } from "../../src/risk/risk-object";

// Rules 15 and 16's objects, untraced: their costs are priced from their code (bench/capacity-model.mjs, AUDIT_FROM_CODE).
// The pagers run untraced: their pages are the queue's messages at the run's rate, which the model replaces by
// production's (bench/capacity-model.mjs), and what they are handed is counted at the drains' calls (pagers).
export { AuditWriter, EventPager, SandboxObject, SandboxUpstream, StatementObject };

type Kind = "d1" | "hop" | "commit" | "queue" | "upstream" | "sync";

interface TraceEvent {
  kind: Kind;
  /** Which invocation started it: 0 is the request's own (the worker), others are Durable Object calls. */
  inv: number;
  /** Sequence numbers (one counter for the isolate): when it started and ended. */
  start: number;
  end: number | null;
  what: string;
  /** D1: statements in it (a batch has several). Commit: writes in it. */
  n: number;
}

interface Invocation {
  /** The hop (event index in the trace) that started this Durable Object call; -1 for the worker. */
  hop: number;
  object: string | null;
  method: string;
  start: number;
  /** When the call's answer was handed back (the worker's: the response). */
  returned: number | null;
}

interface Trace {
  id: string;
  path: string;
  status: number | null;
  events: TraceEvent[];
  invocations: Invocation[];
}

interface Context {
  trace: Trace;
  inv: number;
}

const als = new AsyncLocalStorage<Context>();
const traces = new Map<string, Trace>();
/** Traces kept until fetched; the oldest go first past this. */
const MAX_TRACES = 2000;
let seq = 0;
/** The isolate's JavaScript turn, as far as the wrappers can tell (see the header). */
let turn = 0;
const newTurn = () => {
  turn++;
};

/** What the platform bills, counted for everything the isolate runs (see the header). */
const counts = {
  worker_invocations: 0,
  d1_queries: 0,
  d1_rows_read: 0,
  d1_rows_written: 0,
  object_requests: 0,
  /** SQL statements' rowsWritten only; the alarm writes and deleteAll's rows are counted apart. */
  object_rows_written: 0,
  object_rows_read: 0,
  /** setAlarm() and deleteAlarm() calls: each billed as one row written. */
  object_alarm_writes: 0,
  /** deleteAll() calls, and the rows (table rows and their index entries) they removed. */
  object_deletions: 0,
  object_rows_deleted: 0,
  /** Wall time of object requests (stub calls and alarms), and of the waits inside them, in ms. */
  object_wall_ms: 0,
  object_d1_wait_ms: 0,
  object_d1_round_trips: 0,
  object_upstream_wait_ms: 0,
  object_upstream_calls: 0,
  object_queue_wait_ms: 0,
  object_queue_sends: 0,
  /**
   * Events handed on for the queue: sent one a message, or to a pager (src/events/pager.ts), which sends them a
   * page at a time. Events, not messages: a page's size is production's rate's, not the run's (bench/capacity-model.mjs).
   */
  queue_messages: 0,
  /** Drains' calls to a pager (`add`): one object request each, beside the record objects' own. */
  pager_requests: 0,
  /** Rule 13's objects, as the record objects' above: requests (stub calls and alarms), rows, alarm writes, deletions, wall time. */
  risk_requests: 0,
  risk_rows_written: 0,
  risk_rows_read: 0,
  risk_alarm_writes: 0,
  risk_deletions: 0,
  risk_rows_deleted: 0,
  risk_wall_ms: 0,
  /** A shard's guard (RISK_LOG) put: about once a shard a day in production, so not a payment's row. */
  risk_guard_writes: 0,
  /** A shard's deletions of its days' chunks (the sweep's): at most RISK_CHUNKS a shard a day whatever the traffic, priced per shard. */
  risk_chunk_deletes: 0,
  /** A shard's alarms (in risk_requests too): at most one an hour a shard in production, whatever the traffic. */
  risk_alarm_runs: 0,
  /**
   * The sandbox's test clock's own bookkeeping (src/console/test-clock.ts), which a real wait never does: its
   * reads of the record (clockState) and its moves that run no alarm (advanceTime without `fire`), the time
   * each move stores in the record's row (its first write), the alarm a move without `fire` sets again. A move
   * that runs the alarm is counted as the alarm it stands for (a request), and what that alarm does as the
   * record's own, so a life crossed by the clock counts what the same life would in real time.
   */
  clock_requests: 0,
  clock_rows_written: 0,
  clock_alarm_writes: 0,
};

/** Which of the two kinds of object a storage or a stub belongs to: its counters are `object_*` or `risk_*`. */
type ObjectKind = "object" | "risk";
const KEYS = {
  object: {
    requests: "object_requests",
    rowsWritten: "object_rows_written",
    rowsRead: "object_rows_read",
    alarms: "object_alarm_writes",
    deletions: "object_deletions",
    rowsDeleted: "object_rows_deleted",
    wall: "object_wall_ms",
  },
  risk: {
    requests: "risk_requests",
    rowsWritten: "risk_rows_written",
    rowsRead: "risk_rows_read",
    alarms: "risk_alarm_writes",
    deletions: "risk_deletions",
    rowsDeleted: "risk_rows_deleted",
    wall: "risk_wall_ms",
  },
} as const satisfies Record<ObjectKind, Record<string, keyof typeof counts>>;

/** Each live risk object's database bytes after its latest call (gone once it deleted itself). */
const riskBytes = new Map<string, number>();

/** Inside a move of the test clock (advanceTime): whether it runs the alarm, and whether it has stored its time yet. */
const clockAls = new AsyncLocalStorage<{ fire: boolean; shifted: boolean }>();

/** Inside an object request: where its waits are added up (see the header), and which call or alarm it is. */
const objectAls = new AsyncLocalStorage<{ waits: Record<"d1" | "upstream" | "queue", number>; method?: string }>();

/** The record objects' alarm writes by the call or alarm that made them (or set off what made them): where the alarms go. */
let alarmsBy: Record<string, number> = {};

/** Adds a settled call's wait to the object request it ran in, if any. */
function objectWait(kind: "d1" | "upstream" | "queue", startedAt: number): void {
  const store = objectAls.getStore();
  if (!store) return;
  const ms = Date.now() - startedAt;
  store.waits[kind] += ms;
  if (kind === "d1") {
    counts.object_d1_wait_ms += ms;
    counts.object_d1_round_trips++;
  } else if (kind === "upstream") {
    counts.object_upstream_wait_ms += ms;
    counts.object_upstream_calls++;
  } else {
    counts.object_queue_wait_ms += ms;
    counts.object_queue_sends++;
  }
}
/** Rows written by statement (its verb and table, or its head), D1's, the record objects' and the risk objects' apart: where the rows go. */
const rowsBy: { d1: Record<string, number>; object: Record<string, number>; risk: Record<string, number>; clock: Record<string, number> } = {
  d1: {},
  object: {},
  risk: {},
  clock: {},
};
/** Counting starts at the first GET /__bench/counters: runs that never ask (latency, @platform) keep no cursors. */
let counting = false;
/** Object cursors not yet added up: a cursor's rowsWritten is final once the code has read it to the end. */
let cursors: { kind: ObjectKind | "clock"; what: string; cursor: SqlStorageCursor<Record<string, SqlStorageValue>> }[] = [];

function addMeta(result: unknown, what: string): void {
  const meta = (result as { meta?: { rows_read?: number; rows_written?: number } } | null)?.meta;
  counts.d1_rows_read += meta?.rows_read ?? 0;
  counts.d1_rows_written += meta?.rows_written ?? 0;
  if (meta?.rows_written) rowsBy.d1[what] = (rowsBy.d1[what] ?? 0) + meta.rows_written;
}

function readCounts(reset: boolean): typeof counts & { rows_written_by: typeof rowsBy; risk_objects_live: number; risk_object_bytes: number } {
  for (const { kind, what, cursor } of cursors) {
    if (kind === "clock") counts.clock_rows_written += cursor.rowsWritten;
    else {
      counts[KEYS[kind].rowsWritten] += cursor.rowsWritten;
      counts[KEYS[kind].rowsRead] += cursor.rowsRead;
    }
    if (cursor.rowsWritten) rowsBy[kind][what] = (rowsBy[kind][what] ?? 0) + cursor.rowsWritten;
  }
  cursors = [];
  let bytes = 0;
  for (const n of riskBytes.values()) bytes += n;
  const out = {
    ...counts,
    rows_written_by: structuredClone(rowsBy),
    alarm_writes_by: { ...alarmsBy },
    risk_objects_live: riskBytes.size,
    risk_object_bytes: bytes,
    risk_shards: RISK_SHARDS,
    risk_chunks: RISK_CHUNKS,
  };
  if (reset) {
    for (const key of Object.keys(counts) as (keyof typeof counts)[]) counts[key] = 0;
    rowsBy.d1 = {};
    rowsBy.object = {};
    rowsBy.risk = {};
    rowsBy.clock = {};
    alarmsBy = {};
  }
  return out;
}

const TRACE_HEADER = "x-bench-trace";
const MARK = "__benchTrace";

function record(kind: Kind, what: string, n = 1): TraceEvent | null {
  const ctx = als.getStore();
  if (!ctx) return null;
  const event: TraceEvent = { kind, inv: ctx.inv, start: ++seq, end: null, what, n };
  ctx.trace.events.push(event);
  return event;
}

/** Runs an I/O call as one event: started now, ended when it settles (which also ends the turn). */
function around<T>(kind: Kind, what: string, n: number, call: () => Promise<T>): Promise<T> {
  const event = record(kind, what, n);
  const settle = () => {
    newTurn();
    if (event) event.end = ++seq;
  };
  let started: Promise<T>;
  try {
    started = Promise.resolve(call());
  } catch (err) {
    settle();
    throw err;
  }
  return started.then(
    (value) => {
      settle();
      return value;
    },
    (err) => {
      settle();
      throw err;
    },
  );
}

/**
 * A property of a wrapped binding as the gateway would have got it: a method
 * bound to the real object. Reflect.apply, because on an RPC stub or service
 * binding `.apply` or `.bind` would be an RPC property of their own.
 */
const bound = (value: unknown, target: object) => (typeof value === "function" ? (...args: unknown[]) => Reflect.apply(value, target, args) : value);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// --- D1 -----------------------------------------------------------------------

const STATEMENT_CALLS = new Set(["run", "all", "first", "raw"]);
/** Wrapped statement -> the D1 statement it stands for (batch() wants the real ones). */
const realStatement = new WeakMap<object, D1PreparedStatement>();
/** Wrapped statement -> its SQL's head, and a batch's results -> each statement's head. */
const statementSql = new WeakMap<object, string>();
const batchNames = new WeakMap<object, string[]>();

/** A ring's slots (`events_0` .. `events_7`, `tid_index_0` .. `tid_index_7`, and their indexes: src/d1/ring.ts) as one name, `events_N`, `tid_index_N`: one statement, whichever slot it wrote. */
const slotsAsOne = (sql: string) => sql.replace(/\b(events|tid_index)_\d(?=\b|_)/g, "$1_N");

const sqlHead = (sql: string) => slotsAsOne(sql.replace(/\s+/g, " ").trim()).slice(0, 60);

function d1(db: D1Database | D1DatabaseSession, delayMs: number, label: string): D1Database {
  const half = delayMs / 2;
  const roundTrip = <T>(what: string, n: number, call: () => Promise<T>) =>
    around("d1", `${label}: ${what}`, n, async () => {
      const startedAt = Date.now();
      if (half > 0) await sleep(half);
      const result = await call();
      objectWait("d1", startedAt);
      counts.d1_queries += n;
      // run() and all() answer with meta, a batch with one result per statement; first() and raw() hide it (reads).
      const names = batchNames.get(result as object);
      for (const [i, one] of (Array.isArray(result) ? result : [result]).entries()) addMeta(one, names?.[i] ?? what);
      // The way back ends delayMs after the call started, whatever the way there and the statement took: each timer
      // wakes a little late on a busy machine (~2-3 ms on 2 shared cores), and two late wakes in a row, with the
      // simulator's own work between them, made a round trip of 50 ms take 54-58 ms (median 56), more than a D1 that far away.
      if (half > 0) await sleep(Math.max(0, startedAt + delayMs - Date.now()));
      return result;
    });
  const statement = (real: D1PreparedStatement, sql: string): D1PreparedStatement => {
    const wrapped = new Proxy(real, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (prop === "bind") return (...args: unknown[]) => statement(Reflect.apply(value as D1PreparedStatement["bind"], target, args), sql);
        if (prop === "first") {
          // first() hides the meta that bills its rows read: run it as all() and answer as first() would.
          const all = Reflect.get(target, "all", target) as () => Promise<D1Result<Record<string, unknown>>>;
          return (column?: string) =>
            roundTrip(sqlHead(sql), 1, async () => {
              const result = await Reflect.apply(all, target, []);
              batchNames.set(result, [writeName(sql)]);
              return result;
            }).then((result) => {
              const row = result.results[0];
              if (row === undefined) return null;
              return column === undefined ? row : (row[column] ?? null);
            });
        }
        if (typeof prop === "string" && STATEMENT_CALLS.has(prop)) {
          return (...args: unknown[]) =>
            roundTrip(sqlHead(sql), 1, async () => {
              const result = await Reflect.apply(value as (...a: unknown[]) => Promise<unknown>, target, args);
              if (result && typeof result === "object") batchNames.set(result, [writeName(sql)]);
              return result;
            });
        }
        return bound(value, target);
      },
    });
    realStatement.set(wrapped, real);
    statementSql.set(wrapped, writeName(sql));
    return wrapped;
  };
  return new Proxy(db as D1Database, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop === "prepare") return (sql: string) => statement(target.prepare(sql), sql);
      if (prop === "batch") {
        return (statements: D1PreparedStatement[]) =>
          roundTrip(`batch of ${statements.length}`, statements.length, async () => {
            const results = await target.batch(statements.map((s) => realStatement.get(s) ?? s));
            batchNames.set(
              results,
              statements.map((s) => statementSql.get(s) ?? "batch"),
            );
            return results;
          });
      }
      if (prop === "exec") return (sql: string) => roundTrip(`exec ${sqlHead(sql)}`, 1, () => target.exec(sql));
      if (prop === "withSession") {
        return (...args: unknown[]) => d1(Reflect.apply(value as (...a: unknown[]) => D1DatabaseSession, target, args), delayMs, `${label} session`);
      }
      return bound(value, target);
    },
  });
}

const isD1 = (value: unknown): value is D1Database =>
  typeof (value as D1Database | undefined)?.prepare === "function" && typeof (value as D1Database | undefined)?.batch === "function";

// --- Durable Object stubs, the queue, the upstream --------------------------------

function stub<T extends object>(real: T, label: string, kind: ObjectKind): T {
  return new Proxy(real, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function" || typeof prop !== "string") return value;
      return (...args: unknown[]) => {
        // The test clock's reads, and its moves that run no alarm, are its own; a move that runs one stands for that alarm.
        const clockOnly = kind === "object" && (prop === "clockState" || (prop === "advanceTime" && args[1] !== true));
        counts[clockOnly ? "clock_requests" : KEYS[kind].requests]++;
        const ctx = als.getStore();
        if (!ctx) return Reflect.apply(value as (...a: unknown[]) => unknown, target, args);
        const hopIndex = ctx.trace.events.length;
        // The call's trace rides along as one more argument; the object's wrapper takes it off.
        const marked = prop === "fetch" ? args : [...args, { [MARK]: { trace: ctx.trace.id, hop: hopIndex } }];
        return around("hop", `${label}.${prop}`, 1, () => Reflect.apply(value as (...a: unknown[]) => Promise<unknown>, target, marked));
      };
    },
  });
}

function namespace(real: DurableObjectNamespace, label: string, kind: ObjectKind): DurableObjectNamespace {
  return new Proxy(real, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop === "get" || prop === "getByName") {
        return (...args: unknown[]) => stub(Reflect.apply(value as (...a: unknown[]) => object, target, args), label, kind);
      }
      return bound(value, target);
    },
  });
}

function calls<T extends object>(real: T, kind: Kind, label: string, methods: readonly string[]): T {
  return new Proxy(real, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (typeof prop === "string" && methods.includes(prop)) {
        return (...args: unknown[]) => {
          if (kind === "queue") counts.queue_messages += prop === "sendBatch" ? (args[0] as unknown[]).length : 1;
          const startedAt = Date.now();
          const settled = () => objectWait(kind === "queue" ? "queue" : "upstream", startedAt);
          return around(kind, `${label}.${prop}`, 1, () => Reflect.apply(value as (...a: unknown[]) => Promise<unknown>, target, args)).finally(
            settled,
          );
        };
      }
      return bound(value, target);
    },
  });
}

/** The pagers' namespace: each `add` counted as a pager request and its events as queued, its wait as a queue send's. */
function pagers(real: DurableObjectNamespace): DurableObjectNamespace {
  return new Proxy(real, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop !== "get") return bound(value, target);
      return (...args: unknown[]) => {
        const stub = Reflect.apply(value as (...a: unknown[]) => object, target, args) as Record<string, unknown>;
        return new Proxy(stub, {
          get(stubTarget, name) {
            const method = Reflect.get(stubTarget, name, stubTarget);
            if (name !== "add") return bound(method, stubTarget);
            return (messages: unknown[]) => {
              counts.pager_requests++;
              counts.queue_messages += messages.length;
              const startedAt = Date.now();
              return (Reflect.apply(method as (...a: unknown[]) => Promise<unknown>, stubTarget, [messages]) as Promise<unknown>).finally(() =>
                objectWait("queue", startedAt),
              );
            };
          },
        });
      };
    },
  });
}

const wrappedEnvs = new WeakMap<object, Env>();

/** The env the gateway gets: one wrapper per env object (the gateway caches its config by env). */
function wrapEnv(env: Env): Env {
  let wrapped = wrappedEnvs.get(env);
  if (wrapped) return wrapped;
  const delayMs = Number((env as unknown as Record<string, string>).BENCH_D1_DELAY_MS ?? 0) || 0;
  const cache = new Map<string | symbol, unknown>();
  wrapped = new Proxy(env, {
    get(target, prop) {
      if (cache.has(prop)) return cache.get(prop);
      const value = Reflect.get(target, prop, target);
      let out: unknown = value;
      if (prop === "RECEIPTS") out = namespace(value as DurableObjectNamespace, "RECEIPTS", "object");
      else if (prop === "RISK") out = namespace(value as DurableObjectNamespace, "RISK", "risk");
      else if (prop === "EVENTS") out = calls(value as Queue, "queue", "EVENTS", ["send", "sendBatch"]);
      else if (prop === "EVENT_PAGER") out = pagers(value as DurableObjectNamespace);
      else if (prop === "UPSTREAM") out = calls(value as Fetcher, "upstream", "UPSTREAM", ["fetch"]);
      else if (typeof prop === "string" && isD1(value)) out = d1(value, delayMs, prop);
      cache.set(prop, out);
      return out;
    },
  });
  wrappedEnvs.set(env, wrapped);
  return wrapped;
}

// --- Durable Object storage ---------------------------------------------------------

const READ_ONLY = /^\s*(SELECT|PRAGMA\s+table_info|EXPLAIN|VALUES)\b/i;
/** A write as the trace names it: its verb and table ("UPDATE record", "INSERT INTO outbox"), after its common table expressions if any. */
const writeName = (sql: string) => {
  const named =
    /^\s*((?:INSERT(?:\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|UPDATE|DELETE\s+FROM|CREATE\s+TABLE(?:\s+IF\s+NOT\s+EXISTS)?|CREATE\s+(?:UNIQUE\s+)?INDEX(?:\s+IF\s+NOT\s+EXISTS)?|ALTER\s+TABLE|DROP\s+TABLE)\s+\w+)/i
      .exec(sql.replace(/^\s*WITH\b[\s\S]*?\)\s*(?=(?:INSERT|REPLACE|UPDATE|DELETE)\b)/i, ""))?.[1]
      ?.replace(/\s+/g, " ");
  return named ? slotsAsOne(named) : sqlHead(sql);
};

/**
 * The record objects' commits that no trace holds, per object and by the
 * invocation that made them (its method, "alarm" for the platform's, or
 * "outside a call"): what a traced request set off is in its trace; this is
 * the rest (alarms, untraced requests), so that everything an object
 * committed can be checked against its SQLite log. GET /__bench/commits
 * hands it over (`?reset`: and starts again).
 */
let untracedCommits: Record<string, Record<string, number>> = {};
/** They are counted from the first GET /__bench/commits on: runs that never ask (latency, @platform) count nothing untraced, as before. */
let countingUntraced = false;

/** Counts the object's commits: a turn with writes is one (see the header). */
class CommitCounter {
  #turn = -1;
  #event: TraceEvent | null = null;
  /** The record object's id, whose untraced commits are counted; null for the risk objects. */
  readonly #object: string | null;

  constructor(object: string | null) {
    this.#object = object;
  }

  write(what: string): void {
    const traced = als.getStore() !== undefined;
    // Untraced and not asked for, or not a record object (the risk objects' own alarms): nothing to count.
    if (!traced && (!countingUntraced || this.#object === null)) return;
    if (this.#turn === turn) {
      if (this.#event) {
        this.#event.n++;
        if (!this.#event.what.split(", ").includes(what)) this.#event.what += `, ${what}`;
      }
      return;
    }
    this.#turn = turn;
    // At the latest, the turn is over when a zero-delay timer fires.
    setTimeout(newTurn, 0);
    if (traced) {
      this.#event = record("commit", what);
      return;
    }
    this.#event = null;
    const by = objectAls.getStore()?.method ?? "outside a call";
    const object = this.#object as string;
    untracedCommits[object] ??= {};
    untracedCommits[object][by] = (untracedCommits[object][by] ?? 0) + 1;
  }

  /** The async transaction() API commits what is open first, then itself: a commit of its own. */
  apart(): void {
    newTurn();
  }
}

function storage(real: DurableObjectStorage, commits: CommitCounter, kind: ObjectKind): DurableObjectStorage {
  const sql = new Proxy(real.sql, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop === "exec") {
        return (query: string, ...bindings: unknown[]) => {
          const writes = !READ_ONLY.test(query);
          if (writes) commits.write(writeName(query));
          // A move of the test clock stores the record's time first (src/record/record-time.ts): that write is the clock's.
          const shift = kind === "object" && writes ? clockAls.getStore() : undefined;
          const clockWrite = shift !== undefined && !shift.shifted;
          if (shift) shift.shifted = true;
          const cursor = target.exec(query, ...(bindings as SqlStorageValue[]));
          if (counting) cursors.push({ kind: clockWrite ? "clock" : kind, what: writeName(query), cursor });
          return cursor;
        };
      }
      return bound(value, target);
    },
  });
  // The synchronous KV API: each key read is a row read, each key put or deleted a row written (as the platform bills it).
  let kvProxy: SyncKvStorage | null = null;
  const kv = (target: SyncKvStorage): SyncKvStorage =>
    (kvProxy ??= new Proxy(target, {
      get(kvTarget, prop) {
        const value = Reflect.get(kvTarget, prop, kvTarget);
        if (prop === "put" || prop === "delete") {
          return (...args: unknown[]) => {
            commits.write(`kv.${prop}`);
            if (counting && kind === "risk" && prop === "put" && args[0] === RISK_LOG) counts.risk_guard_writes++;
            else if (counting && kind === "risk" && prop === "delete" && String(args[0]).startsWith(CHUNK)) counts.risk_chunk_deletes++;
            else if (counting) {
              counts[KEYS[kind].rowsWritten]++;
              rowsBy[kind][`kv ${prop}`] = (rowsBy[kind][`kv ${prop}`] ?? 0) + 1;
            }
            return Reflect.apply(value as (...a: unknown[]) => unknown, kvTarget, args);
          };
        }
        if (prop === "get") {
          return (...args: unknown[]) => {
            if (counting) counts[KEYS[kind].rowsRead]++;
            return Reflect.apply(value as (...a: unknown[]) => unknown, kvTarget, args);
          };
        }
        return bound(value, kvTarget);
      },
    }));
  const writes = new Set(["setAlarm", "deleteAlarm", "put", "delete", "deleteAll"]);
  return new Proxy(real, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop === "sql") return sql;
      if (prop === "kv") return kv(value as SyncKvStorage);
      if (prop === "transactionSync") {
        // workerd opens the implicit transaction for it even when nothing inside writes.
        return <T>(fn: () => T): T => {
          commits.write("transactionSync");
          return target.transactionSync(fn);
        };
      }
      if (prop === "sync") return () => around("sync", "storage.sync", 1, () => target.sync());
      if (prop === "transaction") {
        return (fn: (txn: DurableObjectTransaction) => Promise<unknown>) => {
          commits.apart();
          commits.write("transaction");
          return target.transaction(fn).finally(() => commits.apart());
        };
      }
      if (typeof prop === "string" && writes.has(prop)) {
        return (...args: unknown[]) => {
          commits.write(prop);
          // A move of the test clock that runs no alarm sets the alarm again where the record's time now falls: the clock's write.
          const clockAlarm = kind === "object" && clockAls.getStore()?.fire === false;
          if (prop === "setAlarm" || prop === "deleteAlarm") {
            counts[clockAlarm ? "clock_alarm_writes" : KEYS[kind].alarms]++;
            if (kind === "object" && !clockAlarm) {
              const method = objectAls.getStore()?.method ?? "unknown";
              const by = `${prop} in ${method === "advanceTime" ? "an alarm the test clock ran" : method}`;
              alarmsBy[by] = (alarmsBy[by] ?? 0) + 1;
            }
          }
          if (prop === "deleteAll") {
            counts[KEYS[kind].deletions]++;
            counts[KEYS[kind].rowsDeleted] += rowsHeld(target);
          }
          return Reflect.apply(value as (...a: unknown[]) => unknown, target, args);
        };
      }
      return bound(value, target);
    },
  });
}

/**
 * The rows an object holds, as deleteAll() removes them: each table's rows
 * and one entry per row in each of its indexes (the platform's own `_cf_`
 * tables and SQLite's are left out), and one per key of the KV API. Read
 * through the real storage, so these
 * reads are not counted as the gateway's.
 */
function rowsHeld(real: DurableObjectStorage): number {
  try {
    const sqlOf = real.sql;
    const tables = sqlOf
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'")
      .toArray();
    let rows = 0;
    for (const { name } of tables) {
      const n = Number(sqlOf.exec<{ n: number }>(`SELECT count(*) AS n FROM "${name}"`).one().n);
      const indexes = sqlOf.exec<{ n: number }>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'index' AND tbl_name = ?", name).one().n;
      rows += n * (1 + Number(indexes));
    }
    // The KV API's keys are rows too (of the platform's own table, which SQL may not read): one each.
    for (const _ of real.kv.list()) rows++;
    return rows;
  } catch {
    return 0;
  }
}

/** Each object's own storage, for the bench's reads that must not count as the gateway's. */
const realStorage = new WeakMap<DurableObjectState, DurableObjectStorage>();

/**
 * The object's state with its storage wrapped. workerd's DurableObject
 * constructor takes only the real DurableObjectState, so the wrapped storage
 * is laid over it as an own property (the real one is a getter of its class).
 */
function state(real: DurableObjectState, kind: ObjectKind): DurableObjectState {
  realStorage.set(real, real.storage);
  const commits = new CommitCounter(kind === "object" ? real.id.toString() : null);
  Object.defineProperty(real, "storage", { value: storage(real.storage, commits, kind), configurable: true });
  return real;
}

// --- the Durable Object: every public method of the gateway's, wrapped ----------

/** Takes the trace mark off a stub call's arguments. */
function unmark(args: unknown[]): { mark: { trace: string; hop: number } | null; args: unknown[] } {
  const last = args[args.length - 1] as Record<string, unknown> | undefined;
  if (last && typeof last === "object" && MARK in last) return { mark: last[MARK] as { trace: string; hop: number }, args: args.slice(0, -1) };
  return { mark: null, args };
}

export class ReceiptObject extends GatewayReceiptObject {
  constructor(ctx: DurableObjectState, env: Env) {
    super(state(ctx, "object"), wrapEnv(env));
  }
}

/** Rule 13's object: its storage and its calls counted as `risk_*`, its windows shortened when BENCH_RISK_DAY_MS says. */
export class RiskObject extends GatewayRiskObject {
  /** What a window is multiplied by: BENCH_RISK_DAY_MS over a day's milliseconds (1: production's windows). */
  readonly benchWindowScale: number;

  constructor(ctx: DurableObjectState, env: Env) {
    super(state(ctx, "risk"), env);
    const dayMs = Number((env as unknown as Record<string, string>).BENCH_RISK_DAY_MS ?? 0) || 0;
    this.benchWindowScale = dayMs > 0 ? dayMs / 86_400_000 : 1;
    // A shard's sweeps come as often as production's, in the run's shortened day.
    this.sweepGapMs = Math.max(1, Math.round(this.sweepGapMs * this.benchWindowScale));
    this.dayMs = Math.max(1, Math.round(this.dayMs * this.benchWindowScale));
  }

  /** The counters as the run hands them: every window scaled by BENCH_RISK_DAY_MS when it is set. */
  benchArgs(name: string, args: unknown[]): unknown[] {
    if (name !== "count" || this.benchWindowScale === 1) return args;
    const [subject, counters, ...rest] = args as [string, Counter[], ...unknown[]];
    const scaled = (ms: number) => Math.max(1, Math.round(ms * this.benchWindowScale));
    return [subject, counters.map((c) => ({ ...c, windowMs: scaled(c.windowMs), keepMs: scaled(c.keepMs) })), ...rest];
  }

  /** After each call, each subject the shard holds has the bytes of its name and its parts in its chunks until its next call; one whose chunks were deleted holds none. */
  benchMeasure(): void {
    const id = this.ctx.id.toString();
    const real = realStorage.get(this.ctx) ?? this.ctx.storage;
    for (const key of [...riskBytes.keys()]) if (key.startsWith(`${id} `)) riskBytes.delete(key);
    for (const [, chunk] of real.kv.list<Record<string, unknown>>({ prefix: CHUNK })) {
      for (const [subject, part] of Object.entries(chunk)) {
        const key = `${id} ${subject}`;
        riskBytes.set(key, (riskBytes.get(key) ?? subject.length) + JSON.stringify(part).length);
      }
    }
  }
}

/** Every public method of `Base` on `Wrapped`: the trace mark taken off, the request counted and timed as `kind`'s. */
function wrapMethods(
  Wrapped: { prototype: object },
  Base: { prototype: object },
  kind: ObjectKind,
  store: AsyncLocalStorage<{ waits: Record<"d1" | "upstream" | "queue", number>; method?: string }>,
): void {
  const hooks = (self: unknown) => self as Partial<Pick<RiskObject, "benchArgs" | "benchMeasure">>;
  for (const name of Object.getOwnPropertyNames(Base.prototype)) {
    if (name === "constructor") continue;
    const descriptor = Object.getOwnPropertyDescriptor(Base.prototype, name);
    if (!descriptor || typeof descriptor.value !== "function") continue;
    const method = descriptor.value as (...args: unknown[]) => unknown;
    Object.defineProperty(Wrapped.prototype, name, {
      ...descriptor,
      value: function (this: { ctx: DurableObjectState }, ...raw: unknown[]) {
        newTurn();
        // A stub call is counted where it is made; an alarm is a request the platform makes.
        if (name === "alarm") counts[KEYS[kind].requests]++;
        if (name === "alarm" && kind === "risk") counts.risk_alarm_runs++;
        const { mark, args: given } = unmark(raw);
        const args = hooks(this).benchArgs?.(name, given) ?? given;
        const measure = hooks(this).benchMeasure?.bind(this);
        const call = () => (measure ? Promise.resolve(method.apply(this, args)).finally(measure) : method.apply(this, args));
        // A move of the test clock: its own writes told apart from the alarm's it runs (see clock_requests).
        const invoke = () => (kind === "object" && name === "advanceTime" ? clockAls.run({ fire: args[1] === true, shifted: false }, call) : call());
        const trace = mark ? traces.get(mark.trace) : undefined;
        const startedAt = Date.now();
        // A call the object makes to its own methods is part of the request it runs in: timed once, left synchronous.
        const timed = (run: () => unknown) =>
          store.getStore()
            ? run()
            : store.run({ waits: { d1: 0, upstream: 0, queue: 0 }, method: name }, async () => {
                try {
                  return await run();
                } finally {
                  counts[KEYS[kind].wall] += Date.now() - startedAt;
                }
              });
        if (!trace || !mark) return timed(invoke);
        const invocation: Invocation = { hop: mark.hop, object: this.ctx.id.toString(), method: name, start: ++seq, returned: null };
        const inv = trace.invocations.push(invocation) - 1;
        return timed(() =>
          als.run({ trace, inv }, async () => {
            try {
              return await invoke();
            } finally {
              invocation.returned = ++seq;
            }
          }),
        );
      },
    });
  }
}

wrapMethods(ReceiptObject, GatewayReceiptObject, "object", objectAls);
// The risk object's own store: a call into it from a record object's request is a request of its own, timed apart.
wrapMethods(RiskObject, GatewayRiskObject, "risk", new AsyncLocalStorage());

// --- the worker -------------------------------------------------------------------

function keep(trace: Trace): void {
  traces.set(trace.id, trace);
  if (traces.size > MAX_TRACES) traces.delete(traces.keys().next().value!);
}

export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.pathname === "/__bench/counters") {
      counting = true;
      return Response.json(readCounts(url.searchParams.has("reset")));
    }
    if (url.pathname === "/__bench/commits") {
      countingUntraced = true;
      const out = untracedCommits;
      if (url.searchParams.has("reset")) untracedCommits = {};
      return Response.json(out);
    }
    if (url.pathname === "/__bench/traces") {
      // ?pending: how many traced steps are still under way (what a request set off after its answer).
      if (url.searchParams.has("pending")) {
        let pending = 0;
        for (const trace of traces.values()) {
          pending += trace.events.filter((e) => e.end === null && e.kind !== "commit").length;
          pending += trace.invocations.filter((i) => i.returned === null).length;
        }
        return Response.json({ pending });
      }
      const out = [...traces.values()];
      traces.clear();
      return Response.json(out);
    }
    counts.worker_invocations++;
    const wrapped = wrapEnv(env);
    const id = request.headers.get(TRACE_HEADER);
    newTurn();
    if (!id) return gateway.fetch(request, wrapped, ctx);
    const trace: Trace = { id, path: url.pathname, status: null, events: [], invocations: [] };
    trace.invocations.push({ hop: -1, object: null, method: "fetch", start: ++seq, returned: null });
    keep(trace);
    return als.run({ trace, inv: 0 }, async () => {
      try {
        const response = await gateway.fetch(request, wrapped, ctx);
        trace.status = response.status;
        return response;
      } finally {
        trace.invocations[0]!.returned = ++seq;
      }
    });
  },
  queue(batch, env, ctx) {
    newTurn();
    counts.worker_invocations++;
    return gateway.queue!(batch, wrapEnv(env), ctx);
  },
  scheduled(controller, env, ctx) {
    newTurn();
    counts.worker_invocations++;
    return gateway.scheduled!(controller, wrapEnv(env), ctx);
  },
} satisfies ExportedHandler<Env, never>;
