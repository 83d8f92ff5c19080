/**
 * What the sandbox does on its own time, applied lazily and deterministically:
 * a deadline that has passed takes effect the moment anything reads the
 * record, before the read sees it. No alarm, no timer. Each function answers
 * the columns to write, or null when nothing is due.
 */
import { cardByToken, tokenOfBehaviour } from "./catalog";
import { fiscalAnswered, type Ofd, type ReceiptRow, State, saleOfd, type TransferRow } from "./wire";

/** A duration setting in ms (SANDBOX_*_MS), or its default when unset or not a number. */
export function msSetting(value: string | undefined, fallback: number): number {
  const ms = Number(value ?? fallback);
  return Number.isFinite(ms) && ms >= 0 ? ms : fallback;
}

/** The supplier of a 57 receipt answers at its deadline (tok_sandbox_supplier_pending, tok_sandbox_supplier_fails). */
export function supplierAnswer(r: ReceiptRow, now: number): Partial<ReceiptRow> | null {
  if (r.state !== State.supplierPending || r.supplier_due_ms === null || now < r.supplier_due_ms) return null;
  const at = r.supplier_due_ms;
  if (r.card_behaviour === "supplier_fails") {
    // Never fiscalized as a sale, so there is no fiscal receipt to refund: ofd stays null.
    return {
      state: State.cancelled,
      cancelled_ms: at,
      supplier_due_ms: null,
      error: "The supplier refused the payment; the amount is refunded to the card",
      ...(r.is_hold === 1 ? { hold_status: "released" } : {}),
    };
  }
  // As a normal pay of a hold receipt: held, no pay_date and no ofd until hold-confirm.
  if (r.is_hold === 1) return { state: State.held, hold_status: "held", paid_ms: null, supplier_due_ms: null };
  // pay_date stays the time of the charge; the Sale is fiscalized when the supplier confirms.
  return { state: State.paid, paid_ms: r.paid_ms ?? at, ofd: JSON.stringify(saleOfd(r, at)), supplier_due_ms: null };
}

/**
 * A tok_sandbox_pays_late pay takes effect at its deadline: the receipt is
 * paid (held, for a hold receipt), dated at the deadline. A receipt no longer
 * in 0 by then (cancelled, or paid by a later call) stays as it is: nothing is
 * paid twice.
 */
export function latePay(r: ReceiptRow, now: number, rrn: () => string): Partial<ReceiptRow> | null {
  if (r.late_pay_due_ms === null || now < r.late_pay_due_ms) return null;
  const at = r.late_pay_due_ms;
  if (r.state !== State.created) return { late_pay_due_ms: null };
  const charged = {
    late_pay_due_ms: null,
    error: null,
    rrn: rrn(),
    card_behaviour: "pays_late",
    card_number: cardByToken(tokenOfBehaviour("pays_late"))!.masked_pan,
  };
  return r.is_hold === 1
    ? { ...charged, state: State.held, hold_status: "held" }
    : { ...charged, state: State.paid, paid_ms: at, ofd: JSON.stringify(saleOfd(r, at)) };
}

/**
 * The fiscal data operator answers a tok_sandbox_fiscal_late sale or refund
 * at its deadline: the receipt's `ofd` (the sale's, or the refund's if it
 * was cancelled meanwhile) gets its fiscal sign and QR address.
 */
export function fiscalData(r: ReceiptRow, now: number): Partial<ReceiptRow> | null {
  if (r.fiscal_due_ms === null || now < r.fiscal_due_ms) return null;
  if (r.ofd === null) return { fiscal_due_ms: null };
  return { fiscal_due_ms: null, ofd: JSON.stringify(fiscalAnswered(JSON.parse(r.ofd) as Ofd)) };
}

/** The same for a transfer with the pays_late sender. */
export function lateTransferPay(t: TransferRow, now: number): Partial<TransferRow> | null {
  if (t.late_pay_due_ms === null || now < t.late_pay_due_ms) return null;
  return t.state === State.created ? { late_pay_due_ms: null, state: State.paid, paid_ms: t.late_pay_due_ms, error: "" } : { late_pay_due_ms: null };
}
