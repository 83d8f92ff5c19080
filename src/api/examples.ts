/**
 * The examples of the OpenAPI document: what the sandbox answers to each
 * operation's documented request (src/operations/), with its ids, dates and
 * fiscal signatures fixed. The events' examples are built of these records
 * (src/events/examples.ts) and each error code's example stands in its row
 * of the error table (src/errors/error-codes.ts). test/docs/examples.test.ts sends
 * every documented request to the gateway and holds each answer to its
 * example (all but the values that differ per call), and validates every
 * example against its schema.
 *
 * Plain values that import nothing, so that the schemas, the error table and
 * the events can all show them.
 */
export const EXAMPLE_RECEIPT_ID = "6571a4f0c8a5b2d1e3f40a11";
export const EXAMPLE_TRANSFER_ID = "01JDQ3ZK6Y8N4W5X2V7T9R1M0B";
export const EXAMPLE_EVENT_ID = "evt_01JDQ3ZK6Y8N4W5X2V7T9R1M0C";
export const EXAMPLE_REQUEST_ID = "3f1c2a9e-7b4d-4e8a-9c1f-2d6b8e0a5f13";
const CREATED = 1795334400000;
const PAID = 1795334460000;
const CANCELLED = 1795334520000;

const MERCHANT = {
  merchant_id: 1001,
  merchant_name: "Sandbox Mobile",
  category_id: 1,
  category_name: "Mobile operators",
  logo_url: "https://sandbox.upstream.invalid/logos/1001.png",
  min_amount: 100000,
  max_amount: 500000000,
};

const SALE_OFD = {
  id: "5f039517-5692-4e93-b3c8-1d9a1fc23795",
  code: 0,
  message: "accepted",
  terminalId: "EZ000000000312",
  receiptId: 534526,
  time: "20261122004100",
  fiscalSign: "987796477570",
  qrCodeUrl: "https://ofd.soliq.uz/check?t=EZ000000000312&r=534526&c=20261122004100&s=987796477570",
};

const SALE_DETAILS = {
  tin: "301234567",
  spic: "10305001001000000",
  vatRate: 12,
  label: "Sandbox Mobile",
  packageCode: "1495381",
  type: "Sale",
  merchantInfo: { name: "Sandbox Mobile", tin: "301234567", address: "Tashkent, Amir Temur 1" },
  items: [
    {
      title: "Mobile top-up",
      unit_price: 1500000,
      count: 1,
      spic: "10305001001000000",
      pinfl: "",
      tin: "301234567",
      package_code: "1495381",
      units: 1,
      vat_percent: 12,
      discount: 0,
    },
  ],
};

const REFUND_OFD = {
  id: "a14a0d9c-ed98-421f-9ec5-057700fca5f6",
  code: 0,
  message: "accepted",
  terminalId: "EZ000000000312",
  receiptId: 4176178,
  time: "2026-11-22T00:42:00.000Z",
  fiscalSign: "245977760765",
  qrCodeUrl: "https://ofd.soliq.uz/check?t=EZ000000000312&r=4176178&c=2026-11-22T00:42:00.000Z&s=245977760765",
  partnerFiscaliztionUrl: `https://sandbox.upstream.invalid/fiscal/${EXAMPLE_RECEIPT_ID}/refund`,
  tin: "301234567",
  spic: "10305001001000000",
  vatRate: 12,
  label: "Sandbox Mobile",
  packageCode: "1495381",
  type: "Refund",
  merchantInfo: { tin: "301234567", pinfl: "" },
  items: [{ name: "Mobile top-up", price: 1500000, quantity: 1, sum: 1500000 }],
};

/** The receipt create makes from CreateReceiptRequest's example: state 0, type 1. */
export const RECEIPT_CREATED = {
  tid: "order-2026-0001",
  id: EXAMPLE_RECEIPT_ID,
  state: 0,
  create_date: CREATED,
  pay_date: 0,
  cancel_date: 0,
  error: null,
  type: 1,
  description: "Mobile top-up",
  merchant: MERCHANT,
  account: [{ key: "phone", value: "998901234567" }],
  ofd: null,
  amount: 1500000,
  init_amount: 0,
  currency: 860,
  commission: 0,
  is_verify: true,
  rrn: null,
  card_number: null,
};

/** Paid with tok_sandbox_ok and OTP 111111: state 4, fiscalized (a Sale). */
export const RECEIPT_PAID = {
  ...RECEIPT_CREATED,
  state: 4,
  pay_date: PAID,
  ofd: { ...SALE_OFD, ...SALE_DETAILS },
  rrn: "342030662739",
  card_number: "860049******0011",
};

/** A created receipt paid with `is_hold`: state 5, nothing fiscalized yet. */
export const RECEIPT_HELD = { ...RECEIPT_CREATED, state: 5, rrn: "342030662739", card_number: "860049******0011" };

/** The paid receipt cancelled: state 21, the refund fiscalized. */
export const RECEIPT_CANCELLED = { ...RECEIPT_PAID, state: 21, cancel_date: CANCELLED, ofd: REFUND_OFD };

/** anonymous/pay's reduced receipt: no cancel_date, is_verify, rrn, card_number; the short fiscal data. */
export const REDUCED_RECEIPT_PAID = (() => {
  const { cancel_date: _c, is_verify: _v, rrn: _r, card_number: _n, ...rest } = RECEIPT_PAID;
  return { ...rest, error: "", merchant: { ...MERCHANT, fields: [] }, ofd: SALE_OFD };
})();

/** authorize with tok_sandbox_ok: the OTP went to the card owner's phone, masked as the service masks it. */
export const AUTHORIZED = { id: EXAMPLE_RECEIPT_ID, sent: true as const, phone: "+998 90 *** ** 67", wait: 60000 };
/** anonymous/authorize with card 8600000000000007. */
export const AUTHORIZED_ANONYMOUS = { ...AUTHORIZED, phone: "+998 93 *** ** 07" };

/** The transfer a2c/create makes from CreateTransferRequest's example: state 0, type 6. */
export const TRANSFER_CREATED = {
  tid: "transfer-2026-0001",
  receipt_id: EXAMPLE_TRANSFER_ID,
  description: "Card transfer to 986000******0018",
  state: 0,
  type: 6,
  created_date: CREATED,
  pay_date: null,
  cancel_date: null,
  sender: {
    masked_pan: "860049******0011",
    holder_name: "SANDBOX OK",
    amount: 1507500,
    currency: 860,
    commission: 7500,
    phone: "+998 90 *** ** 67",
  },
  receiver: { masked_pan: "986000******0018", holder_name: "SANDBOX RECEIVER", amount: 1500000, currency: 860, commission: 0, phone: null },
  error: "",
  ofd: null,
  is_verify: true,
};

export const TRANSFER_PAID = { ...TRANSFER_CREATED, state: 4, pay_date: PAID };

/**
 * fiscal/pending's page (rule 14): a receipt paid with tok_sandbox_fiscal_late,
 * its fiscal data still missing after the first scheduled read.
 */
export const FISCAL_PENDING_PAGE = {
  receipts: [{ id: EXAMPLE_RECEIPT_ID, tid: "order-2026-0001", amount: 1500000, state: 4, since: PAID, reads: 1 }],
  has_more: false,
};

export const AUDIT_TRAIL = {
  id: EXAMPLE_RECEIPT_ID,
  kind: "receipt",
  owner: "partner",
  entries: [
    { at: CREATED, op: "create", actor: "partner", request_id: "a532ca57-82f1-476e-847e-e5602f5b0aef", outcome: "ok", state: 0 },
    { at: CREATED + 30000, op: "authorize", actor: "partner", request_id: "73fa781c-89cc-450d-97a5-2423795f52cd", outcome: "ok", state: 0 },
    { at: PAID, op: "pay", actor: "partner", request_id: "20c816c4-ac75-4952-a16b-b67dfcc2f9e4", outcome: "ok", state: 4 },
  ],
};

/** audit/search's page (rule 15): a receipt's first entries, from the audit trail in R2. */
export const AUDIT_SEARCH_PAGE = {
  entries: [
    {
      id: `r:${EXAMPLE_RECEIPT_ID}:${CREATED}:0`,
      at: CREATED,
      source: "record",
      op: "create",
      actor: "partner",
      request_id: "a532ca57-82f1-476e-847e-e5602f5b0aef",
      outcome: "ok",
      state: 0,
      kind: "receipt",
      receipt_id: EXAMPLE_RECEIPT_ID,
      detail: { tid: "order-2026-0001", amount: 1500000, merchant_id: 1001, account: [{ key: "phone", value: "998901234567" }] },
    },
    {
      id: `r:${EXAMPLE_RECEIPT_ID}:${PAID}:0`,
      at: PAID,
      source: "record",
      op: "pay",
      actor: "partner",
      request_id: "20c816c4-ac75-4952-a16b-b67dfcc2f9e4",
      outcome: "ok",
      state: 4,
      kind: "receipt",
      receipt_id: EXAMPLE_RECEIPT_ID,
    },
  ],
  has_more: false,
};
