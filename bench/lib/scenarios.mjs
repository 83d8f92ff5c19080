/**
 * What is measured: the targets, the operations, the receipts each operation
 * needs, and the autocannon request definitions that drive them. Every target
 * gets byte-for-byte the same bodies on the same paths; only the credential
 * differs (the sandbox wants the upstream key, the proxies the partner's).
 */
import { availableParallelism, loadavg } from "node:os";
import { SignJWT } from "jose";
import { DEV_VARS, GATEWAY_HEADERS, PLAN, SANDBOX_HEADERS } from "./config.mjs";
import { request, round, runLoad, summarize } from "./load.mjs";
import { cpuCounters, runtimeCpuMs, stealPercent } from "./runtime.mjs";

export const API = "/api/v1/partner";

export const TARGETS = [
  { key: "direct", label: "sandbox direct", headers: SANDBOX_HEADERS },
  { key: "bareProxy", label: "bare proxy", headers: GATEWAY_HEADERS },
  { key: "gateway", label: "gateway", headers: GATEWAY_HEADERS },
];

// The sandbox's fixed values (docs/reference.md, "The sandbox"): 1001 needs an OTP, 1003 does not.
const VERIFY_MERCHANT = 1001;
const PLAIN_MERCHANT = 1003;
const AMOUNT = 150_000;
const CARD = { token: "tok_sandbox_ok" };
const OTP_OK = "111111";
const ACCOUNT = [{ key: "phone", value: "998901234567" }];

/** A sandbox card number that approves, with an expiry two years ahead (rule: not in the past). */
const ANONYMOUS_CARD = { number: "8600000000000007", expire: `${String((new Date().getUTCFullYear() + 2) % 100).padStart(2, "0")}12` };

const RUN = Date.now().toString(36);
let tidSeq = 0;
/** Unique per request and per run; fits the gateway's tid rule (1-64 of [A-Za-z0-9._:-]). */
const nextTid = (target) => `b${RUN}-${target}-${++tidSeq}`;

const createBody = (target, merchant) => JSON.stringify({ tid: nextTid(target), amount: AMOUNT, merchant_id: merchant, account: ACCOUNT });

function post(target, op, body) {
  return { method: "POST", path: `${API}/${op}`, headers: target.headers, ...(body ? { body } : {}) };
}

/** A request whose body is built when it is sent (autocannon calls setupRequest per request). */
function dynamic(target, op, makeBody, onResponse) {
  return {
    ...post(target, op),
    setupRequest: (req, context) => {
      const body = makeBody(context);
      return body === null ? null : { ...req, body };
    },
    ...(onResponse ? { onResponse } : {}),
  };
}

/** A list of receipt ids handed out one per request; running dry is a sizing bug. */
function pool(ids, name) {
  let next = 0;
  return {
    take() {
      if (next >= ids.length) throw new Error(`receipt pool "${name}" ran dry after ${ids.length}`);
      return ids[next++];
    },
    get left() {
      return ids.length - next;
    },
    /** The ids not handed out yet, in the order they will be. */
    remaining() {
      return ids.slice(next);
    },
  };
}

/** Receipts one consuming operation needs: every warm-up and timed request gets a fresh one. */
export function consumingPoolSize() {
  const { latency, latency40, latencyPlatform, throughput } = PLAN;
  // autocannon may build one request past `amount` on each connection.
  return (
    latency.warmup +
    latency.amount +
    latency40.warmup +
    latency40.amount +
    latencyPlatform.warmup +
    latencyPlatform.amount +
    throughput.warmupAmount +
    throughput.amount +
    2 * throughput.connections +
    3
  );
}

/**
 * Creates `count` receipts through `target` (so the gateway's Durable Objects
 * and tid index know them) and returns their ids. Not timed.
 */
export async function createReceipts(runtime, target, merchant, count) {
  const ids = [];
  const counters = cpuCounters();
  const result = await runLoad({
    url: runtime.url,
    connections: Math.min(16, count),
    amount: count,
    // Not timed: a busy machine may take long (2,926 of 3,084 gateway creates in 180 s at a load
    // average of 20 on 2 cores), so only a target that stops answering stops it.
    hardStopSeconds: null,
    stallSeconds: 30,
    requests: [
      dynamic(
        target,
        "receipt/create",
        () => createBody(target.key, merchant),
        (status, body) => {
          if (status === 200) ids.push(JSON.parse(body).id);
        },
      ),
    ],
  });
  if (ids.length < count) {
    throw new Error(
      `${target.key}: created ${ids.length} of ${count} receipts in ${result.seconds} s (statuses ${JSON.stringify(result.statuses)}, ${result.errors} without an answer; the run stops after 30 s with none). ` +
        `The host took ${stealPercent(counters) ?? "?"}% of this machine's CPU meanwhile (steal); the load average is ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores.`,
    );
  }
  return ids;
}

/** A development JWT for `user` (HS256 with the JWT_SECRET the gateway verifies with, as `npm run token` makes). */
function userToken(user) {
  return new SignJWT({})
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(user)
    .setIssuedAt()
    .setExpirationTime("6h")
    .sign(new TextEncoder().encode(DEV_VARS.JWT_SECRET ?? ""));
}

/**
 * Receipts a mobile app pays by card number: on the gateway each one is
 * created by a user of its own, who then calls anonymous/authorize (the
 * sandbox's OTP is right only once sent), so the timed anonymous/pay is a
 * user's call with the card-testing counters of rule 13 on its path. The
 * sandbox and the bare proxy get the same bodies with their usual key. Not
 * timed. Returns `{id, headers}` per receipt.
 */
export async function createAuthorizedByUsers(runtime, target, count) {
  const out = [];
  let next = 0;
  const post = async (op, headers, body) => {
    const res = await request(`the anonymous-pay fixtures, ${op} on the ${target.label}`, `${runtime.url}${API}/${op}`, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${target.key} ${op} for anonymous-pay fixtures: ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
  const worker = async () => {
    while (next < count) {
      const n = next++;
      const headers =
        target.key === "gateway"
          ? { "content-type": "application/json", authorization: `Bearer ${await userToken(`bench-${RUN}-${n}`)}` }
          : target.headers;
      const receipt = await post("receipt/create", headers, {
        tid: nextTid(target.key),
        amount: AMOUNT,
        merchant_id: PLAIN_MERCHANT,
        account: ACCOUNT,
      });
      await post("receipt/anonymous/authorize", headers, { id: receipt.id, card: ANONYMOUS_CARD });
      out.push({ id: receipt.id, headers });
    }
  };
  await Promise.all(Array.from({ length: Math.min(16, count) }, worker));
  return out;
}

/** The receipts each operation spends or reads (prepareFixtures' groups); an operation not named needs none. */
const NEEDS = {
  authorize: ["verify"],
  pay: ["plain"],
  "pay-warm": ["payWarm"],
  "anonymous-pay": ["anonymous"],
  "check-id": ["plain"],
  "check-id-hot": ["plain"],
};

/**
 * Everything the timed runs will use, prepared before any of them; with
 * `only` (scenario keys), just what those operations need.
 */
export async function prepareFixtures(runtime, target, only = null) {
  const started = performance.now();
  const perOp = consumingPoolSize();
  const needed = (group) => !only || only.some((key) => NEEDS[key]?.includes(group));
  const verify = needed("verify") ? await createReceipts(runtime, target, VERIFY_MERCHANT, perOp) : [];
  const plain = needed("plain") ? await createReceipts(runtime, target, PLAIN_MERCHANT, perOp + PLAN.spreadReceipts + 1) : [];
  const payWarm = needed("payWarm") ? await createReceipts(runtime, target, PLAIN_MERCHANT, perOp) : [];
  const anonymous = needed("anonymous") ? await createAuthorizedByUsers(runtime, target, perOp) : [];
  return {
    anonymousPay: pool(anonymous, "anonymous-pay"),
    authorize: pool(verify, "authorize"),
    pay: pool(plain.slice(0, perOp), "pay"),
    payWarm: pool(payWarm, "pay-warm"),
    spread: plain.slice(perOp, perOp + PLAN.spreadReceipts),
    hot: plain[plain.length - 1],
    created: verify.length + plain.length + payWarm.length + anonymous.length,
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * The operations. `requests(target, fixtures)` gives autocannon's request
 * list; `consumes` marks the ones that spend a receipt per request and so run
 * a counted number of requests at concurrency 32 instead of a fixed time.
 */
export const SCENARIOS = [
  {
    key: "create",
    label: "create",
    note: "receipt/create, merchant 1003, a new tid (and a new Durable Object) per request",
    requests: (t) => [dynamic(t, "receipt/create", () => createBody(t.key, PLAIN_MERCHANT))],
  },
  {
    key: "authorize",
    label: "authorize",
    note: "receipt/authorize with tok_sandbox_ok on a fresh merchant-1001 receipt per request, its Durable Object not in memory",
    consumes: true,
    requests: (t, f) => [dynamic(t, "receipt/authorize", () => JSON.stringify({ id: f.authorize.take(), card: CARD }))],
  },
  {
    key: "pay",
    label: "pay",
    note: "receipt/pay with tok_sandbox_ok, no OTP, on a fresh unpaid merchant-1003 receipt per request, its Durable Object not in memory",
    consumes: true,
    requests: (t, f) => [dynamic(t, "receipt/pay", () => JSON.stringify({ id: f.pay.take(), card: CARD }))],
  },
  {
    key: "pay-warm",
    label: "pay, warm object",
    note: "receipt/pay as above, but each receipt's Durable Object was just used (a check-id on every receipt of the pool right before the warm-up), as when a payer pays moments after create or authorize",
    consumes: true,
    touches: (f) => f.payWarm.remaining(),
    requests: (t, f) => [dynamic(t, "receipt/pay", () => JSON.stringify({ id: f.payWarm.take(), card: CARD }))],
  },
  {
    key: "anonymous-pay",
    label: "anonymous pay",
    note: "receipt/anonymous/pay by card number with OTP 111111, on the gateway as a user (one per receipt, who created and authorized it), on a fresh merchant-1003 receipt per request, its Durable Object not in memory",
    consumes: true,
    requests: (t, f) => [
      {
        ...post(t, "receipt/anonymous/pay"),
        setupRequest: (req) => {
          const { id, headers } = f.anonymousPay.take();
          // A copy: autocannon writes the body's Content-Length into the headers object it gets here.
          return { ...req, headers: { ...headers }, body: JSON.stringify({ id, card: ANONYMOUS_CARD, otp: OTP_OK }) };
        },
      },
    ],
  },
  {
    key: "check-id",
    label: "check-id, spread",
    note: `receipt/check-id round-robin over ${PLAN.spreadReceipts} receipts, their Durable Objects warm`,
    warmsPool: true,
    requests: (t, f) => {
      let i = 0;
      return [dynamic(t, "receipt/check-id", () => JSON.stringify({ id: f.spread[i++ % f.spread.length] }))];
    },
  },
  {
    key: "check-id-hot",
    label: "check-id, hot",
    note: "receipt/check-id, every request on the same receipt (one warm Durable Object)",
    requests: (t, f) => [post(t, "receipt/check-id", JSON.stringify({ id: f.hot }))],
  },
  {
    key: "flow",
    label: "create-authorize-pay",
    note: "one flow = create (merchant 1001) + authorize + pay with OTP 111111 on one connection; latency is the flow's, throughput in flows/s",
    flow: true,
    requests: (t) => [
      dynamic(
        t,
        "receipt/create",
        () => createBody(t.key, VERIFY_MERCHANT),
        (status, body, context) => {
          context.id = status === 200 ? JSON.parse(body).id : null;
        },
      ),
      // A step whose predecessor failed returns null: autocannon starts the flow over.
      dynamic(
        t,
        "receipt/authorize",
        (context) => (context.id ? JSON.stringify({ id: context.id, card: CARD }) : null),
        (status, _body, context) => {
          context.authorized = status === 200;
        },
      ),
      dynamic(t, "receipt/pay", (context) => (context.authorized ? JSON.stringify({ id: context.id, card: CARD, otp: OTP_OK }) : null)),
    ],
  },
];

/**
 * Adds up a flow's three request latencies per connection. A failed step
 * abandons the flow (autocannon restarts it with a create), so it does too.
 */
function flowTracker() {
  const perClient = new Map();
  const flows = [];
  let failed = 0;
  return {
    flows,
    get failed() {
      return failed;
    },
    onEach(client, status, ms) {
      let acc = perClient.get(client) ?? { sum: 0, steps: 0 };
      if (status !== 200) {
        failed++;
        acc = { sum: 0, steps: 0 };
      } else {
        acc.sum += ms;
        acc.steps++;
        if (acc.steps === 3) {
          flows.push(acc.sum);
          acc = { sum: 0, steps: 0 };
        }
      }
      perClient.set(client, acc);
    },
  };
}

/**
 * How much one measurement runs: "latency" at concurrency 1 counts requests
 * (flows for the flow), "throughput" at 32 runs for a time, or counts
 * requests when each one spends a receipt.
 */
function sizes(scenario, mode) {
  const spec = PLAN[mode];
  if (mode === "latency" || mode === "latency40" || mode === "latencyPlatform") {
    const perItem = scenario.flow ? 3 : 1;
    return {
      // check-id, spread: the warm-up visits every receipt once, so the timed
      // runs meet warm objects (authorize and pay are the cold-object cases).
      warm: { amount: Math.max(spec.warmup, scenario.warmsPool ? PLAN.spreadReceipts : 0) * perItem },
      timed: { amount: (scenario.flow ? spec.flows : spec.amount) * perItem },
    };
  }
  if (scenario.consumes) return { warm: { amount: spec.warmupAmount }, timed: { amount: spec.amount } };
  // Counted, not timed: a timed slice drops the flows in flight at its end, all of them when a flow takes as long as the slice.
  if (scenario.flow) return { warm: { amount: 3 * 2 * spec.connections }, timed: { amount: 3 * spec.flows } };
  return { warm: { duration: spec.warmupSeconds }, timed: { duration: spec.seconds } };
}

/**
 * A load the runtime did not live through is no measurement: fails if
 * Miniflare had to start its workerd again meanwhile (`crashesBefore`: the
 * count before the load), or if nothing at all was answered.
 */
function assertAnswered(run, runtime, crashesBefore, what) {
  const crashes = (runtime.logs.crashes ?? 0) - crashesBefore;
  if (crashes > 0)
    throw new Error(`${what}: the ${runtime.key} runtime's workerd crashed during the load (Miniflare restarted it ${crashes} time(s))`);
  if (run.ok === 0 && run.errors > 0) {
    throw new Error(`${what}: none of ${run.errors} requests got an answer from the ${runtime.key} runtime at ${runtime.url} (connection errors)`);
  }
}

/** The discarded run before a target's timed rounds. */
export async function warmUp(scenario, target, runtime, fixtures, mode) {
  const crashesBefore = runtime.logs.crashes ?? 0;
  const { warm } = sizes(scenario, mode);
  if (scenario.touches) {
    // Bring every receipt the run may spend into memory (check-id reaches its object), untimed.
    const ids = scenario.touches(fixtures);
    let i = 0;
    await runLoad({
      url: runtime.url,
      // autocannon refuses more connections than requests, which a small pool (--quick's) left at the end is.
      connections: Math.min(16, ids.length),
      amount: ids.length,
      requests: [dynamic(target, "receipt/check-id", () => JSON.stringify({ id: ids[i++ % ids.length] }))],
    });
  }
  // With the upstream far away, the warm-up that visits every pooled receipt runs at 16 at once.
  const connections = (mode === "latency40" || mode === "latencyPlatform") && scenario.warmsPool ? Math.min(16, warm.amount) : PLAN[mode].connections;
  const run = await runLoad({ url: runtime.url, connections, ...warm, requests: scenario.requests(target, fixtures) });
  assertAnswered(run, runtime, crashesBefore, `${scenario.label} (${mode}), the warm-up on the ${target.label}`);
}

/**
 * One of PLAN.rounds timed slices of a measurement: 1/rounds of its requests
 * or of its time. run.mjs interleaves the slices of the three targets, so a
 * slow moment of the machine is shared out instead of landing on one target.
 */
export async function timedRound(scenario, target, runtime, fixtures, mode) {
  const { timed } = sizes(scenario, mode);
  const share = timed.amount
    ? { amount: Math.max(PLAN[mode].connections, Math.round(timed.amount / PLAN.rounds)) }
    : { duration: timed.duration / PLAN.rounds };
  const tracker = scenario.flow ? flowTracker() : null;
  const crashesBefore = runtime.logs.crashes ?? 0;
  const cpuBefore = runtimeCpuMs(runtime);
  const loadgenBefore = process.cpuUsage();
  const countersBefore = cpuCounters();
  const run = await runLoad({
    url: runtime.url,
    connections: PLAN[mode].connections,
    ...share,
    requests: scenario.requests(target, fixtures),
    ...(tracker ? { onEach: tracker.onEach } : {}),
  });
  const cpuAfter = runtimeCpuMs(runtime);
  const loadgen = process.cpuUsage(loadgenBefore);
  assertAnswered(run, runtime, crashesBefore, `${scenario.label} (${mode}) on the ${target.label}`);
  return {
    run,
    samples: tracker ? tracker.flows : run.samples,
    items: tracker ? tracker.flows.length : run.ok,
    failedFlows: tracker?.failed ?? 0,
    runtimeCpuMs: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
    loadgenCpuMs: (loadgen.user + loadgen.system) / 1000,
    stealPercent: stealPercent(countersBefore),
  };
}

/** Pools a measurement's rounds into one result. */
export function combineRounds(scenario, rounds) {
  const seconds = rounds.reduce((sum, r) => sum + r.run.seconds, 0);
  // A flow's throughput and CPU count its answered steps, three to a flow: the flows a round's end cuts off did their work too.
  const items = scenario.flow ? rounds.reduce((sum, r) => sum + r.run.ok, 0) / 3 : rounds.reduce((sum, r) => sum + r.items, 0);
  const samples = rounds.flatMap((r) => r.samples).sort((a, b) => a - b);
  const statuses = {};
  for (const r of rounds) for (const [code, n] of Object.entries(r.run.statuses)) statuses[code] = (statuses[code] ?? 0) + n;
  const sum = (key) => rounds.reduce((total, r) => total + r.run[key], 0);
  const cpu = rounds.every((r) => r.runtimeCpuMs !== null) ? rounds.reduce((total, r) => total + r.runtimeCpuMs, 0) : null;
  const loadgen = rounds.reduce((total, r) => total + r.loadgenCpuMs, 0);
  return {
    rounds: rounds.length,
    connections: rounds[0].run.connections,
    requests: sum("requests"),
    ok: sum("ok"),
    non2xx: sum("non2xx"),
    errors: sum("errors"),
    timeouts: sum("timeouts"),
    statuses,
    seconds: round(seconds, 3),
    // Per flow for the flow (requests/s beside it), per request otherwise.
    rps: round(items / seconds, 1),
    ...(scenario.flow
      ? {
          flows: rounds.reduce((sum, r) => sum + r.items, 0),
          failedFlows: rounds.reduce((t, r) => t + r.failedFlows, 0),
          requestRps: round(sum("ok") / seconds, 1),
        }
      : {}),
    latency: summarize(samples),
    // Each slice on its own: a slice the host slowed down (its steal) shows here.
    slices: rounds.map((r) => ({ p50: r.run.latency.p50, p99: r.run.latency.p99, n: r.items, stealPercent: r.stealPercent })),
    // CPU the runtime (workerd: worker, Durable Objects, D1, sandbox) spent
    // per answer, and how many cores it kept busy; the load generator beside it.
    cpu:
      cpu === null || items === 0
        ? null
        : {
            runtimeMsPer: round(cpu / items, 3),
            runtimeCores: round(cpu / 1000 / seconds, 2),
            loadgenCores: round(loadgen / 1000 / seconds, 2),
          },
  };
}
