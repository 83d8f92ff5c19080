/**
 * Development's copy of the gateway's metrics. Miniflare's Analytics Engine
 * binding keeps none of the data points written to it, so the dev server
 * (src/dev.ts, the only importer) also keeps the newest ones in memory and
 * GET /__sandbox/metrics sums them up the way docs/alerts.md's SQL does:
 * occurrences per metric, operation and outcome, and p50/p99 of the
 * milliseconds. `npm run metrics` prints it. Production's entry imports none
 * of this. The data points hold no personal data (src/metrics/metrics.ts), so neither
 * does this.
 */
import { clock } from "../shared/clock";
import { type MetricPoint, observeMetrics } from "./metrics";

/** Data points kept: the newest, enough for a morning's manual testing. */
export const DEV_METRICS_KEPT = 20_000;

const points: MetricPoint[] = [];
/** When each kept point was written (the gateway's clock), for the console's charts. */
const times: number[] = [];
let dropped = 0;

/** Starts keeping every data point written from here on, in this isolate (the dev server's one). */
export function keepDevMetrics(): void {
  observeMetrics((point) => {
    points.push(point);
    times.push(clock.now());
    if (points.length > DEV_METRICS_KEPT) {
      points.shift();
      times.shift();
      dropped++;
    }
  });
}

/** The kept data points written at or after `fromMs`, with their times (the console's charts in development). */
export function devMetricPoints(fromMs: number): { at: number; point: MetricPoint }[] {
  const kept: { at: number; point: MetricPoint }[] = [];
  points.forEach((point, i) => {
    if (times[i]! >= fromMs) kept.push({ at: times[i]!, point });
  });
  return kept;
}

export interface DevMetricRow {
  metric: string;
  operation: string;
  outcome: string;
  /** Occurrences (the sum of double1). */
  count: number;
  /** Of double2, for the metrics that time something; null otherwise. */
  p50_ms: number | null;
  p99_ms: number | null;
  /** Of double3, for reconciliations; null otherwise. */
  max_attempts: number | null;
}

/** Nearest-rank percentile of sorted values. */
const percentile = (sorted: readonly number[], p: number): number => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;

const TIMED = new Set(["upstream_call", "event_delivery"]);

/** The kept data points, grouped by metric, operation and outcome, sorted by them. */
export function devMetricsSummary(): { points: number; dropped: number; rows: DevMetricRow[] } {
  const groups = new Map<string, MetricPoint[]>();
  for (const point of points) {
    const key = point.blobs.join("\0");
    const group = groups.get(key);
    if (group) group.push(point);
    else groups.set(key, [point]);
  }
  const rows = [...groups.values()].map((group): DevMetricRow => {
    const [metric, operation, outcome] = group[0]!.blobs;
    // A sampled success stands for double1 calls (src/metrics/metrics.ts): it weighs as many in the percentiles.
    const ms = group.flatMap((point) => Array<number>(Math.max(1, Math.round(point.doubles[0]))).fill(point.doubles[1])).sort((a, b) => a - b);
    return {
      metric,
      operation,
      outcome,
      count: group.reduce((sum, point) => sum + point.doubles[0], 0),
      p50_ms: TIMED.has(metric) ? percentile(ms, 50) : null,
      p99_ms: TIMED.has(metric) ? percentile(ms, 99) : null,
      max_attempts: metric === "reconciliation" ? Math.max(...group.map((point) => point.doubles[2])) : null,
    };
  });
  rows.sort((a, b) => a.metric.localeCompare(b.metric) || a.operation.localeCompare(b.operation) || a.outcome.localeCompare(b.outcome));
  return { points: points.length, dropped, rows };
}
