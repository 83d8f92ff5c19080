// A model-based property test of the money rules. fast-check generates
// sequences of operations by the partner and two users over a small pool of
// receipts and transfers, interleaved with upstream faults, crashes,
// evictions and alarms. After EVERY step the gateway's answer, the record's
// stored state and the upstream's calls are checked against a reference model
// (test/model/sim.ts), and these invariants are checked over the whole pool:
//
//  1. the upstream never debits a record twice (at most one successful pay
//     per record in the sandbox's call log, and no pay reaches it after one
//     succeeded);
//  2. a user never cancels a paid or held receipt (no receipt/cancel made
//     for a user reaches the upstream while the sandbox had it paid or held;
//     a paid or held receipt that ends cancelled was cancelled by the partner);
//  3. at most three failed OTP guesses per record reach the upstream;
//  4. no record is ended for OTPs unless three guesses failed;
//  5. convergence: after the faults stop and every alarm has run, the
//     gateway's stored state equals the sandbox's, nothing is in flight, and
//     check-id / a2c/get-by-id answer that state (end of run and checkpoints);
//  6. no card number, expiry, OTP or card token in any storage.
//
// Sizes: MODEL_RUNS (30), MODEL_STEPS (25), MODEL_SEED (fixed) from the
// bindings (vitest.config.ts passes the environment's); `npm run test:model
// -- --runs N --seed S` runs longer. A failure prints fast-check's seed and
// path, the shrunk sequence of steps, and the log of the failing run.
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import fc from "fast-check";
import { expect, it } from "vitest";
import { API, letOtpExpire, letOtpWaitPass, letSupplierAnswer, newTid, newUser, PARTNER_KEY, userToken } from "./helpers";
import {
  ANON_EXPIRE,
  ANON_PAN,
  type Armed,
  alarmClosure,
  type Answer,
  type Behaviour,
  describeFault,
  type FaultSpec,
  type G,
  guessesOf,
  type KindName,
  needsReconcile,
  OTP_RIGHT,
  OTP_WRONG,
  type OpRequest,
  SANDBOX_OTP_TTL_MS,
  type Outcome,
  type RecMeta,
  type S,
  sameG,
  showAnswer,
  showG,
  showS,
  simulate,
  TOKEN_OF,
  type Who,
} from "./model/sim";
import { cardDataIn, dumpD1 } from "./helpers";
import { callLog, dumpObject, dumpTidIndex, type LoggedCall, readStored, sandboxSeen, type SandboxSeen, settle, stubOf } from "./model/world";
import { scriptedUpstream, type Fault } from "./support/scripted-upstream";

declare global {
  namespace Cloudflare {
    interface Env {
      MODEL_RUNS?: string;
      MODEL_STEPS?: string;
      MODEL_SEED?: string;
      MODEL_VERBOSE?: string;
    }
  }
}

const numberFrom = (value: string | undefined, fallback: number) => (value && Number.isFinite(Number(value)) ? Number(value) : fallback);
const RUNS = numberFrom(env.MODEL_RUNS, 30);
const STEPS = numberFrom(env.MODEL_STEPS, 25);
const SEED = numberFrom(env.MODEL_SEED, 20_260_417);

/** Before an operation, no alarm of its record may be due within this: none is in flight when it arrives. */
const GUARD_MS = 300;
/** The pool: few records, so that sequences go deep on each. */
const MAX_RECORDS = 4;
const PAY_PATHS = new Set(["receipt/pay", "receipt/anonymous/pay", "a2c/pay"]);
const CARD_DATA = {
  pans: [ANON_PAN, "9860000000000018"],
  otps: [OTP_RIGHT, ...OTP_WRONG],
  expiries: [ANON_EXPIRE],
};

// ---------------------------------------------------------------------------
// The model

interface Rec extends RecMeta {
  /** The stored row and sandbox view as last observed (after the last step that touched it). */
  g: G;
  s: SandboxSeen;
  /** A fault scripted for this record's next call on a path, not yet used. */
  armed: Armed | null;
}

interface StepInfo {
  rec: string;
  who: Who;
  /** The sandbox's state of the record before the step. */
  preState: number;
  /** The gateway answered an unknown outcome (502/504): it never saw the upstream's answer. */
  unknown: boolean;
  /** A pay carrying an OTP was sent (it may not have reached the sandbox). */
  otpPay: boolean;
  answer: Answer;
}

interface Model {
  run: number;
  step: number;
  tokens: Record<Who, string>;
  subs: Record<"user1" | "user2", string>;
  recs: Rec[];
  limiter: Record<"user1" | "user2", { pay: number; authorize: number }>;
  steps: Map<string, StepInfo>;
  log: string[];
}

let runCounter = 0;

/** What the runs exercised, printed at the end: operation -> answer, faults that acted, alarms. */
const coverage = new Map<string, number>();
const cover = (what: string) => coverage.set(what, (coverage.get(what) ?? 0) + 1);
const faultName = (f: FaultSpec) => (f.kind === "status" ? `status ${f.status}${f.act ? " after acting" : ""}` : f.kind);

async function newModel(): Promise<Model> {
  runCounter++;
  const subs = { user1: newUser("model-u1"), user2: newUser("model-u2") };
  return {
    run: runCounter,
    step: 0,
    subs,
    tokens: { partner: PARTNER_KEY, user1: await userToken(subs.user1), user2: await userToken(subs.user2) },
    recs: [],
    limiter: { user1: { pay: 0, authorize: 0 }, user2: { pay: 0, authorize: 0 } },
    steps: new Map(),
    log: [],
  };
}

class ModelFailure extends Error {}

function fail(m: Model, message: string): never {
  throw new ModelFailure(`${message}\n--- run ${m.run}, steps so far ---\n${m.log.join("\n")}`);
}

const keyOf = (index: number) => `R${index + 1}`;
/** A command names a record by a number; it is the (number mod pool size)-th record, so every command finds one. */
const recAt = (m: Readonly<Model>, index: number): Rec | undefined => (m.recs.length === 0 ? undefined : m.recs[index % m.recs.length]);

type WhoRole = "owner" | "partner" | "other";
function resolveWho(role: WhoRole, owner: Who): Who {
  if (role === "owner") return owner;
  if (role === "partner") return "partner";
  return owner === "user1" ? "user2" : "user1";
}

// ---------------------------------------------------------------------------
// Talking to the gateway

async function send(m: Model, path: string, body: unknown, who: Who, requestId: string) {
  return exports.default.fetch(`${API}/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${m.tokens[who]}`, "x-request-id": requestId },
    body: JSON.stringify(body),
  });
}

async function readAnswer(res: Response): Promise<Answer & { raw: string }> {
  const raw = await res.text();
  let body: any;
  try {
    body = JSON.parse(raw);
  } catch {
    return { status: res.status, code: "(not JSON)", raw };
  }
  if (res.status === 200) return { status: 200, state: typeof body?.state === "number" ? body.state : undefined, raw };
  return { status: res.status, code: body?.error?.code, attemptsLeft: body?.error?.attempts_left, raw };
}

function toScripted(rec: RecMeta, fault: FaultSpec): Fault {
  switch (fault.kind) {
    case "lost":
      return { kind: "lost" };
    case "timeout":
      return { kind: "timeout" };
    case "late":
      // Well past the gateway's 2 s timeout, so a loaded machine cannot make it an answer in time.
      return { kind: "late", ms: 4000 };
    case "status":
      return { kind: "status", status: fault.status, act: fault.act };
    case "body": {
      const idKey = rec.kind === "receipt" ? "id" : "receipt_id";
      return { kind: "body", body: fault.variant === "html" ? "<html>oops</html>" : `{"${idKey}":"${rec.id}","state":"4","amount":1}` };
    }
    case "abort":
      throw new Error("an abort is a hold, not a scripted fault");
  }
}

/** The gateway path and body of an operation. */
function requestOf(rec: Rec, req: OpRequest): { path: string; body: Record<string, unknown> } {
  const id = rec.id;
  const numberCard = { number: ANON_PAN, expire: ANON_EXPIRE };
  switch (req.op) {
    case "authorize":
      return req.anonymous
        ? { path: "receipt/anonymous/authorize", body: { id, card: numberCard } }
        : { path: "receipt/authorize", body: { id, card: { token: TOKEN_OF[req.card] } } };
    case "pay":
      return req.anonymous
        ? { path: "receipt/anonymous/pay", body: { id, card: numberCard, otp: req.otp } }
        : { path: "receipt/pay", body: { id, card: { token: TOKEN_OF[req.card] }, ...(req.otp === undefined ? {} : { otp: req.otp }) } };
    case "a2c-pay":
      return { path: "a2c/pay", body: { id, ...(req.otp === undefined ? {} : { otp: req.otp }) } };
    case "hold-confirm":
      return { path: "receipt/hold-confirm", body: { id } };
    case "cancel":
      return { path: "receipt/cancel", body: { id, reason: "model test" } };
    case "check":
      return { path: rec.kind === "receipt" ? "receipt/check-id" : "a2c/get-by-id", body: { id } };
    case "alarm":
      throw new Error("an alarm is not a request");
  }
}

const limiterOf = (path: string): "pay" | "authorize" | null =>
  PAY_PATHS.has(path) ? "pay" : path === "receipt/authorize" || path === "receipt/anonymous/authorize" ? "authorize" : null;

const unknownClass = (a: Answer) => a.status === 502 || a.status === 504;

function answerMatches(expected: Answer, actual: Answer): boolean {
  // A lost and a late answer are both an unknown outcome; which code names it is the gateway's call.
  if (expected.code === "upstream_error" && expected.status === 502) {
    return (actual.status === 502 && actual.code === "upstream_error") || (actual.status === 504 && actual.code === "upstream_timeout");
  }
  if (expected.status !== actual.status || expected.code !== actual.code) return false;
  if (expected.status === 200 && expected.state !== undefined && expected.state !== actual.state) return false;
  if (expected.attemptsLeft !== undefined && expected.attemptsLeft !== actual.attemptsLeft) return false;
  return true;
}

const sameLogged = (expected: Outcome["logged"], actual: LoggedCall[]) =>
  expected.length === actual.length &&
  expected.every((e, i) => e.path === actual[i]!.path && e.status === actual[i]!.status && e.code === actual[i]!.code);

const sameS = (a: S, b: S) => a.state === b.state && a.wrong === b.wrong && a.otpAttempts === b.otpAttempts && a.expired === b.expired;

// ---------------------------------------------------------------------------
// Observing a record, and checking what happened to it in the background

/**
 * Settles the record's alarm, reads it, and checks the change since it was
 * last observed: only its own alarm may have acted on it meanwhile (rule 8's
 * reconciliation), and a record that needs reconciling has an alarm set.
 */
async function observe(m: Model, rec: Rec, guardMs = GUARD_MS): Promise<{ g: G; s: SandboxSeen; alarm: number | null }> {
  const seen = await quiet(m, rec, guardMs);
  const s = await sandboxSeen(rec.kind, rec.id);
  const reachable = alarmClosure(rec, rec.g, rec.s, Date.now());
  if (!reachable.some((x) => sameG(x.g, seen.g) && x.s.state === s.state)) {
    fail(m, `${rec.key} changed between steps in a way its alarm cannot: was ${showG(rec.g)} / sandbox ${showS(rec.s)}, now ${showG(seen.g)} / sandbox ${showS(s)}`);
  }
  return { g: seen.g, s, alarm: seen.alarm };
}

/**
 * Waits until the record's alarm is not running nor due within `guardMs`.
 * Rule 8: a record with a call whose outcome is unknown (or in 57, or with an
 * exhaustion cancel pending) is reconciled on its own: it always has an
 * alarm set, but while that alarm runs.
 */
async function quiet(m: Model, rec: Rec, guardMs = GUARD_MS) {
  const seen = await settle(rec.kind, rec.id, guardMs, (g) => needsReconcile(rec, g));
  if (!seen.quiet) {
    fail(
      m,
      seen.alarm === null && seen.unsent === 0
        ? `rule 8: ${rec.key} needs reconciling (${showG(seen.g)}) but its object has no alarm set`
        : `${rec.key}'s alarm never settled: ${showG(seen.g)}, alarm ${seen.alarm === null ? "none" : `in ${seen.alarm - Date.now()} ms`}, ${seen.unsent} events unsent`,
    );
  }
  return seen;
}

// ---------------------------------------------------------------------------
// Invariants over the pool

async function checkInvariants(m: Model, touched: readonly Rec[], scanAll = false): Promise<void> {
  // A record's log changes only by its own steps or by its alarm (records that need reconciling).
  const logs = new Map<string, LoggedCall[]>();
  for (const rec of m.recs) {
    if (!scanAll && !touched.includes(rec) && !needsReconcile(rec, rec.g)) continue;
    if (!touched.includes(rec)) rec.s = await sandboxSeen(rec.kind, rec.id);
    logs.set(rec.key, await callLog(rec.id));
  }
  for (const rec of m.recs) {
    const calls = logs.get(rec.key);
    if (!calls) continue;

    // 1. Never debited twice: one successful pay at most, and no pay reaches the upstream after it.
    const pays = calls.filter((c) => PAY_PATHS.has(c.path));
    const firstPaid = pays.findIndex((c) => c.status === 200);
    if (pays.filter((c) => c.status === 200).length > 1) fail(m, `invariant 1: ${rec.key} was debited twice: ${JSON.stringify(pays)}`);
    if (firstPaid >= 0 && firstPaid < pays.length - 1) {
      fail(m, `invariant 1: a pay reached the upstream after ${rec.key} was paid: ${JSON.stringify(pays.slice(firstPaid))}`);
    }

    // 2. A user never cancels a paid or held receipt.
    for (const c of calls.filter((c) => c.path === "receipt/cancel")) {
      const info = c.request_id ? m.steps.get(c.request_id) : undefined;
      if (info && info.who !== "partner" && (info.preState === 4 || info.preState === 5)) {
        fail(m, `invariant 2: ${info.who}'s step ${c.request_id} sent a receipt/cancel upstream for ${rec.key} while the sandbox had it in state ${info.preState}`);
      }
    }
    if (rec.kind === "receipt" && rec.s.state === 21 && (rec.s.charged || rec.s.holdStatus === "released")) {
      const cancel = calls.find((c) => c.path === "receipt/cancel" && c.status === 200);
      const info = cancel?.request_id ? m.steps.get(cancel.request_id) : undefined;
      if (cancel && info?.who !== "partner") {
        fail(m, `invariant 2: ${rec.key} was paid or held and got cancelled by ${info?.who ?? `the gateway on its own (${cancel.request_id})`}`);
      }
    }

    // 3. At most three failed OTP guesses reach the upstream: refused as wrong, or sent in a call
    // whose answer the gateway never saw (an unknown outcome) and that did not pay.
    const failedUpstream = calls.filter((c) => {
      if (!PAY_PATHS.has(c.path) || !c.otp) return false;
      if (c.code === "OTP_INVALID" || c.code === "OTP_ATTEMPTS_EXCEEDED") return true;
      const info = c.request_id ? m.steps.get(c.request_id) : undefined;
      return c.status !== 200 && (info === undefined || info.unknown);
    });
    if (failedUpstream.length > 3) {
      fail(m, `invariant 3: ${failedUpstream.length} failed OTP guesses reached the upstream for ${rec.key}: ${JSON.stringify(failedUpstream)}`);
    }

    // 4. The gateway counts no more failed guesses than happened (so it ends nothing early).
    const failed = failedGuesses(m, rec, calls);
    if (guessesOf(rec.g) > failed) {
      fail(m, `invariant 4: the gateway counts ${guessesOf(rec.g)} failed guesses for ${rec.key}, the model ${failed}`);
    }
  }

  // 6. No card data in the touched records' storage nor in the tid index.
  const scanned = scanAll ? m.recs : touched;
  const rows = [
    ...(await Promise.all(scanned.map((rec) => dumpObject(rec.kind, rec.id)))).flat(),
    ...(await dumpTidIndex(
      m.recs.map((r) => r.id),
      m.recs.map((r) => r.tid),
    )),
    ...(scanAll ? await dumpD1() : []),
  ];
  for (const row of rows) {
    const found = cardDataIn(row, CARD_DATA);
    if (found.length > 0) fail(m, `invariant 6: card data ${found.join(", ")} stored: ${row}`);
  }
}

/**
 * The failed OTP guesses of a record as the model counts them (rule 2): each
 * pay that sent an OTP and was refused as wrong, or whose outcome the gateway
 * could not know (502/504, a crash) and that did not pay. A call whose fault
 * kept it from the upstream counts too: the gateway cannot tell.
 */
function failedGuesses(m: Model, rec: Rec, calls: LoggedCall[]): number {
  let failed = 0;
  for (const [requestId, info] of m.steps) {
    if (info.rec !== rec.key || !info.otpPay) continue;
    const pay = calls.find((c) => c.request_id === requestId && PAY_PATHS.has(c.path));
    if (pay && (pay.code === "OTP_INVALID" || pay.code === "OTP_ATTEMPTS_EXCEEDED")) failed++;
    else if (info.unknown && pay?.status !== 200) failed++;
  }
  return failed;
}

// ---------------------------------------------------------------------------
// One operation through the gateway, checked against the model

const opLabel = (req: OpRequest): string => {
  switch (req.op) {
    case "authorize":
      return req.anonymous ? "asks for an OTP for a card number on" : `asks for an OTP (${TOKEN_OF[req.card]}) on`;
    case "pay": {
      const otp = req.otp === undefined ? "without an OTP" : req.otp === OTP_RIGHT ? "with the right OTP" : `with a wrong OTP (${req.otp})`;
      return req.anonymous ? `pays by card number ${otp}:` : `pays (${TOKEN_OF[req.card]}) ${otp}:`;
    }
    case "a2c-pay":
      return `sends a2c ${req.otp === undefined ? "without an OTP" : req.otp === OTP_RIGHT ? "with the right OTP" : `with a wrong OTP (${req.otp})`}:`;
    case "hold-confirm":
      return "confirms the hold of";
    case "cancel":
      return "cancels";
    case "check":
      return "checks";
    case "alarm":
      return "alarm of";
  }
};

async function operate(m: Model, rec: Rec, who: Who, req: OpRequest, crash: boolean): Promise<void> {
  const requestId = `model-r${m.run}-s${++m.step}`;
  const { path, body } = requestOf(rec, req);
  const pre = await observe(m, rec);
  const limiterName = who === "partner" ? null : limiterOf(path);
  const limiter = limiterName && who !== "partner" ? { name: limiterName, count: m.limiter[who][limiterName] } : undefined;
  // A crash is a hold on the operation's own call; a fault armed for that same path waits.
  const armed: Armed | null = crash ? { path, fault: { kind: "abort" } } : rec.armed;
  const outcomes = simulate({ rec, g: pre.g, s: pre.s, caller: who, armed, now: Date.now(), limiter }, req);
  // The fault is scripted only when the model says this operation makes the call it is for, so that no
  // rule is left for the record's alarm to meet after the operation.
  const faultPaths = new Set(outcomes.flatMap((o) => (o.faultPath ? [o.faultPath] : [])));
  if (faultPaths.size > 1) fail(m, `the model is unsure which call the fault hits: ${[...faultPaths].join(", ")}`);
  const [faultPath] = faultPaths;

  scriptedUpstream.reset();
  let held: ReturnType<typeof scriptedUpstream.hold> | undefined;
  if (armed && faultPath && armed.fault.kind === "abort") held = scriptedUpstream.hold(faultPath, { id: rec.id, act: true });
  else if (armed && faultPath) scriptedUpstream.on(faultPath, toScripted(rec, armed.fault), { id: rec.id });

  const answered = send(m, path, body, who, requestId);
  let crashed = false;
  if (held) {
    const first = await Promise.race([held.arrived.then(() => "arrived" as const), answered.then(() => "answered" as const)]);
    if (first === "arrived") {
      await runInDurableObject(stubOf(rec.kind, rec.id), (_instance, state) => {
        state.abort("model test: crash mid-call");
      }).catch(() => undefined);
      crashed = true;
    }
    held.release();
  }
  const actual = await readAnswer(await answered);
  const fired = Object.values(scriptedUpstream.fired()).reduce((a, b) => a + b, 0);
  scriptedUpstream.reset();

  const post = await quiet(m, rec);
  const sPost = await sandboxSeen(rec.kind, rec.id);
  const logged = (await callLog(rec.id)).filter((c) => c.request_id === requestId);
  const line = `${requestId}: ${who} ${opLabel(req)} ${rec.key}${crash ? " [crash mid-call]" : armed && faultPath ? ` [fault: ${faultPath} ${describeFault(armed.fault)}]` : ""} -> ${showAnswer(actual)}`;
  m.log.push(line);

  if (actual.status === 500) fail(m, `a 500 answer is always a failure: ${actual.raw}`);

  // The invariants first (their failure says more than a mismatch with the model), then the model.
  const candidates = outcomes.filter((o) => answerMatches(o.answer, actual) && sameLogged(o.logged, logged));
  m.steps.set(requestId, {
    rec: rec.key,
    who,
    preState: pre.s.state,
    unknown: unknownClass(actual),
    otpPay: logged.some((c) => PAY_PATHS.has(c.path) && c.otp) || candidates.some((o) => o.otpPaySent),
    answer: actual,
  });
  rec.g = post.g;
  rec.s = sPost;
  // 4. An exhausted answer only after three failed guesses.
  if (actual.code === "otp_attempts_exhausted") {
    const failed = failedGuesses(m, rec, await callLog(rec.id));
    if (failed < 3) fail(m, `invariant 4: ${rec.key} answered otp_attempts_exhausted after ${failed} failed guesses`);
  }
  await checkInvariants(m, [rec]);

  const matching = candidates.find(
    (o) =>
      o.faultUsed === (fired > 0 || crashed) &&
      alarmClosure(rec, o.g, o.s, Date.now()).some((x) => sameG(x.g, post.g) && sameS(x.s, sPost)),
  );
  if (!matching) {
    const expected = outcomes
      .map(
        (o) =>
          `  answer ${showAnswer(o.answer)}, stored ${showG(o.g)}, sandbox ${showS(o.s)}, calls ${JSON.stringify(o.logged.map((c) => `${c.path} ${c.status}`))}, fault used ${o.faultUsed}${o.choices.length ? `, choices ${o.choices.join("; ")}` : ""}`,
      )
      .join("\n");
    fail(
      m,
      `${line}\nthe gateway did not do what the model expects.\n before: stored ${showG(pre.g)}, sandbox ${showS(pre.s)}\n actual: answer ${showAnswer(actual)} ${actual.raw.slice(0, 300)}\n         stored ${showG(post.g)}, sandbox ${showS(sPost)}, calls ${JSON.stringify(logged.map((c) => `${c.path} ${c.status} ${c.code ?? ""}`))}, fault fired ${fired > 0 || crashed}\n expected one of:\n${expected}`,
    );
  }
  cover(`${req.op}${"anonymous" in req && req.anonymous ? " (anonymous)" : ""} by ${who === "partner" ? "partner" : who === rec.owner ? "owner" : "another user"} -> ${actual.status === 200 ? "200" : actual.code}`);
  if (matching.faultUsed) cover(`fault used: ${faultName(armed!.fault)} on ${faultPath}`);
  if (matching.faultUsed && !crash) rec.armed = null;
  if (limiter && matching.limiterPassed && who !== "partner") m.limiter[who][limiter.name]++;
}

// ---------------------------------------------------------------------------
// Convergence (invariant 5)

async function converge(m: Model, label: string): Promise<void> {
  scriptedUpstream.reset();
  for (const rec of m.recs) rec.armed = null;
  m.log.push(`${label}: faults stop; the suppliers answer; every alarm runs until none is set`);
  for (const rec of m.recs) {
    if (rec.kind === "receipt" && (await sandboxSeen(rec.kind, rec.id)).state === 57) await letSupplierAnswer(rec.id);
  }
  let rounds = 0;
  for (;;) {
    const due: Rec[] = [];
    for (const rec of m.recs) if ((await quiet(m, rec, 0)).alarm !== null) due.push(rec);
    if (due.length === 0) break;
    cover(`convergence: alarms set in round ${rounds + 1}`);
    if (++rounds > 12) {
      const states = await Promise.all(due.map(async (r) => `${r.key} ${showG((await readStored(r.kind, r.id)).g)} sandbox ${showS(await sandboxSeen(r.kind, r.id))}`));
      fail(m, `invariant 5: alarms still set after ${rounds - 1} rounds of running them: ${states.join("; ")}`);
    }
    for (const rec of due) await runDurableObjectAlarm(stubOf(rec.kind, rec.id));
  }
  for (const rec of m.recs) {
    const { g } = await readStored(rec.kind, rec.id);
    const s = await sandboxSeen(rec.kind, rec.id);
    if (g.pending !== null || g.state !== s.state) {
      fail(m, `invariant 5: ${rec.key} did not converge: stored ${showG(g)}, sandbox ${showS(s)}`);
    }
    const calls = await callLog(rec.id);
    const failed = failedGuesses(m, rec, calls);
    if (guessesOf(g) !== Math.min(failed, 3)) {
      fail(m, `invariant 4: once reconciled, ${rec.key}'s gateway counts ${guessesOf(g)} failed guesses, the model ${failed}`);
    }
    // A QR merchant's receipt cannot be cancelled (rule 4): it stays closed at the edge.
    if (rec.kind === "receipt" && !rec.qr && guessesOf(g) >= 3 && s.state !== 21) {
      fail(m, `rule 2: ${rec.key} ended by three failed guesses is not cancelled upstream (state ${s.state})`);
    }
    cover(`converged: ${rec.kind} state ${s.state}${guessesOf(g) >= 3 ? " (OTP guesses exhausted)" : ""}`);
    const requestId = `model-r${m.run}-s${++m.step}`;
    const { path, body } = requestOf(rec, { op: "check" });
    const answer = await readAnswer(await send(m, path, body, "partner", requestId));
    m.steps.set(requestId, { rec: rec.key, who: "partner", preState: s.state, unknown: false, otpPay: false, answer });
    if (answer.status !== 200 || answer.state !== s.state) {
      fail(m, `invariant 5: ${path} of ${rec.key} answers ${showAnswer(answer)}, the sandbox holds ${s.state}`);
    }
    rec.g = (await readStored(rec.kind, rec.id)).g;
    rec.s = await sandboxSeen(rec.kind, rec.id);
  }
  await checkInvariants(m, m.recs, true);
}

// ---------------------------------------------------------------------------
// Commands

type Cmd = fc.AsyncCommand<Model, object, false>;

interface CreateSpec {
  owner: Who;
  kind: KindName;
  merchant: 1001 | 1002 | 1003;
  isHold: boolean;
  amount: number;
  sender: Behaviour;
}

class CreateCmd implements Cmd {
  constructor(readonly spec: CreateSpec) {}
  check = (m: Readonly<Model>) => m.recs.length < MAX_RECORDS;
  async run(m: Model): Promise<void> {
    const { spec } = this;
    const key = keyOf(m.recs.length);
    const tid = newTid(`model-${key}`);
    const requestId = `model-r${m.run}-s${++m.step}`;
    const res =
      spec.kind === "receipt"
        ? await send(
            m,
            "receipt/create",
            { tid, amount: 150_000, merchant_id: spec.merchant, account: [{ key: "phone", value: "998901234567" }], description: "model", is_hold: spec.isHold },
            spec.owner,
            requestId,
          )
        : await send(m, "a2c/create", { tid, amount: spec.amount, rate_id: 1, receiver_card: "9860000000000018", token: TOKEN_OF[spec.sender] }, spec.owner, requestId);
    const text = await res.text();
    m.log.push(`${requestId}: ${this.toString().replace(/^\S+/, key)} -> ${res.status}`);
    if (res.status !== 200) fail(m, `create answered ${res.status}: ${text}`);
    const body = JSON.parse(text);
    const id: string = spec.kind === "receipt" ? body.id : body.receipt_id;
    expect(body.state, "a new record is in state 0").toBe(0);
    expect(body.tid, "the answer shows the caller's own tid").toBe(tid);
    const isVerify = spec.kind === "receipt" ? spec.merchant === 1001 : spec.amount >= 1_000_000;
    expect(body.is_verify, "is_verify as the sandbox table says").toBe(isVerify);
    const meta: RecMeta = {
      key,
      kind: spec.kind,
      id,
      tid,
      owner: spec.owner,
      merchant: spec.kind === "receipt" ? spec.merchant : null,
      isHold: spec.kind === "receipt" && spec.isHold,
      isVerify,
      qr: spec.kind === "receipt" && spec.merchant === 1002,
      sender: spec.sender,
    };
    const g: G = { state: 0, pending: null, pendingOtp: false, wrong: 0, unconfirmed: 0, sends: 0, lastSentAt: 0, waitMs: 0, attempts: 0, edgeClosed: false };
    const s: SandboxSeen = { state: 0, otpAttempts: 0, wrong: 0, expired: 0, otpSentAt: null, charged: false, holdStatus: null };
    const rec: Rec = { ...meta, g, s, armed: null };
    m.recs.push(rec);
    m.steps.set(requestId, { rec: key, who: spec.owner, preState: 0, unknown: false, otpPay: false, answer: { status: 200, state: 0 } });
    const seen = await observe(m, rec);
    rec.g = seen.g;
    rec.s = seen.s;
    await checkInvariants(m, [rec]);
  }
  toString() {
    const { spec } = this;
    const what =
      spec.kind === "receipt"
        ? `a receipt at ${spec.merchant}${spec.merchant === 1001 ? " (OTP)" : spec.merchant === 1002 ? " (QR)" : ""}${spec.isHold ? " with is_hold" : ""}`
        : `a transfer of ${spec.amount}${spec.amount >= 1_000_000 ? " (OTP)" : ""} from ${TOKEN_OF[spec.sender]}`;
    return `new: ${spec.owner} creates ${what}`;
  }
}

/** Which records an operation applies to. */
const appliesTo = (req: OpRequest, kind: KindName) =>
  req.op === "check" || (kind === "transfer" ? req.op === "a2c-pay" : req.op !== "a2c-pay");

/** Whether the sandbox holds an OTP for the receipt that is right now (with a margin for the next call). */
const otpLiveSeen = (rec: Rec) => rec.s.otpSentAt !== null && Date.now() - rec.s.otpSentAt < SANDBOX_OTP_TTL_MS - 10_000;

class OpCmd implements Cmd {
  #resolved: string | null = null;
  /**
   * `sendFirst`: a receipt pay is first preceded by an authorize of the same
   * caller when the sandbox holds no live OTP, as an app does: otherwise
   * nearly every pay would be refused unjudged (OTP_EXPIRED) and the guesses
   * of rule 2 would seldom reach the upstream.
   */
  constructor(
    readonly index: number,
    readonly role: WhoRole,
    readonly req: OpRequest,
    readonly crash: boolean,
    readonly sendFirst = false,
  ) {}
  check = (m: Readonly<Model>) => {
    const rec = recAt(m, this.index);
    return rec !== undefined && appliesTo(this.req, rec.kind);
  };
  async run(m: Model): Promise<void> {
    const rec = recAt(m, this.index)!;
    const who = resolveWho(this.role, rec.owner);
    const send = this.sendFirst && rec.kind === "receipt" && this.req.op === "pay" && !otpLiveSeen(rec);
    this.#resolved = `${who}${this.role === "other" ? " (not the owner)" : ""}${send ? " asks for an OTP, then" : ""} ${opLabel(this.req)} ${rec.key}${this.crash ? ", and its object crashes while the call is in flight" : ""}`;
    if (send && this.req.op === "pay") await operate(m, rec, who, { op: "authorize", card: "ok", anonymous: this.req.anonymous }, false);
    await operate(m, rec, who, this.req, this.crash);
  }
  toString() {
    return this.#resolved ?? `${this.role} ${opLabel(this.req)} ${keyOf(this.index)}${this.crash ? " (crash mid-call)" : ""}`;
  }
}

type FaultRole = "next" | "pay" | "anonymous pay" | "authorize" | "hold-confirm" | "cancel" | "read";
const faultPathOf = (role: FaultRole, kind: KindName): string | null => {
  if (role === "next") return "*";
  if (kind === "transfer") return role === "pay" ? "a2c/pay" : role === "read" ? "a2c/get-by-id" : null;
  return {
    pay: "receipt/pay",
    "anonymous pay": "receipt/anonymous/pay",
    authorize: "receipt/authorize",
    "hold-confirm": "receipt/hold-confirm",
    cancel: "receipt/cancel",
    read: "receipt/check-id",
  }[role];
};

class FaultCmd implements Cmd {
  constructor(
    readonly index: number,
    readonly role: FaultRole,
    readonly fault: FaultSpec,
  ) {}
  check = (m: Readonly<Model>) => {
    const rec = recAt(m, this.index);
    return rec !== undefined && rec.armed === null && faultPathOf(this.role, rec.kind) !== null;
  };
  #key: string | null = null;
  async run(m: Model): Promise<void> {
    const rec = recAt(m, this.index)!;
    this.#key = rec.key;
    rec.armed = { path: faultPathOf(this.role, rec.kind)!, fault: this.fault };
    m.log.push(`fault: ${rec.key}'s next ${rec.armed.path === "*" ? "upstream call" : rec.armed.path} ${describeFault(this.fault)}`);
  }
  toString() {
    return `fault: ${this.#key ?? keyOf(this.index)}'s next ${this.role === "next" ? "upstream" : this.role} call ${describeFault(this.fault)}`;
  }
}

class EvictCmd implements Cmd {
  key: string | null = null;
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => recAt(m, this.index) !== undefined;
  async run(m: Model): Promise<void> {
    const rec = recAt(m, this.index)!;
    this.key = rec.key;
    const pre = await observe(m, rec);
    const before = (await callLog(rec.id)).length;
    await evictDurableObject(stubOf(rec.kind, rec.id)).catch(() => undefined);
    const after = await readStored(rec.kind, rec.id);
    m.log.push(`evict: ${rec.key}'s object is evicted`);
    if (!sameG(pre.g, after.g)) fail(m, `eviction changed ${rec.key}'s stored state: ${showG(pre.g)} -> ${showG(after.g)}`);
    if ((await callLog(rec.id)).length !== before) fail(m, `eviction of ${rec.key} called the upstream`);
    rec.g = pre.g;
    rec.s = pre.s;
  }
  toString() {
    return `evict: ${this.key ?? keyOf(this.index)}'s object is evicted`;
  }
}

/** Runs the record's alarm now (as if its time had come), with any fault armed for its calls. */
class AlarmCmd implements Cmd {
  key: string | null = null;
  constructor(readonly index: number) {}
  /** Only a record the model last saw waiting for reconciliation has an alarm worth running. */
  check = (m: Readonly<Model>) => {
    const rec = recAt(m, this.index);
    return rec !== undefined && needsReconcile(rec, rec.g);
  };
  async run(m: Model): Promise<void> {
    const rec = recAt(m, this.index)!;
    this.key = rec.key;
    const pre = await observe(m, rec);
    const outcomes = simulate({ rec, g: pre.g, s: pre.s, caller: "partner", armed: rec.armed, now: Date.now() }, { op: "alarm" });
    const faultPath = outcomes.find((o) => o.faultPath)?.faultPath;
    scriptedUpstream.reset();
    if (faultPath) scriptedUpstream.on(faultPath, toScripted(rec, rec.armed!.fault), { id: rec.id });
    const before = (await callLog(rec.id)).length;
    const ran = await runDurableObjectAlarm(stubOf(rec.kind, rec.id));
    const fired = Object.values(scriptedUpstream.fired()).reduce((a, b) => a + b, 0);
    scriptedUpstream.reset();
    const post = await quiet(m, rec);
    const sPost = await sandboxSeen(rec.kind, rec.id);
    const logged = (await callLog(rec.id)).slice(before);
    m.log.push(
      `alarm: ${rec.key}'s alarm runs now${faultPath ? ` [fault: ${faultPath} ${describeFault(rec.armed!.fault)}]` : ""} -> ${ran ? "ran" : "none set"}, stored ${showG(post.g)}`,
    );
    if (ran !== (pre.alarm !== null)) fail(m, `runDurableObjectAlarm says ${ran} but the alarm was ${pre.alarm}`);
    const matching = outcomes.find(
      (o) =>
        sameLogged(o.logged, logged) &&
        o.faultUsed === fired > 0 &&
        alarmClosure(rec, o.g, o.s, Date.now()).some((x) => sameG(x.g, post.g) && sameS(x.s, sPost)),
    );
    if (!matching) {
      fail(
        m,
        `${rec.key}'s alarm did not do what the model expects.\n before: stored ${showG(pre.g)}, sandbox ${showS(pre.s)}\n actual: stored ${showG(post.g)}, sandbox ${showS(sPost)}, calls ${JSON.stringify(logged.map((c) => `${c.path} ${c.status}`))}, fault fired ${fired > 0}\n expected one of:\n${outcomes.map((o) => `  stored ${showG(o.g)}, sandbox ${showS(o.s)}, calls ${JSON.stringify(o.logged.map((c) => `${c.path} ${c.status}`))}`).join("\n")}`,
      );
    }
    cover(`alarm command: ${ran ? (logged.length > 0 ? `ran, called ${logged.map((c) => c.path).join(" + ")}` : "ran, no call") : "none set"}`);
    if (matching.faultUsed) {
      cover(`fault used: ${faultName(rec.armed!.fault)} on ${faultPath} (by the alarm)`);
      rec.armed = null;
    }
    rec.g = post.g;
    rec.s = sPost;
    await checkInvariants(m, [rec]);
  }
  toString() {
    return `alarm: ${this.key ?? keyOf(this.index)}'s alarm runs now`;
  }
}

class OtpWaitCmd implements Cmd {
  key: string | null = null;
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => {
    const rec = recAt(m, this.index);
    return rec?.kind === "receipt" && rec.g.sends > 0;
  };
  async run(m: Model): Promise<void> {
    const rec = recAt(m, this.index)!;
    this.key = rec.key;
    const pre = await observe(m, rec);
    await letOtpWaitPass(rec.id);
    m.log.push(`time: ${rec.key}'s OTP resend wait is over`);
    rec.g = (await readStored(rec.kind, rec.id)).g;
    rec.s = await sandboxSeen(rec.kind, rec.id);
    if (!sameG(pre.g, rec.g)) fail(m, `letOtpWaitPass changed more than the time of ${rec.key}'s last send`);
  }
  toString() {
    return `time: ${this.key ?? keyOf(this.index)}'s OTP resend wait is over`;
  }
}

class OtpExpireCmd implements Cmd {
  key: string | null = null;
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => {
    const rec = recAt(m, this.index);
    return rec?.kind === "receipt" && rec.s.otpSentAt !== null;
  };
  async run(m: Model): Promise<void> {
    const rec = recAt(m, this.index)!;
    this.key = rec.key;
    const pre = await observe(m, rec);
    await letOtpExpire(rec.id);
    m.log.push(`time: ${rec.key}'s OTP outlives its lifetime`);
    rec.g = (await readStored(rec.kind, rec.id)).g;
    rec.s = await sandboxSeen(rec.kind, rec.id);
    if (!sameG(pre.g, rec.g)) fail(m, `letOtpExpire changed more than the time of ${rec.key}'s last send`);
  }
  toString() {
    return `time: ${this.key ?? keyOf(this.index)}'s OTP outlives its lifetime`;
  }
}

class SupplierCmd implements Cmd {
  key: string | null = null;
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => recAt(m, this.index)?.s.state === 57;
  async run(m: Model): Promise<void> {
    const rec = recAt(m, this.index)!;
    this.key = rec.key;
    const pre = await observe(m, rec);
    await letSupplierAnswer(rec.id);
    rec.g = pre.g;
    rec.s = await sandboxSeen(rec.kind, rec.id);
    m.log.push(`supplier: ${rec.key}'s supplier answers (sandbox state ${pre.s.state} -> ${rec.s.state})`);
    if (pre.s.state === 57 ? ![4, 5].includes(rec.s.state) : rec.s.state !== pre.s.state) {
      fail(m, `the supplier of ${rec.key} moved the sandbox from ${pre.s.state} to ${rec.s.state}`);
    }
  }
  toString() {
    return `supplier: ${this.key ?? keyOf(this.index)}'s supplier answers`;
  }
}

class CheckpointCmd implements Cmd {
  check = (m: Readonly<Model>) => m.recs.length > 0;
  async run(m: Model): Promise<void> {
    await converge(m, "checkpoint");
  }
  toString() {
    return "checkpoint: faults stop, every alarm runs, gateway and upstream agree";
  }
}

// ---------------------------------------------------------------------------
// Arbitraries

const recIndex = fc.integer({ min: 0, max: MAX_RECORDS - 1 });
const role = fc.constantFrom<WhoRole>("owner", "owner", "owner", "owner", "owner", "owner", "partner", "partner", "partner", "other");
/** hold-confirm is the partner's; a user's is refused (403), another user's is not found (404). */
const holdRole = fc.constantFrom<WhoRole>("partner", "partner", "partner", "owner", "other");
const crash = fc.constantFrom(...(Array(11).fill(false) as boolean[]), true);
const otpChoice = fc.constantFrom<string | undefined>(OTP_RIGHT, OTP_RIGHT, OTP_WRONG[0], OTP_WRONG[1], OTP_WRONG[2], undefined);
const payCard = fc.constantFrom<Behaviour>(
  ...(Array(12).fill("ok") as Behaviour[]),
  "insufficient",
  "insufficient",
  "busy",
  "busy",
  "error",
  "error",
  "supplier_pending",
  "supplier_pending",
  "supplier_pending",
  "paid_timeout",
);

const createSpec: fc.Arbitrary<CreateSpec> = fc.record({
    owner: fc.constantFrom<Who>("partner", "user1", "user2"),
    kind: fc.constantFrom<KindName>("receipt", "receipt", "receipt", "transfer"),
    merchant: fc.constantFrom<1001 | 1002 | 1003>(1001, 1001, 1001, 1003, 1003, 1002),
    isHold: fc.constantFrom(false, false, false, true),
    amount: fc.constantFrom(500_000, 2_000_000),
  sender: fc.constantFrom<Behaviour>(...(Array(8).fill("ok") as Behaviour[]), "insufficient", "error", "busy", "paid_timeout"),
});
const createArb = createSpec.map((spec) => new CreateCmd(spec));

const opArb = (req: fc.Arbitrary<OpRequest>, crashable = true, who = role) =>
  fc.tuple(recIndex, who, req, crashable ? crash : fc.constant(false)).map(([i, r, q, c]) => new OpCmd(i, r, q, c));
/** A receipt pay, three times in four after asking for an OTP when none is live. */
const payArb = (req: fc.Arbitrary<OpRequest>) =>
  fc.tuple(recIndex, role, req, crash, fc.constantFrom(true, true, true, false)).map(([i, r, q, c, f]) => new OpCmd(i, r, q, c, f));

const faultSpec = fc.oneof(
  { weight: 5, arbitrary: fc.constant<FaultSpec>({ kind: "lost" }) },
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant("status" as const), status: fc.constantFrom<500 | 502>(500, 502), act: fc.boolean() }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("status" as const), status: fc.constantFrom<503 | 429>(503, 429), act: fc.constant(false) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("body" as const), variant: fc.constantFrom<"html" | "string-state">("html", "string-state") }) },
  { weight: 1, arbitrary: fc.constantFrom<FaultSpec>({ kind: "timeout" }, { kind: "late" }) },
);

const commandArbs: fc.Arbitrary<Cmd>[] = [
  fc.oneof(
    { weight: 3, arbitrary: createArb },
    { weight: 4, arbitrary: opArb(fc.record({ op: fc.constant("authorize" as const), card: fc.constantFrom<Behaviour>("ok", "ok", "ok", "busy"), anonymous: fc.boolean() })) },
    { weight: 9, arbitrary: payArb(fc.record({ op: fc.constant("pay" as const), card: payCard, otp: otpChoice, anonymous: fc.constant(false) })) },
    {
      weight: 4,
      arbitrary: payArb(
        fc.record({ op: fc.constant("pay" as const), card: fc.constant<Behaviour>("ok"), otp: fc.constantFrom(OTP_RIGHT, OTP_WRONG[0], OTP_WRONG[1]), anonymous: fc.constant(true) }),
      ),
    },
    { weight: 5, arbitrary: opArb(fc.record({ op: fc.constant("a2c-pay" as const), otp: otpChoice })) },
    { weight: 2, arbitrary: opArb(fc.constant<OpRequest>({ op: "hold-confirm" }), true, holdRole) },
    { weight: 2, arbitrary: opArb(fc.constant<OpRequest>({ op: "cancel" })) },
    { weight: 3, arbitrary: opArb(fc.constant<OpRequest>({ op: "check" }), false) },
    {
      weight: 10,
      arbitrary: fc
        .tuple(recIndex, fc.constantFrom<FaultRole>("next", "next", "next", "next", "next", "next", "pay", "pay", "anonymous pay", "authorize", "hold-confirm", "cancel", "read", "read"), faultSpec)
        .map(([i, r, f]) => new FaultCmd(i, r, f)),
    },
    { weight: 1, arbitrary: recIndex.map((i) => new EvictCmd(i)) },
    { weight: 2, arbitrary: recIndex.map((i) => new AlarmCmd(i)) },
    { weight: 1, arbitrary: recIndex.map((i) => new OtpWaitCmd(i)) },
    { weight: 1, arbitrary: recIndex.map((i) => new OtpExpireCmd(i)) },
    { weight: 1, arbitrary: recIndex.map((i) => new SupplierCmd(i)) },
    { weight: 1, arbitrary: fc.constant(new CheckpointCmd()) },
  ),
];

// ---------------------------------------------------------------------------
// The property

/** One run: a fresh pool of records, the commands, then convergence. */
async function runModel(pool: readonly CreateSpec[], cmds: Iterable<Cmd>): Promise<Model> {
  scriptedUpstream.reset();
  const m = await newModel();
  try {
    for (const spec of pool) await new CreateCmd(spec).run(m);
    await fc.asyncModelRun(() => ({ model: m, real: {} }), cmds);
    await converge(m, "end of run");
  } finally {
    scriptedUpstream.reset();
    if (env.MODEL_VERBOSE) console.log(`${m.log.join("\n")}`);
  }
  return m;
}

it(
  `money invariants hold over random sequences (${RUNS} runs x up to ${STEPS} steps, seed ${SEED})`,
  async () => {
    const started = Date.now();
    let calls = 0;
    let steps = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(createSpec, { minLength: 1, maxLength: 2 }),
        // No bias towards short sequences in the first runs: every run may go deep.
        fc.noBias(fc.commands(commandArbs, { maxCommands: STEPS, size: "max" })),
        async (pool, cmds) => {
          const m = await runModel(pool, cmds);
          calls += m.step;
          // Every command, create and convergence writes one line of the run's log.
          steps += m.log.length;
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
    const lines = [...coverage].sort(([a], [b]) => a.localeCompare(b)).map(([what, n]) => `  ${String(n).padStart(5)}  ${what}`);
    console.log(`model: ${RUNS} runs, ${steps} steps, ${calls} gateway calls, ${((Date.now() - started) / 1000).toFixed(1)} s; what they exercised:\n${lines.join("\n")}`);
  },
  Math.max(120_000, RUNS * 20_000),
);

// ---------------------------------------------------------------------------
// Sequences the random runs found once, kept as they were shrunk.

const QR_RECEIPT: CreateSpec = { owner: "partner", kind: "receipt", merchant: 1002, isHold: false, amount: 500_000, sender: "ok" };
const LOST_BEFORE_UPSTREAM: FaultSpec = { kind: "status", status: 500, act: false };
const anonymousPay = (otp: string) => new OpCmd(0, "owner", { op: "pay", card: "ok", otp, anonymous: true }, false);

/*
 * GATEWAY BUG (fixed; kept as found): a receipt of a QR merchant that three failed OTP guesses end, at least one
 * of them unconfirmed, is never settled. The gateway cancels an exhausted receipt upstream (rule
 * 2); the upstream refuses to cancel a QR merchant's receipt (rule 4: CANCEL_NOT_ALLOWED, a
 * definitive refusal); the receipt's alarm then retries check-id + cancel every second, forever
 * (reconcile_attempts is reset by each successful read, so the backoff never grows), and the
 * receipt never shows 21. (Three guesses the upstream judged wrong do not show it: the upstream
 * cancels those receipts itself.) Minimal sequence, as the model shrank it:
 *
 *   1. the partner creates a receipt at merchant 1002 (QR);
 *   2. three times: receipt/anonymous/pay {card 8600000000000007/3012, otp} is answered HTTP 500
 *      by the upstream before it looked at anything (the scripted fault {status: 500, act: false})
 *      -> 502 upstream_error each time; each later call reconciles the one before as an
 *      unconfirmed guess;
 *   3. the alarm reconciles the third: 3 guesses, otp_attempts_exhausted, receipt/cancel ->
 *      400 CANCEL_NOT_ALLOWED; the alarm is set again 1 s later, and again, and again.
 *
 * Expected: the gateway stops retrying a cancel the upstream refuses for good and keeps the
 * receipt closed at the edge (as it does for transfers); its alarm ends. Invariant 5 fails
 * ("alarms still set after 12 rounds").
 */
it("regression: a QR receipt ended by unconfirmed OTP guesses settles: closed at the edge, its alarm ends", async () => {
  const cmds: Cmd[] = [];
  for (const otp of [OTP_WRONG[0], OTP_WRONG[1], OTP_RIGHT]) {
    cmds.push(new FaultCmd(0, "anonymous pay", LOST_BEFORE_UPSTREAM), anonymousPay(otp));
  }
  await runModel([QR_RECEIPT], cmds);
}, 60_000);
