/**
 * What a user waits for on the platform, counted: per operation,
 * the D1 round trips, the Durable Objects' storage commits and the Durable
 * Object hops that happen in sequence before the answer, and what the
 * operation sets off after it.
 *
 * The traced gateway (bench/workers/traced-gateway.ts: the gateway's own
 * code, its bindings wrapped) records every such step of a request that
 * carries `x-bench-trace`, with sequence numbers for where it started and
 * ended. Here each operation runs a few times, one request at a time, on a
 * runtime whose D1 is PLATFORM_D1_MS away (so a D1 call nobody waits for
 * cannot pass for one the answer waited on), and each trace is classified:
 *
 * - a step of the worker is before the answer if it ended before the worker
 *   returned the response;
 * - a Durable Object call is before the answer if its hop is; a step inside
 *   it is before the answer if the call is and the step ended before the
 *   object returned (a commit: if its first write came before the object
 *   returned, since the object's output gate holds that answer until the
 *   commit is durable);
 * - everything else the request set off is "after the answer".
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { GATEWAY_HEADERS, listenPort, PLAN, PLATFORM_D1_MS } from "./config.mjs";
import { request } from "./load.mjs";
import { applyMigrations, restartRuntime, startRuntime, workerFromBuild } from "./runtime.mjs";
import { API } from "./scenarios.mjs";

/** The operations counted, in the order the report shows them. */
export const COUNTED = [
  { key: "create", label: "create", note: "a new tid, merchant 1003" },
  {
    key: "create-replay",
    label: "create, replayed",
    note: "the same create again, in the data center that answered it (src/tids/tid-cache.ts): the record's object; from another data center the claim batch first, 1 D1 round trip",
  },
  { key: "authorize", label: "authorize", note: "merchant 1001, the object not in memory" },
  { key: "pay", label: "pay", note: "no OTP, merchant 1003, the object not in memory" },
  {
    key: "pay-keyed",
    label: "pay with a key",
    note: "as pay, with an Idempotency-Key never used: rule 11 keeps the key in the note's commit and the answer in the outcome's",
  },
  {
    key: "pay-replay",
    label: "pay, replayed",
    note: "the pay with a key again, same key and body, once what it set off after its answer has landed: answered from the record's own SQLite with Idempotent-Replayed",
  },
  { key: "pay-warm", label: "pay, warm object", note: "as pay, the object just used" },
  { key: "pay-otp", label: "pay with OTP", note: "the flow's pay: right after authorize, OTP 111111" },
  { key: "hold-confirm", label: "hold-confirm", note: "a held receipt (is_hold, paid: state 5), the object not in memory" },
  { key: "cancel", label: "cancel", note: "an unpaid receipt, by the partner, the object not in memory" },
  { key: "check-id", label: "check-id", note: "nothing new upstream" },
  {
    key: "check-tid",
    label: "check-tid",
    note: "in the data center that answered the create (src/tids/tid-cache.ts): the receipt's object; from another data center the tid index first, 1 D1 round trip",
  },
];

const KINDS = ["d1", "commit", "hop", "queue", "upstream", "sync"];
const ACCOUNT = [{ key: "phone", value: "998901234567" }];
const CARD = { token: "tok_sandbox_ok" };

async function send(url, op, body, trace, headers = {}) {
  const res = await request(`counting the round trips, ${op}${trace ? ` (${trace})` : ""} on the traced gateway`, `${url}${API}/${op}`, {
    method: "POST",
    headers: { ...GATEWAY_HEADERS, ...headers, ...(trace ? { "x-bench-trace": trace } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`critical path: ${op}${trace ? ` (${trace})` : ""} answered ${res.status}: ${text.slice(0, 300)}`);
  return { text, replayed: res.headers.get("idempotent-replayed") === "true" };
}

async function call(url, op, body, trace) {
  return JSON.parse((await send(url, op, body, trace)).text);
}

/**
 * A request with an Idempotency-Key (rule 11), and what the gateway said it
 * was: a row counted as a first request must not be a replay, and one
 * counted as a replay must be one, with the first answer's exact bytes;
 * otherwise the counts would describe another path.
 */
async function keyed(url, op, body, trace, key, first) {
  const answer = await send(url, op, body, trace, { "idempotency-key": key });
  if (!first && answer.replayed) throw new Error(`critical path: ${trace} with a fresh Idempotency-Key was answered as a replay`);
  if (first && !answer.replayed) throw new Error(`critical path: ${trace} repeated an Idempotency-Key and body but was not answered as a replay`);
  if (first && answer.text !== first.text) throw new Error(`critical path: ${trace} replayed another answer than the first request got`);
  return answer;
}

const RUN = Date.now().toString(36);
let tidSeq = 0;
const createBody = (merchant, extra = {}) => ({ tid: `crit-${RUN}-${++tidSeq}`, amount: 150_000, merchant_id: merchant, account: ACCOUNT, ...extra });

/**
 * Sorts one trace's steps into before and after the answer (see the header).
 * Returns per kind the count before and after, the D1 round trips in
 * sequence (the longest chain of D1 calls that do not overlap: what stacks
 * up in the answer's time when each is a network round trip), and each
 * step's description.
 */
export function classify(trace) {
  const { events, invocations } = trace;
  const answer = invocations[0]?.returned ?? Infinity;
  const memo = new Map();
  const invocationBefore = (i) => {
    const inv = invocations[i];
    if (!inv || inv.hop < 0) return true;
    return before(inv.hop);
  };
  const before = (index) => {
    if (memo.has(index)) return memo.get(index);
    const e = events[index];
    let result;
    if (e.inv === 0) result = e.end !== null && e.end <= answer;
    else {
      const inv = invocations[e.inv];
      const until = inv?.returned ?? Infinity;
      result = invocationBefore(e.inv) && (e.kind === "commit" ? e.start < until : e.end !== null && e.end <= until);
    }
    memo.set(index, result);
    return result;
  };
  const where = (e) => (e.inv === 0 ? "worker" : `${invocations[e.inv]?.method ?? "?"}()`);
  const out = { before: {}, after: {}, d1Statements: 0, d1Depth: 0, steps: { before: [], after: [] } };
  for (const kind of KINDS) {
    out.before[kind] = 0;
    out.after[kind] = 0;
  }
  const d1Before = [];
  events.forEach((e, i) => {
    const side = before(i) ? "before" : "after";
    out[side][e.kind]++;
    out.steps[side].push(`${e.kind === "commit" ? `commit of ${e.what}` : `${e.kind} ${e.what}`} [${where(e)}]`);
    if (side === "before" && e.kind === "d1") {
      out.d1Statements += e.n;
      d1Before.push(e);
    }
  });
  let lastEnd = -Infinity;
  for (const e of d1Before.sort((a, b) => a.end - b.end)) {
    if (e.start > lastEnd) {
      out.d1Depth++;
      lastEnd = e.end;
    }
  }
  return out;
}

/** The value most traces of an operation agree on (the larger one on a tie), with the range seen. */
function consensus(values) {
  const counts = new Map();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  const [value] = [...counts.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0];
  return { value, min: Math.min(...values), max: Math.max(...values) };
}

function summarizeOp(classified) {
  const pick = (f) => consensus(classified.map(f));
  const fields = {
    d1: pick((c) => c.before.d1),
    d1Depth: pick((c) => c.d1Depth),
    d1Statements: pick((c) => c.d1Statements),
    commits: pick((c) => c.before.commit),
    hops: pick((c) => c.before.hop),
    queue: pick((c) => c.before.queue),
    upstream: pick((c) => c.before.upstream),
    syncs: pick((c) => c.before.sync),
  };
  const after = {
    d1: pick((c) => c.after.d1),
    commits: pick((c) => c.after.commit),
    hops: pick((c) => c.after.hop),
    queue: pick((c) => c.after.queue),
    upstream: pick((c) => c.after.upstream),
  };
  const value = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v.value]));
  const varied = [...Object.entries(fields), ...Object.entries(after).map(([k, v]) => [`after.${k}`, v])]
    .filter(([, v]) => v.min !== v.max)
    .map(([k, v]) => `${k} ${v.min}–${v.max}`);
  // The steps of a trace that agrees with the consensus on every count, else of the first.
  const typical =
    classified.find((c) => c.before.d1 === fields.d1.value && c.before.commit === fields.commits.value && c.before.hop === fields.hops.value) ??
    classified[0];
  return { critical: value(fields), after: value(after), traces: classified.length, varied, steps: typical.steps };
}

/**
 * The commits SQLite itself made in each receipt object's database: the
 * commit frames of its write-ahead log (a frame whose "database size after
 * commit" is not 0, with the log's current salts). Miniflare keeps an
 * object's database in `<state>/do/<script>-ReceiptObject/<object id>.sqlite`.
 * A log that was checkpointed and restarted has new salts: its count starts
 * again from 0, and the comparison below leaves that object out.
 */
function walCommits(persist, script) {
  const dir = join(persist, "do", `${script}-ReceiptObject`);
  const out = new Map();
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const match = /^([0-9a-f]{64})\.sqlite-wal$/.exec(name);
    if (!match) continue;
    const wal = readFileSync(join(dir, name));
    if (wal.length < 32) {
      out.set(match[1], { salt: null, commits: 0 });
      continue;
    }
    const pageSize = wal.readUInt32BE(8);
    const salt = `${wal.readUInt32BE(16)}:${wal.readUInt32BE(20)}`;
    let commits = 0;
    for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
      if (`${wal.readUInt32BE(at + 8)}:${wal.readUInt32BE(at + 12)}` !== salt) break;
      if (wal.readUInt32BE(at + 4) !== 0) commits++;
    }
    out.set(match[1], { salt, commits });
  }
  return out;
}

/**
 * The check on the commit count: per record object, the commits counted
 * over the same time as its SQLite log, the operations' (their traces,
 * before and after the answer) and those of every other invocation of the
 * object (`untraced`: the traced gateway's /__bench/commits, by the method
 * that made them; "alarm" for the platform's alarms), against the commit
 * frames its log gained. The objects checked: those the operations
 * touched, and any other whose log or count moved meanwhile (an alarm
 * set before the window, say), so that a commit nobody counted shows.
 */
export function compareWithWal(traces, untraced, before, after) {
  const counted = new Map();
  const of = (object) => {
    if (!counted.has(object)) counted.set(object, { operations: 0, by: {}, touched: false });
    return counted.get(object);
  };
  for (const trace of traces) {
    for (const e of trace.events) {
      if (e.kind !== "commit") continue;
      const object = trace.invocations[e.inv]?.object;
      if (object) of(object).operations++;
    }
    for (const inv of trace.invocations) if (inv.object) of(inv.object).touched = true;
  }
  for (const [object, by] of Object.entries(untraced)) {
    const c = of(object);
    for (const [method, n] of Object.entries(by)) c.by[method] = (c.by[method] ?? 0) + n;
  }
  for (const [object, end] of after) {
    if (end.commits !== (before.get(object)?.commits ?? 0) || end.salt !== before.get(object)?.salt) of(object);
  }
  const objects = [];
  let skipped = 0;
  const totals = { operations: 0, by: {}, sqlite: 0 };
  for (const [object, c] of counted) {
    const end = after.get(object);
    const start = before.get(object);
    if (!end || (start?.salt && start.salt !== end.salt)) {
      skipped++;
      continue;
    }
    const others = Object.values(c.by).reduce((a, b) => a + b, 0);
    const sqlite = end.commits - (start?.commits ?? 0);
    totals.operations += c.operations;
    for (const [method, n] of Object.entries(c.by)) totals.by[method] = (totals.by[method] ?? 0) + n;
    totals.sqlite += sqlite;
    objects.push({ object: object.slice(0, 12), touched: c.touched, operations: c.operations, by: c.by, counted: c.operations + others, sqlite });
  }
  const differ = objects.filter((o) => o.counted !== o.sqlite);
  return {
    objects: objects.length,
    touched: objects.filter((o) => o.touched).length,
    agree: objects.length - differ.length,
    skipped,
    totals,
    differ,
  };
}

/**
 * The commits no trace holds (the traced gateway's /__bench/commits), and
 * the objects' logs, read together: again until no commit was counted
 * between the two reads of the counts, so that both describe the same
 * moment (`reset`: the counts start again from there).
 */
async function commitsAndWal(rt, script, reset) {
  const url = `${rt.url}/__bench/commits${reset ? "?reset" : ""}`;
  const read = (u) => request("the traced gateway's untraced commits", u).then((r) => r.json());
  for (let attempt = 0; ; attempt++) {
    const untraced = await read(url);
    const wal = walCommits(rt.persist, script);
    const again = await read(`${rt.url}/__bench/commits`);
    const settled = reset ? Object.keys(again).length === 0 : JSON.stringify(again) === JSON.stringify(untraced);
    if (settled || attempt >= 20) return { untraced: reset ? {} : untraced, wal, settled };
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits until no traced step is in flight (what ran after the answer has finished), at most `limitMs`. */
async function quiesce(url, limitMs = 15_000) {
  const started = performance.now();
  let calm = 0;
  while (performance.now() - started < limitMs) {
    const { pending } = await request("the traced gateway's steps in flight", `${url}/__bench/traces?pending`).then((r) => r.json());
    calm = pending === 0 ? calm + 1 : 0;
    if (calm >= 3) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/**
 * Runs every operation of COUNTED `PLAN.criticalRepeats` times, one at a
 * time, on a fresh traced gateway (D1 PLATFORM_D1_MS away, the upstream at
 * hand, no queue consumer: delivery is no request's work), and returns the
 * counts per operation.
 */
export async function countCriticalPath(built) {
  const started = performance.now();
  const worker = {
    ...workerFromBuild(built.traced),
    queueConsumers: {},
  };
  worker.bindings = { ...worker.bindings, BENCH_D1_DELAY_MS: String(PLATFORM_D1_MS), SANDBOX_LATENCY_MS: "0" };
  let rt = await startRuntime({ key: "critical", workers: [worker], port: listenPort("traced") });
  try {
    await applyMigrations(rt, built.traced);
    const n = PLAN.criticalRepeats;
    // The receipts the counted operations act on (traced too, only so that quiesce() sees what they left running).
    let k = 0;
    const prep = (op, body) => call(rt.url, op, body, `prep#${++k}`);
    const prepared = [];
    for (let r = 0; r < n; r++) {
      const plain = await prep("receipt/create", createBody(1003));
      const keyedPay = await prep("receipt/create", createBody(1003));
      const warm = await prep("receipt/create", createBody(1003));
      const verify = await prep("receipt/create", createBody(1001));
      const held = await prep("receipt/create", createBody(1003, { is_hold: true }));
      await prep("receipt/pay", { id: held.id, card: CARD });
      const cancel = await prep("receipt/create", createBody(1003));
      prepared.push({ plain, keyedPay, warm, verify, held, cancel });
    }
    const read = await prep("receipt/create", createBody(1003));
    // What the creates set off after their answers lands before the restart.
    await quiesce(rt.url);
    // Every object out of memory: the counted operations meet them as a payer coming back later would.
    rt = await restartRuntime(rt);
    const start = await commitsAndWal(rt, built.traced.name, true);
    for (let r = 0; r < n; r++) {
      const p = prepared[r];
      const t = (op) => `${op}#${r}`;
      const fresh = createBody(1003);
      await call(rt.url, "receipt/create", fresh, t("create"));
      // A replay of a create whose bookkeeping is done: what the create left after its answer has landed.
      await quiesce(rt.url);
      await call(rt.url, "receipt/create", fresh, t("create-replay"));
      await call(rt.url, "receipt/authorize", { id: p.verify.id, card: CARD }, t("authorize"));
      await call(rt.url, "receipt/pay", { id: p.verify.id, card: CARD, otp: "111111" }, t("pay-otp"));
      await call(rt.url, "receipt/pay", { id: p.plain.id, card: CARD }, t("pay"));
      // Its object not in memory either, so it compares with pay: what the key alone adds.
      const key = `crit-${RUN}-${r}`;
      const paid = await keyed(rt.url, "receipt/pay", { id: p.keyedPay.id, card: CARD }, t("pay-keyed"), key, null);
      // A client's retry after a lost answer: the first request's after-the-answer work (its event) is done.
      await quiesce(rt.url);
      await keyed(rt.url, "receipt/pay", { id: p.keyedPay.id, card: CARD }, t("pay-replay"), key, paid);
      await call(rt.url, "receipt/check-id", { id: p.warm.id });
      await call(rt.url, "receipt/pay", { id: p.warm.id, card: CARD }, t("pay-warm"));
      await call(rt.url, "receipt/hold-confirm", { id: p.held.id }, t("hold-confirm"));
      await call(rt.url, "receipt/cancel", { id: p.cancel.id, reason: "bench" }, t("cancel"));
      await call(rt.url, "receipt/check-id", { id: read.id }, t("check-id"));
      await call(rt.url, "receipt/check-tid", { tid: read.tid }, t("check-tid"));
    }
    const settled = await quiesce(rt.url);
    const traces = await request("the traced gateway's traces", `${rt.url}/__bench/traces`).then((r) => r.json());
    const end = await commitsAndWal(rt, built.traced.name, false);
    const walCheck = { ...compareWithWal(traces, end.untraced, start.wal, end.wal), settled: start.settled && end.settled };
    const byOp = new Map();
    for (const trace of traces) {
      const op = trace.id.split("#")[0];
      if (!byOp.has(op)) byOp.set(op, []);
      byOp.get(op).push(classify(trace));
    }
    const ops = {};
    for (const { key } of COUNTED) {
      const list = byOp.get(key);
      if (list?.length) ops[key] = summarizeOp(list);
    }
    return {
      method:
        'bench/workers/traced-gateway.ts (the gateway\'s code, its bindings wrapped), one request at a time; see bench/README.md, "Round trips and commits"',
      d1DelayMs: PLATFORM_D1_MS,
      repeats: n,
      settledAfterAnswer: settled,
      // The commit count checked against SQLite's own: commit frames in each object's write-ahead log.
      walCheck,
      seconds: Math.round((performance.now() - started) / 100) / 10,
      ops,
    };
  } finally {
    await rt.stop();
  }
}

/** `critical: {<op>: {d1, commits, hops, ...}}` and `afterAnswer` for the results JSON. */
export function criticalCounts(path) {
  if (!path) return { critical: null, afterAnswer: null };
  const critical = {};
  const afterAnswer = {};
  for (const [op, s] of Object.entries(path.ops)) {
    critical[op] = s.critical;
    afterAnswer[op] = s.after;
  }
  return { critical, afterAnswer };
}

/**
 * The D1 round trips the @platform rows imply: what the gateway's p50 grew
 * by from @40ms to @platform (only D1 moved) over PLATFORM_D1_MS.
 */
export function impliedD1(measurements, op) {
  const far = measurements[`${op}@40ms`]?.gateway?.latency?.latency.p50;
  const platform = measurements[`${op}@platform`]?.gateway?.latency?.latency.p50;
  if (far == null || platform == null) return null;
  return Math.round(((platform - far) / PLATFORM_D1_MS) * 10) / 10;
}

const ROW_OP = { create: "create", authorize: "authorize", pay: "pay", "check-id": "check-id" };

/** The counts as a markdown table, and (`steps`) each operation's steps before the answer. */
export function criticalMarkdown(path, measurements, { steps = true } = {}) {
  if (!path) return [];
  // The last column needs the @40ms and @platform rows (not measured by --critical).
  const withRows = Boolean(measurements);
  const lines = [
    `**Round trips and commits before the answer** (${path.method}; D1 ${path.d1DelayMs} ms away, ${path.repeats} of each operation):`,
    "",
    `| operation | D1 round trips | of them in sequence | D1 statements | storage commits | Durable Object hops | upstream calls | after the answer: D1 / commits / hops / queue sends |${withRows ? " D1 round trips the @platform row implies |" : ""}`,
    `|---|---:|---:|---:|---:|---:|---:|---|${withRows ? "---:|" : ""}`,
  ];
  for (const { key, label, note } of COUNTED) {
    const s = path.ops[key];
    if (!s) continue;
    const c = s.critical;
    const a = s.after;
    const implied = withRows && ROW_OP[key] ? impliedD1(measurements, ROW_OP[key]) : null;
    const vary = s.varied.length ? ` (varied: ${s.varied.join(", ")})` : "";
    lines.push(
      `| ${label} (${note})${vary} | ${c.d1} | ${c.d1Depth} | ${c.d1Statements} | ${c.commits} | ${c.hops} | ${c.upstream} | ${a.d1} / ${a.commits} / ${a.hops} / ${a.queue} |${withRows ? ` ${implied ?? "–"} |` : ""}`,
    );
  }
  const wal = path.walCheck;
  if (wal?.totals) {
    const t = wal.totals;
    const kinds = Object.entries(t.by)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([method, n]) => `${n} by ${method === "alarm" ? "alarms" : `untraced ${method}() calls`}`);
    const counted = t.operations + Object.values(t.by).reduce((a, b) => a + b, 0);
    const shown = (d) =>
      `${d.object}… counted ${d.counted} (${[`${d.operations} by operations`, ...Object.entries(d.by).map(([m, n]) => `${n} by ${m}`)].join(", ")}), SQLite ${d.sqlite}`;
    lines.push(
      "",
      `Checked against SQLite: of ${wal.objects} objects (${wal.touched} the counted operations touched, ${wal.objects - wal.touched} only their alarms or untraced calls), ${wal.agree} made exactly as many commits as their write-ahead logs hold commit frames; counted ${counted} (${[`${t.operations} by the operations, before and after the answer`, ...kinds].join(", ")}), SQLite ${t.sqlite}${wal.differ.length ? `; ${wal.differ.map(shown).join("; ")}` : ""}${wal.skipped ? ` (${wal.skipped} left out: their log was checkpointed meanwhile)` : ""}${wal.settled ? "" : " (commits were still being made when the logs were read)"}.`,
    );
  }
  if (!steps) return lines;
  lines.push("", "What each operation waits for, in order (one trace; [where] it ran):", "");
  for (const { key, label } of COUNTED) {
    const s = path.ops[key];
    if (!s) continue;
    lines.push(
      `- **${label}**: ${s.steps.before.join(" → ") || "nothing"}${s.steps.after.length ? `; after the answer: ${s.steps.after.join(", ")}` : ""}.`,
    );
  }
  return lines;
}
