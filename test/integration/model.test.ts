// A model-based property test of the money rules, judged by the contract.
// fast-check generates sequences of operations by the partner and two users
// on a small pool of receipts and transfers, with upstream faults on the
// calls (lost answers, 5xx, busy, unreadable bodies, timeouts, hung
// connections, codes the gateway does not know or none at all,
// VALIDATION_ERROR, an upstream that acts after the gateway gave up), faults
// on creates, crashes of a record's object (before the upstream acts, after
// it acted, just after the answer), evictions, racing requests, the
// supplier's answer, an events queue that loses a message, a receiver that
// is down, time passing for a record's alarms, to its expiry (rule 12) and to
// its end (rule 10), the cron's retention, a user's erasure, and requests
// refused before the gateway acts.
//
// The oracle (test/model/contract.ts) sees what a caller, the upstream and
// the webhook receiver can: each answer (status, code, body state), the
// sandbox's own view of the record and its call log, and the events the
// receiver got. It reads the gateway's storage only where the contract
// speaks of what is stored (invariants 6, 8, 9 and 10), and keeps no copy of
// its accounting: a failed OTP guess is counted from the upstream's
// log and the caller's answers, as rule 2 defines it. After every step:
//
//  - each answer is one the contract allows for that caller, operation and
//    upstream state (and the body agrees with the upstream: a 200 pay was
//    accepted upstream, otp_invalid was judged wrong there, attempts_left
//    is what rule 2 leaves, a refusal changed nothing upstream, no 500);
//  1. no double debit: at most one pay per record succeeds upstream;
//  2. no user's cancel of a paid or held receipt reaches the upstream, ever:
//     neither the user's request nor the gateway's completion of it after
//     its answer was lost (told apart in the upstream's log by the reason the
//     gateway gives, under an alarm's or a later request's id, and credited
//     to the caller whose cancel was lost), nor the gateway's own cancel;
//  3. at most three OTPs the upstream may have judged as not right (refused
//     as wrong, an unknown outcome, a code the gateway does not know or no
//     code; a VALIDATION_ERROR is none) reach it per record;
//  4. a record is ended for OTPs (otp_attempts_exhausted, the gateway's
//     cancel upstream, the exhausted event) only after three failed guesses,
//     and the third is answered otp_attempts_exhausted, a receipt then
//     cancelled upstream at once when nothing stands in the way (a third
//     guess whose outcome was unknown: by the first alarm that looks at the
//     upstream, due within a minute).
//
// At checkpoints and at the end, once faults stop, late calls reached the
// upstream and every alarm ran (time moved on for each record until nothing
// was owed), the events were delivered through the consumer:
//
//  5. check-id / a2c get-by-id answer the upstream's state; every state the
//     upstream reached is stored and delivered at least once as its event
//     (receipt.paid for 4, ...), with the created event and, after three
//     failed guesses, the exhausted one; no event claims a state the
//     upstream never held; a receipt ended by guesses is cancelled upstream;
//  6. no card number, expiry, OTP or card token in any storage or event,
//     nor in any line the gateway logged during the run;
//  7. rule 14: every paid receipt ends fiscalized or listed: a receipt
//     whose fiscal data the upstream still lacks (its sale's, or a refund's)
//     is listed by fiscal/pending with the upstream's state; one whose data
//     the upstream shows was delivered in an event carrying it, or is still
//     listed only because no read came since it appeared, and after a
//     fresh check-id it is listed no longer. (Some pays use
//     tok_sandbox_fiscal_late, and the fiscal data operator answers when a
//     step says so.)
//
// Where the rules cross, as the runs and the scenarios meet them:
//
//  8. rule 13: a user's request refused before the gateway acted (its body,
//     a malformed Idempotency-Key, a bad token, another user's record, a
//     replay, a resend too soon; and any step whose requests were all
//     refused so) changes no counter of rule 13 and reaches nothing upstream;
//  9. rule 10 across rule 11: after a user's erasure no raw phone number or
//     `account` value of theirs is in any store src/stores.ts registers
//     (walked from the list itself: the record's tables with the answers
//     kept for Idempotency-Keys, D1, rule 13's counters, the audit trail's
//     writers and batches, the statements), nor in the gateway's log; a
//     repeat of a kept answer replays it with the values masked;
// 10. rule 12 across rule 8: the expiry never acts while a pay's outcome is
//     unknown or its late reads are owed, and a receipt the upstream shows
//     paid is never cancelled by the gateway; the gateway's own cancel is
//     noted before it leaves (the record shows the note while the upstream
//     holds the call), reconciled within a minute when its outcome is
//     unknown, and read late: one the upstream makes late is found within
//     two minutes and told with data.reason expired.
//
// The scenarios check their own rules as they go: a lost cancel completed
// only as its caller may (a user's refused and audited once the late payment
// landed, the partner's a refund); a final record (a transfer closed at the
// edge too) ends RECORD_RETENTION_DAYS on, but only once the log lists none
// of its events, and until then every listed event has its body; a create
// retried with a lost create's tid adopts what that create made only when
// its body is the same; a confirm the upstream made late is found by a late
// read; an erasure leaves every event body (listed, resent, delivered later,
// in the record's outbox) with the values erased.
//
// Rule 11: some money moves carry an Idempotency-Key, and a caller repeats a
// key (at once, after a fault or a crash of the first, after the record's
// alarms ran or its object was evicted, after the upstream acted late), with
// the same body or another. A repeat never reaches the upstream with the
// operation again (the log holds at most one call of it for the key's
// requests) and answers what the key kept (same status and body,
// Idempotent-Replayed: true) or, after an unknown outcome, what the upstream
// shows (200 iff the operation took effect there, else 502 upstream_error);
// another body is 409 idempotency_key_reused and reaches nothing upstream.
//
// Sizes: MODEL_RUNS (30), MODEL_STEPS (25), MODEL_SEED (fixed) from the
// bindings (vitest.config.ts passes the environment's); `npm run test:model
// -- --runs N [--seed S|random]` runs longer. The rare money paths (a user's
// cancel of a paid and of a held receipt, hold-confirm after pay, an
// exhausted transfer, a busy answer to an exhaustion cancel, racing requests,
// each fault, each scenario's rule: REQUIRED) are counted and printed, and
// the fixed seed's 20 or more runs must reach every one (another seed only
// says what it missed). A failure prints fast-check's seed and path, the
// shrunk commands, and the failing run's history.

import { evictDurableObject, listDurableObjectIds, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import fc from "fast-check";
import { expect, it, vi } from "vitest";
import { readConfig } from "../../src/config/config";
import { retentionPolicy } from "../../src/config/retention-policy";
import { RING_SLOTS, slotPeriodMs } from "../../src/d1/ring";
import { clock as gatewayClock } from "../../src/shared/clock";
import { flushAudit } from "../audit";
import { callGateway } from "../events";
import {
  API,
  cardDataIn,
  dumpD1,
  letFiscalDataAppear,
  letLatePayHappen,
  letOtpExpire,
  letOtpWaitPass,
  letSupplierAnswer,
  newTid,
  newUser,
  PARTNER_KEY,
  SANDBOX_OTP_TTL_MS,
  userToken,
} from "../helpers";
import {
  ANON_EXPIRE,
  ANON_PAN,
  type Answer,
  type Behaviour,
  cancelSenderOf,
  EXHAUSTION_REASON,
  EXPIRY_REASONS,
  eventOfState,
  exhaustedEvent,
  type FaultName,
  FISCAL_EVENTS,
  fiscalMissing,
  guessesOf,
  judge,
  judgeFiscal,
  judgeRepeat,
  type KeyKept,
  type KindName,
  keyKept,
  type LoggedCall,
  lostCancel,
  MAX_GUESSES,
  OTP_RIGHT,
  OTP_WRONG,
  RECEIVER_CARD,
  type RecMeta,
  refusedInUnknownWords,
  replay,
  type Seen,
  type Sent,
  showAnswer,
  showCalls,
  stateAfter,
  TOKEN_OF,
  unknownAnswer,
  type Who,
} from "../model/contract";
import {
  alarmDue,
  type Clock,
  callLog,
  callsOfRequest,
  type Delivered,
  dumpObject,
  dumpTidIndex,
  type EventQueue,
  eventQueue,
  everyRegisteredStore,
  fiscalListed,
  letRecordTimePass,
  listedEvents,
  newClock,
  park,
  resendEvent,
  riskCounters,
  runCron,
  runNextAlarm,
  type SandboxSeen,
  sandboxSeen,
  stored,
  stubOf,
} from "../model/world";
import { type DeferredRequest, type Fault, forwardDeferred, scriptedUpstream } from "../support/scripted-upstream";

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
/** The seed npm test runs: its runs must reach every rare path (REQUIRED). */
const FIXED_SEED = 20_261_207;
const SEED = numberFrom(env.MODEL_SEED, FIXED_SEED);

/** The pool: few records, so that sequences go deep on each (the scenario commands add their own). */
const MAX_RECORDS = 7;
/**
 * A late call is sent on while its record's clock is within this of the
 * call: the contract promises a late change is found within 2 minutes of
 * the call in development, so the upstream acts late but inside that window.
 */
const LATE_WITHIN_MS = 90_000;
/** The contract finds a late change within 2 minutes of the call (development). */
const LATE_FOUND_WITHIN_MS = 120_000;
/** A record with a call in flight is reconciled within a minute of the fault (rule 8). */
const RECONCILED_WITHIN_MS = 60_000;
/** Alarms a record may need before nothing is owed (reconciliation, late reads, retried cancels, drains). */
const MAX_ALARMS = 20;
const CARD_DATA = { pans: [ANON_PAN, RECEIVER_CARD], otps: [OTP_RIGHT, ...OTP_WRONG], expiries: [ANON_EXPIRE] };

// ---------------------------------------------------------------------------
// The model: what the test sent and saw

interface Late {
  request: DeferredRequest;
  /** The record's clock (real time plus the time moved on) when the call was made. */
  at: number;
  label: string;
}

interface Rec extends RecMeta {
  clock: Clock;
  /** The sandbox's view after the last step. */
  view: SandboxSeen;
  /** The sandbox's call log for the record after the last step. */
  calls: LoggedCall[];
  /** The upstream's states as the test saw them between steps. */
  seen: Seen[];
  /** Calls the upstream has not acted on yet: it will, later. */
  late: Late[];
  /** When (the record's clock) a pay of it met an unknown outcome or a crash: it may land late, read late (rule 8). */
  lostPays: number[];
  /** The most failed guesses the record had (rule 2: once three, it may stay closed). */
  maxGuesses: number;
  /** A fault hit a cancel of this record: the cancel after three failed guesses may be left to the alarm. */
  cancelTrouble: boolean;
}

interface Model {
  run: number;
  step: number;
  tokens: Record<Who, string>;
  /** The users' subs (the erasure names them). */
  subs: Record<"user1" | "user2", string>;
  /** Records made so far (their keys stay unique when an ended record leaves the pool). */
  made: number;
  recs: Rec[];
  sents: Map<string, Sent>;
  queue: EventQueue;
  delivered: Delivered[];
  log: string[];
  /** Every line the gateway logged during the run (console.log, info, warn, error, debug). */
  logged: string[];
  /** The Idempotency-Keys the callers used, by key (rule 11). */
  keys: Map<string, KeyUse>;
}

/** An Idempotency-Key as the test used it: the request it was first sent with, and what the key kept of it. */
interface KeyUse {
  key: string;
  rec: string;
  who: Who;
  req: OpRequest;
  /** The request whose answer the key kept or left open; null while the key kept nothing (it may be used again). */
  first: Sent | null;
  kept: KeyKept;
  /** The answer the key settled on: the first's kept one, or what the first repeat after an unknown outcome answered. */
  settled: { status: number; raw: string } | null;
  /** Every request that carried the key since its first. */
  requests: string[];
  /** What the first met: a fault on its own call, a crash of the record's object. */
  firstMet: "nothing" | "fault" | "crash";
  /** Alarms ran (or the object was evicted) since the first. */
  meanwhile: boolean;
}

let runCounter = 0;

/** What the runs exercised, printed at the end. */
const coverage = new Map<string, number>();
const cover = (what: string) => coverage.set(what, (coverage.get(what) ?? 0) + 1);

/** The rare money paths and faults every default run must contain (counted across its fast-check runs). */
const REQUIRED = [
  "rare: a user's cancel of a paid receipt",
  "rare: a user's cancel of a held receipt",
  "rare: hold-confirm after pay",
  "rare: an exhausted transfer",
  "rare: a busy answer to an exhaustion cancel",
  "rare: racing requests on one record",
  "fault: the upstream acted after the gateway gave up",
  "fault: an unknown code after the upstream judged the OTP",
  "fault: a crash before the upstream acted",
  "fault: a crash after the upstream acted",
  "fault: a crash just after the answer",
  "fault: on a create, then a retry with the same tid",
  "fault: the supplier refused (57 -> 21)",
  "fault: the queue lost an event",
  "fault: a 400 with no code refusing an OTP pay (an unconfirmed guess)",
  "fault: a VALIDATION_ERROR refusing an OTP pay (no guess)",
  "rare: a user's lost cancel (hung), then the late payment: refused, never refunded",
  "rare: a user's lost cancel (killed), then the late payment: refused, never refunded",
  "rare: the partner's lost cancel (hung), then the late payment: completed, refunded",
  "rare: the partner's lost cancel (killed), then the late payment: completed, refunded",
  "rare: a record's time came while the log listed its undelivered events: it waited for the log, then went",
  "rare: a transfer closed at the edge (the upstream at 0) is final, and ends (rule 10)",
  "rare: a create with a lost create's tid and another amount: not adopted",
  "rare: a create with a lost create's tid and another receiver card: not adopted",
  "rare: an identical retry adopts the record a lost create made",
  "rare: a hold-confirm the upstream made after the gateway gave up, found paid by a late read",
  "rare: a user's data erased: every event body shows the erased values",
  "rare: a repeat with the same key after a lost answer: the upstream's outcome, no second call",
  "rare: a repeat with the same key after a crash: the first's answer or the upstream's outcome, no second call",
  "rare: the same key with another body: idempotency_key_reused, nothing upstream",
  "rare: a paid receipt whose fiscal data is missing, listed by fiscal/pending",
  "rare: late fiscal data found by a read and delivered: receipt.fiscalized",
  "rare: late fiscal data found by a read and delivered: receipt.refund_fiscalized",
];

class ModelFailure extends Error {}

function fail(m: Model, message: string): never {
  throw new ModelFailure(`${message}\n--- run ${m.run}, what happened (seed ${SEED}) ---\n${m.log.join("\n")}`);
}

const keyOf = (index: number) => `R${index + 1}`;
/** A command names a record by a number: the (number mod pool size)-th record, so every command finds one. */
const recAt = (m: Readonly<Model>, index: number): Rec | undefined => (m.recs.length === 0 ? undefined : m.recs[index % m.recs.length]);
const sentsOf = (m: Model, rec: Rec) => [...m.sents.values()].filter((s) => s.rec === rec.key);
const lastSeq = (calls: readonly LoggedCall[]) => calls.reduce((max, c) => Math.max(max, c.seq), 0);
const readPathOf = (kind: KindName) => (kind === "receipt" ? "receipt/check-id" : "a2c/get-by-id");

type Role = "owner" | "partner" | "other";
const whoOf = (role: Role, owner: Who): Who => (role === "owner" ? owner : role === "partner" ? "partner" : owner === "user1" ? "user2" : "user1");

// ---------------------------------------------------------------------------
// Talking to the gateway

type OpRequest =
  | { op: "authorize"; anonymous: boolean; card: Behaviour }
  | { op: "pay"; anonymous: boolean; card: Behaviour; otp?: string }
  | { op: "hold-confirm" }
  | { op: "cancel"; reason?: string }
  | { op: "check" };

async function send(m: Model, path: string, body: unknown, who: Who, requestId: string, key?: string) {
  return exports.default.fetch(`${API}/${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${m.tokens[who]}`,
      "x-request-id": requestId,
      ...(key === undefined ? {} : { "idempotency-key": key }),
    },
    body: JSON.stringify(body),
  });
}

async function readAnswer(res: Response): Promise<Answer & { raw: string; replayed: boolean }> {
  const raw = await res.text();
  const replayed = res.headers.get("idempotent-replayed") === "true";
  let body: any;
  try {
    body = JSON.parse(raw);
  } catch {
    return { status: res.status, code: "(not JSON)", raw, replayed };
  }
  if (res.status === 200) return { status: 200, state: typeof body?.state === "number" ? body.state : undefined, raw, replayed };
  return { status: res.status, code: body?.error?.code, attemptsLeft: body?.error?.attempts_left, raw, replayed };
}

function mainPathOf(rec: RecMeta, req: OpRequest): string {
  switch (req.op) {
    case "authorize":
      return req.anonymous ? "receipt/anonymous/authorize" : "receipt/authorize";
    case "pay":
      return rec.kind === "transfer" ? "a2c/pay" : req.anonymous ? "receipt/anonymous/pay" : "receipt/pay";
    case "hold-confirm":
      return "receipt/hold-confirm";
    case "cancel":
      return "receipt/cancel";
    case "check":
      return readPathOf(rec.kind);
  }
}

function bodyOf(rec: RecMeta, req: OpRequest): Record<string, unknown> {
  const id = rec.id;
  const numberCard = { number: ANON_PAN, expire: ANON_EXPIRE };
  switch (req.op) {
    case "authorize":
      return { id, card: req.anonymous ? numberCard : { token: TOKEN_OF[req.card] } };
    case "pay":
      if (rec.kind === "transfer") return { id, ...(req.otp === undefined ? {} : { otp: req.otp }) };
      return { id, card: req.anonymous ? numberCard : { token: TOKEN_OF[req.card] }, ...(req.otp === undefined ? {} : { otp: req.otp }) };
    case "cancel":
      return { id, reason: req.reason ?? "model test" };
    default:
      return { id };
  }
}

/** Which operations a record takes: a transfer has no authorize nor hold; its pay needs no card. */
const appliesTo = (req: OpRequest, kind: KindName) => kind === "receipt" || req.op === "pay" || req.op === "check" || req.op === "cancel";

function describeReq(rec: RecMeta, req: OpRequest): string {
  const otp = (o: string | undefined) => (o === undefined ? "without an OTP" : o === OTP_RIGHT ? "with the right OTP" : `with a wrong OTP (${o})`);
  switch (req.op) {
    case "authorize":
      return `asks for an OTP (${req.anonymous ? "card number" : TOKEN_OF[req.card]}) on`;
    case "pay":
      return rec.kind === "transfer" ? `sends a2c ${otp(req.otp)}:` : `pays (${req.anonymous ? "card number" : TOKEN_OF[req.card]}) ${otp(req.otp)}:`;
    case "hold-confirm":
      return "confirms the hold of";
    case "cancel":
      return "cancels";
    case "check":
      return "checks";
  }
}

// ---------------------------------------------------------------------------
// Faults

interface StepFaults {
  /** On the call the operation exists to make. */
  main?: FaultName;
  /** On a read of the record (the look an operation takes first when the record may have moved). */
  read?: FaultName;
  /** On a receipt/cancel the operation causes (the cancel after three failed guesses). */
  cancel?: FaultName;
  crash?: "mid" | "before" | "after";
}

function toScripted(fault: FaultName): Fault {
  switch (fault) {
    case "lost":
      return { kind: "lost" };
    case "5xx":
      return { kind: "status", status: 500, act: false };
    case "5xx-after":
      return { kind: "status", status: 502, act: true };
    case "busy":
      return { kind: "status", status: 503, act: false, retryAfter: 1 };
    case "timeout":
      return { kind: "timeout" };
    case "hung":
      return { kind: "timeout", act: false };
    case "bad-body":
      return { kind: "body", body: "<html>oops</html>" };
    case "late":
      return { kind: "defer" };
    case "late-hang":
      return { kind: "defer", hang: true };
    case "unknown-code":
      return { kind: "status", status: 400, code: "SOME_UNKNOWN_CODE", message: "Something the gateway was never told of", act: false };
    case "unknown-code-after":
      return { kind: "status", status: 400, code: "SOME_UNKNOWN_CODE", message: "Something the gateway was never told of", act: true };
    case "no-code":
      return { kind: "body", status: 400, body: "{}", act: false };
    case "no-code-after":
      return { kind: "body", status: 400, body: "{}", act: true };
    case "validation":
      return { kind: "status", status: 400, code: "VALIDATION_ERROR", message: "Body does not match the operation", act: false };
    case "crash-mid":
    case "crash-before":
      throw new Error("a crash is a hold, not a scripted answer");
  }
}

const abort = (rec: Rec) =>
  runInDurableObject(stubOf(rec.kind, rec.id), (_i, state) => {
    state.abort("model test: crash");
  }).catch(() => undefined);

// ---------------------------------------------------------------------------
// One step: requests on one record, then what the upstream shows

interface Item {
  who: Who;
  req: OpRequest;
  faults?: StepFaults;
  /** An Idempotency-Key (rule 11): a fresh one, or one an earlier request carried (a repeat, or another body with it). */
  key?: string;
}

/** The record's clock: real time, plus the time the test moved it on. */
const clockNow = (rec: Rec) => gatewayClock.now() + rec.clock.ahead;

/**
 * Rule 13's counters, forgotten. The model's world pays with the sandbox's
 * few cards hundreds of times, far past rule 13's limits, and its oracle
 * judges the other rules; rule 13 is test/integration/risk-limits.test.ts's.
 */
async function forgetRiskCounters(): Promise<void> {
  for (const id of await listDurableObjectIds(env.RISK)) {
    await runInDurableObject(env.RISK.get(id), (_object, state) => state.storage.deleteAll());
  }
}

async function perform(m: Model, rec: Rec, items: Item[]): Promise<Sent[]> {
  const step = ++m.step;
  await forgetRiskCounters();
  const racing = items.length > 1;
  const pre = await sandboxSeen(rec.kind, rec.id);
  const preSeq = lastSeq(rec.calls);
  rec.seen.push({ afterSeq: preSeq, state: pre.state });

  // Faults are scripted for this step only, on this record's calls.
  scriptedUpstream.reset();
  const scripted = new Map<string, FaultName>();
  const first = items[0]!;
  const faults = racing ? {} : (first.faults ?? {});
  const mainPath = mainPathOf(rec, first.req);
  // A crash: the call is held (after the upstream acted) or kept (before it did), and the object is aborted meanwhile.
  let crashWait: Promise<void> | undefined;
  let release = () => {};
  if (faults.crash === "mid") {
    const held = scriptedUpstream.hold(mainPath, { id: rec.id, act: true });
    crashWait = held.arrived;
    release = held.release;
    scripted.set(mainPath, "crash-mid");
  } else if (faults.crash === "before") {
    scriptedUpstream.on(mainPath, { kind: "defer", hang: true }, { id: rec.id });
    crashWait = scriptedUpstream.deferredArrived();
    scripted.set(mainPath, "crash-before");
  } else if (faults.main) {
    scriptedUpstream.on(mainPath, toScripted(faults.main), { id: rec.id });
    scripted.set(mainPath, faults.main);
  }
  const readPath = readPathOf(rec.kind);
  if (faults.read && !scripted.has(readPath)) {
    scriptedUpstream.on(readPath, toScripted(faults.read), { id: rec.id });
    scripted.set(readPath, faults.read);
  }
  if (faults.cancel && rec.kind === "receipt" && !scripted.has("receipt/cancel")) {
    scriptedUpstream.on("receipt/cancel", toScripted(faults.cancel), { id: rec.id });
    scripted.set("receipt/cancel", faults.cancel);
  }

  const ids = items.map((_, i) => `m${m.run}-s${step}${racing ? "ab"[i] : ""}`);
  const pending = items.map((item, i) => send(m, mainPathOf(rec, item.req), bodyOf(rec, item.req), item.who, ids[i]!, item.key));
  if (crashWait) {
    const firstDone = await Promise.race([crashWait.then(() => "arrived" as const), pending[0]!.then(() => "answered" as const)]);
    if (firstDone === "arrived") await abort(rec);
    release();
  }
  const answers = await Promise.all(pending.map(async (p) => readAnswer(await p)));
  const hits = scriptedUpstream.firedOn().map((hit) => ({ path: hit.path, fault: scripted.get(hit.path)! }));
  for (const request of scriptedUpstream.takeDeferred())
    rec.late.push({ request, at: clockNow(rec), label: `${request.path} of ${request.requestId}` });
  scriptedUpstream.reset();
  if (faults.crash === "after") await abort(rec);

  const sents = items.map(
    (item, i): Sent => ({
      requestId: ids[i]!,
      rec: rec.key,
      step,
      who: item.who,
      op: item.req.op,
      anonymous: rec.kind === "receipt" && "anonymous" in item.req && item.req.anonymous,
      card: "card" in item.req ? item.req.card : undefined,
      otp: item.req.op === "pay" ? item.req.otp : undefined,
      mainPath: mainPathOf(rec, item.req),
      answer: { status: answers[i]!.status, code: answers[i]!.code, state: answers[i]!.state, attemptsLeft: answers[i]!.attemptsLeft },
      racing,
      hits: i === 0 ? hits : [],
      preSeq,
      key: item.key,
    }),
  );
  for (const sent of sents) m.sents.set(sent.requestId, sent);
  await look(m, rec);

  const armed = [...scripted].map(([path, f]) => `${path} ${f}`).join(", ");
  const note =
    (hits.length > 0 ? ` [fault: ${hits.map((h) => `${h.path} ${h.fault}`).join(", ")}]` : armed ? ` [fault armed, not met: ${armed}]` : "") +
    (faults.crash === "after" ? " [the object crashes just after answering]" : "");
  items.forEach((item, i) => {
    const hit = i === 0 ? note : "";
    const own = rec.calls.filter((c) => c.request_id === ids[i]);
    const keyed = item.key === undefined ? "" : ` (Idempotency-Key ${item.key}${m.keys.get(item.key)?.first ? ", again" : ""})`;
    m.log.push(
      `${ids[i]}: ${item.who} ${describeReq(rec, item.req)} ${rec.key}${keyed}${racing ? " (racing)" : ""}${hit} -> ${showAnswer(sents[i]!.answer)}${answers[i]!.replayed ? " (replayed)" : ""}; upstream ${pre.state} -> ${rec.view.state}${own.length ? `, calls: ${showCalls(own)}` : ""}`,
    );
  });

  // Each answer against the contract.
  const states = new Set([pre.state, rec.view.state]);
  if (racing) {
    for (const c of rec.calls.filter((call) => call.seq > preSeq)) {
      const s = stateAfter(rec, c, m.sents.get(c.request_id ?? ""));
      if (s !== null) states.add(s);
    }
  }
  const all = sentsOf(m, rec);
  const guessesBefore = guessesOf(
    rec,
    all.filter((s) => s.step < step),
    rec.calls,
  );
  const guessesAfter = guessesOf(rec, all, rec.calls);
  const history = replay(rec, rec.calls, rec.seen, m.sents).states;
  for (const [i, sent] of sents.entries()) {
    const raw = answers[i]!.raw.slice(0, 400);
    if (sent.answer.status === 500) fail(m, `${sent.requestId} answered 500: ${raw}`);
    if (judgeKeyed(m, rec, sent, answers[i]!, items[i]!, faults)) continue;
    const why = judge({
      meta: rec,
      sent,
      before: racing ? [...states] : [pre.state],
      after: rec.view.state,
      own: rec.calls.filter((c) => c.request_id === sent.requestId),
      guessesBefore,
      guessesAfter,
      maxGuesses: rec.maxGuesses,
      history,
      cancelReason: rec.view.cancelReason,
    });
    if (why) fail(m, `${sent.requestId}: ${why}\n  answer: ${raw}`);
  }
  rec.maxGuesses = Math.max(rec.maxGuesses, guessesAfter);
  if (hits.some((h) => h.path === "receipt/cancel")) rec.cancelTrouble = true;
  // Rule 2: the third failed guess ends a receipt upstream at once, unless something stood in the way:
  // once the gateway spoke to the upstream about the record in a step that met no fault, it knows.
  const spoke = rec.calls.some((c) => ids.includes(c.request_id ?? "")) || hits.some((h) => h.path === mainPath);
  const known = (h: Sent["hits"][number]) => h.path === mainPath && (h.fault === "busy" || h.fault.startsWith("unknown-code"));
  const quiet = hits.every(known) && !sents.some((s) => unknownAnswer(s.answer)) && !faults.crash;
  if (sents.some((s) => s.op === "pay" && (unknownAnswer(s.answer) || faults.crash))) rec.lostPays.push(clockNow(rec));
  if (quiet && spoke) exhaustionSettled(m, rec, "after the step");
  await refusalsCountedNothing(m, rec, sents, hits);
  checkRecord(m, rec);
  coverStep(m, rec, sents, pre.state, hits, faults);
  return sents;
}

/** The statuses of a request refused before the gateway acted (rule 13: it counts nothing at all). */
const REFUSED_BEFORE_ACTING = new Set([400, 401, 403, 404, 409, 413, 415, 429]);

/**
 * Rule 13: a user's request refused before the gateway acted (a status of
 * REFUSED_BEFORE_ACTING with no call of its own reaching the upstream and
 * no fault met), or answered from its key, counts nothing. The counters were
 * forgotten when the step began: a step of such requests alone leaves them
 * empty.
 */
async function refusalsCountedNothing(m: Model, rec: Rec, sents: Sent[], hits: Sent["hits"]): Promise<void> {
  if (hits.length > 0 || sents.every((s) => s.who === "partner")) return;
  const refused = (s: Sent) =>
    !rec.calls.some((c) => c.request_id === s.requestId) && (REFUSED_BEFORE_ACTING.has(s.answer.status) || s.repeatOf !== undefined);
  if (!sents.every(refused)) return;
  const counters = await riskCounters();
  if (counters.length > 0)
    fail(
      m,
      `rule 13: ${sents.map((s) => `${s.requestId} (${showAnswer(s.answer)})`).join(", ")}, refused before the gateway acted, counted: ${counters.join("; ").slice(0, 400)}`,
    );
  for (const s of sents) cover(`refusal counted nothing: ${s.op} -> ${s.repeatOf !== undefined ? "replayed" : s.answer.code}`);
}

/**
 * Rule 11 for a request that carried a key: a repeat of a key that kept an
 * answer or was left open is judged by judgeRepeat (true: judged); any other
 * is judged as a request of its own (false), and the key keeps what the
 * contract says it keeps of its answer.
 */
function judgeKeyed(m: Model, rec: Rec, sent: Sent, answer: Answer & { raw: string; replayed: boolean }, item: Item, faults: StepFaults): boolean {
  if (item.key === undefined) return false;
  const use = m.keys.get(item.key)!;
  if (use.first !== null && use.kept !== "nothing") {
    const sameBody = JSON.stringify(bodyOf(rec, item.req)) === JSON.stringify(bodyOf(rec, use.req));
    const why = judgeRepeat({
      first: use.first,
      kept: use.kept,
      settled: use.settled,
      repeat: sent,
      answer,
      sameBody,
      calls: rec.calls,
      keyRequests: [...use.requests, sent.requestId],
      after: rec.view.state,
    });
    if (why !== "new") {
      if (why) fail(m, `${sent.requestId}: ${why}\n  answer: ${answer.raw.slice(0, 400)}`);
      use.requests.push(sent.requestId);
      if (answer.replayed || answer.code === "idempotency_key_reused") sent.repeatOf = use.first.requestId;
      if (sameBody && answer.replayed && use.settled === null) use.settled = { status: answer.status, raw: answer.raw };
      coverRepeat(use, sent, answer, sameBody);
      return true;
    }
  }
  // A request of its own: the key keeps its answer, leaves it open, or keeps nothing.
  if (answer.replayed)
    fail(m, `${sent.requestId}: rule 11: a key that kept nothing (${item.key}) answered Idempotent-Replayed: ${answer.raw.slice(0, 300)}`);
  const kept = keyKept(answer);
  use.req = item.req;
  use.kept = kept;
  use.first = kept === "nothing" ? null : sent;
  use.settled = kept === "answer" ? { status: answer.status, raw: answer.raw } : null;
  use.requests = kept === "nothing" ? [] : [sent.requestId];
  use.firstMet = faults.crash ? "crash" : sent.hits.some((h) => h.path === sent.mainPath) ? "fault" : "nothing";
  use.meanwhile = false;
  return false;
}

function coverRepeat(use: KeyUse, sent: Sent, answer: { replayed: boolean; status: number }, sameBody: boolean): void {
  if (!sameBody) {
    cover("rare: the same key with another body: idempotency_key_reused, nothing upstream");
    return;
  }
  if (!answer.replayed) return;
  const after = use.firstMet === "crash" ? "a crash" : use.kept === "unknown" ? "a lost answer" : use.firstMet === "fault" ? "a fault" : "an answer";
  cover(`key: a ${sent.op} repeated after ${after}${use.meanwhile ? ", alarms run meanwhile" : ""} -> ${answer.status}`);
  if (use.firstMet === "crash") cover("rare: a repeat with the same key after a crash: the first's answer or the upstream's outcome, no second call");
  else if (use.kept === "unknown" && use.firstMet === "fault")
    cover("rare: a repeat with the same key after a lost answer: the upstream's outcome, no second call");
}

/** Reads what the upstream shows of the record now, and holds its alarm until the test lets time pass. */
async function look(_m: Model, rec: Rec): Promise<void> {
  rec.view = await sandboxSeen(rec.kind, rec.id);
  rec.calls = await callLog(rec.id);
  rec.seen.push({ afterSeq: lastSeq(rec.calls), state: rec.view.state });
  await park(rec.kind, rec.id, rec.clock);
}

/** A receipt the upstream will cancel, with three failed guesses: by now it must be cancelled (rule 2). */
function exhaustionSettled(m: Model, rec: Rec, when: string, converged = false): void {
  if (rec.kind !== "receipt" || rec.qr || rec.cancelTrouble) return;
  const guesses = guessesOf(rec, sentsOf(m, rec), rec.calls);
  if (guesses >= MAX_GUESSES && rec.view.state !== 21 && !converged && lateReadsOwed(rec)) {
    cover("rare: an exhaustion cancel waits while a lost pay may land (rule 8's late reads)");
    return;
  }
  if (guesses >= MAX_GUESSES && rec.view.state !== 21) {
    fail(
      m,
      `rule 2: ${rec.key} has ${guesses} failed guesses and nothing stood in the way, but the upstream shows state ${rec.view.state}, not cancelled, ${when}`,
    );
  }
}

/** Invariants 1 to 4 over one record's history. */
function checkRecord(m: Model, rec: Rec): void {
  const all = sentsOf(m, rec);
  // 1. Never debited twice.
  const paid = rec.calls.filter((c) => (c.path.endsWith("/pay") || c.path === "a2c/pay") && c.status === 200);
  if (paid.length > 1) fail(m, `invariant 1: ${rec.key} was debited ${paid.length} times upstream: ${paid.map((c) => c.request_id).join(", ")}`);
  const paidAnswers = all.filter((s) => s.op === "pay" && s.answer.status === 200 && s.repeatOf === undefined);
  if (paidAnswers.length > 1)
    fail(m, `invariant 1: ${rec.key} was answered paid ${paidAnswers.length} times: ${paidAnswers.map((s) => s.requestId).join(", ")}`);

  // 2. No user's cancel of a paid or held receipt reaches the upstream: neither the user's own request
  // nor the gateway's completion of it after its answer was lost, nor the gateway's own cancel (a user's rights).
  const { before } = replay(rec, rec.calls, rec.seen, m.sents);
  const cancelled = rec.view.state === 21 ? { reason: rec.view.cancelReason, by: rec.view.cancelledBy } : null;
  for (const c of rec.calls) {
    if (c.path !== "receipt/cancel" || ![4, 5].includes(before.get(c.seq)!)) continue;
    const sender = cancelSenderOf(c, all, cancelled);
    if (sender === "partner") continue;
    const own = m.sents.get(c.request_id ?? "");
    const what =
      own?.op === "cancel" && own.who === sender
        ? `${sender}'s cancel ${own.requestId}`
        : sender === "gateway"
          ? `the gateway's own cancel ${c.request_id}`
          : `the gateway's completion (${c.request_id}) of ${sender}'s lost cancel`;
    fail(
      m,
      `invariant 2: ${what} reached the upstream while ${rec.key} was ${before.get(c.seq) === 4 ? "paid" : "held"} (upstream answered ${c.status}${c.code ? ` ${c.code}` : ""}${c.status === 200 && cancelled?.reason ? `, reason "${cancelled.reason}"` : ""})`,
    );
  }

  // 3. At most three OTPs the upstream may have judged as not right.
  const guesses = guessesOf(rec, all, rec.calls);
  if (guesses > MAX_GUESSES) {
    const which = all.filter((s) => s.op === "pay" && s.otp !== undefined).map((s) => `${s.requestId} ${showAnswer(s.answer)}`);
    fail(m, `invariant 3: ${guesses} failed OTP guesses reached the upstream for ${rec.key}: ${which.join("; ")}`);
  }
  rec.maxGuesses = Math.max(rec.maxGuesses, guesses);

  // 4. Ended for OTPs only after three failed guesses.
  if (rec.view.state === 21 && rec.view.cancelReason === EXHAUSTION_REASON && rec.maxGuesses < MAX_GUESSES) {
    fail(m, `invariant 4: the gateway cancelled ${rec.key} upstream for its OTPs after ${rec.maxGuesses} failed guesses`);
  }
}

function coverStep(_m: Model, rec: Rec, sents: Sent[], pre: number, hits: Sent["hits"], faults: StepFaults): void {
  for (const s of sents) {
    if (s.repeatOf !== undefined) continue;
    const who = s.who === "partner" ? "partner" : s.who === rec.owner ? "owner" : "another user";
    cover(`answer: ${s.op}${s.anonymous ? " (anonymous)" : ""} on a ${rec.kind} by ${who} -> ${s.answer.status === 200 ? "200" : s.answer.code}`);
    if (s.op === "cancel" && s.who !== "partner" && s.who === rec.owner && pre === 4) cover("rare: a user's cancel of a paid receipt");
    if (s.op === "cancel" && s.who !== "partner" && s.who === rec.owner && pre === 5) cover("rare: a user's cancel of a held receipt");
    if (s.op === "hold-confirm" && s.who === "partner" && pre === 4 && rec.isHold) cover("rare: hold-confirm after pay");
    if (rec.kind === "transfer" && s.answer.code === "otp_attempts_exhausted") cover("rare: an exhausted transfer");
    if (s.op !== "cancel" && hits.some((h) => h.path === "receipt/cancel" && h.fault === "busy"))
      cover("rare: a busy answer to an exhaustion cancel");
    if (s.hits.some((h) => h.fault === "unknown-code-after") && rec.calls.some((c) => c.request_id === s.requestId && c.code === "OTP_INVALID")) {
      cover("fault: an unknown code after the upstream judged the OTP");
    }
    const otpPay = s.op === "pay" && s.otp !== undefined && (rec.isVerify || s.anonymous);
    if (otpPay && s.hits.some((h) => h.fault.startsWith("no-code")) && s.answer.code === "upstream_refused")
      cover("fault: a 400 with no code refusing an OTP pay (an unconfirmed guess)");
    if (otpPay && s.hits.some((h) => h.fault === "validation") && s.answer.code === "invalid_request")
      cover("fault: a VALIDATION_ERROR refusing an OTP pay (no guess)");
  }
  if (sents.length > 1) cover("rare: racing requests on one record");
  for (const h of hits) {
    cover(`fault hit: ${h.fault} on ${h.path}`);
    if (h.fault === "crash-before") cover("fault: a crash before the upstream acted");
    if (h.fault === "crash-mid") cover("fault: a crash after the upstream acted");
  }
  if (faults.crash === "after") cover("fault: a crash just after the answer");
}

// ---------------------------------------------------------------------------
// Time: late calls, alarms, the supplier

/** Any alarm further away than this is the one that deletes a final record (rule 10): every other comes within a day (late reads). */
const RECORD_DELETION_AFTER_MS = 2 * 86_400_000;
/**
 * Rule 12's expiry comes RECEIPT_EXPIRY_HOURS after a create (or HOLD_EXPIRY_DAYS after a hold):
 * no work a fault left owed, and not what this model plays (test/integration/expiry.test.ts
 * does). It stops before it, as before a record's end; every alarm owed comes within minutes
 * in development (late reads, backoff, the supplier's polls).
 */
const EXPIRY_AFTER_MS = readConfig(env).expiry.unpaidMs / 2;

/** The upstream acts now on a call the gateway gave up on. */
async function actLate(m: Model, rec: Rec, late: Late): Promise<void> {
  rec.late.splice(rec.late.indexOf(late), 1);
  const status = await forwardDeferred(env.UPSTREAM as unknown as Fetcher, late.request);
  const before = rec.view.state;
  await look(m, rec);
  m.log.push(`late: the upstream acts now on ${late.label} for ${rec.key} -> ${status}; upstream ${before} -> ${rec.view.state}`);
  cover(`late: ${late.request.path} -> ${status}`);
  if (rec.calls.some((c) => c.request_id === late.request.requestId && c.path === late.request.path))
    cover("fault: the upstream acted after the gateway gave up");
  checkRecord(m, rec);
}

/**
 * Lets time pass until the record's next alarm and runs it (with `faults`
 * on its calls). A late call still waiting is acted on first when the
 * record's clock would pass the window in which the contract finds it.
 */
async function runAlarm(
  m: Model,
  rec: Rec,
  faults: Pick<StepFaults, "read" | "cancel"> = {},
  keepLate = false,
  horizon = Math.min(RECORD_DELETION_AFTER_MS, EXPIRY_AFTER_MS),
): Promise<boolean> {
  const due = await alarmDue(rec.kind, rec.id, rec.clock);
  // Rule 10: a final record's last alarm deletes it RECORD_RETENTION_DAYS on; that is no work owed, and the model stops before it (and before rule 12's expiry, but where a scenario plays it).
  if (due === null || due - Date.now() > horizon) return false;
  if (!keepLate) for (const late of [...rec.late]) if (due + rec.clock.ahead - late.at > LATE_WITHIN_MS) await actLate(m, rec, late);
  scriptedUpstream.reset();
  const scripted = new Map<string, FaultName>();
  if (faults.read) scripted.set(readPathOf(rec.kind), faults.read);
  if (faults.cancel && rec.kind === "receipt") scripted.set("receipt/cancel", faults.cancel);
  for (const [path, fault] of scripted) scriptedUpstream.on(path, toScripted(fault), { id: rec.id });
  const ahead = rec.clock.ahead;
  const ran = await runNextAlarm(rec.kind, rec.id, rec.clock);
  const hits = scriptedUpstream.firedOn().map((hit) => ({ path: hit.path, fault: scripted.get(hit.path)! }));
  for (const request of scriptedUpstream.takeDeferred())
    rec.late.push({ request, at: clockNow(rec), label: `${request.path} of ${request.requestId}` });
  scriptedUpstream.reset();
  const before = rec.view.state;
  const seqBefore = lastSeq(rec.calls);
  await look(m, rec);
  const calls = rec.calls.filter((c) => c.seq > seqBefore);
  m.log.push(
    `alarm: ${rec.key}'s clock moves on ${Math.round((rec.clock.ahead - ahead) / 1000)} s and its alarm runs${hits.length ? ` [fault: ${hits.map((h) => `${h.path} ${h.fault}`).join(", ")}]` : ""}; upstream ${before} -> ${rec.view.state}${calls.length ? `, calls: ${showCalls(calls)}` : ""}`,
  );
  for (const h of hits) {
    cover(`fault hit: ${h.fault} on ${h.path} (alarm)`);
    if (h.path === "receipt/cancel") {
      rec.cancelTrouble = true;
      if (h.fault === "busy") cover("rare: a busy answer to an exhaustion cancel");
    }
  }
  cover(`alarm ran${calls.length ? `: ${[...new Set(calls.map((c) => c.path))].join(" + ")}` : ""}`);
  markMeanwhile(m, rec);
  checkRecord(m, rec);
  // An alarm that met no fault and looked at the upstream has reconciled the record, and cancels what three failed
  // guesses ended. One that looked at nothing fired before a call the record noted could have ended (an alarm set for
  // an earlier call stays, and an object evicted since cannot know the call returned): rule 8 owes the look within a minute.
  if (hits.length === 0) {
    rec.cancelTrouble = false;
    if (calls.length > 0) exhaustionSettled(m, rec, "after its alarm ran");
    else await exhaustionComing(m, rec);
  }
  return ran;
}

/** A pay of the record met an unknown outcome within the window in which the contract finds a late change: the exhaustion cancel waits (rule 2 with rule 8). */
const lateReadsOwed = (rec: Rec): boolean => rec.lostPays.some((at) => clockNow(rec) - at < LATE_FOUND_WITHIN_MS);

/** After an alarm that looked at nothing: a receipt that three failed guesses ended, not cancelled yet, has its next alarm within a minute (rule 8). */
async function exhaustionComing(m: Model, rec: Rec): Promise<void> {
  if (rec.kind !== "receipt" || rec.qr || rec.cancelTrouble) return;
  if (guessesOf(rec, sentsOf(m, rec), rec.calls) < MAX_GUESSES || rec.view.state === 21) return;
  const due = await alarmDue(rec.kind, rec.id, rec.clock);
  if (due !== null && due - gatewayClock.now() <= RECONCILED_WITHIN_MS) return;
  const next = due === null ? "not set" : `due in ${Math.round((due - gatewayClock.now()) / 1000)} s`;
  exhaustionSettled(m, rec, `after its alarm ran and looked at nothing, its next alarm ${next}`);
}

/** The record's keys were first used before something ran on the record on its own (its alarm, an eviction). */
const markMeanwhile = (m: Model, rec: Rec) => {
  for (const use of m.keys.values()) if (use.rec === rec.key && use.first !== null) use.meanwhile = true;
};

/** Late calls reach the upstream, then the record's alarms run until nothing is owed. */
async function settle(m: Model, rec: Rec): Promise<void> {
  for (const late of [...rec.late]) await actLate(m, rec, late);
  for (let n = 0; ; n++) {
    if (n === MAX_ALARMS) fail(m, `rule 8: ${rec.key}'s alarms did not end after ${MAX_ALARMS} runs`);
    if (!(await runAlarm(m, rec))) return;
  }
}

// ---------------------------------------------------------------------------
// Convergence (invariants 5 and 6)

/**
 * Invariant 5's events for one record, once its alarms ran and what was
 * queued was delivered: every state the upstream reached was delivered at
 * least once as its event (with the exhausted one after three failed
 * guesses), no event claims a state the upstream never held, and a receipt
 * ended by guesses is cancelled upstream.
 */
function checkEvents(m: Model, rec: Rec): void {
  const guesses = guessesOf(rec, sentsOf(m, rec), rec.calls);
  const got = m.delivered.filter((e) => e.recordId === rec.id);
  const types = new Set(got.map((e) => e.type));
  const missing = [...expectedEvents(m, rec)].filter((t) => !types.has(t));
  const { states } = replay(rec, rec.calls, rec.seen, m.sents);
  if (missing.length > 0) {
    fail(
      m,
      `invariant 5: ${rec.key}'s upstream went through ${states.join(" -> ")}, but the receiver never got ${missing.join(", ")} (got: ${[...types].join(", ") || "nothing"})`,
    );
  }
  for (const e of got) {
    if (e.type === exhaustedEvent(rec.kind)) {
      if (rec.maxGuesses < MAX_GUESSES) fail(m, `invariant 4: ${e.type} for ${rec.key} after ${rec.maxGuesses} failed guesses`);
      continue;
    }
    // Rule 14: fiscal data shown at last, in a state the upstream held, and shown in the event.
    const fiscalState = FISCAL_EVENTS[e.type];
    if (fiscalState !== undefined) {
      const ofd = (JSON.parse(e.body) as { data: { object: { ofd?: unknown } } }).data.object.ofd;
      if (!states.includes(fiscalState) || e.state !== fiscalState || fiscalMissing(fiscalState, ofd) !== null) {
        fail(
          m,
          `invariant 7: ${e.type} (object state ${e.state}) for ${rec.key}, whose upstream went through ${states.join(" -> ")}: ${JSON.stringify(ofd)}`,
        );
      }
      cover(`rare: late fiscal data found by a read and delivered: ${e.type}`);
      continue;
    }
    const claimed = [0, 4, 5, 21, 57].find((s) => eventOfState(rec.kind, s) === e.type);
    if (claimed === undefined || !states.includes(claimed) || (e.type !== `${rec.kind}.created` && e.state !== claimed)) {
      fail(m, `invariant 5: ${e.type} (object state ${e.state}) for ${rec.key}, whose upstream went through ${states.join(" -> ")}`);
    }
  }
  // A receipt ended by guesses is cancelled upstream (a QR merchant's stays closed at the edge).
  if (rec.kind === "receipt" && !rec.qr && guesses >= MAX_GUESSES && rec.view.state !== 21) {
    fail(m, `rule 2: ${rec.key} ended by ${guesses} failed guesses is not cancelled upstream (state ${rec.view.state})`);
  }
}

/** The events a record owes: one for every state the upstream reached, and the exhausted one after three failed guesses. */
function expectedEvents(m: Model, rec: Rec): Set<string> {
  const { states } = replay(rec, rec.calls, rec.seen, m.sents);
  const expected = new Set(states.map((s) => eventOfState(rec.kind, s)).filter((t): t is string => t !== null));
  if (guessesOf(rec, sentsOf(m, rec), rec.calls) >= MAX_GUESSES) expected.add(exhaustedEvent(rec.kind));
  return expected;
}

/** Invariant 7 for one receipt, from the upstream's view, the list and what the receiver got; `fresh`: a check-id came since the upstream's last change. */
function checkFiscal(m: Model, rec: Rec, listed: ReadonlyMap<string, { state: number }>, fresh: boolean): void {
  if (rec.kind !== "receipt") return;
  const delivered = m.delivered
    .filter((e) => e.recordId === rec.id)
    .map((e) => ({ type: e.type, state: e.state, ofd: (JSON.parse(e.body) as { data: { object: { ofd?: unknown } } }).data.object.ofd }));
  const why = judgeFiscal({ state: rec.view.state, ofd: rec.view.ofd, listed: listed.get(rec.id), delivered, fresh });
  if (why) fail(m, `invariant 7: ${rec.key} ${why}`);
  if (fresh) return;
  if (fiscalMissing(rec.view.state, rec.view.ofd) !== null) cover("rare: a paid receipt whose fiscal data is missing, listed by fiscal/pending");
  else if (listed.has(rec.id)) cover("rare: fiscal data shown after the last scheduled read: listed until a read finds it");
}

/** Invariant 7 once check-id read the upstream: the list follows the record a moment after its answer. */
async function checkFiscalAfterRead(m: Model, rec: Rec): Promise<void> {
  if (rec.kind !== "receipt") return;
  let listed = await fiscalListed();
  const settled = async () =>
    judgeFiscal({ state: rec.view.state, ofd: rec.view.ofd, listed: listed.get(rec.id), delivered: [], fresh: true }) === null;
  for (let n = 0; n < 40 && !(await settled()); n++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    listed = await fiscalListed();
  }
  checkFiscal(m, rec, listed, true);
}

/** Invariant 5's read: check-id / a2c get-by-id answer the upstream's state. */
async function checkRead(m: Model, rec: Rec): Promise<void> {
  const requestId = `m${m.run}-s${++m.step}`;
  const answer = await readAnswer(await send(m, readPathOf(rec.kind), { id: rec.id }, "partner", requestId));
  if (answer.status !== 200 || answer.state !== rec.view.state) {
    fail(m, `invariant 5: ${readPathOf(rec.kind)} of ${rec.key} answers ${showAnswer(answer)}, the upstream holds ${rec.view.state}`);
  }
}

async function converge(m: Model, label: string, scanCardData: boolean): Promise<void> {
  scriptedUpstream.reset();
  m.log.push(`${label}: faults stop; late calls reach the upstream; every alarm runs until nothing is owed; the suppliers answer`);
  for (const rec of m.recs) await settle(m, rec);
  for (const rec of m.recs) {
    if (rec.view.state !== 57) continue;
    await supplierAnswers(m, rec);
    await settle(m, rec);
  }
  m.delivered.push(...(await m.queue.deliver()));
  if (m.queue.lost > 0) {
    cover("fault: the queue lost an event");
    // The cron fires every minute: a message the sweep re-queued and the queue lost again is
    // re-queued by a later run, once its new attempt is overdue in turn.
    // A minute apart at most, within the sweep's 150 s horizon (development).
    for (const aheadMs of [35_000, 70_000, 105_000, 140_000]) {
      await runCron(aheadMs);
      m.delivered.push(...(await m.queue.deliver()));
    }
  }

  const listed = await fiscalListed();
  for (const rec of m.recs) {
    checkEvents(m, rec);
    checkFiscal(m, rec, listed, false);
    await checkRead(m, rec);
    await checkFiscalAfterRead(m, rec);
    // Every alarm ran until nothing was owed: the late reads too, so no lost pay holds the exhaustion cancel back any more.
    exhaustionSettled(m, rec, "at convergence", true);
    const guesses = guessesOf(rec, sentsOf(m, rec), rec.calls);
    cover(`converged: ${rec.kind} in state ${rec.view.state}${guesses >= MAX_GUESSES ? " (ended by OTP guesses)" : ""}`);
    await park(rec.kind, rec.id, rec.clock);
  }
  m.log.push(`${label}: every record agrees with the upstream; ${m.delivered.length} deliveries so far`);

  if (!scanCardData) return;
  const rows = [
    ...(await Promise.all(m.recs.map((rec) => dumpObject(rec.kind, rec.id)))).flat(),
    ...(await dumpTidIndex(
      m.recs.map((r) => r.id),
      m.recs.map((r) => r.tid),
    )),
    ...(await dumpD1()),
    ...m.delivered.map((e) => `event ${e.id}: ${e.body}`),
  ];
  for (const row of rows) {
    const found = cardDataIn(row, CARD_DATA);
    if (found.length > 0) fail(m, `invariant 6: card data ${found.join(", ")} stored or sent: ${row.slice(0, 400)}`);
  }
  for (const line of m.logged) {
    const found = cardDataIn(loggedText(line), CARD_DATA);
    if (found.length > 0) fail(m, `invariant 6: card data ${found.join(", ")} in the gateway's log: ${line.slice(0, 400)}`);
  }
}

/**
 * The text of a log line that could carry card data: of a JSON line (the
 * gateway's logger writes one per event) its keys, string values and long
 * numbers, for a short number is a duration or a count that may equal an
 * expiry or an OTP without being one; any other line as it is.
 */
function loggedText(line: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return line;
  }
  const texts: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === "string") texts.push(value);
    else if (typeof value === "number" && Math.abs(value) >= 1e7) texts.push(String(value));
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === "object")
      for (const [key, v] of Object.entries(value)) {
        texts.push(key);
        walk(v);
      }
  };
  walk(parsed);
  return texts.join("\n");
}

/** Collects every line the gateway logs during a run (it still prints: a failing run shows them). */
function collectLogs(m: Model): void {
  for (const method of ["log", "info", "warn", "error", "debug"] as const) {
    const original = console[method].bind(console);
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      m.logged.push(args.map(String).join(" "));
      original(...args);
    });
  }
}

// ---------------------------------------------------------------------------
// Commands

type Cmd = fc.AsyncCommand<Model, object, false>;

interface CreateSpec {
  owner: Who;
  kind: KindName;
  merchant: 1001 | 1002 | 1003;
  isHold: boolean;
  /** A transfer's amount: 1000000 and up needs an OTP. */
  amount: number;
  sender: Behaviour;
}

interface CreateFault {
  fault: FaultName;
  /** A late create reaches the upstream before the retry, or after it. */
  lateBeforeRetry: boolean;
}

const describeCreate = (spec: CreateSpec) =>
  spec.kind === "receipt"
    ? `a receipt at ${spec.merchant}${spec.merchant === 1001 ? " (OTP)" : spec.merchant === 1002 ? " (QR)" : ""}${spec.isHold ? " with is_hold" : ""}`
    : `a transfer of ${spec.amount}${spec.amount >= 1_000_000 ? " (OTP)" : ""} from ${TOKEN_OF[spec.sender]}`;

/** What a create may do besides: another account (a receipt's), other bodies with the tid of a create whose answer was lost. */
interface CreateExtra {
  account?: { key: string; value: string }[];
  /** After a faulted create, before the identical retry: a retry with only this changed (a transfer's). */
  changed?: ("amount" | "receiver card")[];
}

/** Creates a record: with a fault, the caller retries with the same tid until it has its answer (rule 1, rule 8). */
async function create(m: Model, spec: CreateSpec, fault: CreateFault | null = null, replays = false, extra: CreateExtra = {}): Promise<Rec> {
  const key = keyOf(m.made++);
  const tid = newTid(`model-${key}`);
  const path = spec.kind === "receipt" ? "receipt/create" : "a2c/create";
  const body =
    spec.kind === "receipt"
      ? {
          tid,
          amount: 150_000,
          merchant_id: spec.merchant,
          account: extra.account ?? [{ key: "phone", value: "998901234567" }],
          description: "model",
          is_hold: spec.isHold,
        }
      : { tid, amount: spec.amount, rate_id: 1, receiver_card: RECEIVER_CARD, token: TOKEN_OF[spec.sender] };
  const what = `${spec.owner} creates ${describeCreate(spec)} as ${key}`;
  const attempt = async (label: string, payload: Record<string, unknown> = body) => {
    const requestId = `m${m.run}-s${++m.step}`;
    const answer = await readAnswer(await send(m, path, payload, spec.owner, requestId));
    m.log.push(`${requestId}: ${label} -> ${showAnswer(answer)}${answer.replayed ? " (replayed)" : ""}`);
    if (answer.status === 500) fail(m, `${requestId} answered 500: ${answer.raw.slice(0, 300)}`);
    return answer;
  };

  let answer: Awaited<ReturnType<typeof attempt>>;
  if (fault) {
    scriptedUpstream.reset();
    scriptedUpstream.on(path, toScripted(fault.fault));
    const first = `m${m.run}-s${m.step + 1}`;
    answer = await attempt(`${what} [fault: ${path} ${fault.fault}]`);
    const hit = scriptedUpstream.firedOn().length > 0;
    const late = scriptedUpstream.takeDeferred();
    scriptedUpstream.reset();
    const allowed = fault.fault === "busy" ? ["upstream_unavailable"] : ["upstream_error", "upstream_timeout"];
    if (!hit || !allowed.includes(answer.code ?? ""))
      fail(m, `a create whose call met ${fault.fault} answered ${showAnswer(answer)}; the contract allows ${allowed.join(" | ")}`);
    const actLateCreate = async () => {
      for (const request of late) {
        const status = await forwardDeferred(env.UPSTREAM as unknown as Fetcher, request);
        m.log.push(`late: the upstream acts now on that create -> ${status}`);
        cover(`late: ${path} -> ${status}`);
      }
    };
    if (fault.lateBeforeRetry) await actLateCreate();
    // The tid's claim is expired (an unknown outcome): a retry with another body must not take the record the lost one made.
    const changed: { what: string; answer: Awaited<ReturnType<typeof attempt>>; amount: number; card: string }[] = [];
    for (const what of spec.kind === "transfer" ? (extra.changed ?? []) : []) {
      const amount = what === "amount" ? (body.amount as number) + 100_000 : (body.amount as number);
      const card = what === "receiver card" ? OTHER_RECEIVER_CARD : RECEIVER_CARD;
      const other = await attempt(`${spec.owner} retries the create with the same tid, only its ${what} changed`, {
        ...body,
        amount,
        receiver_card: card,
      });
      if (other.status !== 200 && other.code !== "tid_conflict")
        fail(m, `rule 1: a create with a known tid and another ${what} answered ${showAnswer(other)}: ${other.raw.slice(0, 300)}`);
      changed.push({ what, answer: other, amount, card });
    }
    for (let tries = 0; answer.status !== 200; tries++) {
      if (tries === 3) fail(m, `a retried create with the same tid never succeeded: ${showAnswer(answer)}`);
      answer = await attempt(`${spec.owner} retries the create with the same tid`);
      if (answer.status !== 200 && answer.code !== "tid_in_progress")
        fail(m, `a retried create answered ${showAnswer(answer)}: ${answer.raw.slice(0, 300)}`);
    }
    if (!fault.lateBeforeRetry) await actLateCreate();
    await judgeTidRetries(m, spec, fault, first, answer, changed);
    cover("fault: on a create, then a retry with the same tid");
    cover(
      `create fault: ${fault.fault}${fault.fault.startsWith("late") ? (fault.lateBeforeRetry ? " (acted before the retry)" : " (acted after the retry)") : ""}`,
    );
  } else {
    answer = await attempt(what);
  }
  if (answer.status !== 200) fail(m, `create answered ${showAnswer(answer)}: ${answer.raw}`);
  const created = JSON.parse(answer.raw);
  const id: string = spec.kind === "receipt" ? created.id : created.receipt_id;
  expect(created.state, "a new record is in state 0").toBe(0);
  expect(created.tid, "the answer shows the caller's own tid").toBe(tid);
  const isVerify = spec.kind === "receipt" ? spec.merchant === 1001 : spec.amount >= 1_000_000;
  expect(created.is_verify, "is_verify as the sandbox table says").toBe(isVerify);
  const view = await sandboxSeen(spec.kind, id);
  // The upstream holds the record under the caller's tid (a partner's as it is; a user's derived from it).
  if (spec.owner === "partner" ? view.tid !== tid : view.tid === tid)
    fail(m, `${key} is held upstream under tid ${view.tid}, created with ${tid} by ${spec.owner}`);

  if (replays) {
    const again = await attempt(`${spec.owner} sends the same create again`);
    if (again.status !== 200 || !again.replayed || JSON.parse(again.raw)[spec.kind === "receipt" ? "id" : "receipt_id"] !== id) {
      fail(
        m,
        `rule 1: an identical create with a known tid answered ${showAnswer(again)}${again.replayed ? "" : " without Idempotent-Replayed"}, not the original`,
      );
    }
    const other = await attempt(`${spec.owner} sends another create with the same tid`, { ...body, amount: (body.amount as number) + 1 });
    if (other.code !== "tid_conflict") fail(m, `rule 1: a different create with a known tid answered ${showAnswer(other)}, not tid_conflict`);
    cover("create: replayed and conflicting creates");
  }

  const rec: Rec = {
    key,
    kind: spec.kind,
    id,
    tid,
    owner: spec.owner,
    merchant: spec.kind === "receipt" ? spec.merchant : null,
    isHold: spec.kind === "receipt" && spec.isHold,
    isVerify,
    qr: spec.kind === "receipt" && spec.merchant === 1002,
    clock: newClock(),
    view,
    calls: [],
    seen: [],
    late: [],
    lostPays: [],
    maxGuesses: 0,
    cancelTrouble: false,
  };
  m.recs.push(rec);
  await look(m, rec);
  return rec;
}

/** Another receiver card the sandbox pays to (the anonymous payer's card: invariant 6 looks for it too). */
const OTHER_RECEIVER_CARD = ANON_PAN;
const masked = (pan: string) => `${pan.slice(0, 6)}******${pan.slice(-4)}`;

/**
 * Rule 1 after a create whose outcome was unknown (its tid's claim expired at
 * once): an identical retry adopts the record the upstream made under the tid
 * if it made one (never a second); a retry with only the amount or only the
 * receiver card changed never does: tid_conflict, or a new record of its own.
 */
async function judgeTidRetries(
  m: Model,
  spec: CreateSpec,
  fault: CreateFault,
  firstRequestId: string,
  retried: Answer & { raw: string },
  changed: { what: string; answer: Answer & { raw: string }; amount: number; card: string }[],
): Promise<void> {
  const path = spec.kind === "receipt" ? "receipt/create" : "a2c/create";
  const idOf = (raw: string): string => JSON.parse(raw)[spec.kind === "receipt" ? "id" : "receipt_id"];
  // The upstream made a record under the lost create's tid before the retries (it logs the tid it was sent).
  const made = (await callsOfRequest(firstRequestId)).find((c) => c.path === path && c.status === 200);
  const madeBefore = made !== undefined && (fault.fault !== "late" || fault.lateBeforeRetry) ? made.tid : null;
  const id = idOf(retried.raw);
  // The identical retry's record is the one its body asked for.
  const answered = JSON.parse(retried.raw);
  const asked =
    spec.kind === "receipt"
      ? answered.amount === 150_000
      : answered.receiver?.amount === spec.amount && answered.receiver?.masked_pan === masked(RECEIVER_CARD);
  if (!asked) fail(m, `rule 1: the identical retry of a create whose answer was lost was answered with another record: ${retried.raw.slice(0, 300)}`);
  if (madeBefore !== null) {
    const view = await sandboxSeen(spec.kind, id);
    if (view.tid !== madeBefore) {
      fail(
        m,
        `rule 1: the identical retry of a create whose answer was lost answered ${id}, held upstream under tid ${view.tid}, not the record the lost create made (tid ${madeBefore})`,
      );
    }
    cover("rare: an identical retry adopts the record a lost create made");
  }
  for (const c of changed) {
    if (c.answer.status === 200) {
      const body = JSON.parse(c.answer.raw);
      const other = idOf(c.answer.raw);
      const view = await sandboxSeen(spec.kind, other);
      if (
        other === id ||
        (madeBefore !== null && view.tid === madeBefore) ||
        body.receiver?.amount !== c.amount ||
        body.receiver?.masked_pan !== masked(c.card)
      ) {
        fail(
          m,
          `rule 1: a create with the lost create's tid and another ${c.what} was answered with another transfer (${other}: ${body.receiver?.amount} to ${body.receiver?.masked_pan}), not a record of its own`,
        );
      }
    }
    if (madeBefore !== null) cover(`rare: a create with a lost create's tid and another ${c.what}: not adopted`);
  }
}

class CreateCmd implements Cmd {
  constructor(
    readonly spec: CreateSpec,
    readonly fault: CreateFault | null = null,
    readonly replays = false,
  ) {}
  check = (m: Readonly<Model>) => m.recs.length < MAX_RECORDS;
  async run(m: Model): Promise<void> {
    await create(m, this.spec, this.fault, this.replays);
  }
  toString() {
    return `new: ${this.spec.owner} creates ${describeCreate(this.spec)}${this.fault ? ` [fault on the create: ${this.fault.fault}]` : ""}`;
  }
}

/** Whether the sandbox holds an OTP for the receipt that is live now (with a margin for the next call). */
const otpLive = (rec: Rec) => rec.view.otpSentAt !== null && Date.now() - rec.view.otpSentAt < SANDBOX_OTP_TTL_MS - 10_000;

/** A receipt pay that needs an OTP is preceded by an authorize of the same caller when none is live, as an app does. */
async function payWithOtpSent(m: Model, rec: Rec, who: Who, req: OpRequest & { op: "pay" }, faults?: StepFaults, key?: string): Promise<Sent> {
  if (rec.kind === "receipt" && (req.anonymous || rec.isVerify) && req.otp !== undefined && !otpLive(rec)) {
    await perform(m, rec, [{ who, req: { op: "authorize", anonymous: req.anonymous, card: "ok" } }]);
  }
  return (await perform(m, rec, [{ who, req, faults, key }]))[0]!;
}

/** A fresh Idempotency-Key for `who`'s request on the record (rule 11), kept in the model for repeats. */
function newKey(m: Model, rec: Rec, who: Who, req: OpRequest): string {
  const key = `key-m${m.run}-${m.keys.size + 1}`;
  m.keys.set(key, { key, rec: rec.key, who, req, first: null, kept: "nothing", settled: null, requests: [], firstMet: "nothing", meanwhile: false });
  return key;
}

/** The same operation with another body (another OTP, card or reason), or null when the operation's body has nothing to vary. */
function otherReq(req: OpRequest): OpRequest | null {
  switch (req.op) {
    case "pay":
      return { ...req, otp: req.otp === undefined ? OTP_RIGHT : req.otp === OTP_RIGHT ? OTP_WRONG[0] : OTP_RIGHT };
    case "authorize":
      return req.anonymous ? null : { ...req, card: req.card === "ok" ? "insufficient" : "ok" };
    case "cancel":
      return { op: "cancel", reason: "model test, said otherwise" };
    default:
      return null;
  }
}

class OpCmd implements Cmd {
  #label: string | null = null;
  constructor(
    readonly index: number,
    readonly role: Role,
    readonly req: OpRequest,
    readonly faults: StepFaults,
    /** Sent with a fresh Idempotency-Key (rule 11): a later RepeatCmd may repeat it. */
    readonly keyed = false,
  ) {}
  check = (m: Readonly<Model>) => {
    const rec = recAt(m, this.index);
    return rec !== undefined && appliesTo(this.req, rec.kind);
  };
  async run(m: Model): Promise<void> {
    const rec = recAt(m, this.index)!;
    const who = whoOf(this.role, rec.owner);
    const faults = { ...this.faults };
    // The upstream judges a wrong OTP before refusing in words the gateway does not know (and so changes
    // nothing); a right one, or a pay that needs none, it would have paid: that refusal would be a lie.
    const judgesWrong =
      this.req.op === "pay" &&
      this.req.otp !== undefined &&
      this.req.otp !== OTP_RIGHT &&
      (rec.isVerify || (rec.kind === "receipt" && this.req.anonymous));
    if (faults.main === "unknown-code-after" && !judgesWrong) faults.main = "unknown-code";
    if (faults.main === "no-code-after" && !judgesWrong) faults.main = "no-code";
    // Refusals in words (unknown, none, or VALIDATION_ERROR) are scripted on pays only: what they do to an OTP is the question.
    const refusal = faults.main !== undefined && (refusedInUnknownWords(faults.main) || faults.main === "validation");
    if (refusal && this.req.op !== "pay") faults.main = undefined;
    const key = this.keyed && this.req.op !== "check" ? newKey(m, rec, who, this.req) : undefined;
    this.#label = `${who} ${describeReq(rec, this.req)} ${rec.key}${key ? ` with Idempotency-Key ${key}` : ""}${describeFaults(faults)}`;
    if (this.req.op === "pay") await payWithOtpSent(m, rec, who, this.req, faults, key);
    else await perform(m, rec, [{ who, req: this.req, faults, key }]);
  }
  toString() {
    return this.#label ?? `${this.role} ${this.req.op} ${keyOf(this.index)}${this.keyed ? " with a key" : ""}${describeFaults(this.faults)}`;
  }
}

const describeFaults = (f: StepFaults) => {
  const parts = [f.main && `call: ${f.main}`, f.read && `read: ${f.read}`, f.cancel && `cancel: ${f.cancel}`, f.crash && `crash ${f.crash}`].filter(
    Boolean,
  );
  return parts.length ? ` [${parts.join(", ")}]` : "";
};

/** Two requests on one record at once. */
class RaceCmd implements Cmd {
  #label: string | null = null;
  constructor(
    readonly index: number,
    readonly a: { role: Role; req: OpRequest },
    readonly b: { role: Role; req: OpRequest },
  ) {}
  check = (m: Readonly<Model>) => {
    const rec = recAt(m, this.index);
    return rec !== undefined && appliesTo(this.a.req, rec.kind) && appliesTo(this.b.req, rec.kind);
  };
  async run(m: Model): Promise<void> {
    const rec = recAt(m, this.index)!;
    const items = [this.a, this.b].map(({ role, req }) => ({ who: whoOf(role, rec.owner), req }));
    this.#label = `at once: ${items.map((i) => `${i.who} ${describeReq(rec, i.req)}`).join(" / ")} ${rec.key}`;
    // An OTP to guess with, as an app would have asked for one.
    if (rec.kind === "receipt" && items.some((i) => i.req.op === "pay" && i.req.otp !== undefined) && !otpLive(rec)) {
      await perform(m, rec, [{ who: "partner", req: { op: "authorize", anonymous: false, card: "ok" } }]);
    }
    await perform(m, rec, items);
  }
  toString() {
    return this.#label ?? `at once on ${keyOf(this.index)}: ${this.a.role} ${this.a.req.op} / ${this.b.role} ${this.b.req.op}`;
  }
}

/** What happens to the record before a key is repeated. */
type BeforeRepeat = "nothing" | "alarm" | "evict" | "late";

/**
 * Rule 11: a caller repeats a key it sent on this record (the pick-th of the
 * record's keys that kept an answer or were left open), with the same body or
 * another one, at once, after the record's alarm ran, after its object was
 * evicted, or after the upstream acted on a call it held.
 */
class RepeatCmd implements Cmd {
  #label: string | null = null;
  constructor(
    readonly index: number,
    readonly pick: number,
    readonly before: BeforeRepeat,
    readonly other: boolean,
  ) {}
  static usesOf = (m: Readonly<Model>, rec: Rec) => [...m.keys.values()].filter((u) => u.rec === rec.key && u.first !== null);
  check = (m: Readonly<Model>) => {
    const rec = recAt(m, this.index);
    return rec !== undefined && RepeatCmd.usesOf(m, rec).length > 0;
  };
  async run(m: Model): Promise<void> {
    const rec = recAt(m, this.index)!;
    const uses = RepeatCmd.usesOf(m, rec);
    const use = uses[this.pick % uses.length]!;
    const req = (this.other ? otherReq(use.req) : null) ?? use.req;
    this.#label = `${use.who} repeats ${use.first?.requestId}'s key ${use.key} on ${rec.key}${req === use.req ? "" : " with another body"}${this.before === "nothing" ? "" : ` after: ${this.before}`}`;
    await repeatKey(m, rec, use, req, this.before);
  }
  toString() {
    return this.#label ?? `a caller repeats a key on ${keyOf(this.index)}${this.other ? " with another body" : ""}, after: ${this.before}`;
  }
}

async function repeatKey(m: Model, rec: Rec, use: KeyUse, req: OpRequest, before: BeforeRepeat): Promise<Sent> {
  if (before === "alarm") {
    if (!(await runAlarm(m, rec))) m.log.push(`time: ${rec.key} has no alarm set`);
  } else if (before === "evict") {
    await evictDurableObject(stubOf(rec.kind, rec.id)).catch(() => undefined);
    m.log.push(`evict: ${rec.key}'s object is evicted`);
    markMeanwhile(m, rec);
  } else if (before === "late" && rec.late.length > 0) {
    await actLate(m, rec, rec.late[0]!);
  }
  return (await perform(m, rec, [{ who: use.who, req, key: use.key }]))[0]!;
}

/** What the first request with a key meets in KeyedCmd. */
type FirstMet = FaultName | "crash-mid" | "crash-before" | "crash-after" | undefined;

/**
 * Rule 11 on a receipt of its own: an operation sent with a key meets a
 * fault, a crash or nothing; the caller repeats it (perhaps after the
 * record's alarm ran), perhaps sends another body with the key, and repeats
 * it once more.
 */
class KeyedCmd implements Cmd {
  constructor(readonly o: { owner: Who; op: "pay" | "cancel" | "hold-confirm" | "authorize"; met: FirstMet; before: BeforeRepeat; other: boolean }) {}
  check = (m: Readonly<Model>) => m.recs.length < MAX_RECORDS;
  async run(m: Model): Promise<void> {
    const { owner, op, met } = this.o;
    const hold = op === "hold-confirm";
    const rec = await create(m, { owner, kind: "receipt", merchant: op === "authorize" ? 1001 : 1003, isHold: hold, amount: 0, sender: "ok" });
    if (hold) await perform(m, rec, [{ who: "partner", req: partnerPay(rec) }]);
    const who: Who = hold ? "partner" : owner;
    const req: OpRequest =
      op === "pay" || op === "authorize" ? { op, anonymous: false, card: "ok" } : op === "cancel" ? { op: "cancel" } : { op: "hold-confirm" };
    const faults: StepFaults = met?.startsWith("crash-") ? { crash: met.slice("crash-".length) as StepFaults["crash"] } : { main: met as FaultName };
    const key = newKey(m, rec, who, req);
    await perform(m, rec, [{ who, req, faults, key }]);
    const use = m.keys.get(key)!;
    if (use.first === null) return;
    await repeatKey(m, rec, use, req, this.o.before);
    const other = this.o.other ? otherReq(req) : null;
    if (other) await repeatKey(m, rec, use, other, "nothing");
    await repeatKey(m, rec, use, req, "nothing");
  }
  toString() {
    const { owner, op, met, before, other } = this.o;
    return `scenario: ${op === "hold-confirm" ? "the partner" : owner} sends a ${op} with a key on a receipt of its own${met ? ` [it meets ${met}]` : ""}, repeats it${before === "nothing" ? "" : ` after: ${before}`}${other ? ", sends another body with the key" : ""}, repeats it again`;
  }
}

class LateCmd implements Cmd {
  #label: string | null = null;
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => (recAt(m, this.index)?.late.length ?? 0) > 0;
  async run(m: Model): Promise<void> {
    const rec = recAt(m, this.index)!;
    this.#label = `late: the upstream acts on ${rec.key}'s oldest call it held`;
    await actLate(m, rec, rec.late[0]!);
  }
  toString() {
    return this.#label ?? `late: the upstream acts on ${keyOf(this.index)}'s oldest held call`;
  }
}

class AlarmCmd implements Cmd {
  #label: string | null = null;
  constructor(
    readonly index: number,
    readonly faults: Pick<StepFaults, "read" | "cancel">,
  ) {}
  check = (m: Readonly<Model>) => recAt(m, this.index) !== undefined;
  async run(m: Model): Promise<void> {
    const rec = recAt(m, this.index)!;
    this.#label = `time: ${rec.key}'s next alarm comes${describeFaults(this.faults)}`;
    if (!(await runAlarm(m, rec, this.faults))) m.log.push(`time: ${rec.key} has no alarm set`);
  }
  toString() {
    return this.#label ?? `time: ${keyOf(this.index)}'s next alarm comes${describeFaults(this.faults)}`;
  }
}

class EvictCmd implements Cmd {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => recAt(m, this.index) !== undefined;
  async run(m: Model): Promise<void> {
    const rec = recAt(m, this.index)!;
    await evictDurableObject(stubOf(rec.kind, rec.id)).catch(() => undefined);
    m.log.push(`evict: ${rec.key}'s object is evicted`);
  }
  toString() {
    return `evict: ${keyOf(this.index)}'s object is evicted`;
  }
}

class OtpTimeCmd implements Cmd {
  constructor(
    readonly index: number,
    readonly what: "wait" | "expire",
  ) {}
  check = (m: Readonly<Model>) => {
    const rec = recAt(m, this.index);
    return rec?.kind === "receipt" && rec.view.otpSentAt !== null;
  };
  async run(m: Model): Promise<void> {
    const rec = recAt(m, this.index)!;
    // The minute cron keeps running while that time passes: what the queue lost is sent again
    // then, not only after the sweep's horizon (when it would be failed instead).
    if (m.queue.lost > 0) {
      await runCron(31_000);
      m.delivered.push(...(await m.queue.deliver()));
    }
    await (this.what === "wait" ? letOtpWaitPass(rec.id) : letOtpExpire(rec.id));
    rec.view = await sandboxSeen(rec.kind, rec.id);
    m.log.push(`time: ${rec.key}'s OTP ${this.what === "wait" ? "resend wait is over" : "outlives its lifetime"}`);
  }
  toString() {
    return `time: ${keyOf(this.index)}'s OTP ${this.what === "wait" ? "resend wait is over" : "outlives its lifetime"}`;
  }
}

/** The supplier of a receipt in 57 answers, some seconds later (SANDBOX_SUPPLIER_DELAY_MS): the record's alarms due by then run first. */
async function supplierAnswers(m: Model, rec: Rec): Promise<void> {
  for (let n = 0; n < 5; n++) {
    const due = await alarmDue(rec.kind, rec.id, rec.clock);
    if (due === null || due - gatewayClock.now() > 10_000) break;
    await runAlarm(m, rec);
  }
  await letSupplierAnswer(rec.id);
  await look(m, rec);
  m.log.push(`supplier: ${rec.key}'s supplier answers: upstream 57 -> ${rec.view.state}`);
  if (rec.view.state === 21) cover("fault: the supplier refused (57 -> 21)");
  checkRecord(m, rec);
}

class SupplierCmd implements Cmd {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => recAt(m, this.index)?.view.state === 57;
  async run(m: Model): Promise<void> {
    await supplierAnswers(m, recAt(m, this.index)!);
  }
  toString() {
    return `supplier: ${keyOf(this.index)}'s supplier answers`;
  }
}

/** The fiscal data operator answers a receipt whose fiscal data is late (tok_sandbox_fiscal_late): the upstream shows it from now on. */
async function fiscalOperatorAnswers(m: Model, rec: Rec): Promise<void> {
  if (rec.view.fiscalDueAt === null) return;
  await letFiscalDataAppear(rec.id);
  await look(m, rec);
  m.log.push(
    `fiscal: the operator answers ${rec.key}'s late fiscal receipt: upstream ${rec.view.state}, fiscal data ${fiscalMissing(rec.view.state, rec.view.ofd) === null ? "shown" : "still missing"}`,
  );
  cover("fiscal: the operator answered a late fiscal receipt");
}

class FiscalOperatorCmd implements Cmd {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => recAt(m, this.index)?.view.fiscalDueAt != null;
  async run(m: Model): Promise<void> {
    await fiscalOperatorAnswers(m, recAt(m, this.index)!);
  }
  toString() {
    return `fiscal: the operator answers ${keyOf(this.index)}'s late fiscal receipt`;
  }
}

class LoseEventCmd implements Cmd {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => recAt(m, this.index) !== undefined;
  async run(m: Model): Promise<void> {
    const rec = recAt(m, this.index)!;
    m.queue.lose(rec.id);
    m.log.push(`queue: the events queue will lose ${rec.key}'s next message`);
  }
  toString() {
    return `queue: the events queue loses ${keyOf(this.index)}'s next message`;
  }
}

class CheckpointCmd implements Cmd {
  check = (m: Readonly<Model>) => m.recs.length > 0;
  async run(m: Model): Promise<void> {
    await converge(m, "checkpoint", false);
  }
  toString() {
    return "checkpoint: faults stop, every alarm runs, events are delivered, gateway and upstream agree";
  }
}

// --- scenarios: each makes a rare money path happen on a record of its own ---

const partnerPay = (rec: Rec): OpRequest & { op: "pay" } => ({ op: "pay", anonymous: false, card: "ok", otp: rec.isVerify ? OTP_RIGHT : undefined });

/** A user's receipt is paid (or held), perhaps by an upstream acting late; the user then tries to cancel it. */
class UserCancelsPaidCmd implements Cmd {
  constructor(
    readonly o: {
      merchant: 1001 | 1003;
      hold: boolean;
      how: "at once" | "late" | "very late" | "crash-before" | "crash-mid";
      user: "user1" | "user2";
    },
  ) {}
  check = (m: Readonly<Model>) => m.recs.length < MAX_RECORDS;
  async run(m: Model): Promise<void> {
    const rec = await create(m, { owner: this.o.user, kind: "receipt", merchant: this.o.merchant, isHold: this.o.hold, amount: 0, sender: "ok" });
    const how = this.o.how;
    const faults: StepFaults = how.includes("late")
      ? { main: "late" }
      : how === "crash-before"
        ? { crash: "before" }
        : how === "crash-mid"
          ? { crash: "mid" }
          : {};
    await payWithOtpSent(m, rec, "partner", partnerPay(rec), faults);
    if (how === "very late") {
      // The upstream acts after every look the gateway planned: only the user's cancel itself can find it.
      for (let n = 0; n < MAX_ALARMS && (await runAlarm(m, rec, {}, true)); n++);
    } else if (how !== "at once") {
      // The first reconciliation; then the upstream acts on a pay it still held.
      await runAlarm(m, rec);
    }
    for (const late of [...rec.late]) await actLate(m, rec, late);
    await perform(m, rec, [{ who: this.o.user, req: { op: "cancel" } }]);
  }
  toString() {
    const how = {
      "at once": "",
      late: " by an upstream acting late",
      "very late": " by an upstream acting after the gateway's last look",
      "crash-before": ", its object crashing before the upstream acts",
      "crash-mid": ", its object crashing after the upstream acted",
    }[this.o.how];
    return `scenario: ${this.o.user}'s ${this.o.hold ? "hold " : ""}receipt at ${this.o.merchant} is ${this.o.hold ? "held" : "paid"}${how}; ${this.o.user} cancels it`;
  }
}

/** A pay waits for its supplier (57), perhaps with its answer lost; the owner tries to cancel; the supplier confirms or refuses. */
class SupplierScenarioCmd implements Cmd {
  constructor(readonly o: { owner: Who; hold: boolean; card: "supplier_pending" | "supplier_fails"; fault: FaultName | undefined }) {}
  check = (m: Readonly<Model>) => m.recs.length < MAX_RECORDS;
  async run(m: Model): Promise<void> {
    const rec = await create(m, { owner: this.o.owner, kind: "receipt", merchant: 1003, isHold: this.o.hold, amount: 0, sender: "ok" });
    await perform(m, rec, [{ who: "partner", req: { op: "pay", anonymous: false, card: this.o.card }, faults: { main: this.o.fault } }]);
    await perform(m, rec, [{ who: this.o.owner, req: { op: "cancel" } }]);
    await supplierAnswers(m, rec);
    await perform(m, rec, [{ who: this.o.owner, req: { op: "check" } }]);
  }
  toString() {
    return `scenario: ${this.o.owner}'s ${this.o.hold ? "hold " : ""}receipt is paid with ${TOKEN_OF[this.o.card]}${this.o.fault ? ` [the pay meets ${this.o.fault}]` : ""}; ${this.o.owner} cancels; the supplier answers`;
  }
}

/** A hold receipt is held, confirmed, confirmed again (already paid); a user may not confirm. */
class HoldConfirmCmd implements Cmd {
  constructor(readonly o: { owner: Who; fault: FaultName | undefined }) {}
  check = (m: Readonly<Model>) => m.recs.length < MAX_RECORDS;
  async run(m: Model): Promise<void> {
    const rec = await create(m, { owner: this.o.owner, kind: "receipt", merchant: 1003, isHold: true, amount: 0, sender: "ok" });
    await perform(m, rec, [{ who: "partner", req: partnerPay(rec) }]);
    if (this.o.owner !== "partner") await perform(m, rec, [{ who: this.o.owner, req: { op: "hold-confirm" } }]);
    await perform(m, rec, [{ who: "partner", req: { op: "hold-confirm" }, faults: { main: this.o.fault } }]);
    await perform(m, rec, [{ who: "partner", req: { op: "hold-confirm" } }]);
  }
  toString() {
    return `scenario: ${this.o.owner}'s hold receipt is held, then confirmed twice${this.o.fault ? ` [the first confirm meets ${this.o.fault}]` : ""}`;
  }
}

/**
 * Rule 14: a receipt is paid (a hold held, then confirmed) while the fiscal
 * data operator is late (tok_sandbox_fiscal_late); the operator answers at
 * once, after the record's first scheduled read, after its last, or never;
 * the partner may refund it, the refund's data late too. Invariant 7 judges
 * it at every convergence: listed while its data is missing, delivered once
 * a read found it, listed after the last read until a read does.
 */
class FiscalLateCmd implements Cmd {
  constructor(
    readonly o: {
      owner: Who;
      hold: boolean;
      fault: FaultName | undefined;
      answers: "at once" | "after a read" | "after the last read" | "never";
      refund: boolean;
    },
  ) {}
  check = (m: Readonly<Model>) => m.recs.length < MAX_RECORDS;
  async run(m: Model): Promise<void> {
    const rec = await create(m, { owner: this.o.owner, kind: "receipt", merchant: 1003, isHold: this.o.hold, amount: 0, sender: "ok" });
    await perform(m, rec, [{ who: this.o.owner, req: { op: "pay", anonymous: false, card: "fiscal_late" }, faults: { main: this.o.fault } }]);
    if (this.o.hold) await perform(m, rec, [{ who: "partner", req: { op: "hold-confirm" } }]);
    await this.#operator(m, rec);
    if (!this.o.refund) return;
    await perform(m, rec, [{ who: "partner", req: { op: "cancel" } }]);
    await this.#operator(m, rec);
  }
  /** The record's scheduled reads run as the schedule says, the operator answering when this scenario says. */
  async #operator(m: Model, rec: Rec): Promise<void> {
    if (this.o.answers === "at once") await fiscalOperatorAnswers(m, rec);
    if (this.o.answers === "after a read") {
      // Its alarms run until one has read the upstream (the first may only hand on its events).
      const reads = () => rec.calls.filter((c) => c.path === "receipt/check-id").length;
      const before = reads();
      for (let n = 0; n < 4 && reads() === before; n++) if (!(await runAlarm(m, rec))) break;
      await fiscalOperatorAnswers(m, rec);
    }
    await settle(m, rec);
    if (this.o.answers !== "after the last read") return;
    await fiscalOperatorAnswers(m, rec);
    // No read is scheduled any more: the list shows it until one comes (a check-id, at the next convergence).
    const listed = await fiscalListed();
    checkFiscal(m, rec, listed, false);
    if (listed.has(rec.id) && fiscalMissing(rec.view.state, rec.view.ofd) === null)
      cover("rare: fiscal data shown after the last scheduled read: listed until a read finds it");
  }
  toString() {
    return `scenario: ${this.o.owner}'s ${this.o.hold ? "hold " : ""}receipt is paid with tok_sandbox_fiscal_late${this.o.fault ? ` [the pay meets ${this.o.fault}]` : ""}; the fiscal data operator answers ${this.o.answers}${this.o.refund ? "; the partner refunds it, the refund's data late too" : ""}`;
  }
}

/** Three wrong OTPs on a transfer, each perhaps met by a fault, then the right one. */
class ExhaustTransferCmd implements Cmd {
  constructor(readonly o: { owner: Who; faults: (FaultName | undefined)[] }) {}
  check = (m: Readonly<Model>) => m.recs.length < MAX_RECORDS;
  async run(m: Model): Promise<void> {
    const rec = await create(m, { owner: this.o.owner, kind: "transfer", merchant: 1001, isHold: false, amount: 2_000_000, sender: "ok" });
    for (const [i, fault] of this.o.faults.entries()) {
      await perform(m, rec, [
        { who: this.o.owner, req: { op: "pay", anonymous: false, card: "ok", otp: OTP_WRONG[i % 3] }, faults: { main: fault } },
      ]);
    }
    await perform(m, rec, [{ who: this.o.owner, req: { op: "pay", anonymous: false, card: "ok", otp: OTP_RIGHT } }]);
    await perform(m, rec, [{ who: this.o.owner, req: { op: "check" } }]);
  }
  toString() {
    return `scenario: ${this.o.owner}'s transfer gets wrong OTPs [${this.o.faults.map((f) => f ?? "no fault").join(", ")}], then the right one`;
  }
}

/**
 * A receipt's first OTP meets an outcome nobody knows (or a refusal in unknown
 * words), then two wrong ones: the third failed guess ends it, and the
 * gateway cancels it upstream at once (the upstream, having judged only two,
 * would not), unless that cancel meets a busy upstream: then its alarm does.
 */
class ExhaustionCmd implements Cmd {
  constructor(readonly o: { owner: Who; first: FaultName; busyCancel: boolean }) {}
  check = (m: Readonly<Model>) => m.recs.length < MAX_RECORDS;
  async run(m: Model): Promise<void> {
    const rec = await create(m, { owner: this.o.owner, kind: "receipt", merchant: 1001, isHold: false, amount: 0, sender: "ok" });
    const pay = (otp: string): OpRequest & { op: "pay" } => ({ op: "pay", anonymous: false, card: "ok", otp });
    await payWithOtpSent(m, rec, this.o.owner, pay(OTP_WRONG[0]), { main: this.o.first });
    await payWithOtpSent(m, rec, this.o.owner, pay(OTP_WRONG[1]));
    await payWithOtpSent(m, rec, this.o.owner, pay(OTP_WRONG[2]), this.o.busyCancel ? { cancel: "busy" } : {});
    await runAlarm(m, rec);
    await perform(m, rec, [{ who: this.o.owner, req: pay(OTP_RIGHT) }]);
  }
  toString() {
    return `scenario: ${this.o.owner}'s receipt gets a first OTP meeting ${this.o.first}, then two wrong ones${this.o.busyCancel ? "; the cancel that follows meets a busy upstream" : ""}`;
  }
}

/** The upstream's state after the last step (a function: the steps in between change it). */
const upstreamState = (rec: Rec): number => rec.view.state;

/**
 * A user's, or the partner's, cancel whose answer was lost, then the late
 * payment of an earlier pay lands upstream: one with tok_sandbox_pays_late
 * that timed out, or one the upstream kept and acts on now.
 */
class LostCancelCmd implements Cmd {
  constructor(
    readonly o: {
      owner: "user1" | "user2";
      canceller: "owner" | "partner";
      how: "hung" | "killed";
      finder: "alarm" | "next operation";
      hold: boolean;
      lateBy: "pays_late" | "a kept pay";
    },
  ) {}
  check = (m: Readonly<Model>) => m.recs.length < MAX_RECORDS;
  async run(m: Model): Promise<void> {
    const { owner, how } = this.o;
    const rec = await create(m, { owner, kind: "receipt", merchant: 1003, isHold: this.o.hold, amount: 0, sender: "ok" });
    const canceller: Who = this.o.canceller === "partner" ? "partner" : owner;
    // The pay's outcome is unknown; the first look finds the receipt unpaid: the payment will land later.
    const kept = this.o.lateBy === "a kept pay";
    const [pay] = await perform(m, rec, [
      { who: canceller, req: { op: "pay", anonymous: false, card: kept ? "ok" : "pays_late" }, faults: kept ? { main: "late" } : {} },
    ]);
    const latePay = rec.late.find((l) => l.request.requestId === pay!.requestId);
    await runAlarm(m, rec, {}, true);
    if (upstreamState(rec) !== 0 || (kept && !latePay)) return;
    const [cancel] = await perform(m, rec, [
      { who: canceller, req: { op: "cancel" }, faults: how === "hung" ? { main: "hung" } : { crash: "before" } },
    ]);
    // Killed: the cancel died with the object's connection, and the upstream never got it.
    const died = rec.late.filter((l) => l.request.path === "receipt/cancel" && l.request.requestId === cancel!.requestId);
    for (const late of died) rec.late.splice(rec.late.indexOf(late), 1);
    if (died.length > 0) m.log.push(`${cancel!.requestId}: the upstream never gets that cancel (its connection died with the object)`);
    if (!lostCancel(cancel!) || rec.calls.some((c) => c.path === "receipt/cancel")) return;
    if (latePay) {
      await actLate(m, rec, latePay);
    } else {
      await letLatePayHappen(rec.id);
      await look(m, rec);
      m.log.push(`late: the upstream's late payment of ${rec.key} lands: upstream 0 -> ${rec.view.state}`);
      checkRecord(m, rec);
    }
    if (![4, 5].includes(upstreamState(rec))) return;
    const paid = rec.view.state;
    if (this.o.finder === "alarm") await runAlarm(m, rec);
    else await perform(m, rec, [{ who: owner, req: { op: "pay", anonymous: false, card: "ok" } }]);
    await settle(m, rec);
    m.delivered.push(...(await m.queue.deliver()));
    checkEvents(m, rec);
    const as = `${canceller === "partner" ? "the partner" : canceller}'s cancel whose answer was lost (${how})`;
    if (canceller !== "partner") {
      if (rec.view.state !== paid)
        fail(m, `rule 8: ${as} was completed on a receipt ${paid === 4 ? "paid" : "held"} meanwhile: upstream ${paid} -> ${rec.view.state}`);
      // The partner learns of the refusal from the audit trail.
      const trail = await callGateway("receipt/audit", { id: rec.id });
      const entries = trail.status === 200 ? ((await trail.json()) as { entries: { op: string; actor: string; outcome: string }[] }).entries : [];
      if (!entries.some((e) => e.op === "cancel" && e.actor === `user:${m.subs[owner]}` && e.outcome === "forbidden"))
        fail(m, `rule 8: the refusal of ${as} is not in ${rec.key}'s audit trail (${trail.status}): ${JSON.stringify(entries)}`);
      cover(`rare: a user's lost cancel (${how}), then the late payment: refused, never refunded`);
    } else {
      // The refund the partner asked for.
      if (rec.view.state !== 21) fail(m, `rule 8: ${as} was not completed once the late payment landed: upstream ${paid} -> ${rec.view.state}`);
      cover(`rare: the partner's lost cancel (${how}), then the late payment: completed, refunded`);
    }
  }
  toString() {
    const { owner, canceller, how, finder, hold, lateBy } = this.o;
    const who = canceller === "partner" ? "the partner" : owner;
    const pays = lateBy === "pays_late" ? "with tok_sandbox_pays_late" : "and the upstream keeps the pay";
    return `scenario: ${who} pays ${owner}'s ${hold ? "hold " : ""}receipt ${pays}, then cancels it, the answer lost (${how}); the late payment lands; the ${finder} finds it`;
  }
}

/** How far the cron's retention runs ahead to prune what a record's end waits for: past every window of the event log. */
const RETENTION = retentionPolicy(env);

/**
 * Rule 10 with events still listed: the record's time passes beyond its
 * window (its own clock: its stored times move into the past) and its alarm
 * runs before the cron's retention pruned the log. Every event the log lists
 * keeps its body (events/list shows it with its type and data, events/resend
 * finds it), so the record waits. `meanwhile` runs then. Once the cron, as far
 * on, has pruned the log, its next alarm deletes it, and it leaves the pool.
 * The caller made sure the run's other records owe nothing (a checkpoint): the
 * cron so far on takes every event and tid of the run that it may.
 */
async function endRecord(m: Model, rec: Rec, meanwhile: () => Promise<void> = async () => {}): Promise<{ undelivered: boolean }> {
  await settle(m, rec);
  m.delivered.push(...(await m.queue.deliver()));
  const due = await alarmDue(rec.kind, rec.id, rec.clock);
  if (due === null || due - gatewayClock.now() <= RECORD_DELETION_AFTER_MS) {
    fail(
      m,
      `rule 10: ${rec.key} is final (upstream ${rec.view.state}, ${guessesOf(rec, sentsOf(m, rec), rec.calls)} failed guesses) and owes nothing, but its end is not set: its alarm is ${due === null ? "not set" : `due in ${Math.round((due - gatewayClock.now()) / 1000)} s`}`,
    );
  }
  const expected = expectedEvents(m, rec);
  const ahead = rec.clock.ahead;
  await runNextAlarm(rec.kind, rec.id, rec.clock);
  m.log.push(
    `time: ${rec.key}'s clock moves on ${((rec.clock.ahead - ahead) / 86_400_000).toFixed(1)} days, to its end (rule 10), before the cron prunes the log; its alarm runs`,
  );
  const listed = await listedEvents(rec.id);
  const types = new Set(listed.events.map((e) => e.type));
  const missing = [...expected].filter((t) => !types.has(t));
  if (listed.status !== 200 || missing.length > 0) {
    fail(
      m,
      `rule 10: ${rec.key}'s time came while the log still listed its events, and events/list (${listed.status}) no longer shows ${missing.join(", ")} (shows: ${[...types].join(", ") || "nothing"}): their bodies went with the record`,
    );
  }
  for (const e of listed.events) {
    const object = e.data?.object;
    if (typeof e.type !== "string" || (object?.id ?? object?.receipt_id) !== rec.id)
      fail(m, `rule 10: events/list shows ${e.id} of ${rec.key} without its body: ${JSON.stringify(e).slice(0, 300)}`);
    const again = await resendEvent(e.id);
    if (again.status !== 200)
      fail(
        m,
        `rule 10: events/resend of ${e.id} (${e.type}), which events/list shows for ${rec.key}, answered ${again.status}: ${again.raw.slice(0, 300)}`,
      );
  }
  m.log.push(
    `events: the log lists ${listed.events.length} events of ${rec.key} (${listed.events.map((e) => `${e.type} ${e.delivery?.status}`).join(", ")}), each with its body; each is resent`,
  );
  // The resent copies go at once (a real queue takes seconds), delivered or refused again.
  m.delivered.push(...(await m.queue.deliver()));
  await meanwhile();
  // The log drops a slot of its ring in the period before that slot is written again (src/d1/ring.ts): a cron run
  // in each of the ring's periods past every window meets the period that drops the slot holding these events.
  const period = slotPeriodMs(RETENTION.deliveredEventsMs);
  for (let n = 0; ; n++) {
    const listing = await listedEvents(rec.id);
    if (listing.status !== 200)
      fail(m, `retention: events/list of ${rec.key} answered ${listing.status} while the cron pruned the log: ${listing.raw.slice(0, 300)}`);
    if (listing.events.length === 0) break;
    if (n === RING_SLOTS + 1) fail(m, `retention: a cron run in each of the ring's periods past every window left ${rec.key}'s events in the log`);
    await runCron(Math.max(RETENTION.undeliveredEventsMs, RETENTION.deliveredEventsMs) + 60_000 + n * period);
  }
  // Its next end check deletes it: the record asks the log again END_RECHECK_MS after it found its events there (a
  // time it keeps in memory), and an alarm a call meanwhile set sooner (its audit export, a drain) runs first.
  let left = await stored(rec.kind, rec.id);
  for (let n = 0; n < 3 && (left.rows.length > 0 || left.alarm !== null); n++) {
    if (!(await runNextAlarm(rec.kind, rec.id, rec.clock))) break;
    left = await stored(rec.kind, rec.id);
  }
  if (left.rows.length > 0 || left.alarm !== null) {
    fail(
      m,
      `rule 10: once the log held none of its events, ${rec.key}'s alarm did not delete it (${left.rows.length} rows stored, alarm ${left.alarm === null ? "none" : "set"})`,
    );
  }
  m.recs.splice(m.recs.indexOf(rec), 1);
  m.queue.accept(rec.id);
  m.log.push(`retention: the cron prunes the log; ${rec.key}'s next alarm deletes it, and it leaves the pool`);
  return { undelivered: listed.events.some((e) => e.delivery?.status !== "delivered") };
}

/** A receipt paid (perhaps refunded) while the receiver is down: its events are still undelivered when its time comes (rule 10). */
class RecordEndCmd implements Cmd {
  constructor(readonly o: { owner: Who; refund: boolean }) {}
  check = (m: Readonly<Model>) => m.recs.length < MAX_RECORDS;
  async run(m: Model): Promise<void> {
    await converge(m, "before the cron runs days ahead", false);
    const rec = await create(m, { owner: this.o.owner, kind: "receipt", merchant: 1003, isHold: false, amount: 0, sender: "ok" });
    m.queue.refuse(rec.id);
    m.log.push(`receiver: it answers 500 to every event of ${rec.key}`);
    await perform(m, rec, [{ who: "partner", req: partnerPay(rec) }]);
    if (this.o.refund) await perform(m, rec, [{ who: "partner", req: { op: "cancel" } }]);
    const { undelivered } = await endRecord(m, rec);
    if (undelivered) cover("rare: a record's time came while the log listed its undelivered events: it waited for the log, then went");
  }
  toString() {
    return `scenario: ${this.o.owner}'s receipt is paid${this.o.refund ? " and refunded" : ""} while the receiver is down; its time comes (rule 10) before the cron prunes the log`;
  }
}

/** A transfer closed at the edge: two OTPs whose answers were lost before the upstream judged them, and a wrong one; the upstream still shows 0. */
class EdgeClosedCmd implements Cmd {
  constructor(readonly o: { owner: Who; faults: [FaultName, FaultName] }) {}
  check = (m: Readonly<Model>) => m.recs.length < MAX_RECORDS;
  async run(m: Model): Promise<void> {
    await converge(m, "before the cron runs days ahead", false);
    const rec = await create(m, { owner: this.o.owner, kind: "transfer", merchant: 1001, isHold: false, amount: 2_000_000, sender: "ok" });
    const pay = (otp: string, fault?: FaultName): Item => ({
      who: this.o.owner,
      req: { op: "pay", anonymous: false, card: "ok", otp },
      faults: { main: fault },
    });
    for (const [i, fault] of this.o.faults.entries()) await perform(m, rec, [pay(OTP_WRONG[i]!, fault)]);
    await perform(m, rec, [pay(OTP_WRONG[2])]);
    if (rec.maxGuesses < MAX_GUESSES || rec.view.state !== 0) return;
    // Every later operation answers otp_attempts_exhausted: now, and when the record's time has come.
    await perform(m, rec, [pay(OTP_RIGHT)]);
    await endRecord(m, rec, async () => {
      await perform(m, rec, [{ who: "partner", req: { op: "pay", anonymous: false, card: "ok", otp: OTP_RIGHT } }]);
    });
    cover("rare: a transfer closed at the edge (the upstream at 0) is final, and ends (rule 10)");
  }
  toString() {
    return `scenario: ${this.o.owner}'s transfer gets two OTPs meeting ${this.o.faults.join(" and ")}, then a wrong one (closed at the edge); its time comes (rule 10)`;
  }
}

/** A transfer's create meets an unknown outcome; the caller retries with the same tid and another amount, or receiver card, then with the same body. */
class TidRetryCmd implements Cmd {
  constructor(readonly o: { owner: Who; fault: CreateFault; changed: ("amount" | "receiver card")[] }) {}
  check = (m: Readonly<Model>) => m.recs.length < MAX_RECORDS;
  async run(m: Model): Promise<void> {
    await create(m, { owner: this.o.owner, kind: "transfer", merchant: 1001, isHold: false, amount: 500_000, sender: "ok" }, this.o.fault, false, {
      changed: this.o.changed,
    });
  }
  toString() {
    return `scenario: ${this.o.owner}'s transfer create meets ${this.o.fault.fault}${this.o.fault.fault === "late" ? (this.o.fault.lateBeforeRetry ? " (acted before the retries)" : " (acted after the retries)") : ""}; retried with the same tid and another ${this.o.changed.join(", then another ")}, then the same body`;
  }
}

/** A hold is confirmed, and the upstream confirms only after the gateway gave up: a late read must find it paid. */
class HoldConfirmLateCmd implements Cmd {
  constructor(readonly o: { owner: Who }) {}
  check = (m: Readonly<Model>) => m.recs.length < MAX_RECORDS;
  async run(m: Model): Promise<void> {
    const rec = await create(m, { owner: this.o.owner, kind: "receipt", merchant: 1003, isHold: true, amount: 0, sender: "ok" });
    await perform(m, rec, [{ who: "partner", req: partnerPay(rec) }]);
    if (upstreamState(rec) !== 5) return;
    const [confirm] = await perform(m, rec, [{ who: "partner", req: { op: "hold-confirm" }, faults: { main: "late" } }]);
    const late = rec.late.find((l) => l.request.requestId === confirm!.requestId);
    if (!late) return;
    // The gateway's first look finds it still held; then the upstream confirms.
    await runAlarm(m, rec, {}, true);
    await actLate(m, rec, late);
    if (rec.view.state !== 4) return;
    const paidDelivered = () => m.delivered.some((e) => e.recordId === rec.id && e.type === "receipt.paid" && e.state === 4);
    for (let n = 0; n < MAX_ALARMS && !paidDelivered(); n++) {
      if (!(await runAlarm(m, rec))) break;
      m.delivered.push(...(await m.queue.deliver()));
    }
    const after = clockNow(rec) - late.at;
    if (!paidDelivered())
      fail(m, `rule 8: the upstream confirmed ${rec.key}'s hold after the gateway gave up, and its late reads never delivered receipt.paid`);
    if (after > LATE_FOUND_WITHIN_MS)
      fail(
        m,
        `rule 8: ${rec.key}'s late confirmation was found ${Math.round(after / 1000)} s after the call; the contract finds it within ${LATE_FOUND_WITHIN_MS / 1000} s`,
      );
    cover("rare: a hold-confirm the upstream made after the gateway gave up, found paid by a late read");
  }
  toString() {
    return `scenario: ${this.o.owner}'s hold receipt is held; the partner's confirm reaches the upstream only after the gateway gave up`;
  }
}

/** OTP pays refused in words: VALIDATION_ERROR (no guess), a 400 with no code (an unconfirmed guess); then a wrong OTP and the right one. */
class OtpRefusalCmd implements Cmd {
  constructor(readonly o: { owner: Who; kind: KindName; noCode: "no-code" | "no-code-after"; validationFirst: boolean }) {}
  check = (m: Readonly<Model>) => m.recs.length < MAX_RECORDS;
  async run(m: Model): Promise<void> {
    const { owner, kind } = this.o;
    const rec = await create(m, { owner, kind, merchant: 1001, isHold: false, amount: 2_000_000, sender: "ok" });
    const pay = (otp: string): OpRequest & { op: "pay" } => ({ op: "pay", anonymous: false, card: "ok", otp });
    const refusals: FaultName[] = this.o.validationFirst ? ["validation", this.o.noCode] : [this.o.noCode, "validation"];
    for (const [i, fault] of refusals.entries()) await payWithOtpSent(m, rec, owner, pay(OTP_WRONG[i]!), { main: fault });
    await payWithOtpSent(m, rec, owner, pay(OTP_WRONG[2]));
    await payWithOtpSent(m, rec, owner, pay(OTP_RIGHT));
  }
  toString() {
    return `scenario: ${this.o.owner}'s ${this.o.kind}'s wrong OTPs are refused with ${this.o.validationFirst ? `VALIDATION_ERROR, then ${this.o.noCode}` : `${this.o.noCode}, then VALIDATION_ERROR`}; then a wrong one, then the right one`;
  }
}

/** The erased form of a value (rule 10): its first and last two characters, stars between. */
const erasedForm = (value: string) =>
  value.length <= 4 ? "*".repeat(value.length) : `${value.slice(0, 2)}${"*".repeat(value.length - 4)}${value.slice(-2)}`;

/** A user's receipt with their own phone and contract; the partner asks to erase the user; later the partner refunds it. */
class EraseCmd implements Cmd {
  constructor(readonly o: { user: "user1" | "user2"; payer: "user" | "partner" }) {}
  check = (m: Readonly<Model>) => m.recs.length < MAX_RECORDS;
  async run(m: Model): Promise<void> {
    const { user } = this.o;
    const phone = `99890${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`;
    const account = [
      { key: "phone", value: phone },
      { key: "contract", value: `contract-${crypto.randomUUID()}` },
    ];
    const values = account.map((a) => a.value);
    const started = Date.now();
    const rec = await create(m, { owner: user, kind: "receipt", merchant: 1003, isHold: false, amount: 0, sender: "ok" }, null, false, { account });
    // The pay carries a key (rule 11): its answer, kept for repeats, holds the values too.
    const payer: Who = this.o.payer === "user" ? user : "partner";
    const pay: OpRequest = { op: "pay", anonymous: false, card: "ok" };
    const key = newKey(m, rec, payer, pay);
    await perform(m, rec, [{ who: payer, req: pay, key }]);
    await settle(m, rec);
    m.delivered.push(...(await m.queue.deliver()));
    // The trail holds what the records sent before the erasure is asked (their exports leave after each answer,
    // in the background): the check below is of the erasure, not of an export still on its way.
    for (const r of m.recs) await stubOf(r.kind, r.id).exportAudit();
    await flushAudit();
    const erase = await callGateway("users/erase", { user: m.subs[user] });
    if (erase.status !== 202) fail(m, `users/erase answered ${erase.status}: ${(await erase.text()).slice(0, 300)}`);
    // The cron carries an erasure out in bounded steps (records, then each store, then the audit trail's batches):
    // it runs as it would each minute until the request is done.
    let runs = 0;
    for (; runs < 20; runs++) {
      await runCron(1_000);
      const open = await env.DB.prepare("SELECT done_at FROM erasures WHERE user = ?1").bind(m.subs[user]).first<{ done_at: number | null }>();
      if (open?.done_at != null) break;
    }
    if (runs === 20) fail(m, `the erasure of ${user} is not done after 20 cron runs`);
    m.log.push(`erasure: the partner asks to erase ${user}'s personal data; the cron runs ${runs + 1} time(s) until it is done`);
    // A repeat of a kept answer after the erasure shows the values masked (rule 10): what the key now keeps.
    for (const use of m.keys.values()) {
      if (use.rec !== rec.key || use.settled === null) continue;
      use.settled = { ...use.settled, raw: account.reduce((raw, a) => raw.replaceAll(a.value, erasedForm(a.value)), use.settled.raw) };
    }
    const since = m.delivered.length;
    await this.erasedEverywhere(m, rec, values, account);
    await this.noStoreHolds(m, rec, values, started);
    const use = m.keys.get(key)!;
    if (use.first !== null) {
      const [again] = await perform(m, rec, [{ who: payer, req: pay, key }]);
      cover("rare: a key's kept answer repeated after its user's erasure");
      if (again!.answer.status === 200 || again!.repeatOf !== undefined) await this.noStoreHolds(m, rec, values, started);
    }
    // Later events carry the values erased too.
    await perform(m, rec, [{ who: "partner", req: { op: "cancel" } }]);
    await settle(m, rec);
    m.delivered.push(...(await m.queue.deliver()));
    await this.erasedEverywhere(m, rec, values, account);
    for (const e of m.delivered.slice(since).filter((d) => d.recordId === rec.id)) {
      const found = values.filter((v) => e.body.includes(v));
      if (found.length > 0) fail(m, `rule 10: ${e.type} of ${rec.key}, delivered after ${user}'s erasure, carries ${found.join(", ")}`);
    }
    cover("rare: a user's data erased: every event body shows the erased values");
  }

  /** Each event of the record the log lists, each resent, and the record's storage (its outbox) show the values erased. */
  async erasedEverywhere(m: Model, rec: Rec, values: string[], account: { key: string; value: string }[]): Promise<void> {
    const listed = await listedEvents(rec.id);
    if (listed.status !== 200 || listed.events.length === 0)
      fail(m, `events/list of ${rec.key} answered ${listed.status} with ${listed.events.length} events`);
    const erased = account.map((a) => ({ key: a.key, value: erasedForm(a.value) }));
    for (const e of listed.events) {
      const shown = JSON.stringify(e);
      const kept = values.filter((v) => shown.includes(v));
      const accountShown = (e.data?.object as { account?: unknown } | undefined)?.account;
      if (kept.length > 0 || JSON.stringify(accountShown) !== JSON.stringify(erased))
        fail(
          m,
          `rule 10: after the erasure, events/list shows ${e.type} of ${rec.key} with the account ${JSON.stringify(accountShown)} (erased: ${JSON.stringify(erased)})`,
        );
      const again = await resendEvent(e.id);
      const resentKept = values.filter((v) => again.raw.includes(v));
      if (again.status !== 200 || resentKept.length > 0)
        fail(
          m,
          `rule 10: after the erasure, events/resend of ${e.type} of ${rec.key} answered ${again.status} carrying ${resentKept.join(", ") || "nothing erased"}`,
        );
    }
    m.delivered.push(...(await m.queue.deliver()));
    for (const row of (await stored(rec.kind, rec.id)).rows) {
      const kept = values.filter((v) => row.includes(v));
      if (kept.length > 0) fail(m, `rule 10: after the erasure, ${rec.key}'s object still stores ${kept.join(", ")}: ${row.slice(0, 300)}`);
    }
  }
  /**
   * The oracle's erasure: no raw value of the user's in any store the
   * gateway registers (src/stores.ts), walked from the list itself, the
   * answers kept for Idempotency-Keys included; nor in any line it logged.
   */
  async noStoreHolds(m: Model, rec: Rec, values: string[], since: number): Promise<void> {
    const records = m.recs.map((r) => ({ kind: r.kind, id: r.id }));
    const { lines, unread } = await everyRegisteredStore(records, since);
    for (const { store, line } of lines) {
      const kept = values.filter((v) => line.includes(v));
      if (kept.length > 0) fail(m, `rule 10: after ${rec.owner}'s erasure, the store ${store} still holds ${kept.join(", ")}: ${line.slice(0, 300)}`);
    }
    for (const line of m.logged) {
      const kept = values.filter((v) => line.includes(v));
      if (kept.length > 0) fail(m, `rule 10: the gateway logged ${kept.join(", ")} of ${rec.owner}'s: ${line.slice(0, 300)}`);
    }
    m.log.push(
      `erasure: no store holds ${rec.owner}'s values (${lines.length} lines read; not readable here: ${unread.map((u) => u.store).join(", ")})`,
    );
  }
  toString() {
    return `scenario: ${this.o.user}'s receipt (their own phone and contract) is paid by the ${this.o.payer} with a key; the partner asks to erase ${this.o.user}; the key is repeated; then the receipt is refunded`;
  }
}

/** What the gateway's own cancel of an expiry meets (a crash: its object dies while the cancel is at the upstream, which never acts on it). */
type ExpiryCancelFault = "lost" | "5xx-after" | "late" | "hung" | "busy" | "crash";

/**
 * Rule 12 crossing rule 8. An unpaid receipt reaches its window
 * (RECEIPT_EXPIRY_HOURS): perhaps with a pay just before it whose answer was
 * lost and that lands later (before the expiry is due, or after the alarm
 * that would expire it), and with the gateway's own cancel meeting a fault.
 * The oracle: the expiry never acts while the pay's outcome is unknown or
 * its late reads are owed, so a receipt the upstream shows paid is never
 * cancelled by the gateway (invariant 2 holds it too); the gateway's own
 * cancel is noted before it leaves (its record shows the note while the
 * upstream holds it), and one whose outcome is unknown is reconciled within
 * a minute and read late, so a cancel the upstream makes late is found and
 * told with `data.reason` `expired`.
 */
class ExpiryCmd implements Cmd {
  constructor(
    readonly o: {
      owner: Who;
      latePay: "none" | "lands before the expiry is due" | "lands after the expiry's alarm";
      cancel: ExpiryCancelFault | undefined;
    },
  ) {}
  check = (m: Readonly<Model>) => m.recs.length < MAX_RECORDS;
  async run(m: Model): Promise<void> {
    const { owner, latePay, cancel } = this.o;
    const rec = await create(m, { owner, kind: "receipt", merchant: 1003, isHold: false, amount: 0, sender: "ok" });
    await settle(m, rec);
    const expiresAt = await alarmDue(rec.kind, rec.id, rec.clock);
    if (expiresAt === null) fail(m, `rule 12: ${rec.key} is unpaid and owes nothing, but no alarm is set for its expiry`);
    let pay: Sent | undefined;
    if (latePay !== "none") {
      // Half a minute before the window ends, the owner pays; the upstream takes the call only later.
      await letRecordTimePass(rec.kind, rec.id, expiresAt - gatewayClock.now() - 30_000, rec.clock);
      rec.clock.parked = null;
      m.log.push(`time: ${rec.key}'s clock moves on to half a minute before its expiry (rule 12)`);
      [pay] = await perform(m, rec, [{ who: owner, req: { op: "pay", anonymous: false, card: "ok" }, faults: { main: "late" } }]);
      const late = rec.late.find((l) => l.request.requestId === pay!.requestId);
      if (!late) return;
      if (latePay === "lands before the expiry is due") await actLate(m, rec, late);
      else {
        // The record's alarms run (its look, the expiry when due) while the pay may still land: none may cancel it.
        for (;;) {
          // Up to the last alarm before the pay lands: the upstream takes it within LATE_WITHIN_MS of the call.
          const due = await alarmDue(rec.kind, rec.id, rec.clock);
          if (due === null || due + rec.clock.ahead - late.at > LATE_WITHIN_MS) break;
          if (!(await runAlarm(m, rec, {}, true, Number.POSITIVE_INFINITY))) break;
          if (rec.view.state === 21 && rec.view.cancelReason === EXPIRY_REASONS.expired)
            fail(
              m,
              `rule 12: the gateway cancelled ${rec.key} (${rec.view.cancelReason}) ${Math.round((clockNow(rec) - late.at) / 1000)} s after a pay whose outcome is unknown (${pay!.requestId}), before its late reads were done`,
            );
        }
        await actLate(m, rec, late);
      }
      cover(`crossing: a pay lost just before the expiry, it ${latePay}`);
    }
    // The expiry (or the late reads it waits for): its cancel meets the fault.
    const before = rec.calls.length;
    let met = false;
    if (cancel === "crash") met = await this.crashMidCancel(m, rec);
    else {
      for (let n = 0; n < MAX_ALARMS; n++) {
        const sent = met || rec.calls.slice(before).some((c) => c.path === "receipt/cancel");
        if (sent || rec.view.state !== 0) break;
        if (!(await runAlarm(m, rec, { cancel }, true, Number.POSITIVE_INFINITY))) break;
        // The fault met the cancel (runAlarm marks a record whose cancel met one).
        met = cancel !== undefined && rec.cancelTrouble;
      }
    }
    const cancels = rec.calls.slice(before).filter((c) => c.path === "receipt/cancel");
    const deferred = rec.late.find((l) => l.request.path === "receipt/cancel");
    if (cancels.length === 0 && !met && rec.view.state === 0)
      fail(m, `rule 12: ${rec.key} is unpaid past its window, and the gateway never sent its cancel`);
    if (met) cover(`crossing: the expiry's cancel met ${cancel}`);
    if (met && cancel !== "busy") {
      // Rule 8 for the gateway's own call: its outcome unknown, the record is reconciled within a minute.
      const due = await alarmDue(rec.kind, rec.id, rec.clock);
      if (rec.view.state === 0 && (due === null || due - gatewayClock.now() > RECONCILED_WITHIN_MS))
        fail(
          m,
          `rule 8: the gateway's own cancel of ${rec.key} met ${cancel}; the upstream shows ${rec.view.state}, and its next alarm is ${due === null ? "not set" : `due in ${Math.round((due - gatewayClock.now()) / 1000)} s`}`,
        );
    }
    if (deferred) await this.lateCancelFound(m, rec, deferred);
    await settle(m, rec);
    m.delivered.push(...(await m.queue.deliver()));
    if (rec.view.state === 21 && rec.view.cancelReason === EXPIRY_REASONS.expired) {
      const told = m.delivered.filter((e) => e.recordId === rec.id && e.type === "receipt.cancelled");
      const reasons = told.map((e) => (JSON.parse(e.body) as { data: { reason?: string } }).data.reason);
      if (told.length > 0 && !reasons.includes("expired"))
        fail(m, `rule 12: the expiry cancelled ${rec.key}, and receipt.cancelled says data.reason ${reasons.join(", ")}, not expired`);
    }
    // No receipt the upstream shows paid is cancelled by the gateway: a pay that landed stays paid.
    if (pay && rec.seen.some((seen) => seen.state === 4) && rec.view.state !== 4)
      fail(m, `rule 12: ${rec.key} was paid upstream (${pay.requestId} landed late), and the gateway left it in state ${rec.view.state}`);
    if (rec.view.state === 4) return;
    // Expired: told, read as the upstream shows it, and every later operation answers receipt_expired; it leaves the pool.
    checkEvents(m, rec);
    await checkRead(m, rec);
    const requestId = `m${m.run}-s${++m.step}`;
    // Asked by the partner, whom no per-user rate limit holds back (a user's tenth pay in a minute is 429 first).
    const again = await readAnswer(await send(m, "receipt/pay", bodyOf(rec, { op: "pay", anonymous: false, card: "ok" }), "partner", requestId));
    m.log.push(`${requestId}: the partner pays the expired ${rec.key} -> ${showAnswer(again)}`);
    if (again.code !== "receipt_expired" || (await callsOfRequest(requestId)).some((c) => c.path === "receipt/pay"))
      fail(m, `rule 12: a pay of ${rec.key}, expired, answered ${showAnswer(again)}: ${again.raw.slice(0, 300)}`);
    m.recs.splice(m.recs.indexOf(rec), 1);
    m.log.push(`expiry: ${rec.key} ended by rule 12 leaves the pool`);
  }

  /** The gateway's cancel reaches the upstream, which holds it unacted; its note must be stored; the object dies; the upstream never acts. */
  async crashMidCancel(m: Model, rec: Rec): Promise<boolean> {
    scriptedUpstream.reset();
    scriptedUpstream.on("receipt/cancel", { kind: "defer", hang: true }, { id: rec.id });
    const arrived = scriptedUpstream.deferredArrived();
    const alarm = runNextAlarm(rec.kind, rec.id, rec.clock).catch(() => false);
    const first = await Promise.race([arrived.then(() => "arrived" as const), alarm.then(() => "ran" as const)]);
    if (first === "arrived") {
      const note = await runInDurableObject(
        stubOf(rec.kind, rec.id),
        (_i, state) => state.storage.sql.exec<{ pending_op: string | null }>("SELECT pending_op FROM record").toArray()[0],
      );
      if (!note?.pending_op)
        fail(m, `rule 8: the gateway's own cancel of ${rec.key} reached the upstream with no note stored (pending_op ${note?.pending_op ?? "none"})`);
      await abort(rec);
    }
    await alarm;
    scriptedUpstream.takeDeferred();
    scriptedUpstream.reset();
    await look(m, rec);
    // The object's next alarm comes once the killed call could have ended on its own (rule 8: within a minute of the fault).
    m.log.push(`crash: ${rec.key}'s object dies while the gateway's own cancel is at the upstream (${first}); the upstream never acts on it`);
    return first === "arrived";
  }

  /** The gateway's cancel the upstream makes late (after the gateway gave up): a late read finds it, within the contract's two minutes. */
  async lateCancelFound(m: Model, rec: Rec, late: Late): Promise<void> {
    await runAlarm(m, rec, {}, true, Number.POSITIVE_INFINITY);
    await actLate(m, rec, late);
    if (rec.view.state !== 21) return;
    const told = () => m.delivered.some((e) => e.recordId === rec.id && e.type === "receipt.cancelled");
    for (let n = 0; n < MAX_ALARMS && !told(); n++) {
      if (!(await runAlarm(m, rec, {}, false, Number.POSITIVE_INFINITY))) break;
      m.delivered.push(...(await m.queue.deliver()));
    }
    const after = clockNow(rec) - late.at;
    if (!told()) fail(m, `rule 8: the upstream made the gateway's own cancel of ${rec.key} late, and no late read ever told receipt.cancelled`);
    if (after > LATE_FOUND_WITHIN_MS)
      fail(
        m,
        `rule 8: the gateway's own cancel of ${rec.key}, made late, was found ${Math.round(after / 1000)} s after the call; the contract finds it within ${LATE_FOUND_WITHIN_MS / 1000} s`,
      );
    cover("crossing: the expiry's cancel made late upstream, found by a late read");
  }
  toString() {
    const { owner, latePay, cancel } = this.o;
    return `scenario: ${owner}'s receipt reaches its expiry (rule 12)${latePay === "none" ? "" : `; a pay lost just before it ${latePay}`}${cancel ? `; the gateway's cancel meets ${cancel}` : ""}`;
  }
}

/** How a request is refused before the gateway acts (rule 13's list: its body, its key, the caller's rights, a replay, a limit). */
type RefusalKind = "bad body" | "bad key" | "bad token" | "rights" | "replay" | "too soon";

/**
 * Rule 13 against every kind of refusal: the owner's anonymous authorize
 * (a card number) is admitted and counted (the card's use by the user, its
 * user, the OTP send), then requests on the same record are refused before
 * the gateway acts, each kind in turn. Each leaves every counter exactly as
 * it was, and none reaches the upstream.
 */
class RefusalCmd implements Cmd {
  constructor(readonly o: { owner: "user1" | "user2"; kinds: RefusalKind[] }) {}
  check = (m: Readonly<Model>) => m.recs.length < MAX_RECORDS;
  async run(m: Model): Promise<void> {
    const { owner } = this.o;
    const rec = await create(m, { owner, kind: "receipt", merchant: 1001, isHold: false, amount: 0, sender: "ok" });
    const authorize: OpRequest = { op: "authorize", anonymous: true, card: "ok" };
    const key = newKey(m, rec, owner, authorize);
    const [first] = await perform(m, rec, [{ who: owner, req: authorize, key }]);
    if (first!.answer.status !== 200) return;
    const counted = await riskCounters();
    if (counted.length === 0) fail(m, `rule 13: ${owner}'s anonymous authorize ${first!.requestId} was admitted and counted nothing`);
    const other: Who = owner === "user1" ? "user2" : "user1";
    const body = bodyOf(rec, authorize);
    const path = mainPathOf(rec, authorize);
    for (const [i, kind] of this.o.kinds.entries()) {
      const requestId = `m${m.run}-s${++m.step}-refused${i}`;
      const res =
        kind === "bad body"
          ? await send(m, path, { ...body, card: { ...(body.card as object), cvv: "123" } }, owner, requestId)
          : kind === "bad key"
            ? await send(m, path, body, owner, requestId, "k".repeat(256))
            : kind === "bad token"
              ? await exports.default.fetch(`${API}/${path}`, {
                  method: "POST",
                  headers: { "content-type": "application/json", authorization: "Bearer not-a-token", "x-request-id": requestId },
                  body: JSON.stringify(body),
                })
              : kind === "rights"
                ? await send(m, path, body, other, requestId)
                : kind === "replay"
                  ? await send(m, path, body, owner, requestId, key)
                  : await send(m, path, body, owner, requestId);
      const answer = await readAnswer(res);
      const calls = await callsOfRequest(requestId);
      m.log.push(
        `${requestId}: ${kind === "rights" ? other : owner} asks again for an OTP on ${rec.key} (${kind}) -> ${showAnswer(answer)}${answer.replayed ? " (replayed)" : ""}`,
      );
      if (answer.status === 500) fail(m, `${requestId} answered 500: ${answer.raw.slice(0, 300)}`);
      // A user's calls also meet the per-user rate limit first, itself a refusal before the gateway acts.
      const refused = (kind === "replay" ? answer.replayed : REFUSED_BEFORE_ACTING.has(answer.status)) || answer.code === "rate_limited";
      if (!refused) fail(m, `${requestId} (${kind}) was not refused before the gateway acted: ${showAnswer(answer)} ${answer.raw.slice(0, 300)}`);
      if (calls.length > 0) fail(m, `${requestId} (${kind}), refused, reached the upstream: ${showCalls(calls)}`);
      const after = await riskCounters();
      if (JSON.stringify(after) !== JSON.stringify(counted))
        fail(
          m,
          `rule 13: ${requestId} (${kind}), refused before the gateway acted (${showAnswer(answer)}), changed the counters: ${after
            .filter((line) => !counted.includes(line))
            .join("; ")
            .slice(0, 400)}`,
        );
      cover(`refusal counted nothing: ${kind} -> ${answer.replayed ? "replayed" : answer.code}`);
    }
    await look(m, rec);
  }
  toString() {
    return `scenario: ${this.o.owner}'s anonymous authorize is counted (rule 13); then refused on the same record: ${this.o.kinds.join(", ")}`;
  }
}

// ---------------------------------------------------------------------------
// Arbitraries

const recIndex = fc.nat({ max: MAX_RECORDS - 1 });
const role = fc.constantFrom<Role>("owner", "owner", "owner", "partner", "partner", "other");
const who = fc.constantFrom<Who>("partner", "user1", "user2");
const user = fc.constantFrom<"user1" | "user2">("user1", "user2");
const otp = fc.constantFrom<string | undefined>(OTP_RIGHT, OTP_RIGHT, OTP_WRONG[0], OTP_WRONG[1], OTP_WRONG[2], undefined);
const weighted = <T>(...entries: [number, T][]) => fc.oneof(...entries.map(([weight, value]) => ({ weight, arbitrary: fc.constant(value) })));
const payCard = weighted<Behaviour>(
  [14, "ok"],
  [2, "insufficient"],
  [1, "busy"],
  [1, "error"],
  [2, "supplier_pending"],
  [2, "supplier_fails"],
  [1, "paid_timeout"],
  [2, "fiscal_late"],
);

/** Faults on an operation's own call; the ones that cost the gateway's whole timeout are rare. */
const mainFault = weighted<FaultName | undefined>(
  [40, undefined],
  [3, "lost"],
  [3, "5xx"],
  [3, "5xx-after"],
  [3, "busy"],
  [2, "bad-body"],
  [5, "late"],
  [1, "late-hang"],
  [1, "timeout"],
  [4, "unknown-code"],
  [4, "unknown-code-after"],
  [1, "no-code"],
  [1, "no-code-after"],
  [1, "validation"],
);
const stepFaults: fc.Arbitrary<StepFaults> = fc.record({
  main: mainFault,
  read: weighted<FaultName | undefined>([14, undefined], [1, "5xx"], [1, "busy"], [1, "lost"]),
  cancel: weighted<FaultName | undefined>([12, undefined], [2, "busy"], [1, "5xx"]),
  crash: weighted<StepFaults["crash"]>([36, undefined], [1, "mid"], [1, "before"], [1, "after"]),
});

const createSpec: fc.Arbitrary<CreateSpec> = fc.record({
  owner: who,
  kind: weighted<KindName>([3, "receipt"], [1, "transfer"]),
  merchant: fc.constantFrom<1001 | 1002 | 1003>(1001, 1001, 1001, 1003, 1003, 1002),
  isHold: fc.constantFrom(false, false, true),
  amount: fc.constantFrom(500_000, 2_000_000),
  sender: weighted<Behaviour>([8, "ok"], [1, "insufficient"], [1, "error"], [1, "busy"], [1, "paid_timeout"]),
});
const createFault: fc.Arbitrary<CreateFault | null> = fc.oneof(
  { weight: 6, arbitrary: fc.constant(null) },
  {
    weight: 3,
    arbitrary: fc.record({
      fault: weighted<FaultName>([3, "lost"], [3, "5xx"], [2, "5xx-after"], [2, "busy"], [3, "late"], [1, "timeout"]),
      lateBeforeRetry: fc.boolean(),
    }),
  },
);

const authorizeReq = fc.record({ op: fc.constant("authorize" as const), anonymous: fc.boolean(), card: weighted<Behaviour>([6, "ok"], [1, "busy"]) });
const payReq = fc.record({ op: fc.constant("pay" as const), anonymous: weighted([4, false], [1, true]), card: payCard, otp });
const anyReq: fc.Arbitrary<OpRequest> = fc.oneof(
  { weight: 4, arbitrary: payReq },
  { weight: 1, arbitrary: authorizeReq },
  { weight: 2, arbitrary: fc.constant<OpRequest>({ op: "cancel" }) },
  { weight: 1, arbitrary: fc.constant<OpRequest>({ op: "hold-confirm" }) },
  { weight: 1, arbitrary: fc.constant<OpRequest>({ op: "check" }) },
);
const keyed = weighted([3, false], [1, true]);
const op = (req: fc.Arbitrary<OpRequest>, faults = stepFaults, roles = role) =>
  fc.tuple(recIndex, roles, req, faults, keyed).map(([i, r, q, f, k]) => new OpCmd(i, r, q, f, k));
const beforeRepeat = weighted<BeforeRepeat>([3, "nothing"], [2, "alarm"], [1, "evict"], [1, "late"]);

const commandArbs: fc.Arbitrary<Cmd>[] = [
  fc.oneof(
    { weight: 3, arbitrary: fc.tuple(createSpec, createFault, fc.boolean()).map(([s, f, r]) => new CreateCmd(s, f, r)) },
    { weight: 3, arbitrary: op(authorizeReq) },
    { weight: 12, arbitrary: op(payReq) },
    {
      weight: 2,
      arbitrary: op(fc.constant<OpRequest>({ op: "hold-confirm" }), stepFaults, fc.constantFrom<Role>("partner", "partner", "owner", "other")),
    },
    { weight: 3, arbitrary: op(fc.constant<OpRequest>({ op: "cancel" })) },
    { weight: 2, arbitrary: op(fc.constant<OpRequest>({ op: "check" })) },
    {
      weight: 3,
      arbitrary: fc.tuple(recIndex, fc.record({ role, req: anyReq }), fc.record({ role, req: anyReq })).map(([i, a, b]) => new RaceCmd(i, a, b)),
    },
    { weight: 3, arbitrary: recIndex.map((i) => new LateCmd(i)) },
    {
      weight: 4,
      arbitrary: fc
        .tuple(
          recIndex,
          fc.record({
            read: weighted<FaultName | undefined>([8, undefined], [1, "5xx"], [1, "busy"]),
            cancel: weighted<FaultName | undefined>([8, undefined], [2, "busy"]),
          }),
        )
        .map(([i, f]) => new AlarmCmd(i, f)),
    },
    { weight: 1, arbitrary: recIndex.map((i) => new EvictCmd(i)) },
    { weight: 1, arbitrary: fc.tuple(recIndex, fc.constantFrom<"wait" | "expire">("wait", "expire")).map(([i, w]) => new OtpTimeCmd(i, w)) },
    { weight: 2, arbitrary: recIndex.map((i) => new SupplierCmd(i)) },
    { weight: 1, arbitrary: recIndex.map((i) => new FiscalOperatorCmd(i)) },
    { weight: 1, arbitrary: recIndex.map((i) => new LoseEventCmd(i)) },
    { weight: 1, arbitrary: fc.constant(new CheckpointCmd()) },
    {
      weight: 2,
      arbitrary: fc
        .record({
          merchant: fc.constantFrom<1001 | 1003>(1001, 1003),
          hold: fc.boolean(),
          how: fc.constantFrom<"at once" | "late" | "very late" | "crash-before" | "crash-mid">(
            "at once",
            "late",
            "very late",
            "crash-before",
            "crash-mid",
          ),
          user,
        })
        .map((o) => new UserCancelsPaidCmd(o)),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({ owner: who, fault: weighted<FaultName | undefined>([3, undefined], [1, "5xx-after"], [1, "late"]) })
        .map((o) => new HoldConfirmCmd(o)),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({
          owner: who,
          hold: fc.boolean(),
          card: fc.constantFrom<"supplier_pending" | "supplier_fails">("supplier_pending", "supplier_fails"),
          fault: weighted<FaultName | undefined>([3, undefined], [1, "lost"], [1, "late"]),
        })
        .map((o) => new SupplierScenarioCmd(o)),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({
          owner: who,
          faults: fc.array(
            weighted<FaultName | undefined>([3, undefined], [2, "unknown-code"], [1, "unknown-code-after"], [1, "5xx"], [1, "lost"], [1, "late"]),
            { minLength: 3, maxLength: 3 },
          ),
        })
        .map((o) => new ExhaustTransferCmd(o)),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({ owner: who, first: weighted<FaultName>([2, "5xx"], [2, "unknown-code"], [1, "lost"], [1, "late"]), busyCancel: fc.boolean() })
        .map((o) => new ExhaustionCmd(o)),
    },
    {
      weight: 2,
      arbitrary: fc
        .record({
          owner: user,
          canceller: fc.constantFrom<"owner" | "partner">("owner", "partner"),
          how: fc.constantFrom<"hung" | "killed">("hung", "killed"),
          finder: fc.constantFrom<"alarm" | "next operation">("alarm", "next operation"),
          hold: fc.boolean(),
          lateBy: fc.constantFrom<"pays_late" | "a kept pay">("pays_late", "a kept pay"),
        })
        .map((o) => new LostCancelCmd(o)),
    },
    { weight: 1, arbitrary: fc.record({ owner: who, refund: fc.boolean() }).map((o) => new RecordEndCmd(o)) },
    {
      weight: 2,
      arbitrary: fc
        .record({
          owner: who,
          hold: fc.constantFrom(false, false, true),
          fault: weighted<FaultName | undefined>([4, undefined], [1, "lost"], [1, "late"]),
          answers: fc.constantFrom<FiscalLateCmd["o"]["answers"]>("at once", "after a read", "after the last read", "never"),
          refund: fc.boolean(),
        })
        .map((o) => new FiscalLateCmd(o)),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({
          owner: who,
          faults: fc.tuple(
            weighted<FaultName>([3, "5xx"], [1, "unknown-code"], [1, "no-code"]),
            weighted<FaultName>([3, "5xx"], [1, "unknown-code"], [1, "no-code"]),
          ),
        })
        .map((o) => new EdgeClosedCmd(o)),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({
          owner: who,
          fault: fc.record({ fault: weighted<FaultName>([3, "lost"], [2, "5xx-after"], [3, "late"], [1, "5xx"]), lateBeforeRetry: fc.boolean() }),
          changed: fc.constantFrom<("amount" | "receiver card")[]>(["amount", "receiver card"], ["receiver card", "amount"]),
        })
        .map((o) => new TidRetryCmd(o)),
    },
    { weight: 1, arbitrary: fc.record({ owner: who }).map((o) => new HoldConfirmLateCmd(o)) },
    {
      weight: 1,
      arbitrary: fc
        .record({
          owner: who,
          kind: fc.constantFrom<KindName>("receipt", "transfer"),
          noCode: fc.constantFrom<"no-code" | "no-code-after">("no-code", "no-code-after"),
          validationFirst: fc.boolean(),
        })
        .map((o) => new OtpRefusalCmd(o)),
    },
    { weight: 1, arbitrary: fc.record({ user, payer: fc.constantFrom<"user" | "partner">("user", "partner") }).map((o) => new EraseCmd(o)) },
    {
      weight: 1,
      arbitrary: fc
        .record({
          owner: who,
          latePay: weighted<ExpiryCmd["o"]["latePay"]>([2, "none"], [1, "lands before the expiry is due"], [2, "lands after the expiry's alarm"]),
          cancel: weighted<ExpiryCancelFault | undefined>(
            [2, undefined],
            [1, "lost"],
            [1, "5xx-after"],
            [1, "late"],
            [1, "hung"],
            [1, "busy"],
            [1, "crash"],
          ),
        })
        .map((o) => new ExpiryCmd(o)),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({
          owner: user,
          kinds: fc.shuffledSubarray<RefusalKind>(["bad body", "bad key", "bad token", "rights", "replay", "too soon"], {
            minLength: 2,
            maxLength: 4,
          }),
        })
        .map((o) => new RefusalCmd(o)),
    },
    {
      weight: 3,
      arbitrary: fc.tuple(recIndex, fc.nat({ max: 5 }), beforeRepeat, keyed).map(([i, p, b, o]) => new RepeatCmd(i, p, b, o)),
    },
    {
      weight: 2,
      arbitrary: fc
        .record({
          owner: who,
          op: weighted<"pay" | "cancel" | "hold-confirm" | "authorize">([4, "pay"], [2, "cancel"], [1, "hold-confirm"], [1, "authorize"]),
          met: weighted<FirstMet>(
            [2, undefined],
            [2, "lost"],
            [1, "5xx"],
            [1, "5xx-after"],
            [1, "busy"],
            [1, "late"],
            [1, "crash-mid"],
            [1, "crash-before"],
            [1, "crash-after"],
          ),
          before: beforeRepeat,
          other: fc.boolean(),
        })
        .map((o) => new KeyedCmd(o)),
    },
  ),
];

// ---------------------------------------------------------------------------
// The property

/** One run: a fresh pool of records, the commands, then convergence. */
async function runModel(pool: readonly CreateSpec[], cmds: Iterable<Cmd>): Promise<Model> {
  scriptedUpstream.reset();
  runCounter++;
  // user2's sub holds twelve digits in a row, as a numeric id does: every place that keeps or looks for a sub
  // (the audit trail's user, the eraser's filter) must take it whole, never as a digit run to mask.
  const twelveDigits = String(Math.floor(Math.random() * 9e11) + 1e11);
  const subs = { user1: newUser("model-u1"), user2: newUser(`model-u2-${twelveDigits}`) };
  const m: Model = {
    run: runCounter,
    step: 0,
    tokens: { partner: PARTNER_KEY, user1: await userToken(subs.user1), user2: await userToken(subs.user2) },
    subs,
    made: 0,
    recs: [],
    sents: new Map(),
    queue: eventQueue(),
    delivered: [],
    log: [],
    logged: [],
    keys: new Map(),
  };
  collectLogs(m);
  try {
    for (const spec of pool) await create(m, spec);
    await fc.asyncModelRun(() => ({ model: m, real: {} }), cmds);
    await converge(m, "end of run", true);
  } finally {
    scriptedUpstream.reset();
    scriptedUpstream.takeDeferred();
    vi.restoreAllMocks();
    if (env.MODEL_VERBOSE) console.log(m.log.join("\n"));
  }
  return m;
}

it(
  `money rules hold as the contract states them over random sequences (${RUNS} runs x up to ${STEPS} steps, seed ${SEED})`,
  async () => {
    console.log(`model: seed ${SEED}, ${RUNS} runs x up to ${STEPS} steps`);
    const started = Date.now();
    let steps = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(createSpec, { minLength: 1, maxLength: 2 }),
        // No bias towards short sequences in the first runs: every run may go deep.
        fc.noBias(fc.commands(commandArbs, { maxCommands: STEPS, size: "max" })),
        async (pool, cmds) => {
          const m = await runModel(pool, cmds);
          steps += m.log.length;
        },
      ),
      // No shrinking: a run takes seconds, shrinking one takes longer than the test may, and a test cut short leaves
      // its runs going on into the next tests. The failing run's own log says what happened; its seed replays it.
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    const lines = [...coverage].sort(([a], [b]) => a.localeCompare(b)).map(([what, n]) => `  ${String(n).padStart(5)}  ${what}`);
    console.log(`model: ${RUNS} runs, ${steps} steps, ${((Date.now() - started) / 1000).toFixed(1)} s; what they exercised:\n${lines.join("\n")}`);
    // The fixed seed's runs must contain every rare path (npm test runs it): a change that makes
    // one unreachable fails here. Another seed is for finding bugs; what it missed is only said.
    const missing = REQUIRED.filter((what) => !coverage.has(what));
    if (SEED === FIXED_SEED && RUNS >= 20) expect(missing, "rare money paths and faults the runs must contain").toEqual([]);
    else if (missing.length > 0) console.log(`model: seed ${SEED} did not reach: ${missing.join("; ")}`);
  },
  Math.max(180_000, RUNS * 20_000),
);

// ---------------------------------------------------------------------------
// Sequences the random runs found once, kept as they were shrunk.

/*
 * GATEWAY BUG (fixed; kept as found): a receipt of a QR merchant that three
 * failed OTP guesses end, at least one of them unconfirmed, was never
 * settled: the gateway's cancel after the third guess met CANCEL_NOT_ALLOWED
 * (QR merchants, rule 4) and its alarm retried check-id + cancel every
 * second, forever. Shrunk: the partner creates a receipt at 1002 (QR); three
 * anonymous pays with OTPs are answered 500 by the upstream before it looked
 * at anything (502 upstream_error each); the alarm reconciles the third.
 * Expected: the receipt stays closed at the edge and its alarms end.
 */
it("regression: a QR receipt ended by unconfirmed OTP guesses settles: closed at the edge, its alarms end", async () => {
  const qr: CreateSpec = { owner: "partner", kind: "receipt", merchant: 1002, isHold: false, amount: 0, sender: "ok" };
  const cmds = [OTP_WRONG[0], OTP_WRONG[1], OTP_RIGHT].map(
    (code) => new OpCmd(0, "owner", { op: "pay", anonymous: true, card: "ok", otp: code }, { main: "5xx" }),
  );
  await runModel([qr], cmds);
}, 60_000);

/*
 * ORACLE BUG (fixed; kept as found): the oracle took every alarm that met no
 * fault for a look at the upstream, and failed rule 2 when a receipt with
 * three failed guesses was not cancelled after it. Shrunk: a wrong OTP; a
 * right one (tok_sandbox_error) whose object crashes before the upstream
 * acts; a check whose read fails; a wrong OTP whose answer is unreadable,
 * within the first pay's upstream timeout. The first pay's alarm stays set
 * (it is due before the last pay could have ended), and the object is
 * evicted before it fires: it cannot know that the last pay returned, so it
 * looks at nothing and sets the next alarm for when that pay must have
 * ended, which counts it and cancels the receipt (rule 8: within a minute).
 */
it("regression: an alarm due before the last OTP pay could have ended defers the look; once its late reads are done, an alarm cancels the receipt its guesses ended", async () => {
  const receipt: CreateSpec = { owner: "partner", kind: "receipt", merchant: 1001, isHold: false, amount: 500_000, sender: "ok" };
  const pay = (card: Behaviour, otp: string): OpRequest => ({ op: "pay", anonymous: false, card, otp });
  await runModel(
    [receipt],
    [
      new OpCmd(0, "owner", pay("ok", OTP_WRONG[1]), {}),
      new OpCmd(0, "owner", pay("error", OTP_RIGHT), { crash: "before" }),
      new OpCmd(0, "owner", { op: "check" }, { read: "5xx" }),
      new OpCmd(0, "owner", pay("ok", OTP_WRONG[1]), { main: "bad-body" }),
    ],
  );
}, 60_000);

/*
 * Rule 14's scenario in each of its forms, whatever the random runs pick:
 * the fiscal data operator answers at once, after a read, after the last
 * read, or never, for a sale and then its refund; invariant 7 judges each at
 * the run's convergence, and the scenario itself once the reads are over.
 */
it("rule 14: every paid receipt ends fiscalized or listed, whenever the fiscal data operator answers", async () => {
  const pool: CreateSpec[] = [{ owner: "partner", kind: "receipt", merchant: 1003, isHold: false, amount: 0, sender: "ok" }];
  const answers = ["at once", "after a read", "after the last read", "never"] as const;
  await runModel(
    pool,
    answers.map(
      (when, i) => new FiscalLateCmd({ owner: i % 2 === 0 ? "partner" : "user1", hold: i === 1, fault: undefined, answers: when, refund: true }),
    ),
  );
  for (const what of [
    "rare: a paid receipt whose fiscal data is missing, listed by fiscal/pending",
    "rare: fiscal data shown after the last scheduled read: listed until a read finds it",
    "rare: late fiscal data found by a read and delivered: receipt.fiscalized",
    "rare: late fiscal data found by a read and delivered: receipt.refund_fiscalized",
  ]) {
    expect(coverage.has(what), what).toBe(true);
  }
}, 60_000);

/*
 * The crossings of the rules, each in its forms, whatever the random runs
 * pick: a key's kept answer across its user's erasure (no raw value left in
 * any registered store).
 */
it("crossings: a kept answer across an erasure; every kind of refusal against rule 13's counters", async () => {
  const kinds: RefusalKind[] = ["bad body", "bad key", "bad token", "rights", "replay", "too soon"];
  await runModel(
    [],
    [new EraseCmd({ user: "user1", payer: "user" }), new EraseCmd({ user: "user2", payer: "partner" }), new RefusalCmd({ owner: "user1", kinds })],
  );
  expect(coverage.has("rare: a key's kept answer repeated after its user's erasure")).toBe(true);
  for (const kind of kinds)
    expect(
      [...coverage.keys()].some((what) => what.startsWith(`refusal counted nothing: ${kind} ->`)),
      kind,
    ).toBe(true);
}, 60_000);

/*
 * Rule 12 crossing rule 8, each form once: a pay lost just before the expiry
 * that lands before the expiry is due, and the gateway's own cancel meeting
 * each fault.
 */
it("crossings: a late pay before the expiry, and the gateway's own expiry cancels lost", async () => {
  const cancels = ["lost", "5xx-after", "late", "hung", "busy", "crash"] as const;
  await runModel(
    [],
    [
      new ExpiryCmd({ owner: "partner", latePay: "lands before the expiry is due", cancel: undefined }),
      ...cancels.map((cancel, i) => new ExpiryCmd({ owner: i % 2 === 0 ? "user2" : "partner", latePay: "none", cancel })),
    ],
  );
  for (const cancel of cancels) expect(coverage.has(`crossing: the expiry's cancel met ${cancel}`), cancel).toBe(true);
}, 120_000);

/*
 * GATEWAY BUG (fixed; kept as found by the crossings above): rule 12 says an expiry never acts while an earlier call's outcome is
 * unknown or its late reads are owed. Shrunk: a receipt half a minute before
 * its window ends; its owner's pay is lost on the way (the upstream takes it
 * only later: 502); the record's look reads 0 and the pay is suspect; the
 * next alarm, at the window, reads 0 again and cancels the receipt 30 s
 * after the pay, long before its late reads are done. Had the pay landed
 * between that read and the cancel, the cancel would have refunded it.
 * Expected: no cancel until the late reads are done; the pay, landing 70 s
 * after it was sent, is found paid and never refunded.
 */
it("regression: the expiry waits while a pay lost just before it may still land", async () => {
  await runModel([], [new ExpiryCmd({ owner: "user1", latePay: "lands after the expiry's alarm", cancel: undefined })]);
}, 60_000);
