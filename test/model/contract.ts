// What test/integration/model.test.ts holds the gateway to, written from docs/reference.md
// (the repository's contract) and from nothing else: which answers an operation may get given what a caller
// and the upstream can see (the sandbox's own view of the record and its call
// log), what a failed OTP guess is (rule 2), which states the upstream went
// through, and which event each of them is. Pure: no I/O, no clock. It never
// looks at the gateway's storage and keeps no counter of the gateway's: a
// guess is counted from what the upstream received and what the caller was
// answered, as rule 2 defines it.

export type KindName = "receipt" | "transfer";
export type Who = "partner" | "user1" | "user2";

export type Behaviour =
  | "ok"
  | "insufficient"
  | "supplier_pending"
  | "supplier_fails"
  | "error"
  | "paid_timeout"
  | "busy"
  | "pays_late"
  | "fiscal_late";
export const TOKEN_OF: Record<Behaviour, string> = {
  ok: "tok_sandbox_ok",
  insufficient: "tok_sandbox_insufficient",
  supplier_pending: "tok_sandbox_supplier_pending",
  supplier_fails: "tok_sandbox_supplier_fails",
  error: "tok_sandbox_error",
  paid_timeout: "tok_sandbox_paid_timeout",
  busy: "tok_sandbox_busy",
  /** Times out without paying; the payment lands upstream when the test lets it (test/helpers.ts letLatePayHappen). */
  pays_late: "tok_sandbox_pays_late",
  /** Pays at once; its fiscal data (and a refund's) appears when the test lets it (test/helpers.ts letFiscalDataAppear). */
  fiscal_late: "tok_sandbox_fiscal_late",
};

/** The sandbox's values (docs/reference.md, "The sandbox"). */
export const OTP_RIGHT = "111111";
/** Wrong OTPs the model uses (the card-data scan looks for each). */
export const OTP_WRONG = ["222222", "333333", "444444"] as const;
export const ANON_PAN = "8600000000000007";
export const ANON_EXPIRE = "3012";
export const RECEIVER_CARD = "9860000000000018";
export const MAX_GUESSES = 3;

/**
 * The contract's error table: every code and its HTTP status. Copied from the
 * contract on purpose, not imported from src/errors/errors.ts: the oracle judges the
 * gateway by the contract, so a change to the gateway's table shows here.
 */
export const STATUS: Record<string, number> = {
  invalid_json: 400,
  invalid_request: 400,
  otp_required: 400,
  unauthorized: 401,
  card_declined: 402,
  forbidden: 403,
  hold_not_enabled: 403,
  receipt_not_found: 404,
  not_found: 404,
  method_not_allowed: 405,
  tid_conflict: 409,
  tid_in_progress: 409,
  operation_in_progress: 409,
  idempotency_key_reused: 409,
  receipt_cancelled: 409,
  receipt_already_paid: 409,
  receipt_not_held: 409,
  cancel_not_allowed: 409,
  otp_attempts_exhausted: 409,
  otp_expired: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  otp_invalid: 422,
  amount_out_of_range: 422,
  upstream_refused: 422,
  rate_limited: 429,
  otp_resend_too_soon: 429,
  internal_error: 500,
  upstream_error: 502,
  upstream_unavailable: 503,
  not_ready: 503,
  service_misconfigured: 503,
  upstream_timeout: 504,
};

/** The event of each state (the contract's Events section); 0 is the created event. */
export function eventOfState(kind: KindName, state: number): string | null {
  const receipt: Record<number, string> = { 0: "created", 4: "paid", 5: "held", 21: "cancelled", 57: "awaiting_supplier" };
  const transfer: Record<number, string> = { 0: "created", 4: "paid", 21: "cancelled" };
  const name = (kind === "receipt" ? receipt : transfer)[state];
  return name ? `${kind}.${name}` : null;
}

export const exhaustedEvent = (kind: KindName) => `${kind}.otp_attempts_exhausted`;

// ---------------------------------------------------------------------------
// What the test knows of a record and of each request it sent

export interface RecMeta {
  key: string;
  kind: KindName;
  id: string;
  tid: string;
  owner: Who;
  merchant: number | null;
  isHold: boolean;
  isVerify: boolean;
  /** A QR merchant's receipt: cancel is refused (rule 4). */
  qr: boolean;
}

/** One call in the sandbox's log (GET /__sandbox/calls). */
export interface LoggedCall {
  seq: number;
  path: string;
  id: string | null;
  status: number;
  code: string | null;
  request_id: string | null;
  otp: boolean;
}

/** Faults the test scripts on one call of one request (test/support/scripted-upstream.ts does them). */
export type FaultName =
  /** The upstream acts, then the connection breaks. */
  | "lost"
  /** 5xx without acting / after acting. */
  | "5xx"
  | "5xx-after"
  /** 503 busy: nothing happened. */
  | "busy"
  /** The upstream acts and never answers (the gateway times out: costs UPSTREAM_TIMEOUT_MS). */
  | "timeout"
  /** A hung connection: the upstream never acts and never answers (the gateway times out). */
  | "hung"
  /** The upstream acts and answers a body nobody can read. */
  | "bad-body"
  /** The request is kept without acting and the connection breaks (or, hang, times out): the test sends it on later. */
  | "late"
  | "late-hang"
  /** 400 with a code the gateway does not know, without acting / after the upstream judged the (wrong) OTP. */
  | "unknown-code"
  | "unknown-code-after"
  /** 400 with no error code at all (a body of "{}"), without acting / after the upstream judged the (wrong) OTP. */
  | "no-code"
  | "no-code-after"
  /** 400 VALIDATION_ERROR, without acting: the upstream refused the request's form before judging anything. */
  | "validation"
  /** The record's object is aborted while the call is held: after the upstream acted / before it did. */
  | "crash-mid"
  | "crash-before";

/** A refusal in words the gateway does not know (an unknown code, or none): the upstream may have judged the OTP. */
export const refusedInUnknownWords = (fault: FaultName) => fault.startsWith("unknown-code") || fault.startsWith("no-code");

/** Faults after which nobody knows whether the upstream acted. */
export const UNKNOWN_FAULTS: ReadonlySet<FaultName> = new Set([
  "lost",
  "5xx",
  "5xx-after",
  "timeout",
  "hung",
  "bad-body",
  "late",
  "late-hang",
  "crash-mid",
  "crash-before",
]);

export type Op = "authorize" | "pay" | "hold-confirm" | "cancel" | "check";

export interface Answer {
  status: number;
  code?: string;
  /** The record's state in a 200 answer. */
  state?: number;
  attemptsLeft?: number;
}

/** A request the test sent, and what it saw of it. */
export interface Sent {
  requestId: string;
  rec: string;
  step: number;
  who: Who;
  op: Op;
  anonymous: boolean;
  card?: Behaviour;
  otp?: string;
  /** The path of the upstream call the operation exists to make. */
  mainPath: string;
  answer: Answer;
  /** Sent at the same time as another request on the record. */
  racing: boolean;
  /** The faults that hit this request's calls. */
  hits: { path: string; fault: FaultName }[];
  /** The last seq of the record's upstream call log before the request was sent (its calls, and any made for it later, come after). */
  preSeq?: number;
  /** The Idempotency-Key it carried (rule 11). */
  key?: string;
  /** A repeat of an earlier request's key, answered from that key (a replay, or idempotency_key_reused): no request of its own. */
  repeatOf?: string;
}

export const unknownAnswer = (a: Answer) => a.code === "upstream_error" || a.code === "upstream_timeout";

/** Whether the record needs an OTP for this pay: an anonymous pay always, else when is_verify. */
export const needsOtp = (meta: RecMeta, sent: Pick<Sent, "anonymous">) => sent.anonymous || meta.isVerify;

const own = (sent: Sent, calls: readonly LoggedCall[], path = sent.mainPath) =>
  calls.filter((c) => c.request_id === sent.requestId && c.path === path);

/**
 * Rule 2: a failed guess is an OTP that reached the upstream and was refused
 * as wrong, or met an outcome nobody can know (timeout, 5xx, connection lost,
 * a crash), or was refused with a code the gateway does not know (or with no
 * code at all). An OTP that paid was right; one answered busy, OTP_EXPIRED,
 * or refused before it was judged (cancelled, already paid, VALIDATION_ERROR:
 * a refusal of the request's form, in words the gateway knows) is no guess.
 * "Reached" is seen from the gateway's side: a call that left it (logged by
 * the sandbox, or taken by a scripted fault on the way).
 */
export function isFailedGuess(meta: RecMeta, sent: Sent, calls: readonly LoggedCall[]): boolean {
  if (sent.op !== "pay" || sent.otp === undefined || !needsOtp(meta, sent)) return false;
  const mine = own(sent, calls);
  // It paid (even late): the OTP was right.
  if (mine.some((c) => c.status === 200)) return false;
  // What the gateway got instead of the upstream's answer.
  const hit = sent.hits.find((h) => h.path === sent.mainPath);
  if (hit) return UNKNOWN_FAULTS.has(hit.fault) || refusedInUnknownWords(hit.fault);
  // Never left the gateway.
  if (mine.length === 0) return false;
  // Its answer never reached the gateway (a timeout on a loaded machine).
  if (unknownAnswer(sent.answer)) return true;
  return mine.some((c) => c.code === "OTP_INVALID" || c.code === "OTP_ATTEMPTS_EXCEEDED");
}

/** The failed guesses among `sents` (one record's), counted with the upstream's log as it stands. */
export const guessesOf = (meta: RecMeta, sents: readonly Sent[], calls: readonly LoggedCall[]) =>
  sents.filter((s) => isFailedGuess(meta, s, calls)).length;

// ---------------------------------------------------------------------------
// The upstream's states, replayed

/** A state the test saw in the sandbox's view, after the log had reached `afterSeq`. */
export interface Seen {
  afterSeq: number;
  state: number;
}

export interface Replayed {
  /** Every state the upstream held, in order (repeats dropped). */
  states: number[];
  /** The upstream's state just before each logged call, by seq. */
  before: Map<number, number>;
}

/**
 * The upstream's states, from its call log and what the test saw between
 * steps: a pay that succeeded made the record paid (held for a hold receipt,
 * 57 for a supplier card), a hold-confirm paid, a cancel cancelled, the third
 * wrong OTP cancelled. The supplier's answer (57 to 4, 5 or 21) shows in the
 * sandbox's view only, which the test reads after every step.
 */
export function replay(meta: RecMeta, calls: readonly LoggedCall[], seen: readonly Seen[], sents: ReadonlyMap<string, Sent>): Replayed {
  const states: number[] = [];
  const before = new Map<number, number>();
  let state = 0;
  const reach = (s: number) => {
    state = s;
    if (states.at(-1) !== s) states.push(s);
  };
  reach(0);
  const sorted = [...calls].sort((a, b) => a.seq - b.seq);
  let i = 0;
  for (const call of sorted) {
    while (i < seen.length && seen[i]!.afterSeq < call.seq) reach(seen[i++]!.state);
    before.set(call.seq, state);
    const after = stateAfter(meta, call, sents.get(call.request_id ?? ""));
    if (after !== null) reach(after);
  }
  while (i < seen.length) reach(seen[i++]!.state);
  return { states, before };
}

/** The upstream's state after a logged call, when the call changed it. */
export function stateAfter(meta: RecMeta, call: LoggedCall, sent: Sent | undefined): number | null {
  if (call.code === "OTP_ATTEMPTS_EXCEEDED") return 21;
  if (call.status !== 200) return null;
  switch (call.path) {
    case "a2c/pay":
      return 4;
    case "receipt/pay":
    case "receipt/anonymous/pay": {
      const card = call.path === "receipt/pay" ? sent?.card : "ok";
      if (card === "supplier_pending" || card === "supplier_fails") return 57;
      return meta.isHold ? 5 : 4;
    }
    case "receipt/hold-confirm":
      return 4;
    case "receipt/cancel":
      return 21;
    default:
      return null;
  }
}

// ---------------------------------------------------------------------------
// Who a cancel in the upstream's log was sent for

/**
 * The reason the gateway gives the upstream when it completes a cancel whose
 * answer was lost (rule 8): what the upstream keeps of that cancel.
 */
export const COMPLETION_REASON = "a cancel whose answer was lost, completed by the gateway";
/** The reasons of the gateway's own cancels: rule 2's after three failed guesses, rule 12's of an unpaid and of a held receipt. */
export const EXHAUSTION_REASON = "three failed OTP guesses";
export const EXPIRY_REASONS = { expired: "expired unpaid", hold_expired: "hold not confirmed in time" } as const;

/**
 * The gateway's own cancel (rule 2's or rule 12's), told apart by its
 * reason: its cancelled_by is the deployment's name (GATEWAY_CANCELLED_BY),
 * which a user's cancel sends too (a user cannot speak for someone else).
 */
export const gatewayCancelled = (cancelled: CancelSeen | null): boolean =>
  cancelled !== null && (cancelled.reason === EXHAUSTION_REASON || Object.values<string | null>(EXPIRY_REASONS).includes(cancelled.reason));

/** A cancel whose caller never learnt its outcome (a timeout, a 5xx, a lost connection, its object killed): the gateway owes its completion. */
export const lostCancel = (s: Sent): boolean =>
  s.op === "cancel" &&
  s.repeatOf === undefined &&
  (unknownAnswer(s.answer) || s.answer.status >= 500 || s.hits.some((h) => h.path === s.mainPath && UNKNOWN_FAULTS.has(h.fault)));

/** What the upstream shows of the cancel that cancelled the receipt (the sandbox's view), when it is cancelled. */
export interface CancelSeen {
  reason: string | null;
  by: string | null;
}

/**
 * On whose behalf a receipt/cancel in the upstream's log was sent: the
 * caller whose own request it is; or, for one the gateway sent itself (under
 * an alarm's request id, or a later request's fresh look), the caller of the
 * latest cancel before it whose answer was lost (its completion), or the
 * gateway (the cancel after three failed guesses, which has a user's rights).
 * The cancel that cancelled the receipt is told apart by what the upstream
 * kept of it: the completion's reason, or the reason of the gateway's own.
 */
export function cancelSenderOf(call: LoggedCall, sents: readonly Sent[], cancelled: CancelSeen | null): Who | "gateway" {
  const own = sents.find((s) => s.requestId === call.request_id);
  const completes = () =>
    sents
      .filter((s) => lostCancel(s) && s.requestId !== call.request_id && (s.preSeq ?? 0) < call.seq)
      .reduce<Sent | undefined>((latest, s) => (latest === undefined || s.step > latest.step ? s : latest), undefined)?.who;
  if (call.status === 200 && cancelled) {
    if (gatewayCancelled(cancelled)) return "gateway";
    if (cancelled.reason === COMPLETION_REASON) return completes() ?? "gateway";
  }
  if (own?.op === "cancel") return own.who;
  return completes() ?? "gateway";
}

// ---------------------------------------------------------------------------
// The answers the contract allows

export interface Judged {
  meta: RecMeta;
  sent: Sent;
  /** The upstream's state when the request arrived: one, or several for racing requests. */
  before: readonly number[];
  /** The upstream's state after the step. */
  after: number;
  /** This request's calls in the upstream's log. */
  own: readonly LoggedCall[];
  /** Failed guesses before this step, and after it (this request included). */
  guessesBefore: number;
  guessesAfter: number;
  /** The most failed guesses the record ever had: once three, the contract lets the gateway keep it closed. */
  maxGuesses: number;
  /** Every state the upstream held so far (replay's), for an answer that may be the last one the gateway knew. */
  history?: readonly number[];
  /** The reason the upstream kept for the cancel that cancelled the receipt, if it is cancelled. */
  cancelReason?: string | null;
}

const TRANSIENT = new Set(["operation_in_progress", "upstream_timeout", "upstream_error", "upstream_unavailable", "rate_limited"]);

/** Why the answer breaks the contract, or null when it is one the contract allows. */
export function judge(j: Judged): string | null {
  const { sent: s } = j;
  const a = s.answer;
  const key = a.status === 200 ? "200" : (a.code ?? "(no code)");
  if (a.status === 500) return "a 500 answer: no input may cause one";
  if (a.status !== 200 && STATUS[key] !== a.status) return `${a.status} ${key} is not in the contract's error table`;
  const stateCalls = j.own.filter((c) => !isRead(c.path));

  if (TRANSIENT.has(key)) return judgeTransient(j, key, stateCalls);

  const allowed = new Set<string>();
  // Rule 8: a cancel whose answer was lost is completed by the gateway before anything else moves
  // money (docs/reference.md): the request meets the receipt cancelled by that cancel. A cancel
  // request too, when the cancel under its id was that completion (the upstream kept its reason).
  const cancelledHere = j.after === 21 && j.own.some((c) => c.path === "receipt/cancel" && c.status === 200);
  const completedCancel = cancelledHere && (s.op !== "cancel" || j.cancelReason === COMPLETION_REASON);
  for (const p of completedCancel ? [...j.before, 21] : j.before) for (const k of allowedAt(j, p)) allowed.add(k);
  if (!allowed.has(key)) {
    return `${s.who}'s ${s.op} answered ${key === "200" ? "200" : `${a.status} ${key}`} with the upstream in state ${[...new Set(j.before)].join(" or ")}: the contract allows ${[...allowed].join(" | ") || "nothing"}`;
  }

  const mine = j.own.filter((c) => c.path === s.mainPath);
  const upstreamSaid = (...codes: string[]) => mine.some((c) => codes.includes(c.code ?? ""));
  const exhaustedEver = Math.max(j.maxGuesses, j.guessesAfter) >= MAX_GUESSES;
  switch (key) {
    case "200":
      return judgeSuccess(j, mine);
    case "otp_invalid":
      if (!upstreamSaid("OTP_INVALID")) return "otp_invalid, but the upstream did not refuse this OTP as wrong";
      if (j.guessesAfter >= MAX_GUESSES)
        return `otp_invalid after ${j.guessesAfter} failed guesses: rule 2 says the third is answered otp_attempts_exhausted`;
      if (!s.racing && a.attemptsLeft !== MAX_GUESSES - j.guessesAfter) {
        return `attempts_left ${a.attemptsLeft}, but ${j.guessesAfter} of ${MAX_GUESSES} guesses failed: ${MAX_GUESSES - j.guessesAfter} left`;
      }
      return null;
    case "otp_attempts_exhausted":
      return exhaustedEver ? null : `otp_attempts_exhausted after ${j.guessesAfter} failed guesses (rule 2: three)`;
    case "upstream_refused":
      if (!s.hits.some((h) => refusedInUnknownWords(h.fault)))
        return "upstream_refused without an upstream refusal in words the gateway does not know";
      if (j.guessesAfter >= MAX_GUESSES && !s.racing) {
        return `upstream_refused for the OTP that made ${j.guessesAfter} failed guesses (an unknown refusal is an unconfirmed guess): rule 2 answers otp_attempts_exhausted`;
      }
      // The OTP counted as a guess: the answer says what is left, as otp_invalid's does.
      if (!s.racing && isFailedGuess(j.meta, s, j.own) && a.attemptsLeft !== MAX_GUESSES - j.guessesAfter) {
        return `upstream_refused with attempts_left ${a.attemptsLeft}, but the OTP counts as a guess and ${j.guessesAfter} of ${MAX_GUESSES} failed: ${MAX_GUESSES - j.guessesAfter} left`;
      }
      return null;
    case "card_declined":
      return upstreamSaid("INSUFFICIENT_FUNDS", "CARD_DECLINED", "RECEIVER_UNAVAILABLE") ? null : "card_declined, but the upstream declined nothing";
    case "otp_expired":
      return upstreamSaid("OTP_EXPIRED") ? null : "otp_expired, but the upstream did not say so";
    case "otp_resend_too_soon":
    case "receipt_not_found":
    case "forbidden":
    case "receipt_not_held":
    case "otp_required":
    case "invalid_request":
      return stateCalls.length > 0 ? `${key}, yet it changed the record upstream: ${showCalls(stateCalls)}` : null;
    default:
      return null;
  }
}

/** Answers that depend on the moment rather than on the record: allowed when something explains them. */
function judgeTransient(j: Judged, key: string, stateCalls: readonly LoggedCall[]): string | null {
  const s = j.sent;
  switch (key) {
    case "operation_in_progress": {
      // Rule 8: a cancel whose answer was lost is completed by the gateway's look before anything else is decided; when
      // that completion's outcome is unknown too (the upstream acted, then answered 5xx), the request is answered
      // that an earlier call's outcome is not known yet, and the change is that earlier call's, under its reason.
      const completion = j.after === 21 && j.cancelReason === COMPLETION_REASON;
      const moved = stateCalls.filter((c) => !(completion && c.path === "receipt/cancel"));
      return moved.length > 0 ? `operation_in_progress, yet it changed the record upstream: ${showCalls(moved)}` : null;
    }
    case "rate_limited":
      // Per user on pay and authorize; rule 6's five OTP sends per receipt for anyone.
      if (s.op === "authorize" || (s.op === "pay" && s.who !== "partner")) {
        return stateCalls.some((c) => c.path === s.mainPath) ? "rate_limited, yet the call reached the upstream" : null;
      }
      return `rate_limited for ${s.who}'s ${s.op}`;
    case "upstream_timeout":
      // Also a loaded machine's: the outcome is unknown, which the gateway must then reconcile like any other.
      return null;
    case "upstream_error": {
      const explained = s.hits.some((h) => UNKNOWN_FAULTS.has(h.fault)) || j.own.some((c) => c.status >= 500);
      return explained ? null : "upstream_error, with no fault of the upstream to explain it";
    }
    case "upstream_unavailable": {
      const busy = s.hits.some((h) => h.fault === "busy") || j.own.some((c) => c.status === 503 || c.status === 429);
      return busy ? null : "upstream_unavailable, but the upstream was not busy";
    }
  }
  return null;
}

const PAID = [4, 5, 57];

/** The codes (or "200") the contract allows for the request if the upstream held state `p` when it arrived. */
function allowedAt(j: Judged, p: number): string[] {
  const { sent: s, meta } = j;
  const exhaustedEver = Math.max(j.maxGuesses, j.guessesAfter) >= MAX_GUESSES;
  const ended = exhaustedEver ? ["otp_attempts_exhausted"] : [];
  // The anonymous pay's schema requires the OTP: a bad request, refused before anything.
  if (s.op === "pay" && s.anonymous && s.otp === undefined) return ["invalid_request"];
  if (s.who !== "partner" && s.who !== meta.owner) return ["receipt_not_found"];
  switch (s.op) {
    case "check":
      return ["200"];
    case "authorize":
    case "pay": {
      if (p === 21) return ["receipt_cancelled", ...ended];
      if (PAID.includes(p)) return ["receipt_already_paid", ...ended];
      // Three failed guesses close the record (rule 2): nothing else may be tried.
      if (j.guessesBefore >= MAX_GUESSES) return ["otp_attempts_exhausted"];
      if (s.op === "authorize") return ["200", "otp_resend_too_soon", "card_declined", ...ended];
      const codes = ["200", "card_declined", "otp_expired", "otp_invalid", "upstream_refused", ...ended];
      if (needsOtp(meta, s) && s.otp === undefined) codes.push("otp_required");
      // The upstream refused the request's form (VALIDATION_ERROR): a bad request, as the gateway's own would be.
      if (s.hits.some((h) => h.path === s.mainPath && h.fault === "validation")) codes.push("invalid_request");
      return codes;
    }
    case "hold-confirm":
      if (s.who !== "partner") return ["forbidden"];
      if (!meta.isHold) return ["receipt_not_held"];
      if (p === 5) return ["200"];
      if (p === 4) return ["receipt_already_paid"];
      if (p === 21) return ["receipt_cancelled", ...ended];
      return ["receipt_not_held", ...ended];
    case "cancel":
      // receipt/cancel takes a receipt's id: a transfer's is no receipt (the upstream has no cancel for transfers).
      if (meta.kind === "transfer") return ["receipt_not_found", "cancel_not_allowed"];
      if (p === 21 || p === 57) return ["cancel_not_allowed"];
      if (meta.qr) return s.who !== "partner" && (p === 4 || p === 5) ? ["cancel_not_allowed", "forbidden"] : ["cancel_not_allowed"];
      // Only the partner cancels a paid or held receipt (a refund); a user only an unpaid one.
      if (p === 4 || p === 5) return s.who === "partner" ? ["200"] : ["forbidden"];
      return exhaustedEver ? ["200", "cancel_not_allowed"] : ["200"];
  }
}

function judgeSuccess(j: Judged, mine: readonly LoggedCall[]): string | null {
  const { sent: s } = j;
  const state = s.answer.state;
  const accepted = mine.some((c) => c.status === 200);
  switch (s.op) {
    case "check":
      if (state !== undefined && (j.before.includes(state) || state === j.after)) return null;
      // While another operation on the record is in flight, check-id answers the last state the gateway
      // knew without calling the service (docs/design.md): one the upstream held, perhaps long before.
      if (s.racing && state !== undefined && j.history?.includes(state)) return null;
      return `check answered state ${state}, the upstream held ${[...new Set([...j.before, j.after])].join(" then ")}`;
    case "authorize":
      return accepted ? null : "200, but the upstream sent no OTP for this request";
    case "pay":
      if (!accepted) return "200, but the upstream did not accept this pay";
      return state !== undefined && PAID.includes(state) ? null : `a pay answered 200 with state ${state}`;
    case "hold-confirm":
      if (!accepted) return "200, but the upstream did not confirm this hold";
      return state === 4 ? null : `hold-confirm answered state ${state}`;
    case "cancel":
      if (!accepted) return "200, but the upstream did not cancel for this request";
      return state === 21 ? null : `cancel answered state ${state}`;
  }
}

export const isRead = (path: string) => path === "receipt/check-id" || path === "a2c/get-by-id";
export const showCalls = (calls: readonly LoggedCall[]) => calls.map((c) => `${c.path} ${c.status}${c.code ? ` ${c.code}` : ""}`).join(", ");
export const showAnswer = (a: Answer) =>
  a.status === 200
    ? a.state === undefined
      ? "200"
      : `200 state ${a.state}`
    : `${a.status} ${a.code}${a.attemptsLeft !== undefined ? ` (attempts_left ${a.attemptsLeft})` : ""}`;

// ---------------------------------------------------------------------------
// Rule 11: what a repeated Idempotency-Key answers

/**
 * What the key keeps after a request that carried it (docs/reference.md rule
 * 11): its answer (the gateway acted: 200, 402, 404, 409, 422), nothing (a
 * refusal before it acted, a busy upstream, a conflict of the moment: the key
 * may be used again), or the key open on an outcome nobody knew (a 5xx or a
 * timeout: the repeat asks the upstream). A 404 to a caller who may not see
 * the record is nothing: the gateway never found the record for that caller.
 */
export type KeyKept = "answer" | "nothing" | "unknown";
export function keyKept(a: Answer): KeyKept {
  if (a.code === "operation_in_progress" || a.code === "idempotency_key_reused" || a.code === "receipt_not_found") return "nothing";
  if ([200, 402, 404, 409, 422].includes(a.status)) return "answer";
  if (a.status < 500 || a.code === "upstream_unavailable") return "nothing";
  return "unknown";
}

/** Whether the upstream's state shows the operation done (what a repeat after an unknown outcome answers 200 for). */
export function opDone(op: Op, state: number): boolean {
  switch (op) {
    case "pay":
      return PAID.includes(state);
    case "hold-confirm":
      return state === 4;
    case "cancel":
      return state === 21;
    default:
      // An OTP send leaves nothing the upstream shows.
      return false;
  }
}

export interface KeyedAnswer extends Answer {
  raw: string;
  replayed: boolean;
}

export interface RepeatJudged {
  /** The request the key's answer belongs to: the first whose answer the key kept, or left open. */
  first: Sent;
  kept: Exclude<KeyKept, "nothing">;
  /** The answer the key settled on (the first's kept one, or what the first repeat after an unknown outcome answered). */
  settled: { status: number; raw: string } | null;
  repeat: Sent;
  answer: KeyedAnswer;
  /** Same body as the first (a repeat), or another one (a reuse). */
  sameBody: boolean;
  /** The record's upstream call log after the repeat. */
  calls: readonly LoggedCall[];
  /** Every request that carried the key since the first (the first and this one included). */
  keyRequests: readonly string[];
  /** The upstream's state after the repeat. */
  after: number;
}

/**
 * Rule 11 for a request that repeats a key: why its answer breaks the rule,
 * null when the rule holds, or "new" when the key had kept nothing (the
 * first's outcome unknown, but its call never left the gateway: the key was
 * never opened) and the request went through as a new one, to be judged as
 * such. A repeat with the same body answers the settled answer again (same
 * status and body, Idempotent-Replayed: true), or, after an unknown outcome,
 * what the upstream shows (200 iff the operation took effect there; else 502
 * upstream_error); another body is 409 idempotency_key_reused. Neither
 * reaches the upstream with the operation again: the log has at most one
 * call of it for the key's requests.
 */
export function judgeRepeat(j: RepeatJudged): string | null | "new" {
  const { first, answer: a, repeat } = j;
  const mine = j.calls.filter((c) => c.request_id === repeat.requestId);
  const firstCalls = j.calls.filter((c) => c.request_id === first.requestId && c.path === first.mainPath);
  const firstLeft = firstCalls.length > 0 || first.hits.some((h) => h.path === first.mainPath);
  if (j.kept === "unknown" && j.settled === null && !firstLeft && !a.replayed && a.code !== "idempotency_key_reused") return "new";
  // The gateway completing a lost cancel under a later request's id is rule 8's completion, not the key's second call.
  const completion = (c: LoggedCall) => first.op === "cancel" && lostCancel(first) && c.request_id !== first.requestId;
  const opCalls = j.calls.filter((c) => c.path === first.mainPath && j.keyRequests.includes(c.request_id ?? "") && !completion(c));
  if (opCalls.length > 1)
    return `rule 11: the key ${repeat.key} reached the upstream's ${first.mainPath} ${opCalls.length} times (${opCalls.map((c) => c.request_id).join(", ")})`;
  const shown = `${a.status}${a.code ? ` ${a.code}` : ""}${a.replayed ? " (replayed)" : ""}`;
  // The per-user rate limit refuses at the edge, before the record is asked for the key: the repeat met nothing,
  // and the key keeps its answer for the next one.
  if (a.code === "rate_limited" && !a.replayed)
    return mine.length > 0 ? `rule 11: a rate-limited repeat reached the upstream: ${showCalls(mine)}` : null;
  if (!j.sameBody) {
    if (a.code !== "idempotency_key_reused" || a.replayed)
      return `rule 11: the key ${repeat.key} of ${first.requestId} with another body answered ${shown}, not 409 idempotency_key_reused`;
    return mine.length > 0 ? `rule 11: the key ${repeat.key} with another body reached the upstream: ${showCalls(mine)}` : null;
  }
  if (mine.some((c) => c.path === first.mainPath && !completion(c)))
    return `rule 11: the repeat of ${first.requestId}'s key called ${first.mainPath} again: ${showCalls(mine)}`;
  if (j.settled !== null) {
    if (mine.length > 0) return `rule 11: the repeat of ${first.requestId}'s kept answer reached the upstream: ${showCalls(mine)}`;
    if (!a.replayed || a.status !== j.settled.status || a.raw !== j.settled.raw)
      return `rule 11: the repeat of ${first.requestId}'s key answered ${shown}: ${a.raw.slice(0, 200)}; the key kept ${j.settled.status}: ${j.settled.raw.slice(0, 200)}`;
    return null;
  }
  // The first's outcome was unknown: the repeat asks the upstream; a look that failed is transient, and keeps the key open.
  if (!a.replayed) {
    return TRANSIENT.has(a.code ?? "") && a.code !== "operation_in_progress"
      ? null
      : `rule 11: the repeat of ${first.requestId}'s key (its outcome unknown) answered ${shown}, not replayed`;
  }
  const done = opDone(first.op, j.after);
  // The first's call took effect but the record moved on since (refunded, the supplier refused): either answer is the upstream's.
  const movedOn = firstCalls.some((c) => c.status === 200) && !done && first.op !== "authorize";
  if (done && a.status === 200) return null;
  if (!done && a.code === "upstream_error") return null;
  if (movedOn && a.status === 200) return null;
  return `rule 11: the repeat of ${first.requestId}'s key (its outcome unknown) answered ${shown} with the upstream in state ${j.after}: ${done ? "the operation took effect: 200" : "it did not: 502 upstream_error"}`;
}

// ---------------------------------------------------------------------------
// Rule 14: every paid receipt ends fiscalized or listed

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const filled = (value: unknown) => typeof value === "string" && value.trim() !== "";

/** An `ofd` that shows fiscal data: a fiscal sign and a QR address (docs/reference.md, rule 14). */
export const fiscalShownIn = (ofd: unknown): boolean => isObject(ofd) && filled(ofd.fiscalSign) && filled(ofd.qrCodeUrl);

/**
 * The fiscal data a receipt in `state` with this `ofd` lacks, as rule 14
 * defines it: the sale's (paid, its `ofd` without a fiscal sign or QR
 * address), the refund's (cancelled, its `ofd` without both, or still the
 * sale's), or none (shown, unpaid, or an `ofd` of null: a receipt the
 * payment service does not fiscalize).
 */
export function fiscalMissing(state: number, ofd: unknown): "sale" | "refund" | null {
  if (!isObject(ofd)) return null;
  if (state === 4) return fiscalShownIn(ofd) ? null : "sale";
  if (state === 21) return fiscalShownIn(ofd) && ofd.type !== "Sale" ? null : "refund";
  return null;
}

/** The event that says a receipt's missing fiscal data is shown at last, and the state it keeps. */
export const FISCAL_EVENTS: Readonly<Record<string, number>> = { "receipt.fiscalized": 4, "receipt.refund_fiscalized": 21 };

export interface FiscalJudged {
  /** The upstream's state and `ofd` (the sandbox's view). */
  state: number;
  ofd: unknown;
  /** The receipt's row in fiscal/pending, if listed. */
  listed: { state: number } | undefined;
  /** The receipt's events the receiver got: type, the object's state and `ofd`. */
  delivered: readonly { type: string; state: number | undefined; ofd: unknown }[];
  /** A read of the upstream by the gateway (a check-id) came after the upstream's last change. */
  fresh: boolean;
}

/**
 * Why a receipt breaks rule 14, or null. Fiscal data the upstream still
 * lacks is listed, with the upstream's state. Data the upstream shows is
 * known to the gateway: an event delivered in this state carries it, or the
 * receipt is still listed because no read came since it appeared (the
 * schedule's reads were done before it); once a fresh read came, it is not
 * listed. An `ofd` of null is never listed.
 */
export function judgeFiscal(j: FiscalJudged): string | null {
  const missing = fiscalMissing(j.state, j.ofd);
  if (j.listed && j.listed.state !== j.state) return `rule 14: listed in state ${j.listed.state}, the upstream holds ${j.state}`;
  if (missing !== null)
    return j.listed ? null : `rule 14: the ${missing}'s fiscal data is missing upstream (state ${j.state}), yet fiscal/pending does not list it`;
  if (!isObject(j.ofd) || (j.state !== 4 && j.state !== 21))
    return j.listed ? `rule 14: listed, yet it owes no fiscal receipt (state ${j.state})` : null;
  if (j.listed) return j.fresh ? "rule 14: the upstream shows its fiscal data and the gateway read it since, yet it is still listed" : null;
  const known = j.delivered.some((e) => e.state === j.state && fiscalMissing(j.state, e.ofd) === null && fiscalShownIn(e.ofd));
  return known || j.fresh
    ? null
    : `rule 14: the upstream shows its fiscal data (state ${j.state}), yet it is neither listed nor delivered in an event`;
}
