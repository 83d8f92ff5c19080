/**
 * Starting and stopping the local Workers runtime for each target.
 *
 * Programmatic Miniflare, not `wrangler dev` or `unstable_startWorker`: both
 * of those put wrangler's proxy worker (a second workerd, reached over
 * loopback HTTP) in front of the worker so it can hot-reload, and run the
 * bundler's file watcher beside it. That hop would be added to every target
 * alike and shrink every ratio toward 1. Miniflare serves the worker from
 * workerd's own socket, with the bindings wrangler itself derives from the
 * same config (unstable_getMiniflareWorkerOptions), so what is measured is
 * the worker. bench/README.md has the numbers behind this choice.
 *
 * Every runtime started here is registered, and stopAll() ends them all:
 * run.mjs calls it on success, on error and on SIGINT/SIGTERM.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, resolve as resolvePath } from "node:path";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions, unstable_readConfig, unstable_splitSqlQuery } from "wrangler";
import { DEV_VARS, HOST, PORTS, ROOT } from "./config.mjs";

/**
 * Where the gateways started here deliver their events: the partner's
 * receiver run.mjs brings up (lib/receiver.mjs), on the port it got.
 */
let partnerWebhookUrl = `http://${HOST}:${PORTS.partner}/webhooks`;
export function deliverEventsTo(url) {
  partnerWebhookUrl = url;
}

/** Rule 13's limits for the bench's gateway: every counter counts, none refuses (see workerFromBuild). */
const BENCH_RISK_LIMITS = JSON.stringify({
  user_card_uses_per_hour: 1_000_000_000,
  user_card_uses_per_day: 1_000_000_000,
  card_users_per_day: 1_000_000_000,
  user_payer_cards_per_day: 1_000_000_000,
  user_receiver_cards_per_day: 1_000_000_000,
  user_otp_sends_per_day: 1_000_000_000,
  user_card_otp_sends_per_day: 1_000_000_000,
});

const live = new Set();
/** Every runtime this process started (the newest 50), stopped or not: a failure's report describes the ones it concerns. */
const started = [];
/** State directories this process made and has not removed yet. */
const stateDirs = new Set();

// Miniflare's own SIGINT/SIGTERM hook kills workerd and exits at once, before
// any async clean-up can run; whatever state is left is removed here, synchronously.
process.on("exit", () => {
  for (const dir of stateDirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * Where the runtimes keep Durable Object and D1 state: in memory-backed
 * /dev/shm where there is one. On this machine's virtual disk every SQLite
 * commit waits for an fsync whose latency swings from run to run (a sandbox
 * create measured 1.3 ms p50 in one run and 3.4 ms in the next), which would
 * drown the gateway's own costs; production storage has latencies of its own
 * that no local disk models anyway. BENCH_STATE_DIR=/tmp puts it on disk.
 */
export const STATE_ROOT = process.env.BENCH_STATE_DIR || (existsSync("/dev/shm") ? "/dev/shm" : tmpdir());

/**
 * Miniflare worker options for one built worker: bindings from its wrangler
 * config, the bundle wrangler produced, and the development secrets.
 *
 * Without its static assets unless `assetsRouter` is set. The gateway has
 * pages (/, /docs), and Miniflare serves a worker with assets through two
 * more Workers on the same workerd thread: a router, then (for a path that is
 * not run_worker_first) the asset worker. Every API path is run_worker_first
 * (wrangler.toml), which on Cloudflare sends it to the Worker before the
 * Worker would see it at all; locally the router still runs, ~1 ms per request
 * on this machine, a hop of Cloudflare's, not the gateway's. Like wrangler
 * dev's proxy (README, "Runtime"), it is left out of what is measured, and the
 * ladder prices it on its own ("healthz, gateway behind the assets router").
 */
export function workerFromBuild(build, { assetsRouter = false } = {}) {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(build.config, build.env || undefined);
  // The bundle is a single ES module already; module rules only matter to unbundled sources.
  const { modulesRules: _rules, assets, ...options } = workerOptions;
  return {
    ...options,
    ...(assetsRouter && assets ? { assets } : {}),
    // Module names are paths relative to rootPath; one that climbs out of it ("../") fails to load.
    rootPath: dirname(build.module),
    name: build.name,
    modules: true,
    scriptPath: build.module,
    // The bench's users all call from one address and pay thousands of times
    // with one sandbox card: the abuse limits are raised out of reach, so
    // every call is counted as in production and none is refused.
    ...(options.ratelimits
      ? {
          ratelimits: Object.fromEntries(
            Object.entries(options.ratelimits).map(([name, limit]) => [name, { ...limit, simple: { ...limit.simple, limit: 1_000_000_000 } }]),
          ),
        }
      : {}),
    bindings: {
      ...options.bindings,
      ...DEV_VARS,
      ...("RISK_LIMITS" in (options.bindings ?? {}) ? { RISK_LIMITS: BENCH_RISK_LIMITS } : {}),
      // The anonymous-pay fixtures are authorized minutes before they are paid: the sandbox's OTP must outlive the run.
      ...("SANDBOX_OTP_TTL_MS" in (options.bindings ?? {}) ? { SANDBOX_OTP_TTL_MS: String(86_400_000) } : {}),
      // The gateway's events go to the bench's receiver, which is up (lib/receiver.mjs):
      // the usual case. A receiver that is down is the events run's to measure.
      ...("WEBHOOK_URL" in (options.bindings ?? {}) ? { WEBHOOK_URL: partnerWebhookUrl } : {}),
    },
  };
}

/** One GET with node:http (fetch would add undici's first-use start-up to the cold-start time). */
function get(url) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode));
    });
    req.on("error", reject);
    req.setTimeout(10_000, () => req.destroy(new Error("timeout")));
  });
}

/**
 * Starts one workerd with `workers` (the first one answers on `port`, or on
 * a free port the system picks when `port` is 0: `runtime.url` says which)
 * and times it: `readyMs` until the runtime listens, `firstAnswerMs` until
 * the first answer to GET `probePath`. State lives in a fresh directory
 * under STATE_ROOT and is removed on stop. `inspectorPort` (0: any) turns
 * on workerd's inspector, at `runtime.inspectorUrl`.
 */
export async function startRuntime({
  key,
  workers,
  port,
  probePath = "/healthz",
  inspectorPort,
  reuseState,
  logs = { lines: 0, bytes: 0, errors: [] },
}) {
  // A restart keeps the state (and the log counts) of the runtime it replaces.
  const persist = reuseState ?? mkdtempSync(join(STATE_ROOT, `payments-bench-${key}-`));
  stateDirs.add(persist);
  const before = new Set(workerdChildren());
  const startedAt = performance.now();
  // Filled in once Miniflare is made; its crash handler (in the options below) refers to it.
  const runtime = { key, persist, logs, stopped: false, keepState: false };
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      host: HOST,
      port,
      ...(inspectorPort === undefined ? {} : { inspectorPort }),
      resourcePersistencePath: persist,
      enableDevRegistry: false,
      // No request.cf fetched from the internet: the placeholder will do.
      cf: false,
      logRequests: false,
      telemetry: { enabled: false },
      // Miniflare starts a crashed workerd again on its own, and says so nowhere the bench sees: counted, so the
      // measurement across it fails (lib/scenarios.mjs) and a failure's report says it happened (describeRuntime).
      unsafeHandleRuntimeRestart: () => {
        logs.crashes = (logs.crashes ?? 0) + 1;
        // Its new workerd: the bench's one no other runtime owns.
        runtime.pid = workerdChildren().find((pid) => ![...live].some((other) => other.pid === pid)) ?? null;
      },
      // The gateway logs a line per upstream call; keep count and bytes (what Workers Logs ingests of it), keep errors, print nothing.
      handleStructuredLogs: (log) => {
        logs.lines++;
        const bytes = Buffer.byteLength(String(log.message ?? ""));
        logs.bytes = (logs.bytes ?? 0) + bytes;
        // A line that says `sample` is one production writes only a share of (LOG_SUCCESS_SAMPLE, src/shared/log.ts).
        if (/"sample":[0-9.]+\}$/.test(String(log.message ?? ""))) {
          logs.sampled = (logs.sampled ?? 0) + 1;
          logs.sampled_bytes = (logs.sampled_bytes ?? 0) + bytes;
        }
        if (log.level === "error" && logs.errors.length < 20) logs.errors.push(log.message);
        // workerd's own lines (not the gateway's JSON): kept, the newest 50, so a runtime that dies says why.
        if (!String(log.message ?? "").startsWith("{")) {
          logs.runtime ??= [];
          logs.runtime.push(String(log.message).slice(0, 2000));
          if (logs.runtime.length > 50) logs.runtime.shift();
        }
      },
      workers,
    }),
  );
  runtime.mf = mf;
  runtime.options = { key, workers, port, probePath, inspectorPort };
  live.add(runtime);
  started.push(runtime);
  if (started.length > 50) started.shift();
  runtime.stop = () => stopRuntime(runtime);

  let listening;
  try {
    listening = await mf.ready;
  } catch (err) {
    if (err?.code === "ERR_ADDRESS_IN_USE") {
      throw new Error(`${key}: port ${port} on ${HOST} is taken; pick other ports with BENCH_PORT_BASE=<n>, or leave it unset for free ones`, {
        cause: err,
      });
    }
    throw err;
  }
  const readyMs = performance.now() - startedAt;
  runtime.url = listening.origin;
  runtime.inspectorUrl = inspectorPort === undefined ? null : (await mf.getInspectorURL()).href;
  let status;
  for (;;) {
    try {
      status = await get(`${runtime.url}${probePath}`);
      break;
    } catch (err) {
      if (performance.now() - startedAt > 30_000) throw new Error(`${key}: no answer on ${probePath}: ${err}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  runtime.startup = { readyMs: round1(readyMs), firstAnswerMs: round1(performance.now() - startedAt), firstStatus: status };
  // After the clock stopped: scanning /proc is not the runtime's start-up.
  runtime.pid = workerdChildren().find((pid) => !before.has(pid)) ?? null;
  return runtime;
}

/**
 * The runtimes a failure since `since` (performance.now()) concerns: those
 * still running, and those stopped since then (a stage stops its own on the
 * way out of a failure), a restarted one as its successor.
 */
export const runtimesSince = (since) => started.filter((r) => !r.replaced && (!r.stopped || r.stoppedAt >= since));

/**
 * What became of a runtime, in words, for a run that failed: its address,
 * whether its workerd process is still there, the crashes Miniflare
 * restarted it after, and the newest lines workerd wrote of its own.
 */
export function describeRuntime(runtime) {
  const pid = runtime.pid;
  let state;
  if (!pid) state = "workerd's process unknown";
  else if (runtime.stopped)
    state = runtime.aliveAtStop ? `workerd ${pid} ran until the bench stopped it` : `workerd ${pid} had EXITED before the bench stopped it`;
  else state = isRunning(pid) ? `workerd ${pid} running` : `workerd ${pid} GONE (exited)`;
  const crashes = runtime.logs.crashes ? `, ${runtime.logs.crashes} crash(es) Miniflare restarted it after` : "";
  const lines = [...(runtime.logs.runtime ?? []), ...runtime.logs.errors].slice(-12);
  return [
    `${runtime.key} at ${runtime.url ?? "(not listening yet)"}: ${state}${crashes}`,
    ...(lines.length
      ? lines.map((line) => `    | ${line.replace(/\n/g, "\n    | ")}`)
      : ["    (workerd wrote no line of its own, and the worker logged no error)"]),
  ].join("\n");
}

async function stopRuntime(runtime) {
  if (runtime.stopped) return;
  runtime.stopped = true;
  runtime.stoppedAt = performance.now();
  // Whether its workerd was still there when the bench stopped it: a failure's report says so.
  runtime.aliveAtStop = runtime.pid ? isRunning(runtime.pid) : null;
  live.delete(runtime);
  try {
    await Promise.race([runtime.mf.dispose(), new Promise((r) => setTimeout(r, 10_000))]);
  } finally {
    if (!runtime.keepState) {
      rmSync(runtime.persist, { recursive: true, force: true });
      stateDirs.delete(runtime.persist);
    }
  }
}

/**
 * Stops a runtime and starts it again on the same state: every Durable
 * Object is out of memory afterwards, as a receipt's object is when its
 * payer comes back minutes after the create.
 */
export async function restartRuntime(runtime) {
  runtime.keepState = true;
  // Its successor tells its story (same key, same logs).
  runtime.replaced = true;
  await stopRuntime(runtime);
  return startRuntime({ ...runtime.options, reuseState: runtime.persist, logs: runtime.logs });
}

/** Ends every runtime still running. Safe to call more than once. */
export async function stopAll() {
  await Promise.allSettled([...live].map(stopRuntime));
}

/**
 * Applies the gateway's D1 migrations to the runtime's local database, as
 * `wrangler d1 migrations apply --local` would, through Miniflare's D1 API:
 * the files of each database's migrations_dir, in name order.
 */
export async function applyMigrations(runtime, build) {
  const config = unstable_readConfig({ config: build.config, env: build.env || undefined }, { hideWarnings: true });
  const applied = [];
  for (const database of config.d1_databases ?? []) {
    const dir = resolvePath(ROOT, database.migrations_dir ?? "migrations");
    const db = await runtime.mf.getD1Database(database.binding, build.name);
    for (const file of readdirSync(dir)
      .filter((f) => f.endsWith(".sql"))
      .sort()) {
      const statements = unstable_splitSqlQuery(readFileSync(join(dir, file), "utf8"));
      await db.batch(statements.map((sql) => db.prepare(sql)));
      applied.push(`${database.binding}/${file}`);
    }
  }
  return applied;
}

const round1 = (ms) => Math.round(ms * 10) / 10;

// --- CPU accounting ----------------------------------------------------------

/** Linux's USER_HZ: /proc reports CPU time in these ticks. */
const TICKS_PER_SECOND = 100;

function procStat(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name is in parentheses and may hold spaces; fields follow the last ")".
    const close = stat.lastIndexOf(")");
    const comm = stat.slice(stat.indexOf("(") + 1, close);
    const fields = stat.slice(close + 2).split(" ");
    return { comm, state: fields[0], ppid: Number(fields[1]), cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND };
  } catch {
    return null;
  }
}

/** Whether process `pid` is there and not a zombie (ended, not reaped yet). */
function isRunning(pid) {
  const stat = procStat(pid);
  return stat !== null && stat.state !== "Z";
}

/** workerd processes this bench started (Miniflare spawns them as direct children). */
function workerdChildren() {
  if (!existsSync("/proc")) return [];
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      const stat = procStat(pid);
      return stat && stat.ppid === process.pid && stat.comm.includes("workerd");
    })
    .map(Number);
}

/**
 * CPU time (ms) the runtime's workerd process has used so far: sampled around
 * a measurement it gives CPU per request, the cost that bounds throughput on
 * a 2-core machine. null where /proc is not available.
 */
export function runtimeCpuMs(runtime) {
  return runtime.pid ? (procStat(runtime.pid)?.cpuMs ?? null) : null;
}

/** The machine's CPU counters (/proc/stat's first line): total and stolen jiffies. */
export function cpuCounters() {
  try {
    const fields = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is counted in user already)
    const total = fields.slice(0, 8).reduce((sum, v) => sum + v, 0);
    return { total, steal: fields[7] ?? 0 };
  } catch {
    return null;
  }
}

/**
 * The share of this virtual machine's CPU time its host took for others
 * between two readings (%): a run with much of it measured a crowded host,
 * and its ratios are noisier for it. null where /proc/stat is missing.
 */
export function stealPercent(from, to = cpuCounters()) {
  if (!from || !to || to.total <= from.total) return null;
  return Math.round(((to.steal - from.steal) / (to.total - from.total)) * 1000) / 10;
}
