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
 *
 * Two numbers, because a deploy can be rolled back (docs/production.md,
 * "Deploys"): CURRENT_SCHEMA_VERSION is the layout this code reads and
 * writes; OLDEST_READER_VERSION is what it stamps in a row's
 * `schema_version`, the oldest schema whose gateway reads and writes that
 * layout. A release refuses a stamp newer than its own layout (this code's
 * `migrate` throws NewerSchemaError, answered 503 `not_ready`; schema 4's
 * release answers 500), so the stamp is what decides whether the release
 * before can serve a record this one stored.
 * A change is made expand-then-contract, as the D1 migrations are:
 *
 * - An expansion (columns added, nullable or with a default, and what is
 *   derived into them) keeps the stamp: older code reads the row (it selects
 *   every column and carries the new ones along) and writes it (its UPDATEs
 *   name their columns, its INSERT leaves the new ones at their defaults).
 *   What it writes meanwhile can leave the derived columns behind, so each
 *   migration above the stamp is written to run again: this code runs them
 *   every time it opens a record stamped below its layout (an object runs one
 *   release at a time and restarts when its release changes, so the first
 *   open of an incarnation is where another release's writes can lie
 *   behind), an ADD COLUMN that finds its column in place is skipped, and a
 *   derivation changes only what disagrees with the row as it stands.
 * - An incompatible change (a new encoding of a column, a column dropped or
 *   renamed, like schema 4's event parts) takes two releases: the first
 *   reads both forms and still writes the old one (an expansion, or no
 *   schema change at all); once it serves, and test/releases/previous/ is
 *   it, the next writes the new form and stamps its own version, which the
 *   first reads.
 * - The contract: once the release before reads the current layout (its
 *   CURRENT_SCHEMA_VERSION is this one's), OLDEST_READER_VERSION rises to it;
 *   the expansions below no longer run again, and what they keep only for
 *   older code may go in the same two steps as an incompatible change.
 *
 * `npm run test:deploy` holds the stamp to what the committed previous
 * release reads, and runs it on what this code stored.
 */
import { NEWER_SCHEMA } from "../errors/errors";
import type { RecordRow } from "./row";

/** The layout this code reads and writes: every migration up to it applied. */
export const CURRENT_SCHEMA_VERSION: number = 9;

/**
 * What this code stamps in `schema_version`: the oldest schema whose gateway
 * reads and writes what this one stores. This code keeps the answers of a
 * record's keys as parts of its row's texts (schema 9), which schema 9's
 * first release reads and schema 8's does not: a record stamped 9 is refused
 * by schema 8's release rather than served with its kept answers as parts.
 */
export const OLDEST_READER_VERSION: number = 9;

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

/** The largest SQLite integer: the bound of a count over no unlogged event. */
const NO_SEQ = "9223372036854775807";

/** The characters JavaScript's String.prototype.trim removes, for SQLite's trim(X, Y) (which removes spaces only by default). */
const JS_WHITESPACE =
  "char(9, 10, 11, 12, 13, 32, 160, 5760, 8192, 8193, 8194, 8195, 8196, 8197, 8198, 8199, 8200, 8201, 8202, 8232, 8233, 8239, 8287, 12288, 65279)";

/** The body's `ofd` shows a fiscal sign and a QR address (lifecycle's fiscalShown), in SQL. */
const SIGNED = `(json_type(body, '$.ofd.fiscalSign') = 'text' AND trim(body ->> '$.ofd.fiscalSign', ${JS_WHITESPACE}) <> ''
  AND json_type(body, '$.ofd.qrCodeUrl') = 'text' AND trim(body ->> '$.ofd.qrCodeUrl', ${JS_WHITESPACE}) <> '')`;

/** Rule 14's phases of a receipt whose fiscal data is missing (lifecycle's isFiscalPending), as an SQL list. */
const PENDING = "('sale_pending', 'refund_pending')";

/**
 * lifecycle's fiscalPhaseOf in SQL: the phase a receipt's row shows, its
 * stored `fiscal` standing for the phase before (NULL: none, as a row from
 * before schema 5 has). test/integration/record-schema.test.ts holds the
 * two equal.
 */
const FISCAL_PHASE = `CASE
  WHEN state = 4 THEN CASE
    WHEN fiscal IS 'sale' THEN 'sale'
    WHEN json_type(body, '$.ofd') IS NOT 'object' THEN CASE WHEN fiscal IS 'sale_pending' THEN 'sale_pending' END
    WHEN ${SIGNED} THEN 'sale' ELSE 'sale_pending' END
  WHEN state = 21 THEN CASE
    WHEN fiscal IS 'refund' THEN 'refund'
    WHEN fiscal IS NULL AND json_type(body, '$.ofd') IS NOT 'object' THEN NULL
    WHEN ${SIGNED} AND coalesce(body ->> '$.ofd.type', '') <> 'Sale' THEN 'refund' ELSE 'refund_pending' END
  ELSE fiscal END`;

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
   * done, and whether the fiscal list (D1) shows it. An expansion: schema-4
   * code reads and writes the row and leaves these columns alone.
   *
   * The receipt is put where lifecycle's fiscalPhaseOf puts it from its state
   * and body, the phase stored standing for the one before (FISCAL_PHASE).
   * Stored before this schema (no phase): paid (4) with an `ofd` lacking a
   * fiscal sign or QR address is `sale_pending`; paid with both, `sale`;
   * cancelled (21) with an `ofd` (its sale was fiscalized) is `refund`, or
   * `refund_pending` while that `ofd` lacks either or is still the sale's. A
   * new pending phase starts a watch counted from the row's last change
   * (about when it was paid or cancelled), so its reads are due at once, and
   * a pending phase begun or ended owes the listing (written once the record
   * is next opened: an operation, a read, its alarm).
   *
   * Run again on every open while a schema-4 release may have written the
   * row (OLDEST_READER_VERSION): a receipt it paid or cancelled gets its phase
   * here as this code would have given it. A row this code keeps never
   * changes (every change of state or body passes through fiscalPhaseOf, and
   * it is idempotent), nor does a pending phase whose data the row now shows:
   * that is an event (`receipt.fiscalized`), which this code's next look at
   * the upstream stores with it, as for any receipt still watched.
   */
  5: [
    "ALTER TABLE record ADD COLUMN fiscal TEXT",
    "ALTER TABLE record ADD COLUMN fiscal_since INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE record ADD COLUMN fiscal_reads INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE record ADD COLUMN fiscal_listed INTEGER NOT NULL DEFAULT 1",
    `UPDATE record SET
       fiscal = derived.phase,
       fiscal_since = CASE WHEN derived.phase IN ${PENDING} THEN updated_at ELSE fiscal_since END,
       fiscal_reads = CASE WHEN derived.phase IN ${PENDING} THEN 0 ELSE fiscal_reads END,
       fiscal_listed = CASE WHEN derived.phase IN ${PENDING} OR fiscal IN ${PENDING} THEN 0 ELSE fiscal_listed END
     FROM (SELECT ${FISCAL_PHASE} AS phase FROM record) AS derived
     WHERE kind = 'receipt' AND derived.phase IS NOT fiscal
       AND NOT (fiscal IS 'sale_pending' AND derived.phase IS 'sale') AND NOT (fiscal IS 'refund_pending' AND derived.phase IS 'refund')`,
  ],
  /**
   * 6: the record's own time (src/shared/clock.ts inRecordTime): how far the
   * sandbox's test clock moved it ahead of the deployment's, 0 for every
   * record that was never advanced (all of production's). An expansion: code
   * before it reads and writes the row and leaves the column alone, and only
   * runs an advanced record on the deployment's time (a sandbox's, after a
   * rollback: its record's deadlines come later, none twice).
   */
  6: ["ALTER TABLE record ADD COLUMN clock_offset INTEGER NOT NULL DEFAULT 0"],
  /**
   * 7: the row's `updated_at` as this layout's code last wrote it
   * (`written_at`). Every write of this code sets both; a release before it
   * that changes the record moves `updated_at` alone. So a row whose two
   * agree is as this code left it, and the expansions above the stamp need
   * not run again when it is opened (src/record/store.ts load): they cost a
   * cold open its most CPU, on every incarnation of every record. One that
   * disagrees (stored or changed by a release before) runs them, and is
   * marked as this code's in the same step.
   */
  7: ["ALTER TABLE record ADD COLUMN written_at INTEGER NOT NULL DEFAULT 0"],
  /**
   * 8: rule 11's keys in the record's row (`keys`, src/record/keys.ts),
   * instead of an `idempotency` table of the record's own (a keyed pay's five
   * rows and two pages). An incompatible change in two releases: the first
   * (030096c) read both places and wrote the table; this code writes the row
   * alone and stamps 8, which that release reads and schema 4's refuses.
   * A table a release before made stays, read and erased, for its record's
   * life.
   */
  8: ["ALTER TABLE record ADD COLUMN keys TEXT"],
  /**
   * 9: rule 11's kept answers in `keys` as parts of the row's texts (the
   * create's answer and the record's body, as the events' bodies are:
   * src/record/key-texts.ts), so a keyed pay's row stays out of overflow
   * pages. The layout stays as it is; an incompatible change in two
   * releases: the first read an answer in either form and still wrote text,
   * which schema 8's release reads, and wrote a column it found in parts
   * back as text with the stamp it gave the row; this code writes the parts
   * and stamps 9, which that first release reads and schema 8's refuses. A
   * column stored as text (by a release before) is written as parts with the
   * row's next change of its keys, body or answer, or when this code first
   * brings the row to its stamp (src/record/store.ts load).
   */
  9: [],
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
    fiscal_listed INTEGER NOT NULL DEFAULT 1, clock_offset INTEGER NOT NULL DEFAULT 0,
    audit TEXT NOT NULL DEFAULT '[]', created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    written_at INTEGER NOT NULL DEFAULT 0, schema_version INTEGER NOT NULL DEFAULT ${OLDEST_READER_VERSION},
    events TEXT NOT NULL DEFAULT '[]', events_logged INTEGER NOT NULL DEFAULT 0, keys TEXT);`;

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

/** The stamp in this object's storage (OLDEST_READER_VERSION of the code that last wrote it): 0 when nothing was ever stored; else the row's (or, before a row, its column's default). */
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
 * Whether storage stamped `stamp` is this code's as it stands: stamped as
 * this code stamps, and no expansion above the stamp that a release before
 * may have left behind (while there is one, every first open runs it again,
 * unless the row is as this code wrote it: `asWritten`).
 */
export const isSettled = (stamp: number): boolean => stamp === OLDEST_READER_VERSION && stamp === CURRENT_SCHEMA_VERSION;

/**
 * The column the newest migration adds: a row without it was written by a
 * layout before this one, even where its `written_at` agrees (schema 7's
 * code sets it too).
 */
const NEWEST_COLUMN = "keys";

/**
 * Whether a row is as this layout's code last wrote it: its `updated_at`
 * moved by nothing since (schema 7), and every column of this layout in it.
 * A release before moves `updated_at` with every change of the record and
 * leaves `written_at` behind.
 */
export const asWritten = (row: { updated_at?: number; written_at?: number }): boolean =>
  typeof row.written_at === "number" && row.written_at === row.updated_at && NEWEST_COLUMN in row;

/** The table and column an `ALTER TABLE t ADD COLUMN c ...` adds; null for any other statement. */
function addedColumn(statement: string): { table: string; column: string } | null {
  const adds = /^\s*ALTER\s+TABLE\s+(\w+)\s+ADD\s+(?:COLUMN\s+)?(\w+)/i.exec(statement);
  return adds ? { table: adds[1]!.toLowerCase(), column: adds[2]!.toLowerCase() } : null;
}

/**
 * Brings storage stamped `from` to the layout `target` (the current one) in
 * one transaction, and stamps it `stamp`; with `create`, also makes it when
 * empty. Each migration above `from` runs, again if an earlier open ran it:
 * an ADD COLUMN whose column is there is skipped, every other statement is
 * written to change only what disagrees with the row (the header says why).
 * `migrations`, `target` and `stamp` are this code's but for the framework's
 * own test.
 */
export function migrate(
  storage: DurableObjectStorage,
  create: boolean,
  from = storedVersion(storage.sql),
  migrations: Readonly<Record<number, readonly string[]>> = MIGRATIONS,
  target = CURRENT_SCHEMA_VERSION,
  stamp = OLDEST_READER_VERSION,
): number {
  const sql = storage.sql;
  if (from === 0 && !create) return from;
  if (from > target) throw new NewerSchemaError(from, target);
  if (from === 0) {
    sql.exec(SCHEMA_CURRENT);
    return target;
  }
  if (from === stamp && stamp === target) return target;
  // Each table's columns read once (one PRAGMA, not one per ADD COLUMN), kept in step with what the migrations add.
  const columns = new Map<string, Set<string>>();
  const columnsOf = (table: string): Set<string> => {
    let names = columns.get(table);
    if (!names) {
      names = new Set(
        sql
          .exec<{ name: string }>(`PRAGMA table_info(${table})`)
          .toArray()
          .map((c) => c.name.toLowerCase()),
      );
      columns.set(table, names);
    }
    return names;
  };
  storage.transactionSync(() => {
    for (let version = from + 1; version <= target; version++) {
      const statements = migrations[version];
      if (!statements) throw new Error(`no migration to schema ${version}`);
      for (const statement of statements) {
        const adds = addedColumn(statement);
        if (adds && columnsOf(adds.table).has(adds.column)) continue;
        sql.exec(statement);
        if (adds) columnsOf(adds.table).add(adds.column);
      }
    }
    // A row stamped as it is already is not written again; once brought up, the row is as this code would leave it.
    const marked = columnsOf("record").has("written_at") ? ", written_at = updated_at" : "";
    sql.exec(
      `UPDATE record SET schema_version = ?1${marked} WHERE schema_version IS NOT ?1${marked ? " OR written_at IS NOT updated_at" : ""}`,
      stamp,
    );
  });
  return target;
}

/** The record row with its schema version and `written_at` (and, in it, the outbox), in one statement; undefined when no record is stored. */
export function readRecordRow(storage: DurableObjectStorage): (RecordRow & { schema_version: number; written_at?: number }) | undefined {
  try {
    return storage.sql.exec("SELECT * FROM record").toArray()[0] as (RecordRow & { schema_version: number; written_at?: number }) | undefined;
  } catch (err) {
    // A new object has no tables: no record. Anything else is a real failure.
    if (String(err).includes("no such table")) return undefined;
    throw err;
  }
}

/**
 * The schema for a record about to be created; the version it was at (0:
 * none). A new object (every create's) has no tables, so the current
 * schema is made straight away; only if that fails (the tables are there:
 * a create repeated after its object restarted) are they looked at and
 * migrated.
 */
export function makeSchema(storage: DurableObjectStorage): number {
  try {
    migrate(storage, true, 0);
    return 0;
  } catch {
    const from = storedVersion(storage.sql);
    migrate(storage, true, from);
    return from;
  }
}
