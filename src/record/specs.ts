/**
 * The money moves, as data: for each operation that may move money or send
 * an SMS, its operation in the lifecycle table, the OTP its call carries and
 * the call. src/record/move.ts runs every one through the same steps.
 */

import type { AuthorizeBody, NumberCardInput, ReceiptBody, ReducedReceiptBody, TokenCardInput, TransferBody } from "../api/schemas";
import type { RiskUses } from "../risk/check";
import type { RecordBody } from "../rules/kinds";
import { type Operation, otpToSend } from "../rules/lifecycle";
import type { UpstreamResult } from "../upstream/calls";
import type { UpstreamClient } from "../upstream/client";
import type { RecordRow } from "./store";

/** What a state-changing call answers: the record's body as the payment service shows it. */
export type StateBody = RecordBody | ReducedReceiptBody;

/** A money move, as data: its operation in the lifecycle table, the OTP its call carries, any limit of its own, and the call. */
interface MoveSteps<I, T> {
  operation: Operation;
  /** The OTP the call carries: undefined when none is needed, false when one is needed and missing. */
  otp?: (rec: RecordRow, input: I) => string | undefined | false;
  call: (upstream: UpstreamClient, rec: RecordRow, input: I, otp: string | undefined) => Promise<UpstreamResult<T>>;
  /** What rule 13 counts of a user's call (src/risk/check.ts): the card it uses, and whether it sends an OTP. */
  risk?: (input: I) => RiskUses | undefined;
}

/** An OTP send, which changes no state (an unknown outcome may have sent an SMS: it counts against rule 6's limits). */
export interface SendSpec<I> extends MoveSteps<I, AuthorizeBody> {
  settles: "send";
}

/** A change of the record: the answer is the record (an unknown outcome keeps the note for the reconciler). */
export interface StateSpec<I, T extends StateBody> extends MoveSteps<I, T> {
  settles: "state";
}

export type MoveSpec<I> = SendSpec<I> | StateSpec<I, StateBody>;

/** A call's result as settling reads it: the kind of move tells what its value is. */
export type Called =
  | { settles: "send"; operation: Operation; result: UpstreamResult<AuthorizeBody> }
  | { settles: "state"; operation: Operation; result: UpstreamResult<StateBody> };

/** Calls the upstream as the spec says; the result comes back with the kind of move it settles as. */
export async function callOf<I>(spec: MoveSpec<I>, upstream: UpstreamClient, rec: RecordRow, input: I, otp: string | undefined): Promise<Called> {
  const { operation } = spec;
  if (spec.settles === "send") return { settles: "send", operation, result: await spec.call(upstream, rec, input, otp) };
  return { settles: "state", operation, result: await spec.call(upstream, rec, input, otp) };
}

type Card = TokenCardInput | NumberCardInput;

export const AUTHORIZE: SendSpec<{ card: Card }> = {
  operation: "authorize",
  call: (upstream, rec, input) => upstream.authorize(rec.id, input.card),
  settles: "send",
  // Every send counts for the user and the card (its number's or its token's fingerprint); a number is also a use of it.
  risk: ({ card }) => ({ card, otpSend: true }),
};

export const PAY: StateSpec<{ card: Card; otp?: string }, ReceiptBody | ReducedReceiptBody> = {
  operation: "pay",
  otp: (rec, input) => otpToSend("number" in input.card || rec.is_verify === 1, input.otp),
  call: (upstream, rec, { card }, otp) => ("number" in card ? upstream.anonymousPay(rec.id, card, otp ?? "") : upstream.pay(rec.id, card, otp)),
  settles: "state",
  // A card number is a use of it; a token pay sends no OTP and names no number.
  risk: ({ card }) => ("number" in card ? { card } : undefined),
};

export const PAY_TRANSFER: StateSpec<{ otp?: string }, TransferBody> = {
  operation: "pay",
  otp: (rec, input) => otpToSend(rec.is_verify === 1, input.otp),
  call: (upstream, rec, _input, otp) => upstream.payTransfer(rec.id, otp),
  settles: "state",
};

export const HOLD_CONFIRM: StateSpec<unknown, ReceiptBody> = {
  operation: "hold-confirm",
  call: (upstream, rec) => upstream.holdConfirm(rec.id),
  settles: "state",
};

export const CANCEL: StateSpec<{ reason?: string; cancelledBy?: string }, ReceiptBody> = {
  operation: "cancel",
  call: (upstream, rec, input) => upstream.cancel(rec.id, input.reason, input.cancelledBy),
  settles: "state",
};
