/**
 * The schema of a record object's SQLite, with a version number and the
 * migrations from every earlier one, so an object written by an older
 * gateway is brought up to date the first time a newer one opens it, and
 * nothing stored is stranded. test/integration/record-schema.test.ts holds the migrated
 * schema equal to the one a new object gets.
 */

export const CURRENT_SCHEMA_VERSION = 8;

/** Version 1: the first gateway's schema, kept verbatim so old objects can be recognised and migrated. */
const SCHEMA_V1 = [
  `CREATE TABLE IF NOT EXISTS record (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    kind TEXT NOT NULL, id TEXT NOT NULL, tid TEXT NOT NULL, owner TEXT NOT NULL,
    is_hold INTEGER NOT NULL, qr_merchant INTEGER NOT NULL, is_verify INTEGER NOT NULL,
    state INTEGER NOT NULL, body TEXT NOT NULL,
    otp_failures INTEGER NOT NULL DEFAULT 0, otp_in_flight INTEGER NOT NULL DEFAULT 0,
    needs_reconcile INTEGER NOT NULL DEFAULT 0, otp_sends INTEGER NOT NULL DEFAULT 0,
    last_otp_sent_at INTEGER NOT NULL DEFAULT 0, resend_wait_ms INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS audit (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, op TEXT NOT NULL, actor TEXT NOT NULL,
    request_id TEXT NOT NULL, outcome TEXT NOT NULL, state INTEGER, detail TEXT)`,
];

/**
 * Each entry brings the schema from the version before it to its own. v2:
 * the lifecycle's own phases get columns instead of flags (a write-ahead note,
 * wrong and unconfirmed guesses counted apart), the upstream tid is kept
 * beside the caller's, and the outbox of events appears.
 */
const MIGRATIONS: Record<number, readonly string[]> = {
  1: SCHEMA_V1,
  2: [
    "ALTER TABLE record RENAME COLUMN otp_failures TO wrong_otps",
    "ALTER TABLE record ADD COLUMN upstream_tid TEXT NOT NULL DEFAULT ''",
    "UPDATE record SET upstream_tid = tid",
    "ALTER TABLE record ADD COLUMN unconfirmed_otps INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE record ADD COLUMN pending_op TEXT",
    "ALTER TABLE record ADD COLUMN pending_otp INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE record ADD COLUMN pending_since INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE record ADD COLUMN pending_request_id TEXT",
    "ALTER TABLE record ADD COLUMN reconcile_attempts INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE record ADD COLUMN event_seq INTEGER NOT NULL DEFAULT 0",
    // v1's two flags were an unknown outcome (and an OTP in it): a write-ahead note whose call is lost.
    `UPDATE record SET pending_op = 'unknown', pending_otp = otp_in_flight, pending_since = updated_at
       WHERE otp_in_flight = 1 OR needs_reconcile = 1`,
    "ALTER TABLE record DROP COLUMN otp_in_flight",
    "ALTER TABLE record DROP COLUMN needs_reconcile",
    `CREATE TABLE outbox (
      seq INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL UNIQUE, body TEXT NOT NULL,
      created_at INTEGER NOT NULL, sent_at INTEGER)`,
  ],
  // v3: an exhaustion cancel the upstream refused for good is remembered, so it is not retried forever.
  3: ["ALTER TABLE record ADD COLUMN edge_closed INTEGER NOT NULL DEFAULT 0"],
  // v4: a call whose outcome was unknown stays suspect after its first reconciliation (rule 8's late upstream).
  4: [
    "ALTER TABLE record ADD COLUMN suspect_since INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE record ADD COLUMN suspect_reads INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE record ADD COLUMN suspect_otp INTEGER NOT NULL DEFAULT 0",
  ],
  // v5: the user's personal data was erased (rule 10): every body stored after it is erased too.
  5: ["ALTER TABLE record ADD COLUMN erased INTEGER NOT NULL DEFAULT 0"],
  // v6: small by design (rule 10; docs/capacity.md): every table and index is a page of its own, so the
  // audit trail moves into the record row (compact tuples), the outbox keeps only what is not sent yet
  // (no AUTOINCREMENT, no unique index), and the version is a column of the row instead of a meta table.
  6: [
    "ALTER TABLE record ADD COLUMN audit TEXT NOT NULL DEFAULT '[]'",
    `UPDATE record SET audit = (SELECT coalesce(json_group_array(json_array(at, op, actor, request_id, outcome, state)), '[]')
       FROM (SELECT * FROM audit ORDER BY seq))`,
    "DROP TABLE audit",
    "CREATE TABLE outbox_v6 (seq INTEGER PRIMARY KEY, event_id TEXT NOT NULL, body TEXT NOT NULL, created_at INTEGER NOT NULL)",
    "INSERT INTO outbox_v6 (seq, event_id, body, created_at) SELECT seq, event_id, body, created_at FROM outbox WHERE sent_at IS NULL",
    "DROP TABLE outbox",
    "ALTER TABLE outbox_v6 RENAME TO outbox",
    "ALTER TABLE record ADD COLUMN schema_version INTEGER NOT NULL DEFAULT 6",
    "DROP TABLE IF EXISTS meta",
  ],
  // v7 (issue 20): the create's answer, exactly as it was given, for replays (the tid index keeps none); the
  // tid-index completion the object owes until its alarm has made sure of it (src/record/completion.ts); and
  // the outbox keeps its events once logged (logged_at), so the D1 event log keeps no bodies: the record
  // gives them (docs/events.md). Events an older version logged are gone from here; their bodies stay in D1.
  7: [
    "ALTER TABLE record ADD COLUMN answer TEXT",
    "ALTER TABLE record ADD COLUMN owed_completion TEXT",
    "ALTER TABLE outbox ADD COLUMN logged_at INTEGER",
  ],
  // v8: a write-ahead note names who asked for the call, so that a lost call the gateway completes is decided
  // again for that caller (rule 8: a user's lost cancel never refunds a receipt paid meanwhile). A note
  // stored before has none, and is decided as a user's: never a refund.
  8: ["ALTER TABLE record ADD COLUMN pending_actor TEXT"],
};

/**
 * The current schema in one step, for a new object: what the migrations above
 * arrive at (a test holds the two equal), without replaying them.
 */
const SCHEMA_CURRENT = `
  CREATE TABLE record (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    kind TEXT NOT NULL, id TEXT NOT NULL, tid TEXT NOT NULL, owner TEXT NOT NULL,
    is_hold INTEGER NOT NULL, qr_merchant INTEGER NOT NULL, is_verify INTEGER NOT NULL,
    state INTEGER NOT NULL, body TEXT NOT NULL,
    wrong_otps INTEGER NOT NULL DEFAULT 0, otp_sends INTEGER NOT NULL DEFAULT 0,
    last_otp_sent_at INTEGER NOT NULL DEFAULT 0, resend_wait_ms INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    upstream_tid TEXT NOT NULL DEFAULT '', unconfirmed_otps INTEGER NOT NULL DEFAULT 0,
    pending_op TEXT, pending_otp INTEGER NOT NULL DEFAULT 0, pending_since INTEGER NOT NULL DEFAULT 0,
    pending_request_id TEXT, reconcile_attempts INTEGER NOT NULL DEFAULT 0, event_seq INTEGER NOT NULL DEFAULT 0,
    edge_closed INTEGER NOT NULL DEFAULT 0, suspect_since INTEGER NOT NULL DEFAULT 0,
    suspect_reads INTEGER NOT NULL DEFAULT 0, suspect_otp INTEGER NOT NULL DEFAULT 0,
    erased INTEGER NOT NULL DEFAULT 0, audit TEXT NOT NULL DEFAULT '[]',
    answer TEXT, owed_completion TEXT, pending_actor TEXT,
    schema_version INTEGER NOT NULL DEFAULT ${CURRENT_SCHEMA_VERSION});
  CREATE TABLE outbox (seq INTEGER PRIMARY KEY, event_id TEXT NOT NULL, body TEXT NOT NULL, created_at INTEGER NOT NULL, logged_at INTEGER);`;

/** The schema a migration or a fresh creation leaves, as SQLite describes it (for the test that holds them equal). */
export function describeSchema(sql: SqlStorage): Record<string, string[]> {
  const tables = sql
    .exec<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name != '__miniflare_do_name' ORDER BY name",
    )
    .toArray();
  return Object.fromEntries(
    tables.map(({ name }) => [
      name,
      sql
        .exec<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>(`PRAGMA table_info(${name})`)
        .toArray()
        // schema_version's default is the version its table was made at (a migrated table keeps its first
        // one; the row holds the current version), so it is left out of the comparison.
        .map(
          (c) =>
            `${c.name} ${c.type}${c.notnull ? " NOT NULL" : ""}${c.dflt_value === null || c.name === "schema_version" ? "" : ` DEFAULT ${c.dflt_value}`}${c.pk ? " PK" : ""}`,
        )
        .sort(),
    ]),
  );
}

/**
 * Which schema version this object's storage is at: 0 when nothing was ever
 * stored. Up to v5 a meta table held it (v1 had none); from v6 the record
 * row does (its column's default, for tables made without a row yet).
 */
export function storedVersion(sql: SqlStorage): number {
  const tables = new Set(
    sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('record', 'meta')")
      .toArray()
      .map((row) => row.name),
  );
  if (tables.has("meta")) {
    const row = sql.exec<{ value: number }>("SELECT value FROM meta WHERE key = 'schema_version'").toArray()[0];
    return row?.value ?? 0;
  }
  if (!tables.has("record")) return 0;
  const column = sql
    .exec<{ name: string; dflt_value: string | null }>("PRAGMA table_info(record)")
    .toArray()
    .find((c) => c.name === "schema_version");
  if (!column) return 1;
  const row = sql.exec<{ schema_version: number }>("SELECT schema_version FROM record").toArray()[0];
  return row?.schema_version ?? Number(column.dflt_value);
}

/** Brings storage to CURRENT_SCHEMA_VERSION in one transaction; `create` also makes it when empty. */
export function migrate(storage: DurableObjectStorage, create: boolean, from = storedVersion(storage.sql)): number {
  const sql = storage.sql;
  if (from === CURRENT_SCHEMA_VERSION || (from === 0 && !create)) return from;
  if (from > CURRENT_SCHEMA_VERSION) throw new Error(`storage is at schema ${from}, newer than this gateway's ${CURRENT_SCHEMA_VERSION}`);
  if (from === 0) {
    sql.exec(SCHEMA_CURRENT);
    return CURRENT_SCHEMA_VERSION;
  }
  storage.transactionSync(() => {
    for (let version = from + 1; version <= CURRENT_SCHEMA_VERSION; version++) {
      for (const statement of MIGRATIONS[version]!) sql.exec(statement);
    }
    sql.exec("UPDATE record SET schema_version = ?", CURRENT_SCHEMA_VERSION);
  });
  return CURRENT_SCHEMA_VERSION;
}
