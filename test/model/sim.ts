// The reference model of test/model.test.ts: what the gateway (a receipt's or
// transfer's Durable Object) and the sandbox upstream should do for one
// operation, given how both stood before it. Pure: no I/O, no clock of its own.
//
// It is written from CONTRACT.md (rules 2-9, the error table, the sandbox
// table) and follows src/lifecycle.ts where the contract leaves a choice to
// the gateway (the order of refusals, when an operation asks the upstream
// first), but it shares no code with src/: a bug in the gateway's table is a
// mismatch here, not a copy.
//
// Where the outcome depends on something the test cannot pin down (a rate
// limiter window, an OTP at the very end of its lifetime), the simulation makes a choice
// through `choose`, and `enumerate` runs every combination: the test accepts
// the observation when it matches one of the outcomes.

export type KindName = "receipt" | "transfer";
export type Who = "partner" | "user1" | "user2";

/** What the gateway stores about a record (the columns the model follows). */
export interface G {
  state: number;
  pending: string | null;
  pendingOtp: boolean;
  wrong: number;
  unconfirmed: number;
  sends: number;
  lastSentAt: number;
  waitMs: number;
  attempts: number;
  /** Exhausted, and the upstream refused for good to cancel it: closed at the edge. */
  edgeClosed: boolean;
}

/** What the sandbox holds about a record. */
export interface S {
  state: number;
  /** OTP submissions received, judged or not. */
  otpAttempts: number;
  wrong: number;
  /** Of otpAttempts, those refused as OTP_EXPIRED (never judged). */
  expired: number;
  /** When an OTP was last sent (receipts), null when never. */
  otpSentAt: number | null;
}

export interface RecMeta {
  key: string;
  kind: KindName;
  id: string;
  tid: string;
  owner: Who;
  merchant: number | null;
  isHold: boolean;
  isVerify: boolean;
  qr: boolean;
  /** A transfer's sender card behaviour (its create token). */
  sender: Behaviour;
}

export type Behaviour = "ok" | "insufficient" | "supplier_pending" | "error" | "paid_timeout" | "busy";
export const TOKEN_OF: Record<Behaviour, string> = {
  ok: "tok_sandbox_ok",
  insufficient: "tok_sandbox_insufficient",
  supplier_pending: "tok_sandbox_supplier_pending",
  error: "tok_sandbox_error",
  paid_timeout: "tok_sandbox_paid_timeout",
  busy: "tok_sandbox_busy",
};

export const OTP_RIGHT = "111111";
/** Wrong OTPs the model uses (the card-data scan looks for each). */
export const OTP_WRONG = ["222222", "333333", "444444"] as const;
export const ANON_PAN = "8600000000000007";
export const ANON_EXPIRE = "3012";
export const SANDBOX_WAIT_MS = 60_000;
export const SANDBOX_OTP_TTL_MS = 300_000;
/** An OTP this close to the end of its lifetime may be judged on either side of it: the sandbox reads its clock a little after `now`. */
const TTL_SLACK_MS = 5_000;
export const MAX_GUESSES = 3;
export const MAX_SENDS = 5;
export const LIMITS = { pay: 10, authorize: 5 } as const;

export const STATUS: Record<string, number> = {
  invalid_request: 400,
  otp_required: 400,
  card_declined: 402,
  forbidden: 403,
  hold_not_enabled: 403,
  receipt_not_found: 404,
  operation_in_progress: 409,
  receipt_cancelled: 409,
  receipt_already_paid: 409,
  receipt_not_held: 409,
  cancel_not_allowed: 409,
  otp_attempts_exhausted: 409,
  otp_expired: 409,
  otp_invalid: 422,
  upstream_refused: 422,
  rate_limited: 429,
  otp_resend_too_soon: 429,
  upstream_error: 502,
  upstream_unavailable: 503,
  upstream_timeout: 504,
};

// ---------------------------------------------------------------------------
// Faults

export type FaultSpec =
  | { kind: "lost" }
  | { kind: "timeout" }
  | { kind: "late" }
  | { kind: "status"; status: 500 | 502 | 503 | 429; act: boolean }
  | { kind: "body"; variant: "html" | "string-state" }
  /** The record's object is aborted while this call is in flight (the upstream has acted). */
  | { kind: "abort" };

export interface Armed {
  /** The upstream path whose next call for the record gets the fault; "*": whichever call comes next. */
  path: string;
  fault: FaultSpec;
}

export const describeFault = (f: FaultSpec): string => {
  switch (f.kind) {
    case "lost":
      return "is lost after the upstream acted";
    case "timeout":
      return "never answers (the upstream acted; the gateway times out)";
    case "late":
      return "answers after the gateway's timeout (the upstream acted)";
    case "status":
      return `is answered ${f.status}${f.act ? " after the upstream acted" : " without reaching the upstream"}`;
    case "body":
      return f.variant === "html" ? "is answered 200 with a body that is not JSON (the upstream acted)" : 'is answered 200 with {"state":"4"} (a string state; the upstream acted)';
    case "abort":
      return "crashes the object mid-call";
  }
};

/** The fault stops the gateway from seeing the answer (or sees a 5xx): the outcome is unknown to it. */
export class Aborted extends Error {}

// ---------------------------------------------------------------------------
// Choices

export type Choose = (label: string, options: number) => number;

/** Runs `sim` once per combination of its choices. */
export function enumerate<T>(sim: (choose: Choose) => T): T[] {
  const results: T[] = [];
  const todo: number[][] = [[]];
  while (todo.length > 0) {
    const prefix = todo.pop()!;
    const made: number[] = [];
    const choose: Choose = (_label, options) => {
      const i = made.length;
      if (i < prefix.length) {
        made.push(prefix[i]!);
        return prefix[i]!;
      }
      for (let k = options - 1; k >= 1; k--) todo.push([...made, k]);
      made.push(0);
      return 0;
    };
    results.push(sim(choose));
  }
  return results;
}

// ---------------------------------------------------------------------------
// The sandbox (CONTRACT.md, "The sandbox upstream")

interface SbAnswer {
  status: number;
  code?: string;
  /** The record's state carried by the answer (success body, or the refusal's receipt/transfer). */
  bodyState?: number;
  /** The answer leaves after the gateway's timeout (tok_sandbox_paid_timeout). */
  stall?: boolean;
}

const refusePay = (s: S): SbAnswer | null => {
  if (s.state === 21) return { status: 400, code: "RECEIPT_CANCELLED", bodyState: s.state };
  if (s.state !== 0) return { status: 400, code: "RECEIPT_ALREADY_PAID", bodyState: s.state };
  return null;
};

/** A receipt's OTP is right only after a send and for SANDBOX_OTP_TTL_MS after the last one. */
function otpLive(s: S, now: number, choose: Choose): boolean {
  if (s.otpSentAt === null) return false;
  const age = now - s.otpSentAt;
  if (Math.abs(age - SANDBOX_OTP_TTL_MS) < TTL_SLACK_MS) return choose("the sandbox's clock is past the OTP's lifetime", 2) === 0;
  return age < SANDBOX_OTP_TTL_MS;
}

/**
 * The sandbox judging an OTP: every submission counts as received; one that
 * is not live (a receipt's, never sent or expired) is refused unjudged; the
 * third wrong one cancels.
 */
function sbOtp(s: S, otp: string | undefined, live: () => boolean): SbAnswer | null {
  if (otp === undefined) return { status: 400, code: "OTP_REQUIRED" };
  s.otpAttempts++;
  if (!live()) {
    s.expired++;
    return { status: 400, code: "OTP_EXPIRED", bodyState: s.state };
  }
  if (otp === OTP_RIGHT) return null;
  s.wrong++;
  if (s.wrong < MAX_GUESSES) return { status: 400, code: "OTP_INVALID", bodyState: s.state };
  s.state = 21;
  return { status: 400, code: "OTP_ATTEMPTS_EXCEEDED", bodyState: s.state };
}

export interface Sandbox {
  authorize(s: S, card: Behaviour, now: number): SbAnswer;
  pay(s: S, rec: RecMeta, card: Behaviour, otp: string | undefined, anonymous: boolean, now: number, choose: Choose): SbAnswer;
  payTransfer(s: S, rec: RecMeta, otp: string | undefined): SbAnswer;
  holdConfirm(s: S): SbAnswer;
  cancel(s: S, rec: RecMeta): SbAnswer;
  read(s: S): SbAnswer;
}

export const sandbox: Sandbox = {
  authorize(s, card, now) {
    if (card === "busy") return { status: 503, code: "BUSY" };
    const refused = refusePay(s);
    if (refused) return refused;
    if (s.otpSentAt !== null && now - s.otpSentAt < SANDBOX_WAIT_MS) return { status: 429, code: "OTP_RESEND_TOO_SOON" };
    s.otpSentAt = now;
    return { status: 200 };
  },
  pay(s, rec, card, otp, anonymous, now, choose) {
    if (card === "busy") return { status: 503, code: "BUSY" };
    const refused = refusePay(s);
    if (refused) return refused;
    if (anonymous || rec.isVerify) {
      const otpFailure = sbOtp(s, otp, () => otpLive(s, now, choose));
      if (otpFailure) return otpFailure;
    }
    switch (card) {
      case "insufficient":
        return { status: 402, code: "INSUFFICIENT_FUNDS", bodyState: s.state };
      case "error":
        return { status: 500, code: "INTERNAL_ERROR" };
      case "supplier_pending":
        s.state = 57;
        return { status: 200, bodyState: 57 };
      default:
        s.state = rec.isHold ? 5 : 4;
        return { status: 200, bodyState: s.state, stall: card === "paid_timeout" };
    }
  },
  payTransfer(s, rec, otp) {
    if (rec.sender === "busy") return { status: 503, code: "BUSY" };
    if (s.state === 21) return { status: 400, code: "RECEIPT_CANCELLED", bodyState: s.state };
    if (s.state !== 0) return { status: 400, code: "RECEIPT_ALREADY_PAID", bodyState: s.state };
    if (rec.isVerify) {
      // A transfer has no send step: its OTP is live at any time.
      const otpFailure = sbOtp(s, otp, () => true);
      if (otpFailure) return otpFailure;
    }
    switch (rec.sender) {
      case "insufficient":
        return { status: 402, code: "INSUFFICIENT_FUNDS", bodyState: s.state };
      case "error":
        return { status: 500, code: "INTERNAL_ERROR" };
      default:
        s.state = 4;
        return { status: 200, bodyState: 4, stall: rec.sender === "paid_timeout" };
    }
  },
  holdConfirm(s) {
    if (s.state === 21) return { status: 400, code: "RECEIPT_CANCELLED", bodyState: s.state };
    if (s.state !== 5) return { status: 400, code: "RECEIPT_NOT_HELD", bodyState: s.state };
    s.state = 4;
    return { status: 200, bodyState: 4 };
  },
  cancel(s, rec) {
    if (rec.qr || s.state === 21 || s.state === 57) return { status: 400, code: "CANCEL_NOT_ALLOWED", bodyState: s.state };
    s.state = 21;
    return { status: 200, bodyState: 21 };
  },
  read(s) {
    return { status: 200, bodyState: s.state };
  },
};

// ---------------------------------------------------------------------------
// The gateway's upstream client: how an answer (or a fault) is classified

type UResult =
  | { kind: "ok"; state: number }
  | { kind: "rejected"; code: string; upstreamCode: string; judged: boolean; bodyState?: number }
  | { kind: "unknown" };

const UPSTREAM_CODES: Record<string, string> = {
  RECEIPT_NOT_FOUND: "receipt_not_found",
  OTP_REQUIRED: "otp_required",
  OTP_INVALID: "otp_invalid",
  OTP_ATTEMPTS_EXCEEDED: "otp_attempts_exhausted",
  RECEIPT_CANCELLED: "receipt_cancelled",
  RECEIPT_ALREADY_PAID: "receipt_already_paid",
  RECEIPT_NOT_HELD: "receipt_not_held",
  CANCEL_NOT_ALLOWED: "cancel_not_allowed",
  INSUFFICIENT_FUNDS: "card_declined",
  OTP_EXPIRED: "otp_expired",
};
/** Refusals that prove the OTP in the request was not judged (rule 2). */
const NOT_JUDGED = new Set(["OTP_EXPIRED", "BUSY", "RECEIPT_NOT_FOUND", "RECEIPT_CANCELLED", "RECEIPT_ALREADY_PAID", "OTP_REQUIRED"]);

function classify(a: SbAnswer): UResult {
  if (a.stall) return { kind: "unknown" };
  if (a.status === 200) return { kind: "ok", state: a.bodyState! };
  if (a.status === 429 || a.status === 503) return { kind: "rejected", code: "upstream_unavailable", upstreamCode: a.code ?? "", judged: false };
  if (a.status >= 500) return { kind: "unknown" };
  const code = UPSTREAM_CODES[a.code ?? ""] ?? "upstream_refused";
  return { kind: "rejected", code, upstreamCode: a.code ?? "", judged: !NOT_JUDGED.has(a.code ?? ""), bodyState: a.bodyState };
}

// ---------------------------------------------------------------------------
// The gateway's decisions (CONTRACT.md rules 2-5 and 8; the order of src/lifecycle.ts)

type Phase = "created" | "held" | "paid" | "awaiting_supplier" | "cancelled" | "in_flight" | "exhausted";
export type GatewayOp = "authorize" | "pay" | "hold-confirm" | "cancel";
type Decision = { do: "call" } | { do: "ask" } | { do: "refuse"; code: string };

export const guessesOf = (g: G) => g.wrong + g.unconfirmed;

function phaseOf(g: G): Phase {
  if (g.pending !== null) return "in_flight";
  if (guessesOf(g) >= MAX_GUESSES) return "exhausted";
  return ({ 0: "created", 4: "paid", 5: "held", 21: "cancelled", 57: "awaiting_supplier" } as Record<number, Phase>)[g.state] ?? "in_flight";
}

function decide(op: GatewayOp, phase: Phase, rec: RecMeta, caller: Who, fresh: boolean): Decision {
  const volatile = phase === "in_flight" || phase === "awaiting_supplier";
  const refuse = (code: string): Decision => ({ do: "refuse", code });
  if (op === "hold-confirm") {
    if (caller !== "partner") return refuse("forbidden");
    if (rec.kind !== "receipt" || !rec.isHold) return refuse("receipt_not_held");
  }
  if (op === "cancel" && rec.kind !== "receipt") return refuse("cancel_not_allowed");
  if (volatile && !fresh) return { do: "ask" };
  // A call whose outcome the fresh look could not settle (an exhaustion cancel lost again).
  if (phase === "in_flight") return refuse("operation_in_progress");
  switch (op) {
    case "authorize":
    case "pay":
      if (phase === "exhausted") return refuse("otp_attempts_exhausted");
      if (phase === "cancelled") return refuse("receipt_cancelled");
      if (phase !== "created") return refuse("receipt_already_paid");
      return { do: "call" };
    case "hold-confirm":
      if (phase === "held") return { do: "call" };
      if (phase === "exhausted") return refuse("otp_attempts_exhausted");
      if (phase === "cancelled") return refuse("receipt_cancelled");
      if (phase === "paid") return refuse("receipt_already_paid");
      return refuse("receipt_not_held");
    case "cancel":
      if (phase === "cancelled" || phase === "exhausted" || phase === "awaiting_supplier") return refuse("cancel_not_allowed");
      if (rec.qr) return refuse("cancel_not_allowed");
      if ((phase === "held" || phase === "paid") && caller !== "partner") return refuse("forbidden");
      return { do: "call" };
  }
}

// ---------------------------------------------------------------------------
// One operation, simulated

export interface Answer {
  status: number;
  code?: string;
  /** The record's state in a 200 answer. */
  state?: number;
  attemptsLeft?: number;
}

export interface Outcome {
  answer: Answer;
  g: G;
  s: S;
  /** Upstream calls that reached the sandbox (its call log), in order, with the sandbox's status. */
  logged: { path: string; status: number; code: string | null }[];
  /** Whether the armed fault was used by this operation, and on which path. */
  faultUsed: boolean;
  faultPath: string | null;
  /** An event was written (a state change or exhaustion): the object's alarm is due at once. */
  emitted: boolean;
  /** The user's call passed the rate limiter (undefined: not limited). */
  limiterPassed?: boolean;
  /** This operation sent an OTP in a pay call (whether or not the call reached the sandbox). */
  otpPaySent: boolean;
  choices: string[];
}

export interface OpInput {
  rec: RecMeta;
  g: G;
  s: S;
  caller: Who;
  armed: Armed | null;
  now: number;
  /** The caller's rate limiter count so far (users only) and the limiter it goes through. */
  limiter?: { name: "pay" | "authorize"; count: number };
}

export type OpRequest =
  | { op: "authorize"; card: Behaviour; anonymous: boolean }
  | { op: "pay"; card: Behaviour; otp?: string; anonymous: boolean }
  | { op: "a2c-pay"; otp?: string }
  | { op: "hold-confirm" }
  | { op: "cancel" }
  | { op: "check" }
  | { op: "alarm" };

const cloneG = (g: G): G => ({ ...g });
const cloneS = (s: S): S => ({ ...s });

export const needsReconcile = (rec: RecMeta, g: G) => g.pending !== null || g.state === 57 || exhaustionCancelPending(rec, g);
/** The upstream cancels a receipt whose guesses ran out, unless it is a QR merchant's or it refused to for good. */
const exhaustionCancelPending = (rec: RecMeta, g: G) =>
  guessesOf(g) >= MAX_GUESSES && rec.kind === "receipt" && !rec.qr && !g.edgeClosed && g.state !== 21;

/** Receipt events: 4, 5, 21, 57; transfer events: 4, 21. */
const hasEvent = (kind: KindName, state: number) => (kind === "receipt" ? [4, 5, 21, 57].includes(state) : [4, 21].includes(state));

class Sim {
  readonly g: G;
  readonly s: S;
  readonly logged: Outcome["logged"] = [];
  faultUsed = false;
  faultPath: string | null = null;
  emitted = false;
  otpPaySent = false;
  limiterPassed: boolean | undefined;
  readonly choices: string[] = [];
  readonly choose: Choose;

  constructor(
    readonly input: OpInput,
    choose: Choose,
  ) {
    this.g = cloneG(input.g);
    this.s = cloneS(input.s);
    this.choose = (label, options) => {
      const k = choose(label, options);
      this.choices.push(`${label}: ${k}`);
      return k;
    };
  }

  get rec() {
    return this.input.rec;
  }

  /** One upstream call: the armed fault (first call on its path only), else the sandbox's own answer. */
  upstream(path: string, answer: () => SbAnswer): UResult {
    const armed = this.input.armed;
    if (armed && !this.faultUsed && (armed.path === path || armed.path === "*")) {
      this.faultUsed = true;
      this.faultPath = path;
      const f = armed.fault;
      const acts = f.kind === "status" ? f.act : true;
      if (acts) {
        const a = answer();
        this.logged.push({ path, status: a.status, code: a.code ?? null });
      }
      if (f.kind === "abort") throw new Aborted();
      if (f.kind === "status" && (f.status === 429 || f.status === 503)) {
        return { kind: "rejected", code: "upstream_unavailable", upstreamCode: "", judged: false };
      }
      return { kind: "unknown" };
    }
    const a = answer();
    this.logged.push({ path, status: a.status, code: a.code ?? null });
    return classify(a);
  }

  applyState(state: number | undefined): void {
    if (state === undefined) return;
    if (state !== this.g.state && hasEvent(this.rec.kind, state)) this.emitted = true;
    this.g.state = state;
  }

  countGuess(verdict: "accepted" | "wrong" | "unconfirmed" | "not_judged", upstreamSaysExhausted = false): void {
    const before = guessesOf(this.g);
    if (verdict === "wrong") this.g.wrong++;
    if (verdict === "unconfirmed") this.g.unconfirmed++;
    if (upstreamSaysExhausted && guessesOf(this.g) < MAX_GUESSES) this.g.wrong = MAX_GUESSES - this.g.unconfirmed;
    if (before < MAX_GUESSES && guessesOf(this.g) >= MAX_GUESSES) this.emitted = true;
  }

  countSend(wait: number | undefined): void {
    this.g.sends++;
    this.g.lastSentAt = this.input.now;
    this.g.waitMs = wait ?? Math.max(this.g.waitMs, SANDBOX_WAIT_MS);
  }

  send(op: string, withOtp: boolean): void {
    this.g.pending = op;
    this.g.pendingOtp = withOtp;
  }

  clearPending(): void {
    this.g.pending = null;
    this.g.pendingOtp = false;
    this.g.attempts = 0;
  }

  readPath = () => (this.rec.kind === "receipt" ? "receipt/check-id" : "a2c/get-by-id");

  /** Asks the upstream how the record stands and stores it (rule 8). */
  reconcile(): { ok: true } | { ok: false; answer: Answer } {
    const result = this.upstream(this.readPath(), () => sandbox.read(this.s));
    if (result.kind !== "ok") {
      this.g.attempts++;
      return { ok: false, answer: failureAnswer(result) };
    }
    if (this.g.pending !== null) {
      if (this.g.pendingOtp) this.countGuess([4, 5, 57].includes(result.state) ? "accepted" : "unconfirmed");
      if (this.g.pending === "authorize") this.countSend(undefined);
      this.clearPending();
    }
    this.g.attempts = 0;
    this.applyState(result.state);
    if (exhaustionCancelPending(this.rec, this.g)) this.finishExhaustion();
    return { ok: true };
  }

  /** Three failed guesses on a receipt: cancel it upstream (write-ahead too). */
  finishExhaustion(): void {
    if (!exhaustionCancelPending(this.rec, this.g) || this.g.pending !== null) return;
    this.send("exhaustion-cancel", false);
    const result = this.upstream("receipt/cancel", () => sandbox.cancel(this.s, this.rec));
    if (result.kind === "unknown") return;
    this.clearPending();
    this.applyState(result.kind === "ok" ? result.state : result.bodyState);
    // A refusal other than busy is for good: the receipt stays closed at the edge.
    if (result.kind !== "ok" && result.code !== "upstream_unavailable" && this.g.state !== 21) this.g.edgeClosed = true;
  }

  operate(op: GatewayOp, run: () => Answer): Answer {
    if (!mayAccess(this.input.caller, this.rec.owner)) return err("receipt_not_found");
    let decision = decide(op, phaseOf(this.g), this.rec, this.input.caller, false);
    if (decision.do === "ask") {
      const looked = this.reconcile();
      if (!looked.ok) return looked.answer;
      decision = decide(op, phaseOf(this.g), this.rec, this.input.caller, true);
    }
    if (decision.do === "call") return run();
    if (decision.do === "refuse") return err(decision.code);
    return err("operation_in_progress");
  }

  /** A pay's answer, with rule 2's accounting of the OTP it carried. */
  settleOtpCall(result: UResult, withOtp: boolean): Answer {
    if (result.kind === "unknown") return unknownAnswer();
    const verdict = !withOtp
      ? null
      : result.kind === "ok"
        ? "accepted"
        : result.code === "otp_invalid" || result.code === "otp_attempts_exhausted"
          ? "wrong"
          : result.judged
            ? "accepted"
            : "not_judged";
    this.clearPending();
    if (verdict) this.countGuess(verdict, result.kind === "rejected" && result.code === "otp_attempts_exhausted");
    this.applyState(result.kind === "ok" ? result.state : result.bodyState);
    if (this.g.pending === null && guessesOf(this.g) >= MAX_GUESSES) {
      this.finishExhaustion();
      return err("otp_attempts_exhausted");
    }
    if (result.kind === "rejected" && result.code === "otp_invalid") {
      return { ...err("otp_invalid"), attemptsLeft: Math.max(0, MAX_GUESSES - guessesOf(this.g)) };
    }
    return result.kind === "ok" ? { status: 200, state: result.state } : err(result.code);
  }

  /** Stores what a state-changing call without an OTP returned. */
  settle(result: UResult): Answer {
    if (result.kind === "unknown") return unknownAnswer();
    this.clearPending();
    if (result.kind === "ok") {
      this.applyState(result.state);
      return { status: 200, state: result.state };
    }
    this.applyState(result.bodyState);
    return err(result.code);
  }

  run(req: OpRequest): Answer {
    const { rec, caller } = this.input;
    const limiter = this.input.limiter;
    if (limiter) {
      // The rate limiter runs before anything else; windows are wall-clock aligned, so a count
      // at or over the limit since this run began may or may not have been reset.
      if (limiter.count >= LIMITS[limiter.name] && this.choose(`${caller}'s ${limiter.name} limiter refuses`, 2) === 1) {
        this.limiterPassed = false;
        return err("rate_limited");
      }
      this.limiterPassed = true;
    }
    switch (req.op) {
      case "authorize":
        return this.operate("authorize", () => {
          if (this.g.sends >= MAX_SENDS) return err("rate_limited");
          if (this.g.lastSentAt + this.g.waitMs - this.input.now > 0) return err("otp_resend_too_soon");
          this.send("authorize", false);
          const path = req.anonymous ? "receipt/anonymous/authorize" : "receipt/authorize";
          const result = this.upstream(path, () => sandbox.authorize(this.s, req.anonymous ? "ok" : req.card, this.input.now));
          this.clearPending();
          if (result.kind === "ok" || result.kind === "unknown") this.countSend(result.kind === "ok" ? SANDBOX_WAIT_MS : undefined);
          if (result.kind === "rejected") this.applyState(result.bodyState);
          return result.kind === "ok" ? { status: 200 } : failureAnswer(result);
        });
      case "pay":
        return this.operate("pay", () => {
          const needsOtp = req.anonymous || rec.isVerify;
          const otp = needsOtp ? req.otp : undefined;
          if (needsOtp && otp === undefined) return err("otp_required");
          this.send("pay", otp !== undefined);
          this.otpPaySent = otp !== undefined;
          const path = req.anonymous ? "receipt/anonymous/pay" : "receipt/pay";
          const card: Behaviour = req.anonymous ? "ok" : req.card;
          const result = this.upstream(path, () => sandbox.pay(this.s, rec, card, otp, req.anonymous, this.input.now, this.choose));
          return this.settleOtpCall(result, otp !== undefined);
        });
      case "a2c-pay":
        return this.operate("pay", () => {
          const otp = rec.isVerify ? req.otp : undefined;
          if (rec.isVerify && otp === undefined) return err("otp_required");
          this.send("pay", otp !== undefined);
          this.otpPaySent = otp !== undefined;
          const result = this.upstream("a2c/pay", () => sandbox.payTransfer(this.s, rec, otp));
          return this.settleOtpCall(result, otp !== undefined);
        });
      case "hold-confirm":
        return this.operate("hold-confirm", () => {
          this.send("hold-confirm", false);
          return this.settle(this.upstream("receipt/hold-confirm", () => sandbox.holdConfirm(this.s)));
        });
      case "cancel":
        return this.operate("cancel", () => {
          this.send("cancel", false);
          return this.settle(this.upstream("receipt/cancel", () => sandbox.cancel(this.s, rec)));
        });
      case "check": {
        if (!mayAccess(caller, rec.owner)) return err("receipt_not_found");
        if (needsReconcile(rec, this.g)) {
          const looked = this.reconcile();
          return looked.ok ? { status: 200, state: this.g.state } : looked.answer;
        }
        const result = this.upstream(this.readPath(), () => sandbox.read(this.s));
        if (result.kind !== "ok") return failureAnswer(result);
        this.applyState(result.state);
        return { status: 200, state: result.state };
      }
      case "alarm":
        if (needsReconcile(rec, this.g)) this.reconcile();
        return { status: 0 };
    }
  }
}

export function mayAccess(caller: Who, owner: Who): boolean {
  return caller === "partner" || caller === owner;
}

const err = (code: string): Answer => ({ status: STATUS[code] ?? 500, code });
/** An outcome the gateway cannot know: 502 or 504 (the contract's codes for a lost and a late answer). */
const unknownAnswer = (): Answer => ({ status: 502, code: "upstream_error" });
function failureAnswer(result: Exclude<UResult, { kind: "ok" }>): Answer {
  return result.kind === "unknown" ? unknownAnswer() : err(result.code);
}

/** Every outcome of one operation (or of the object's alarm, op "alarm"). */
export function simulate(input: OpInput, req: OpRequest): Outcome[] {
  return enumerate((choose) => {
    const sim = new Sim(input, choose);
    let answer: Answer;
    try {
      answer = sim.run(req);
    } catch (e) {
      if (!(e instanceof Aborted)) throw e;
      // The object died mid-call: the route answers that the outcome is being reconciled.
      answer = { status: 502, code: "upstream_error" };
    }
    return {
      answer,
      g: sim.g,
      s: sim.s,
      logged: sim.logged,
      faultUsed: sim.faultUsed,
      faultPath: sim.faultPath,
      emitted: sim.emitted,
      limiterPassed: sim.limiterPassed,
      otpPaySent: sim.otpPaySent,
      choices: sim.choices,
    };
  });
}

/**
 * Where a record may stand after its alarm ran up to `times` times on its own
 * (no faults: the harness scripts none outside an operation): the stored
 * state paired with the sandbox's.
 */
export function alarmClosure(rec: RecMeta, g: G, s: S, now: number, times = 3): { g: G; s: S }[] {
  const seen: { g: G; s: S }[] = [{ g, s }];
  let frontier = [{ g, s }];
  for (let i = 0; i < times; i++) {
    const next: { g: G; s: S }[] = [];
    for (const at of frontier) {
      for (const o of simulate({ rec, g: at.g, s: at.s, caller: "partner", armed: null, now }, { op: "alarm" })) {
        if (!seen.some((x) => sameG(x.g, o.g) && x.s.state === o.s.state)) {
          seen.push({ g: o.g, s: o.s });
          next.push({ g: o.g, s: o.s });
        }
      }
    }
    frontier = next;
  }
  return seen;
}

/** The stored columns the model predicts (timestamps aside). */
export function sameG(a: G, b: G): boolean {
  return a.state === b.state && a.pending === b.pending && a.pendingOtp === b.pendingOtp && a.wrong === b.wrong && a.unconfirmed === b.unconfirmed && a.sends === b.sends;
}

export const showG = (g: G) =>
  `{state ${g.state}, pending ${g.pending ?? "-"}${g.pendingOtp ? "+otp" : ""}, wrong ${g.wrong}, unconfirmed ${g.unconfirmed}, sends ${g.sends}}`;
export const showS = (s: S) => `{state ${s.state}, otp_attempts ${s.otpAttempts}, wrong ${s.wrong}, expired ${s.expired}}`;
export const showAnswer = (a: Answer) => (a.status === 200 ? `200 state ${a.state ?? "?"}` : `${a.status} ${a.code}${a.attemptsLeft !== undefined ? ` (attempts_left ${a.attemptsLeft})` : ""}`);
