/**
 * Every fan-out over the D1 databases at 10,000,000 creates a day: 410
 * databases (docs/capacity.md), each a counting stand-in for D1 that answers
 * as a database with a full backlog would. Each invocation (the cron, the
 * queue consumer, /readyz's probe, events/list, events/resend) must stay
 * within D1's 1,000 queries per invocation and the Workers limit of six
 * simultaneous open connections (src/d1/fanout.ts), and the cron must still
 * reach every database.
 */
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { retentionPolicy } from "../../src/config/retention-policy";
import { cronQueriesPerDatabase, cronShards } from "../../src/cron/retention";
import { MAX_CONNECTIONS, MAX_QUERIES_PER_INVOCATION } from "../../src/d1/fanout";
import { NEWEST_MIGRATION } from "../../src/d1/schema-version";
import { listLoggedEvents, locateEvent } from "../../src/events/log";
import { EVENT_TABLES } from "../../src/events/log-database";
import { PAGE_EVENTS } from "../../src/events/pager";
import { SWEEP_RECORD_CALLS } from "../../src/events/sweep";
import type { GatewayEvent } from "../../src/events/types";
import { checkReadiness, probedDatabases } from "../../src/http/readiness";
import worker from "../../src/index";
import { consume, DEAD_LETTER_QUEUE, makeEvent, messageOf, newRecordId } from "../events";

/** The most databases the capacity model has at 10,000,000 creates a day. */
const DATABASES = 410;

/** The most messages a consumer's batch takes (wrangler.toml's max_batch_size), of any consumer in either environment. */
const BATCH_MESSAGES = Math.max(
  ...Object.values(env.TEST_WRANGLER_QUEUES).flatMap((queues) => queues.consumers.map((consumer) => consumer.max_batch_size ?? 10)),
);

/** What one invocation did to the databases: statements run, calls in flight at most, each database's statements. */
class Meter {
  queries = 0;
  /** Calls on record objects (the sweep asks them for bodies): subrequests of the invocation too. */
  recordCalls = 0;
  /** Whether the databases hold the consumer's events (false: a log restored to before them). */
  logged = true;
  inFlight = 0;
  maxInFlight = 0;
  perDatabase = new Map<string, number>();
  async call<T>(binding: string, statements: number, answer: () => T): Promise<T> {
    this.queries += statements;
    this.perDatabase.set(binding, (this.perDatabase.get(binding) ?? 0) + statements);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    // A few turns of the microtask queue, so calls that would overlap do overlap.
    for (let turn = 0; turn < 3; turn++) await Promise.resolve();
    this.inFlight--;
    return answer();
  }
}

/** The cron's read of one row of a ring's slot, before it empties it (src/tids/tid-index.ts, src/events/log-database.ts). */
const RING_PROBE = /^SELECT 1 AS \w+ FROM (tid_index|events)_\d LIMIT 1$/;

interface Statement {
  sql: string;
  args: unknown[];
}

/** A D1 database with a backlog everywhere: every bounded write removes its full LIMIT, every read finds nothing. */
function countingD1(binding: string, meter: Meter): D1Database {
  const answerOf = ({ sql, args }: Statement) => {
    const limit = /LIMIT \?\d+\)/.test(sql) ? Number(args.at(-1)) : 0;
    // The consumer's read of where its events are (src/events/log.ts findLogged): each here, pending, so each is delivered.
    // The sweep's overdue claim: as many stranded events as it may take, each of its own record, body with the record.
    // (The pick of the overdue over the log's tables answers as many ids as it may take, spread over every table, so
    // the claim is a statement on each; the claim, a row each.)
    const results = sql.includes("'events' AS log_table FROM events WHERE id IN")
      ? meter.logged
        ? args.map((id) => ({ id, status: 0, log_table: "events" }))
        : []
      : sql.startsWith("SELECT id, log_table FROM (") && sql.includes("next_attempt_at < ?1")
        ? Array.from({ length: Number(args[1]) }, (_, i) => ({ id: `evt_${i}`, log_table: EVENT_TABLES[i % EVENT_TABLES.length] }))
        : /^UPDATE events(_\d)? SET next_attempt_at = \?3/.test(sql) && sql.includes("RETURNING")
          ? (JSON.parse(String(args[1])) as unknown[]).map(() => strandedRow(binding))
          : // A change by id on the table the read found its row in (a mark, a failed attempt, a dead letter): the row is
            // there, so it answers the ids it changed, as D1 does; a turn between the read and the change is the
            // events-ring test's.
            /^UPDATE events(_\d)? SET/.test(sql) && sql.includes("RETURNING id")
            ? args.filter((arg): arg is string => typeof arg === "string" && arg.startsWith("evt_")).map((id) => ({ id }))
            : [];
    return { success: true, results, meta: { changes: limit, rows_written: limit, rows_read: limit } };
  };
  const prepare = (sql: string) => {
    const statement = {
      sql,
      args: [] as unknown[],
      bind(...args: unknown[]) {
        statement.args = args;
        return statement;
      },
      run: () => meter.call(binding, 1, () => answerOf(statement)),
      all: () => meter.call(binding, 1, () => answerOf(statement)),
      // /readyz's probe (src/http/readiness.ts): a database migrated to the code's newest migration. A ring's probe
      // of the slot the next period writes to (src/d1/ring.ts): a slot holding rows, so its emptying batch runs.
      first: () =>
        meter.call(binding, 1, () =>
          sql.includes("FROM d1_migrations") ? { name: NEWEST_MIGRATION, applied: 1 } : RING_PROBE.test(sql) ? { found: 1 } : null,
        ),
      raw: () => meter.call(binding, 1, () => []),
    };
    return statement;
  };
  return {
    prepare,
    batch: (statements: Statement[]) => meter.call(binding, statements.length, () => statements.map(answerOf)),
    exec: () => meter.call(binding, 1, () => ({ count: 0, duration: 0 })),
  } as unknown as D1Database;
}

/** A pending event whose message the queue lost: its body is in its record. */
function strandedRow(binding: string) {
  const recordId = `${binding}-${crypto.randomUUID()}`;
  const event = makeEvent(recordId);
  stranded.set(recordId, JSON.stringify(event));
  const row = { id: event.id, record_id: recordId, type: 1, status: 0, attempts: 0, last_status: null, last_error: null, delivered_at: null };
  return { ...row, next_attempt_at: 0, pending_since: 0 };
}
const stranded = new Map<string, string>();
/** The event ids each record object keeps, by its name (`kind:id`): what events/list by receipt_id reads. */
const keptIds = new Map<string, string[]>();

/** The development deployment with DB and 409 more databases in TID_INDEX_SHARDS, all counted by `meter`; records answer bodies and ids. */
function deploymentOf(meter: Meter): Env {
  const bindings = ["DB", ...Array.from({ length: DATABASES - 1 }, (_, i) => `DB_TID_${i + 1}`)];
  const databases = Object.fromEntries(bindings.map((binding) => [binding, countingD1(binding, meter)]));
  const RECEIPTS = {
    idFromName: (name: string) => name,
    get: (name: string) => ({
      eventBodies: (ids: string[]) =>
        meter.call("record", 0, () => {
          meter.recordCalls++;
          const body = stranded.get(name.slice(name.indexOf(":") + 1));
          return body ? Object.fromEntries(ids.map((id) => [id, body])) : {};
        }),
      eventIds: () =>
        meter.call("record", 0, () => {
          meter.recordCalls++;
          return keptIds.get(name) ?? [];
        }),
    }),
  };
  return { ...env, ...databases, RECEIPTS, TID_INDEX_SHARDS: bindings.join(" "), TID_INDEX_SHARDS_PREVIOUS: "" } as unknown as Env;
}

const withinLimits = (meter: Meter) => {
  expect(meter.queries).toBeGreaterThan(0);
  expect(meter.queries).toBeLessThanOrEqual(MAX_QUERIES_PER_INVOCATION);
  expect(meter.maxInFlight).toBeLessThanOrEqual(MAX_CONNECTIONS);
  expect(meter.recordCalls).toBeLessThanOrEqual(SWEEP_RECORD_CALLS);
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe(`fan-out at ${DATABASES} databases`, () => {
  it("a cron run (event sweep with stranded events everywhere, then retention with every step's batch full) stays within the limits, and successive runs reach every database", async () => {
    const visited = new Set<string>();
    const minute = 60_000;
    const start = Date.UTC(2027, 0, 1);
    const turns = Math.ceil(DATABASES / cronShards(deploymentOf(new Meter()), start).length);
    for (let run = 0; run < turns; run++) {
      const meter = new Meter();
      const deployment = deploymentOf(meter);
      const ctx = createExecutionContext();
      // Retention throws nothing here: full batches are a backlog, reported and continued next run.
      await worker.scheduled(createScheduledController({ scheduledTime: start + run * minute, cron: "* * * * *" }), deployment, ctx);
      await waitOnExecutionContext(ctx);
      withinLimits(meter);
      // The sweep found stranded events in every database of its slice and fetched their bodies, within the bound.
      expect(meter.recordCalls).toBeGreaterThan(0);
      for (const binding of meter.perDatabase.keys()) if (binding !== "record") visited.add(binding);
    }
    expect(visited.size).toBe(DATABASES);
  });

  it.each(["1", "5"])(
    "a cron run at RETENTION_ROUNDS=%s, every ring's slot to empty holding rows: each database gets at most the statements the run's slicing counts for it",
    async (rounds) => {
      const meter = new Meter();
      const deployment = { ...deploymentOf(meter), RETENTION_ROUNDS: rounds } as Env;
      const ctx = createExecutionContext();
      await worker.scheduled(createScheduledController({ scheduledTime: Date.UTC(2027, 0, 1), cron: "* * * * *" }), deployment, ctx);
      await waitOnExecutionContext(ctx);
      withinLimits(meter);
      const claimed = cronQueriesPerDatabase(retentionPolicy(deployment));
      // The first database (DB) also holds the erasures and the run's own rows, counted apart (FIRST_DATABASE_QUERIES_PER_ROUND).
      const others = [...meter.perDatabase].filter(([binding]) => binding !== "DB" && binding !== "record");
      expect(others.length).toBeGreaterThan(0);
      const most = Math.max(...others.map(([, queries]) => queries));
      expect(most).toBeLessThanOrEqual(claimed);
    },
  );

  it("the queue consumer: a batch of full pages of events for many records, and a dead-letter batch of them, each within the limits", async () => {
    const meter = new Meter();
    const deployment = deploymentOf(meter);
    // The most a batch carries: max_batch_size messages (wrangler.toml), each a page of PAGE_EVENTS events.
    const pagesOf = (events: GatewayEvent[]) =>
      Array.from({ length: Math.ceil(events.length / PAGE_EVENTS) }, (_, i) => ({
        body: { page: events.slice(i * PAGE_EVENTS, (i + 1) * PAGE_EVENTS).map(messageOf) },
      }));
    const full = () => Array.from({ length: BATCH_MESSAGES * PAGE_EVENTS }, () => makeEvent(newRecordId()));
    const events = full();
    const posts = vi.spyOn(globalThis, "fetch").mockImplementation(() => meter.call("receiver", 0, () => new Response(null, { status: 204 })));
    const result = await consume(pagesOf(events), { env: deployment });
    expect(result.explicitAcks).toHaveLength(BATCH_MESSAGES);
    expect(posts).toHaveBeenCalledTimes(events.length);
    withinLimits(meter);
    // Single events, as the sweep and resend send them.
    const singles = new Meter();
    await consume(
      events.slice(0, BATCH_MESSAGES).map((event) => ({ body: messageOf(event) })),
      { env: deploymentOf(singles) },
    );
    withinLimits(singles);

    // Events no database holds (a log restored to before them): every database is asked, and they are delivered.
    const unknown = new Meter();
    unknown.logged = false;
    const delivered = await consume(pagesOf(events), { env: deploymentOf(unknown) });
    expect(delivered.explicitAcks).toHaveLength(BATCH_MESSAGES);
    withinLimits(unknown);
    expect(unknown.perDatabase.size).toBe(DATABASES);

    const dead = new Meter();
    await consume(pagesOf(full()), { env: deploymentOf(dead), queue: DEAD_LETTER_QUEUE });
    withinLimits(dead);
    expect(dead.perDatabase.size).toBeGreaterThan(MAX_CONNECTIONS);
  });

  it("/readyz probes a bounded sample, turning through every database over successive probes", async () => {
    const meter = new Meter();
    const deployment = deploymentOf(meter);
    await checkReadiness(deployment, "fanout-readyz");
    withinLimits(meter);
    expect(meter.perDatabase.has("DB")).toBe(true);
    expect(meter.queries).toBeLessThan(MAX_CONNECTIONS);

    const probed = new Set<string>();
    for (let probe = 0; probe < DATABASES; probe++) for (const [binding] of probedDatabases(deployment, probe * 1000)) probed.add(binding);
    expect(probed.size).toBe(DATABASES);
  });

  it("events/list (by type, across the databases) and events/resend's lookup by event id stay within the limits", async () => {
    const list = new Meter();
    await listLoggedEvents(deploymentOf(list), { type: "receipt.paid", limit: 20 });
    withinLimits(list);
    expect(list.perDatabase.size).toBe(DATABASES);

    // By receipt_id: the receipt's and the transfer's object name the ids, and one database is read for them.
    const recordId = newRecordId();
    keptIds.set(`receipt:${recordId}`, [makeEvent(recordId).id, makeEvent(recordId).id]);
    const byReceipt = new Meter();
    await listLoggedEvents(deploymentOf(byReceipt), { receiptId: recordId, limit: 20 });
    expect([byReceipt.queries, byReceipt.recordCalls]).toEqual([1, 2]);
    // A record that keeps no event: no database is asked.
    const noEvents = new Meter();
    await listLoggedEvents(deploymentOf(noEvents), { receiptId: newRecordId(), limit: 20 });
    expect([noEvents.queries, noEvents.recordCalls]).toEqual([0, 2]);

    const resend = new Meter();
    expect(await locateEvent(deploymentOf(resend), "evt_01JZZZZZZZZZZZZZZZZZZZZZZZ")).toBeNull();
    withinLimits(resend);
  });
});
