/**
 * The lifecycle of a receipt or transfer, written down as data: the phases a
 * record can be in, and for every operation x phase x caller the decision the
 * gateway takes (call the upstream, ask the upstream first, or refuse with a
 * code of the contract). The receipt's Durable Object consults this module
 * and holds no state rule of its own beside it.
 *
 * Pure: no storage, no I/O, no clock. test/unit/lifecycle.test.ts reads it as a
 * table against the contract's rules 2 to 5 and 8.
 */
import type { ErrorCode } from "../errors/errors";
import { STATE, type UpstreamState } from "../upstream/calls";
import { type EventType, KINDS, type KindName } from "./kinds";

// The states, the kinds and their events are src/rules/kinds.ts's; named here too, where the rules use them.
export { isKnownState, STATE } from "../upstream/calls";
export type { EventType, KindName, UpstreamState };
/** The upstream took the money: paid, held, or paid and awaiting its supplier. */
export const isPaid = (state: UpstreamState): boolean => state === STATE.paid || state === STATE.held || state === STATE.awaitingSupplier;

/** Failed OTP guesses that end a record (rule 2). */
export const MAX_GUESSES = 3;
/** MAX_GUESSES as messages and prose open a sentence with it. */
export const GUESS_LIMIT_WORD = ["No", "One", "Two", "Three", "Four", "Five"][MAX_GUESSES] ?? String(MAX_GUESSES);
/** OTP sends (authorize calls) allowed per receipt (rule 6). */
export const MAX_OTP_SENDS = 5;

/**
 * Where a record stands. Five phases mirror the upstream's states; two are
 * the gateway's own and used to exist only as combinations of flags:
 * - `in_flight`: a call that may change the record upstream has left and its
 *   outcome is not stored: still in flight, or lost (timeout, 5xx, an answer
 *   that could not be read, a crash). Only the upstream can say what happened.
 * - `exhausted`: three OTP guesses failed. A receipt is then cancelled
 *   upstream (until the upstream shows 21, reconciliation keeps trying); a
 *   transfer, which the upstream cannot cancel, is closed at the edge.
 * - `expired`: rule 12 ended it (EXPIRY): cancelled upstream by the gateway,
 *   or closed at the edge. Unless the upstream shows it paid after all.
 */
export type Phase = "created" | "held" | "paid" | "awaiting_supplier" | "cancelled" | "in_flight" | "exhausted" | "expired";

/** What the phase is computed from: the record's stored facts. */
export interface PhaseFacts {
  state: UpstreamState;
  /** A write-ahead note is stored: a call left and its outcome is not known. */
  pending: boolean;
  /** Failed guesses: wrong OTPs plus OTPs whose outcome nobody can know. */
  guesses: number;
  /** Rule 12 ended it, or is ending it (the record's expiry reason is stored). */
  expired?: boolean;
}

export function phaseOf(facts: PhaseFacts): Phase {
  if (facts.pending) return "in_flight";
  if (facts.guesses >= MAX_GUESSES) return "exhausted";
  // A record the upstream shows paid is paid, whatever the gateway decided: the money moved.
  if (facts.expired && facts.state !== STATE.paid && facts.state !== STATE.awaitingSupplier) return "expired";
  switch (facts.state) {
    case STATE.created:
      return "created";
    case STATE.paid:
      return "paid";
    case STATE.held:
      return "held";
    case STATE.cancelled:
      return "cancelled";
    case STATE.awaitingSupplier:
      return "awaiting_supplier";
  }
}

export type Operation = "authorize" | "pay" | "hold-confirm" | "cancel";
/**
 * Who an operation is decided for. `gateway`: the gateway acting on its own
 * (the cancel that ends a receipt whose guesses ran out, or that expired:
 * rule 12). It passes the same table as a request and has no more rights
 * than a user: it never refunds; it releases only a hold nobody confirmed
 * in time (no money was taken).
 */
export type CallerKind = "partner" | "user" | "gateway";

export interface DecisionContext {
  kind: KindName;
  caller: CallerKind;
  /** The receipt was created with is_hold. */
  isHold: boolean;
  /** The merchant is of the QR kind (never cancelled). */
  qrMerchant: boolean;
  /** The deployment's hold function. */
  holdEnabled: boolean;
  /** The phase was read from the upstream during this operation (not a stored copy). */
  fresh: boolean;
  /**
   * A call whose outcome was unknown may still act upstream (rule 8's late
   * upstream): the stored copy may be stale, so money moves only after a fresh look.
   */
  suspect: boolean;
  /** The call needs the OTP sent to the card owner (a raw card number, or a record the upstream verifies) and the request has none. */
  otpMissing: boolean;
  /** The failed guesses so far (rule 2), for the refusal of an exhausted record. */
  guesses: GuessCounts;
  /** Closed at the edge (closedAtEdge): the refusal says so instead of "cancelled". */
  closedAtEdge: boolean;
  /** The gateway's cancel is rule 12's expiry, for this reason (EXPIRY); absent for every other decision. */
  expiring?: ExpiryReason;
}

export type Decision =
  | { do: "call" }
  /** Ask the upstream how the record stands, store it, then decide again with `fresh`. */
  | { do: "ask-upstream-first" }
  | { do: "refuse"; code: ErrorCode; message: string };

const CALL: Decision = { do: "call" };
const ASK_FIRST: Decision = { do: "ask-upstream-first" };
const refuse = (code: ErrorCode, message: string): Decision => ({ do: "refuse", code, message });

/** The noun a message uses for a record of this kind. */
export const nounOf = (kind: KindName): string => KINDS[kind].noun;
/** "Transfers", to open a sentence. */
const plural = (kind: KindName): string => `${nounOf(kind)[0]!.toUpperCase()}${nounOf(kind).slice(1)}s`;

type Row = {
  /** The phases this row applies to; absent: all. */
  phases?: readonly Phase[];
  /** An extra condition on the context; absent: always. */
  when?: (ctx: DecisionContext) => boolean;
  then: Decision | ((ctx: DecisionContext, phase: Phase) => Decision);
};

/** Rule 2's refusal, whole: whether the guesses were wrong or partly unconfirmed, and whether it is cancelled or closed at the gateway. */
const EXHAUSTED = (ctx: DecisionContext) => refuse("otp_attempts_exhausted", exhaustedMessage(ctx.kind, ctx.guesses, ctx.closedAtEdge));
const OTP_REQUIRED = (ctx: DecisionContext) =>
  refuse(
    "otp_required",
    KINDS[ctx.kind].authorizes
      ? `This payment needs the OTP sent to the card owner (authorize first).`
      : `This ${nounOf(ctx.kind)} needs the OTP sent to the sender.`,
  );
/** Rule 12's refusal: every operation on an expired record, whatever the upstream shows. */
const EXPIRED = (ctx: DecisionContext) =>
  refuse(
    "receipt_expired",
    `The ${nounOf(ctx.kind)} expired unpaid and is ${ctx.closedAtEdge ? "closed at the gateway" : "cancelled"}; create a new one.`,
  );
const CANCELLED_MESSAGE = (ctx: DecisionContext) => `The ${nounOf(ctx.kind)} is cancelled; create a new one.`;
const PAID_MESSAGE = (ctx: DecisionContext, phase: Phase) =>
  `The ${nounOf(ctx.kind)} is already paid (${phase === "held" ? "the amount is held" : phase === "awaiting_supplier" ? "awaiting the supplier" : "paid"}).`;

/** Rule 8: while a call in flight, the supplier or a late upstream may still change it, the stored copy is not trusted. */
const STALE: readonly Row[] = [
  { phases: ["in_flight", "awaiting_supplier"], when: (ctx) => !ctx.fresh, then: ASK_FIRST },
  { when: (ctx) => ctx.suspect && !ctx.fresh, then: ASK_FIRST },
];

/** Authorize (send an OTP) and pay share their refusals: only an unpaid, open record may be paid. */
const PAYABLE: readonly Row[] = [
  ...STALE,
  { phases: ["exhausted"], then: EXHAUSTED },
  { phases: ["expired"], then: EXPIRED },
  { phases: ["cancelled"], then: (ctx) => refuse("receipt_cancelled", CANCELLED_MESSAGE(ctx)) },
  { phases: ["paid", "held", "awaiting_supplier"], then: (ctx, phase) => refuse("receipt_already_paid", PAID_MESSAGE(ctx, phase)) },
];

/**
 * The table. Rows are tried in order; the first that applies decides. Read
 * it as the contract: e.g. cancel's rows are rule 4 (refused in 21 and 57 and
 * for QR merchants) and "a user may cancel only while unpaid".
 */
export const LIFECYCLE: Record<Operation, readonly Row[]> = {
  authorize: [
    { when: (ctx) => !KINDS[ctx.kind].authorizes, then: (ctx) => refuse("invalid_request", `${plural(ctx.kind)} have no authorize step.`) },
    ...PAYABLE,
    { phases: ["created"], then: CALL },
  ],
  pay: [
    ...PAYABLE,
    // Rule 2: no OTP, no guess: refused before anything leaves, and never counted.
    { phases: ["created"], when: (ctx) => ctx.otpMissing, then: OTP_REQUIRED },
    { phases: ["created"], then: CALL },
  ],
  "hold-confirm": [
    { when: (ctx) => ctx.caller !== "partner", then: refuse("forbidden", "hold-confirm is for the partner backend only.") },
    { when: (ctx) => !ctx.holdEnabled, then: refuse("hold_not_enabled", "The hold function is not enabled in this deployment.") },
    { when: (ctx) => !KINDS[ctx.kind].holds || !ctx.isHold, then: refuse("receipt_not_held", "This receipt was not created with is_hold.") },
    ...STALE,
    { phases: ["held"], then: CALL },
    { phases: ["exhausted"], then: EXHAUSTED },
    { phases: ["expired"], then: EXPIRED },
    { phases: ["cancelled"], then: refuse("receipt_cancelled", "The receipt is cancelled.") },
    { phases: ["paid"], then: refuse("receipt_already_paid", "The hold on this receipt is already confirmed.") },
    { phases: ["created", "awaiting_supplier"], then: refuse("receipt_not_held", "Nothing is held on this receipt yet: pay it first.") },
  ],
  cancel: [
    { when: (ctx) => !KINDS[ctx.kind].cancellable, then: (ctx) => refuse("cancel_not_allowed", `${plural(ctx.kind)} cannot be cancelled.`) },
    ...STALE,
    { phases: ["expired"], then: EXPIRED },
    { phases: ["cancelled", "exhausted"], then: refuse("cancel_not_allowed", "The receipt is already cancelled.") },
    // Rule 8: a user's cancel is never decided from a stored copy (a late pay may have landed since).
    { when: (ctx) => ctx.caller === "user" && !ctx.fresh, then: ASK_FIRST },
    { phases: ["awaiting_supplier"], then: refuse("cancel_not_allowed", "A receipt awaiting the supplier's answer (state 57) cannot be cancelled.") },
    { when: (ctx) => ctx.qrMerchant, then: refuse("cancel_not_allowed", "Receipts of QR merchants cannot be cancelled.") },
    // Rule 12: a hold nobody confirmed in time is released by the gateway's cancel (no money was taken: no refund).
    { phases: ["held"], when: (ctx) => ctx.caller === "gateway" && ctx.expiring === "hold_expired", then: CALL },
    {
      phases: ["held", "paid"],
      when: (ctx) => ctx.caller !== "partner",
      then: refuse("forbidden", "Only the partner backend may cancel a paid or held receipt."),
    },
    { phases: ["created", "held", "paid"], then: CALL },
  ],
};

/** The phase the upstream's state alone shows (no call in flight, no guess counted): what a step taken on someone's behalf after a fresh look is decided in. */
export const upstreamPhase = (state: UpstreamState): Phase => phaseOf({ state, pending: false, guesses: 0 });

export function decide(operation: Operation, phase: Phase, ctx: DecisionContext): Decision {
  for (const row of LIFECYCLE[operation]) {
    if (row.phases && !row.phases.includes(phase)) continue;
    if (row.when && !row.when(ctx)) continue;
    return typeof row.then === "function" ? row.then(ctx, phase) : row.then;
  }
  // Only reachable for an in-flight phase that stayed in flight after a fresh look, which reconciliation never leaves.
  return refuse("operation_in_progress", `The outcome of an earlier call on this ${nounOf(ctx.kind)} is not known yet; retry shortly.`);
}

/**
 * Whether the table asks for a fresh look at the upstream before it decides
 * `operation` (rule 8: a stored copy it does not trust). A move asks this,
 * looks if so, then decides once with `fresh`.
 */
export const asksForLook = (operation: Operation, phase: Phase, ctx: DecisionContext): boolean =>
  decide(operation, phase, { ...ctx, fresh: false }).do === "ask-upstream-first";

// ---------------------------------------------------------------------------
// OTP accounting (rule 2)

/**
 * What became of one OTP that was sent upstream:
 * - `accepted`: the upstream judged it right (the call paid, or failed for
 *   another reason after judging it, e.g. a declined card);
 * - `wrong`: refused as wrong;
 * - `unconfirmed`: the outcome is unknown and the record did not end up paid;
 * - `not_judged`: the upstream provably did not judge it (busy, expired, the
 *   gateway's credential refused, a refusal before the OTP was looked at).
 * Only `wrong` and `unconfirmed` are guesses that count.
 */
export type OtpVerdict = "accepted" | "wrong" | "unconfirmed" | "not_judged";

export interface GuessCounts {
  wrong: number;
  unconfirmed: number;
}

export const guessesOf = (counts: GuessCounts): number => counts.wrong + counts.unconfirmed;

/** The OTP a call carries: none when the record needs none (one given anyway is not sent, and is no guess); false when one is missing. */
export function otpToSend(needed: boolean, otp: string | undefined): string | undefined | false {
  if (!needed) return undefined;
  return otp === undefined ? false : otp;
}

/**
 * What the upstream's answer to an OTP-bearing call says of its OTP (rule 2);
 * null when there was no answer (timeout, 5xx, unreadable): the write-ahead
 * note stays and reconciliation decides. A refusal with a code the gateway
 * does not know (`upstream_refused`) may have judged the OTP: unconfirmed.
 */
export function otpVerdictOf(
  answer: { ok: true } | { ok: false; outcome: "rejected" | "unknown"; judged: boolean; code: ErrorCode },
): OtpVerdict | null {
  if (answer.ok) return "accepted";
  if (answer.outcome === "unknown") return null;
  if (answer.code === "otp_invalid" || answer.code === "otp_attempts_exhausted") return "wrong";
  if (answer.code === "upstream_refused") return "unconfirmed";
  return answer.judged ? "accepted" : "not_judged";
}

export function countGuess(counts: GuessCounts, verdict: OtpVerdict): GuessCounts {
  if (verdict === "wrong") return { ...counts, wrong: counts.wrong + 1 };
  if (verdict === "unconfirmed") return { ...counts, unconfirmed: counts.unconfirmed + 1 };
  return counts;
}

/** The message of otp_attempts_exhausted: says whether the three were wrong or partly unconfirmed. */
export function exhaustedMessage(kind: KindName, counts: GuessCounts, closedAtEdge = !KINDS[kind].cancellable): string {
  const noun = nounOf(kind);
  // Closed at the edge: a transfer (no cancel upstream), or a receipt the upstream will not cancel (QR merchant, no access).
  // Otherwise the record refuses codes at once while its cancel upstream may still wait for a late read (rule 2 with rule 8):
  // the words hold whether that cancel is done yet or not.
  const ending = closedAtEdge
    ? `the ${noun} is closed at the gateway and takes no further code`
    : `the ${noun} is closed and takes no further code; the gateway cancels it with the payment service`;
  if (counts.unconfirmed === 0) return `${GUESS_LIMIT_WORD} wrong OTPs: ${ending}. Create a new ${noun}.`;
  const parts = [
    counts.wrong > 0 ? `${counts.wrong} wrong` : null,
    `${counts.unconfirmed} whose answer was lost (counted as guesses, since the payment service may have judged them)`,
  ].filter(Boolean);
  return `${GUESS_LIMIT_WORD} OTP guesses failed (${parts.join(", ")}): ${ending}. Create a new ${noun}.`;
}

// ---------------------------------------------------------------------------
// Events: which state change is which event (the contract's Events section)

/** The event a change of upstream state is, if any (each kind names its own in src/rules/kinds.ts). */
export function eventForStateChange(kind: KindName, from: UpstreamState, to: UpstreamState): EventType | null {
  if (from === to) return null;
  const onState: { readonly [S in UpstreamState]?: EventType } = KINDS[kind].events.onState;
  return onState[to] ?? null;
}

export const createdEvent = (kind: KindName): EventType => KINDS[kind].events.created;
export const exhaustedEvent = (kind: KindName): EventType => KINDS[kind].events.exhausted;

// ---------------------------------------------------------------------------
// Closed at the edge, and final (rules 2 and 10)

/**
 * Whether the upstream cancels a record whose guesses ran out: a receipt
 * (transfers have no cancel upstream), not a QR merchant's, and not one whose
 * cancel it already refused for good.
 */
export const upstreamCancels = (facts: { kind: KindName; qrMerchant: boolean; cancelRefused: boolean }): boolean =>
  KINDS[facts.kind].cancellable && !facts.qrMerchant && !facts.cancelRefused;

/**
 * Closed at the edge (rules 2 and 12): its guesses ran out, or it expired,
 * and the upstream will not cancel it (a transfer, a QR merchant's receipt, a
 * cancel refused for good). Every later operation is refused
 * (otp_attempts_exhausted, receipt_expired); it is final (rule 10).
 */
export const closedAtEdge = (facts: { guesses: number; expired?: boolean; upstreamCancels: boolean }): boolean =>
  (facts.guesses >= MAX_GUESSES || facts.expired === true) && !facts.upstreamCancels;

/**
 * Three guesses failed and the upstream, which cancels such a receipt, still
 * shows it unpaid: the gateway's own cancel is owed. Only while unpaid: the
 * cancel table (decide, caller `gateway`) refuses it in every other phase,
 * and test/unit/lifecycle.test.ts holds the two equal. Like an expiry, it
 * waits while a call's late reads are owed (rule 8): a lost pay may yet land,
 * and a receipt found paid is paid, never refunded by the gateway. The record
 * is closed at the edge meanwhile (the exhausted phase refuses every guess).
 */
export function exhaustionCancelPending(facts: {
  guesses: number;
  state: UpstreamState;
  upstreamCancels: boolean;
  /** An earlier call's outcome was unknown and its late reads (rule 8) are still owed. */
  suspect?: boolean;
}): boolean {
  if (facts.suspect) return false;
  return facts.guesses >= MAX_GUESSES && facts.upstreamCancels && facts.state === STATE.created;
}

// ---------------------------------------------------------------------------
// Every flow ends (rule 12)

/** Why the gateway ended a record by rule 12: `data.reason` of its event. */
export type ExpiryReason = "expired" | "hold_expired";

/** The two windows of rule 12 (RECEIPT_EXPIRY_HOURS, HOLD_EXPIRY_DAYS), in ms. */
export interface ExpiryWindows {
  unpaidMs: number;
  heldMs: number;
}

/**
 * How a record in a state expires: after which window, counted from when
 * (its creation, or when it became held), with which reason, and how it
 * ends: `cancel`, the gateway's cancel upstream (decided by the cancel rows
 * above for caller `gateway`), or `edge`, closed at the edge (the upstream
 * has no cancel for it). A state not listed never expires: paid (4), the
 * supplier's 57 (the supplier answers), cancelled (21).
 */
export interface ExpiryRule {
  window: keyof ExpiryWindows;
  from: "created" | "held";
  reason: ExpiryReason;
  ends: "cancel" | "edge";
}

export const EXPIRY: Readonly<Record<KindName, { readonly [S in UpstreamState]?: ExpiryRule }>> = {
  receipt: {
    [STATE.created]: { window: "unpaidMs", from: "created", reason: "expired", ends: "cancel" },
    [STATE.held]: { window: "heldMs", from: "held", reason: "hold_expired", ends: "cancel" },
  },
  transfer: {
    [STATE.created]: { window: "unpaidMs", from: "created", reason: "expired", ends: "edge" },
  },
};

/** The rule by which a record of this kind in this state expires, or null when it does not. */
export const expiryRuleOf = (kind: KindName, state: UpstreamState): ExpiryRule | null => EXPIRY[kind][state] ?? null;

/** The upstream was too busy to act on a call (unavailable, rate limited): nothing happened, and the call may be sent again later. */
export const upstreamBusy = (code: ErrorCode): boolean => code === "upstream_unavailable" || code === "rate_limited";

/**
 * When a record expires, or null when it does not (rule 12). `expiry` is the
 * reason already stored: the gateway decided, and until the upstream shows
 * the record ended (or it is closed at the edge) the cancel is owed now. A
 * call in flight or an exhausted record is settled first (rules 8 and 2),
 * and an expiry not yet decided waits while a call's late reads are owed:
 * once decided, every operation is refused, so only its own cancel can be
 * suspect, and that is owed again at once.
 */
export function expiresAt(
  facts: {
    kind: KindName;
    phase: Phase;
    state: UpstreamState;
    expiry: ExpiryReason | null;
    edgeClosed: boolean;
    createdAt: number;
    heldAt: number;
    /** An earlier call's outcome was unknown and its late reads (rule 8) are still owed. */
    suspect?: boolean;
  },
  windows: ExpiryWindows,
): number | null {
  const rule = expiryRuleOf(facts.kind, facts.state);
  if (!rule || facts.edgeClosed) return null;
  if (facts.expiry !== null) return facts.phase === "expired" ? 0 : null;
  if (facts.phase !== "created" && facts.phase !== "held") return null;
  // A pay that may yet land is waited for: a receipt found paid is paid, never refunded by the gateway.
  if (facts.suspect) return null;
  return (rule.from === "held" ? facts.heldAt : facts.createdAt) + windows[rule.window];
}

/** Why the gateway itself ended a record: rule 12's expiry, or rule 2's three failed guesses. */
export type GatewayReason = ExpiryReason | "otp_attempts_exhausted";

/** What an event of a change the gateway itself caused says: why, and whether the record is closed at the edge. */
export interface GatewayCause {
  reason: GatewayReason;
  closed_at_edge?: true;
}

/**
 * The cause a change to `state` carries when it is the cancel the gateway
 * asked for: the expiry decided (rule 12), named by the state it ended
 * (`expired` from 0, `hold_expired` from 5: the expiry that acted; a paid
 * receipt's refund is never an expiry's), or the guesses used up (rule 2:
 * an exhausted record refuses every caller's cancel, so its cancel is the
 * gateway's, or the payment service's own for the same guesses).
 */
export const gatewayCause = (
  facts: { kind: KindName; state: UpstreamState; expiry: ExpiryReason | null } & GuessCountsOf,
  state: UpstreamState,
): GatewayCause | null => {
  if (state !== STATE.cancelled) return null;
  const acted = facts.expiry === null ? null : (expiryRuleOf(facts.kind, facts.state)?.reason ?? null);
  if (acted !== null) return { reason: acted };
  return guessesOf({ wrong: facts.wrong_otps, unconfirmed: facts.unconfirmed_otps }) >= MAX_GUESSES ? { reason: "otp_attempts_exhausted" } : null;
};

/** The record's guess counters, as its row names them. */
interface GuessCountsOf {
  wrong_otps: number;
  unconfirmed_otps: number;
}

// ---------------------------------------------------------------------------
// No paid receipt lacks its fiscal receipt unnoticed (rule 14)

/**
 * Where a receipt's fiscal receipt stands, as the gateway last saw it. The
 * payment service registers a sale with the fiscal data operator when it
 * fiscalizes the receipt (its `ofd` block), and a refund when a paid receipt
 * is cancelled; the operator may be late. Two of the four are fiscal-pending:
 * - `sale_pending`: paid (4), and its `ofd` shows no fiscal sign or no QR
 *   address yet;
 * - `sale`: paid, its fiscal receipt shown;
 * - `refund_pending`: a receipt whose sale the service fiscalized, cancelled
 *   (21), and the refund's fiscal data not shown yet (no `ofd` with a fiscal
 *   sign and a QR address that is not the sale's);
 * - `refund`: the refund's fiscal receipt shown.
 * None (null): nothing fiscal to watch: not paid (0, 5, 57), a transfer, or a
 * receipt the service does not fiscalize (`ofd` null: the partner does).
 *
 * A sub-phase of `paid` and `cancelled` for the table above: a fiscal-pending
 * receipt is decided as any paid or cancelled one (a second pay is refused,
 * the partner may refund it); what it adds is the gateway's own reads
 * (fiscalReadAt), its events (fiscalEventOf) and a record that does not end
 * while it lasts (rule 10, src/rules/schedule.ts recordDeletionAt).
 */
export type FiscalPhase = "sale_pending" | "sale" | "refund_pending" | "refund";

export const isFiscalPending = (phase: FiscalPhase | null): boolean => phase === "sale_pending" || phase === "refund_pending";

/** The events of a kind's fiscal data shown late; null for a kind the payment service does not fiscalize (transfers). */
const fiscalEventsOf = (kind: KindName): { sale: EventType; refund: EventType } | null => {
  const events = KINDS[kind].events;
  return "fiscal" in events ? events.fiscal : null;
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const filled = (value: unknown): boolean => typeof value === "string" && value.trim() !== "";

/** Fiscal data shown: an `ofd` block with a fiscal sign and a QR address. */
export const fiscalShown = (ofd: unknown): boolean => isObject(ofd) && filled(ofd.fiscalSign) && filled(ofd.qrCodeUrl);

/** A refund's fiscal data shown: fiscal data that is not the sale's (its `type` says `Sale`). */
const refundShown = (ofd: unknown): boolean => fiscalShown(ofd) && (ofd as Record<string, unknown>).type !== "Sale";

/**
 * The fiscal phase a receipt is in once the upstream showed it in `state`
 * with this `ofd`, from the phase it was in (`before`). What was shown
 * stays shown: a fiscal receipt is never taken back.
 */
export function fiscalPhaseOf(facts: { kind: KindName; state: UpstreamState; ofd: unknown; before: FiscalPhase | null }): FiscalPhase | null {
  const { kind, state, ofd, before } = facts;
  if (!fiscalEventsOf(kind)) return null;
  if (state === STATE.paid) {
    if (before === "sale") return "sale";
    // An `ofd` the service stopped showing is still owed, if it was.
    if (!isObject(ofd)) return before === "sale_pending" ? before : null;
    return fiscalShown(ofd) ? "sale" : "sale_pending";
  }
  if (state === STATE.cancelled) {
    if (before === "refund") return "refund";
    // Sold with the service's fiscal receipt (the gateway saw it, or the cancelled receipt still shows an `ofd`): its refund is owed one.
    const sold = before !== null || isObject(ofd);
    if (!sold) return null;
    return refundShown(ofd) ? "refund" : "refund_pending";
  }
  return before;
}

/** The event of a change of fiscal phase, if any: the missing fiscal data shown at last (a receipt's state stays as it was). */
export function fiscalEventOf(kind: KindName, before: FiscalPhase | null, after: FiscalPhase | null): EventType | null {
  const events = fiscalEventsOf(kind);
  if (!events) return null;
  if (before === "sale_pending" && after === "sale") return events.sale;
  if (before === "refund_pending" && after === "refund") return events.refund;
  return null;
}

// ---------------------------------------------------------------------------
// OTP sends (rule 6)

export interface SendFacts {
  sends: number;
  lastSentAt: number;
  waitMs: number;
}

/** Whether another OTP may be sent now: at most MAX_OTP_SENDS, each after the previous one's `wait`. */
export function otpSendRefusal(facts: SendFacts, now: number): { code: ErrorCode; message: string; retryAfterSeconds: number } | null {
  if (facts.sends >= MAX_OTP_SENDS) {
    return {
      code: "rate_limited",
      message: `At most ${MAX_OTP_SENDS} OTPs are sent for one receipt; create a new receipt.`,
      retryAfterSeconds: 3600,
    };
  }
  const waitLeft = facts.lastSentAt + facts.waitMs - now;
  if (waitLeft > 0) {
    return {
      code: "otp_resend_too_soon",
      message: "An OTP was sent moments ago; wait before asking for another.",
      retryAfterSeconds: waitLeft / 1000,
    };
  }
  return null;
}

/** Final: paid (4), cancelled (21) or closed at the edge. Held (5), awaiting the supplier (57) and unpaid (0) are not. */
export const isFinal = (facts: { state: UpstreamState; edgeClosed: boolean }): boolean =>
  facts.edgeClosed || facts.state === STATE.paid || facts.state === STATE.cancelled;

// ---------------------------------------------------------------------------
// Repeats (rule 11): what an Idempotency-Key keeps, and what a repeat answers

/** The operations that take an Idempotency-Key (creates accept one too; their tid decides: rule 1). */
export const KEYED_OPERATIONS: readonly Operation[] = ["authorize", "pay", "hold-confirm", "cancel"];

/**
 * Whether a key keeps the answer its request got: every answer after the
 * gateway acted (a success, a refusal by the table or the upstream: 402,
 * 404, 409, 422) is kept and sent again; a refusal before it acted (400,
 * 401, 403, 413, 415, 429), a busy upstream that did nothing (503) and a
 * conflict of the moment (operation_in_progress) are not, so a corrected or
 * later request may reuse the key. An unknown outcome keeps the key open:
 * the repeat asks the upstream (repeatAnswer).
 */
export function keepsAnswer(status: number, code?: ErrorCode): boolean {
  if (code === "operation_in_progress" || code === "idempotency_key_reused") return false;
  return status === 200 || status === 402 || status === 404 || status === 409 || status === 422;
}

/**
 * What a repeat answers when its first request's outcome was unknown, once
 * a fresh look shows the phase: `done` (the record as it stands is the
 * answer), or `not_done` (nothing happened: the key is spent, the answer
 * says so). Never a second call. An OTP send cannot be seen upstream:
 * `unknown_send`.
 */
export function repeatAnswer(operation: Operation, phase: Phase): "done" | "not_done" | "unknown_send" {
  switch (operation) {
    case "authorize":
      return "unknown_send";
    case "pay":
      return phase === "paid" || phase === "held" || phase === "awaiting_supplier" ? "done" : "not_done";
    case "hold-confirm":
      return phase === "paid" ? "done" : "not_done";
    case "cancel":
      return phase === "cancelled" ? "done" : "not_done";
  }
}
