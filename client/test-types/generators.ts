// Checked by scripts/generators-check.mjs with the code @hey-api/openapi-ts and
// orval generate from openapi.json (copied beside it as check.ts), and the
// client's own openapi-typescript schema.ts: their types refuse a wrong
// a2c/create body and a string currency (orval's zod schema refuses the wrong
// body at run time too), take a2c/create's tId in place of tid but not neither, narrow an event's object by its type or its
// data.object_type, type a transfer's fiscal data and a merchant's fields, and
// take an error code newer than the document.
import type { components, webhooks } from "../src/schema";
import type {
  Error as HeyError,
  Event as HeyEvent,
  CreateReceiptRequest as HeyCreateReceipt,
  CreateTransferData as HeyCreateTransferData,
  CreateTransferRequest as HeyCreateTransfer,
  Receipt as HeyReceipt,
  TransferReceipt as HeyTransfer,
} from "./hey-api/types.gen";
import type {
  Error as OrvalError,
  Event as OrvalEvent,
  CreateReceiptRequest as OrvalCreateReceipt,
  CreateTransferBody as OrvalCreateTransferBody,
  CreateTransferRequest as OrvalCreateTransfer,
} from "./orval/api";
import { ReceiptState } from "./orval/api";
import { createTransferBody } from "./orval/zod";

const transfer = { tid: "t-1", amount: 150_000, rate_id: 1, receiver_card: "9860000000000018", token: "tok_sandbox_ok" };
export const hey: HeyCreateTransfer = transfer;
export const orval: OrvalCreateTransfer = transfer;
// @ts-expect-error tid and the rest are required
export const heyWrong: HeyCreateTransfer = { totally: "wrong" };
// @ts-expect-error tid and the rest are required
export const orvalWrong: OrvalCreateTransfer = { totally: "wrong" };

const receipt = { tid: "r-1", amount: 150_000, merchant_id: 1001, account: [] };
export const heyCurrency: HeyCreateReceipt = { ...receipt, currency: 860 };
// @ts-expect-error currency is the number 860
export const heyString: HeyCreateReceipt = { ...receipt, currency: "860" };
export const orvalCurrency: OrvalCreateReceipt = { ...receipt, currency: 860 };
// @ts-expect-error currency is the number 860
export const orvalString: OrvalCreateReceipt = { ...receipt, currency: "860" };

// Named states.
export const paid: 4 = ReceiptState.paid;

export const zodRefuses: boolean = createTransferBody.safeParse({ totally: "wrong" }).success === false;

// a2c/create's body may spell tid as the payment service does (tId): either shape is typed, neither can be left out.
const { tid: upstreamTid, ...rest } = transfer;
export const heyAliased: HeyCreateTransferData["body"] = { ...rest, tId: upstreamTid };
export const orvalAliased: OrvalCreateTransferBody = { ...rest, tId: upstreamTid };
// @ts-expect-error a tid or a tId is required
export const heyNoTid: HeyCreateTransferData["body"] = rest;
// @ts-expect-error a tid or a tId is required
export const orvalNoTid: OrvalCreateTransferBody = rest;
export const zodTakesAlias: boolean = createTransferBody.safeParse({ ...rest, tId: upstreamTid }).success;

// An event's object, narrowed by a switch on `type` or an if on `data.object_type`; not narrowed, it is either.
type OtsEvent = components["schemas"]["Event"];
export function heyEvent(event: HeyEvent): string[] {
  // @ts-expect-error not narrowed: data.object may be the TransferReceipt, which has no id
  const either: string = event.data.object.id;
  const byKind = event.data.object_type === "receipt" ? event.data.object.id : event.data.object.receipt_id;
  switch (event.type) {
    case "transfer.paid":
    case "transfer.expired":
      return [either, byKind, event.data.object.receipt_id];
    case "receipt.paid":
      return [either, byKind, event.data.object.id];
    default:
      return [byKind];
  }
}
export function orvalEvent(event: OrvalEvent): string[] {
  // @ts-expect-error not narrowed: data.object may be the TransferReceipt, which has no id
  const either: string = event.data.object.id;
  const byKind = event.data.object_type === "receipt" ? event.data.object.id : event.data.object.receipt_id;
  return event.type === "transfer.paid" ? [either, byKind, event.data.object.receipt_id] : [byKind];
}
export function otsEvent(event: OtsEvent): string[] {
  // @ts-expect-error not narrowed: data.object may be the TransferReceipt, which has no id
  const either: string = event.data.object.id;
  const byKind = event.data.object_type === "receipt" ? event.data.object.id : event.data.object.receipt_id;
  return event.type === "transfer.paid" ? [either, byKind, event.data.object.receipt_id] : [byKind];
}
// A webhook's body is its kind's event: receipt.paid carries a Receipt.
export const paidId = (body: webhooks["receipt.paid"]["post"]["requestBody"]["content"]["application/json"]): string => body.data.object.id;

// A transfer's fiscal data and a merchant's fields are typed.
export const ofdUrl = (transfer: HeyTransfer): string | undefined => transfer.ofd?.url;
// @ts-expect-error ofd.url is a string
export const ofdWrong = (transfer: HeyTransfer): number | undefined => transfer.ofd?.url;
export const field = (receipt: HeyReceipt): object | undefined => receipt.merchant.fields?.[0];
// @ts-expect-error an entry of fields is an object
export const fieldWrong = (receipt: HeyReceipt): string | undefined => receipt.merchant.fields?.[0];

// A code newer than the document is still an error's code.
export const heyNewer: HeyError["error"]["code"] = "card_frozen";
export const orvalNewer: OrvalError["error"]["code"] = "card_frozen";
export const otsNewer: components["schemas"]["Error"]["error"]["code"] = "card_frozen";
