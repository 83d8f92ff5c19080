/**
 * The numbers an on-call engineer watches (docs/alerts.md), written to
 * Workers Analytics Engine through the METRICS binding: one data point per
 * occurrence, queried with the Analytics Engine SQL API. Every data point has
 * one layout, so one query shape reads them all:
 *
 *   index1   the metric's name (the sampling key: a rare metric is never
 *            sampled away by a frequent one)
 *   blob1    the metric's name
 *   blob2    the operation: an upstream path, a record's operation, a rule,
 *            a dependency ("" when the metric has none)
 *   blob3    the outcome class ("" when the metric has none)
 *   double1  how many occurrences the point stands for (1, or a batch's count)
 *   double2  milliseconds (upstream calls, deliveries; else 0)
 *   double3  failed reconciliations of the record in a row; for a delivery,
 *            the event's milliseconds in the queue (else 0): a second number
 *            of the same point, where a point of its own would double the
 *            deliveries' share of the bill
 *
 * A success of the two frequent metrics (`upstream_call` ok, `event_delivery`
 * delivered: several a payment) is written once in SUCCESS_SAMPLE, its
 * double1 standing for SUCCESS_SAMPLE occurrences: Analytics Engine bills
 * every data point written (docs/capacity.md), and the sums and percentiles
 * weighted by double1 (docs/alerts.md, the back office's charts) keep their
 * meaning. A failure, what an alert waits for, is always written, and so is
 * a slow success (SLOW_SUCCESS: a call of a second or more, an event a
 * minute or more in the queue), so the tails and the maxima are the real ones.
 *
 * No personal data: blobs are operation names and outcome classes from the
 * fixed sets typed below, never an id, a user, a tid, a card or an amount.
 * A failed write is logged and dropped: a metric never fails a request.
 * Where development registers a reader (src/dev.ts), each data point is
 * handed to it too, so `npm run metrics` shows a dev server's numbers
 * (miniflare keeps none of the points written to the binding).
 */

import type { RiskRule } from "../config/risk-limits";
import type { DeclineReason } from "../errors/error-codes";
import { log } from "../shared/log";

/** An upstream call's outcome: the call's answer, classed. */
export type UpstreamOutcome = "ok" | "refused" | "busy" | "unauthorized" | "failed" | "unreadable" | "timeout" | "network";

/** What each metric carries. `operation` and `outcome` go to blob2 and blob3. */
export interface MetricFields {
  /** Every call to the payment service: its path (`receipt/pay`), how it ended, how long it took. */
  upstream_call: { operation: string; outcome: UpstreamOutcome; ms: number };
  /** A money move or create whose outcome is unknown (a timeout, a lost connection, a 5xx): reconciliation settles it. */
  unknown_outcome: { operation: `${"receipt" | "transfer"}/${string}` };
  /**
   * A look at the upstream for a record only it can settle (rule 8): `ok` (it
   * answered) or `failed`, with the record's failed looks in a row (a failed
   * one counts itself; an ok one, those before it).
   */
  reconciliation: { operation: "receipt" | "transfer"; outcome: "ok" | "failed"; attempts: number };
  /** A record left suspect of a late change upstream after a lost call (rule 8): read again on a schedule. */
  record_suspect: { operation: "receipt" | "transfer" };
  /** A card_declined answer of the payment service (a money move refused by the bank): the upstream path and why. */
  card_declined: { operation: string; outcome: DeclineReason };
  /** Rule 2 ended a record by its OTP guesses: the third failed one exhausted it. */
  otp_exhausted: { operation: "receipt" | "transfer" };
  /**
   * One webhook delivery attempt to the partner's receiver: how long it took,
   * and how long the event had waited in the queue since it was first queued
   * (the retries' waits count).
   */
  event_delivery: { outcome: "delivered" | "failed"; ms: number; queued_ms: number };
  /** Events given up on (dead-lettered by the queue, or marked failed by the sweep): the partner did not get them. */
  event_failed: { operation: "dead_letter" | "sweep"; count: number };
  /** A call refused by rule 13 (card testing, SMS pumping): the limit and whose counter it was. */
  risk_refused: { operation: RiskRule; outcome: "card" | "user" };
  /** A line of a day's statement that the payment service's check-id disagrees with (rule 16): which field. */
  statement_mismatch: { operation: "receipt" | "transfer"; outcome: string };
  /** A /readyz probe that failed, per failing dependency. */
  readiness_failed: { operation: "upstream" | "d1" | "schema" };
}

export type MetricName = keyof MetricFields;

/** One Analytics Engine data point, as written. */
export interface MetricPoint {
  indexes: [MetricName];
  blobs: [MetricName, string, string];
  doubles: [number, number, number];
}

type AnyFields = { operation?: string; outcome?: string; ms?: number; count?: number; attempts?: number; queued_ms?: number };

/** Successes of a frequent metric written: one in this many, each standing for as many. */
export const SUCCESS_SAMPLE = 10;

/** A success this slow is always written: an upstream call's milliseconds, an event's in the queue. */
export const SLOW_SUCCESS = { upstreamMs: 1_000, queuedMs: 60_000 };

/** Whether this occurrence is a success of a frequent metric, and not a slow one: sampled. */
const isFrequentSuccess = (name: MetricName, f: AnyFields): boolean =>
  (name === "upstream_call" && f.outcome === "ok" && (f.ms ?? 0) < SLOW_SUCCESS.upstreamMs) ||
  (name === "event_delivery" && f.outcome === "delivered" && (f.queued_ms ?? 0) < SLOW_SUCCESS.queuedMs);

/** The draw that keeps a sampled success (a test replaces it to see what each side writes). */
export const successSampling = { keep: (): boolean => Math.random() * SUCCESS_SAMPLE < 1 };

/** Development's extra readers of every data point (src/dev.ts, the tests); production registers none. */
const readers = new Set<(point: MetricPoint) => void>();

/** Hands every data point to `read` as well, until the returned function is called (development only). */
export function observeMetrics(read: (point: MetricPoint) => void): () => void {
  readers.add(read);
  return () => readers.delete(read);
}

export function metricPoint<N extends MetricName>(name: N, fields: MetricFields[N]): MetricPoint {
  const f = fields as AnyFields;
  return {
    indexes: [name],
    blobs: [name, f.operation ?? "", f.outcome ?? ""],
    doubles: [f.count ?? 1, Math.max(0, Math.round(f.ms ?? 0)), f.attempts ?? Math.max(0, Math.round(f.queued_ms ?? 0))],
  };
}

/** Writes one data point. Never throws: a failed write is logged and dropped. */
export function metric<N extends MetricName>(env: Env, name: N, fields: MetricFields[N]): void {
  try {
    let point = metricPoint(name, fields);
    if (isFrequentSuccess(name, fields as AnyFields)) {
      if (!successSampling.keep()) return;
      point = metricPoint(name, { ...fields, count: SUCCESS_SAMPLE } as MetricFields[N]);
    }
    // A deployment without the binding (an older configuration) loses its metrics, not its requests.
    (env.METRICS as AnalyticsEngineDataset | undefined)?.writeDataPoint(point);
    for (const read of readers) read(point);
  } catch (err) {
    log("warn", "metric_write_failed", { metric: name, error: err instanceof Error ? err.message : String(err) });
  }
}
