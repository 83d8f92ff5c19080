/**
 * Card-to-card transfers (a2c). Same shape as the receipt routes: validate,
 * then hand the work to createOnce or to the transfer's Durable Object.
 */
import { Hono } from "hono";
import { createOnce } from "../creation";
import { jsonBody } from "../http";
import { limitPay } from "../rate-limit";
import { documented } from "../openapi";
import { TRANSFER } from "../kinds";
import { receiptStub } from "../receipt-object";
import { CreateTransferRequest, ReceiptIdRequest, TransferPayRequest, TransferReceipt } from "../schemas";
import type { GatewayEnv } from "../types";
import { op, sendFromRecord } from "./operation";

const tags = ["Transfers (a2c)"];

export const transfers = new Hono<GatewayEnv>()
  .post(
    "/a2c/create",
    documented({
      operationId: "createTransfer",
      summary: "Create a card-to-card transfer",
      description:
        "Creates a transfer receipt from the sender's card (token) to a receiver card (number). `tId` is accepted as an alias of `tid`; transfer tids share the tid index with receipts (same replay and conflict rules). When the answer's `is_verify` is true, a2c/pay needs the OTP sent to the sender. The sender's token is never echoed back.",
      tags,
      response: TransferReceipt,
      errors: ["tid_conflict", "tid_in_progress", "card_declined"],
      headers: {
        "Idempotent-Replayed": { description: "`true` when this is the stored answer to an earlier identical create.", schema: { type: "string" } },
      },
    }),
    jsonBody(CreateTransferRequest),
    async (c) => {
      const { tId, ...rest } = c.req.valid("json");
      const input = { ...rest, tid: (rest.tid ?? tId) as string };
      const { body, replayed } = await createOnce(c.env, c.var.caller, c.var.requestId, TRANSFER, input);
      if (replayed) c.header("Idempotent-Replayed", "true");
      return c.json(body, 200);
    },
  )
  .post(
    "/a2c/pay",
    documented({
      operationId: "payTransfer",
      summary: "Confirm a transfer",
      description:
        "Sends the money. `otp` is required when the transfer's `is_verify` is true. Three wrong OTPs cancel the transfer; OTP submissions are serialized; a paid transfer is never paid twice.",
      tags,
      response: TransferReceipt,
      errors: ["otp_required", "otp_expired", "card_declined", "receipt_not_found", "operation_in_progress", "receipt_cancelled", "receipt_already_paid", "otp_attempts_exhausted", "otp_invalid", "rate_limited"],
    }),
    jsonBody(TransferPayRequest),
    limitPay,
    async (c) => {
      const { id, otp } = c.req.valid("json");
      return sendFromRecord(c, () => receiptStub(c.env, "transfer", id).payTransfer({ ...op(c), otp }));
    },
  )
  .post(
    "/a2c/get-by-id",
    documented({
      operationId: "getTransfer",
      summary: "Read a transfer as it stands now",
      description: "Asks the payment service for the transfer as it stands now and answers it (while another operation on it is in flight, the gateway's latest view).",
      tags,
      response: TransferReceipt,
      errors: ["receipt_not_found"],
    }),
    jsonBody(ReceiptIdRequest),
    async (c) => {
      const { id } = c.req.valid("json");
      return sendFromRecord(c, () => receiptStub(c.env, "transfer", id).check(op(c)));
    },
  );
