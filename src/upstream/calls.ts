/**
 * The payment service as the rest of the gateway sees it: the states it
 * gives a receipt or transfer, the calls a record is created and read with,
 * and how a call ends. src/upstream/client.ts implements the calls;
 * src/rules/kinds.ts names, per kind, which call creates and which reads it.
 *
 * Below both on purpose: it imports only types (the gateway's failure and the
 * record bodies), so the kinds can name the calls without importing the client.
 */

import type { CreateReceiptInput, ReceiptBody, TransferBody } from "../api/schemas";
import type { Failure } from "../errors/errors";

/** The upstream's states of a receipt or transfer (the seed's codes; 0 and 4 are named by the contract). */
export const STATE = { created: 0, paid: 4, held: 5, cancelled: 21, awaitingSupplier: 57 } as const;
export type UpstreamState = (typeof STATE)[keyof typeof STATE];
const KNOWN_STATES: ReadonlySet<number> = new Set(Object.values(STATE));
export const isKnownState = (state: unknown): state is UpstreamState => typeof state === "number" && KNOWN_STATES.has(state);

/**
 * How an upstream call ended, beyond success (src/upstream/client.ts makes them):
 * - `rejected`: the upstream answered that it did nothing (a refusal, or
 *   429/503 busy);
 * - `unknown`: the upstream may or may not have acted (timeout, connection
 *   lost, 5xx, an answer the gateway cannot read): whoever moves money must
 *   reconcile before trying again.
 * `judged` says whether an OTP in the request was looked at by the upstream:
 * false for busy, OTP_EXPIRED and a refused credential (rule 2: no guess).
 */
export type UpstreamFailure = {
  ok: false;
  failure: Failure;
  outcome: "rejected" | "unknown";
  judged: boolean;
  /** The upstream's own code, e.g. OTP_INVALID. */
  upstreamCode?: string;
  /** The record as the upstream says it stands after the failure, if it said. */
  receipt?: ReceiptBody;
  transfer?: TransferBody;
};

export type UpstreamResult<T> = { ok: true; value: T } | UpstreamFailure;

/** A transfer create as sent upstream: `tid` settled (the `tId` alias resolved). */
export interface TransferCreate {
  tid: string;
  amount: number;
  rate_id: number;
  receiver_card: string;
  token: string;
}

/** The upstream calls a kind is created and read with: src/upstream/client.ts's UpstreamClient has them. */
export interface RecordCalls {
  createReceipt(input: CreateReceiptInput): Promise<UpstreamResult<ReceiptBody>>;
  checkId(id: string): Promise<UpstreamResult<ReceiptBody>>;
  createTransfer(input: TransferCreate): Promise<UpstreamResult<TransferBody>>;
  getTransfer(id: string): Promise<UpstreamResult<TransferBody>>;
}
