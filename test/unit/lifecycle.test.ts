// The lifecycle table, read against the contract's rules. Pure functions:
// no Worker, no upstream.
import { describe, expect, it } from "vitest";
import {
  closedAtEdge,
  countGuess,
  type DecisionContext,
  decide,
  eventForStateChange,
  exhaustedMessage,
  exhaustionCancelPending,
  type FiscalPhase,
  fiscalEventOf,
  fiscalPhaseOf,
  fiscalShown,
  guessesOf,
  isFiscalPending,
  type Operation,
  otpSendRefusal,
  otpVerdictOf,
  type Phase,
  phaseOf,
  STATE,
  upstreamCancels,
  upstreamPhase,
} from "../../src/rules/lifecycle";
import {
  backoffMs,
  fiscalReadAt,
  fiscalReadsDoneAt,
  LATE_READ_SCHEDULES,
  lateReadAt,
  lateReadsDoneAt,
  nextReconcileAt,
  recordDeletionAt,
} from "../../src/rules/schedule";

const PHASES: Phase[] = ["created", "held", "paid", "awaiting_supplier", "cancelled", "in_flight", "exhausted"];

const ctx = (overrides: Partial<DecisionContext> = {}): DecisionContext => ({
  kind: "receipt",
  caller: "partner",
  isHold: false,
  qrMerchant: false,
  holdEnabled: true,
  fresh: false,
  suspect: false,
  otpMissing: false,
  guesses: { wrong: 3, unconfirmed: 0 },
  closedAtEdge: false,
  ...overrides,
});

/** The decision as one short word: call, ask, or the refusal's code. */
const verdict = (operation: Operation, phase: Phase, overrides: Partial<DecisionContext> = {}) => {
  const d = decide(operation, phase, ctx(overrides));
  return d.do === "call" ? "call" : d.do === "ask-upstream-first" ? "ask" : d.code;
};

const table = (operation: Operation, overrides: Partial<DecisionContext> = {}) =>
  Object.fromEntries(PHASES.map((phase) => [phase, verdict(operation, phase, overrides)]));

describe("phases", () => {
  it("mirror the upstream's states, with the gateway's own two on top", () => {
    const facts = { pending: false, guesses: 0 };
    expect(phaseOf({ ...facts, state: STATE.created })).toBe("created");
    expect(phaseOf({ ...facts, state: STATE.paid })).toBe("paid");
    expect(phaseOf({ ...facts, state: STATE.held })).toBe("held");
    expect(phaseOf({ ...facts, state: STATE.cancelled })).toBe("cancelled");
    expect(phaseOf({ ...facts, state: STATE.awaitingSupplier })).toBe("awaiting_supplier");
    // A call whose outcome is not stored outranks everything: only the upstream knows.
    expect(phaseOf({ state: STATE.created, pending: true, guesses: 3 })).toBe("in_flight");
    expect(phaseOf({ state: STATE.cancelled, pending: false, guesses: 3 })).toBe("exhausted");
    expect(phaseOf({ state: STATE.created, pending: false, guesses: 2 })).toBe("created");
  });
});

describe("pay and authorize (rules 2, 3 and 8)", () => {
  it("only an unpaid receipt is paid; a paid one is never paid twice; 57 and unknown outcomes are asked about first", () => {
    const expected = {
      created: "call",
      held: "receipt_already_paid",
      paid: "receipt_already_paid",
      awaiting_supplier: "ask",
      cancelled: "receipt_cancelled",
      in_flight: "ask",
      exhausted: "otp_attempts_exhausted",
    };
    expect(table("pay")).toEqual(expected);
    expect(table("authorize")).toEqual(expected);
    expect(table("pay", { caller: "user" })).toEqual(expected);
  });

  it("after a fresh look, 57 is refused as paid", () => {
    expect(verdict("pay", "awaiting_supplier", { fresh: true })).toBe("receipt_already_paid");
  });

  it("a record suspect of a late change upstream is looked at before any money moves (rule 8)", () => {
    for (const operation of ["pay", "authorize", "cancel"] as const) {
      for (const phase of ["created", "held", "paid"] as const) expect(verdict(operation, phase, { suspect: true })).toBe("ask");
      expect(verdict(operation, "created", { suspect: true, fresh: true })).toBe(verdict(operation, "created"));
    }
    expect(verdict("hold-confirm", "held", { isHold: true, suspect: true })).toBe("ask");
  });

  it("a transfer is paid like a receipt, and has no authorize step", () => {
    expect(table("pay", { kind: "transfer" })).toEqual(table("pay"));
    expect(verdict("authorize", "created", { kind: "transfer" })).toBe("invalid_request");
  });

  it("messages name the kind", () => {
    const d = decide("pay", "cancelled", ctx({ kind: "transfer" }));
    expect(d.do === "refuse" && d.message).toMatch(/transfer is cancelled/);
  });
});

describe("hold-confirm (rule 5, partner only)", () => {
  it("confirms only a held receipt of the partner, where hold is enabled", () => {
    expect(table("hold-confirm", { isHold: true })).toEqual({
      created: "receipt_not_held",
      held: "call",
      paid: "receipt_already_paid",
      awaiting_supplier: "ask",
      cancelled: "receipt_cancelled",
      in_flight: "ask",
      exhausted: "otp_attempts_exhausted",
    });
    for (const phase of PHASES) {
      expect(verdict("hold-confirm", phase, { isHold: true, caller: "user" })).toBe("forbidden");
      expect(verdict("hold-confirm", phase, { isHold: true, holdEnabled: false })).toBe("hold_not_enabled");
      expect(verdict("hold-confirm", phase, { isHold: false })).toBe("receipt_not_held");
    }
  });
});

describe("cancel (rule 4, and users only while unpaid)", () => {
  it("the partner cancels a created, held or paid receipt; never in 21 or 57", () => {
    expect(table("cancel")).toEqual({
      created: "call",
      held: "call",
      paid: "call",
      awaiting_supplier: "ask",
      cancelled: "cancel_not_allowed",
      in_flight: "ask",
      exhausted: "cancel_not_allowed",
    });
    expect(verdict("cancel", "awaiting_supplier", { fresh: true })).toBe("cancel_not_allowed");
  });

  it("a user's cancel is never decided from a stored copy (rule 8): the upstream is asked first, whatever is stored", () => {
    expect(table("cancel", { caller: "user" })).toEqual({
      created: "ask",
      held: "ask",
      paid: "ask",
      awaiting_supplier: "ask",
      cancelled: "cancel_not_allowed",
      in_flight: "ask",
      exhausted: "cancel_not_allowed",
    });
  });

  it("a user cancels only an unpaid receipt: after the fresh look, a paid or held one is forbidden", () => {
    expect(table("cancel", { caller: "user", fresh: true })).toEqual({
      created: "call",
      held: "forbidden",
      paid: "forbidden",
      awaiting_supplier: "cancel_not_allowed",
      cancelled: "cancel_not_allowed",
      in_flight: "operation_in_progress",
      exhausted: "cancel_not_allowed",
    });
  });

  it("the gateway's own cancel (rule 2's exhaustion) has a user's rights: only an unpaid receipt; it never refunds", () => {
    expect(table("cancel", { caller: "gateway", fresh: true })).toEqual(table("cancel", { caller: "user", fresh: true }));
  });

  it("the exhaustion cancel is owed exactly where the table lets the gateway cancel, in the phase the upstream shows", () => {
    for (const state of Object.values(STATE)) {
      const owed = exhaustionCancelPending({ guesses: 3, state, upstreamCancels: true });
      expect(owed, `state ${state}`).toBe(verdict("cancel", upstreamPhase(state), { caller: "gateway", fresh: true }) === "call");
      expect(exhaustionCancelPending({ guesses: 2, state, upstreamCancels: true })).toBe(false);
      expect(exhaustionCancelPending({ guesses: 3, state, upstreamCancels: false })).toBe(false);
    }
  });

  it("QR merchants' receipts are never cancelled; transfers have no cancel", () => {
    for (const phase of ["created", "held", "paid"] as const) {
      expect(verdict("cancel", phase, { qrMerchant: true })).toBe("cancel_not_allowed");
      expect(verdict("cancel", phase, { kind: "transfer" })).toBe("cancel_not_allowed");
    }
  });
});

describe("OTP accounting (rule 2)", () => {
  it("what an answer says of the OTP it carried: an unknown refusal code is an unconfirmed guess", () => {
    const refused = (
      code: "otp_invalid" | "otp_attempts_exhausted" | "upstream_refused" | "card_declined" | "otp_expired" | "upstream_unavailable",
      judged = true,
    ) => otpVerdictOf({ ok: false, outcome: "rejected", judged, code });
    expect(otpVerdictOf({ ok: true })).toBe("accepted");
    // No answer: reconciliation decides.
    expect(otpVerdictOf({ ok: false, outcome: "unknown", judged: true, code: "upstream_timeout" })).toBeNull();
    expect(refused("otp_invalid")).toBe("wrong");
    expect(refused("otp_attempts_exhausted")).toBe("wrong");
    // It may have been judged: it counts, though the gateway cannot say it was wrong.
    expect(refused("upstream_refused", false)).toBe("unconfirmed");
    expect(refused("card_declined")).toBe("accepted");
    expect(refused("otp_expired", false)).toBe("not_judged");
    expect(refused("upstream_unavailable", false)).toBe("not_judged");
  });

  it("wrong and unconfirmed OTPs are guesses; accepted and unjudged ones are not", () => {
    let counts = { wrong: 0, unconfirmed: 0 };
    for (const v of ["not_judged", "accepted", "wrong", "not_judged", "unconfirmed"] as const) counts = countGuess(counts, v);
    expect(counts).toEqual({ wrong: 1, unconfirmed: 1 });
    expect(guessesOf(counts)).toBe(2);
  });

  it("the exhausted message says whether the guesses were wrong or partly unconfirmed", () => {
    expect(exhaustedMessage("receipt", { wrong: 3, unconfirmed: 0 })).toBe(
      "Three wrong OTPs: the receipt is closed and takes no further code; the gateway cancels it with the payment service. Create a new receipt.",
    );
    expect(exhaustedMessage("receipt", { wrong: 2, unconfirmed: 1 })).toMatch(/2 wrong, 1 whose answer was lost/);
    expect(exhaustedMessage("transfer", { wrong: 0, unconfirmed: 3 })).toMatch(/closed at the gateway/);
    // A receipt the upstream will not cancel (QR merchant, no access) is closed at the gateway too.
    expect(exhaustedMessage("receipt", { wrong: 1, unconfirmed: 2 }, true)).toMatch(
      /closed at the gateway and takes no further code\. Create a new receipt/,
    );
  });

  it("rule 6: five sends at most, each after the previous one's wait", () => {
    expect(otpSendRefusal({ sends: 0, lastSentAt: 0, waitMs: 0 }, 1000)).toBeNull();
    expect(otpSendRefusal({ sends: 1, lastSentAt: 1000, waitMs: 60_000 }, 31_000)).toMatchObject({
      code: "otp_resend_too_soon",
      retryAfterSeconds: 30,
    });
    expect(otpSendRefusal({ sends: 1, lastSentAt: 1000, waitMs: 60_000 }, 61_000)).toBeNull();
    expect(otpSendRefusal({ sends: 5, lastSentAt: 0, waitMs: 0 }, 1_000_000)).toMatchObject({ code: "rate_limited" });
  });
});

describe("events", () => {
  it("each change of state is one event; no change, no event", () => {
    expect(eventForStateChange("receipt", 0, 4)).toBe("receipt.paid");
    expect(eventForStateChange("receipt", 0, 5)).toBe("receipt.held");
    expect(eventForStateChange("receipt", 5, 4)).toBe("receipt.paid");
    expect(eventForStateChange("receipt", 0, 57)).toBe("receipt.awaiting_supplier");
    expect(eventForStateChange("receipt", 57, 4)).toBe("receipt.paid");
    expect(eventForStateChange("receipt", 4, 21)).toBe("receipt.cancelled");
    expect(eventForStateChange("transfer", 0, 4)).toBe("transfer.paid");
    expect(eventForStateChange("transfer", 0, 21)).toBe("transfer.cancelled");
    expect(eventForStateChange("receipt", 4, 4)).toBeNull();
  });
});

describe("reconciliation schedule (rule 8)", () => {
  const base = { exhaustionCancelPending: false, attempts: 0, pendingSince: 0, upstreamTimeoutMs: 10_000, lateReadAt: null };

  it("a call in flight is looked at once it must have ended, then with backoff capped at a minute", () => {
    expect(nextReconcileAt({ ...base, phase: "in_flight", pendingSince: 1000 }, 1000)).toBe(12_000);
    expect(nextReconcileAt({ ...base, phase: "in_flight", attempts: 3 }, 100_000)).toBe(108_000);
    expect(backoffMs(20)).toBe(60_000);
    // The first look after any fault comes within the minute rule 8 allows.
    expect(nextReconcileAt({ ...base, phase: "in_flight", pendingSince: 0, upstreamTimeoutMs: 10_000 }, 0)! - 0).toBeLessThan(60_000);
  });

  it("57 is polled; an unconfirmed exhaustion cancel is retried; a settled record needs nothing", () => {
    expect(nextReconcileAt({ ...base, phase: "awaiting_supplier" }, 0)).toBe(5000);
    expect(nextReconcileAt({ ...base, phase: "exhausted", exhaustionCancelPending: true, attempts: 1 }, 0)).toBe(2000);
    for (const phase of ["created", "held", "paid", "cancelled"] as const) expect(nextReconcileAt({ ...base, phase }, 0)).toBeNull();
  });
});

describe("late reads (rule 8's late upstream)", () => {
  const minute = 60_000;

  it("production reads a suspect record again 1 min, 10 min, 1 h and 24 h after the call; development within 2 minutes", () => {
    const schedule = LATE_READ_SCHEDULES.production;
    const times: number[] = [];
    let suspect = { since: 1_000, reads: 0 };
    for (let at = lateReadAt(suspect, schedule); at !== null; at = lateReadAt(suspect, schedule)) {
      times.push(at - 1_000);
      suspect = lateReadsDoneAt(suspect, schedule, at);
    }
    expect(times).toEqual([minute, 10 * minute, 60 * minute, 24 * 60 * minute]);
    expect(suspect).toEqual({ since: 0, reads: 0 });
    expect(Math.max(...LATE_READ_SCHEDULES.development)).toBeLessThanOrEqual(2 * minute);
  });

  it("a look made for any reason counts as every late read due by then, and none not yet due", () => {
    const schedule = LATE_READ_SCHEDULES.production;
    expect(lateReadsDoneAt({ since: 0, reads: 0 }, schedule, 10 * minute)).toEqual({ since: 0, reads: 0 });
    expect(lateReadsDoneAt({ since: 0 + 1, reads: 0 }, schedule, 30_000)).toEqual({ since: 1, reads: 0 });
    expect(lateReadsDoneAt({ since: 1, reads: 0 }, schedule, 11 * minute)).toEqual({ since: 1, reads: 2 });
  });

  it("the alarm is set for the next late read, or sooner for anything else owed", () => {
    const base = { exhaustionCancelPending: false, attempts: 0, pendingSince: 0, upstreamTimeoutMs: 10_000 };
    expect(nextReconcileAt({ ...base, phase: "created", lateReadAt: 70_000 }, 10_000)).toBe(70_000);
    expect(nextReconcileAt({ ...base, phase: "awaiting_supplier", lateReadAt: 70_000 }, 10_000)).toBe(15_000);
    // A late read that failed backs off.
    expect(nextReconcileAt({ ...base, phase: "paid", lateReadAt: 70_000, attempts: 6 }, 70_000)).toBe(130_000);
  });
});

describe("closed at the edge (rule 2): guesses ran out and the upstream will not cancel it", () => {
  it("a transfer, a QR merchant's receipt, or a receipt whose cancel the upstream refused for good; never before three guesses", () => {
    const closed = (kind: "receipt" | "transfer", qrMerchant: boolean, cancelRefused: boolean, guesses: number) =>
      closedAtEdge({ guesses, upstreamCancels: upstreamCancels({ kind, qrMerchant, cancelRefused }) });
    expect(closed("transfer", false, false, 3)).toBe(true);
    expect(closed("receipt", true, false, 3)).toBe(true);
    expect(closed("receipt", false, true, 3)).toBe(true);
    expect(closed("receipt", false, false, 3)).toBe(false);
    expect(closed("transfer", false, false, 2)).toBe(false);
    expect(closed("receipt", true, false, 2)).toBe(false);
  });
});

describe("rule 10: when a record is deleted", () => {
  const FINAL = { state: STATE.paid, edgeClosed: false, pending: false, suspect: false, unsentEvents: false, changedAt: 1000 };
  it("a final record that owes nothing: the window after its last change", () => {
    expect(recordDeletionAt(FINAL, 500)).toBe(1500);
    expect(recordDeletionAt({ ...FINAL, state: STATE.cancelled }, 500)).toBe(1500);
    expect(recordDeletionAt({ ...FINAL, state: STATE.created, edgeClosed: true }, 500)).toBe(1500);
  });
  it("never while it is not final (0, 5, 57) or owes something (a call in flight, suspect, events in its outbox)", () => {
    for (const state of [STATE.created, STATE.held, STATE.awaitingSupplier]) expect(recordDeletionAt({ ...FINAL, state }, 500)).toBeNull();
    expect(recordDeletionAt({ ...FINAL, pending: true }, 500)).toBeNull();
    expect(recordDeletionAt({ ...FINAL, suspect: true }, 500)).toBeNull();
    expect(recordDeletionAt({ ...FINAL, unsentEvents: true }, 500)).toBeNull();
  });
  it("never while its fiscal data is missing (rule 14), nor while the fiscal list does not show it as it stands", () => {
    expect(recordDeletionAt({ ...FINAL, fiscalPending: true }, 500)).toBeNull();
    expect(recordDeletionAt({ ...FINAL, state: STATE.cancelled, fiscalPending: true }, 500)).toBeNull();
    expect(recordDeletionAt({ ...FINAL, listingOwed: true }, 500)).toBeNull();
  });
});

describe("rule 14: a receipt's fiscal phase", () => {
  const SIGNED = { fiscalSign: "987796477570", qrCodeUrl: "https://ofd.soliq.uz/check?s=987796477570", type: "Sale" };
  const UNSIGNED = { ...SIGNED, fiscalSign: "", qrCodeUrl: "" };
  const REFUND = { ...SIGNED, fiscalSign: "245977760765", type: "Refund" };
  const phase = (state: number, ofd: unknown, before: FiscalPhase | null = null, kind: "receipt" | "transfer" = "receipt") =>
    fiscalPhaseOf({ kind, state: state as 0 | 4 | 5 | 21 | 57, ofd, before });

  it("fiscal data is shown when the ofd has a fiscal sign and a QR address, both", () => {
    expect(fiscalShown(SIGNED)).toBe(true);
    for (const ofd of [
      null,
      undefined,
      "x",
      [],
      {},
      UNSIGNED,
      { ...SIGNED, fiscalSign: " " },
      { ...SIGNED, qrCodeUrl: null },
      { ...SIGNED, fiscalSign: 1 },
    ]) {
      expect(fiscalShown(ofd), JSON.stringify(ofd)).toBe(false);
    }
  });

  it("paid: pending until the ofd shows the data, then the sale's; an ofd of null is no receipt the payment service fiscalizes; never taken back", () => {
    expect(phase(STATE.paid, UNSIGNED)).toBe("sale_pending");
    expect(phase(STATE.paid, { ...SIGNED, qrCodeUrl: "" })).toBe("sale_pending");
    expect(phase(STATE.paid, SIGNED)).toBe("sale");
    expect(phase(STATE.paid, SIGNED, "sale_pending")).toBe("sale");
    expect(phase(STATE.paid, null)).toBeNull();
    expect(phase(STATE.paid, UNSIGNED, "sale")).toBe("sale");
    expect(phase(STATE.paid, null, "sale_pending")).toBe("sale_pending");
  });

  it("cancelled after a fiscalized sale: the refund's is owed until an ofd other than the sale's shows it; a sale never fiscalized owes none", () => {
    for (const before of ["sale", "sale_pending", null] as const) {
      expect(phase(STATE.cancelled, { ...REFUND, fiscalSign: "" }, before), String(before)).toBe("refund_pending");
      expect(phase(STATE.cancelled, REFUND, before), String(before)).toBe("refund");
    }
    // The service still shows the sale's fiscal receipt: the refund's is not there yet.
    expect(phase(STATE.cancelled, SIGNED, "sale")).toBe("refund_pending");
    expect(phase(STATE.cancelled, null, "sale")).toBe("refund_pending");
    expect(phase(STATE.cancelled, REFUND, "refund_pending")).toBe("refund");
    expect(phase(STATE.cancelled, UNSIGNED, "refund")).toBe("refund");
    // Never paid (a hold released, the supplier's refusal, expired unpaid): nothing fiscal.
    expect(phase(STATE.cancelled, null)).toBeNull();
  });

  it("unpaid, held, awaiting the supplier, and every transfer: nothing fiscal", () => {
    for (const state of [STATE.created, STATE.held, STATE.awaitingSupplier]) expect(phase(state, UNSIGNED)).toBeNull();
    expect(phase(STATE.paid, UNSIGNED, null, "transfer")).toBeNull();
    expect(phase(STATE.cancelled, UNSIGNED, null, "transfer")).toBeNull();
  });

  it("the data shown at last is one event, the sale's or the refund's; nothing else is", () => {
    expect(fiscalEventOf("receipt", "sale_pending", "sale")).toBe("receipt.fiscalized");
    expect(fiscalEventOf("receipt", "refund_pending", "refund")).toBe("receipt.refund_fiscalized");
    expect(fiscalEventOf("receipt", null, "sale")).toBeNull();
    expect(fiscalEventOf("receipt", "sale_pending", "refund")).toBeNull();
    expect(fiscalEventOf("receipt", "sale_pending", "refund_pending")).toBeNull();
    expect(fiscalEventOf("receipt", "sale", "refund")).toBeNull();
    expect(fiscalEventOf("transfer", "sale_pending", "sale")).toBeNull();
    expect(["sale_pending", "refund_pending"].map((p) => isFiscalPending(p as FiscalPhase))).toEqual([true, true]);
    expect(["sale", "refund", null].map((p) => isFiscalPending(p as FiscalPhase | null))).toEqual([false, false, false]);
  });

  it("the reads follow the schedule from the payment or refund; a look counts as every read due by then; after the last, none", () => {
    const schedule = [300_000, 3_600_000, 86_400_000];
    const times: number[] = [];
    let watch = { since: 1_000, reads: 0 };
    for (let at = fiscalReadAt(watch, schedule); at !== null; at = fiscalReadAt(watch, schedule)) {
      times.push(at - 1_000);
      watch = { ...watch, reads: fiscalReadsDoneAt(watch, schedule, at) };
    }
    expect(times).toEqual(schedule);
    expect(watch).toEqual({ since: 1_000, reads: 3 });
    expect(fiscalReadsDoneAt({ since: 1_000, reads: 0 }, schedule, 1_000 + 299_999)).toBe(0);
    expect(fiscalReadsDoneAt({ since: 1_000, reads: 0 }, schedule, 1_000 + 4_000_000)).toBe(2);
  });
});
