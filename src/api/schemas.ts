/**
 * The shapes the gateway accepts and returns, as valibot schemas: the fields
 * every request is built of, the requests more than one operation or module
 * reads (the creates, a bare id, the cards), and the answers. An operation's
 * own request is in its description (src/operations/), built of these fields;
 * the events' shapes are in src/events/schemas.ts. Requests validate at the
 * edge (and type the handlers); every schema feeds the OpenAPI document.
 */
import * as v from "valibot";
import { RISK_RULE_NAMES } from "../config/risk-limits";
import {
  AUTHORIZED,
  EXAMPLE_EVENT_ID,
  EXAMPLE_RECEIPT_ID,
  EXAMPLE_TRANSFER_ID,
  RECEIPT_CREATED,
  REDUCED_RECEIPT_PAID,
  TRANSFER_CREATED,
} from "./examples";

// Valibot's default messages quote the value received, which for a card
// number or an OTP is exactly what must never be echoed. Say what was expected.
v.setGlobalMessage((issue) => (issue.kind === "schema" ? `expected ${issue.expected ?? issue.type}` : `invalid ${issue.type}`));

// ---------------------------------------------------------------------------
// Field rules

const MAX_AMOUNT = Number.MAX_SAFE_INTEGER;

/**
 * Documentation only: amounts, timestamps and numeric ids are 64-bit integers
 * in the OpenAPI document (valibot's `integer` says nothing about width).
 */
export const int32 = () => v.metadata<number, { format: "int32" }>({ format: "int32" });
export const int64 = () => v.metadata<number, { format: "int64" }>({ format: "int64" });

/** An integer field of an answer: documented as int64, typed as a number. */
export const Int = (description?: string) =>
  description === undefined ? v.pipe(v.number(), v.integer(), int64()) : v.pipe(v.number(), v.integer(), int64(), v.description(description));

/** A count of code points, as JSON Schema's maxLength counts (valibot's maxLength counts UTF-16 units). */
/**
 * Documentation only: the longest value a field's pattern admits, as
 * `maxLength`, so a reader (and a linter) sees the bound without reading the
 * regex. Validation is the regex, unchanged.
 */
export const bounded = (max: number) => v.metadata<string, { maxLength: number }>({ maxLength: max });

const codePoints = (value: string) => [...value].length;

/**
 * Text of at most `max` characters, counted as code points, so the server and
 * the document's `maxLength` agree on what a character is (an emoji is one).
 */
export const MaxText = (max: number, message: string) =>
  [v.check((value: string) => codePoints(value) <= max, message), v.metadata<string, { maxLength: number }>({ maxLength: max })] as const;

/** Receipt states, as the payment service numbers them, with their names. */
export const RECEIPT_STATE_NAMES = { 0: "created", 4: "paid", 5: "held", 21: "cancelled", 57: "awaiting_supplier" } as const;
export const RECEIPT_STATES = [0, 4, 5, 21, 57] as const;
/** Transfer states: the upstream publishes none; the sandbox (and docs/upstream.md) use these three. */
export const TRANSFER_STATES = [0, 4, 21] as const;

/**
 * Rule 11's Idempotency-Key: 1 to 255 printable ASCII characters, neither
 * the first nor the last a space. HTTP trims the spaces around a header's
 * value, so a key of spaces only arrives empty and one with a space at
 * either end arrives as another key: the document and the gateway refuse
 * them alike (src/operations/openapi.ts documents it, src/operations/operation.ts
 * checks it).
 */
export const IDEMPOTENCY_KEY_PATTERN = "^[\\x21-\\x7E](?:[\\x20-\\x7E]{0,253}[\\x21-\\x7E])?$";

/** A JSON Schema `const` with its `type`: generators type a bare `const` as a string or `any`. */
const typed = <T>(type: "boolean" | "string") => v.metadata<T, { type: string }>({ type });

export const Tid = v.pipe(
  v.string(),
  v.regex(
    /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/,
    "tid must be 1-64 ASCII characters: letters A-Z or a-z, digits, '.', '_', ':' or '-', starting with a letter or digit",
  ),
  bounded(64),
  v.description(
    "The caller's own transaction id, ASCII only: unique per caller (the partner's tids and each user's are separate spaces, rule 9); receipts and transfers share the space.",
  ),
);

export const ReceiptId = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9_-]{1,64}$/, "id must be 1-64 characters: letters, digits, '_' or '-'"),
  bounded(64),
  v.description("Receipt id returned by create (`id`, or `receipt_id` for transfers)."),
);

export const Amount = v.pipe(
  v.number("amount must be a number"),
  v.integer("amount must be an integer number of tiyin"),
  v.minValue(1, "amount must be positive"),
  v.maxValue(MAX_AMOUNT, "amount must be at most 2^53-1"),
  int64(),
  v.description("Amount in tiyin (1/100 of a sum)."),
);

export const Currency = v.pipe(
  v.literal(860, "currency must be 860 (UZS)"),
  v.metadata<860, { type: "integer"; format: "int32" }>({ type: "integer", format: "int32" }),
  v.description("ISO 4217 numeric code; only 860 (UZS) is supported."),
);

/** A currency as the payment service answers it (ISO 4217 numeric, 860 for UZS). */
const AnswerCurrency = () => v.pipe(v.number(), v.integer(), int32(), v.description("ISO 4217 numeric code: 860 (UZS)."));
/** A small integer of the answers (counts, codes, kinds). */
const SmallInt = (description?: string) =>
  description === undefined ? v.pipe(v.number(), v.integer(), int32()) : v.pipe(v.number(), v.integer(), int32(), v.description(description));

export const PositiveId = (name: string) =>
  v.pipe(
    v.number(`${name} must be a number`),
    v.integer(`${name} must be an integer`),
    v.minValue(1, `${name} must be positive`),
    v.maxValue(MAX_AMOUNT, `${name} is too large`),
    int64(),
  );

export const CardToken = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9_.:=+/-]{1,256}$/, "card token must be 1-256 URL-safe characters"),
  bounded(256),
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
  bounded(19),
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
  v.regex(/^\d{2}(0[1-9]|1[0-2])$/, "expire must be yyMM"),
  bounded(4),
  v.check((value) => isValidExpiry(value), "expire must be a real month (yyMM) that has not passed"),
  v.description("Card expiry, yyMM. Never stored or logged by the gateway."),
);

export const Otp = v.pipe(
  v.string("otp must be a string of digits"),
  v.regex(/^\d{4,8}$/, "otp must be 4 to 8 digits"),
  bounded(8),
  v.description("One-time code sent to the card owner. Never stored or logged by the gateway."),
);

export const Text = (max: number) => v.pipe(v.string(), ...MaxText(max, `must be at most ${max} characters`));

const ACCOUNT_ENTRY_FIELDS = {
  key: v.pipe(v.string(), v.minLength(1, "key must not be empty"), ...MaxText(64, "key must be at most 64 characters")),
  value: Text(256),
  label: v.optional(Text(128)),
};

/** An account entry as the payment service answers it: passed through, whatever else it carries. */
export const AccountEntry = v.pipe(
  v.object(ACCOUNT_ENTRY_FIELDS),
  v.title("AccountEntry"),
  v.description("One field of the merchant's account form (a phone number, a contract number)."),
);

/** An account entry as a create sends it: its three fields and no other. */
export const AccountEntryInput = v.pipe(
  v.strictObject(ACCOUNT_ENTRY_FIELDS),
  v.title("AccountEntryInput"),
  v.description("One field of the merchant's account form (a phone number, a contract number), as a create sends it: no other field."),
);

// ---------------------------------------------------------------------------
// Requests shared by several operations or read by other modules (an
// operation's own request is in its description, src/operations/). Every
// request object, at every depth, is a strictObject: a field it does not
// define is refused (src/http/http.ts names it), never dropped, so a misspelt
// field cannot change what the gateway does, and the document says
// `additionalProperties: false`.

// Examples use the sandbox's values (src/sandbox/catalog.ts): merchant 1001,
// card token tok_sandbox_ok, OTP 111111, card 8600000000000007 expiring 3012.
export { EXAMPLE_EVENT_ID, EXAMPLE_RECEIPT_ID, EXAMPLE_TRANSFER_ID };
export const EXAMPLE_CARD = { number: "8600000000000007", expire: "3012" };

export const CreateReceiptRequest = v.pipe(
  v.strictObject({
    tid: Tid,
    amount: Amount,
    merchant_id: v.pipe(PositiveId("merchant_id"), v.description("Merchant id at the payment service.")),
    account: v.pipe(v.array(AccountEntryInput), v.maxLength(20, "at most 20 account entries")),
    description: v.optional(Text(256)),
    is_hold: v.optional(v.boolean("is_hold must be a boolean"), false),
    currency: v.optional(Currency, 860),
  }),
  v.examples([
    {
      tid: "order-2026-0001",
      amount: 1500000,
      merchant_id: 1001,
      account: [{ key: "phone", value: "998901234567" }],
      description: "Mobile top-up",
      is_hold: false,
      currency: 860,
    },
  ]),
  v.title("CreateReceiptRequest"),
);

export const ReceiptIdRequest = v.pipe(v.strictObject({ id: ReceiptId }), v.examples([{ id: EXAMPLE_RECEIPT_ID }]), v.title("ReceiptIdRequest"));

export const TokenCard = v.pipe(v.strictObject({ token: CardToken }), v.title("TokenCard"));
export const NumberCard = v.pipe(v.strictObject({ number: CardNumber, expire: Expire }), v.title("NumberCard"));

// ---------------------------------------------------------------------------
// Responses (documentation; the upstream client builds these shapes)

const Nullable = <T extends v.GenericSchema>(s: T) => v.nullable(s);

/**
 * One entry of a merchant's `fields`. The payment service does not publish
 * what an entry holds (its one sample is an empty list), so the gateway
 * passes each entry on whole, as an open object: nothing about it is typed
 * but that it is an object (src/upstream/normalize.ts drops anything else).
 */
export const MerchantField = v.pipe(
  v.looseObject({}),
  v.metadata<Record<string, unknown>, { additionalProperties: true }>({ additionalProperties: true }),
  v.title("MerchantField"),
  v.description("One of the merchant's fields, as the payment service sends it: what an entry holds is not published, so it is passed on whole."),
);

export const Merchant = v.pipe(
  v.object({
    merchant_id: Int(),
    merchant_name: v.string(),
    category_id: v.optional(Int()),
    category_name: v.optional(v.string()),
    logo_url: v.optional(Nullable(v.string())),
    min_amount: v.optional(Int("Tiyin.")),
    max_amount: v.optional(Int("Tiyin.")),
    fields: v.optional(
      v.pipe(
        v.array(MerchantField),
        v.description("The merchant's fields as the payment service sends them (its anonymous pay answer shows an empty list)."),
      ),
    ),
  }),
  v.title("MerchantDetails"),
);

/** A fiscal line item of a Sale (shape A). */
const SaleItem = v.looseObject({
  title: v.string(),
  unit_price: Int("Tiyin."),
  count: SmallInt(),
  spic: v.string(),
  pinfl: v.string(),
  tin: v.string(),
  package_code: v.string(),
  units: SmallInt(),
  vat_percent: SmallInt(),
  discount: Int("Tiyin."),
});

/** A fiscal line item of a Refund (shape B). */
const RefundItem = v.looseObject({
  name: v.string(),
  price: Int("Tiyin."),
  quantity: SmallInt(),
  sum: Int("Tiyin."),
});

export const Ofd = v.pipe(
  v.looseObject({
    id: v.optional(v.string()),
    code: v.optional(SmallInt()),
    message: v.optional(v.string()),
    terminalId: v.optional(v.string()),
    receiptId: v.optional(Int()),
    time: v.optional(v.pipe(v.string(), v.description("As the fiscal operator sends it: compact Tashkent time (Sale) or ISO 8601 (Refund)."))),
    fiscalSign: v.optional(v.string()),
    qrCodeUrl: v.optional(v.string()),
    partnerFiscaliztionUrl: v.optional(v.pipe(v.string(), v.description("Spelled as the payment service spells it."))),
    tin: v.optional(v.string()),
    spic: v.optional(v.string()),
    vatRate: v.optional(SmallInt("Percent.")),
    label: v.optional(v.string()),
    packageCode: v.optional(v.string()),
    type: v.optional(v.picklist(["Sale", "Refund"])),
    merchantInfo: v.optional(
      v.looseObject({ name: v.optional(v.string()), tin: v.optional(v.string()), address: v.optional(v.string()), pinfl: v.optional(v.string()) }),
    ),
    items: v.optional(v.union([v.array(SaleItem), v.array(RefundItem)])),
  }),
  v.title("OfdDetails"),
  v.description("Fiscal data (OFDResponseDetails) as the payment service sends it; present for a Sale. Fields beyond these are passed through."),
);

/**
 * A state field: its enum, each value's name (`x-enum-varnames`, which
 * generators make enum members of) and a component of its own (`title`).
 */
const StateOf = (title: string, states: readonly number[], description: string) =>
  v.pipe(
    v.number(),
    v.integer(),
    v.metadata<number, Record<string, unknown>>({
      type: "integer",
      format: "int32",
      enum: states,
      "x-enum-varnames": states.map((state) => RECEIPT_STATE_NAMES[state as keyof typeof RECEIPT_STATE_NAMES]),
    }),
    v.title(title),
    v.description(description),
  );

export const ReceiptState = StateOf("ReceiptState", RECEIPT_STATES, "0 created, 4 paid, 5 held, 21 cancelled, 57 awaiting the supplier's response.");
export const TransferState = StateOf("TransferState", TRANSFER_STATES, "As the payment service reports it: 0 created, 4 paid, 21 cancelled.");

const ReceiptFields = v.object({
  tid: v.string(),
  id: v.string(),
  state: ReceiptState,
  create_date: Int("Milliseconds since the epoch."),
  pay_date: Int("Milliseconds; 0 while unpaid."),
  cancel_date: Int("Milliseconds; 0 while not cancelled."),
  error: Nullable(v.string()),
  type: SmallInt("The payment service's receipt type: 1 for a payment."),
  description: Nullable(v.string()),
  merchant: Merchant,
  account: v.array(AccountEntry),
  ofd: Nullable(Ofd),
  amount: Int("Tiyin."),
  init_amount: Int("Tiyin."),
  currency: AnswerCurrency(),
  commission: Int("Tiyin."),
  is_verify: v.boolean(),
  rrn: Nullable(v.string()),
  card_number: Nullable(v.pipe(v.string(), v.description("Masked: first 6 and last 4 digits."))),
});

export const Receipt = v.pipe(ReceiptFields, v.title("Receipt"), v.examples([RECEIPT_CREATED]));

export const ReducedReceipt = v.pipe(
  v.omit(ReceiptFields, ["cancel_date", "is_verify", "rrn", "card_number"]),
  v.title("ReducedReceipt"),
  v.examples([REDUCED_RECEIPT_PAID]),
);

export const AuthorizeResult = v.pipe(
  v.object({
    id: v.string(),
    sent: v.pipe(v.literal(true), typed<true>("boolean")),
    phone: v.pipe(v.string(), v.description("Masked phone the OTP went to.")),
    wait: Int("Milliseconds before a resend is allowed."),
  }),
  v.title("AuthorizeResult"),
  v.examples([AUTHORIZED]),
);

export const Party = v.pipe(
  v.object({
    masked_pan: v.string(),
    holder_name: v.optional(v.string()),
    amount: Int("Tiyin."),
    currency: AnswerCurrency(),
    commission: Int("Tiyin."),
    phone: Nullable(v.string()),
  }),
  v.title("Party"),
);

/** A transfer's fiscal data, as the payment service describes it (its samples show null); fields beyond these are passed through. */
export const TransferOfd = v.pipe(
  v.looseObject({
    url: v.optional(v.pipe(v.string(), v.description("Address of the fiscal receipt."))),
    terminal_id: v.optional(v.pipe(v.string(), v.description("The fiscal terminal's id."))),
    fiscal_sign: v.optional(v.pipe(v.string(), v.description("Fiscal sign."))),
  }),
  v.title("TransferOfd"),
  v.description("Fiscal data of a transfer (null until there is any). Fields beyond these are passed through as the payment service sends them."),
);

export const TransferReceipt = v.pipe(
  v.object({
    tid: v.string(),
    receipt_id: v.pipe(v.string(), v.description("ULID")),
    description: Nullable(v.string()),
    state: TransferState,
    type: SmallInt("The payment service's receipt type: 6 for a card-to-card transfer."),
    created_date: Int("Milliseconds since the epoch."),
    pay_date: Nullable(Int("Milliseconds.")),
    cancel_date: Nullable(Int("Milliseconds.")),
    sender: Party,
    receiver: Party,
    error: Nullable(v.string()),
    ofd: Nullable(TransferOfd),
    is_verify: v.boolean(),
  }),
  v.title("TransferReceipt"),
  v.examples([TRANSFER_CREATED]),
);

export const ErrorFields = v.object({
  code: v.pipe(
    v.string(),
    v.description("The contract's error code (ErrorCode); each response lists the codes its status carries on that operation."),
  ),
  message: v.pipe(v.string(), v.description("For a developer; never contains a card number or OTP.")),
  user_message: v.pipe(
    v.string(),
    v.description(
      "For the app's user, to show as it is: what happened and what to do, in the language Accept-Language prefers among `uz` (Uzbek, Latin script), `uz-Cyrl` (Uzbek, Cyrillic script), `ru` and `en` (the default), which Content-Language names. The ErrorCode component's `x-user-messages` lists every code's texts, and `x-decline-reason-user-messages` card_declined's by `decline_reason`.",
    ),
  ),
  request_id: v.pipe(v.string(), v.description("The X-Request-Id of this call.")),
  details: v.optional(
    v.pipe(
      v.array(v.object({ path: v.string(), message: v.string() })),
      v.metadata<{ path: string; message: string }[], { maxItems: number }>({ maxItems: 20 }),
      v.description("invalid_request: what is wrong, at most 20 entries."),
    ),
  ),
  attempts_left: v.optional(v.pipe(v.number(), v.integer(), int32(), v.description("otp_invalid: guesses left."))),
  upstream_code: v.optional(v.pipe(v.string(), v.description("Errors that came from the payment service: its code."))),
  decline_reason: v.optional(v.pipe(v.string(), v.description("card_declined: why, e.g. `insufficient_funds`."))),
  min_amount: v.optional(Int("amount_out_of_range: the merchant's minimum, tiyin.")),
  max_amount: v.optional(Int("amount_out_of_range: the merchant's maximum, tiyin.")),
  rule: v.optional(
    v.pipe(
      v.picklist(RISK_RULE_NAMES),
      v.description(
        "risk_limited: the limit of rule 13 the call is past (RISK_LIMITS names each): a user's uses of a card, a card's users, a user's payer or receiver cards, a user's OTP sends in all or to a card.",
      ),
    ),
  ),
});

export const ErrorBody = v.pipe(v.object({ error: ErrorFields }), v.title("Error"));

export type CreateReceiptInput = v.InferOutput<typeof CreateReceiptRequest>;
/** `ofd` is passed through as the payment service sends it: any object (OfdDetails and TransferOfd document the known fields). */
type OfdBody = Record<string, unknown>;
export type ReceiptBody = Omit<v.InferOutput<typeof Receipt>, "ofd"> & { ofd: OfdBody | null };
export type ReducedReceiptBody = Omit<v.InferOutput<typeof ReducedReceipt>, "ofd"> & { ofd: OfdBody | null };
export type TransferBody = Omit<v.InferOutput<typeof TransferReceipt>, "ofd"> & { ofd: OfdBody | null };
export type AuthorizeBody = v.InferOutput<typeof AuthorizeResult>;
export type TokenCardInput = v.InferOutput<typeof TokenCard>;
export type NumberCardInput = v.InferOutput<typeof NumberCard>;
