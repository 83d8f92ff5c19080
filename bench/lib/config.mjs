/**
 * Everything the bench is tuned by, in one place: paths, ports, credentials
 * and how long each measurement runs. `--quick` shrinks the measurements to a
 * smoke test of the harness itself; its numbers are not worth keeping.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseEnv } from "node:util";

export const BENCH_DIR = dirname(dirname(fileURLToPath(import.meta.url)));
export const ROOT = dirname(BENCH_DIR);

const quick = process.argv.includes("--quick");

/**
 * Bundles and generated configs; ignored by git (bench/.gitignore). `--quick`
 * (part of `npm test`) builds in a directory of its own, so it leaves a full
 * run's bundles alone.
 */
export const BUILD_DIR = process.env.BENCH_BUILD_DIR || join(BENCH_DIR, quick ? ".build-quick" : ".build");
export const RESULTS_DIR = join(BENCH_DIR, "results");
export const WRANGLER_BIN = join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");

export const HOST = "127.0.0.1";

// Loopback only: Miniflare would otherwise fetch the Request.cf placeholder
// from workers.cloudflare.com on every start (wrangler dev children inherit this).
process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= "false";
/**
 * Fixed ports, well away from `wrangler dev`'s 8787 (and the 8788+ it falls
 * back to) so a bench can run beside a dev server: what `listenPort` gives
 * when BENCH_PORT_BASE is set (n+1...n+10), and what bench/capacity.mjs and
 * bench/runtime-choice.mjs listen on.
 */
const PORT_BASE = Number(process.env.BENCH_PORT_BASE ?? 18780);
export const PORTS = {
  direct: PORT_BASE + 1,
  bareProxy: PORT_BASE + 2,
  gateway: PORT_BASE + 3,
  /** Fresh runtimes started only to time their first answer. */
  coldStart: PORT_BASE + 4,
  /** The gateway again, with the inspector on, for the CPU profile. */
  profile: PORT_BASE + 5,
  inspector: PORT_BASE + 6,
  /** The gateway once more, for the events run (receiver down, then up). */
  events: PORT_BASE + 7,
  /** The webhook receiver the events run brings up. */
  receiver: PORT_BASE + 8,
  /** The partner's receiver every other gateway runtime delivers its events to (up for the whole run). */
  partner: PORT_BASE + 9,
  /** The traced gateway that counts round trips and commits (lib/critical.mjs). */
  traced: PORT_BASE + 10,
};

/**
 * The port `npm run bench` gives the runtime or receiver `name` (a key of
 * PORTS): 0, any free port the system picks (its ephemeral range, away from
 * 8787 and from the dev servers' ports), so benches of several checkouts,
 * and `npm test`'s quick one, run side by side on one machine; PORTS[name]
 * when BENCH_PORT_BASE asks for fixed ones.
 */
export const listenPort = (name) => (process.env.BENCH_PORT_BASE ? PORTS[name] : 0);

/**
 * The development credentials `npm run dev` and the tests use: the sandbox's
 * UPSTREAM_API_KEY and whatever the gateway's authentication reads. Read at
 * run time so a key added to the example file reaches the bench unchanged.
 */
export const DEV_VARS = parseEnv(readFileSync(join(ROOT, ".dev.vars.example"), "utf8"));

/** The partner backend's development key (docs/reference.md, "Development credentials"). */
export const PARTNER_KEY = "sk_test_local_partner";

/*
 * The two header sets below are shared by every request of a run, so they
 * are frozen: autocannon writes a Content-Length into the headers object a
 * request's setupRequest returns, and once that was one of these, every
 * later fetch with them declared the length of an anonymous pay's body. A
 * longer body then never left the bench (undici refuses to write past the
 * declared length, and the request hung with nothing sent) until workerd
 * closed the silent connection after its 15 s header timeout: "fetch failed
 * ... other side closed", with the gateway up and well. Frozen, such a
 * write throws where it happens.
 */

/** What a partner sends to the gateway, and to the bare proxy (which swaps in the upstream key). */
export const GATEWAY_HEADERS = Object.freeze({
  "content-type": "application/json",
  authorization: `Bearer ${PARTNER_KEY}`,
});

/** What the gateway's upstream client sends to the sandbox; used on the sandbox directly. */
export const SANDBOX_HEADERS = Object.freeze({
  "content-type": "application/json",
  authorization: `Bearer ${DEV_VARS.UPSTREAM_API_KEY ?? ""}`,
});

/** The upstream's distance in the "@40ms" run: the sandbox waits this long before each call (SANDBOX_LATENCY_MS). */
export const UPSTREAM_LATENCY_MS = 40;

/**
 * The "@platform" run: every D1 round trip this far away (the
 * traced gateway's wrapper of the D1 bindings, bench/workers/traced-gateway.ts),
 * the upstream UPSTREAM_LATENCY_MS away as in the @40ms run.
 */
export const PLATFORM_D1_MS = 50;
/** The operations measured @platform. */
export const PLATFORM_SCENARIOS = ["create", "authorize", "pay", "check-id", "flow"];

/** `npm run bench -- --critical`: only the round-trip counts (~10 s), printed, nothing written. */
export const CRITICAL_ONLY = process.argv.includes("--critical");

/**
 * Per measurement: a warm-up (discarded), then the timed run, cut into
 * `rounds` slices that alternate with the other targets' slices. Latency runs
 * at concurrency 1 count requests so every target gets the same sample size;
 * throughput runs at concurrency 32 last a fixed time. Operations that use up
 * a receipt (authorize, pay) count requests at 32 too, so the receipts they
 * need can be prepared before anything is timed. The flow at 32 counts its
 * flows too (`throughput.flows`): a slice of fixed time ends with up to 32
 * flows cut off, which is most of a slice when the gateway's flow at 32
 * takes as long as the slice.
 *
 * `profile`: the CPU profile's pays and authorizes, and their warm-up (the
 * other operations warm up for `warmupSeconds`);
 * `whatIf`: the A/Bs of lib/profile.mjs, their rounds, the seconds or
 * requests at concurrency 32 and the requests at 1 of each round; `events`:
 * the events run's pays per receiver state and the wait for the creates'
 * deliveries before them.
 *
 * `--quick` runs every stage of the full run on a load too small to mean
 * anything (a handful of requests each, 4 connections where the full run
 * has 32), so that `npm test` fails when the harness breaks; its numbers
 * are not kept.
 */
export const PLAN = quick
  ? {
      quick,
      latency: { connections: 1, warmup: 1, amount: 3, flows: 2 },
      latency40: { connections: 1, warmup: 1, amount: 1, flows: 1 },
      latencyPlatform: { connections: 1, warmup: 1, amount: 1, flows: 1 },
      criticalRepeats: 1,
      throughput: { connections: 4, warmupSeconds: 0.1, seconds: 0.2, warmupAmount: 4, amount: 8, flows: 4 },
      spreadReceipts: 4,
      coldStartRuns: 1,
      profileSeconds: 0.2,
      profile: { count: 12, warmup: 4, warmupSeconds: 0.1 },
      whatIf: { rounds: 1, seconds: 0.2, perRound: 8, latencyPerRound: 4 },
      events: { receipts: 3, settleMs: 300 },
      rounds: 1,
    }
  : {
      quick,
      latency: { connections: 1, warmup: 50, amount: 400, flows: 150 },
      latency40: { connections: 1, warmup: 5, amount: 60, flows: 20 },
      latencyPlatform: { connections: 1, warmup: 5, amount: 40, flows: 12 },
      criticalRepeats: 5,
      throughput: { connections: 32, warmupSeconds: 1, seconds: 3, warmupAmount: 200, amount: 2000, flows: 800 },
      spreadReceipts: 256,
      coldStartRuns: 3,
      profileSeconds: 4,
      profile: { count: 1000, warmup: 200, warmupSeconds: 0.5 },
      whatIf: { rounds: 3, seconds: 1.5, perRound: 400, latencyPerRound: 100 },
      events: { receipts: 300, settleMs: 3000 },
      rounds: 4,
    };
