/**
 * Card-to-card transfers (a2c), one description each (src/operations/operation.ts
 * says what a description holds; their prose is in src/operations/docs.ts).
 */
import * as v from "valibot";
import { TRANSFER_CREATED, TRANSFER_PAID } from "../api/examples";
import {
  Amount,
  CardNumber,
  CardToken,
  EXAMPLE_TRANSFER_ID,
  Otp,
  PositiveId,
  ReceiptId,
  ReceiptIdRequest,
  Tid,
  TransferReceipt,
} from "../api/schemas";
import { admitRisk } from "../risk/check";
import { TRANSFER } from "../rules/kinds";
import { DOCS } from "./docs";
import { created, describe, keyed, onRecord, PAY_ERRORS, type Section } from "./operation";

const CreateTransferRequest = v.pipe(
  v.strictObject({
    tid: Tid,
    amount: Amount,
    rate_id: v.pipe(PositiveId("rate_id"), v.description("Tariff id at the payment service.")),
    receiver_card: CardNumber,
    token: v.pipe(CardToken, v.description("Sender's card token.")),
  }),
  v.examples([{ tid: "transfer-2026-0001", amount: 1500000, rate_id: 1, receiver_card: "9860000000000018", token: "tok_sandbox_ok" }]),
  v.title("CreateTransferRequest"),
);

// Rule 13: the receiver's number is one of the user's distinct receiver cards, and counts toward nothing else
// (a card may receive from many people). Counted once the tid is this request's, before the upstream is called.
const createTransfer = created(TRANSFER, undefined, (c, input: { receiver_card: string }) =>
  admitRisk(c.env, c.var.caller, { card: { number: input.receiver_card }, receiver: true }, c.var.requestId),
);

export const TRANSFERS: Section = {
  tag: "Transfers (a2c)",
  operations: [
    describe({
      path: "/a2c/create",
      operationId: "createTransfer",
      example: { summary: "A transfer, created (state 0)", value: TRANSFER_CREATED },
      summary: "Create a card-to-card transfer",
      description: DOCS.createTransfer,
      request: CreateTransferRequest,
      response: TransferReceipt,
      errors: ["tid_conflict", "tid_in_progress", "card_declined", "risk_limited"],
      headers: ["Idempotent-Replayed"],
      links: {
        pay: { operationId: "payTransfer", description: "Confirm this transfer.", field: "receipt_id" },
        getById: { operationId: "getTransfer", description: "Read this transfer.", field: "receipt_id" },
      },
      // The upstream's field table spells it `tId`: accepted for `tid`, and not in the document.
      aliases: { tId: "tid" },
      upstream: ["a2c/create"],
      handle: createTransfer,
    }),
    describe({
      path: "/a2c/pay",
      operationId: "payTransfer",
      example: { summary: "Paid (state 4)", value: TRANSFER_PAID },
      summary: "Confirm a transfer",
      description: DOCS.payTransfer,
      request: v.pipe(
        v.strictObject({ id: ReceiptId, otp: v.optional(Otp) }),
        v.examples([{ id: EXAMPLE_TRANSFER_ID, otp: "111111" }]),
        v.title("PayTransferRequest"),
      ),
      response: TransferReceipt,
      errors: [...PAY_ERRORS],
      limit: "pay",
      lifecycle: "pay",
      upstream: ["a2c/pay"],
      handle: keyed("transfer", (record, { otp }, op) => record.payTransfer({ ...op, otp })),
    }),
    describe({
      path: "/a2c/get-by-id",
      operationId: "getTransfer",
      example: { summary: "A paid transfer", value: TRANSFER_PAID },
      summary: "Read a transfer as it stands now",
      description: DOCS.getTransfer,
      request: ReceiptIdRequest,
      response: TransferReceipt,
      errors: ["receipt_not_found"],
      upstream: ["a2c/get-by-id"],
      handle: onRecord("transfer", (record, _input, op) => record.check(op)),
    }),
  ],
};
