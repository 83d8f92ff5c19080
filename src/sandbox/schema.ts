/**
 * The sandbox's tables, and the columns an older local store lacks, added on
 * start so a developer's .wrangler/state survives an upgrade.
 */

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS tids (tid TEXT PRIMARY KEY, kind TEXT NOT NULL, record_id TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS receipts (
    id TEXT PRIMARY KEY, tid TEXT NOT NULL UNIQUE, merchant_id INTEGER NOT NULL, amount INTEGER NOT NULL,
    commission INTEGER NOT NULL, currency INTEGER NOT NULL, description TEXT, account TEXT NOT NULL,
    is_hold INTEGER NOT NULL, is_verify INTEGER NOT NULL, state INTEGER NOT NULL, created_ms INTEGER NOT NULL,
    paid_ms INTEGER, cancelled_ms INTEGER, error TEXT, rrn TEXT, card_number TEXT, card_behaviour TEXT,
    hold_status TEXT, ofd TEXT, otp_attempts INTEGER NOT NULL DEFAULT 0, wrong_otps INTEGER NOT NULL DEFAULT 0,
    otp_sent_ms INTEGER, cancel_reason TEXT, cancelled_by TEXT, supplier_due_ms INTEGER,
    expired_otps INTEGER NOT NULL DEFAULT 0, late_pay_due_ms INTEGER, fiscal_due_ms INTEGER)`,
  `CREATE TABLE IF NOT EXISTS transfers (
    id TEXT PRIMARY KEY, tid TEXT NOT NULL UNIQUE, amount INTEGER NOT NULL, commission INTEGER NOT NULL,
    rate_id INTEGER NOT NULL, sender_behaviour TEXT NOT NULL, receiver_pan TEXT NOT NULL,
    receiver_unavailable INTEGER NOT NULL, is_verify INTEGER NOT NULL, state INTEGER NOT NULL,
    created_ms INTEGER NOT NULL, paid_ms INTEGER, cancelled_ms INTEGER, error TEXT NOT NULL DEFAULT '',
    otp_attempts INTEGER NOT NULL DEFAULT 0, wrong_otps INTEGER NOT NULL DEFAULT 0, late_pay_due_ms INTEGER)`,
  `CREATE TABLE IF NOT EXISTS calls (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, path TEXT NOT NULL, tid TEXT, id TEXT,
    status INTEGER NOT NULL, code TEXT, request_id TEXT, otp INTEGER NOT NULL DEFAULT 0)`,
];

/**
 * Columns added after the first schema. CREATE TABLE IF NOT EXISTS leaves an
 * older table as it was, so each is added when the table lacks it.
 */
const ADDED_COLUMNS: { table: string; column: string; declaration: string }[] = [
  { table: "receipts", column: "supplier_due_ms", declaration: "INTEGER" },
  { table: "calls", column: "otp", declaration: "INTEGER NOT NULL DEFAULT 0" },
  { table: "receipts", column: "expired_otps", declaration: "INTEGER NOT NULL DEFAULT 0" },
  { table: "receipts", column: "late_pay_due_ms", declaration: "INTEGER" },
  { table: "transfers", column: "late_pay_due_ms", declaration: "INTEGER" },
  { table: "receipts", column: "fiscal_due_ms", declaration: "INTEGER" },
  // Each record's own time (its test clock): 0 until advanced.
  { table: "receipts", column: "clock_offset_ms", declaration: "INTEGER NOT NULL DEFAULT 0" },
  { table: "transfers", column: "clock_offset_ms", declaration: "INTEGER NOT NULL DEFAULT 0" },
];

/** Creates the tables, and adds the columns an older store lacks. Safe to run on every start. */
export function ensureSchema(sql: SqlStorage): void {
  for (const statement of SCHEMA) sql.exec(statement);
  for (const { table, column, declaration } of ADDED_COLUMNS) {
    const columns = sql.exec<{ name: string }>(`PRAGMA table_info(${table})`).toArray();
    if (!columns.some((c) => c.name === column)) sql.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${declaration}`);
  }
}
