/**
 * The D1 schema as migrations/ leaves it: test/setup.ts applies the numbered
 * files (TEST_MIGRATIONS, read as wrangler reads migrations_dir) to every
 * database of [env.dev], as `npm run deploy` applies them to production's.
 * This holds the result to what the code reads and writes (src/tids/tid-index.ts,
 * src/events/log-database.ts, src/cron/erasure.ts, src/d1/fiscal-list.ts): a schema change is a new
 * numbered file, and this test changes with it.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { slotNames } from "../../src/d1/ring";
import { allShards } from "../../src/d1/shards";
import { EVENT_TYPE_CODES, eventTableDefinition, INDEXED_TYPES } from "../../src/events/log-database";
import { TID_LATE_MS, TID_SLOTS, tidSlotSchema } from "../../src/tids/tid-index";

/** Every D1 database of [env.dev]: each gets the whole set (one schema everywhere). */
const databases = (): [string, D1Database][] => [
  ...allShards(env).map(({ binding, db }): [string, D1Database] => [binding, db]),
  ["DB_TID_2", env.DB_TID_2],
];

/** The tid index's columns, in tid_index and in each slot of its ring alike. */
const TID_COLUMNS = [
  "owner TEXT NOT NULL pk1",
  "tid TEXT NOT NULL pk2",
  "upstream_tid BLOB",
  "kind INTEGER NOT NULL",
  "status INTEGER NOT NULL",
  "fingerprint BLOB NOT NULL",
  "claim_token TEXT",
  "receipt_id TEXT",
  "created_at INTEGER NOT NULL",
  "updated_at INTEGER NOT NULL",
];

/** Tables and their columns (name type, NOT NULL, the key's position), then the table's options. */
const TABLES = {
  tid_index: {
    columns: TID_COLUMNS,
    strict: 1,
    without_rowid: 0,
  },
  events: {
    columns: [
      "id TEXT NOT NULL pk1",
      "record_id TEXT NOT NULL",
      "type INTEGER NOT NULL",
      "status INTEGER NOT NULL DEFAULT 0",
      "attempts INTEGER NOT NULL DEFAULT 0",
      "last_status INTEGER",
      "last_error TEXT",
      "delivered_at INTEGER",
      "next_attempt_at INTEGER",
      "pending_since INTEGER",
      "watched INTEGER",
      // Rule 16: a statement line's fields, written with the row (migrations/0005_statement_fields.sql).
      "change INTEGER",
      "amount INTEGER",
      "commission INTEGER",
      "merchant INTEGER",
      "tid TEXT",
      "owner TEXT",
      "state INTEGER",
      "fiscal_sign TEXT",
    ],
    strict: 1,
    without_rowid: 1,
  },
  events_cursors: {
    columns: ["name TEXT NOT NULL pk1", "id TEXT NOT NULL", "prev TEXT NOT NULL"],
    strict: 1,
    without_rowid: 1,
  },
  // The tid index's ring of slots (migrations/0009_tid_ring.sql): tid_index's columns, WITHOUT ROWID.
  ...Object.fromEntries(
    TID_SLOTS.map((slot) => [
      slot,
      {
        columns: TID_COLUMNS,
        strict: 1,
        without_rowid: 1,
      },
    ]),
  ),
  // Retention's walk of the tid index by rowid (migrations/0008_tid_retention_walk.sql).
  tid_walk: {
    columns: ["name TEXT NOT NULL pk1", "at INTEGER NOT NULL", "prev INTEGER NOT NULL"],
    strict: 1,
    without_rowid: 1,
  },
  // Each delivery attempt, for the back office (migrations/0006_event_attempts.sql).
  event_attempts: {
    columns: [
      "event_id TEXT NOT NULL pk1",
      "at INTEGER NOT NULL pk2",
      "seq INTEGER NOT NULL pk3",
      "status INTEGER",
      "ok INTEGER NOT NULL",
      "answer TEXT NOT NULL",
    ],
    strict: 1,
    without_rowid: 1,
  },
  erasures: {
    columns: ["user TEXT NOT NULL pk1", "requested_at INTEGER NOT NULL", "cursor TEXT", "done_at INTEGER"],
    strict: 1,
    without_rowid: 0,
  },
  fiscal_pending: {
    columns: [
      "id TEXT NOT NULL pk1",
      "tid TEXT NOT NULL",
      "amount INTEGER NOT NULL",
      "state INTEGER NOT NULL",
      "since INTEGER NOT NULL",
      "reads INTEGER NOT NULL",
    ],
    strict: 1,
    without_rowid: 1,
  },
};

// The event log's ring of slots (migrations/0010_event_log_ring.sql): each of them as `events` is.
for (const slot of slotNames("events")) Object.assign(TABLES, { [slot]: TABLES.events });

/** The indexes the queries are planned on (retention.test.ts and events-log.test.ts read the plans), as created. */
const INDEXES = {
  tid_index_upstream_tid: "CREATE UNIQUE INDEX tid_index_upstream_tid ON tid_index (upstream_tid) WHERE upstream_tid IS NOT NULL",
  // The rows answered long after their claim, which retention's walk passes (src/tids/tid-index.ts TID_LATE_MS).
  tid_index_late: `CREATE INDEX tid_index_late ON tid_index (updated_at) WHERE status = 1 AND updated_at - created_at > ${TID_LATE_MS}`,
  tid_index_fences: "CREATE INDEX tid_index_fences ON tid_index (created_at) WHERE claim_token = 'moved'",
  // Each slot's one index: a user's upstream tid, unique (the claim's backstop within the slot).
  ...Object.fromEntries(TID_SLOTS.map((slot) => [`${slot}_upstream_tid`, tidSlotSchema(slot)[1]!])),
  // The rare types alone, the codes events/list names (src/events/log-database.ts INDEXED_TYPES), in its order.
  events_by_type: `CREATE INDEX events_by_type ON events (type, id) WHERE ${[...INDEXED_TYPES].map((type) => `type = ${EVENT_TYPE_CODES[type]}`).join(" OR ")}`,
  events_watched: "CREATE INDEX events_watched ON events (status, id) WHERE watched = 1",
  erasures_open: "CREATE INDEX erasures_open ON erasures (requested_at) WHERE done_at IS NULL",
  fiscal_pending_oldest: "CREATE INDEX fiscal_pending_oldest ON fiscal_pending (since, id)",
};

for (const slot of slotNames("events")) {
  Object.assign(INDEXES, {
    [`${slot}_by_type`]: INDEXES.events_by_type.replaceAll("events", slot),
    [`${slot}_watched`]: INDEXES.events_watched.replaceAll("events", slot),
  });
}

/** The gateway's objects, leaving out the migrations' own bookkeeping (d1_migrations) and the platform's (sqlite_, _cf_). */
const OURS = "name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name <> 'd1_migrations'";

async function schemaOf(db: D1Database) {
  const { results: objects } = await db
    .prepare(`SELECT type, name, sql FROM sqlite_master WHERE ${OURS} AND sql IS NOT NULL ORDER BY type, name`)
    .all<{ type: string; name: string; sql: string }>();
  const tables: Record<string, { columns: string[]; strict: number; without_rowid: number }> = {};
  for (const { name } of objects.filter((object) => object.type === "table")) {
    const { results: columns } = await db
      .prepare(`PRAGMA table_xinfo("${name}")`)
      .all<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>();
    const listed = await db.prepare(`PRAGMA table_list("${name}")`).first<{ strict: number; wr: number }>();
    tables[name] = {
      columns: columns.map((c) =>
        [c.name, c.type, c.notnull ? "NOT NULL" : "", c.dflt_value === null ? "" : `DEFAULT ${c.dflt_value}`, c.pk ? `pk${c.pk}` : ""]
          .filter(Boolean)
          .join(" "),
      ),
      strict: listed!.strict,
      without_rowid: listed!.wr,
    };
  }
  const indexes = Object.fromEntries(objects.filter((object) => object.type === "index").map(({ name, sql }) => [name, sql.replace(/\s+/g, " ")]));
  const others = objects.filter((object) => object.type !== "table" && object.type !== "index").map(({ type, name }) => `${type} ${name}`);
  return { tables, indexes, others };
}

describe("the D1 schema", () => {
  it("is what the code reads and writes, in every database, and nothing more", async () => {
    for (const [binding, db] of databases()) {
      const schema = await schemaOf(db);
      expect(schema.tables, binding).toEqual(TABLES);
      expect(schema.indexes, binding).toEqual(INDEXES);
      // No trigger or view: every row is written by the code that owns it.
      expect(schema.others, binding).toEqual([]);
    }
  });

  it("makes each slot of the tid index as the code that empties a slot makes it again, word for word", async () => {
    for (const [binding, db] of databases()) {
      const { results } = await db
        .prepare("SELECT name, sql FROM sqlite_master WHERE tbl_name LIKE 'tid\\_index\\__' ESCAPE '\\' AND sql IS NOT NULL ORDER BY type DESC, name")
        .all<{ name: string; sql: string }>();
      const made = Object.fromEntries(results.map(({ name, sql }) => [name, sql]));
      for (const slot of TID_SLOTS) {
        const [table, index] = tidSlotSchema(slot);
        expect(made[slot], binding).toBe(table);
        expect(made[`${slot}_upstream_tid`], binding).toBe(index);
      }
    }
  });

  it("makes each slot of the event log as the cron makes it again (eventTableDefinition), in every database", async () => {
    const normal = (sql: string) => sql.replace(/\s+/g, " ").replace(/\( /g, "(").replace(/ \)/g, ")").trim();
    for (const [binding, db] of databases()) {
      for (const slot of slotNames("events")) {
        const { results } = await db
          .prepare("SELECT sql FROM sqlite_master WHERE tbl_name = ?1 AND sql IS NOT NULL ORDER BY type DESC, name")
          .bind(slot)
          .all<{ sql: string }>();
        expect(results.map((row) => normal(row.sql)).sort(), `${binding} ${slot}`).toEqual(eventTableDefinition(slot).map(normal).sort());
      }
    }
  });

  it("comes from wrangler's numbered migrations, every file applied once, in order", async () => {
    const names = env.TEST_MIGRATIONS.map((migration) => migration.name);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(name).toMatch(/^\d{4}_[a-z0-9_]+\.sql$/);
    expect([...names].sort()).toEqual(names);
    for (const [binding, db] of databases()) {
      const { results } = await db.prepare("SELECT name FROM d1_migrations ORDER BY id").all<{ name: string }>();
      expect(
        results.map((row) => row.name),
        binding,
      ).toEqual(names);
    }
  });
});
