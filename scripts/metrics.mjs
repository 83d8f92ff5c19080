#!/usr/bin/env node
// `npm run metrics`: what a running `npm run dev` wrote to its metrics
// (src/metrics/metrics.ts), summed as docs/alerts.md's queries sum production's:
// occurrences per metric, operation and outcome, p50/p99 milliseconds of the
// timed ones, the most failed reconciliations in a row. It reads the dev
// server's GET /__sandbox/metrics (development only: src/metrics/dev-metrics.ts).
//   npm run metrics                      http://127.0.0.1:8787 (or $PORT)
//   npm run metrics -- --url http://127.0.0.1:8788
//   npm run metrics -- --json            the summary as the server sent it

/** The summary as a table, one row per metric, operation and outcome. */
export function formatSummary({ points, dropped, rows }) {
  const head = ["metric", "operation", "outcome", "count", "p50 ms", "p99 ms", "max attempts"];
  const cell = (value) => (value === null || value === undefined ? "" : String(value));
  const table = [head, ...rows.map((row) => [row.metric, row.operation, row.outcome, row.count, row.p50_ms, row.p99_ms, row.max_attempts].map(cell))];
  const widths = head.map((_, i) => Math.max(...table.map((line) => line[i].length)));
  const numeric = new Set([3, 4, 5, 6]);
  const lines = table.map((line) =>
    line
      .map((value, i) => (numeric.has(i) ? value.padStart(widths[i]) : value.padEnd(widths[i])))
      .join("  ")
      .trimEnd(),
  );
  const kept = `${points} data point(s) kept${dropped > 0 ? `, ${dropped} older one(s) dropped` : ""} since the dev server started.`;
  return rows.length === 0 ? `No data points yet: ${kept}` : [...lines, "", kept].join("\n");
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const urlAt = args.indexOf("--url");
  const base = urlAt >= 0 ? args[urlAt + 1] : `http://127.0.0.1:${process.env.PORT ?? "8787"}`;
  let res;
  try {
    res = await fetch(new URL("/__sandbox/metrics", base));
  } catch {
    console.error(`No dev server answers at ${base}: start one with npm run dev (or pass --url).`);
    process.exit(1);
  }
  if (!res.ok) {
    console.error(`${base}/__sandbox/metrics answered ${res.status}: only a development server (npm run dev) has it.`);
    process.exit(1);
  }
  const summary = await res.json();
  console.log(args.includes("--json") ? JSON.stringify(summary, null, 2) : formatSummary(summary));
}
