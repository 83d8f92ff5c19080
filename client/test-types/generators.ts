// Checked by scripts/generators-check.mjs with the code @hey-api/openapi-ts and
// orval generate from openapi.json (copied beside it as check.ts): their types
// refuse a wrong a2c/create body and a string currency, and orval's zod schema
// refuses the wrong body at run time too.
import type { CreateReceiptRequest as HeyCreateReceipt, CreateTransferRequest as HeyCreateTransfer } from "./hey-api/types.gen";
import type { CreateReceiptRequest as OrvalCreateReceipt, CreateTransferRequest as OrvalCreateTransfer } from "./orval/api";
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
