/**
 * Why the bench runs the workers with programmatic Miniflare: the same
 * gateway build answering GET /healthz when started three ways, timed the
 * same way. Not part of `npm run bench`; run it when wrangler or miniflare
 * change (about 30 s):
 *
 *   ./node_modules/.bin/node bench/runtime-choice.mjs
 *
 * Writes its table to stdout; bench/README.md quotes it.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { unstable_startWorker } from "wrangler";
import { buildAll } from "./lib/build.mjs";
import { DEV_VARS, HOST, PORTS, ROOT, WRANGLER_BIN } from "./lib/config.mjs";
import { runLoad } from "./lib/load.mjs";
import { STATE_ROOT, startRuntime, stopAll, workerFromBuild } from "./lib/runtime.mjs";

const PORT = PORTS.coldStart;
const healthz = [{ method: "GET", path: "/healthz" }];

async function firstAnswer(url, started, limitMs = 60_000) {
  for (;;) {
    try {
      const res = await fetch(`${url}/healthz`);
      await res.arrayBuffer();
      if (res.status === 200) return performance.now() - started;
    } catch {}
    if (performance.now() - started > limitMs) throw new Error(`${url}: no 200 on /healthz`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function measure(label, url, firstAnswerMs) {
  await runLoad({ url, connections: 1, amount: 200, requests: healthz });
  const c1 = await runLoad({ url, connections: 1, amount: 1000, requests: healthz });
  await runLoad({ url, connections: 32, duration: 1, requests: healthz });
  const c32 = await runLoad({ url, connections: 32, duration: 3, requests: healthz });
  return { label, firstAnswerMs: Math.round(firstAnswerMs), p50: c1.latency.p50, p99: c1.latency.p99, rps: c32.rps };
}

async function viaMiniflare(built) {
  const rt = await startRuntime({ key: "choice", workers: [workerFromBuild(built.gateway)], port: PORT });
  try {
    return await measure("Miniflare, prebuilt bundle (the bench)", rt.url, rt.startup.firstAnswerMs);
  } finally {
    await rt.stop();
  }
}

async function viaStartWorker() {
  const persist = mkdtempSync(join(STATE_ROOT, "payments-bench-choice-"));
  const started = performance.now();
  const worker = await unstable_startWorker({
    config: join(ROOT, "wrangler.toml"),
    env: "dev",
    bindings: Object.fromEntries(Object.entries(DEV_VARS).map(([k, v]) => [k, { type: "plain_text", value: v }])),
    dev: { server: { hostname: HOST, port: PORT }, inspector: false, persist, watch: false, logLevel: "none", liveReload: false },
  });
  try {
    await worker.ready;
    const url = (await worker.url).origin;
    return await measure("wrangler unstable_startWorker (bundles on start)", url, await firstAnswer(url, started));
  } finally {
    await worker.dispose();
    rmSync(persist, { recursive: true, force: true });
  }
}

async function viaWranglerDev() {
  const persist = mkdtempSync(join(STATE_ROOT, "payments-bench-choice-"));
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      WRANGLER_BIN,
      "dev",
      "--env",
      "dev",
      "--ip",
      HOST,
      "--port",
      String(PORT),
      "--persist-to",
      persist,
      "--env-file",
      ".dev.vars.example",
      "--show-interactive-dev-session=false",
      "--log-level",
      "none",
      "--inspector-port",
      String(PORTS.inspector),
    ],
    { cwd: ROOT, stdio: "ignore", env: { ...process.env, WRANGLER_SEND_METRICS: "false" } },
  );
  try {
    const url = `http://${HOST}:${PORT}`;
    return await measure("wrangler dev (CLI)", url, await firstAnswer(url, started));
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
    rmSync(persist, { recursive: true, force: true });
  }
}

try {
  const { built } = await buildAll();
  const rows = [await viaMiniflare(built), await viaStartWorker(), await viaWranglerDev()];
  console.log("| how the gateway runs | first answer ms | /healthz p50 ms, c=1 | p99 ms | req/s, c=32 |");
  console.log("|---|---:|---:|---:|---:|");
  for (const r of rows) console.log(`| ${r.label} | ${r.firstAnswerMs} | ${r.p50} | ${r.p99} | ${r.rps} |`);
} finally {
  await stopAll();
}
