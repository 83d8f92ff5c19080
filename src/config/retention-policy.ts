/**
 * How long the gateway keeps what it stores (rules 10 and 11), from the
 * deployment's vars: the windows the records, the tid index's rows and the
 * event log's rows are kept for. Read by the records, the creation of a
 * receipt and the statements as much as by the cron that ends them
 * (src/cron/retention.ts), so it stands apart from that cron.
 */
export const DAY_MS = 86_400_000;

export interface RetentionPolicy {
  /** How long an identical retry of a create is answered with its answer (by the record's object). */
  replayMs: number;
  /** How long a completed tid row is kept at all (never less than replayMs). */
  tidRetentionMs: number;
  /** How long a delivered event is kept, from its creation. */
  deliveredEventsMs: number;
  /** How long a failed or never-settled event is kept, from its creation (never less than deliveredEventsMs). */
  undeliveredEventsMs: number;
  /**
   * How long a final record's Durable Object is kept after its last change (rule 10; the object deletes
   * itself), and then only once the log lists none of its events (src/record/end.ts): an event still
   * undelivered keeps its record, which keeps its body, for as long as the log keeps the event.
   */
  recordRetentionMs: number;
  /** Rows per statement. */
  batchSize: number;
  /** Statements per step per run: a run removes at most batchSize x rounds rows of each kind. */
  rounds: number;
}

export const RETENTION_DEFAULTS = {
  replayDays: 7,
  tidRetentionDays: 90,
  // 7, not 30: a delivered event is at the partner already, and its record keeps its body and audit trail for
  // RECORD_RETENTION_DAYS; undelivered ones stay 90 days. It keeps D1 at <= 1 KB a receipt (docs/capacity.md).
  deliveredEventsDays: 7,
  undeliveredEventsDays: 90,
  // Rule 10's default. A record whose events are undelivered waits for the log to prune them (src/record/end.ts).
  recordRetentionDays: 30,
  batchSize: 1000,
  rounds: 5,
} as const;

function positive(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value !== undefined && value.trim() !== "" && Number.isFinite(n) && n > 0 ? n : fallback;
}

const whole = (value: string | undefined, fallback: number) => Math.max(1, Math.floor(positive(value, fallback)));

/** The policy from the deployment's vars; a missing or unreadable value takes its default. */
export function retentionPolicy(env: Env): RetentionPolicy {
  const d = RETENTION_DEFAULTS;
  const replayMs = positive(env.TID_REPLAY_DAYS, d.replayDays) * DAY_MS;
  const deliveredEventsMs = positive(env.EVENTS_DELIVERED_RETENTION_DAYS, d.deliveredEventsDays) * DAY_MS;
  const undeliveredEventsMs = Math.max(deliveredEventsMs, positive(env.EVENTS_UNDELIVERED_RETENTION_DAYS, d.undeliveredEventsDays) * DAY_MS);
  return {
    replayMs,
    // Deleting a row before its answer expired would cut the replay window short.
    tidRetentionMs: Math.max(replayMs, positive(env.TID_RETENTION_DAYS, d.tidRetentionDays) * DAY_MS),
    deliveredEventsMs,
    undeliveredEventsMs,
    recordRetentionMs: positive(env.RECORD_RETENTION_DAYS, d.recordRetentionDays) * DAY_MS,
    batchSize: whole(env.RETENTION_BATCH_SIZE, d.batchSize),
    rounds: whole(env.RETENTION_ROUNDS, d.rounds),
  };
}
