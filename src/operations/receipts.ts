/**
 * The receipt operations, one description each (src/operations/operation.ts
 * says what a description holds; their prose is in src/operations/docs.ts).
 * Each validates its body and hands it to the receipt's Durable Object, or to
 * createOnce; the rules are theirs and the lifecycle's.
 */
import * as v from "valibot";
import { AUTHORIZED, AUTHORIZED_ANONYMOUS, RECEIPT_CANCELLED, RECEIPT_CREATED, RECEIPT_PAID, REDUCED_RECEIPT_PAID } from "../api/examples";
import {
  AuthorizeResult,
  CreateReceiptRequest,
  EXAMPLE_CARD,
  EXAMPLE_RECEIPT_ID,
  MaxText,
  NumberCard,
  Otp,
  Receipt,
  ReceiptId,
  ReceiptIdRequest,
  ReducedReceipt,
  Text,
  Tid,
  TokenCard,
} from "../api/schemas";
import { RECEIPT } from "../rules/kinds";
import { createdBy } from "./creation";
import { DOCS } from "./docs";
import { created, describe, keyed, onRecord, PAY_ERRORS, type Section } from "./operation";

const AUTHORIZE_ERRORS = [
  "receipt_not_found",
  "receipt_cancelled",
  "receipt_already_paid",
  "receipt_expired",
  "operation_in_progress",
  "otp_attempts_exhausted",
  "otp_resend_too_soon",
  "rate_limited",
  "risk_limited",
  "card_declined",
] as const;

const CheckTidRequest = v.pipe(
  v.strictObject({
    tid: Tid,
    user: v.optional(
      v.pipe(
        v.string(),
        v.minLength(1, "user must not be empty"),
        ...MaxText(255, "user must be at most 255 characters"),
        v.description("Partner only: the user (JWT `sub`) whose tid this is. Users' tids live in their own space (rule 9)."),
      ),
    ),
  }),
  v.examples([{ tid: "order-2026-0001" }]),
  v.title("CheckTidRequest"),
);

/** check-id, and check-tid once it knows the id: the receipt as the upstream says it stands now. */
const checkReceipt = onRecord("receipt", (record, _input, op) => record.check(op));

export const RECEIPTS: Section = {
  tag: "Receipts",
  operations: [
    describe({
      path: "/receipt/create",
      operationId: "createReceipt",
      example: { summary: "A receipt, created (state 0)", value: RECEIPT_CREATED },
      summary: "Create a payment receipt",
      description: DOCS.createReceipt,
      request: CreateReceiptRequest,
      response: Receipt,
      errors: ["tid_conflict", "tid_in_progress", "hold_not_enabled", "amount_out_of_range"],
      headers: ["Idempotent-Replayed"],
      links: {
        authorize: { operationId: "authorizeReceipt", description: "Send the OTP for this receipt.", field: "id" },
        pay: { operationId: "payReceipt", description: "Pay this receipt.", field: "id" },
        checkById: { operationId: "checkReceiptById", description: "Read this receipt.", field: "id" },
      },
      upstream: ["receipt/create"],
      handle: created(RECEIPT),
    }),
    describe({
      path: "/receipt/authorize",
      operationId: "authorizeReceipt",
      example: { summary: "The OTP was sent", value: AUTHORIZED },
      summary: "Send the OTP for a card-token payment",
      description: DOCS.authorizeReceipt,
      request: v.pipe(
        v.strictObject({ id: ReceiptId, card: TokenCard }),
        v.examples([{ id: EXAMPLE_RECEIPT_ID, card: { token: "tok_sandbox_ok" } }]),
        v.title("AuthorizeRequest"),
      ),
      response: AuthorizeResult,
      errors: [...AUTHORIZE_ERRORS],
      limit: "authorize",
      lifecycle: "authorize",
      upstream: ["receipt/authorize"],
      handle: keyed("receipt", (record, { card }, op) => record.authorize({ ...op, card })),
    }),
    describe({
      path: "/receipt/anonymous/authorize",
      operationId: "authorizeReceiptAnonymous",
      example: { summary: "The OTP was sent", value: AUTHORIZED_ANONYMOUS },
      summary: "Send the OTP for a card-number payment",
      description: DOCS.authorizeReceiptAnonymous,
      request: v.pipe(
        v.strictObject({ id: ReceiptId, card: NumberCard }),
        v.examples([{ id: EXAMPLE_RECEIPT_ID, card: EXAMPLE_CARD }]),
        v.title("AnonymousAuthorizeRequest"),
      ),
      response: AuthorizeResult,
      errors: [...AUTHORIZE_ERRORS],
      limit: "authorize",
      lifecycle: "authorize",
      upstream: ["receipt/anonymous/authorize"],
      handle: keyed("receipt", (record, { card }, op) => record.authorize({ ...op, card })),
    }),
    describe({
      path: "/receipt/pay",
      operationId: "payReceipt",
      example: { summary: "Paid (state 4), fiscalized", value: RECEIPT_PAID },
      summary: "Pay a receipt with a card token",
      description: DOCS.payReceipt,
      request: v.pipe(
        v.strictObject({ id: ReceiptId, card: TokenCard, otp: v.optional(Otp) }),
        v.examples([{ id: EXAMPLE_RECEIPT_ID, card: { token: "tok_sandbox_ok" }, otp: "111111" }]),
        v.title("PayRequest"),
      ),
      response: Receipt,
      errors: [...PAY_ERRORS],
      limit: "pay",
      lifecycle: "pay",
      upstream: ["receipt/pay"],
      handle: keyed("receipt", (record, { card, otp }, op) => record.pay({ ...op, card, otp })),
    }),
    describe({
      path: "/receipt/anonymous/pay",
      operationId: "payReceiptAnonymous",
      example: { summary: "Paid (state 4): the reduced receipt", value: REDUCED_RECEIPT_PAID },
      summary: "Pay a receipt with a card number",
      description: DOCS.payReceiptAnonymous,
      request: v.pipe(
        v.strictObject({ id: ReceiptId, card: NumberCard, otp: Otp }),
        v.examples([{ id: EXAMPLE_RECEIPT_ID, card: EXAMPLE_CARD, otp: "111111" }]),
        v.title("AnonymousPayRequest"),
      ),
      response: ReducedReceipt,
      errors: [...PAY_ERRORS, "risk_limited"],
      limit: "pay",
      lifecycle: "pay",
      upstream: ["receipt/anonymous/pay"],
      handle: keyed("receipt", (record, { card, otp }, op) => record.pay({ ...op, card, otp })),
    }),
    describe({
      path: "/receipt/hold-confirm",
      operationId: "confirmHold",
      example: { summary: "The held amount debited (state 4), fiscalized", value: RECEIPT_PAID },
      summary: "Confirm a held payment (partner only)",
      description: DOCS.confirmHold,
      request: ReceiptIdRequest,
      response: Receipt,
      errors: [
        "forbidden",
        "hold_not_enabled",
        "receipt_not_found",
        "operation_in_progress",
        "receipt_not_held",
        "receipt_cancelled",
        "receipt_already_paid",
        "receipt_expired",
        "otp_attempts_exhausted",
      ],
      callers: "partner",
      lifecycle: "hold-confirm",
      upstream: ["receipt/hold-confirm"],
      handle: keyed("receipt", (record, _input, op) => record.holdConfirm(op)),
    }),
    describe({
      path: "/receipt/cancel",
      operationId: "cancelReceipt",
      example: { summary: "The paid receipt cancelled (state 21), the refund fiscalized", value: RECEIPT_CANCELLED },
      summary: "Cancel a receipt",
      description: DOCS.cancelReceipt,
      request: v.pipe(
        v.strictObject({
          id: ReceiptId,
          reason: v.optional(v.pipe(Text(256), v.description("Why, as the payment service records it."))),
          cancelledBy: v.optional(
            v.pipe(
              Text(128),
              v.description(
                "Who cancelled, as the payment service records it: sent as given for the partner backend. A user cannot speak for someone else upstream: a user's cancel sends the deployment's own name (GATEWAY_CANCELLED_BY) instead, and the audit trail names the user.",
              ),
            ),
          ),
        }),
        v.examples([{ id: EXAMPLE_RECEIPT_ID, reason: "Customer changed their mind" }]),
        v.title("CancelRequest"),
      ),
      response: Receipt,
      errors: ["forbidden", "receipt_not_found", "operation_in_progress", "cancel_not_allowed", "receipt_expired"],
      lifecycle: "cancel",
      upstream: ["receipt/cancel"],
      handle: keyed("receipt", (record, { reason, cancelledBy }, op) => record.cancel({ ...op, reason, cancelledBy })),
    }),
    describe({
      path: "/receipt/check-id",
      operationId: "checkReceiptById",
      example: { summary: "A paid receipt", value: RECEIPT_PAID },
      summary: "Read a receipt as it stands now",
      description: DOCS.checkReceiptById,
      request: ReceiptIdRequest,
      response: Receipt,
      errors: ["receipt_not_found"],
      upstream: ["receipt/check-id"],
      handle: checkReceipt,
    }),
    describe({
      path: "/receipt/check-tid",
      operationId: "checkReceiptByTid",
      example: { summary: "A paid receipt", value: RECEIPT_PAID },
      summary: "Read the receipt created with a tid",
      description: DOCS.checkReceiptByTid,
      request: CheckTidRequest,
      response: Receipt,
      errors: ["receipt_not_found", "tid_in_progress"],
      upstream: ["receipt/check-id"],
      handle: async (c, { tid, user }) => {
        const id = await createdBy(c.env, c.var.caller, "receipt", tid, user, (work) => c.executionCtx.waitUntil(work));
        return checkReceipt(c, { id });
      },
    }),
  ],
};
