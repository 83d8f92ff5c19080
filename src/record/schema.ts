/**
 * The schema of a record object's SQLite, with a version number and the
 * migrations from every earlier one, so that an object written by an older
 * gateway is brought up to date the first time a newer one opens it, and
 * nothing stored is stranded.
 *
 * Version 1 is the first release's. A change of the schema adds version N+1:
 * its statements under MIGRATIONS[N+1] (from N), and SCHEMA_CURRENT as the
 * migrations arrive at it; test/integration/record-schema.test.ts holds the
 * two equal and runs the framework over a migration of its own.
 */

export const CURRENT_SCHEMA_VERSION = 5;

/**
 * What a refusal of storage a newer gateway wrote says first. The message
 * crosses the object's RPC boundary and its class does not, so callers
 * recognise it by this (isNewerSchema).
 */
const NEWER_SCHEMA = "stored by a newer gateway";

/**
 * Storage at a schema newer than this gateway's: after a rollback, a record
 * the newer release wrote. Its layout is unknown here, so it is neither read
 * nor written (docs/production.md, "Deploys").
 */
export class NewerSchemaError extends Error {
  constructor(from: number, target: number) {
    super(`${NEWER_SCHEMA}: storage is at schema ${from}, newer than this gateway's ${target}`);
  }
}

/** Whether `err` is a NewerSchemaError, here or thrown across the object's RPC boundary. */
export const isNewerSchema = (err: unknown): boolean => err instanceof Error && err.message.includes(NEWER_SCHEMA);

/** The largest SQLite integer: the bound of a count over no unlogged event. */
const NO_SEQ = "9223372036854775807";

/** The body's `ofd` shows a fiscal sign and a QR address (lifecycle's fiscalShown), in SQL. */
const SIGNED =
  "(json_type(body, '$.ofd.fiscalSign') = 'text' AND trim(body ->> '$.ofd.fiscalSign') <> '' AND json_type(body, '$.ofd.qrCodeUrl') = 'text' AND trim(body ->> '$.ofd.qrCodeUrl') <> '')";

/** Each entry brings the schema from the version before it to its own. */
export const MIGRATIONS: Readonly<Record<number, readonly string[]>> = {
  // Rule 12: when the record became held (its hold's window starts there) and the expiry the gateway decided.
  // A record held before it keeps its last change's time: never earlier than when it became held.
  2: [
    "ALTER TABLE record ADD COLUMN held_at INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE record ADD COLUMN expiry TEXT",
    "UPDATE record SET held_at = updated_at WHERE state = 5",
  ],
  /**
   * 3: the outbox moves into the record's row, so an object is one table
   * (one page less) and an event is no row of its own: the record gets
   * `events` (JSON: [event_id, body] of every event, oldest first, bodies as
   * text, byte for byte) and `events_logged` (how many of the first are in
   * the event log); the outbox's rows are copied there in their order (seq),
   * the events logged before the first one that is not are counted as logged
   * (the drain marks a prefix; a logged event after an unlogged one is
   * drained again, which logs nothing twice), and the outbox table is dropped.
   */
  3: [
    "ALTER TABLE record ADD COLUMN events TEXT NOT NULL DEFAULT '[]'",
    "ALTER TABLE record ADD COLUMN events_logged INTEGER NOT NULL DEFAULT 0",
    `UPDATE record SET
       events = (SELECT json_group_array(json_array(event_id, body) ORDER BY seq) FROM outbox),
       events_logged = (SELECT count(*) FROM outbox WHERE seq < (SELECT coalesce(min(seq), ${NO_SEQ}) FROM outbox WHERE logged_at IS NULL))`,
    "DROP TABLE outbox",
  ],
  /**
   * 4: an event's body in `events` is kept as parts (src/record/event-texts.ts)
   * and no longer repeats the row's texts: a paid record's row fits the
   * table's one page instead of spilling into an overflow page (4 KB an
   * object). Every body stored so far that holds the record's body (or
   * else the create's answer) whole keeps that text as a reference to it
   * (1: body, 0: answer), the text around it as it is; any other is one
   * part, as it was. The next write of the row encodes each against the
   * row as it is then. The layout stays as it was: an older gateway reading
   * these parts as schema 3's pairs would give wrong bodies, so the version
   * keeps it out (\`migrate\` refuses a newer schema).
   */
  4: [
    `UPDATE record SET events = (
       SELECT json_group_array(CASE
         WHEN instr(e.value ->> 1, record.body) > 0
           THEN json_array(e.value ->> 0, substr(e.value ->> 1, 1, instr(e.value ->> 1, record.body) - 1), 1,
                           substr(e.value ->> 1, instr(e.value ->> 1, record.body) + length(record.body)))
         WHEN record.answer IS NOT NULL AND instr(e.value ->> 1, record.answer) > 0
           THEN json_array(e.value ->> 0, substr(e.value ->> 1, 1, instr(e.value ->> 1, record.answer) - 1), 0,
                           substr(e.value ->> 1, instr(e.value ->> 1, record.answer) + length(record.answer)))
         ELSE json(e.value) END ORDER BY e.key)
       FROM json_each(record.events) AS e)`,
  ],
  /**
   * 5: rule 14's watch of a receipt whose fiscal data is missing
   * (src/record/fiscal.ts): its fiscal phase, when its watch began, the reads
   * done, and whether the fiscal list (D1) shows it. A receipt stored before
   * is put where lifecycle's fiscalPhaseOf puts it, from its body: paid (4)
   * with an `ofd` lacking a fiscal sign or QR address is `sale_pending`, its
   * watch counted from its last change (about when it was paid), so its reads
   * are due at once and its listing owed; paid with both, `sale`; cancelled
   * (21) with an `ofd` (its sale was fiscalized) is `refund`, or
   * `refund_pending` while that `ofd` lacks either or is still the sale's.
   * The receipt is listed once its record is next opened (an operation, a
   * read, its alarm).
   */
  5: [
    "ALTER TABLE record ADD COLUMN fiscal TEXT",
    "ALTER TABLE record ADD COLUMN fiscal_since INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE record ADD COLUMN fiscal_reads INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE record ADD COLUMN fiscal_listed INTEGER NOT NULL DEFAULT 1",
    `UPDATE record SET fiscal = CASE
       WHEN state = 4 THEN CASE WHEN ${SIGNED} THEN 'sale' ELSE 'sale_pending' END
       ELSE CASE WHEN ${SIGNED} AND coalesce(body ->> '$.ofd.type', '') <> 'Sale' THEN 'refund' ELSE 'refund_pending' END END
     WHERE kind = 'receipt' AND state IN (4, 21) AND json_type(body, '$.ofd') = 'object'`,
    "UPDATE record SET fiscal_since = updated_at, fiscal_listed = 0 WHERE fiscal IN ('sale_pending', 'refund_pending')",
  ],
};

/**
 * The current schema in one step, for a new object: one table, one row (the
 * record: every part's columns, src/record/store.ts says which part owns
 * which), with its events in it (`events`: their bodies stay once logged,
 * the event log lists them from here: src/events/bodies.ts; each kept as
 * parts of the row's body and answer where it repeats them:
 * src/record/event-texts.ts).
 */
const SCHEMA_CURRENT = `
  CREATE TABLE record (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    kind TEXT NOT NULL, id TEXT NOT NULL, tid TEXT NOT NULL, upstream_tid TEXT NOT NULL, owner TEXT NOT NULL,
    is_hold INTEGER NOT NULL, qr_merchant INTEGER NOT NULL, is_verify INTEGER NOT NULL,
    state INTEGER NOT NULL, body TEXT NOT NULL, erased INTEGER NOT NULL DEFAULT 0, answer TEXT,
    wrong_otps INTEGER NOT NULL DEFAULT 0, unconfirmed_otps INTEGER NOT NULL DEFAULT 0,
    otp_sends INTEGER NOT NULL DEFAULT 0, last_otp_sent_at INTEGER NOT NULL DEFAULT 0,
    resend_wait_ms INTEGER NOT NULL DEFAULT 0, edge_closed INTEGER NOT NULL DEFAULT 0,
    pending_op TEXT, pending_otp INTEGER NOT NULL DEFAULT 0, pending_since INTEGER NOT NULL DEFAULT 0,
    pending_request_id TEXT, pending_actor TEXT,
    suspect_since INTEGER NOT NULL DEFAULT 0, suspect_reads INTEGER NOT NULL DEFAULT 0, suspect_otp INTEGER NOT NULL DEFAULT 0,
    reconcile_attempts INTEGER NOT NULL DEFAULT 0, event_seq INTEGER NOT NULL DEFAULT 0, owed_completion TEXT,
    held_at INTEGER NOT NULL DEFAULT 0, expiry TEXT,
    fiscal TEXT, fiscal_since INTEGER NOT NULL DEFAULT 0, fiscal_reads INTEGER NOT NULL DEFAULT 0,
    fiscal_listed INTEGER NOT NULL DEFAULT 1,
    audit TEXT NOT NULL DEFAULT '[]', created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    schema_version INTEGER NOT NULL DEFAULT ${CURRENT_SCHEMA_VERSION},
    events TEXT NOT NULL DEFAULT '[]', events_logged INTEGER NOT NULL DEFAULT 0);`;

/**
 * The Idempotency-Keys a record's callers used (rule 11: src/record/keys.ts),
 * made by the first key the record meets: every table is a page of its own
 * (4 KB), so a record no caller repeats pays nothing for it.
 */
export const KEYS_TABLE = `
  CREATE TABLE IF NOT EXISTS idempotency (
    caller TEXT NOT NULL, operation TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, request_id TEXT NOT NULL,
    status INTEGER, answer TEXT, headers TEXT, created_at INTEGER NOT NULL,
    PRIMARY KEY (caller, operation, key)) WITHOUT ROWID;`;

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

/** Which schema version this object's storage is at: 0 when nothing was ever stored; else the row's (or, before a row, its column's default). */
export function storedVersion(sql: SqlStorage): number {
  const column = sql
    .exec<{ name: string; dflt_value: string | null }>("PRAGMA table_info(record)")
    .toArray()
    .find((c) => c.name === "schema_version");
  if (!column) return 0;
  const row = sql.exec<{ schema_version: number }>("SELECT schema_version FROM record").toArray()[0];
  return row?.schema_version ?? Number(column.dflt_value);
}

/**
 * Brings storage to `target` (the current version) in one transaction; with
 * `create`, also makes it when empty. `migrations` is MIGRATIONS but for the
 * framework's own test.
 */
export function migrate(
  storage: DurableObjectStorage,
  create: boolean,
  from = storedVersion(storage.sql),
  migrations: Readonly<Record<number, readonly string[]>> = MIGRATIONS,
  target = CURRENT_SCHEMA_VERSION,
): number {
  const sql = storage.sql;
  if (from === target || (from === 0 && !create)) return from;
  if (from > target) throw new NewerSchemaError(from, target);
  if (from === 0) {
    sql.exec(SCHEMA_CURRENT);
    return target;
  }
  storage.transactionSync(() => {
    for (let version = from + 1; version <= target; version++) {
      const statements = migrations[version];
      if (!statements) throw new Error(`no migration to schema ${version}`);
      for (const statement of statements) sql.exec(statement);
    }
    sql.exec("UPDATE record SET schema_version = ?", target);
  });
  return target;
}
