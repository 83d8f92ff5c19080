/**
 * What a line of the daily statement is (rule 16): an event of a change of
 * a receipt or transfer to a final or money-moving state, and the fields the
 * line shows, taken from the event when it is logged (the event log's
 * columns, migrations/0005_statement_fields.sql) or, for a row an older
 * release logged without them, from its body.
 */

import { KINDS } from "../rules/kinds";
import type { GatewayEvent } from "./types";

/** The changes a line may be, by the code the event log stores (never reused or renumbered). */
export const STATEMENT_CHANGES = { paid: 1, held: 2, cancelled: 3, refunded: 4, expired: 5, closed_at_edge: 6 } as const;
export type StatementChange = keyof typeof STATEMENT_CHANGES;
export const CHANGE_OF_CODE = new Map(Object.entries(STATEMENT_CHANGES).map(([name, code]) => [code as number, name as StatementChange]));

/** The event types that may be lines (for rows logged without their change). */
export const LINE_EVENT_TYPES = [
  "receipt.paid",
  "receipt.held",
  "receipt.cancelled",
  "transfer.paid",
  "transfer.cancelled",
  "transfer.expired",
  "transfer.otp_attempts_exhausted",
] as const;

/** Which change an event is, or null when it is no line of a statement. */
export function statementChange(event: GatewayEvent): StatementChange | null {
  switch (event.type) {
    case "receipt.paid":
    case "transfer.paid":
      return "paid";
    case "receipt.held":
      return "held";
    case "transfer.expired":
      return "expired";
    case "transfer.otp_attempts_exhausted":
      return "closed_at_edge";
    case "transfer.cancelled":
      return "cancelled";
    case "receipt.cancelled": {
      if (event.data.closed_at_edge) return "closed_at_edge";
      if (event.data.reason === "expired" || event.data.reason === "hold_expired") return "expired";
      // The money came back: a paid receipt, or one whose supplier refused after the debit (57).
      if (event.data.previous_state === 4 || event.data.previous_state === 57) return "refunded";
      return "cancelled";
    }
    default:
      return null;
  }
}

export interface LineFields {
  change: StatementChange;
  amount: number | null;
  commission: number | null;
  merchant: number | null;
  tid: string | null;
  owner: string;
  state: number | null;
  fiscal_sign: string | null;
}

const num = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null);

/** A receipt's or transfer's body, read field by field (what the payment service sent, normalized). */
interface BodyFields {
  amount?: unknown;
  commission?: unknown;
  tid?: unknown;
  state?: unknown;
  sender?: { commission?: unknown } | null;
  receiver?: { amount?: unknown } | null;
  merchant?: { merchant_id?: unknown } | null;
  ofd?: { fiscalSign?: unknown } | null;
}

/** A body's commission in tiyin: a receipt's own; a transfer's, the sender's (what the payer is charged). */
export function commissionOf(kind: "receipt" | "transfer", object: BodyFields): number | null {
  return num(object.commission ?? (kind === "transfer" ? object.sender?.commission : undefined));
}

/** The line an event makes, or null. */
export function lineFields(event: GatewayEvent): LineFields | null {
  const change = statementChange(event);
  if (!change) return null;
  const object = event.data.object as unknown as BodyFields;
  const kind = event.type.startsWith("transfer.") ? KINDS.transfer : KINDS.receipt;
  const isTransfer = kind.name === "transfer";
  return {
    change,
    amount: num(isTransfer ? object.receiver?.amount : object.amount),
    commission: commissionOf(kind.name, object),
    merchant: isTransfer ? null : num(object.merchant?.merchant_id),
    tid: typeof object.tid === "string" ? object.tid : null,
    owner: event.data.owner,
    state: num(object.state),
    fiscal_sign: typeof object.ofd?.fiscalSign === "string" && object.ofd.fiscalSign.trim() !== "" ? object.ofd.fiscalSign : null,
  };
}
