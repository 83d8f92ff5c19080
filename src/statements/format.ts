/**
 * The statement's files (rule 16): a CSV a spreadsheet opens as it is
 * (UTF-8 with a BOM, CRLF, a header row, RFC 4180 quoting; a text cell that
 * a spreadsheet would take for a formula starts with an apostrophe) and a
 * JSON document; amounts as integers in tiyin and as sums.
 */
export const UTF8_BOM = "\uFEFF";

export const CSV_HEADER = [
  "record",
  "date",
  "time",
  "id",
  "kind",
  "tid",
  "owner",
  "merchant_id",
  "change",
  "state",
  "amount_tiyin",
  "amount_sum",
  "commission_tiyin",
  "commission_sum",
  "fiscal_sign",
  "count",
  "event_id",
  "note",
];

export interface Total {
  merchant_id: number | null;
  change: string;
  count: number;
  /** Tiyin, as a decimal string (a day's sum may pass 2^53). */
  amount: string;
  commission: string;
}

export interface Mismatch {
  id: string;
  kind: string;
  event_id: string;
  field: string;
  statement: string;
  upstream: string;
}

export const statementKeys = (date: string) => ({
  csv: `statements/${date}.csv`,
  json: `statements/${date}.json`,
  summary: `statements/${date}.summary.json`,
});

/** Tiyin as sum with two decimals (1500 sum = 150000 tiyin: "1500.00"). */
export function sumOf(tiyin: bigint): string {
  const negative = tiyin < 0n;
  const abs = negative ? -tiyin : tiyin;
  return `${negative ? "-" : ""}${abs / 100n}.${String(abs % 100n).padStart(2, "0")}`;
}

/** One CSV cell: RFC 4180 quoting; text that starts like a formula is made text. */
function cell(value: string | number): string {
  if (typeof value === "number") return String(value);
  let text = value;
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export const csvRow = (cells: readonly (string | number)[]): string => `${cells.map(cell).join(",")}\r\n`;
