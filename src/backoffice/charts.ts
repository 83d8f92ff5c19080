/**
 * The operator's charts of the last 1, 6 or 24 hours, from the gateway's
 * metrics (src/metrics/metrics.ts): in production from Workers Analytics Engine's
 * SQL API (ANALYTICS_ACCOUNT_ID and ANALYTICS_API_TOKEN, a token that may
 * only read Account Analytics, both secrets: docs/production.md), in
 * development from the data points this isolate collected (src/dev.ts hands
 * them over with useLocalMetrics; production's entry never does).
 *
 * Each series is `{t: [unix seconds...], <name>: [values...]}`, one value per
 * step, ready for uPlot.
 */
import { DECLINE_REASON_NAMES } from "../errors/error-codes";
import { ApiError } from "../errors/errors";
import type { MetricPoint } from "../metrics/metrics";
import { log } from "../shared/log";

/** How many steps a chart has, whatever its span. */
const STEPS = 60;
/** The production dataset (wrangler.toml [[env.production.analytics_engine_datasets]]), unless ANALYTICS_DATASET names another. */
const DATASET = "payments_gateway_metrics";

/** A count of one metric, operation and outcome in one step. */
export interface CountRow {
  t: number;
  metric: string;
  operation: string;
  outcome: string;
  n: number;
}
/** Milliseconds in one step: the upstream calls' durations, or the events' waits in the queue. */
export interface LatencyRow {
  t: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}
/** The rows the charts are drawn from. */
export interface ChartRows {
  counts: CountRow[];
  /** The upstream calls' milliseconds (double2 of upstream_call). */
  latency: LatencyRow[];
  /** The events' milliseconds in the queue at each delivery attempt (double3 of event_delivery). */
  queue: LatencyRow[];
}

type Source = (fromMs: number) => { at: number; point: MetricPoint }[];
let localSource: Source | null = null;

/** Development: the data points this isolate keeps (src/metrics/dev-metrics.ts). */
export function useLocalMetrics(source: Source): void {
  localSource = source;
}

const UNKNOWN_CLASSES = new Set(["timeout", "network", "failed", "unreadable"]);
const isPay = (operation: string): boolean => /(^|\/)pay$/.test(operation);

/** Nearest-rank percentile of sorted values. */
const percentile = (sorted: readonly number[], p: number): number => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

/** Each step's percentiles and maximum of the values gathered in it. */
const spread = (steps: Map<number, number[]>): LatencyRow[] =>
  [...steps].map(([t, ms]) => {
    const sorted = ms.sort((a, b) => a - b);
    return { t, p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99), max: sorted.at(-1) ?? 0 };
  });

/** The local data points as rows. */
function localRows(source: Source, from: number, step: number): ChartRows {
  const counts = new Map<string, CountRow>();
  const times = new Map<number, number[]>();
  const waits = new Map<number, number[]>();
  for (const { at, point } of source(from * 1000)) {
    const t = Math.floor(at / 1000 / step) * step;
    const [metric, operation, outcome] = point.blobs;
    const key = `${t}\0${metric}\0${operation}\0${outcome}`;
    const row = counts.get(key) ?? { t, metric, operation, outcome, n: 0 };
    row.n += point.doubles[0];
    counts.set(key, row);
    // A sampled success stands for double1 occurrences (src/metrics/metrics.ts): it counts as many times in the spread.
    const weighted = (value: number) => Array.from({ length: Math.max(1, Math.round(point.doubles[0])) }, () => value);
    if (metric === "upstream_call") times.set(t, [...(times.get(t) ?? []), ...weighted(point.doubles[1])]);
    if (metric === "event_delivery") waits.set(t, [...(waits.get(t) ?? []), ...weighted(point.doubles[2])]);
  }
  return { counts: [...counts.values()], latency: spread(times), queue: spread(waits) };
}

/** Analytics Engine's SQL API: the rows of one query. */
async function sql<T>(env: Env, query: string): Promise<T[]> {
  const account = (env.ANALYTICS_ACCOUNT_ID ?? "").trim();
  const token = (env.ANALYTICS_API_TOKEN ?? "").trim();
  if (!account || !token) {
    throw new ApiError(
      "not_ready",
      "The charts need ANALYTICS_ACCOUNT_ID and ANALYTICS_API_TOKEN (a read-only Account Analytics token): docs/production.md.",
    );
  }
  const response = await fetch(`https://api.cloudflare.com/client/v4/accounts/${encodeURIComponent(account)}/analytics_engine/sql`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: query,
    signal: AbortSignal.timeout(10_000),
  }).catch((err: unknown) => {
    log("error", "analytics_unavailable", { error: err instanceof Error ? err.message : String(err) });
    return null;
  });
  if (!response?.ok) {
    if (response) log("error", "analytics_unavailable", { status: response.status });
    await response?.body?.cancel();
    throw new ApiError("upstream_unavailable", "Analytics Engine did not answer the charts' query; retry shortly.");
  }
  return ((await response.json()) as { data: T[] }).data;
}

/**
 * A step's weighted percentiles and maximum of one double of one metric, as the SQL API's functions name them:
 * each stored row weighs the occurrences it stands for, Analytics Engine's sampling and the gateway's (double1).
 */
const spreadSql = (column: string) =>
  [0.5, 0.95, 0.99]
    .map((q) => `quantileExactWeighted(${q})(${column}, toUInt32(_sample_interval * double1)) AS p${Math.round(q * 100)}`)
    .concat(`max(${column}) AS max`)
    .join(", ");

async function analyticsRows(env: Env, from: number, step: number): Promise<ChartRows> {
  const dataset = (env.ANALYTICS_DATASET ?? "").trim() || DATASET;
  if (!/^\w+$/.test(dataset)) throw new ApiError("not_ready", "ANALYTICS_DATASET is not a dataset name.");
  const bucket = `intDiv(toUInt32(timestamp), ${step}) * ${step}`;
  const since = `timestamp >= toDateTime(${from})`;
  type Spread = { t: string; p50: string; p95: string; p99: string; max: string };
  const [counts, latency, queue] = await Promise.all([
    sql<{ t: string; metric: string; operation: string; outcome: string; n: string }>(
      env,
      `SELECT ${bucket} AS t, blob1 AS metric, blob2 AS operation, blob3 AS outcome, SUM(_sample_interval * double1) AS n
       FROM ${dataset} WHERE ${since} GROUP BY t, metric, operation, outcome FORMAT JSON`,
    ),
    sql<Spread>(
      env,
      `SELECT ${bucket} AS t, ${spreadSql("double2")} FROM ${dataset} WHERE ${since} AND blob1 = 'upstream_call' GROUP BY t FORMAT JSON`,
    ),
    sql<Spread>(
      env,
      `SELECT ${bucket} AS t, ${spreadSql("double3")} FROM ${dataset} WHERE ${since} AND blob1 = 'event_delivery' GROUP BY t FORMAT JSON`,
    ),
  ]);
  const spreadOf = (r: Spread): LatencyRow => ({ t: Number(r.t), p50: Number(r.p50), p95: Number(r.p95), p99: Number(r.p99), max: Number(r.max) });
  return {
    counts: counts.map((r) => ({ t: Number(r.t), metric: r.metric, operation: r.operation, outcome: r.outcome, n: Number(r.n) })),
    latency: latency.map(spreadOf),
    queue: queue.map(spreadOf),
  };
}

/** The charts' series from rows: each a name per line, one value per step. */
export function seriesOf({ counts, latency, queue }: ChartRows, from: number, step: number) {
  const t = Array.from({ length: STEPS }, (_, i) => from + i * step);
  const at = (time: number) => Math.floor((time - from) / step);
  const chart = (names: readonly string[]) => {
    const lines: Record<string, number[]> = { t };
    for (const name of names) lines[name] = t.map(() => 0);
    return lines;
  };
  const add = (lines: Record<string, number[]>, name: string, time: number, n: number) => {
    const i = at(time);
    if (i < 0 || i >= STEPS) return;
    lines[name] ??= t.map(() => 0);
    lines[name]![i]! += n;
  };
  const payments = chart(["paid", "declined", "unknown"]);
  const unknown = chart(["unknown", "reconciled", "reconcile_failed"]);
  const refusals = chart(["refused", "busy", "unauthorized"]);
  const risk = chart([]);
  const webhooks = chart(["attempts_failed", "given_up"]);
  const declines = chart(DECLINE_REASON_NAMES);
  const exhausted = chart(["receipt", "transfer"]);
  for (const row of counts) {
    if (row.metric === "upstream_call") {
      if (isPay(row.operation)) {
        // A pay's other refusals (a wrong OTP, a receipt already paid) are no decline: upstream_refusals counts them.
        if (row.outcome === "ok") add(payments, "paid", row.t, row.n);
        else if (UNKNOWN_CLASSES.has(row.outcome)) add(payments, "unknown", row.t, row.n);
      }
      if (row.outcome in refusals) add(refusals, row.outcome, row.t, row.n);
    } else if (row.metric === "unknown_outcome") add(unknown, "unknown", row.t, row.n);
    else if (row.metric === "reconciliation") add(unknown, row.outcome === "ok" ? "reconciled" : "reconcile_failed", row.t, row.n);
    else if (row.metric === "risk_refused") add(risk, row.operation, row.t, row.n);
    else if (row.metric === "card_declined") {
      add(declines, row.outcome, row.t, row.n);
      // A payment declined is a pay the bank refused (card_declined), whatever the reason.
      if (isPay(row.operation)) add(payments, "declined", row.t, row.n);
    } else if (row.metric === "otp_exhausted") add(exhausted, row.operation, row.t, row.n);
    else if (row.metric === "event_delivery" && row.outcome === "failed") add(webhooks, "attempts_failed", row.t, row.n);
    else if (row.metric === "event_failed") add(webhooks, "given_up", row.t, row.n);
  }
  const latencyMs = chart(["p50", "p95", "p99"]);
  for (const row of latency) {
    const i = at(row.t);
    if (i < 0 || i >= STEPS) continue;
    latencyMs.p50![i] = row.p50;
    latencyMs.p95![i] = row.p95;
    latencyMs.p99![i] = row.p99;
  }
  // Seconds: a queue's wait is read in seconds to hours, a call's in milliseconds.
  const queueAge = chart(["p50", "p99", "max"]);
  for (const row of queue) {
    const i = at(row.t);
    if (i < 0 || i >= STEPS) continue;
    queueAge.p50![i] = row.p50 / 1000;
    queueAge.p99![i] = row.p99 / 1000;
    queueAge.max![i] = row.max / 1000;
  }
  return {
    payments_by_outcome: payments,
    unknown_outcomes: unknown,
    upstream_refusals: refusals,
    declines_by_reason: declines,
    otp_exhausted: exhausted,
    risk_refusals_by_rule: risk,
    webhook_failures: webhooks,
    queue_age_s: queueAge,
    latency_ms: latencyMs,
  };
}

/** The charts of the last `hours`, ending at `now` (ms). */
export async function chartsFor(env: Env, hours: 1 | 6 | 24, now: number) {
  const step = (hours * 3600) / STEPS;
  const to = Math.floor(now / 1000 / step) * step + step;
  const from = to - STEPS * step;
  const rows = env.ENVIRONMENT === "development" && localSource ? localRows(localSource, from, step) : await analyticsRows(env, from, step);
  return {
    from,
    to,
    step_s: step,
    source: env.ENVIRONMENT === "development" && localSource ? "local" : "analytics_engine",
    series: seriesOf(rows, from, step),
  };
}
