// The sandbox's fixed world: merchants, a2c rates and test cards. These values
// are part of the project's public contract (docs/reference.md, "The
// sandbox"), so partners' own app tests can rely on them.

export const CORRECT_OTP = "111111";
export const MAX_WRONG_OTPS = 3;
export const CURRENCY_UZS = 860;
export const A2C_VERIFY_FROM = 1_000_000;

export type Merchant = {
  merchant_id: number;
  merchant_name: string;
  category_id: number;
  category_name: string;
  logo_url: string | null;
  min_amount: number;
  max_amount: number;
  is_verify: boolean;
  /** The seed forbids cancel for QR merchants. */
  kind: "regular" | "qr";
  /** Percent of the amount; non-zero on one merchant so `comission` normalization is visible. */
  commission_percent: number;
  tin: string;
  address: string;
  spic: string;
  package_code: string;
};

const merchants: Merchant[] = [
  {
    merchant_id: 1001,
    merchant_name: "Sandbox Mobile",
    category_id: 1,
    category_name: "Mobile operators",
    logo_url: "https://sandbox.upstream.invalid/logos/1001.png",
    min_amount: 100_000,
    max_amount: 500_000_000,
    is_verify: true,
    kind: "regular",
    commission_percent: 0,
    tin: "301234567",
    address: "Tashkent, Amir Temur 1",
    spic: "10305001001000000",
    package_code: "1495381",
  },
  {
    merchant_id: 1002,
    merchant_name: "Sandbox QR Cafe",
    category_id: 7,
    category_name: "Cafes and restaurants",
    logo_url: "https://sandbox.upstream.invalid/logos/1002.png",
    min_amount: 1_000,
    max_amount: 100_000_000,
    is_verify: false,
    kind: "qr",
    commission_percent: 0,
    tin: "302345678",
    address: "Tashkent, Navoi 12",
    spic: "10101001001000000",
    package_code: "1512442",
  },
  {
    merchant_id: 1003,
    merchant_name: "Sandbox Utilities",
    category_id: 3,
    category_name: "Utilities",
    logo_url: null,
    min_amount: 1_000,
    max_amount: 1_000_000_000,
    is_verify: false,
    kind: "regular",
    commission_percent: 1,
    tin: "303456789",
    address: "Tashkent, Shota Rustaveli 5",
    spic: "10399001001000000",
    package_code: "1543001",
  },
];

export function findMerchant(id: number): Merchant | undefined {
  return merchants.find((m) => m.merchant_id === id);
}

export type Rate = { rate_id: number; percent: number; flat: number };

const rates: Rate[] = [
  { rate_id: 1, percent: 0.5, flat: 0 },
  { rate_id: 2, percent: 1, flat: 0 },
  { rate_id: 3, percent: 0, flat: 1_000 },
];

export function findRate(id: number): Rate | undefined {
  return rates.find((r) => r.rate_id === id);
}

/** Commission is rounded up: a provider never rounds its own fee down. */
export function commissionOf(amount: number, percent: number, flat = 0): number {
  return Math.ceil((amount * percent) / 100) + flat;
}

/**
 * What a card does when charged. Only this (never the token, number or
 * expiry) is stored, together with the masked PAN.
 */
export type CardBehaviour =
  | "ok"
  | "insufficient"
  | "supplier_pending"
  | "supplier_fails"
  | "timeout"
  | "paid_timeout"
  | "error"
  | "busy"
  | "pays_late"
  | "judges_unknown"
  | "fiscal_late";

export type SandboxCard = {
  behaviour: CardBehaviour;
  masked_pan: string;
  phone: string;
  holder_name: string;
};

const tokenCards: Record<string, SandboxCard> = {
  tok_sandbox_ok: { behaviour: "ok", masked_pan: "860049******0011", phone: "+998 90 *** ** 67", holder_name: "SANDBOX OK" },
  tok_sandbox_insufficient: {
    behaviour: "insufficient",
    masked_pan: "860049******0029",
    phone: "+998 90 *** ** 68",
    holder_name: "SANDBOX INSUFFICIENT",
  },
  tok_sandbox_supplier_pending: {
    behaviour: "supplier_pending",
    masked_pan: "860049******0037",
    phone: "+998 90 *** ** 69",
    holder_name: "SANDBOX PENDING",
  },
  tok_sandbox_timeout: { behaviour: "timeout", masked_pan: "860049******0045", phone: "+998 90 *** ** 70", holder_name: "SANDBOX TIMEOUT" },
  tok_sandbox_error: { behaviour: "error", masked_pan: "860049******0052", phone: "+998 90 *** ** 71", holder_name: "SANDBOX ERROR" },
  tok_sandbox_paid_timeout: {
    behaviour: "paid_timeout",
    masked_pan: "860049******0060",
    phone: "+998 90 *** ** 72",
    holder_name: "SANDBOX PAID TIMEOUT",
  },
  tok_sandbox_busy: { behaviour: "busy", masked_pan: "860049******0078", phone: "+998 90 *** ** 73", holder_name: "SANDBOX BUSY" },
  tok_sandbox_supplier_fails: {
    behaviour: "supplier_fails",
    masked_pan: "860049******0086",
    phone: "+998 90 *** ** 74",
    holder_name: "SANDBOX SUPPLIER FAILS",
  },
  tok_sandbox_pays_late: { behaviour: "pays_late", masked_pan: "860049******0094", phone: "+998 90 *** ** 75", holder_name: "SANDBOX PAYS LATE" },
  tok_sandbox_judges_unknown: {
    behaviour: "judges_unknown",
    masked_pan: "860049******0102",
    phone: "+998 90 *** ** 76",
    holder_name: "SANDBOX JUDGES UNKNOWN",
  },
  tok_sandbox_fiscal_late: {
    behaviour: "fiscal_late",
    masked_pan: "860049******0110",
    phone: "+998 90 *** ** 77",
    holder_name: "SANDBOX FISCAL LATE",
  },
};

const numberBehaviours: Record<string, CardBehaviour> = {
  "8600000000000007": "ok",
  "9860000000000018": "ok",
  "8600000000000015": "insufficient",
};

export const UNAVAILABLE_RECEIVER = "8600000000000098";

/** First 6 and last 4 digits, as the contract requires for anything stored or shown. */
export function maskPan(pan: string): string {
  return `${pan.slice(0, 6)}******${pan.slice(-4)}`;
}

export function cardByToken(token: string): SandboxCard | undefined {
  return Object.hasOwn(tokenCards, token) ? tokenCards[token] : undefined;
}

/** The sender token of a transfer is derived back from its behaviour, so the token itself is never stored. */
export function tokenOfBehaviour(behaviour: CardBehaviour): string {
  return `tok_sandbox_${behaviour}`;
}

/** `expire` is yyMM; a card is valid through the last day of that month. */
function isExpired(expire: string, now: Date): boolean {
  const year = 2000 + Number(expire.slice(0, 2));
  const month = Number(expire.slice(2, 4));
  if (month < 1 || month > 12) return true;
  return year * 12 + month < now.getUTCFullYear() * 12 + now.getUTCMonth() + 1;
}

export function cardByNumber(number: string, expire: string, now = new Date()): SandboxCard | undefined {
  const behaviour = Object.hasOwn(numberBehaviours, number) ? numberBehaviours[number] : undefined;
  if (!behaviour || isExpired(expire, now)) return undefined;
  return { behaviour, masked_pan: maskPan(number), phone: `+998 93 *** ** ${number.slice(-2)}`, holder_name: "SANDBOX CARDHOLDER" };
}
