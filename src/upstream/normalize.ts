/**
 * The upstream spells some things inconsistently (the seed documents it):
 * `comission` beside `commission`, `tId` beside `tid`, timestamps in seconds
 * beside milliseconds, and a sender card token inside transfer bodies. The
 * gateway answers in one spelling, and copies only the fields the contract
 * names, so nothing unexpected (least of all card data) passes through.
 *
 * It fails closed (rule 8): a body whose identity or state cannot be read (no
 * id, a `state` that is missing, not an integer or not a known state, an
 * amount that is not an integer) is not a receipt. The normalizers answer
 * `undefined` for it, and the client treats the call's outcome as unknown,
 * never as a state. Descriptive fields stay lenient (defaults), because
 * nothing is decided on them.
 */

import type { AuthorizeBody, ReceiptBody, ReducedReceiptBody, TransferBody } from "../api/schemas";
import { maskDigitRuns } from "../shared/redact";
import { isKnownState, type UpstreamState } from "./calls";

type Raw = Record<string, unknown>;

const isObject = (value: unknown): value is Raw => typeof value === "object" && value !== null && !Array.isArray(value);

/** A 10-digit (or shorter) positive timestamp is seconds; the contract answers milliseconds. */
export function toMillis(value: unknown): number | null {
  if (typeof value !== "number" || !Number.isFinite(value)) return null;
  if (value > 0 && value < 1e11) return value * 1000;
  return value;
}

const num = (value: unknown, fallback = 0): number => (typeof value === "number" && Number.isFinite(value) ? value : fallback);
const str = (value: unknown): string | null => (typeof value === "string" ? value : null);

/**
 * A card field as the upstream sends it (a receipt's `card_number`, a
 * transfer party's `masked_pan`), with anything in it that still looks like
 * a card number masked: whole, or written with spaces or dashes, it is
 * stored and answered as first 6, last 4.
 */
function maskedCard(value: unknown): string | null {
  const s = str(value);
  return s === null ? null : maskDigitRuns(s);
}

function accountEntries(value: unknown): ReceiptBody["account"] {
  if (!Array.isArray(value)) return [];
  return value.filter(isObject).map((entry) => ({
    key: String(entry.key ?? ""),
    value: String(entry.value ?? ""),
    ...(typeof entry.label === "string" ? { label: entry.label } : {}),
  }));
}

function merchant(value: unknown): ReceiptBody["merchant"] {
  const m = isObject(value) ? value : {};
  // `fields` is documented as a list of objects (what they hold is not published): anything else in it is not passed on.
  const { fields, ...rest } = m;
  const kept = fields === undefined ? m : Array.isArray(fields) ? { ...m, fields: fields.filter(isObject) } : rest;
  return { ...kept, merchant_id: num(m.merchant_id), merchant_name: String(m.merchant_name ?? "") } as ReceiptBody["merchant"];
}

/** The fields decisions are taken on: present and of the right type, or the body is unreadable. */
function readable(raw: unknown, idKey: "id" | "receipt_id"): raw is Raw & { state: UpstreamState } {
  if (!isObject(raw)) return false;
  const id = raw[idKey];
  return typeof id === "string" && id.length > 0 && isKnownState(raw.state) && (raw.amount === undefined || Number.isSafeInteger(raw.amount));
}

export function normalizeReceipt(raw: unknown): ReceiptBody | undefined {
  if (!readable(raw, "id") || !Number.isSafeInteger(raw.amount)) return undefined;
  return {
    tid: String(raw.tid ?? raw.tId ?? ""),
    id: String(raw.id),
    state: raw.state,
    create_date: toMillis(raw.create_date) ?? 0,
    pay_date: toMillis(raw.pay_date) ?? 0,
    cancel_date: toMillis(raw.cancel_date) ?? 0,
    error: str(raw.error),
    type: num(raw.type, 1),
    description: str(raw.description),
    merchant: merchant(raw.merchant),
    account: accountEntries(raw.account),
    ofd: isObject(raw.ofd) ? raw.ofd : null,
    amount: num(raw.amount),
    init_amount: num(raw.init_amount),
    currency: num(raw.currency, 860),
    commission: num(raw.commission ?? raw.comission),
    is_verify: raw.is_verify === true,
    rrn: str(raw.rrn),
    card_number: maskedCard(raw.card_number),
  };
}

const REDUCED_OFD_KEYS = ["id", "code", "message", "terminalId", "receiptId", "time", "fiscalSign", "qrCodeUrl"];

/** The anonymous pay answer: the seed's reduced receipt. */
export function normalizeReducedReceipt(raw: unknown): ReducedReceiptBody | undefined {
  const full = normalizeReceipt(raw);
  if (!full) return undefined;
  const { cancel_date: _c, is_verify: _v, rrn: _r, card_number: _n, ...reduced } = full;
  const ofd = reduced.ofd ? Object.fromEntries(REDUCED_OFD_KEYS.filter((k) => k in reduced.ofd!).map((k) => [k, reduced.ofd![k]])) : null;
  return { ...reduced, error: reduced.error ?? "", merchant: { ...reduced.merchant, fields: reduced.merchant.fields ?? [] }, ofd };
}

function party(value: unknown): TransferBody["sender"] {
  const p = isObject(value) ? value : {};
  return {
    masked_pan: maskedCard(p.masked_pan) ?? "",
    ...(typeof p.holder_name === "string" ? { holder_name: p.holder_name } : {}),
    amount: num(p.amount),
    currency: num(p.currency, 860),
    commission: num(p.commission ?? p.comission),
    phone: str(p.phone),
    // `token` is deliberately dropped: the gateway never echoes or stores card tokens.
  };
}

export function normalizeTransfer(raw: unknown): TransferBody | undefined {
  if (!readable(raw, "receipt_id")) return undefined;
  return {
    tid: String(raw.tid ?? raw.tId ?? ""),
    receipt_id: String(raw.receipt_id),
    description: str(raw.description),
    state: raw.state,
    type: num(raw.type, 6),
    created_date: toMillis(raw.created_date) ?? 0,
    pay_date: toMillis(raw.pay_date),
    cancel_date: toMillis(raw.cancel_date),
    sender: party(raw.sender),
    receiver: party(raw.receiver),
    error: str(raw.error),
    ofd: isObject(raw.ofd) ? raw.ofd : null,
    is_verify: raw.is_verify === true,
  };
}

/** An authorize answer must say how long to wait before a resend; without it the send's outcome is unknown. */
export function normalizeAuthorize(raw: unknown, id: string): AuthorizeBody | undefined {
  if (!isObject(raw) || typeof raw.wait !== "number" || !Number.isFinite(raw.wait) || raw.wait < 0) return undefined;
  return { id, sent: true, phone: String(raw.phone ?? ""), wait: raw.wait };
}
