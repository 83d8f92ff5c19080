/**
 * Receipts and transfers, each described once: how the upstream creates and
 * reads it, where its id is, what it is called in messages, whether it can
 * be cancelled, and how a create's answer is recognised as ours. Nothing else
 * tells the two apart by the shape of a body.
 */
import type { KindName, UpstreamState } from "./lifecycle";
import { maskPan } from "./redact";
import type { CreateReceiptInput, ReceiptBody, TransferBody } from "./schemas";
import type { UpstreamClient, UpstreamResult } from "./upstream/client";

/** A transfer create as sent upstream: `tid` settled (the `tId` alias resolved). */
export interface TransferCreate {
  tid: string;
  amount: number;
  rate_id: number;
  receiver_card: string;
  token: string;
}

export interface Kind<Body extends { tid: string; state: number }, Create extends { tid: string }> {
  name: KindName;
  /** The word messages use. */
  noun: string;
  /** Whether the upstream has a cancel for it (transfers: no; rule 2 closes them at the edge). */
  cancellable: boolean;
  idOf(body: Body): string;
  stateOf(body: Body): UpstreamState;
  /** The same body, showing `tid` as the caller chose it (rule 9: the upstream holds a derived one). */
  withTid(body: Body, tid: string): Body;
  create(upstream: UpstreamClient, input: Create): Promise<UpstreamResult<Body>>;
  /** How it stands upstream now (check-id / get-by-id). */
  read(upstream: UpstreamClient, id: string): Promise<UpstreamResult<Body>>;
  /** Whether a record the upstream already holds under our tid is the one this create asked for. */
  matches(existing: Body, input: Create): boolean;
  /** The body that came with an upstream refusal, if it was this kind's. */
  bodyOf(failure: { receipt?: ReceiptBody; transfer?: TransferBody }): Body | undefined;
}

export const RECEIPT: Kind<ReceiptBody, CreateReceiptInput> = {
  name: "receipt",
  noun: "receipt",
  cancellable: true,
  idOf: (body) => body.id,
  stateOf: (body) => body.state as UpstreamState,
  withTid: (body, tid) => (body.tid === tid ? body : { ...body, tid }),
  create: (upstream, input) => upstream.createReceipt(input),
  read: (upstream, id) => upstream.checkId(id),
  matches: (existing, input) => existing.amount === input.amount && existing.merchant.merchant_id === input.merchant_id,
  bodyOf: (failure) => failure.receipt,
};

export const TRANSFER: Kind<TransferBody, TransferCreate> = {
  name: "transfer",
  noun: "transfer",
  cancellable: false,
  idOf: (body) => body.receipt_id,
  stateOf: (body) => body.state as UpstreamState,
  withTid: (body, tid) => (body.tid === tid ? body : { ...body, tid }),
  create: (upstream, input) => upstream.createTransfer(input),
  read: (upstream, id) => upstream.getTransfer(id),
  matches: (existing, input) => existing.receiver.amount === input.amount && existing.receiver.masked_pan === maskPan(input.receiver_card),
  bodyOf: (failure) => failure.transfer,
};

export type RecordBody = ReceiptBody | TransferBody;

export const KINDS = { receipt: RECEIPT, transfer: TRANSFER } as const;

export function kindOf(name: KindName): Kind<RecordBody, { tid: string }> {
  return KINDS[name] as unknown as Kind<RecordBody, { tid: string }>;
}
