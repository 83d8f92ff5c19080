// Request bodies the sandbox accepts. Anything else is 400 VALIDATION_ERROR
// before it reaches the object, so the rules there only see well-typed input.
import * as v from "valibot";

const Id = v.pipe(v.string(), v.minLength(1), v.maxLength(64));
const Tid = v.pipe(v.string(), v.minLength(1), v.maxLength(128));
const Amount = v.pipe(v.number(), v.safeInteger(), v.minValue(1));
const IntId = v.pipe(v.number(), v.safeInteger());
const Otp = v.optional(v.pipe(v.string(), v.maxLength(16)));
const Token = v.pipe(v.string(), v.minLength(1), v.maxLength(256));
const TokenCard = v.object({ token: Token });
const NumberCard = v.object({
  number: v.pipe(v.string(), v.regex(/^\d{12,19}$/, "card number must be 12 to 19 digits")),
  expire: v.pipe(v.string(), v.regex(/^\d{4}$/, "expire must be yyMM")),
});

export const IdBody = v.object({ id: Id });

export const ReceiptCreateBody = v.object({
  tid: Tid,
  amount: Amount,
  merchant_id: IntId,
  account: v.optional(v.pipe(v.array(v.object({ key: v.string(), value: v.string(), label: v.optional(v.string()) })), v.maxLength(20)), []),
  description: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(500)))),
  is_hold: v.optional(v.boolean(), false),
  currency: v.optional(v.literal(860, "currency must be 860"), 860),
});

export const AuthorizeBody = v.object({ id: Id, card: TokenCard });
export const AnonymousAuthorizeBody = v.object({ id: Id, card: NumberCard });
export const PayBody = v.object({ id: Id, card: TokenCard, otp: Otp });
export const AnonymousPayBody = v.object({ id: Id, card: NumberCard, otp: Otp });

export const CancelBody = v.object({
  id: Id,
  reason: v.optional(v.pipe(v.string(), v.maxLength(500))),
  cancelledBy: v.optional(v.pipe(v.string(), v.maxLength(200))),
});

/** The seed's field table writes `tId`, its sample `tid`: both are accepted. */
export const TransferCreateBody = v.pipe(
  v.object({
    tid: v.optional(Tid),
    tId: v.optional(Tid),
    amount: Amount,
    rate_id: IntId,
    receiver_card: v.pipe(v.string(), v.regex(/^\d{16,19}$/, "receiver_card must be 16 to 19 digits")),
    token: Token,
  }),
  v.check((body) => (body.tid ?? body.tId) !== undefined, "tid is required"),
  v.transform(({ tid, tId, ...rest }) => ({ ...rest, tid: tid ?? tId ?? "" })),
);

export const TransferPayBody = v.object({ id: Id, otp: Otp });

export type IdInput = v.InferOutput<typeof IdBody>;
export type ReceiptCreateInput = v.InferOutput<typeof ReceiptCreateBody>;
export type PayInput = v.InferOutput<typeof PayBody> | v.InferOutput<typeof AnonymousPayBody>;
export type CardRef = PayInput["card"];
export type CancelInput = v.InferOutput<typeof CancelBody>;
export type TransferCreateInput = v.InferOutput<typeof TransferCreateBody>;
export type TransferPayInput = v.InferOutput<typeof TransferPayBody>;
