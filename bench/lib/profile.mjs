/**
 * Where the gateway's time goes, measured from outside (src/ is not touched):
 *
 * 1. A cost ladder: requests that stop at successive depths of the gateway,
 *    each timed at concurrency 1. /healthz is the router alone; a check-id
 *    with a malformed id stops at validation (auth, JSON, valibot, the error
 *    envelope); one for an unknown id adds the Durable Object round trip; a
 *    replayed create is recognised by the D1 tid index (one batch: the claim
 *    and the read of the row) and answered by the record's Durable Object
 *    (the HMAC fingerprint, no upstream). Differences
 *    between rungs price each layer.
 *
 * 2. Two A/Bs on the bundle: the gateway as built against the same bundle
 *    with one piece patched out (in bench/.build only) at concurrency 32: its
 *    log line's console.log under check-id (the profile points at it; this
 *    prices it), and the write-ahead note of rule 8 under pay (what the
 *    money's safety costs).
 *
 * 3. A CPU profile of the worker's isolate (V8's sampling profiler, through
 *    workerd's inspector) while check-id, pay and create run at concurrency
 *    32, mapped through the bundle's source map to the file or package that
 *    spent it. The sandbox runs in the same isolate (src/dev.ts), so its
 *    share is visible and set apart.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { basename } from "node:path";
import { BUCKETS, bucketOfPackage, bucketOfPath, OTHER, STUB_CALL } from "./buckets.mjs";
import { GATEWAY_HEADERS, listenPort, PLAN } from "./config.mjs";
import { request, round, runLoad, summarize as summarizeLatency } from "./load.mjs";
import { applyMigrations, runtimeCpuMs, startRuntime, workerFromBuild } from "./runtime.mjs";
import { API, createReceipts, SCENARIOS, TARGETS } from "./scenarios.mjs";

const gateway = TARGETS.find((t) => t.key === "gateway");
const bare = TARGETS.find((t) => t.key === "bareProxy");

function rung(label, what, target, request, expect) {
  return { label, what, target, request, expect };
}

/** The ladder runs on the measured runtimes, after the main measurements. */
export async function costLadder(built, runtimes, fixtures) {
  const post = (op, body) => ({ method: "POST", path: `${API}/${op}`, headers: GATEWAY_HEADERS, body: JSON.stringify(body) });
  const replay = {
    tid: `ladder-replay-${Date.now().toString(36)}`,
    amount: 150_000,
    merchant_id: 1003,
    account: [{ key: "phone", value: "998901234567" }],
  };
  // The replayed create must exist first.
  const first = await request("the ladder's create to replay", `${runtimes.gateway.url}${API}/receipt/create`, {
    method: "POST",
    headers: GATEWAY_HEADERS,
    body: JSON.stringify(replay),
  });
  if (first.status !== 200)
    throw new Error(`the ladder's create to replay: the gateway answered ${first.status} ${(await first.text()).slice(0, 300)}`);
  await first.body?.cancel();

  const rungs = [
    rung("healthz, bare proxy", "Hono router and a JSON answer", bare, { method: "GET", path: "/healthz" }),
    rung("healthz, gateway", "the gateway's app: request id, router, JSON answer", gateway, { method: "GET", path: "/healthz" }),
    rung(
      "check-id refused (400)",
      "+ auth (SHA-256 of the key), content type, body limit, JSON parse, valibot, error envelope",
      gateway,
      post("receipt/check-id", { id: "no such id!" }),
      400,
    ),
    rung(
      "check-id unknown id (404)",
      "+ one Durable Object round trip (the object finds no record)",
      gateway,
      post("receipt/check-id", { id: "ladderunknown0000" }),
      404,
    ),
    rung("check-id, bare proxy", "for comparison: one upstream call, nothing else", bare, post("receipt/check-id", { id: fixtures.bareProxy.hot })),
    rung(
      "check-id (200)",
      "+ the upstream call from inside the Durable Object, its answer normalized, stored if changed, sent back",
      gateway,
      post("receipt/check-id", { id: fixtures.gateway.hot }),
    ),
    rung(
      "create replayed (200)",
      "validation + HMAC fingerprint + 2 D1 queries (INSERT … ON CONFLICT, SELECT); no upstream, no Durable Object",
      gateway,
      post("receipt/create", replay),
    ),
  ];

  // Pay on receipts created a moment ago, their objects still in memory; the
  // table's pay meets them cold. The difference is what a cold object costs.
  const fresh = await createReceipts(runtimes.gateway, gateway, 1003, PLAN.latency.warmup + PLAN.latency.amount);
  let next = 0;
  rungs.push(
    rung("pay, Durable Object in memory (200)", "pay on a receipt created a moment ago; the table's pay meets its object cold", gateway, {
      ...post("receipt/pay", {}),
      setupRequest: (req) => ({ ...req, body: JSON.stringify({ id: fresh[next++], card: { token: "tok_sandbox_ok" } }) }),
    }),
  );

  // The same gateway as `npm run dev` serves it: Miniflare's assets router in
  // front (runtime.mjs, workerFromBuild). Its healthz against the measured
  // gateway's prices that hop, which the table leaves out.
  const routed = await startRuntime({
    key: "ladder-assets-router",
    workers: [workerFromBuild(built.gateway, { assetsRouter: true })],
    port: listenPort("coldStart"),
  });
  rungs.splice(
    2,
    0,
    rung(
      "healthz, gateway behind the assets router",
      "as npm run dev serves it: Miniflare's router Worker first (left out of the table)",
      { key: "routed" },
      { method: "GET", path: "/healthz" },
    ),
  );

  const results = [];
  try {
    for (const r of rungs) {
      const url = r.target.key === "routed" ? routed.url : runtimes[r.target.key].url;
      const requests = [r.request];
      await runLoad({ url, connections: 1, amount: PLAN.latency.warmup, requests, expect: r.expect });
      const res = await runLoad({ url, connections: 1, amount: PLAN.latency.amount, requests, expect: r.expect });
      results.push({
        label: r.label,
        what: r.what,
        target: r.target.key,
        p50: res.latency.p50,
        p99: res.latency.p99,
        n: res.latency.n,
        unexpected: res.unexpected,
      });
    }
  } finally {
    await routed.stop();
  }
  return results;
}

// --- CPU profile ---------------------------------------------------------------

/** A minimal Chrome DevTools Protocol client over workerd's inspector socket (`base`: its ws:// address). */
async function inspector(base, target) {
  const ws = new WebSocket(`${base.replace(/\/$/, "")}/${target}`);
  await new Promise((resolve, reject) => {
    ws.addEventListener("open", resolve, { once: true });
    ws.addEventListener("error", () => reject(new Error(`inspector ${target}: cannot connect`)), { once: true });
  });
  let seq = 0;
  const pending = new Map();
  ws.addEventListener("message", (event) => {
    const msg = JSON.parse(event.data);
    const waiter = msg.id !== undefined && pending.get(msg.id);
    if (!waiter) return;
    pending.delete(msg.id);
    if (msg.error) waiter.reject(new Error(`${waiter.method}: ${msg.error.message}`));
    else waiter.resolve(msg.result);
  });
  return {
    send(method, params = {}) {
      const id = ++seq;
      ws.send(JSON.stringify({ id, method, params }));
      return new Promise((resolve, reject) => pending.set(id, { resolve, reject, method }));
    },
    close: () => ws.close(),
  };
}

/** Names what a profile node's code is: a gateway or sandbox file, a package, or V8 itself. */
function classifier(mapPath) {
  const bundleName = basename(mapPath, ".map");
  const raw = JSON.parse(readFileSync(mapPath, "utf8"));
  const map = new SourceMap(raw);
  const cache = new Map();
  const sourceLines = new Map();
  const classify = (frame) => {
    const { url, functionName, lineNumber, columnNumber } = frame;
    if (!url) {
      if (functionName.startsWith("(")) return functionName; // (program), (garbage collector), (idle)
      return `V8 builtin ${functionName || "(anonymous)"}`;
    }
    // workerd's own JavaScript (the D1 client, RPC glue...) is not in our bundle.
    if (!url.endsWith(bundleName)) return `runtime ${url}`;
    const key = `${lineNumber}:${columnNumber}`;
    let owner = cache.get(key);
    if (owner) return owner;
    const source = map.findEntry(lineNumber, columnNumber)?.originalSource ?? "";
    const at = source.lastIndexOf("node_modules/");
    if (at >= 0) {
      const parts = source.slice(at + "node_modules/".length).split("/");
      owner = `package ${parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]}`;
    } else if (source.includes("src/sandbox/")) {
      owner = "sandbox (src/sandbox)";
    } else if (source.includes("src/")) {
      owner = `gateway ${source.slice(source.lastIndexOf("src/"))}`;
    } else {
      owner = "other (bundle glue)";
    }
    cache.set(key, owner);
    return owner;
  };
  /** The source line a function of the bundle starts on (from the map's sourcesContent), or "". */
  classify.line = (frame) => {
    if (!frame.url?.endsWith(bundleName)) return "";
    const entry = map.findEntry(frame.lineNumber, frame.columnNumber);
    const index = entry?.originalSource ? raw.sources.findIndex((s) => entry.originalSource.endsWith(s.replace(/^(\.\.\/)+/, ""))) : -1;
    if (index < 0) return "";
    if (!sourceLines.has(index)) sourceLines.set(index, (raw.sourcesContent?.[index] ?? "").split("\n"));
    return sourceLines.get(index)[entry.originalLine] ?? "";
  };
  return classify;
}

/** The bucket of a classified owner ("gateway src/...", "package ...", "runtime ...", "sandbox ...", "other ..."). */
function bucketOfOwner(owner) {
  if (owner.startsWith("gateway ")) return bucketOfPath(owner.slice("gateway ".length));
  if (owner.startsWith("package ")) return bucketOfPackage(owner.slice("package ".length));
  if (owner.startsWith("sandbox ")) return "sandbox";
  if (owner.startsWith("runtime ") && /d1/.test(owner)) return "d1";
  // esbuild's glue between modules: the router's, as every package no rule names.
  if (owner.startsWith("other ")) return "routing";
  return null;
}

/** `line()`: the source line the frame's function starts on, read only for routing code. */
function bucketOfFrame(owner, line) {
  const bucket = bucketOfOwner(owner);
  if (bucket === "routing" && owner.startsWith("gateway ") && STUB_CALL.test(line())) return "hop";
  return bucket;
}

/**
 * The files of src/ (paths under it, e.g. "record/store.ts") that no rule of
 * lib/buckets.mjs names: their CPU counts for OTHER. Said at the start of a
 * run; the unit test fails on them.
 */
export function unbucketedFiles(srcDir = new URL("../../src/", import.meta.url)) {
  return readdirSync(srcDir, { recursive: true })
    .filter((f) => /\.[cm]?[jt]sx?$/.test(f) && !/\.d\.ts$/.test(f))
    .filter((f) => bucketOfPath(f) === OTHER)
    .sort();
}

/** The CPU profile's sampling interval (µs). */
const SAMPLING_US = 200;

/**
 * The time a sample stands for (µs): the delta to the next sample, at most
 * two intervals. V8 samples an isolate only while workerd's one thread has
 * entered it, so the delta after a sample spans whatever the thread did
 * meanwhile in other isolates (Miniflare's D1, Queues and Cache API
 * simulators, its entry worker): uncapped, the frame that awaited a D1 query
 * or a queue send was charged the simulator's work (sendBatch's await made
 * `enqueue` look like 0.5 ms a flow). Two intervals leave room for a late
 * sampler tick on a busy machine.
 */
const sampleUs = (profile, i) => Math.min(profile.timeDeltas[i + 1] ?? 0, 2 * SAMPLING_US);

/** Per bucket, the samples' time (µs), each sample given to its nearest attributable frame. */
function bucketize(profile, classify, nodes) {
  const parent = new Map();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const cache = new Map();
  const bucketOfNode = (id) => {
    if (cache.has(id)) return cache.get(id);
    let found = null;
    for (let at = id; at !== undefined && found === null; at = parent.get(at)) {
      const frame = nodes.get(at).callFrame;
      const owner = classify(frame);
      if (owner === "(idle)") return { bucket: "(idle)" };
      // workerd's own JavaScript (RPC glue, streams) is no bucket's: the frame above it says whose it is (else the runtime's).
      const bucket = bucketOfFrame(owner, () => classify.line(frame));
      if (bucket !== null) found = { bucket, owner };
    }
    found ??= { bucket: "runtime" };
    cache.set(id, found);
    return found;
  };
  const us = new Map();
  /** The owners whose samples went to OTHER, with their time: the table names them. */
  const other = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const { bucket, owner } = bucketOfNode(profile.samples[i]);
    if (bucket === "(idle)") continue;
    const dt = sampleUs(profile, i);
    us.set(bucket, (us.get(bucket) ?? 0) + dt);
    if (bucket === OTHER) other.set(owner, (other.get(owner) ?? 0) + dt);
  }
  return { us, other };
}

/**
 * Self time per owner, in µs per request. A sample's time is the delta to the
 * next sample; "(idle)" is the isolate waiting, so busy = total - idle.
 */
function attribute(profile, classify, requests) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const byOwner = new Map();
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = sampleUs(profile, i);
    const node = nodes.get(profile.samples[i]);
    const owner = classify(node.callFrame);
    byOwner.set(owner, (byOwner.get(owner) ?? 0) + dt);
    total += dt;
  }
  const idle = byOwner.get("(idle)") ?? 0;
  const byFunction = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const frame = nodes.get(profile.samples[i]).callFrame;
    const owner = classify(frame);
    if (owner === "(idle)") continue;
    const key = `${frame.functionName || "(anonymous)"} — ${owner}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + sampleUs(profile, i));
  }
  // A builtin's time (sql.exec, setAlarm, JSON.parse...) by the gateway function that called it: which line to change.
  const parent = new Map();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const byBuiltinCaller = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const frame = nodes.get(profile.samples[i]).callFrame;
    const owner = classify(frame);
    if (!owner.startsWith("V8 builtin")) continue;
    let caller = "(no JavaScript caller)";
    for (let at = parent.get(profile.samples[i]); at !== undefined; at = parent.get(at)) {
      const up = nodes.get(at).callFrame;
      const upOwner = classify(up);
      if (upOwner.startsWith("gateway ") || upOwner.startsWith("sandbox ") || upOwner.startsWith("package ")) {
        caller = `${up.functionName || "(anonymous)"} — ${upOwner}`;
        break;
      }
    }
    const key = `${frame.functionName || "(anonymous)"} ← ${caller}`;
    byBuiltinCaller.set(key, (byBuiltinCaller.get(key) ?? 0) + sampleUs(profile, i));
  }
  const builtinCallers = [...byBuiltinCaller.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 25)
    .map(([call, us]) => ({ call, usPerRequest: round(us / requests, 1) }));
  const busy = total - idle;
  byOwner.delete("(idle)");
  const rows = [...byOwner.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([owner, us]) => ({ owner, usPerRequest: round(us / requests, 1), shareOfBusy: round((us / busy) * 100, 1) }));
  const functions = [...byFunction.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 25)
    .map(([fn, us]) => ({ function: fn, usPerRequest: round(us / requests, 1) }));
  // The D1 binding's client code runs in this isolate on every query: if it
  // never shows up in thousands of requests, the operation does not touch D1.
  const d1 = rows.filter((r) => r.owner.startsWith("runtime cloudflare-internal:d1")).reduce((sum, r) => sum + r.usPerRequest, 0);
  const { us: bucketUs, other } = bucketize(profile, classify, nodes);
  const buckets = Object.fromEntries(
    BUCKETS.map(({ key }) => {
      const us = bucketUs.get(key) ?? 0;
      return [key, { usPerRequest: round(us / requests, 1), shareOfBusy: round((us / busy) * 100, 1) }];
    }),
  );
  const unbucketed = [...other.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([owner, us]) => ({ owner, usPerRequest: round(us / requests, 1), shareOfBusy: round((us / busy) * 100, 1) }));
  return {
    wallMs: round(total / 1000, 1),
    d1ClientUsPerRequest: round(d1, 1),
    buckets,
    unbucketed,
    busyMs: round(busy / 1000, 1),
    busyShare: round((busy / total) * 100, 1),
    usPerRequest: round(busy / requests, 1),
    rows,
    functions,
    builtinCallers,
  };
}

/** The operations profiled, each at concurrency 32. */
export const PROFILED = ["check-id", "create", "authorize", "pay", "flow"];

/**
 * Profiles a fresh gateway (inspector on, so kept apart from the measured
 * runtime) under PROFILED at concurrency 32.
 */
export async function cpuProfile(built, ops = PROFILED) {
  // No queue consumer here: the events the requests queue are still sent, but
  // their delivery (and its D1 log writes), which production runs in other
  // invocations, stays out of the samples of the request path.
  const worker = { ...workerFromBuild(built.gateway), queueConsumers: {} };
  const rt = await startRuntime({
    key: "profile",
    workers: [worker],
    port: listenPort("profile"),
    inspectorPort: listenPort("inspector"),
  });
  try {
    await applyMigrations(rt, built.gateway);
    const seconds = PLAN.profileSeconds;
    const { connections } = PLAN.throughput;
    // Few enough receipts to prepare within the load's 30 s bound on a slow moment of this machine.
    const { count: payCount, warmup: payWarmup, warmupSeconds } = PLAN.profile;
    // autocannon may build one request past `amount` on each connection.
    const spare = 2 * connections;
    const plain = await createReceipts(rt, gateway, 1003, PLAN.spreadReceipts + payWarmup + payCount + spare);
    const verify = await createReceipts(rt, gateway, 1001, payWarmup + payCount + spare);
    let next = PLAN.spreadReceipts;
    let nextVerify = 0;
    const fixtures = {
      spread: plain.slice(0, PLAN.spreadReceipts),
      hot: plain[0],
      pay: { take: () => plain[next++] },
      authorize: { take: () => verify[nextVerify++] },
    };
    const classify = classifier(`${built.gateway.module}.map`);
    const cdp = await inspector(rt.inspectorUrl, `core:user:${built.gateway.name}`);
    const out = {};
    try {
      await cdp.send("Profiler.enable");
      await cdp.send("Profiler.setSamplingInterval", { interval: SAMPLING_US });
      // The flow last: create, authorize and pay (with OTP) as one item, what the CPU-per-flow target is about.
      for (const key of ops) {
        const scenario = SCENARIOS.find((s) => s.key === key);
        const load = scenario.consumes ? { amount: payCount } : { duration: seconds };
        // Warm the code paths before sampling.
        const warm = scenario.consumes ? { amount: payWarmup } : { duration: warmupSeconds };
        await runLoad({ url: rt.url, connections, ...warm, requests: scenario.requests(gateway, fixtures) });
        await cdp.send("Profiler.start");
        const cpuBefore = runtimeCpuMs(rt);
        const result = await runLoad({ url: rt.url, connections, ...load, requests: scenario.requests(gateway, fixtures) });
        const cpuAfter = runtimeCpuMs(rt);
        const { profile } = await cdp.send("Profiler.stop");
        // For a closer look (Chrome DevTools opens it, the bundle's source map beside it): BENCH_PROFILE_DIR=<dir>.
        if (process.env.BENCH_PROFILE_DIR) writeFileSync(`${process.env.BENCH_PROFILE_DIR}/${key}.cpuprofile`, JSON.stringify(profile));
        // Per flow for the flow (three requests), per request otherwise.
        const items = Math.max(scenario.flow ? Math.floor(result.ok / 3) : result.ok, 1);
        out[key] = {
          rps: result.rps,
          requests: result.ok,
          items,
          // workerd's CPU per item while profiled: the isolate's busy time is part of it.
          workerdUsPerItem: cpuBefore === null || cpuAfter === null ? null : round(((cpuAfter - cpuBefore) * 1000) / items, 0),
          ...attribute(profile, classify, items),
        };
      }
    } finally {
      cdp.close();
    }
    return out;
  } finally {
    await rt.stop();
  }
}

// --- CPU of the isolates alone ------------------------------------------------

/**
 * Miniflare's simulators whose CPU a deployment does not bill the Worker:
 * on Cloudflare, D1, the Cache API, Queues, R2, the rate limiter and the
 * request's way in run on Cloudflare's side. Locally each is a Worker of the
 * same workerd (an isolate the inspector lists by this id), so the main
 * table's workerd CPU counts them as the target's.
 */
const SIMULATOR = /^(d1|cache|queues|r2|ratelimit|outbound|email):|^core:entry$|^MINIFLARE_/;

/**
 * How a runtime's CPU divides among its isolates while `load` runs: V8's
 * sampling profiler on every isolate workerd lists (the target's, the
 * sandbox's, Miniflare's simulators'). `own` names the target's own
 * isolates (inspector ids); with `classify`, the samples under src/sandbox/
 * frames of an own isolate (src/dev.ts serves the sandbox from the
 * gateway's isolate) count as the sandbox's, not the target's.
 *
 * workerd runs every isolate on one thread, and V8 samples an isolate only
 * while the thread has entered it; so an isolate's samples count its time,
 * and each sample weighs one interval. Not a sample's time delta: the delta
 * after a gap spent in other isolates covers the whole gap (summed that way,
 * the simulators came to ten times the process's CPU). Under load the
 * sampler misses ticks, so the samples undercount every isolate alike: what
 * they give is each isolate's share. `shares` are of all isolates' samples;
 * workerd's work outside every isolate (its event loop, sockets, HTTP) is
 * in no share, and the caller spreads it by them.
 */
export async function isolateShares(runtime, { own, classify = null, interval = 500 }, load) {
  const base = runtime.inspectorUrl.replace(/^ws/, "http").replace(/\/$/, "");
  const targets = await (await fetch(`${base}/json/list`)).json();
  const sessions = [];
  try {
    for (const t of targets) sessions.push({ id: t.id, cdp: await inspector(runtime.inspectorUrl, t.id) });
    for (const s of sessions) {
      await s.cdp.send("Profiler.enable");
      await s.cdp.send("Profiler.setSamplingInterval", { interval });
    }
    for (const s of sessions) await s.cdp.send("Profiler.start");
    const result = await load();
    const samples = {};
    let sandbox = 0;
    for (const s of sessions) {
      const { profile } = await s.cdp.send("Profiler.stop");
      const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
      const parent = new Map();
      for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
      let n = 0;
      for (const id of profile.samples) {
        const name = nodes.get(id).callFrame.functionName;
        if (name === "(idle)" || name === "(root)") continue;
        n++;
        if (classify && own.includes(s.id)) {
          for (let at = id; at !== undefined; at = parent.get(at)) {
            if (classify(nodes.get(at).callFrame).startsWith("sandbox ")) {
              sandbox++;
              break;
            }
          }
        }
      }
      samples[s.id] = n;
    }
    const all = Object.values(samples).reduce((a, b) => a + b, 0);
    const sum = (pick) => Object.entries(samples).reduce((total, [id, n]) => total + (pick(id) ? n : 0), 0);
    const share = (n) => (all ? n / all : null);
    return {
      result,
      samples: all,
      shares: {
        own: share(sum((id) => own.includes(id)) - sandbox),
        sandbox: share(sandbox + sum((id) => !own.includes(id) && !SIMULATOR.test(id))),
        simulators: share(sum((id) => SIMULATOR.test(id))),
      },
      isolates: Object.fromEntries(Object.entries(samples).map(([id, n]) => [id, share(n)])),
    };
  } finally {
    for (const s of sessions) s.cdp.close();
  }
}

/** The gateway's bundle classifier (which samples are the sandbox's), for isolateCpu. */
export const sandboxClassifier = (build) => classifier(`${build.module}.map`);

// --- what a piece of the bundle costs ---------------------------------------

/**
 * The gateway as built against the same bundle with one piece of it patched
 * out (in bench/.build only; src/ is never touched), side by side in
 * alternating rounds at concurrency 32: workerd CPU per request and req/s.
 * `consumes`: each request spends a fresh receipt (pay), so rounds count
 * requests instead of running for a time. Skipped (with the reason) when the
 * patch no longer matches exactly one place of the bundle.
 */
async function bundleWhatIf(built, { name, find, replace, label, scenario, consumes }) {
  const source = readFileSync(built.gateway.module, "utf8");
  const matches = source.match(new RegExp(find.source, `${find.flags.replace("g", "")}g`)) ?? [];
  if (matches.length !== 1) return { skipped: `the bundle does not contain exactly one match of ${find}` };
  const patched = built.gateway.module.replace(/\.js$/, `.${name}.js`);
  writeFileSync(patched, source.replace(find, replace));

  const variants = [
    { key: "asBuilt", label: "as built", module: built.gateway.module, port: listenPort("profile") },
    { key: "patched", label, module: patched, port: listenPort("coldStart") },
  ];
  // Each round also times `latencyPerRound` requests one at a time: what the piece adds to a caller's wait.
  const { rounds, seconds, perRound, latencyPerRound } = PLAN.whatIf;
  const { connections, warmupSeconds } = PLAN.throughput;
  // The warm-up's receipts, and one request past `amount` that autocannon may build on each connection.
  const spare = 2 * connections;
  const receipts = consumes ? spare + (rounds + 1) * (perRound + latencyPerRound) + spare : PLAN.spreadReceipts;
  try {
    for (const v of variants) {
      // No queue consumer, as in the profile: event delivery would land in either variant's time by chance.
      const worker = { ...workerFromBuild({ ...built.gateway, module: v.module }), queueConsumers: {} };
      v.rt = await startRuntime({ key: `${name}-${v.key}`, workers: [worker], port: v.port });
      await applyMigrations(v.rt, built.gateway);
      const ids = await createReceipts(v.rt, gateway, 1003, receipts);
      let next = 0;
      const fixtures = { spread: ids, pay: { take: () => ids[next++] } };
      v.requests = () => SCENARIOS.find((s) => s.key === scenario).requests(gateway, fixtures);
      v.load = consumes ? { amount: perRound } : { duration: seconds };
      await runLoad({ url: v.rt.url, connections, ...(consumes ? { amount: spare } : { duration: warmupSeconds }), requests: v.requests() });
      v.cpuMs = 0;
      v.ok = 0;
      v.seconds = 0;
      v.samples = [];
    }
    for (let r = 0; r < rounds; r++) {
      for (const v of r % 2 ? [...variants].reverse() : variants) {
        const before = runtimeCpuMs(v.rt);
        const res = await runLoad({ url: v.rt.url, connections, ...v.load, requests: v.requests() });
        v.cpuMs += runtimeCpuMs(v.rt) - before;
        v.ok += res.ok;
        v.seconds += res.seconds;
        const one = await runLoad({ url: v.rt.url, connections: 1, amount: latencyPerRound, requests: v.requests() });
        v.samples.push(...one.samples);
      }
    }
  } finally {
    for (const v of variants) await v.rt?.stop();
  }
  const out = { scenario };
  for (const v of variants) {
    const p50 = summarizeLatency(v.samples.sort((a, b) => a - b)).p50;
    out[v.key] = {
      label: v.label,
      rps: round(v.ok / v.seconds, 1),
      cpuUsPerRequest: round((v.cpuMs * 1000) / v.ok, 0),
      p50Ms: p50,
      logLines: v.rt.logs.lines,
    };
  }
  out.savedP50Ms = out.asBuilt.p50Ms != null && out.patched.p50Ms != null ? round(out.asBuilt.p50Ms - out.patched.p50Ms, 3) : null;
  out.savedUsPerRequest = out.asBuilt.cpuUsPerRequest - out.patched.cpuUsPerRequest;
  out.savedShare = round((out.savedUsPerRequest / out.asBuilt.cpuUsPerRequest) * 100, 1);
  return out;
}

/** The one console call of src/shared/log.ts's log() for info lines, as esbuild prints it: what the profile blames for much of check-id. */
export const logWhatIf = (built) =>
  bundleWhatIf(built, {
    name: "nolog",
    find: /else console\.log\(line\);/,
    replace: "else void line;",
    label: "without the console.log",
    scenario: "check-id",
  });

/**
 * What the write-ahead note (rule 8) costs a pay: the record's
 * WriteAhead.note (src/record/write-ahead.ts) as built (note the call, set
 * the alarm, flush: the move then calls) against one that notes nothing.
 */
export const writeAheadWhatIf = (built) =>
  bundleWhatIf(built, {
    name: "nowriteahead",
    find: /(async note\([^)]*\) \{\n)[\s\S]*?\n\s*await this\.#storage\.sync\(\);\n(\s*\})/,
    replace: "$1$2",
    label: "without the write-ahead",
    scenario: "pay",
    consumes: true,
  });

/** Condenses the ladder and the profile into a few lines for the console and latest.md. */
export function summarize(ladder, cpu, logCost, measurements, writeAhead) {
  const lines = [
    "**Where the gateway's time goes** (bench/lib/profile.mjs):",
    "",
    "| rung (concurrency 1) | what it adds | p50 ms |",
    "|---|---|---:|",
  ];
  for (const r of ladder) lines.push(`| ${r.label} | ${r.what} | ${r.p50 ?? "–"} |`);
  const payGw = measurements.pay?.gateway?.latency?.latency.p50;
  const payBare = measurements.pay?.bareProxy?.latency?.latency.p50;
  lines.push(
    `| pay (200), from the table | the receipt's Durable Object not in memory: it is started, reads its row, then pays | ${payGw ?? "–"} (bare proxy ${payBare ?? "–"}) |`,
  );
  const createGw = measurements.create?.gateway?.latency?.latency.p50;
  const createBare = measurements.create?.bareProxy?.latency?.latency.p50;
  lines.push(
    `| create (200), from the table | + upstream create, a new Durable Object (schema + insert + audit), D1 claim and completion | ${createGw ?? "–"} (bare proxy ${createBare ?? "–"}) |`,
  );
  if (logCost?.asBuilt) {
    const a = logCost.asBuilt;
    const b = logCost.patched ?? logCost.noConsoleLog;
    // The profiler's inspector makes console calls dear; the A/B runs without it.
    // The log line is log.ts's JSON.stringify and console call and redact.ts's pass over its fields.
    const shares = (cpu?.["check-id"]?.rows ?? []).filter(
      (r) => r.owner === "gateway src/shared/log.ts" || r.owner === "gateway src/shared/redact.ts",
    );
    const profiled =
      shares.length > 0
        ? round(
            shares.reduce((sum, r) => sum + r.shareOfBusy, 0),
            1,
          )
        : undefined;
    const overstated = profiled !== undefined && logCost.savedShare < profiled / 2;
    lines.push(
      "",
      `The gateway's one log line per upstream call: check-id at c=32 uses ${a.cpuUsPerRequest} µs of workerd CPU per request as built and ${b.cpuUsPerRequest} µs with that console.log removed from the bundle (${logCost.savedShare}% saved; ${a.rps} → ${b.rps} req/s).` +
        (overstated
          ? ` The CPU profile below gives log.ts and redact.ts (the log line) ${profiled}% of check-id: most of that is the attached inspector's, which makes console calls expensive; this A/B runs without it.`
          : ""),
    );
  } else if (logCost?.skipped) {
    lines.push("", `(Log line A/B skipped: ${logCost.skipped}.)`);
  }
  if (writeAhead?.asBuilt) {
    const a = writeAhead.asBuilt;
    const b = writeAhead.patched;
    lines.push(
      "",
      `The write-ahead note (rule 8: the pay noted, the alarm set and both flushed before the call leaves): pay at c=32, each on a fresh receipt, uses ${a.cpuUsPerRequest} µs of workerd CPU per request as built and ${b.cpuUsPerRequest} µs with the note patched out of the bundle (${writeAhead.savedShare}% of a pay; ${a.rps} → ${b.rps} req/s).` +
        (a.p50Ms != null
          ? ` One at a time, a pay's p50 is ${a.p50Ms} ms as built and ${b.p50Ms} ms without the note (${writeAhead.savedP50Ms} ms).`
          : ""),
    );
  } else if (writeAhead?.skipped) {
    lines.push("", `(Write-ahead A/B skipped: ${writeAhead.skipped}.)`);
  }
  if (cpu) {
    lines.push(
      "",
      "CPU profile of the gateway's isolate (gateway, its Durable Objects and, in the same script, the sandbox) at concurrency 32. The profiler slows the isolate down, so read the shares, not the absolute time.",
      "",
      "| operation | isolate busy | sandbox's share | largest shares of the isolate's busy time |",
      "|---|---:|---:|---|",
    );
    for (const [op, p] of Object.entries(cpu)) {
      const sandbox = p.rows.find((r) => r.owner.startsWith("sandbox"))?.shareOfBusy ?? 0;
      const top = p.rows
        .filter((r) => !r.owner.startsWith("sandbox"))
        .slice(0, 7)
        .map((r) => `${r.owner} ${r.shareOfBusy}%`)
        .join(", ");
      lines.push(`| ${op} | ${p.busyShare}% | ${sandbox}% | ${top} |`);
    }
    lines.push(...bucketTable(cpu, measurements));
  }
  return lines.join("\n");
}

/**
 * The CPU table: where each operation's CPU goes, by bucket (BUCKETS),
 * next to its CPU in the main table (gateway against bare proxy, c=32).
 */
function bucketTable(cpu, measurements) {
  const ops = Object.keys(cpu).filter((op) => cpu[op].buckets);
  if (ops.length === 0) return [];
  const cpuOf = (op, target) => measurements?.[op]?.[target]?.throughput?.cpu?.runtimeMsPer ?? null;
  const lines = [
    "",
    "Where each operation's CPU goes: the same profiles, each sample given to the nearest gateway file or package on its stack (a builtin such as JSON.parse, sql.exec or crypto counts for its caller), as a share of the isolate's busy time. The first columns are the main table's workerd CPU per request (per flow for the flow) at c=32, unprofiled.",
    "",
    `| operation | gateway CPU ms | bare proxy CPU ms | ratio | ${BUCKETS.map((b) => b.label).join(" | ")} |`,
    `|---|---:|---:|---:|${BUCKETS.map(() => "---:").join("|")}|`,
  ];
  for (const op of ops) {
    const g = cpuOf(op, "gateway");
    const b = cpuOf(op, "bareProxy");
    const ratio = g != null && b ? `${(g / b).toFixed(2)}×` : "–";
    const cells = BUCKETS.map(({ key }) => `${cpu[op].buckets[key]?.shareOfBusy ?? 0}%`);
    lines.push(`| ${op === "flow" ? "create-authorize-pay (per flow)" : op} | ${g ?? "–"} | ${b ?? "–"} | ${ratio} | ${cells.join(" | ")} |`);
  }
  lines.push("", ...BUCKETS.map((b) => `- **${b.label}**: ${b.what}.`));
  const unbucketed = ops.flatMap((op) => (cpu[op].unbucketed ?? []).map((r) => `${r.owner.replace(/^gateway /, "")} (${op}: ${r.shareOfBusy}%)`));
  if (unbucketed.length) lines.push("", `The ${BUCKETS.find((b) => b.key === OTHER).label} of this run: ${unbucketed.join(", ")}.`);
  return lines;
}

/** Each of `parts` run after the one before it has ended; their results in order. */
async function inSequence(parts) {
  const out = [];
  for (const part of parts) out.push(await part());
  return out;
}

export async function profileGateway(built, runtimes, fixtures, measurements) {
  // The quick run's numbers mean nothing, so its parts (each on a runtime of its own, the ladder on the run's) overlap:
  // what it checks is that each still runs. A full run measures one at a time, so none takes CPU from another.
  const parts = [() => costLadder(built, runtimes, fixtures), () => logWhatIf(built), () => writeAheadWhatIf(built), () => cpuProfile(built)];
  const [ladder, logCost, writeAhead, cpu] = PLAN.quick ? await Promise.all(parts.map((part) => part())) : await inSequence(parts);
  return { ladder, logCost, writeAhead, cpu, summary: summarize(ladder, cpu, logCost, measurements, writeAhead) };
}
