/**
 * Retention: what keeps D1 from growing with every create (docs/capacity.md's
 * capacity model sizes it). Run by the Cron Trigger (`scheduled` in
 * src/index.ts), in bounded batches:
 *
 * - a tid row (~220 B in pages: migrations/0001_initial.sql) keeps no
 *   answer (the record's object does, for the replay window), so there is
 *   nothing to compact: after the retention window the row is deleted, its
 *   pages go to the rows claimed after it, and the upstream's own tid
 *   uniqueness is the backstop (its TID_DUPLICATE answers tid_conflict);
 * - delivered events are deleted after their window, undelivered ones (failed,
 *   or pending and never settled) after a longer one, so a partner whose
 *   receiver was down can still list and resend them. An event delivered
 *   before the sweep watched it is in no index (migrations/0002_event_log_watch.sql):
 *   a walk of the log in id order behind a cursor deletes it (pruneDelivered);
 *   the watched ones are ranges of events_watched (pruneWatched);
 * - a done erasure request is deleted ERASURE_REQUESTS_KEPT_DAYS after it
 *   was made (src/cron/erasure.ts).
 *
 * Which stores a run prunes is src/stores.ts's list: every store it says the
 * cron ends has its steps in PRUNERS (a map typed by that list), run on the
 * databases the store lives in.
 *
 * The tid index and the event log are spread over the databases
 * TID_INDEX_SHARDS names (src/d1/shards.ts): each database is pruned on its own, with the same bound per step, at most six at a time (the
 * Workers connection limit), and a run works on a slice of the databases
 * (`cronShards`), turning through all of them over successive minutes, so a
 * run's D1 queries stay under the 1,000 per invocation whatever the number of
 * databases (src/d1/fanout.ts).
 *
 * Pending claims are never touched: their lease decides what becomes of them.
 * Every batch is a range scan of an index (migrations/0001_initial.sql,
 * 0002_event_log_watch.sql, 0008_tid_retention_walk.sql), oldest first, so
 * a run reads only what it removes, or a walk of at most batchSize events
 * or tid rows behind its cursor (the tid index's by rowid); each
 * statement is short enough not to hold D1's single writer from the creates
 * for long.
 */

import { DAY_MS, type RetentionPolicy, retentionPolicy } from "../config/retention-policy";
import { cronSlice, databasesPerRun, inPool, QUERY_BUDGET } from "../d1/fanout";
import { allShards, type Shard } from "../d1/shards";
import { EMPTY_EVENT_SLOT_QUERIES, EVENT_TABLES, emptyEventSlot, pruneAttempts, pruneDelivered, pruneWatched } from "../events/log-database";
import { log } from "../shared/log";
import { ERASURE_REQUESTS_KEPT_DAYS, implementations, type STORES, type StoreEndedBy, storesEndedBy } from "../stores";
import { deleteFences, deleteLateTids, EMPTY_TID_SLOT_QUERIES, emptyTidSlot, pruneTids } from "../tids/tid-index";
import { deleteDoneErasures } from "./erasure";

/** What a run removed, by kind. */
interface RetentionCounts {
  tids_deleted: number;
  /** Fences of a growing list (src/tids/tid-index.ts) past TID_RETENTION_DAYS. */
  tid_fences_deleted: number;
  events_delivered_pruned: number;
  events_undelivered_pruned: number;
  /** Delivery attempts of events past both event windows. */
  event_attempts_pruned: number;
  /** Slots of the event log's ring emptied whole (src/d1/ring.ts): a database's one a period. */
  event_slots_emptied: number;
  /** Done erasure requests past ERASURE_REQUESTS_KEPT_DAYS. */
  erasures_deleted: number;
}

export interface RetentionReport extends RetentionCounts {
  /** Some step removed its full bound: more is due, and the next run continues. */
  backlog: boolean;
  /** Each database's tid-index counts (TID_INDEX_SHARDS): each database has its own bound per run. */
  tid_shards: Record<string, { deleted: number }>;
}

/** What a batch removed, and whether more is due (a walk removes less than it passes: `more` says). */
type Batch = number | { removed: number; more: boolean };

/** One step of a store's pruning on one database: its name (a failed step is named so, with the database), the count it adds to, its D1 statements per batch, and the batch. */
interface PruneStep {
  name: string;
  counts: keyof RetentionCounts;
  queries: number;
  /** A store outside D1 (an R2 bucket) uses `env` and ignores `db`, and counts no D1 statement. */
  batch: (db: D1Database, policy: RetentionPolicy, limit: number, now: number, env: Env) => Promise<Batch>;
}

/**
 * How the run prunes each store src/stores.ts says the cron ends, step by
 * step, in order, on each database the store lives in. Typed by that list:
 * a store added there with this end has no build until its steps are here.
 */
const PRUNERS: Readonly<Record<StoreEndedBy<"cron">, readonly PruneStep[]>> = {
  tid_index: [
    // The walk by rowid behind its cursor: four statements a batch.
    { name: "tids_deleted", counts: "tids_deleted", queries: 4, batch: (db, p, limit, now) => pruneTids(db, p.tidRetentionMs, limit, now) },
    // The rows answered long after their claim, which the walk passes: a range of tid_index_late (and the cursor kept in the table).
    {
      name: "tids_late_deleted",
      counts: "tids_deleted",
      queries: 2,
      batch: (db, p, limit, now) => deleteLateTids(db, p.tidRetentionMs, limit, now),
    },
    // A growing list's fences (src/tids/tid-index.ts, claimIndexFor), once every row they stood for is gone.
    {
      name: "tid_fences_deleted",
      counts: "tid_fences_deleted",
      queries: 2,
      batch: (db, p, limit, now) => deleteFences(db, p.tidRetentionMs, limit, now),
    },
    // The ring of slots: the one the next period writes to is emptied whole, once a period (a probe of one row otherwise).
    {
      name: "tid_slot_emptied",
      counts: "tids_deleted",
      queries: EMPTY_TID_SLOT_QUERIES,
      batch: (db, p, _limit, now) => emptyTidSlot(db, p.tidRetentionMs, now),
    },
  ],
  event_log: [
    // The walk behind its cursor: four statements a batch.
    {
      name: "events_delivered_pruned",
      counts: "events_delivered_pruned",
      queries: 4,
      batch: (db, p, limit, now) => pruneDelivered(db, p.deliveredEventsMs, limit, now),
    },
    {
      name: "events_watched_delivered_pruned",
      counts: "events_delivered_pruned",
      queries: 1,
      batch: (db, p, limit, now) => pruneWatched(db, "delivered", p.deliveredEventsMs, limit, now),
    },
    {
      name: "events_failed_pruned",
      counts: "events_undelivered_pruned",
      queries: 1,
      batch: (db, p, limit, now) => pruneWatched(db, "failed", p.undeliveredEventsMs, limit, now),
    },
    {
      name: "events_pending_pruned",
      counts: "events_undelivered_pruned",
      queries: 1,
      batch: (db, p, limit, now) => pruneWatched(db, "pending", p.undeliveredEventsMs, limit, now),
    },
    // The ring's slots (src/d1/ring.ts): the one the next period writes to, emptied whole once it holds a row.
    { name: "event_slots_emptied", counts: "event_slots_emptied", queries: EMPTY_EVENT_SLOT_QUERIES, batch: emptySlot },
  ],
  event_attempts: [
    {
      name: "event_attempts_pruned",
      counts: "event_attempts_pruned",
      queries: 1,
      batch: (db, p, limit, now) => pruneAttempts(db, Math.max(p.deliveredEventsMs, p.undeliveredEventsMs), limit, now),
    },
  ],
  erasure_requests: [
    {
      name: "erasures_deleted",
      counts: "erasures_deleted",
      queries: 1,
      batch: (db, _p, limit, now) => deleteDoneErasures(db, now - ERASURE_REQUESTS_KEPT_DAYS * DAY_MS, limit),
    },
  ],
};

/** The event log's ring turns: one slot a batch, or none (a batch of 0: the step stops). */
async function emptySlot(db: D1Database, policy: RetentionPolicy, _limit: number, now: number): Promise<Batch> {
  const copied = await emptyEventSlot(db, policy.deliveredEventsMs, policy.undeliveredEventsMs, now);
  return { removed: copied === null ? 0 : 1, more: false };
}

/** Each store the cron ends, with the databases it lives in and its steps. */
const pruned = () => {
  const stores = storesEndedBy("cron");
  return implementations(stores, PRUNERS).map((steps, i) => ({ store: stores[i]!, steps }));
};

/**
 * Whether a run prunes a store in this database's lane: a D1 store in every
 * database of the deployment or in the first (DB) alone; any other store
 * once, in the first's lane (each turn of the cron's slices).
 */
const livesIn = (store: (typeof STORES)[number], binding: string): boolean =>
  (store.place.kind === "d1" && store.place.databases === "all") || binding === "DB";

/** D1 statements per round of a run's steps on one database, the first (which holds every store): every step's batch. */
/** D1 statements per round of a run's steps in a database's lane: every step of every store pruned there. */
const queriesPerRound = (binding: string): number =>
  pruned()
    .filter(({ store }) => livesIn(store, binding))
    .reduce((sum, { steps }) => sum + steps.reduce((n, step) => n + step.queries, 0), 0);

/** D1 statements per round of a run's steps on any database: the stores spread over all of them (the tid index, the event log). */
export const RETENTION_QUERIES_PER_ROUND = queriesPerRound("");

/** What the first database's lane (DB) adds per round: the stores there alone (the erasure requests). */
export const FIRST_DATABASE_QUERIES_PER_ROUND = queriesPerRound("DB") - RETENTION_QUERIES_PER_ROUND;

/**
 * D1 statements the event sweep (src/events/sweep.ts) runs per database in the same cron invocation: the walk's
 * cursor, then on each table of the log its watch and its expired, the pick of the overdue, and their claim on
 * each table.
 */
export const SWEEP_QUERIES_PER_DATABASE = 2 + 3 * EVENT_TABLES.length;

/** The most D1 queries a cron run spends on one database: every step's every round, and the sweep's. */
export const cronQueriesPerDatabase = (policy: RetentionPolicy): number => RETENTION_QUERIES_PER_ROUND * policy.rounds + SWEEP_QUERIES_PER_DATABASE;

/**
 * The databases the cron run at `now` works on (retention and the event
 * sweep): all of them while they fit one run's query budget, otherwise this
 * minute's slice; each database is visited every ceil(N / perRun) minutes.
 */
export function cronShards(env: Env, now: number, policy = retentionPolicy(env)): Shard[] {
  const perRun = databasesPerRun(cronQueriesPerDatabase(policy), QUERY_BUDGET - FIRST_DATABASE_QUERIES_PER_ROUND * policy.rounds);
  return cronSlice(allShards(env), perRun, Math.floor(now / 60_000));
}

/** One step: up to `rounds` batches, stopping at the first batch that was not full. */
async function drain(policy: RetentionPolicy, batch: (limit: number) => Promise<Batch>): Promise<{ removed: number; full: boolean }> {
  let removed = 0;
  for (let round = 0; round < policy.rounds; round++) {
    const result = await batch(policy.batchSize);
    const n = typeof result === "number" ? result : result.removed;
    removed += n;
    if (typeof result === "number" ? n < policy.batchSize : !result.more) return { removed, full: false };
  }
  return { removed, full: true };
}

/**
 * One run at `now`: deletes tid rows, then prunes events; logs one line with
 * the counts. A failing step does not stop the others; the run then throws,
 * so the cron invocation shows as failed, and the next run picks up where
 * this one stopped.
 */
export async function runRetention(env: Env, now: number, policy = retentionPolicy(env), databases?: readonly Shard[]): Promise<RetentionReport> {
  const started = Date.now();
  const failed: string[] = [];
  let firstError: unknown;
  let backlog = false;
  /** Drains one step; a failure is noted and the run goes on with the others. */
  const run = async (name: string, step: (limit: number) => Promise<Batch>): Promise<number> => {
    try {
      const { removed, full } = await drain(policy, step);
      backlog ||= full;
      return removed;
    } catch (err) {
      failed.push(name);
      firstError ??= err;
      return 0;
    }
  };

  let shards: readonly Shard[] = [];
  try {
    shards = databases ?? cronShards(env, now, policy);
  } catch (err) {
    failed.push("tid_shards");
    firstError ??= err;
  }
  // Six databases at a time (the Workers connection limit), each with the full bound per step: a run's work
  // per database is what one database had, and a slow one holds up only its own lane. Within one, each store
  // that lives there (the tid index and the event log are spread over every database), its steps in order.
  const stores = pruned();
  const perShard = await inPool(shards, async (shard) => {
    const counts: RetentionCounts = {
      tids_deleted: 0,
      tid_fences_deleted: 0,
      events_delivered_pruned: 0,
      events_undelivered_pruned: 0,
      event_attempts_pruned: 0,
      event_slots_emptied: 0,
      erasures_deleted: 0,
    };
    for (const { store, steps } of stores) {
      if (!livesIn(store, shard.binding)) continue;
      for (const step of steps)
        counts[step.counts] += await run(`${step.name}:${shard.binding}`, (limit) => step.batch(shard.db, policy, limit, now, env));
    }
    return { binding: shard.binding, counts };
  });
  const sum = (name: keyof RetentionCounts) => perShard.reduce((total, shard) => total + shard.counts[name], 0);

  const report: RetentionReport = {
    tids_deleted: sum("tids_deleted"),
    tid_fences_deleted: sum("tid_fences_deleted"),
    events_delivered_pruned: sum("events_delivered_pruned"),
    events_undelivered_pruned: sum("events_undelivered_pruned"),
    event_attempts_pruned: sum("event_attempts_pruned"),
    event_slots_emptied: sum("event_slots_emptied"),
    erasures_deleted: sum("erasures_deleted"),
    backlog,
    tid_shards: Object.fromEntries(perShard.map(({ binding, counts }) => [binding, { deleted: counts.tids_deleted }])),
  };
  log(failed.length ? "error" : "info", "retention_run", {
    now,
    ...report,
    bound_per_step: policy.batchSize * policy.rounds,
    duration_ms: Date.now() - started,
    ...(failed.length ? { failed_steps: failed, error: String(firstError) } : {}),
  });
  if (failed.length) throw new Error(`Retention steps failed: ${failed.join(", ")}`, { cause: firstError });
  return report;
}
