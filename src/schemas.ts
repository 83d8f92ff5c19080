/**
 * The single source of truth for every shape the gateway accepts or returns.
 * Request schemas validate at the edge (and type the handlers); all schemas
 * feed the OpenAPI document at GET /openapi.json.
 */
import * as v from "valibot";
import { DELIVERY_STATUSES, EVENT_TYPE_NAMES, EVENT_TYPES } from "./events/types";

// Valibot's default messages quote the value received, which for a card
// number or an OTP is exactly what must never be echoed. Say what was expected.
v.setGlobalMessage((issue) =>
  issue.kind === "schema" ? `expected ${issue.expected ?? issue.type}` : `invalid ${issue.type}`,
);

// ---------------------------------------------------------------------------
// Field rules

const MAX_AMOUNT = Number.MAX_SAFE_INTEGER;

export const Tid = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/, "tid must be 1-64 characters: letters, digits, '.', '_', ':' or '-'"),
  v.description("The partner's own transaction id; unique across the deployment (receipts and transfers share the space)."),
);

export const ReceiptId = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9_-]{1,64}$/, "id must be 1-64 characters: letters, digits, '_' or '-'"),
  v.description("Receipt id returned by create (`id`, or `receipt_id` for transfers)."),
);

export const Amount = v.pipe(
  v.number("amount must be a number"),
  v.integer("amount must be an integer number of tiyin"),
  v.minValue(1, "amount must be positive"),
  v.maxValue(MAX_AMOUNT, "amount must be at most 2^53-1"),
  v.description("Amount in tiyin (1/100 of a sum)."),
);

export const Currency = v.pipe(
  v.literal(860, "currency must be 860 (UZS)"),
  v.description("ISO 4217 numeric code; only 860 (UZS) is supported."),
);

const PositiveId = (name: string) =>
  v.pipe(
    v.number(`${name} must be a number`),
    v.integer(`${name} must be an integer`),
    v.minValue(1, `${name} must be positive`),
    v.maxValue(MAX_AMOUNT, `${name} is too large`),
  );

export const CardToken = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9_.:=+/-]{1,256}$/, "card token must be 1-256 URL-safe characters"),
  v.description("Card token issued by the payment service. Never stored or logged by the gateway."),
);

export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export const CardNumber = v.pipe(
  v.string(),
  v.regex(/^\d{16,19}$/, "card number must be 16 to 19 digits"),
  v.check(passesLuhn, "card number fails the Luhn check"),
  v.description("Card number (PAN), 16-19 digits, Luhn-valid. Never stored or logged by the gateway."),
);

/** `yyMM`, a real month, not before the current month (UTC). */
export function isValidExpiry(expire: string, now = new Date()): boolean {
  const match = /^(\d{2})(\d{2})$/.exec(expire);
  if (!match) return false;
  const year = 2000 + Number(match[1]);
  const month = Number(match[2]);
  if (month < 1 || month > 12) return false;
  return year * 12 + month >= now.getUTCFullYear() * 12 + now.getUTCMonth() + 1;
}

export const Expire = v.pipe(
  v.string(),
  v.regex(/^\d{4}$/, "expire must be yyMM"),
  v.check((value) => isValidExpiry(value), "expire must be a real month (yyMM) that has not passed"),
  v.description("Card expiry, yyMM. Never stored or logged by the gateway."),
);

export const Otp = v.pipe(
  v.string("otp must be a string of digits"),
  v.regex(/^\d{4,8}$/, "otp must be 4 to 8 digits"),
  v.description("One-time code sent to the card owner. Never stored or logged by the gateway."),
);

const Text = (max: number) => v.pipe(v.string(), v.maxLength(max, `must be at most ${max} characters`));

export const AccountEntry = v.object({
  key: v.pipe(v.string(), v.minLength(1, "key must not be empty"), v.maxLength(64, "key must be at most 64 characters")),
  value: Text(256),
  label: v.optional(Text(128)),
});

// ---------------------------------------------------------------------------
// Requests

export const CreateReceiptRequest = v.object({
  tid: Tid,
  amount: Amount,
  merchant_id: v.pipe(PositiveId("merchant_id"), v.description("Merchant id at the payment service.")),
  account: v.pipe(v.array(AccountEntry), v.maxLength(20, "at most 20 account entries")),
  description: v.optional(Text(256)),
  is_hold: v.optional(v.boolean("is_hold must be a boolean"), false),
  currency: v.optional(Currency, 860),
});

export const ReceiptIdRequest = v.object({ id: ReceiptId });

export const TokenCard = v.object({ token: CardToken });
export const NumberCard = v.object({ number: CardNumber, expire: Expire });

export const AuthorizeRequest = v.object({ id: ReceiptId, card: TokenCard });
export const AnonymousAuthorizeRequest = v.object({ id: ReceiptId, card: NumberCard });
export const PayRequest = v.object({ id: ReceiptId, card: TokenCard, otp: v.optional(Otp) });
export const AnonymousPayRequest = v.object({ id: ReceiptId, card: NumberCard, otp: Otp });

export const CancelRequest = v.object({
  id: ReceiptId,
  reason: v.optional(Text(256)),
  cancelledBy: v.optional(Text(128)),
});

export const CheckTidRequest = v.object({
  tid: Tid,
  user: v.optional(
    v.pipe(
      v.string(),
      v.minLength(1, "user must not be empty"),
      v.maxLength(255, "user must be at most 255 characters"),
      v.description("Partner only: the user (JWT `sub`) whose tid this is. Users' tids live in their own space (rule 9)."),
    ),
  ),
});

export const CreateTransferRequest = v.pipe(
  v.object({
    tid: v.optional(Tid),
    tId: v.optional(v.pipe(Tid, v.description("Alias of `tid`, as the upstream's field table spells it."))),
    amount: Amount,
    rate_id: v.pipe(PositiveId("rate_id"), v.description("Tariff id at the payment service.")),
    receiver_card: CardNumber,
    token: v.pipe(CardToken, v.description("Sender's card token.")),
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const { tid, tId } = dataset.value;
    if (tid === undefined && tId === undefined) addIssue({ message: "tid is required", path: undefined });
    else if (tid !== undefined && tId !== undefined && tid !== tId)
      addIssue({ message: "tid and tId differ; send one of them" });
  }),
);

export const TransferPayRequest = v.object({ id: ReceiptId, otp: v.optional(Otp) });

// ---------------------------------------------------------------------------
// Responses (documentation; the upstream client builds these shapes)

const Nullable = <T extends v.GenericSchema>(s: T) => v.nullable(s);

export const Merchant = v.object({
  merchant_id: v.number(),
  merchant_name: v.string(),
  category_id: v.optional(v.number()),
  category_name: v.optional(v.string()),
  logo_url: v.optional(Nullable(v.string())),
  min_amount: v.optional(v.number()),
  max_amount: v.optional(v.number()),
  fields: v.optional(v.array(v.unknown())),
});

export const Ofd = v.pipe(
  v.record(v.string(), v.unknown()),
  v.description("Fiscal data (OFDResponseDetails) as the payment service sends it; present for a Sale."),
);

export const Receipt = v.object({
  tid: v.string(),
  id: v.string(),
  state: v.pipe(v.number(), v.description("0 created, 4 paid, 5 held, 21 cancelled, 57 awaiting supplier response")),
  create_date: v.pipe(v.number(), v.description("Milliseconds since the epoch.")),
  pay_date: v.pipe(v.number(), v.description("Milliseconds; 0 while unpaid.")),
  cancel_date: v.pipe(v.number(), v.description("Milliseconds; 0 while not cancelled.")),
  error: Nullable(v.string()),
  type: v.number(),
  description: Nullable(v.string()),
  merchant: Merchant,
  account: v.array(AccountEntry),
  ofd: Nullable(Ofd),
  amount: v.number(),
  init_amount: v.number(),
  currency: v.number(),
  commission: v.number(),
  is_verify: v.boolean(),
  rrn: Nullable(v.string()),
  card_number: Nullable(v.pipe(v.string(), v.description("Masked: first 6 and last 4 digits."))),
});

export const ReducedReceipt = v.omit(Receipt, ["cancel_date", "is_verify", "rrn", "card_number"]);

export const AuthorizeResult = v.object({
  id: v.string(),
  sent: v.literal(true),
  phone: v.pipe(v.string(), v.description("Masked phone the OTP went to.")),
  wait: v.pipe(v.number(), v.description("Milliseconds before a resend is allowed.")),
});

export const Party = v.object({
  masked_pan: v.string(),
  holder_name: v.optional(v.string()),
  amount: v.number(),
  currency: v.number(),
  commission: v.number(),
  phone: Nullable(v.string()),
});

export const TransferReceipt = v.object({
  tid: v.string(),
  receipt_id: v.pipe(v.string(), v.description("ULID")),
  description: Nullable(v.string()),
  state: v.number(),
  type: v.number(),
  created_date: v.number(),
  pay_date: Nullable(v.number()),
  cancel_date: Nullable(v.number()),
  sender: Party,
  receiver: Party,
  error: Nullable(v.string()),
  ofd: Nullable(v.record(v.string(), v.unknown())),
  is_verify: v.boolean(),
});

export const ErrorBody = v.object({
  error: v.object({
    code: v.string(),
    message: v.string(),
    request_id: v.string(),
    details: v.optional(v.array(v.object({ path: v.string(), message: v.string() }))),
    attempts_left: v.optional(v.number()),
    upstream_code: v.optional(v.string()),
    decline_reason: v.optional(v.string()),
  }),
});

// ---------------------------------------------------------------------------
// Events (the gateway's own operations, and the webhooks it sends)

export const EventId = v.pipe(
  v.string(),
  v.regex(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/, "id must be evt_ followed by a ULID"),
  v.description("Event id: `evt_` and a ULID, so ids sort by time. The `webhook-id` of every delivery of the event."),
);

export const EventTypeName = v.pipe(
  v.picklist(EVENT_TYPE_NAMES, "type must be an event type"),
  v.description(
    Object.entries(EVENT_TYPES)
      .map(([type, when]) => `\`${type}\`: ${when}`)
      .join("\n"),
  ),
);

export const DeliveryStatusName = v.pipe(
  v.picklist(DELIVERY_STATUSES, "delivery must be pending, delivered or failed"),
  v.description("`pending`: queued or being retried; `delivered`: the receiver answered 2xx; `failed`: every retry failed (resend it)."),
);

export const Event = v.pipe(
  v.object({
    id: EventId,
    type: EventTypeName,
    created: v.pipe(v.number(), v.description("Milliseconds since the epoch.")),
    sequence: v.pipe(v.number(), v.description("Per receipt or transfer: 1, 2, ... Order of delivery is not guaranteed; ignore an event whose sequence is not above the last one applied.")),
    request_id: v.pipe(v.string(), v.description("The X-Request-Id of the call that caused it (or of the gateway's own reconciliation).")),
    data: v.object({
      object: v.pipe(v.union([Receipt, TransferReceipt]), v.description("The Receipt (receipt.*) or Transfer receipt (transfer.*) as the API returns it: masked card numbers only.")),
      owner: v.pipe(v.string(), v.description("`partner`, or the `sub` of the user who owns it.")),
      previous_state: v.pipe(v.nullable(v.number()), v.description("The state before this change; null for a create.")),
    }),
  }),
  v.description("An event: one change of a receipt or transfer, POSTed as JSON to WEBHOOK_URL and listed by events/list."),
);

export const EventDelivery = v.object({
  status: DeliveryStatusName,
  attempts: v.pipe(v.number(), v.description("Delivery attempts so far, resends included.")),
  last_status: v.pipe(v.nullable(v.number()), v.description("The receiver's last HTTP status; null if it never answered (timeout, network error) or no attempt was made yet.")),
  last_error: v.pipe(v.nullable(v.string()), v.description("Why the last attempt failed; null after a success.")),
  delivered_at: v.pipe(v.nullable(v.number()), v.description("Milliseconds; when a delivery got a 2xx.")),
});

export const EventWithDelivery = v.object({ ...Event.entries, delivery: EventDelivery });

export const ListEventsRequest = v.object({
  receipt_id: v.optional(v.pipe(ReceiptId, v.description("Only this receipt's (or transfer's `receipt_id`) events."))),
  type: v.optional(EventTypeName),
  delivery: v.optional(DeliveryStatusName),
  after: v.optional(v.pipe(EventId, v.description("The last event id of the previous page: answers events older than it."))),
  limit: v.optional(
    v.pipe(
      v.number("limit must be a number"),
      v.integer("limit must be an integer"),
      v.minValue(1, "limit must be 1 to 100"),
      v.maxValue(100, "limit must be 1 to 100"),
    ),
    20,
  ),
});

export const ListEventsResult = v.object({
  events: v.pipe(v.array(EventWithDelivery), v.description("Newest first.")),
  has_more: v.pipe(v.boolean(), v.description("Older events match too: ask again with `after` set to the last id of this page.")),
});

export const EventIdRequest = v.object({ id: EventId });

export type CreateReceiptInput = v.InferOutput<typeof CreateReceiptRequest>;
export type CreateTransferInput = v.InferOutput<typeof CreateTransferRequest>;
export type ReceiptBody = v.InferOutput<typeof Receipt>;
export type ReducedReceiptBody = v.InferOutput<typeof ReducedReceipt>;
export type TransferBody = v.InferOutput<typeof TransferReceipt>;
export type AuthorizeBody = v.InferOutput<typeof AuthorizeResult>;
export type TokenCardInput = v.InferOutput<typeof TokenCard>;
export type NumberCardInput = v.InferOutput<typeof NumberCard>;
export type ListEventsInput = v.InferOutput<typeof ListEventsRequest>;

// ---------------------------------------------------------------------------
// The audit trail (the gateway's own operation receipt/audit)

export const AuditRequest = v.object({
  id: ReceiptId,
  kind: v.optional(v.picklist(["receipt", "transfer"], "kind must be receipt or transfer"), "receipt"),
});

export const AuditEntry = v.object({
  at: v.pipe(v.number(), v.description("Milliseconds since the epoch.")),
  op: v.pipe(v.string(), v.description("create, authorize, pay, hold-confirm, cancel, read, or reconcile (the gateway's own).")),
  actor: v.pipe(v.string(), v.description("partner, user:<sub>, or gateway (its own reconciliation).")),
  request_id: v.string(),
  outcome: v.pipe(v.string(), v.description("ok, or the error code answered.")),
  state: v.nullable(v.number()),
});

export const AuditTrailResult = v.object({
  id: v.string(),
  kind: v.picklist(["receipt", "transfer"]),
  owner: v.pipe(v.string(), v.description('"partner", or the user\'s sub, as events show it.')),
  entries: v.array(AuditEntry),
});
