/**
 * `npm run bench`: what the edge costs.
 *
 * Builds the three targets with wrangler, starts each in its own local
 * workerd, prepares the receipts the timed runs will spend, then measures
 * every operation on the three targets one after the other (interleaved, so
 * drift in the machine hits all three alike), and reports the gateway's
 * ratios to its two floors. See bench/README.md.
 *
 *   npm run bench               the full run (8-13 minutes); writes bench/results/<date-time>.json, the
 *                               full report beside it (.md) and latest.md (only latest.md is kept in git)
 *   npm run bench -- --quick    every stage on a tiny load (part of npm test); numbers not kept, bench/results/ untouched
 *   npm run bench -- --critical only the round trips and commits before each answer (~10 s); nothing written
 *   npm run bench -- --report bench/results/<file>.json
 *                               re-renders a stored run (table, verdicts, its full report, latest.md)
 *   npm run bench -- --against bench/results/<file>.json
 *                               compare with that run instead of the newest earlier one
 *   npm run bench -- --only create,pay
 *                               only those operations' main rows (latency, throughput, CPU); a JSON under bench/.build
 *   npm run bench -- --only create,pay --platform
 *                               only those operations' @platform rows (upstream 40 ms, D1 50 ms away), nothing else
 *   npm run bench -- --only create,pay --profile
 *                               only the CPU profile of those operations (by function and by bucket), printed
 *   npm run bench -- --help     these lines; nothing runs
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildAll, bundleReport, children } from "./lib/build.mjs";
import { BUILD_DIR, CRITICAL_ONLY, listenPort, PLAN, PLATFORM_D1_MS, PLATFORM_SCENARIOS, RESULTS_DIR, UPSTREAM_LATENCY_MS } from "./lib/config.mjs";
import { countCriticalPath, criticalCounts, criticalMarkdown } from "./lib/critical.mjs";
import { eventsRun } from "./lib/events.mjs";
import { cpuProfile, isolateShares, PROFILED, profileGateway, sandboxClassifier, summarize, unbucketedFiles } from "./lib/profile.mjs";
import { startReceiver } from "./lib/receiver.mjs";
import {
  compareWithPrevious,
  consoleTable,
  describeMachine,
  describeSource,
  fullReportPath,
  judge,
  judgeCritical,
  markdown,
  regressionVerdict,
  summaryMarkdown,
  tabulate,
  verdictWord,
  writeResults,
} from "./lib/report.mjs";
import {
  applyMigrations,
  cpuCounters,
  deliverEventsTo,
  describeRuntime,
  restartRuntime,
  runtimesSince,
  startRuntime,
  stealPercent,
  stopAll,
  workerFromBuild,
} from "./lib/runtime.mjs";
import { checkEachOperation } from "./lib/sanity.mjs";
import { combineRounds, prepareFixtures, SCENARIOS, TARGETS, timedRound, warmUp } from "./lib/scenarios.mjs";

const say = (msg) => console.log(`[bench ${((performance.now() - t0) / 1000).toFixed(1).padStart(5)}s] ${msg}`);
const t0 = performance.now();

/** What the run is doing now, and since when: a failure's report starts with it. */
const stage = { what: "starting", since: t0 };
/** Says what the run starts doing now. */
function step(what) {
  stage.what = what;
  stage.since = performance.now();
  say(what);
}

/**
 * A failed run, in words: what it was doing, the error (and its causes),
 * and what became of every runtime that stage had running (is its workerd
 * still there, did it crash, what did it say last).
 */
function failureReport(err) {
  const lines = [`\nbench: failed while ${stage.what}`, `  ${String(err?.stack ?? err).replace(/\n/g, "\n  ")}`];
  for (let cause = err?.cause; cause; cause = cause.cause) {
    lines.push(`  caused by: ${cause.code ? `${cause.code} ` : ""}${cause.message ?? cause}`);
  }
  const runtimes = runtimesSince(stage.since);
  lines.push("", runtimes.length ? "The runtimes of that stage:" : "No runtime was running in that stage.", ...runtimes.map(describeRuntime));
  return lines.join("\n");
}

async function shutdown(code) {
  for (const child of children) child.kill("SIGTERM");
  await stopAll();
  process.exit(code);
}
// On a signal, Miniflare's own handler ends workerd and exits right after
// this one; the wrangler builds must be ended here, synchronously, and the
// state directories go in runtime.mjs's exit hook.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.once(signal, () => {
    for (const child of children) child.kill("SIGTERM");
    void shutdown(130);
  });
}

/** The workers each target runs; the first one answers on the target's port. */
function targetWorkers(built) {
  const sandbox = workerFromBuild(built.sandbox);
  return {
    direct: [sandbox],
    bareProxy: [workerFromBuild(built.bareProxy), sandbox],
    gateway: [workerFromBuild(built.gateway)],
  };
}

/** The targets whose own isolates' CPU is measured beside their workerd's (the sandbox's is no target's). */
const OWN_CPU_TARGETS = TARGETS.filter((t) => t.key !== "direct");

/**
 * One more timed slice of `scenario` at concurrency 32 on `target`, every
 * isolate of its workerd sampled (lib/profile.mjs, isolateShares): the
 * target's own isolates' share of the samples (the Worker and its objects:
 * the CPU Workers bills), the sandbox's, and Miniflare's simulators' (D1, the
 * Cache API, Queues, R2, the rate limiter, the entry worker: Cloudflare's side
 * in production). `ownMsPer` is the main table's workerd CPU per item
 * (measured unprofiled) times the own share: workerd's work outside any
 * isolate (sockets, HTTP) spread by the shares like the rest.
 */
async function isolateRound(scenario, target, runtime, fixtures, built, workerdMsPer) {
  const build = target.key === "gateway" ? built.gateway : built.bareProxy;
  const own = [`core:user:${build.name}`];
  const classify = target.key === "gateway" ? sandboxClassifier(build) : null;
  const sampled = await isolateShares(runtime, { own, classify }, () => timedRound(scenario, target, runtime, fixtures, "throughput"));
  const round3 = (x) => (x === null ? null : Math.round(x * 1000) / 1000);
  const per = (share) => (share === null || workerdMsPer == null ? null : round3(share * workerdMsPer));
  return {
    samples: sampled.samples,
    shares: Object.fromEntries(Object.entries(sampled.shares).map(([k, v]) => [k, round3(v)])),
    isolates: Object.fromEntries(Object.entries(sampled.isolates).map(([k, v]) => [k, round3(v)])),
    ownMsPer: per(sampled.shares.own),
    sandboxMsPer: per(sampled.shares.sandbox),
    simulatorsMsPer: per(sampled.shares.simulators),
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

async function coldStarts(built) {
  const runs = [];
  for (let i = 0; i < PLAN.coldStartRuns; i++) {
    const rt = await startRuntime({ key: "cold", workers: [workerFromBuild(built.gateway)], port: listenPort("coldStart") });
    runs.push(rt.startup);
    await rt.stop();
  }
  return {
    runs,
    medianMs: median(runs.map((r) => r.firstAnswerMs)),
    medianReadyMs: median(runs.map((r) => r.readyMs)),
  };
}

/**
 * What a user feels: operations at concurrency 1 again, the three runtimes
 * restarted with `workersFor`'s workers (a slower world), interleaved like the
 * main run. Results go under "<operation>@<tag>".
 */
async function slowRun(runtimes, fixtures, measurements, { tag, mode, scenarios, workersFor }) {
  for (const t of TARGETS) {
    const runtime = runtimes[t.key];
    runtime.options.workers = workersFor(t.key, runtime.options.workers);
    runtimes[t.key] = await restartRuntime(runtime);
  }
  let turn = 0;
  for (const scenario of SCENARIOS.filter((s) => !scenarios || scenarios.includes(s.key))) {
    const key = `${scenario.key}@${tag}`;
    measurements[key] = {};
    const rotate = (k) => TARGETS.map((_, i) => TARGETS[(i + k) % TARGETS.length]);
    for (const t of rotate(turn)) await warmUp(scenario, t, runtimes[t.key], fixtures[t.key], mode);
    const rounds = Object.fromEntries(TARGETS.map((t) => [t.key, []]));
    for (let r = 0; r < PLAN.rounds; r++) {
      for (const t of rotate(turn + r)) rounds[t.key].push(await timedRound(scenario, t, runtimes[t.key], fixtures[t.key], mode));
    }
    turn++;
    for (const t of TARGETS) {
      const result = combineRounds(scenario, rounds[t.key]);
      measurements[key][t.key] = { latency: result };
      const bad = result.non2xx || result.errors ? `  ⚠ ${JSON.stringify(result.statuses)} errors=${result.errors}` : "";
      say(
        `${`${scenario.label} @${tag}`.padEnd(27)} ${t.label.padEnd(14)} p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms (n=${result.latency.n})${bad}`,
      );
    }
  }
}

/** The upstream UPSTREAM_LATENCY_MS away for every target (SANDBOX_LATENCY_MS): rows "<operation>@40ms". */
const farUpstreamRun = (runtimes, fixtures, measurements) =>
  slowRun(runtimes, fixtures, measurements, {
    tag: `${UPSTREAM_LATENCY_MS}ms`,
    mode: "latency40",
    workersFor: (_key, workers) => workers.map((w) => ({ ...w, bindings: { ...w.bindings, SANDBOX_LATENCY_MS: String(UPSTREAM_LATENCY_MS) } })),
  });

/**
 * The platform: the upstream UPSTREAM_LATENCY_MS away as in @40ms,
 * and every D1 round trip of the gateway PLATFORM_D1_MS away: the gateway
 * runs as the traced build (its own code, its D1 bindings wrapped with the
 * delay; no request is traced). The bare proxy and the sandbox have no D1,
 * so for them only the upstream is far. Rows "<operation>@platform".
 */
const platformRun = (built, runtimes, fixtures, measurements, only = null) =>
  slowRun(runtimes, fixtures, measurements, {
    tag: "platform",
    mode: "latencyPlatform",
    scenarios: PLATFORM_SCENARIOS.filter((key) => !only || only.includes(key)),
    workersFor: (key, workers) => {
      const far = (w, extra = {}) => ({ ...w, bindings: { ...w.bindings, SANDBOX_LATENCY_MS: String(UPSTREAM_LATENCY_MS), ...extra } });
      if (key !== "gateway") return workers.map((w) => far(w));
      return [far(workerFromBuild(built.traced), { BENCH_D1_DELAY_MS: String(PLATFORM_D1_MS) })];
    },
  });

/** `--critical`: the round-trip counts alone, printed; nothing is written. */
async function criticalOnly() {
  step("building the traced gateway with wrangler");
  const { built } = await buildAll({ only: ["traced"] });
  step(`counting round trips and commits before the answer (D1 ${PLATFORM_D1_MS} ms away, ${PLAN.criticalRepeats} of each operation)`);
  const criticalPath = await countCriticalPath(built);
  console.log(`\n${criticalMarkdown(criticalPath, null).join("\n")}\n`);
  for (const v of judgeCritical(criticalPath)) console.log(`${verdictWord(v.met).padEnd(12)} ${v.target}: ${v.value ?? "–"}`);
  say("done");
}

async function main() {
  const date = new Date().toISOString();
  // The partner's receiver, up for the whole run: the gateway delivers its events to it (see lib/runtime.mjs).
  const partner = await startReceiver(listenPort("partner"));
  deliverEventsTo(partner.url);
  process.once("exit", () => partner.close());
  // A file of src/ that no rule of lib/buckets.mjs names still counts (as "other gateway code"); said here, and the unit test fails on it.
  const unbucketed = unbucketedFiles();
  if (unbucketed.length) say(`no CPU bucket names ${unbucketed.map((f) => `src/${f}`).join(", ")}: they count as other gateway code`);
  const machineAtStart = describeMachine();
  // CPU the host takes from this virtual machine over the run (steal): a crowded host makes every number noisier.
  const countersAtStart = cpuCounters();
  step(`building the targets with wrangler${PLAN.quick ? " (quick mode: numbers not kept)" : ""}`);
  const { built, seconds: buildSeconds } = await buildAll();
  const bundle = await bundleReport(built.production);
  say(`production bundle: ${bundle.gzipKiB} KiB gzip (${(bundle.rawBytes / 1024).toFixed(0)} KiB raw); built in ${buildSeconds.toFixed(1)} s`);

  step("starting the three targets");
  const workers = targetWorkers(built);
  const runtimes = {};
  for (const t of TARGETS) {
    // An inspector on the proxies (no session attached but while isolateRound samples): what their own isolates spend.
    const inspectorPort = t.key === "direct" ? undefined : 0;
    runtimes[t.key] = await startRuntime({ key: t.key, workers: workers[t.key], port: listenPort(t.key), inspectorPort });
    say(`${t.label} listening on ${runtimes[t.key].url} (first answer after ${runtimes[t.key].startup.firstAnswerMs} ms)`);
  }
  const migrations = await applyMigrations(runtimes.gateway, built.gateway);
  say(`gateway D1 migrations applied: ${migrations.join(", ")}`);

  step("checking that every operation answers 200 on every target");
  const sanity = await checkEachOperation(runtimes);
  say(
    `every operation answers 200 on every target; upstream calls per gateway operation: ${JSON.stringify(sanity.upstreamCallsPerGatewayOperation)}`,
  );

  const fixtures = {};
  for (const t of TARGETS) {
    step(`${t.label}: preparing the receipts the timed runs spend`);
    fixtures[t.key] = await prepareFixtures(runtimes[t.key], t, ONLY);
    say(`${t.label}: ${fixtures[t.key].created} receipts prepared in ${fixtures[t.key].seconds.toFixed(1)} s`);
  }

  // Interleaved: per operation and mode, each target is warmed up, then the
  // timed runs go in PLAN.rounds slices, target after target, the order
  // rotated every slice so no target always runs first (or last).
  const measurements = {};
  if (ONLY && NARROW === "platform") {
    step(`@platform only: ${ONLY.join(", ")}`);
    await platformRun(built, runtimes, fixtures, measurements, ONLY);
    return onlyReport(date, runtimes, measurements);
  }
  const startup = Object.fromEntries(TARGETS.map((t) => [t.key, runtimes[t.key].startup]));
  let turn = 0;
  for (const scenario of SCENARIOS.filter((s) => !ONLY || ONLY.includes(s.key))) {
    // Every operation starts from the same place on every target: a runtime
    // restarted on its state, so no Durable Object is in memory (authorize
    // and pay meet their receipt's object cold, as a payer coming back
    // minutes later would) and no target carries the heap of the last one.
    // The quick run leaves them running: their restarts would be much of its
    // time, and the slower worlds below restart all three anyway.
    stage.what = `measuring ${scenario.label}`;
    stage.since = performance.now();
    if (!PLAN.quick) for (const t of TARGETS) runtimes[t.key] = await restartRuntime(runtimes[t.key]);
    measurements[scenario.key] = {};
    for (const mode of ["latency", "throughput"]) {
      const rotate = (k) => TARGETS.map((_, i) => TARGETS[(i + k) % TARGETS.length]);
      for (const t of rotate(turn)) await warmUp(scenario, t, runtimes[t.key], fixtures[t.key], mode);
      const rounds = Object.fromEntries(TARGETS.map((t) => [t.key, []]));
      for (let r = 0; r < PLAN.rounds; r++) {
        for (const t of rotate(turn + r)) rounds[t.key].push(await timedRound(scenario, t, runtimes[t.key], fixtures[t.key], mode));
      }
      turn++;
      for (const t of TARGETS) {
        const result = combineRounds(scenario, rounds[t.key]);
        measurements[scenario.key][t.key] ??= {};
        measurements[scenario.key][t.key][mode] = result;
        const what =
          mode === "latency"
            ? `p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms (n=${result.latency.n}), steal by slice ${result.slices.map((x) => x.stealPercent ?? "?").join("/")}%`
            : `${result.rps} ${scenario.flow ? "flows" : "req"}/s over ${result.seconds} s, workerd ${result.cpu?.runtimeMsPer ?? "?"} ms CPU each on ${result.cpu?.runtimeCores ?? "?"} cores, autocannon ${result.cpu?.loadgenCores ?? "?"} cores`;
        const bad = result.non2xx || result.errors ? `  ⚠ ${JSON.stringify(result.statuses)} errors=${result.errors}` : "";
        say(`${scenario.label.padEnd(22)} ${mode.padEnd(10)} ${t.label.padEnd(14)} ${what}${bad}`);
      }
    }
    // An operation that spends no receipt: once more, every isolate sampled, for the CPU production bills.
    if (!scenario.consumes) {
      for (const t of OWN_CPU_TARGETS) {
        const workerdMsPer = measurements[scenario.key][t.key].throughput.cpu?.runtimeMsPer;
        const own = await isolateRound(scenario, t, runtimes[t.key], fixtures[t.key], built, workerdMsPer);
        measurements[scenario.key][t.key].isolates = own;
        say(
          `${scenario.label.padEnd(22)} isolates   ${t.label.padEnd(14)} of workerd's ${workerdMsPer} ms CPU each: own isolates ${own.ownMsPer}, sandbox ${own.sandboxMsPer}, Miniflare's simulators ${own.simulatorsMsPer} (${own.samples} samples)`,
        );
      }
    }
  }

  if (ONLY) return onlyReport(date, runtimes, measurements);

  // The quick run overlaps the stages that run on runtimes of their own (its numbers are not kept; it checks that
  // each stage runs); a full run takes them one at a time, so no stage takes CPU from another's measurement.
  const together = (...stages) =>
    PLAN.quick ? Promise.all(stages.map((s) => s())) : stages.reduce(async (done, s) => [...(await done), await s()], []);
  const criticalStep = `counting round trips and commits before the answer (traced gateway, D1 ${PLATFORM_D1_MS} ms away, ${PLAN.criticalRepeats} of each operation)`;
  const [profile, criticalPath] = await together(
    () => {
      step("profiling the gateway: cost ladder, then a CPU profile of a separate runtime");
      return profileGateway(built, runtimes, fixtures, measurements);
    },
    () => {
      if (PLAN.quick) say(`meanwhile, ${criticalStep}`);
      else step(criticalStep);
      return countCriticalPath(built);
    },
  );
  for (const [op, c] of Object.entries(criticalPath.ops)) {
    say(
      `${op.padEnd(14)} before the answer: ${c.critical.d1} D1 round trips (${c.critical.d1Depth} in sequence), ${c.critical.commits} commits, ${c.critical.hops} hops; after: ${c.after.d1} D1, ${c.after.commits} commits, ${c.after.queue} queue sends${c.varied.length ? ` (varied: ${c.varied.join(", ")})` : ""}`,
    );
  }

  step(
    `the upstream ${UPSTREAM_LATENCY_MS} ms away: latency at concurrency 1 again, every target's sandbox waiting ${UPSTREAM_LATENCY_MS} ms per call`,
  );
  await farUpstreamRun(runtimes, fixtures, measurements);

  step(
    `@platform: the upstream ${UPSTREAM_LATENCY_MS} ms away and every D1 round trip of the gateway ${PLATFORM_D1_MS} ms away (${PLATFORM_SCENARIOS.join(", ")})`,
  );
  await platformRun(built, runtimes, fixtures, measurements);

  const logs = Object.fromEntries(TARGETS.map((t) => [t.key, runtimes[t.key].logs]));
  for (const t of TARGETS) await runtimes[t.key].stop();

  const [events, cold] = await together(
    async () => {
      step("events run: pays with the webhook receiver down, then up");
      const run = await eventsRun(built);
      say(
        `events run: pay p50 ${run.receiverDown.p50} ms with the receiver down, ${run.receiverUp.p50} ms with it up (${run.receiverUp.delivered} deliveries taken)`,
      );
      return run;
    },
    () => {
      if (PLAN.quick) say("meanwhile, timing the first answer of fresh gateway runtimes");
      else step("timing the first answer of fresh gateway runtimes");
      return coldStarts(built);
    },
  );
  const coldStart = { gateway: cold, bareProxy: startup.bareProxy, direct: startup.direct, firstGatewayStart: startup.gateway };

  step("writing the report");
  const table = tabulate(measurements);
  const report = {
    date,
    command: `npm run bench${PLAN.quick ? " -- --quick" : ""}`,
    machine: { ...machineAtStart, loadAverage1mAtEnd: describeMachine().loadAverage1m, stealPercent: stealPercent(countersAtStart) },
    source: describeSource(),
    runtime: "programmatic Miniflare (workerd), state on disk in a temporary directory",
    plan: PLAN,
    bundle,
    coldStart,
    events,
    sanity,
    fixtures: Object.fromEntries(TARGETS.map((t) => [t.key, { created: fixtures[t.key].created, seconds: fixtures[t.key].seconds }])),
    table,
    verdicts: judge(table, bundle, profile, criticalPath),
    // Per operation, what happens in sequence before the answer, and what after it.
    ...criticalCounts(criticalPath),
    criticalPath,
    profile,
    logs,
    measurements,
  };
  report.comparison = compareWithPrevious(report, againstArg());
  report.verdicts.push(regressionVerdict(report.comparison));
  const path = writeResults(report);

  console.log(`\n${consoleTable(table)}\n`);
  for (const v of report.verdicts) console.log(`${verdictWord(v.met).padEnd(12)} ${v.target}: ${v.value ?? "–"}`);
  if (profile?.summary) console.log(`\n${profile.summary}`);
  console.log(`\nresults: ${path}${PLAN.quick ? " (quick: not kept)" : `, ${fullReportPath(path)} and bench/results/latest.md`}`);
  if (PLAN.quick) {
    // The quick run is npm test's check of the harness: anything but the answers every stage expects fails it.
    const problems = harnessProblems(report);
    if (problems.length) throw new Error(`the quick run met what a working harness never does:\n  - ${problems.join("\n  - ")}`);
  }
  say("done");
}

/**
 * What a working harness never meets, even on a tiny load: an answer other
 * than the one expected, a request with no answer, an A/B whose patch no
 * longer finds its place in the bundle.
 */
function harnessProblems(report) {
  const problems = [];
  for (const [key, byTarget] of Object.entries(report.measurements)) {
    for (const [target, byMode] of Object.entries(byTarget)) {
      for (const [mode, m] of Object.entries(byMode)) {
        if (m.non2xx || m.errors) problems.push(`${key} ${mode} on ${target}: statuses ${JSON.stringify(m.statuses)}, ${m.errors} without an answer`);
      }
    }
  }
  for (const rung of report.profile?.ladder ?? []) {
    if (rung.unexpected) problems.push(`the ladder's "${rung.label}": ${rung.unexpected} answers not the expected status`);
  }
  for (const [name, ab] of [
    ["log line", report.profile?.logCost],
    ["write-ahead", report.profile?.writeAhead],
  ]) {
    if (ab?.skipped) problems.push(`the ${name} A/B was skipped (${ab.skipped}): lib/profile.mjs's patch must follow the source`);
  }
  return problems;
}

/**
 * `--only`: the named operations' table, printed, and everything measured
 * in a JSON under the build directory; a partial run is no full run to
 * compare with, so bench/results/ is left alone.
 */
async function onlyReport(date, runtimes, measurements) {
  const logs = Object.fromEntries(TARGETS.map((t) => [t.key, runtimes[t.key].logs]));
  for (const t of TARGETS) await runtimes[t.key].stop();
  const table = tabulate(measurements).filter((row) => ONLY.includes(row.key.replace(/@.*/, "")));
  for (const t of TARGETS) if (logs[t.key].runtime?.length) console.log(`${t.label}: workerd said\n  ${logs[t.key].runtime.join("\n  ")}`);
  mkdirSync(BUILD_DIR, { recursive: true });
  const path = join(BUILD_DIR, `only-${date.replace(/[:.]/g, "-")}.json`);
  writeFileSync(
    path,
    `${JSON.stringify({ date, command: `npm run bench -- --only ${ONLY.join(",")}${NARROW ? ` --${NARROW}` : ""}`, source: describeSource(), plan: PLAN, table, logs, measurements }, null, 2)}\n`,
  );
  console.log(`\n${consoleTable(table)}\n\nresults: ${path}`);
  say("done");
}

/** Re-renders a stored run with the current report code: no runtime is started. */
function rerender(path) {
  const report = JSON.parse(readFileSync(path, "utf8"));
  report.table = tabulate(report.measurements);
  report.verdicts = judge(report.table, report.bundle, report.profile, report.criticalPath);
  report.comparison = compareWithPrevious(report, againstArg());
  report.verdicts.push(regressionVerdict(report.comparison));
  if (report.profile)
    report.profile.summary = summarize(
      report.profile.ladder,
      report.profile.cpu,
      report.profile.logCost,
      report.measurements,
      report.profile.writeAhead,
    );
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
  if (path.endsWith(".json")) writeFileSync(fullReportPath(path), markdown(report));
  writeFileSync(join(RESULTS_DIR, "latest.md"), summaryMarkdown(report));
  console.log(`${consoleTable(report.table)}\n`);
  for (const v of report.verdicts) console.log(`${verdictWord(v.met).padEnd(12)} ${v.target}: ${v.value ?? "–"}`);
  console.log(`\nre-rendered ${path}${path.endsWith(".json") ? `, ${fullReportPath(path)}` : ""} and bench/results/latest.md`);
}

/** `--against <results file>`: compare with that run instead of the newest earlier one. */
function againstArg() {
  const at = process.argv.indexOf("--against");
  return at >= 0 ? process.argv[at + 1] : null;
}

/** `--only a,b`: the scenario keys to measure, or null for the full run. */
const ONLY = (() => {
  const at = process.argv.indexOf("--only");
  if (at < 0) return null;
  const keys = (process.argv[at + 1] ?? "").split(",").filter(Boolean);
  const unknown = keys.filter((k) => !SCENARIOS.some((s) => s.key === k));
  if (!keys.length || unknown.length) {
    console.error(`--only takes operations among ${SCENARIOS.map((s) => s.key).join(", ")}; got ${unknown.join(", ") || "none"}`);
    process.exit(2);
  }
  return keys;
})();

/** `--platform` or `--profile` with `--only`: that stage alone, for those operations. */
const NARROW = ["platform", "profile"].find((flag) => process.argv.includes(`--${flag}`)) ?? null;
if (NARROW && !ONLY) {
  console.error(`--${NARROW} narrows an --only run: name the operations, e.g. --only create,pay --${NARROW}`);
  process.exit(2);
}

/** `--only <ops> --profile`: the CPU profile of those operations alone, on a runtime of its own; printed, nothing kept. */
async function profileOnly() {
  const ops = PROFILED.filter((op) => ONLY.includes(op));
  if (ops.length === 0) throw new Error(`--profile profiles ${PROFILED.join(", ")}; got ${ONLY.join(", ")}`);
  step("building the targets with wrangler");
  const { built } = await buildAll();
  step(`profiling ${ops.join(", ")} at concurrency ${PLAN.throughput.connections}`);
  const cpu = await cpuProfile(built, ops);
  for (const [op, p] of Object.entries(cpu)) {
    console.log(
      `\n${op}: ${p.usPerRequest} µs busy a ${op === "flow" ? "flow" : "request"}, workerd ${p.workerdUsPerItem} µs (${p.requests} requests, ${p.rps} req/s)`,
    );
    console.log(
      `  by bucket: ${Object.entries(p.buckets)
        .map(([k, b]) => `${k} ${b.usPerRequest}`)
        .join(", ")}`,
    );
    for (const r of p.rows.slice(0, 15)) console.log(`  ${String(r.usPerRequest).padStart(8)} µs  ${r.owner}`);
    console.log("  functions:");
    for (const f of p.functions) console.log(`  ${String(f.usPerRequest).padStart(8)} µs  ${f.function}`);
    console.log("  builtins, by caller:");
    for (const f of p.builtinCallers) console.log(`  ${String(f.usPerRequest).padStart(8)} µs  ${f.call}`);
  }
  say("done");
}

const reportArg = process.argv.indexOf("--report");
if (process.argv.includes("--help") || process.argv.includes("-h")) {
  // Any other flag starts the full run (minutes): asking how to run it must not.
  const header = readFileSync(new URL(import.meta.url), "utf8").split("*/")[0];
  console.log(
    header
      .split("\n")
      .filter((line) => line.startsWith(" *   "))
      .map((line) => line.slice(3))
      .join("\n"),
  );
} else if (reportArg >= 0) {
  rerender(process.argv[reportArg + 1]);
} else {
  try {
    await (CRITICAL_ONLY ? criticalOnly() : NARROW === "profile" ? profileOnly() : main());
    await shutdown(0);
  } catch (err) {
    console.error(failureReport(err));
    await shutdown(1);
  }
}
