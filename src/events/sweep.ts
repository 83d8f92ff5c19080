/**
 * The event sweep: no event stays `pending` without a delivery attempt
 * scheduled, whichever single component lost its message. Run by the Cron
 * Trigger (`scheduled` in src/index.ts: every minute in production; in
 * development scripts/dev.mjs fires it every 15 s), over each database of the
 * event log, in bounded steps:
 *
 * 1. a pending event whose round of delivery (since it was logged, or last
 *    resent) is older than the retry horizon becomes `failed`: events/list
 *    with `delivery: failed` finds it and events/resend sends it again. The
 *    horizon is longer than the queue's own retries can last, so this only
 *    catches what the dead-letter queue never marked;
 * 2. a pending event whose next attempt was due more than `staleMs` ago is
 *    queued again. The log knows when each attempt is due: when it was logged
 *    or resent, then after each failed attempt the retry schedule's delay
 *    (recordFailedAttempt), so a retry merely waiting out its backoff is left
 *    alone; `staleMs` covers the queue's latency and an attempt under way (up
 *    to WEBHOOK_TIMEOUT_MS, 10 s). Queued again, its next attempt is due now,
 *    so it waits `staleMs` again before another copy. A copy that arrives
 *    after the event was delivered is acknowledged without a second delivery
 *    (handleEventBatch); receivers deduplicate by webhook-id anyway.
 *
 * Both steps read the watched events (events_watched,
 * migrations/0002_event_log_watch.sql): most events are delivered within a
 * second and never enter an index, so before them the sweep walks the log in
 * id order behind its cursor, over the events logged before its stale cutoff
 * that it has not passed yet (at most SWEEP_WALK_LIMIT a run, so a backlog is
 * caught up over runs), and watches each it finds still pending. An event
 * logged after the walk passed its id is logged watched (LATE_LOG_MS in
 * src/events/log-database.ts), and so is one resent or dead-lettered.
 *
 * The bounds keep a run's work small (a batch per database: the walk's
 * cursor, each table of the log's watch and expired, the pick of the overdue;
 * and, when some are overdue, a batch claiming them on each table; six
 * databases at a time, and the run's slice of the databases: src/cron/retention.ts's
 * cronShards, so D1's 1,000 queries per invocation hold whatever the number
 * of databases; the bodies of what is queued again from their records, at
 * most SWEEP_RECORD_CALLS a run, six at a time, after the databases are
 * done) and keep copies from piling onto a queue that is merely slow: a
 * backlog grows by at most SWEEP_RECORD_CALLS messages per run.
 */
import { inPool } from "../d1/fanout";
import { allShards, type Shard } from "../d1/shards";
import { metric } from "../metrics/metrics";
import { log } from "../shared/log";
import { withBodies } from "./bodies";
import type { RETRY_SCHEDULES } from "./delivery";
import { acrossLog, advanceWalk, decodeRow, EVENT_TABLES, idAt, type LoggedRow, type StoredRow, walkedBatch, withTable } from "./log-database";
import { enqueue } from "./publish";
import type { EventMessage } from "./types";

export interface SweepSettings {
  /** How late a due attempt may be (queue latency, an attempt under way) before the event is queued again. */
  staleMs: number;
  /** How long after its round of delivery began a still-pending event becomes failed. */
  horizonMs: number;
}

/**
 * By ENVIRONMENT, as the retry schedules. The horizon exceeds the longest a
 * round can last through the queue alone: the schedule's delays plus every
 * attempt taking its full 10 s and the queue's latency (test/integration/events-config.test.ts
 * checks it): production's ~29 h (the contract: retried at least 24 h) and
 * a margin; development's ~2.5 min, so an event is failed within 3 minutes.
 */
export const SWEEP_SETTINGS = {
  production: { staleMs: 5 * 60_000, horizonMs: 30 * 3_600_000 },
  development: { staleMs: 30_000, horizonMs: 150_000 },
} as const satisfies Record<keyof typeof RETRY_SCHEDULES, SweepSettings>;

export const sweepSettings = (env: Env): SweepSettings =>
  env.ENVIRONMENT === "development" ? SWEEP_SETTINGS.development : SWEEP_SETTINGS.production;

/** Events queued again per database per run: one sendBatch (at most 100 messages). */
export const REQUEUE_LIMIT = 100;
/**
 * Events queued again per run, over all its databases: each may take a call
 * to its record for the body (src/events/bodies.ts), and a run's calls stay
 * far under Workers' subrequests per invocation whatever the number of
 * databases (https://developers.cloudflare.com/workers/platform/limits/).
 */
export const SWEEP_RECORD_CALLS = 300;

/** Each database's share of a run's requeues: SWEEP_RECORD_CALLS over the run's databases, 1 to REQUEUE_LIMIT. */
export const requeuesPerDatabase = (databases: number): number =>
  Math.max(1, Math.min(REQUEUE_LIMIT, Math.floor(SWEEP_RECORD_CALLS / Math.max(1, databases))));
/** Events marked failed per database per run. */
export const FAIL_LIMIT = 1000;
/**
 * Events the walk passes per database per run: far more than a database logs
 * in a minute (at 10,000,000 creates a day over 49 databases, ~300), so a
 * run's walk reaches its stale cutoff, and one that fell behind catches up.
 */
export const SWEEP_WALK_LIMIT = 10_000;

export interface SweepReport {
  failed: number;
  requeued: number;
}

/**
 * Which rows each step takes (?1: the cutoff, ?2: the bound): scans of the
 * watched pending rows of events_watched (migrations/0002_event_log_watch.sql),
 * oldest first: only the events still undelivered at the stale cutoff, none
 * in the steady state (during a receiver's outage, every event of the last
 * horizon: see docs/events.md). test/integration/events-log.test.ts reads
 * their query plans.
 */
export const SWEEP_SELECTS = {
  expired: (table: string) => `SELECT id FROM ${table} WHERE watched = 1 AND status = 0 AND pending_since < ?1 ORDER BY id LIMIT ?2`,
  overdue: (table: string) => `${withTable("id", table, "watched = 1 AND status = 0 AND next_attempt_at < ?1")} ORDER BY id LIMIT ?2`,
} as const;

/**
 * The walk's two statements (?1: the first id of the stale cutoff's
 * millisecond, ?2: SWEEP_WALK_LIMIT): move the 'sweep' cursor over the next
 * batch, then watch the undelivered events of that batch (pending; failed
 * only if a version before the walk dead-lettered it). Rows read: the batch,
 * twice (the events logged in about a minute); written: the cursor, and two
 * per event watched (its row and its events_watched entry).
 */
export const SWEEP_WALK = {
  advance: advanceWalk("sweep", EVENT_TABLES),
  watch: (table: string) => `UPDATE ${table} SET watched = 1 WHERE ${walkedBatch("sweep")} AND status <> 1 AND watched IS NULL`,
} as const;

/**
 * One database: walk on (watching what is still pending at the stale
 * cutoff), mark what is past the horizon failed, and pick what is overdue,
 * in one batch over every table of the log (an event may sit in any); then
 * claim those (their next attempt due now) in the table the pick found each
 * in, in a second batch only when some are overdue (none in the steady
 * state). Answers the overdue
 * rows (their bodies are their records': src/events/bodies.ts).
 */
async function sweepDatabase(
  db: D1Database,
  now: number,
  settings: SweepSettings,
  requeues: number,
): Promise<{ failed: string[]; overdue: LoggedRow[] }> {
  const tables = EVENT_TABLES.length;
  const results = await db.batch<Record<string, unknown>>([
    db.prepare(SWEEP_WALK.advance).bind(idAt(now - settings.staleMs), SWEEP_WALK_LIMIT),
    ...EVENT_TABLES.map((table) => db.prepare(SWEEP_WALK.watch(table))),
    ...EVENT_TABLES.map((table) =>
      db
        .prepare(`UPDATE ${table} SET status = 2 WHERE id IN (${SWEEP_SELECTS.expired(table)}) RETURNING id`)
        .bind(now - settings.horizonMs, FAIL_LIMIT),
    ),
    // The overdue ones of the whole log, oldest first, at most `requeues`: each table's first `requeues`, then the
    // first of them all, each with the table it is in.
    db.prepare(`SELECT id, log_table FROM (${acrossLog(SWEEP_SELECTS.overdue)}) ORDER BY id LIMIT ?2`).bind(now - settings.staleMs, requeues),
  ]);
  const failed = results.slice(1 + tables, 1 + 2 * tables).flatMap((result) => result.results.map((row) => String(row.id)));
  const due = new Map((results.at(-1)?.results ?? []).map((row) => [String(row.id), String(row.log_table)]));
  if (due.size === 0) return { failed, overdue: [] };
  // Claimed where each was read, its next attempt due now: one statement a table read, at most one a table of the
  // log (SWEEP_QUERIES_PER_DATABASE). One another sweep claimed meanwhile is no longer overdue and stays out; one a
  // turn of the ring moved meanwhile (src/d1/ring.ts) is not claimed now and stays overdue where it went, for the
  // next run to claim there.
  const byTable = new Map<string, string[]>();
  for (const [id, table] of due) if (EVENT_TABLES.includes(table)) byTable.set(table, [...(byTable.get(table) ?? []), id]);
  const claimed = await db.batch<StoredRow>(
    [...byTable].map(([table, ids]) =>
      db
        .prepare(
          `UPDATE ${table} SET next_attempt_at = ?3
           WHERE id IN (SELECT value FROM json_each(?2)) AND watched = 1 AND status = 0 AND next_attempt_at < ?1 RETURNING *`,
        )
        .bind(now - settings.staleMs, JSON.stringify(ids), now),
    ),
  );
  return { failed, overdue: claimed.flatMap((result) => result.results).map(decodeRow) };
}

/**
 * One sweep at `now` over this run's slice of the databases of the event log
 * (the cron passes its slice, src/cron/retention.ts cronShards; alone, all of them; and, while
 * TID_INDEX_SHARDS changes, the list before). A failing database does not
 * stop the others; the run then throws, so the cron invocation shows as
 * failed. An event claimed but not queued (the queue refused) is due again
 * `staleMs` later.
 */
export async function sweepEvents(
  env: Env,
  now: number,
  settings = sweepSettings(env),
  databases: readonly Shard[] = allShards(env),
): Promise<SweepReport> {
  const report: SweepReport = { failed: 0, requeued: 0 };
  const errors: unknown[] = [];
  const requeues = requeuesPerDatabase(databases.length);
  const overdue = await inPool(databases, async ({ binding, db }) => {
    try {
      const swept = await sweepDatabase(db, now, settings, requeues);
      report.failed += swept.failed.length;
      for (const id of swept.failed) log("error", "event_delivery_abandoned", { event_id: id, by: "sweep", database: binding });
      return swept.overdue;
    } catch (err) {
      errors.push(err);
      log("error", "events_sweep_failed", { database: binding, error: err instanceof Error ? err.message : String(err) });
      return [];
    }
  });
  // One data point for the run, however many events it gave up on.
  if (report.failed > 0) metric(env, "event_failed", { operation: "sweep", count: report.failed });
  try {
    // Bodies from their records (src/events/bodies.ts), six calls at a time once the databases are done; one found
    // nowhere is not queued, and the horizon marks it failed. A claimed event not queued is due again staleMs later.
    const messages: EventMessage[] = (await withBodies(env, overdue.flat())).map((row) => ({ id: row.id, payload: row.body }));
    await enqueue(env, messages);
    report.requeued = messages.length;
    if (messages.length > 0) log("warn", "events_requeued", { events: messages.length, ids: messages.map((m) => m.id).join(" ") });
  } catch (err) {
    errors.push(err);
    log("error", "events_sweep_failed", { error: err instanceof Error ? err.message : String(err) });
  }
  if (errors.length > 0) throw new Error(`Event sweep failed (${errors.length} step(s))`, { cause: errors[0] });
  return report;
}
