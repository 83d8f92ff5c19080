/**
 * Card-to-card transfers (a2c), one description each (src/operations/operation.ts
 * says what a description holds; their prose is in src/operations/docs.ts).
 */
import { TRANSFER } from "../kinds";
import { CreateTransferRequest, ReceiptIdRequest, TransferPayRequest, TransferReceipt } from "../schemas";
import { DOCS } from "./docs";
import { created, describe, onRecord, type Section } from "./operation";

export const TRANSFERS: Section = {
  tag: "Transfers (a2c)",
  operations: [
    describe({
      path: "/a2c/create",
      operationId: "createTransfer",
      summary: "Create a card-to-card transfer",
      description: DOCS.createTransfer,
      request: CreateTransferRequest,
      response: TransferReceipt,
      errors: ["tid_conflict", "tid_in_progress", "card_declined"],
      headers: ["Idempotent-Replayed"],
      links: {
        pay: { operationId: "payTransfer", description: "Confirm this transfer.", field: "receipt_id" },
        getById: { operationId: "getTransfer", description: "Read this transfer.", field: "receipt_id" },
      },
      upstream: ["a2c/create"],
      // `tId` is the upstream's own spelling of `tid`: the schema takes either, the create sends `tid`.
      handle: created(TRANSFER, ({ tId, ...rest }) => ({ ...rest, tid: (rest.tid ?? tId) as string })),
    }),
    describe({
      path: "/a2c/pay",
      operationId: "payTransfer",
      summary: "Confirm a transfer",
      description: DOCS.payTransfer,
      request: TransferPayRequest,
      response: TransferReceipt,
      errors: [
        "otp_required",
        "otp_expired",
        "card_declined",
        "receipt_not_found",
        "operation_in_progress",
        "receipt_cancelled",
        "receipt_already_paid",
        "otp_attempts_exhausted",
        "otp_invalid",
        "rate_limited",
      ],
      limit: "pay",
      lifecycle: "pay",
      upstream: ["a2c/pay"],
      handle: onRecord("transfer", (record, { otp }, op) => record.payTransfer({ ...op, otp })),
    }),
    describe({
      path: "/a2c/get-by-id",
      operationId: "getTransfer",
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
