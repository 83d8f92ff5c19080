/**
 * The sandbox's side of the test clocks and triggers (docs/testing-your-app.md):
 * a receipt's or transfer's own time moves forward (its row's
 * clock_offset_ms, read by every rule through nowOf), and what the upstream
 * would have done meanwhile takes effect as the deadlines of
 * src/sandbox/clockwork.ts always do, at their own times; or the upstream
 * acts now on what it had left for later. The gateway is told nothing: it
 * finds every change as it would in production, by reading.
 */
import { type Failure, fail, type Outcome, ok } from "./answers";
import { nowOf, type SandboxStore } from "./store";
import { type ReceiptRow, State, type TransferRow } from "./wire";

export type SandboxKind = "receipts" | "transfers";

/** What the sandbox did on its own while a record's time moved, at that record's time. */
export interface SandboxHappening {
  at: number;
  what: "otp_expired" | "supplier_confirmed" | "supplier_failed" | "paid_late" | "fiscal_data_appeared";
}

export const TRIGGERS = ["pay_late", "supplier_confirms", "supplier_fails", "fiscal_data_appears", "refund_fiscal_data_appears"] as const;
export type Trigger = (typeof TRIGGERS)[number];

const rowOf = (store: SandboxStore, kind: SandboxKind, id: string): ReceiptRow | TransferRow | undefined =>
  kind === "receipts" ? store.receipt(id, false) : store.transfer(id, false);

/** When the OTP last sent for a receipt stops being right; null when none is live. */
const otpEndsAt = (r: ReceiptRow, otpTtlMs: number): number | null => (r.otp_sent_ms === null ? null : r.otp_sent_ms + otpTtlMs);

/** The record's own deadlines, in its time: what the sandbox will do on its own, and when. */
function deadlines(row: ReceiptRow | TransferRow, otpTtlMs: number): number[] {
  const now = nowOf(row);
  const due = [row.late_pay_due_ms];
  if ("supplier_due_ms" in row) {
    due.push(row.supplier_due_ms, row.fiscal_due_ms);
    const otpEnd = row.state === State.created ? otpEndsAt(row, otpTtlMs) : null;
    if (otpEnd !== null && otpEnd > now) due.push(otpEnd);
  }
  return due.filter((at): at is number => at !== null);
}

/** How long, in the record's own time, until the sandbox next does something on its own for it; null when nothing is left to do; undefined when there is no such record. */
export function nextDue(store: SandboxStore, kind: SandboxKind, id: string, otpTtlMs: number): number | null | undefined {
  const row = rowOf(store, kind, id);
  if (!row) return undefined;
  const due = deadlines(row, otpTtlMs);
  return due.length === 0 ? null : Math.max(0, Math.min(...due) - nowOf(row));
}

/**
 * Moves the record's own time `byMs` forward and lets what fell due take
 * effect (a read settles it, as any read does). Answers what happened, in
 * order; undefined when there is no such record.
 */
export function advance(store: SandboxStore, kind: SandboxKind, id: string, byMs: number, otpTtlMs: number): SandboxHappening[] | undefined {
  const before = rowOf(store, kind, id);
  if (!before) return undefined;
  const offset = before.clock_offset_ms + byMs;
  if (kind === "receipts") store.update("receipts", id, { clock_offset_ms: offset });
  else store.update("transfers", id, { clock_offset_ms: offset });
  const now = nowOf({ clock_offset_ms: offset });
  const after = kind === "receipts" ? store.receipt(id)! : store.transfer(id)!;
  const happened: SandboxHappening[] = [];
  if ("supplier_due_ms" in before && "supplier_due_ms" in after) {
    const otpEnd = before.state === State.created ? otpEndsAt(before, otpTtlMs) : null;
    if (otpEnd !== null && otpEnd > nowOf(before) && otpEnd <= now) happened.push({ at: otpEnd, what: "otp_expired" });
    if (before.supplier_due_ms !== null && after.supplier_due_ms === null) {
      happened.push({ at: before.supplier_due_ms, what: after.state === State.cancelled ? "supplier_failed" : "supplier_confirmed" });
    }
    if (before.fiscal_due_ms !== null && after.fiscal_due_ms === null) happened.push({ at: before.fiscal_due_ms, what: "fiscal_data_appeared" });
  }
  if (before.late_pay_due_ms !== null && after.late_pay_due_ms === null && after.state !== before.state) {
    happened.push({ at: before.late_pay_due_ms, what: "paid_late" });
  }
  return happened.sort((a, b) => a.at - b.at);
}

/** Why a trigger cannot act on this receipt as it stands: it has nothing of that kind left for later. */
const notApplicable = (what: Trigger, why: string): Failure => fail(400, "TRIGGER_NOT_APPLICABLE", `${what}: ${why}`);

/**
 * The upstream acts now on what it had left for later: a lost pay lands, the
 * supplier answers a receipt in 57 (as it is told to, whatever the card), or
 * the fiscal data of a sale or a refund appears. Only the deadline moves:
 * the change itself is the one clockwork makes at a deadline, and the
 * gateway finds it by reading, as in production.
 */
export function trigger(store: SandboxStore, id: string, what: Trigger): Outcome<{ id: string; what: Trigger; state: number }> {
  const r = store.receipt(id);
  if (!r) return fail(404, "RECEIPT_NOT_FOUND", "No receipt with this id");
  const now = nowOf(r);
  switch (what) {
    case "pay_late":
      if (r.late_pay_due_ms === null) return notApplicable(what, "no pay of this receipt is lost upstream (pay it with tok_sandbox_pays_late first)");
      store.update("receipts", id, { late_pay_due_ms: now });
      break;
    case "supplier_confirms":
    case "supplier_fails":
      if (r.state !== State.supplierPending) return notApplicable(what, `the receipt is in state ${r.state}, not 57 (awaiting the supplier)`);
      store.update("receipts", id, { supplier_due_ms: now, card_behaviour: what === "supplier_fails" ? "supplier_fails" : "supplier_pending" });
      break;
    case "fiscal_data_appears":
    case "refund_fiscal_data_appears": {
      const refund = what === "refund_fiscal_data_appears";
      const waiting = r.fiscal_due_ms !== null && (r.state === State.cancelled) === refund;
      if (!waiting) {
        return notApplicable(
          what,
          `the receipt's ${refund ? "refund" : "sale"} has no fiscal data still to come (a tok_sandbox_fiscal_late ${refund ? "payment, cancelled" : "payment"})`,
        );
      }
      store.update("receipts", id, { fiscal_due_ms: now });
      break;
    }
  }
  return ok({ id, what, state: store.receipt(id)!.state });
}
