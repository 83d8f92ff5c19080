/**
 * Receipt operations. Each handler validates, then hands the work to the
 * receipt's Durable Object (or, for create, to createOnce); none holds a
 * business rule of its own.
 */
import { Hono } from "hono";
import { ownerOf } from "../caller";
import { readConfig } from "../config";
import { createOnce, leaseMs } from "../creation";
import { ApiError } from "../errors";
import { jsonBody } from "../http";
import { limitAuthorize, limitPay } from "../rate-limit";
import { documented } from "../openapi";
import { RECEIPT } from "../kinds";
import { receiptStub } from "../receipt-object";
import {
  AnonymousAuthorizeRequest,
  AnonymousPayRequest,
  AuthorizeRequest,
  AuthorizeResult,
  CancelRequest,
  CheckTidRequest,
  CreateReceiptRequest,
  PayRequest,
  Receipt,
  ReceiptIdRequest,
  ReducedReceipt,
} from "../schemas";
import { findTid, leaseExpired, tidIndexFor } from "../tid-index";
import type { GatewayEnv } from "../types";
import { op, sendFromRecord } from "./operation";

const tags = ["Receipts"];

export const receipts = new Hono<GatewayEnv>()
  .post(
    "/receipt/create",
    documented({
      operationId: "createReceipt",
      summary: "Create a payment receipt",
      description:
        "Creates a receipt at the payment service. The `tid` is unique across the deployment: an identical retry by the same caller answers the original receipt with `Idempotent-Replayed: true` and creates nothing; any other use of a known tid is `tid_conflict`. The original answer is kept 7 days (`TID_REPLAY_DAYS`): later, an identical retry is `tid_conflict` naming the receipt to read with check-id or check-tid; after 90 days (`TID_RETENTION_DAYS`) the gateway forgets the tid and the payment service's own refusal of a used tid answers `tid_conflict`. `is_hold` needs the hold function enabled in the deployment.",
      tags,
      response: Receipt,
      errors: ["tid_conflict", "tid_in_progress", "hold_not_enabled", "amount_out_of_range"],
      headers: {
        "Idempotent-Replayed": { description: "`true` when this is the stored answer to an earlier identical create.", schema: { type: "string" } },
      },
    }),
    jsonBody(CreateReceiptRequest),
    async (c) => {
      const input = c.req.valid("json");
      const config = readConfig(c.env);
      if (input.is_hold && !config.holdEnabled) {
        throw new ApiError("hold_not_enabled", "The hold function is not enabled in this deployment.");
      }
      const { body, replayed } = await createOnce(c.env, c.var.caller, c.var.requestId, RECEIPT, input, {
        isHold: input.is_hold,
        qrMerchant: config.qrMerchantIds.has(input.merchant_id),
      });
      if (replayed) c.header("Idempotent-Replayed", "true");
      return c.json(body, 200);
    },
  )
  .post(
    "/receipt/authorize",
    documented({
      operationId: "authorizeReceipt",
      summary: "Send the OTP for a card-token payment",
      description:
        "Sends a one-time code to the card owner. May be repeated to resend, once `wait` ms have passed (`otp_resend_too_soon` before), and at most 5 times per receipt.",
      tags,
      response: AuthorizeResult,
      errors: ["receipt_not_found", "receipt_cancelled", "receipt_already_paid", "operation_in_progress", "otp_attempts_exhausted", "otp_resend_too_soon", "rate_limited", "card_declined"],
    }),
    jsonBody(AuthorizeRequest),
    limitAuthorize,
    async (c) => {
      const { id, card } = c.req.valid("json");
      return sendFromRecord(c, () => receiptStub(c.env, "receipt", id).authorize({ ...op(c), card }));
    },
  )
  .post(
    "/receipt/anonymous/authorize",
    documented({
      operationId: "authorizeReceiptAnonymous",
      summary: "Send the OTP for a card-number payment",
      description: "As authorize, with the card given by number and expiry. Neither is stored or logged.",
      tags,
      response: AuthorizeResult,
      errors: ["receipt_not_found", "receipt_cancelled", "receipt_already_paid", "operation_in_progress", "otp_attempts_exhausted", "otp_resend_too_soon", "rate_limited", "card_declined"],
    }),
    jsonBody(AnonymousAuthorizeRequest),
    limitAuthorize,
    async (c) => {
      const { id, card } = c.req.valid("json");
      return sendFromRecord(c, () => receiptStub(c.env, "receipt", id).authorize({ ...op(c), card }));
    },
  )
  .post(
    "/receipt/pay",
    documented({
      operationId: "payReceipt",
      summary: "Pay a receipt with a card token",
      description:
        "Debits the card. `otp` is required when the receipt's `is_verify` is true. The third wrong OTP cancels the receipt (`otp_attempts_exhausted`); OTP submissions for one receipt are serialized (`operation_in_progress` for one that arrives while another is in flight). A receipt created with `is_hold` ends in state 5 (held).",
      tags,
      response: Receipt,
      errors: ["otp_required", "otp_expired", "card_declined", "receipt_not_found", "operation_in_progress", "receipt_cancelled", "receipt_already_paid", "otp_attempts_exhausted", "otp_invalid", "rate_limited"],
    }),
    jsonBody(PayRequest),
    limitPay,
    async (c) => {
      const { id, card, otp } = c.req.valid("json");
      return sendFromRecord(c, () => receiptStub(c.env, "receipt", id).pay({ ...op(c), card, otp }));
    },
  )
  .post(
    "/receipt/anonymous/pay",
    documented({
      operationId: "payReceiptAnonymous",
      summary: "Pay a receipt with a card number",
      description:
        "As pay, with the card given by number and expiry; the OTP is always required. Answers the reduced receipt (no `cancel_date`, `is_verify`, `rrn`, `card_number`).",
      tags,
      response: ReducedReceipt,
      errors: ["otp_required", "otp_expired", "card_declined", "receipt_not_found", "operation_in_progress", "receipt_cancelled", "receipt_already_paid", "otp_attempts_exhausted", "otp_invalid", "rate_limited"],
    }),
    jsonBody(AnonymousPayRequest),
    limitPay,
    async (c) => {
      const { id, card, otp } = c.req.valid("json");
      return sendFromRecord(c, () => receiptStub(c.env, "receipt", id).pay({ ...op(c), card, otp }));
    },
  )
  .post(
    "/receipt/hold-confirm",
    documented({
      operationId: "confirmHold",
      summary: "Confirm a held payment (partner only)",
      description: "Debits the held amount (state 5 to 4) and fiscalizes the sale. Needs the hold function enabled in the deployment.",
      tags,
      response: Receipt,
      partnerOnly: true,
      errors: ["forbidden", "hold_not_enabled", "receipt_not_found", "operation_in_progress", "receipt_not_held", "receipt_cancelled", "receipt_already_paid"],
    }),
    jsonBody(ReceiptIdRequest),
    async (c) => {
      const { id } = c.req.valid("json");
      return sendFromRecord(c, () => receiptStub(c.env, "receipt", id).holdConfirm(op(c)));
    },
  )
  .post(
    "/receipt/cancel",
    documented({
      operationId: "cancelReceipt",
      summary: "Cancel a receipt",
      description:
        "Cancels a created, held or paid receipt (state 21). Refused in state 21 or 57 and for QR merchants (`cancel_not_allowed`). Users may cancel only unpaid receipts; cancelling a paid one is for the partner backend.",
      tags,
      response: Receipt,
      errors: ["forbidden", "receipt_not_found", "operation_in_progress", "cancel_not_allowed"],
    }),
    jsonBody(CancelRequest),
    async (c) => {
      const { id, reason, cancelledBy } = c.req.valid("json");
      return sendFromRecord(c, () => receiptStub(c.env, "receipt", id).cancel({ ...op(c), reason, cancelledBy }));
    },
  )
  .post(
    "/receipt/check-id",
    documented({
      operationId: "checkReceiptById",
      summary: "Read a receipt as it stands now",
      description: "Asks the payment service for the receipt as it stands now and answers it (while another operation on it is in flight, the gateway's latest view).",
      tags,
      response: Receipt,
      errors: ["receipt_not_found"],
    }),
    jsonBody(ReceiptIdRequest),
    async (c) => {
      const { id } = c.req.valid("json");
      return sendFromRecord(c, () => receiptStub(c.env, "receipt", id).check(op(c)));
    },
  )
  .post(
    "/receipt/check-tid",
    documented({
      operationId: "checkReceiptByTid",
      summary: "Read the receipt created with a tid",
      description: "Finds the receipt through the gateway's tid index, then answers it as check-id does. Transfer tids are not receipts: use a2c/get-by-id.",
      tags,
      response: Receipt,
      errors: ["receipt_not_found", "tid_in_progress"],
    }),
    jsonBody(CheckTidRequest),
    async (c) => {
      const { tid, user } = c.req.valid("json");
      const caller = c.var.caller;
      const notFound = new ApiError("receipt_not_found", "No receipt was created with this tid.");
      // A tid is looked up in one space: the caller's own, or (partner only) the named user's.
      // A user naming another user learns what an unknown tid tells: nothing.
      if (user !== undefined && caller.kind !== "partner" && user !== caller.id) throw notFound;
      const owner = user !== undefined ? ownerOf({ kind: "user", id: user }) : ownerOf(caller);
      const row = await findTid(await tidIndexFor(c.env, owner, tid), owner, tid);
      if (!row || row.kind !== "receipt") throw notFound;
      if (!row.receipt_id) {
        if (leaseExpired(row, leaseMs(readConfig(c.env).upstreamTimeoutMs), Date.now())) {
          throw new ApiError(
            "receipt_not_found",
            "The create with this tid did not finish and its outcome is unknown. Retry that create with the same body: it adopts the receipt if the payment service made one.",
          );
        }
        throw new ApiError("tid_in_progress", "The create with this tid is still in flight.", { retry_after: 1 });
      }
      return sendFromRecord(c, () => receiptStub(c.env, "receipt", row.receipt_id!).check(op(c)));
    },
  );
