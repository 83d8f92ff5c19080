// How stored records look on the upstream wire. The quirks here (comission,
// seconds vs milliseconds, tId) are the upstream's and are kept on purpose:
// the gateway has to normalize them, and the sandbox must make it do so.
import { type CardBehaviour, cardByToken, findMerchant, type Merchant, tokenOfBehaviour } from "./catalog";

export const RECEIPT_TYPE_PAYMENT = 1;
export const TRANSFER_TYPE_A2C = 6;

export const State = { created: 0, paid: 4, held: 5, cancelled: 21, supplierPending: 57 } as const;

export type ReceiptRow = {
  id: string;
  tid: string;
  merchant_id: number;
  amount: number;
  commission: number;
  currency: number;
  description: string | null;
  account: string; // JSON
  is_hold: number;
  is_verify: number;
  state: number;
  created_ms: number;
  paid_ms: number | null;
  cancelled_ms: number | null;
  error: string | null;
  rrn: string | null;
  card_number: string | null; // masked
  card_behaviour: string | null;
  hold_status: string | null; // held | confirmed | released
  ofd: string | null; // JSON
  otp_attempts: number;
  wrong_otps: number;
  otp_sent_ms: number | null;
  expired_otps: number;
  cancel_reason: string | null;
  cancelled_by: string | null;
  supplier_due_ms: number | null; // when the supplier answers a 57 receipt
  late_pay_due_ms: number | null; // when a tok_sandbox_pays_late pay takes effect
  fiscal_due_ms: number | null; // when the fiscal data of a tok_sandbox_fiscal_late sale or refund appears
  clock_offset_ms: number; // how far this receipt's own time runs ahead of the sandbox's (its test clock)
};

export type TransferRow = {
  id: string;
  tid: string;
  amount: number;
  commission: number;
  rate_id: number;
  sender_behaviour: string;
  receiver_pan: string; // masked
  receiver_unavailable: number;
  is_verify: number;
  state: number;
  created_ms: number;
  paid_ms: number | null;
  cancelled_ms: number | null;
  error: string;
  otp_attempts: number;
  wrong_otps: number;
  late_pay_due_ms: number | null; // when a tok_sandbox_pays_late pay takes effect
  clock_offset_ms: number; // how far this transfer's own time runs ahead of the sandbox's (its test clock)
};

export type AccountEntry = { key: string; value: string; label?: string };

export type MerchantDetails = Pick<
  Merchant,
  "merchant_id" | "merchant_name" | "category_id" | "category_name" | "logo_url" | "min_amount" | "max_amount"
>;

export type SaleItem = {
  title: string;
  unit_price: number;
  count: number;
  spic: string;
  pinfl: string;
  tin: string;
  package_code: string;
  units: number;
  vat_percent: number;
  discount: number;
};
export type RefundItem = { name: string; price: number; quantity: number; sum: number };

export type Ofd = {
  id: string;
  code: number;
  message: string;
  terminalId: string;
  receiptId: number;
  time: string;
  fiscalSign: string;
  qrCodeUrl: string;
  partnerFiscaliztionUrl?: string;
  tin: string;
  spic: string;
  vatRate: number;
  label: string;
  packageCode: string;
  type: "Sale" | "Refund";
  merchantInfo: { name: string; tin: string; address: string } | { tin: string; pinfl: string };
  items: SaleItem[] | RefundItem[];
};

export type ShortOfd = Pick<Ofd, "id" | "code" | "message" | "terminalId" | "receiptId" | "time" | "fiscalSign" | "qrCodeUrl">;

export type WireReceipt = {
  tid: string;
  id: string;
  state: number;
  create_date: number;
  pay_date: number;
  cancel_date: number;
  error: string | null;
  type: number;
  description: string | null;
  merchant: MerchantDetails;
  account: AccountEntry[];
  ofd: Ofd | null;
  amount: number;
  init_amount: number;
  currency: number;
  comission: number;
  is_verify: boolean;
  rrn: string | null;
  card_number: string | null;
};

export type ReducedReceipt = {
  tid: string;
  id: string;
  state: number;
  create_date: number;
  pay_date: number;
  error: string;
  type: number;
  description: string | null;
  merchant: MerchantDetails & { fields: never[] };
  account: AccountEntry[];
  ofd: ShortOfd | null;
  amount: number;
  init_amount: number;
  currency: number;
  commission: number;
};

export type Party = {
  masked_pan: string;
  token?: string;
  holder_name: string;
  amount: number;
  currency: number;
  commission: number;
  phone: string | null;
};

export type WireTransfer = {
  tId: string;
  receipt_id: string;
  description: string;
  state: number;
  type: number;
  created_date: number;
  pay_date: number | null;
  cancel_date: number | null;
  sender: Party;
  receiver: Party;
  error: string;
  ofd: null;
  is_verify: boolean;
};

const toSeconds = (ms: number | null) => (ms === null ? 0 : Math.floor(ms / 1000));

function merchantDetails(m: Merchant): MerchantDetails {
  const { merchant_id, merchant_name, category_id, category_name, logo_url, min_amount, max_amount } = m;
  return { merchant_id, merchant_name, category_id, category_name, logo_url, min_amount, max_amount };
}

function merchantOf(r: ReceiptRow): Merchant {
  const m = findMerchant(r.merchant_id);
  if (!m) throw new Error(`receipt ${r.id} references a merchant that is not in the catalog`);
  return m;
}

export function receiptBody(r: ReceiptRow): WireReceipt {
  return {
    tid: r.tid,
    id: r.id,
    state: r.state,
    create_date: r.created_ms,
    pay_date: toSeconds(r.paid_ms),
    cancel_date: toSeconds(r.cancelled_ms),
    error: r.error,
    type: RECEIPT_TYPE_PAYMENT,
    description: r.description,
    merchant: merchantDetails(merchantOf(r)),
    account: JSON.parse(r.account) as AccountEntry[],
    ofd: r.ofd === null ? null : (JSON.parse(r.ofd) as Ofd),
    amount: r.amount,
    init_amount: 0,
    currency: r.currency,
    comission: r.commission,
    is_verify: r.is_verify === 1,
    rrn: r.rrn,
    card_number: r.card_number,
  };
}

/** The anonymous pay answer: the seed's reduced sample, spelled `commission`, `error` "". */
export function reducedReceiptBody(r: ReceiptRow): ReducedReceipt {
  const full = receiptBody(r);
  const o = full.ofd;
  return {
    tid: full.tid,
    id: full.id,
    state: full.state,
    create_date: full.create_date,
    pay_date: full.pay_date,
    error: full.error ?? "",
    type: full.type,
    description: full.description,
    merchant: { ...full.merchant, fields: [] },
    account: full.account,
    ofd: o && {
      id: o.id,
      code: o.code,
      message: o.message,
      terminalId: o.terminalId,
      receiptId: o.receiptId,
      time: o.time,
      fiscalSign: o.fiscalSign,
      qrCodeUrl: o.qrCodeUrl,
    },
    amount: full.amount,
    init_amount: full.init_amount,
    currency: full.currency,
    commission: full.comission,
  };
}

export function transferBody(t: TransferRow): WireTransfer {
  const behaviour = t.sender_behaviour as CardBehaviour;
  const token = tokenOfBehaviour(behaviour);
  const sender = cardByToken(token);
  return {
    tId: t.tid,
    receipt_id: t.id,
    description: `Card transfer to ${t.receiver_pan}`,
    state: t.state,
    type: TRANSFER_TYPE_A2C,
    created_date: t.created_ms,
    pay_date: t.paid_ms,
    cancel_date: t.cancelled_ms,
    sender: {
      masked_pan: sender?.masked_pan ?? "",
      token,
      holder_name: sender?.holder_name ?? "",
      amount: t.amount + t.commission,
      currency: 860,
      commission: t.commission,
      phone: sender?.phone ?? null,
    },
    receiver: {
      masked_pan: t.receiver_pan,
      holder_name: "SANDBOX RECEIVER",
      amount: t.amount,
      currency: 860,
      commission: 0,
      phone: null,
    },
    error: t.error,
    ofd: null,
    is_verify: t.is_verify === 1,
  };
}

// --- fiscal data -----------------------------------------------------------

const TERMINAL_ID = "EZ000000000312";

/** The fiscal operator works in Tashkent time (UTC+5), compact form as in the pay samples. */
function compactTashkentTime(ms: number): string {
  return new Date(ms + 5 * 3600_000).toISOString().replace(/\D/g, "").slice(0, 14);
}

function digits(n: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(n));
  return Array.from(bytes, (b) => String(b % 10)).join("");
}

/** The fiscal receipt's address, as the operator's QR code holds it. */
const qrCodeUrl = (terminalId: string, receiptId: number, time: string, fiscalSign: string) =>
  `https://ofd.soliq.uz/check?t=${terminalId}&r=${receiptId}&c=${time}&s=${fiscalSign}`;

function fiscalHeader(time: string) {
  const receiptId = Number(digits(7)) + 1;
  const fiscalSign = digits(12);
  return {
    id: crypto.randomUUID(),
    code: 0,
    message: "accepted",
    terminalId: TERMINAL_ID,
    receiptId,
    time,
    fiscalSign,
    qrCodeUrl: qrCodeUrl(TERMINAL_ID, receiptId, time, fiscalSign),
  };
}

/**
 * tok_sandbox_fiscal_late: the sale (or refund) is registered with the fiscal
 * data operator, whose fiscal sign and QR address are not there yet.
 */
export const fiscalWithheld = (ofd: Ofd): Ofd => ({ ...ofd, message: "queued at the fiscal data operator", fiscalSign: "", qrCodeUrl: "" });

/** The operator's late answer: the fiscal receipt's sign and address. */
export function fiscalAnswered(ofd: Ofd): Ofd {
  const fiscalSign = digits(12);
  return { ...ofd, message: "accepted", fiscalSign, qrCodeUrl: qrCodeUrl(ofd.terminalId, ofd.receiptId, ofd.time, fiscalSign) };
}

export function saleOfd(r: ReceiptRow, now: number): Ofd {
  const m = merchantOf(r);
  return {
    ...fiscalHeader(compactTashkentTime(now)),
    tin: m.tin,
    spic: m.spic,
    vatRate: 12,
    label: m.merchant_name,
    packageCode: m.package_code,
    type: "Sale",
    merchantInfo: { name: m.merchant_name, tin: m.tin, address: m.address },
    items: [
      {
        title: r.description ?? m.merchant_name,
        unit_price: r.amount,
        count: 1,
        spic: m.spic,
        pinfl: "",
        tin: m.tin,
        package_code: m.package_code,
        units: 1,
        vat_percent: 12,
        discount: 0,
      },
    ],
  };
}

/** The cancel sample's shape: ISO time, partnerFiscaliztionUrl (sic), line items shape B. */
export function refundOfd(r: ReceiptRow, now: number): Ofd {
  const m = merchantOf(r);
  return {
    ...fiscalHeader(new Date(now).toISOString()),
    partnerFiscaliztionUrl: `https://sandbox.upstream.invalid/fiscal/${r.id}/refund`,
    tin: m.tin,
    spic: m.spic,
    vatRate: 12,
    label: m.merchant_name,
    packageCode: m.package_code,
    type: "Refund",
    merchantInfo: { tin: m.tin, pinfl: "" },
    items: [{ name: r.description ?? m.merchant_name, price: r.amount, quantity: 1, sum: r.amount }],
  };
}
