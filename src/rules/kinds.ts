/**
 * Receipts and transfers, each described once: what messages call it, where
 * its id is, which steps it has (authorize, hold, cancel), its events, how
 * the upstream creates and reads it, and how a create's answer is recognised
 * as ours. The lifecycle, the events, creation, the receipt's object and the
 * operations read this; nothing else tells the two apart.
 *
 * Near the ground on purpose (it imports only types, the upstream's states
 * and the masking of card numbers), so that the lifecycle can read it: the
 * upstream calls are named by src/upstream/calls.ts, which the client
 * implements.
 */

import type { CreateReceiptInput, ReceiptBody, TransferBody } from "../api/schemas";
import { maskPan } from "../shared/redact";
import { type RecordCalls, STATE, type TransferCreate, type UpstreamResult, type UpstreamState } from "../upstream/calls";

/** The upstream's states stay readable here, where the lifecycle looks for them beside the kinds. */

export type KindName = "receipt" | "transfer";

/**
 * A kind's events (the contract's Events section): its create, its third
 * failed OTP guess, its expiry closed at the edge (rule 12), the changes
 * of upstream state that are events, and (receipts: the payment service
 * fiscalizes them) its fiscal data shown late (rule 14).
 * src/events/types.ts says when each fires, for the README and the document.
 */
interface KindEvents<Name extends KindName> {
  created: `${Name}.created`;
  exhausted: `${Name}.otp_attempts_exhausted`;
  /** Rule 12's expiry closed it at the edge (no cancel upstream, or one refused for good). */
  expiredAtEdge: `${Name}.${string}`;
  onState: { readonly [S in UpstreamState]?: `${Name}.${string}` };
  /** Rule 14: the sale's and the refund's fiscal data, shown after the gateway found them missing. */
  fiscal?: { sale: `${Name}.${string}`; refund: `${Name}.${string}` };
}

export interface Kind<Body extends { tid: string; state: number }, Create extends { tid: string }> {
  name: KindName;
  /** The word messages use. */
  noun: string;
  /** The answer's field that holds its id. */
  idField: "id" | "receipt_id";
  /** The operations that read one, as messages name them. */
  readWith: string;
  /** Whether an OTP is sent on demand (authorize); a transfer's is sent by its create. */
  authorizes: boolean;
  /** Whether it can be created with is_hold, and its hold confirmed. */
  holds: boolean;
  /** Whether the upstream has a cancel for it (transfers: no; rule 2 closes them at the edge). */
  cancellable: boolean;
  events: KindEvents<KindName>;
  idOf(body: Body): string;
  stateOf(body: Body): UpstreamState;
  /** The same body, showing `tid` as the caller chose it (rule 9: the upstream holds a derived one). */
  withTid(body: Body, tid: string): Body;
  create(upstream: RecordCalls, input: Create): Promise<UpstreamResult<Body>>;
  /** How it stands upstream now (check-id / get-by-id). */
  read(upstream: RecordCalls, id: string): Promise<UpstreamResult<Body>>;
  /** Whether a record the upstream already holds under our tid is the one this create asked for. */
  matches(existing: Body, input: Create): boolean;
  /** The body that came with an upstream refusal, if it was this kind's. */
  bodyOf(failure: { receipt?: ReceiptBody; transfer?: TransferBody }): Body | undefined;
  /** Whether this create asks for a hold. */
  holdOf(input: Create): boolean;
  /** The merchant the create is for, if it names one (QR merchants' receipts are never cancelled). */
  merchantOf(input: Create): number | undefined;
  /** When the upstream created it (ms). */
  createdAtOf(body: Body): number;
  /** Its amount (a transfer's: what the receiver gets). */
  amountOf(body: Body): number;
  /** The merchant a body names, if any. */
  merchantOfBody(body: Body): number | undefined;
}

export const RECEIPT = {
  name: "receipt",
  noun: "receipt",
  idField: "id",
  readWith: "check-id or check-tid",
  authorizes: true,
  holds: true,
  cancellable: true,
  events: {
    created: "receipt.created",
    exhausted: "receipt.otp_attempts_exhausted",
    // A receipt the upstream would not cancel is still cancelled for the partner, with data.closed_at_edge.
    expiredAtEdge: "receipt.cancelled",
    onState: {
      [STATE.paid]: "receipt.paid",
      [STATE.held]: "receipt.held",
      [STATE.awaitingSupplier]: "receipt.awaiting_supplier",
      [STATE.cancelled]: "receipt.cancelled",
    },
    fiscal: { sale: "receipt.fiscalized", refund: "receipt.refund_fiscalized" },
  },
  idOf: (body) => body.id,
  stateOf: (body) => body.state as UpstreamState,
  withTid: (body, tid) => (body.tid === tid ? body : { ...body, tid }),
  create: (upstream, input) => upstream.createReceipt(input),
  read: (upstream, id) => upstream.checkId(id),
  matches: (existing, input) => existing.amount === input.amount && existing.merchant.merchant_id === input.merchant_id,
  bodyOf: (failure) => failure.receipt,
  holdOf: (input) => input.is_hold,
  merchantOf: (input) => input.merchant_id,
  createdAtOf: (body) => body.create_date,
  amountOf: (body) => body.amount,
  merchantOfBody: (body) => body.merchant.merchant_id,
} as const satisfies Kind<ReceiptBody, CreateReceiptInput> & { events: KindEvents<"receipt"> };

export const TRANSFER = {
  name: "transfer",
  noun: "transfer",
  idField: "receipt_id",
  readWith: "a2c/get-by-id",
  authorizes: false,
  holds: false,
  cancellable: false,
  events: {
    created: "transfer.created",
    exhausted: "transfer.otp_attempts_exhausted",
    expiredAtEdge: "transfer.expired",
    onState: { [STATE.paid]: "transfer.paid", [STATE.cancelled]: "transfer.cancelled" },
  },
  idOf: (body) => body.receipt_id,
  stateOf: (body) => body.state as UpstreamState,
  withTid: (body, tid) => (body.tid === tid ? body : { ...body, tid }),
  create: (upstream, input) => upstream.createTransfer(input),
  read: (upstream, id) => upstream.getTransfer(id),
  matches: (existing, input) => existing.receiver.amount === input.amount && existing.receiver.masked_pan === maskPan(input.receiver_card),
  bodyOf: (failure) => failure.transfer,
  holdOf: () => false,
  merchantOf: () => undefined,
  createdAtOf: (body) => body.created_date,
  amountOf: (body) => body.receiver.amount,
  merchantOfBody: () => undefined,
} as const satisfies Kind<TransferBody, TransferCreate> & { events: KindEvents<"transfer"> };

export type RecordBody = ReceiptBody | TransferBody;

export const KINDS = { receipt: RECEIPT, transfer: TRANSFER } as const;
export const KIND_NAMES = Object.keys(KINDS) as KindName[];

type EventsOf<K extends { events: KindEvents<KindName> }> =
  | K["events"]["created"]
  | K["events"]["exhausted"]
  | K["events"]["expiredAtEdge"]
  | NonNullable<K["events"]["onState"][keyof K["events"]["onState"]]>
  | (K["events"] extends { fiscal: infer F } ? F[keyof F] : never);

/** Every event type, as the kinds name them. */
export type EventType = EventsOf<typeof RECEIPT> | EventsOf<typeof TRANSFER>;

/** The kind of this name, typed for code that handles either. */
export function kindNamed(name: KindName): Kind<RecordBody, { tid: string }> {
  return KINDS[name] as unknown as Kind<RecordBody, { tid: string }>;
}
