/**
 * Turns the measurements into what people read: a table on the console, a
 * JSON file under bench/results/ that a later run on the same machine can be
 * compared with, the full report beside it (`<date-time>.md`), and
 * bench/results/latest.md, the newest run's summary: the one results file
 * kept in git (.gitignore). Also judges the targets; the verdicts are
 * reported, never asserted.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { basename, join } from "node:path";
import { BUILD_DIR, PLAN, PLATFORM_D1_MS, RESULTS_DIR, ROOT, UPSTREAM_LATENCY_MS } from "./config.mjs";
import { COUNTED, criticalMarkdown } from "./critical.mjs";
import { SCENARIOS, TARGETS } from "./scenarios.mjs";

/** The targets for the gateway's own cost against the bare proxy, as data so the table and the verdicts agree. */
// pay is judged on both starting points: a receipt object started cold, and one in memory.
const LATENCY_LIMITS = { "check-id": 1.4, "pay-warm": 1.4, pay: 1.8, create: 2.0, flow: 2.0 };
const THROUGHPUT_FLOOR = { "check-id": 0.65, "pay-warm": 0.65, pay: 0.5 };
/** CPU per create-authorize-pay flow, gateway over bare proxy. */
const FLOW_CPU_LIMIT = 2.5;
/** Every operation with the upstream UPSTREAM_LATENCY_MS away: what a user feels. */
const FAR_LATENCY_LIMIT = 1.05;
const BUNDLE_LIMIT_KIB = 100;

/**
 * The platform targets: what a user waits for on Cloudflare. Round trips
 * before the answer by the traced gateway's counts (lib/critical.mjs); what
 * they add by the @platform rows, gateway p50 minus bare-proxy p50 (ms).
 */
const CRITICAL_D1_LIMITS = {
  create: 1,
  authorize: 0,
  pay: 0,
  "pay-warm": 0,
  "pay-otp": 0,
  "hold-confirm": 0,
  cancel: 0,
  "check-id": 0,
  "check-tid": 0,
  "create-replay": 0,
  "pay-keyed": 0,
};
// Rule 11's promise: a key adds no commit to a pay (it rides in the note's and the outcome's).
const CRITICAL_COMMIT_LIMITS = { pay: 2, "pay-warm": 2, "pay-otp": 2, "pay-keyed": 2, "check-id": 0 };
/**
 * Rule 11's replay: answered by the record's object from its own SQLite.
 * Upstream calls and D1 round trips are counted before and after the answer
 * together: a replay must set off nothing, not merely wait for nothing.
 */
const REPLAY_LIMITS = { "pay-replay": { upstream: 0, d1: 0, hops: 1 } };
const PLATFORM_ADDED_MS = { create: 55, pay: 3, "check-id": 2 };
/** CPU where the edge pays per request: an anonymous pay (a card number) over a token pay, and a flow over the bare proxy's. */
const ANONYMOUS_PAY_CPU_LIMIT = 2;
const EDGE_FLOW_CPU_LIMIT = 5;
/** CPU per create-authorize-pay flow, gateway over bare proxy: the platform target's bound. */
const PLATFORM_FLOW_CPU_LIMIT = 3;

function version(pkg) {
  try {
    return JSON.parse(readFileSync(join(ROOT, "node_modules", pkg, "package.json"), "utf8")).version;
  } catch {
    return null;
  }
}

function git(args) {
  try {
    return execFileSync("git", args, { cwd: ROOT, encoding: "utf8" }).trim();
  } catch {
    return null;
  }
}

export function describeMachine() {
  const cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? os.cpus()[0]?.model ?? "unknown";
  let nproc = os.availableParallelism();
  try {
    nproc = Number(execFileSync("nproc", { encoding: "utf8" }).trim());
  } catch {}
  return {
    nproc,
    cpu: model,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    // Other work on the machine shows here: the bench shares the box with whoever else runs on it.
    loadAverage1m: Math.round(os.loadavg()[0] * 100) / 100,
    wrangler: version("wrangler"),
    miniflare: version("miniflare"),
    workerd: version("workerd"),
    autocannon: version("autocannon"),
  };
}

export function describeSource() {
  const status = git(["status", "--porcelain", "--", "src", "wrangler.toml", "migrations", ".dev.vars.example"]);
  return {
    commit: git(["rev-parse", "--short", "HEAD"]),
    // The working tree is shared with people editing src/: say what was measured.
    uncommittedChanges: status ? status.split("\n").map((line) => line.trim()) : [],
  };
}

const ratio = (a, b) => (a == null || b == null || b === 0 ? null : Math.round((a / b) * 100) / 100);

/** Per scenario: the three targets' numbers and the gateway's ratios to the other two. */
export function tabulate(measurements) {
  const far = SCENARIOS.filter((s) => measurements[`${s.key}@${UPSTREAM_LATENCY_MS}ms`]).map((s) => ({
    ...s,
    key: `${s.key}@${UPSTREAM_LATENCY_MS}ms`,
    label: `${s.label} @${UPSTREAM_LATENCY_MS}ms`,
    note: `${s.label} again at concurrency 1, every target's sandbox waiting ${UPSTREAM_LATENCY_MS} ms before each call (SANDBOX_LATENCY_MS): the upstream as far away as a real one`,
  }));
  const platform = SCENARIOS.filter((s) => measurements[`${s.key}@platform`]).map((s) => ({
    ...s,
    key: `${s.key}@platform`,
    label: `${s.label} @platform`,
    note: `${s.label} at concurrency 1 with the upstream ${UPSTREAM_LATENCY_MS} ms away and every D1 round trip of the gateway ${PLATFORM_D1_MS} ms away (bench/workers/traced-gateway.ts wraps the D1 bindings; the gateway's code is unchanged); the bare proxy and the sandbox have no D1`,
  }));
  return [...SCENARIOS, ...far, ...platform].map((s) => {
    const row = { key: s.key, label: s.label, note: s.note, targets: {} };
    for (const t of TARGETS) {
      const lat = measurements[s.key]?.[t.key]?.latency;
      const thr = measurements[s.key]?.[t.key]?.throughput;
      row.targets[t.key] = {
        p50: lat?.latency.p50 ?? null,
        p99: lat?.latency.p99 ?? null,
        rps: thr?.rps ?? null,
        cpuMs: thr?.cpu?.runtimeMsPer ?? null,
        ownCpuMs: measurements[s.key]?.[t.key]?.isolates?.ownMsPer ?? null,
        cores: thr?.cpu?.runtimeCores ?? null,
        non2xx: (lat?.non2xx ?? 0) + (thr?.non2xx ?? 0) + (lat?.errors ?? 0) + (thr?.errors ?? 0),
      };
    }
    const g = row.targets.gateway;
    const b = row.targets.bareProxy;
    const d = row.targets.direct;
    row.ratios = {
      p50: { bareProxy: ratio(g.p50, b.p50), direct: ratio(g.p50, d.p50) },
      p99: { bareProxy: ratio(g.p99, b.p99), direct: ratio(g.p99, d.p99) },
      rps: { bareProxy: ratio(g.rps, b.rps), direct: ratio(g.rps, d.rps) },
      cpuMs: { bareProxy: ratio(g.cpuMs, b.cpuMs), direct: ratio(g.cpuMs, d.cpuMs) },
      ownCpuMs: { bareProxy: ratio(g.ownCpuMs, b.ownCpuMs), direct: null },
    };
    return row;
  });
}

/** The platform targets that the round-trip counts alone decide (also `npm run bench -- --critical`). */
export function judgeCritical(path) {
  const verdicts = [];
  const ops = path?.ops ?? {};
  const label = (op) => COUNTED.find((c) => c.key === op)?.label ?? op;
  for (const [op, limit] of Object.entries(CRITICAL_D1_LIMITS)) {
    const c = ops[op]?.critical;
    verdicts.push({
      target: `${label(op)}: at most ${limit} D1 round trip${limit === 1 ? "" : "s"} before the answer`,
      value: c ? `${c.d1} (${c.d1Depth} in sequence, ${c.d1Statements} statement${c.d1Statements === 1 ? "" : "s"})` : null,
      met: c ? c.d1 <= limit : null,
    });
  }
  for (const [op, limit] of Object.entries(CRITICAL_COMMIT_LIMITS)) {
    const c = ops[op]?.critical;
    // A keyed pay beside the same pay without a key: what the key itself costs.
    const without = op === "pay-keyed" && ops.pay ? ` (pay without a key: ${ops.pay.critical.commits})` : "";
    verdicts.push({
      target: `${label(op)}: at most ${limit} storage commit${limit === 1 ? "" : "s"} before the answer`,
      value: c ? `${c.commits}${without}` : null,
      met: c ? c.commits <= limit : null,
    });
  }
  for (const [op, limit] of Object.entries(REPLAY_LIMITS)) {
    const s = ops[op];
    const total = (kind) => (s ? s.critical[kind] + s.after[kind] : null);
    const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
    verdicts.push(
      {
        target: `${label(op)}: ${plural(limit.upstream, "upstream call")}, before or after the answer`,
        value: s ? String(total("upstream")) : null,
        met: s ? total("upstream") <= limit.upstream : null,
      },
      {
        target: `${label(op)}: ${plural(limit.d1, "D1 round trip")}, before or after the answer`,
        value: s ? String(total("d1")) : null,
        met: s ? total("d1") <= limit.d1 : null,
      },
      {
        target: `${label(op)}: at most ${plural(limit.hops, "Durable Object hop")}`,
        value: s ? String(total("hops")) : null,
        met: s ? total("hops") <= limit.hops : null,
      },
    );
  }
  const hops = Object.entries(ops).map(([op, s]) => [op, s.critical.hops]);
  verdicts.push({
    target: "at most one Durable Object round trip per operation",
    value: hops.length ? hops.map(([op, n]) => `${op} ${n}`).join(", ") : null,
    met: hops.length ? hops.every(([, n]) => n <= 1) : null,
  });
  return verdicts;
}

/** The targets against this run. `met: null` means the bench cannot tell. */
export function judge(table, bundle, profile, criticalPath) {
  const verdicts = [];
  const byKey = Object.fromEntries(table.map((r) => [r.key, r]));
  for (const [op, limit] of Object.entries(LATENCY_LIMITS)) {
    const value = byKey[op]?.ratios.p50.bareProxy ?? null;
    verdicts.push({
      target: `${op}: gateway p50 / bare-proxy p50 <= ${limit}`,
      value,
      met: value == null ? null : value <= limit,
    });
  }
  for (const [op, floor] of Object.entries(THROUGHPUT_FLOOR)) {
    const value = byKey[op]?.ratios.rps.bareProxy ?? null;
    verdicts.push({
      target: `${op}: gateway req/s at c=32 >= ${floor * 100}% of bare proxy`,
      value: value == null ? null : `${Math.round(value * 100)}%`,
      met: value == null ? null : value >= floor,
    });
  }
  const flowCpu = byKey.flow?.ratios.cpuMs.bareProxy ?? null;
  verdicts.push({
    target: `create-authorize-pay: gateway CPU per flow <= ${FLOW_CPU_LIMIT}x bare proxy`,
    value: flowCpu == null ? null : `${flowCpu}x`,
    met: flowCpu == null ? null : flowCpu <= FLOW_CPU_LIMIT,
  });
  verdicts.push({
    target: `create-authorize-pay: gateway CPU per flow <= ${EDGE_FLOW_CPU_LIMIT}x bare proxy (what the edge bills per request)`,
    value: flowCpu == null ? null : `${flowCpu}x`,
    met: flowCpu == null ? null : flowCpu <= EDGE_FLOW_CPU_LIMIT,
  });
  const anonymousCpu = byKey["anonymous-pay"]?.targets.gateway.cpuMs ?? null;
  const tokenCpu = byKey.pay?.targets.gateway.cpuMs ?? null;
  const anonymousRatio = anonymousCpu != null && tokenCpu ? Math.round((anonymousCpu / tokenCpu) * 100) / 100 : null;
  verdicts.push({
    target: `anonymous pay: gateway CPU per request <= ${ANONYMOUS_PAY_CPU_LIMIT}x a token pay's`,
    value: anonymousRatio == null ? null : `${anonymousRatio}x (${anonymousCpu} against ${tokenCpu} ms)`,
    met: anonymousRatio == null ? null : anonymousRatio <= ANONYMOUS_PAY_CPU_LIMIT,
  });
  for (const row of table.filter((r) => r.key.endsWith(`@${UPSTREAM_LATENCY_MS}ms`))) {
    const value = row.ratios.p50.bareProxy;
    verdicts.push({
      target: `${row.key}: gateway p50 / bare-proxy p50 <= ${FAR_LATENCY_LIMIT}`,
      value,
      met: value == null ? null : value <= FAR_LATENCY_LIMIT,
    });
  }
  const cpu = profile?.cpu;
  verdicts.push({
    target: "no D1 access on pay or check-id (D1 client code in the CPU profile)",
    value: cpu
      ? `pay ${cpu.pay?.d1ClientUsPerRequest} µs/req, check-id ${cpu["check-id"]?.d1ClientUsPerRequest} µs/req (create: ${cpu.create?.d1ClientUsPerRequest})`
      : null,
    met: cpu ? cpu.pay?.d1ClientUsPerRequest === 0 && cpu["check-id"]?.d1ClientUsPerRequest === 0 : null,
  });
  verdicts.push({
    target: `production bundle <= ${BUNDLE_LIMIT_KIB} KiB gzip`,
    value: `${bundle.gzipKiB} KiB`,
    met: bundle.gzipKiB <= BUNDLE_LIMIT_KIB,
  });
  // The platform targets: the counts before the answer, what the @platform rows add, CPU per flow.
  verdicts.push(...judgeCritical(criticalPath));
  for (const [op, limit] of Object.entries(PLATFORM_ADDED_MS)) {
    const t = byKey[`${op}@platform`]?.targets;
    const added = t?.gateway.p50 != null && t?.bareProxy.p50 != null ? Math.round((t.gateway.p50 - t.bareProxy.p50) * 100) / 100 : null;
    // Where the added time goes: the D1 round trips in sequence (counted), and the gateway's own local work (its
    // p50 over the bare proxy's with the upstream 40 ms away and D1 local).
    const local = byKey[`${op}@40ms`]?.targets;
    const own = local?.gateway.p50 != null && local?.bareProxy.p50 != null ? Math.round((local.gateway.p50 - local.bareProxy.p50) * 10) / 10 : null;
    const d1 = criticalPath?.ops?.[op]?.critical?.d1Depth ?? null;
    verdicts.push({
      target: `${op}@platform: gateway p50 at most bare-proxy p50 + ${limit} ms`,
      value:
        added == null
          ? null
          : `+${added} ms (${t.gateway.p50} against ${t.bareProxy.p50})${added > limit && d1 != null && own != null ? `: ${d1} D1 round trip(s) in sequence x ${PLATFORM_D1_MS} ms, and the gateway's own +${own} ms before the answer (@40ms)${op === "create" ? ": the new record object's start and first durable commit (which must precede the answer: the id it hands out needs its record), the tid's HMACs, and locally Miniflare's Cache API (bench/README.md)" : ""}` : ""}`,
      met: added == null ? null : added <= limit,
    });
  }
  const flowBuckets = profile?.cpu?.flow?.buckets;
  const biggest = flowBuckets
    ? Object.entries(flowBuckets)
        .sort((a, b) => b[1].shareOfBusy - a[1].shareOfBusy)
        .slice(0, 4)
        .map(([key, b]) => `${key} ${b.shareOfBusy}%`)
        .join(", ")
    : null;
  verdicts.push({
    target: `create-authorize-pay: gateway CPU per flow <= ${PLATFORM_FLOW_CPU_LIMIT}x bare proxy`,
    value:
      flowCpu == null
        ? null
        : `${flowCpu}x (${byKey.flow.targets.gateway.cpuMs} against ${byKey.flow.targets.bareProxy.cpuMs} ms of workerd; of their own isolates, what Workers bills, ${byKey.flow.targets.gateway.ownCpuMs ?? "?"} against ${byKey.flow.targets.bareProxy.ownCpuMs ?? "?"} ms)${flowCpu > PLATFORM_FLOW_CPU_LIMIT && biggest ? `; the flow's largest buckets: ${biggest} (bench/README.md, "CPU per flow")` : ""}`,
    met: flowCpu == null ? null : flowCpu <= PLATFORM_FLOW_CPU_LIMIT,
  });
  return verdicts;
}

/** A ratio more than this much worse than the last recorded run's is a regression. */
const REGRESSION_LIMIT = 0.1;
const COMPARED = [
  { metric: "p50", label: "p50", higherIsWorse: true },
  { metric: "p99", label: "p99", higherIsWorse: true },
  { metric: "rps", label: "req/s", higherIsWorse: false },
  { metric: "cpuMs", label: "CPU", higherIsWorse: true },
];

/** The newest full run recorded before `date` in bench/results/ (quick runs are never kept there), or null. */
export function previousRun(date) {
  const files = readdirSync(RESULTS_DIR)
    .filter((name) => /^\d{4}-\d\d-\d\dT[\d-]+Z\.json$/.test(name))
    .sort();
  for (const name of files.reverse()) {
    const run = JSON.parse(readFileSync(join(RESULTS_DIR, name), "utf8"));
    if (run.date < date && !run.plan?.quick) return { file: name, run };
  }
  return null;
}

/**
 * Every gateway/bare-proxy ratio of this run against the same ratio of the
 * last recorded run (none may be more than 10% worse). "Worse" is
 * a higher latency or CPU ratio, a lower throughput ratio. Ratios, not
 * milliseconds: both runs measured the bare proxy on their own machine.
 */
export function compareWithPrevious(report, againstPath = null) {
  const previous = againstPath ? { file: basename(againstPath), run: JSON.parse(readFileSync(againstPath, "utf8")) } : previousRun(report.date);
  if (!previous) return null;
  const before = Object.fromEntries(previous.run.table.map((r) => [r.key, r]));
  const rows = [];
  for (const row of report.table) {
    const old = before[row.key];
    if (!old) continue;
    for (const { metric, higherIsWorse } of COMPARED) {
      const was = old.ratios[metric]?.bareProxy ?? null;
      const now = row.ratios[metric]?.bareProxy ?? null;
      if (was == null || now == null) continue;
      const worseBy = Math.round(((higherIsWorse ? now / was : was / now) - 1) * 1000) / 10;
      rows.push({ key: row.key, metric, was, now, worseByPercent: worseBy, regression: worseBy > REGRESSION_LIMIT * 100 });
    }
  }
  return {
    chosen: Boolean(againstPath),
    against: `bench/results/${previous.file}`,
    date: previous.run.date,
    source: previous.run.source?.commit ?? null,
    limitPercent: REGRESSION_LIMIT * 100,
    rows,
    regressions: rows.filter((r) => r.regression),
  };
}

/** The verdict on the comparison (about this machine's earlier runs: left out of latest.md). */
export function regressionVerdict(comparison) {
  return {
    local: true,
    target: `no gateway/bare-proxy ratio more than ${REGRESSION_LIMIT * 100}% worse than ${comparison?.chosen ? "the chosen earlier run" : "the last recorded run"}`,
    value: comparison
      ? `${comparison.regressions.length} of ${comparison.rows.length} worse (vs ${comparison.against.replace("bench/results/", "")})`
      : null,
    met: comparison ? comparison.regressions.length === 0 : null,
  };
}

function comparisonMarkdown(comparison, table) {
  if (!comparison) return [];
  const lines = [
    "",
    `**Against ${comparison.chosen ? "a chosen earlier run" : "the last recorded run"}** (\`${comparison.against}\`, ${comparison.date}, source ${comparison.source}): gateway / bare proxy then → now, and how much worse now (negative: better). The target: no ratio more than ${comparison.limitPercent}% worse.`,
    "",
    `| operation | ${COMPARED.map((c) => c.label).join(" | ")} |`,
    `|---|${COMPARED.map(() => "---:").join("|")}|`,
  ];
  for (const row of table) {
    const cells = COMPARED.map(({ metric }) => {
      const c = comparison.rows.find((r) => r.key === row.key && r.metric === metric);
      if (!c) return "–";
      return `${c.was.toFixed(2)} → ${c.now.toFixed(2)} (${c.worseByPercent > 0 ? "+" : ""}${c.worseByPercent.toFixed(0)}%)${c.regression ? " ⚠" : ""}`;
    });
    if (cells.every((cell) => cell === "–")) continue;
    lines.push(`| ${row.label} | ${cells.join(" | ")} |`);
  }
  const n = comparison.regressions.length;
  lines.push(
    "",
    n === 0
      ? `No ratio is more than ${comparison.limitPercent}% worse (${comparison.rows.length} compared).`
      : `${n} of ${comparison.rows.length} ratios are more than ${comparison.limitPercent}% worse (⚠): ${comparison.regressions.map((r) => `${r.key} ${r.metric} +${r.worseByPercent}%`).join(", ")}.`,
  );
  return lines;
}

const fmt = (v, digits = 2) => (v == null ? "–" : v.toFixed(digits));
const fmtRatio = (v) => (v == null ? "–" : `${v.toFixed(2)}×`);
const verdictWord = (met) => (met == null ? "not measured" : met ? "met" : "MISSED");

function tableRows(table) {
  const rows = [];
  for (const r of table) {
    const t = r.targets;
    const warn = TARGETS.some((x) => t[x.key].non2xx > 0) ? " ⚠" : "";
    const unit = r.key.startsWith("flow") ? "flows/s" : "req/s";
    rows.push([
      `${r.label}${warn}`,
      "p50 ms, c=1",
      fmt(t.direct.p50),
      fmt(t.bareProxy.p50),
      fmt(t.gateway.p50),
      fmtRatio(r.ratios.p50.bareProxy),
      fmtRatio(r.ratios.p50.direct),
    ]);
    rows.push([
      "",
      "p99 ms, c=1",
      fmt(t.direct.p99),
      fmt(t.bareProxy.p99),
      fmt(t.gateway.p99),
      fmtRatio(r.ratios.p99.bareProxy),
      fmtRatio(r.ratios.p99.direct),
    ]);
    // The far-upstream rows are latency only.
    if (r.key.includes("@")) continue;
    rows.push([
      "",
      `${unit}, c=32`,
      fmt(t.direct.rps, 0),
      fmt(t.bareProxy.rps, 0),
      fmt(t.gateway.rps, 0),
      fmtRatio(r.ratios.rps.bareProxy),
      fmtRatio(r.ratios.rps.direct),
    ]);
    const per = r.key === "flow" ? "flow" : "req";
    rows.push([
      "",
      `runtime CPU ms/${per}, c=32`,
      fmt(t.direct.cpuMs),
      fmt(t.bareProxy.cpuMs),
      fmt(t.gateway.cpuMs),
      fmtRatio(r.ratios.cpuMs.bareProxy),
      fmtRatio(r.ratios.cpuMs.direct),
    ]);
    // The Worker's and its objects' isolates alone: what production bills (bench/README.md, "CPU per flow").
    if (t.gateway.ownCpuMs !== null)
      rows.push([
        "",
        `own isolates CPU ms/${per}, c=32`,
        "",
        fmt(t.bareProxy.ownCpuMs),
        fmt(t.gateway.ownCpuMs),
        fmtRatio(r.ratios.ownCpuMs.bareProxy),
        "",
      ]);
  }
  return rows;
}

const HEAD = ["operation", "metric", "sandbox direct", "bare proxy", "gateway", "gateway/bare", "gateway/direct"];

export function consoleTable(table) {
  const rows = [HEAD, ...tableRows(table)];
  const widths = HEAD.map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((r, n) => {
      const line = r.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join("  ");
      return n === 0 ? `${line}\n${widths.map((w) => "-".repeat(w)).join("  ")}` : line;
    })
    .join("\n");
}

function markdownTable(table) {
  const rows = tableRows(table);
  return [`| ${HEAD.join(" | ")} |`, `|${HEAD.map((_, i) => (i < 2 ? "---" : "---:")).join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join(
    "\n",
  );
}

function coresRange(report) {
  const cores = Object.values(report.measurements)
    .flatMap((byTarget) => Object.values(byTarget).map((m) => m.throughput?.cpu?.runtimeCores))
    .filter((v) => typeof v === "number");
  if (cores.length === 0) return "?";
  return `${Math.min(...cores).toFixed(2)}–${Math.max(...cores).toFixed(2)}`;
}

/**
 * The full report of a run: the table, the counts with each operation's steps
 * in order, the verdicts, the comparison with the last recorded run, the cost
 * ladder and the CPU profile. Written beside the run's JSON, never committed.
 */
export function markdown(report) {
  return render(report, { full: true });
}

/**
 * bench/results/latest.md, the one results file kept in git: what was
 * measured, with which command, on what, and the numbers the README and
 * docs/capacity.md cite. Nothing in it names a file git does not keep.
 */
export function summaryMarkdown(report) {
  return render(report, { full: false });
}

function render(report, { full }) {
  const m = report.machine;
  const notes = full
    ? report.table.map((r) => `- **${r.label}**: ${r.note}.`)
    : [
        ...report.table.filter((r) => !r.key.includes("@")).map((r) => `- **${r.label}**: ${r.note}.`),
        `- **@${UPSTREAM_LATENCY_MS}ms**: the operation again at concurrency 1, every target's sandbox waiting ${UPSTREAM_LATENCY_MS} ms before each call (SANDBOX_LATENCY_MS): the upstream as far away as a real one.`,
        `- **@platform**: the operation at concurrency 1 with the upstream ${UPSTREAM_LATENCY_MS} ms away and every D1 round trip of the gateway ${PLATFORM_D1_MS} ms away (bench/workers/traced-gateway.ts wraps the D1 bindings; the gateway's code is unchanged); the bare proxy and the sandbox have no D1.`,
      ];
  const lines = [
    full
      ? `<!-- Written by \`npm run bench\` (bench/lib/report.mjs) beside the run's JSON; not committed. -->`
      : `<!-- Written by \`npm run bench\` (bench/lib/report.mjs): the newest full run's summary, the one results file kept in git; regenerate, don't edit. -->`,
    `**Command:** \`npm run bench\` · **Date:** ${report.date} · **Machine:** ${m.nproc} cores (\`nproc\`), ${m.cpu}, ${m.memoryGiB} GiB, node ${m.node}, workerd ${m.workerd} via miniflare ${m.miniflare}, autocannon ${m.autocannon}${m.stealPercent != null ? ` · **CPU stolen by the host during the run:** ${m.stealPercent}%` : ""} · **Source:** ${report.source.commit}${report.source.uncommittedChanges.length ? ` + uncommitted changes in ${report.source.uncommittedChanges.length} file(s)` : ""}`,
    "",
    `What it measures: every operation on three targets (the sandbox upstream called directly, a bare proxy in front of it, the gateway), each in its own local workerd (bench/README.md). Latency: ${PLAN.latency.amount} requests (${PLAN.latency.flows} flows) at concurrency 1 after ${PLAN.latency.warmup} warm-up. Throughput: concurrency 32 for ${PLAN.throughput.seconds} s after ${PLAN.throughput.warmupSeconds} s warm-up (authorize and pay: ${PLAN.throughput.amount} requests, each on a fresh receipt). Targets measured interleaved, one at a time, on the same machine. Rows marked @${UPSTREAM_LATENCY_MS}ms: ${PLAN.latency40.amount} requests (${PLAN.latency40.flows} flows) at concurrency 1 with the upstream ${UPSTREAM_LATENCY_MS} ms away for every target. Rows marked @platform: ${PLAN.latencyPlatform.amount} requests (${PLAN.latencyPlatform.flows} flows) at concurrency 1, the upstream ${UPSTREAM_LATENCY_MS} ms away and every D1 round trip of the gateway ${PLATFORM_D1_MS} ms away.`,
    "",
    markdownTable(report.table),
    "",
    ...notes,
    `- **runtime CPU**: CPU time of the target's workerd process (worker, Durable Objects, D1, sandbox) per answer during the c=32 run, from /proc. workerd kept ${coresRange(report)} core(s) busy, so req/s ≈ 1000 / CPU ms: throughput here is CPU per request.`,
    "- **own isolates CPU**: the part of that workerd CPU spent in the target's own isolates (the Worker and its Durable Objects), what Workers bills: every isolate of its workerd sampled by V8's profiler over one more slice (operations that spend no receipt), the runtime CPU divided by their shares of the samples. The rest is the sandbox's (the upstream) and Miniflare's simulators' (D1, the Cache API, Queues, R2, its entry worker), which run on Cloudflare's side in production; each target's run JSON has every isolate's share.",
    "",
  ];
  const critical = criticalMarkdown(report.criticalPath, report.measurements, { steps: full });
  if (critical.length) lines.push(...critical, "");
  const hadErrors = report.table.filter((r) => TARGETS.some((t) => r.targets[t.key].non2xx > 0));
  if (hadErrors.length) {
    lines.push(`⚠ non-2xx answers or connection errors in: ${hadErrors.map((r) => r.label).join(", ")} (see the run's JSON).`, "");
  }
  lines.push("| target | this run | verdict |", "|---|---:|---|");
  for (const v of report.verdicts.filter((v) => full || !v.local)) lines.push(`| ${v.target} | ${v.value ?? "–"} | ${verdictWord(v.met)} |`);
  const b = report.bundle;
  lines.push(
    "",
    `**Bundle** (\`${b.command}\`, gzip of the uploaded modules): ${b.gzipKiB} KiB gzip, ${(b.rawBytes / 1024).toFixed(1)} KiB raw; ${b.minified ? `minified it would be ${b.minified.gzipKiB} KiB gzip` : "no minified build (quick run)"}. Largest parts: ${b.composition
      .slice(0, 4)
      .map((c) => `${c.name} ${(c.bytes / 1024).toFixed(0)} KiB (${c.share}%)`)
      .join(", ")}.`,
  );
  const ev = report.events;
  if (ev) {
    lines.push(
      "",
      `**Events run** (${ev.note}): pay p50 ${ev.receiverDown.p50} ms (p99 ${ev.receiverDown.p99}) with the receiver down, ${ev.receiverUp.p50} ms (p99 ${ev.receiverUp.p99}) with it up. The payment path does not wait for webhooks: the receiver's state is not in the pay's time.`,
    );
  }
  const cs = report.coldStart;
  lines.push(
    "",
    `**Time to first answer** (new runtime to first 200 on GET /healthz, bundle prebuilt): gateway median ${cs.gateway.medianMs} ms over ${cs.gateway.runs.length} fresh starts (runtime listening after ${cs.gateway.medianReadyMs} ms); bare proxy ${cs.bareProxy.firstAnswerMs} ms.`,
  );
  if (full) {
    lines.push(...comparisonMarkdown(report.comparison, report.table));
    if (report.profile?.summary) lines.push("", report.profile.summary);
  } else {
    lines.push(
      "",
      "Each operation's steps in order, the comparison with the machine's previous run, the cost ladder and the CPU profile by bucket are in the full report `npm run bench` writes beside the run's JSON (`bench/results/<date-time>.md` and `.json`, kept out of git).",
    );
  }
  return `${lines.join("\n")}\n`;
}

/** The full report's path beside a run's JSON. */
export const fullReportPath = (jsonPath) => jsonPath.replace(/\.json$/, ".md");

/**
 * Writes the JSON, the full report beside it and latest.md; returns the
 * JSON path. A quick run's numbers are not kept: all three go to the build
 * directory (quick-latest.md for the summary), and bench/results/ stays as
 * it was.
 */
export function writeResults(report) {
  const stamp = report.date.replace(/:/g, "-").replace(/\.\d+Z$/, "Z");
  const jsonPath = PLAN.quick ? join(BUILD_DIR, `quick-${stamp}.json`) : join(RESULTS_DIR, `${stamp}.json`);
  writeFileSync(jsonPath, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(fullReportPath(jsonPath), markdown(report));
  writeFileSync(PLAN.quick ? join(BUILD_DIR, "quick-latest.md") : join(RESULTS_DIR, "latest.md"), summaryMarkdown(report));
  return jsonPath;
}

export { verdictWord };
