/**
 * Every place the gateway stores data, in one list (rule 10: every stored
 * byte has an end, and users/erase reaches every phone number and `account`
 * value wherever it is kept). Each entry says where the store lives (its
 * binding, object and tables), what personal data it may hold, how the
 * erasure reaches it, and what ends it.
 *
 * The list is what the code walks, not a description beside it:
 *
 * - a record's erasure (ReceiptObject.erase, and a restore that brings back
 *   a record from before its erasure) erases every store erased `by:
 *   "record"`, each through its part (src/record/erase.ts);
 * - the cron's erasure (src/cron/erasure.ts) finds the user's records through the
 *   tid index and erases each, then runs every eraser of a store erased `by:
 *   "cron"`;
 * - the cron's retention (src/cron/retention.ts) prunes every store ended `by:
 *   "cron"`, on the databases it lives in.
 *
 * Both walks are typed maps from these names, so an entry whose erasure or
 * end is the code's has no build until its code is written.
 * test/unit/stores.test.ts fails when storage is touched (a table, a
 * binding, the Cache API, an object's key-value storage) that no entry names,
 * and docs/reference.md's list is this one (storesTable), held by
 * test/docs/reference.test.ts.
 *
 * Adding a store is adding its entry here, then what the build asks for. An
 * R2 bucket of audit batches, for instance:
 *
 *   { name: "audit_batches", title: "the audit trail's batches", place: { kind: "r2", binding: "AUDIT" },
 *     holds: "...", personal: ["phone", "account values", "user sub"], code: ["src/audit.ts"],
 *     erasure: { by: "cron", how: "..." },
 *     end: { by: "cron", settings: ["AUDIT_RETENTION_DAYS"], how: "..." } }
 *
 * then its eraser in src/cron/erasure.ts CRON_ERASERS (called once a user's
 * records are erased, until it answers done) and its steps in
 * src/cron/retention.ts PRUNERS (a store outside D1 is pruned once a run, with
 * `env`), and docs/reference.md's table as storesTable() prints it. An end
 * the platform carries out (an R2 lifecycle rule) is `by: "platform"`.
 *
 * This module imports nothing: every part of the gateway may read it.
 */

/** The personal data a store may hold. Only phone numbers and `account` values are erased (rule 10); ids stay. */
export type PersonalField = "phone" | "account values" | "user sub" | "tid" | "client address";

/** Where a store lives. */
export type Place =
  /** Tables of D1: in every database of the deployment (`all`: each gets every migration) or the first (`DB`) alone. */
  | { kind: "d1"; databases: "all" | "first"; tables: readonly string[] }
  /**
   * A Durable Object class: its SQLite tables (none: it keeps what it holds in memory only; a column of one, for a store kept in another's row) or its key-value
   * keys; `madeBefore`: tables a release before made, which this code still reads and erases but makes no more.
   */
  | {
      kind: "durable-object";
      binding: string;
      className: string;
      tables?: readonly string[];
      column?: string;
      keys?: readonly string[];
      madeBefore?: readonly string[];
    }
  /** The Workers Cache API of each data center. */
  | { kind: "cache"; cache: "default" }
  /** Queues the gateway sends to (their dead-letter queues with them). */
  | { kind: "queue"; bindings: readonly string[] }
  | { kind: "analytics-engine"; binding: string }
  | { kind: "rate-limit"; bindings: readonly string[] }
  | { kind: "r2"; binding: string }
  | { kind: "kv"; binding: string }
  /** Workers Logs: the gateway's own log lines (src/shared/log.ts). */
  | { kind: "logs" };

/** How users/erase reaches a store. */
export type Erasure =
  /** The record's object erases it, with the record (src/record/erase.ts: one eraser per entry). */
  | { by: "record"; how: string }
  /** The cron's erasure run erases it directly (src/cron/erasure.ts CRON_ERASERS: one eraser per entry). */
  | { by: "cron"; how: string }
  /** Nothing to erase: it holds no phone number and no `account` value. */
  | { by: "nothing"; why: string }
  /** Its values cannot be reached once written: they end with the store's own window. */
  | { by: "unreachable"; why: string };

/** What ends a store's data. */
export type End =
  /** Its record ends it: deleted with the record's object, or before it by the record. */
  | { by: "record"; how: string }
  /** The object's own alarm deletes it (its storage, with deleteAll). */
  | { by: "alarm"; settings: readonly string[]; how: string }
  /** The cron's retention run prunes it (src/cron/retention.ts PRUNERS: one pruner per entry). */
  | { by: "cron"; settings: readonly string[]; how: string }
  /** The platform ends it (a cache's max-age, a queue's retention, a product's own window). */
  | { by: "platform"; settings?: readonly string[]; how: string };

export interface Store {
  /** The entry's name, as the code's maps and the tests name it. */
  name: string;
  /** What docs/reference.md calls it. */
  title: string;
  place: Place;
  /** What it holds, in a sentence. */
  holds: string;
  /** The personal data it may hold; empty: none. */
  personal: readonly PersonalField[];
  /** The modules that write it (the source files that touch it directly). */
  code: readonly string[];
  erasure: Erasure;
  end: End;
}

/** How long a done erasure request is kept: the 30 days of D1 Time Travel, so that a restore of DB can put back every request made since the time restored to (scripts/restore.mjs). */
export const ERASURE_REQUESTS_KEPT_DAYS = 30;

export const STORES = [
  {
    name: "record",
    title: "the record",
    place: { kind: "durable-object", binding: "RECEIPTS", className: "ReceiptObject", tables: ["record"] },
    holds:
      "a receipt's or transfer's last known body (card numbers masked), the create's answer kept for replays, its owner and tid, the OTP ledger, the write-ahead note naming who asked, rule 12's and rule 14's marks, and its audit trail (operations, actors, request ids, outcomes)",
    personal: ["phone", "account values", "user sub", "tid"],
    code: ["src/record/store.ts", "src/record/schema.ts", "src/record/receipt-object.ts"],
    erasure: { by: "record", how: "the body and the create's answer erased, and every body stored after it (the record is marked erased)" },
    end: {
      by: "alarm",
      settings: ["RECORD_RETENTION_DAYS"],
      how: "its own alarm deletes the object's storage `RECORD_RETENTION_DAYS` after it became final with nothing owed, once the event log lists none of its events",
    },
  },
  {
    name: "record_events",
    title: "the record's outbox",
    place: { kind: "durable-object", binding: "RECEIPTS", className: "ReceiptObject", tables: ["record"], column: "events" },
    holds: "the body of every event the record published, byte for byte as sent (what events/list, events/resend and the sweep send)",
    personal: ["phone", "account values", "user sub", "tid"],
    code: ["src/record/outbox-rows.ts", "src/record/outbox.ts"],
    erasure: { by: "record", how: "every event's body erased; later events carry the erased body" },
    end: { by: "record", how: "deleted with its record" },
  },
  {
    name: "idempotency_keys",
    title: "the answers kept for Idempotency-Keys",
    place: {
      kind: "durable-object",
      binding: "RECEIPTS",
      className: "ReceiptObject",
      tables: ["record"],
      column: "keys",
      madeBefore: ["idempotency"],
    },
    holds:
      "for each key a caller used on the record (rule 11): the caller, the operation, the request's keyed fingerprint and the answer as it was sent",
    personal: ["phone", "account values", "user sub"],
    code: ["src/record/keys.ts", "src/record/key-texts.ts", "src/record/schema.ts"],
    erasure: { by: "record", how: "every kept answer erased; an answer kept after it is built from the erased record" },
    end: { by: "record", how: "deleted with its record" },
  },
  {
    name: "tid_index",
    title: "the tid index",
    // tid_index and its ring of slots, RING_SLOTS of them (src/d1/ring.ts, src/tids/tid-index.ts; migrations/0009_tid_ring.sql).
    place: {
      kind: "d1",
      databases: "all",
      tables: ["tid_index", ...Array.from({ length: 8 }, (_, slot) => `tid_index_${slot}`), "tid_walk"],
    },
    holds:
      "one row per tid claimed: its owner (`partner` or `user:<sub>`), the tid, the upstream's tid, the request's keyed fingerprint, the record it created; and where retention's walk of tid_index stands",
    personal: ["user sub", "tid"],
    code: ["src/tids/tid-index.ts"],
    erasure: { by: "nothing", why: "no phone number or `account` value; the erasure finds the user's records through its rows" },
    end: {
      by: "cron",
      settings: ["TID_RETENTION_DAYS"],
      how: "forgotten `TID_RETENTION_DAYS` after the create was answered: in tid_index, deleted by the cron's retention (the walk's cursor is rewritten in place); in the ring of slots, dropped with its slot by the cron once every row it took is past the window, the rows still within it moved first",
    },
  },
  {
    name: "tid_cache",
    title: "the tid cache",
    place: { kind: "cache", cache: "default" },
    holds:
      "each data center's copy of completed tids, under a SHA-256 of owner and tid: the kind, the record, the keyed fingerprint, when it was answered",
    personal: [],
    code: ["src/tids/tid-cache.ts"],
    erasure: { by: "nothing", why: "no phone number or `account` value, and no owner or tid but their hash" },
    end: {
      by: "platform",
      settings: ["TID_RETENTION_DAYS"],
      how: "the cache drops an entry after a day at most (its max-age), and none is believed past `TID_RETENTION_DAYS`",
    },
  },
  {
    name: "event_log",
    title: "the event log",
    // `events`, then its ring of slots (src/d1/ring.ts slotNames: `events_0` .. `events_7`; test/unit/stores.test.ts holds the list to the migrations).
    place: { kind: "d1", databases: "all", tables: ["events", ...Array.from({ length: 8 }, (_, slot) => `events_${slot}`), "events_cursors"] },
    holds:
      "each event's delivery: its id, record, type, status, attempts and next attempt (no body); for a statement line (rule 16), its change, amount, commission, merchant, tid, owner, state and fiscal sign; and where the sweep's and retention's walks stand",
    personal: ["user sub", "tid"],
    code: ["src/events/log-database.ts", "src/events/sweep.ts"],
    erasure: { by: "nothing", why: "no bodies (the records keep them), and of a statement line no phone number or `account` value" },
    end: {
      by: "cron",
      settings: ["EVENTS_DELIVERED_RETENTION_DAYS", "EVENTS_UNDELIVERED_RETENTION_DAYS"],
      how: "deleted by the cron's retention `EVENTS_DELIVERED_RETENTION_DAYS` after the event's creation once delivered, `EVENTS_UNDELIVERED_RETENTION_DAYS` if never: in `events` row by row (the walks' two cursors are rewritten in place), in a slot by dropping the slot whole once every event it took is past the first, those still within their window copied forward first",
    },
  },
  {
    name: "event_attempts",
    title: "the delivery attempts",
    place: { kind: "d1", databases: "all", tables: ["event_attempts"] },
    holds:
      "each delivery attempt of each event, for the back office: when, the receiver's HTTP status, whether it was a 2xx, and its answer trimmed to 200 characters and redacted (card numbers and runs of 12 digits or more masked)",
    personal: [],
    code: ["src/events/log-database.ts"],
    erasure: { by: "nothing", why: "no body and no `account` value; a receiver's answer is redacted before it is kept, phone numbers masked" },
    end: {
      by: "cron",
      settings: ["EVENTS_DELIVERED_RETENTION_DAYS", "EVENTS_UNDELIVERED_RETENTION_DAYS"],
      how: "deleted by the cron's retention once the longer of `EVENTS_DELIVERED_RETENTION_DAYS` and `EVENTS_UNDELIVERED_RETENTION_DAYS` has passed since the event's creation",
    },
  },
  {
    name: "event_queue",
    title: "the events queue",
    place: { kind: "queue", bindings: ["EVENTS"] },
    holds: "each event on its way to `WEBHOOK_URL`, its body as the record published it",
    personal: ["phone", "account values", "user sub", "tid"],
    code: ["src/events/publish.ts", "src/events/pager.ts", "src/events/delivery.ts"],
    erasure: {
      by: "unreachable",
      why: "a message cannot be changed once sent; one still retrying carries the body as published until it is delivered or dead-lettered",
    },
    end: { by: "platform", how: "consumed once delivered or dead-lettered (production's retries end about 29 hours after the first attempt)" },
  },
  {
    name: "event_pagers",
    title: "the event pagers",
    place: { kind: "durable-object", binding: "EVENT_PAGER", className: "EventPager", tables: [] },
    holds: "events on their way to the events queue, in memory only (nothing stored), until their page is sent",
    personal: ["phone", "account values", "user sub", "tid"],
    code: ["src/events/pager.ts"],
    erasure: {
      by: "unreachable",
      why: "an event waits there at most a second (`PAGE_WAIT_MS`), in the object's memory, then travels on as the events queue's",
    },
    end: { by: "platform", how: "sent to the events queue within a second, or lost with the object's memory (the sweep sends the event again)" },
  },
  {
    name: "fiscal_list",
    title: "the fiscal list",
    place: { kind: "d1", databases: "first", tables: ["fiscal_pending"] },
    holds: "the receipts whose fiscal data is missing (rule 14): id, tid, amount, state, since when, reads done",
    personal: ["tid"],
    code: ["src/d1/fiscal-list.ts"],
    erasure: { by: "nothing", why: "no phone number or `account` value" },
    end: { by: "record", how: "its record deletes the row once the fiscal data shows, and is not deleted itself while the row is there" },
  },
  {
    name: "erasure_requests",
    title: "the erasure requests",
    place: { kind: "d1", databases: "first", tables: ["erasures"] },
    holds: "each users/erase request: the user's sub, when it was made, how far the cron has got, when it was done",
    personal: ["user sub"],
    code: ["src/cron/erasure.ts"],
    erasure: { by: "nothing", why: "the request holds no phone number or `account` value" },
    end: {
      by: "cron",
      settings: [],
      how: `a done request is deleted by the cron's retention ${ERASURE_REQUESTS_KEPT_DAYS} days after it was made (the window of D1 Time Travel, within which a restore puts back the requests made since)`,
    },
  },
  {
    name: "risk_counters",
    title: "rule 13's counters",
    place: { kind: "durable-object", binding: "RISK", className: "RiskObject", keys: ["c:<chunk>:<day>", "log"] },
    holds:
      "a few hundred shared objects (\"shard:<n>\"), each subject (a user, a card fingerprint) a part of one of a day's 512 chunks (keys) of the shard its name falls to, the part of its log counted that day: when each counted use leaves its window; a user's uses, OTP sends and receiver cards by keyed card fingerprint, a card's users by a keyed hash of each user (never a `sub`, but in the key of the user's own log); `log`: the previous release's one object per subject, which a shard reads the first time it meets the subject, and in a shard the end of its latest use (its guard against that release's alarm)",
    personal: ["user sub"],
    code: ["src/risk/risk-object.ts"],
    erasure: { by: "nothing", why: "no phone number or `account` value; card numbers only as keyed fingerprints" },
    end: {
      by: "alarm",
      settings: ["RISK_LIMITS"],
      how: "a shard's alarm deletes each day's chunk once every use it holds has left its window (by the end of the next day, and at most an hour for the alarm: a subject's part at most two days and an hour after its use), and the shard itself a day after its last use; a previous release's object deletes itself as that release did",
    },
  },
  {
    name: "rate_limits",
    title: "the rate limits",
    place: { kind: "rate-limit", bindings: ["LIMIT_AUTHORIZE_PER_USER", "LIMIT_AUTHORIZE_PER_IP", "LIMIT_PAY_PER_USER", "LIMIT_PAY_PER_IP"] },
    holds: "Cloudflare's counts of authorize and pay calls per user and per client address; the gateway stores nothing",
    personal: ["user sub", "client address"],
    code: ["src/http/rate-limit.ts"],
    erasure: { by: "nothing", why: "counts only" },
    end: { by: "platform", how: "each count ends with its limit's period (60 seconds)" },
  },
  {
    name: "metrics",
    title: "the metrics",
    place: { kind: "analytics-engine", binding: "METRICS" },
    holds: "data points of the on-call's numbers: operation names, outcome classes, counts and times",
    personal: [],
    code: ["src/metrics/metrics.ts"],
    erasure: { by: "nothing", why: "no personal data" },
    end: { by: "platform", how: "Workers Analytics Engine keeps data points three months" },
  },
  {
    name: "logs",
    title: "the logs",
    place: { kind: "logs" },
    holds: "the gateway's own lines (one per upstream call, delivery, warning, error and cron run): ids, codes, counts, with card data redacted",
    personal: [],
    code: ["src/shared/log.ts"],
    erasure: { by: "nothing", why: "no line carries a phone number, an `account` value or a user's sub" },
    end: { by: "platform", how: "Workers Logs keeps them seven days" },
  },
  {
    name: "audit_batches",
    title: "the audit trail",
    place: { kind: "r2", binding: "AUDIT" },
    holds:
      "rule 15's batches of NDJSON, hash-chained, and each chain's head: every record's audit entries (a create's with its tid, amount, merchant and `account`), every gateway call (its filters, never a body or key) and every staff action",
    personal: ["phone", "account values", "user sub", "tid"],
    code: ["src/audit/writer.ts", "src/audit/erase.ts"],
    erasure: {
      by: "cron",
      how: "every writer flushed, then each batch whose filter may hold the user's values rewritten by its writer with them masked, the rewrite recorded in its chain first",
    },
    end: {
      by: "platform",
      settings: ["AUDIT_RETENTION_DAYS"],
      how: "an R2 lifecycle rule `npm run deploy` sets deletes each batch `AUDIT_RETENTION_DAYS` after it was written (after an erasure's rewrite, counted from it)",
    },
  },
  {
    name: "audit_writers",
    title: "the audit trail's writers",
    place: { kind: "durable-object", binding: "AUDIT_WRITER", className: "AuditWriter", tables: ["pending", "head", "erased"] },
    holds: "entries appended and not yet flushed to R2 (as the batches hold them), each chain's head, and the users being erased (for a day)",
    personal: ["phone", "account values", "user sub", "tid"],
    code: ["src/audit/writer.ts"],
    erasure: {
      by: "unreachable",
      why: "an entry waits there at most `AUDIT_FLUSH_SECONDS`; the trail's eraser has every writer mask the user's values in what it is sent from then on, flushes every writer and masks the entries in R2",
    },
    end: {
      by: "alarm",
      settings: ["AUDIT_FLUSH_SECONDS"],
      how: "each entry deleted by the flush that writes its batch; the head is one row per chain",
    },
  },
  {
    name: "statements",
    title: "the statements",
    place: { kind: "r2", binding: "STATEMENTS" },
    holds: "rule 16's daily statements as CSV and JSON, and each day's summary: ids, tids, owners, merchants, amounts, states, times, fiscal signs",
    personal: ["user sub", "tid"],
    code: ["src/statements/statement-object.ts", "src/statements/uploads.ts"],
    erasure: { by: "nothing", why: "no phone number or `account` value" },
    end: {
      by: "platform",
      settings: ["AUDIT_RETENTION_DAYS"],
      how: "an R2 lifecycle rule `npm run deploy` sets deletes each file `AUDIT_RETENTION_DAYS` after it was written",
    },
  },
  {
    name: "statement_builders",
    title: "the statements' builders",
    place: { kind: "durable-object", binding: "STATEMENT", className: "StatementObject", tables: ["run", "tail"] },
    holds: "a day's statement being written: its cursors, totals, mismatches and the bytes short of a part",
    personal: ["user sub", "tid"],
    code: ["src/statements/statement-object.ts", "src/statements/run.ts"],
    erasure: { by: "nothing", why: "no phone number or `account` value" },
    end: {
      by: "alarm",
      settings: [],
      how: "deleted by its own alarm 8 days after the statement was written (a rebuild is refused once the event log no longer holds the day whole)",
    },
  },
] as const satisfies readonly Store[];

type Entry = (typeof STORES)[number];

export type StoreName = Entry["name"];
/** The stores a given kind of erasure reaches. */
export type StoreErasedBy<B extends Erasure["by"]> = Extract<Entry, { erasure: { by: B } }>["name"];
/** The stores a given kind of end ends. */
export type StoreEndedBy<B extends End["by"]> = Extract<Entry, { end: { by: B } }>["name"];

/** The entries whose erasure is `by`, in the list's order. */
export const storesErasedBy = <B extends Erasure["by"]>(by: B): Extract<Entry, { erasure: { by: B } }>[] =>
  STORES.filter((store): store is Extract<Entry, { erasure: { by: B } }> => store.erasure.by === by);

/** The entries whose end is `by`, in the list's order. */
export const storesEndedBy = <B extends End["by"]>(by: B): Extract<Entry, { end: { by: B } }>[] =>
  STORES.filter((store): store is Extract<Entry, { end: { by: B } }> => store.end.by === by);

/**
 * What `map` gives each store of `stores`, in the list's order: how the
 * walks of erasure and retention find each store's code. The map is typed
 * by the stores' names, so it has exactly one entry for each.
 */
export function implementations<N extends string, T>(stores: readonly { readonly name: N }[], map: Readonly<Record<N, T>>): T[] {
  return stores.map((store) => map[store.name]);
}

const code = (text: string) => `\`${text}\``;

/** Where a store lives, in words. */
export function placeText(place: Place): string {
  switch (place.kind) {
    case "d1": {
      const tables = place.tables.map(code).join(", ");
      return `D1 (${place.databases === "all" ? "every database of `TID_INDEX_SHARDS`" : "`DB`"}), ${place.tables.length > 1 ? "tables" : "table"} ${tables}`;
    }
    case "durable-object": {
      const inside = place.column
        ? `column ${code(place.column)} of table ${code(place.tables?.[0] ?? "")}`
        : place.tables?.length === 0
          ? "memory only"
          : place.tables
            ? `${place.tables.length > 1 ? "tables" : "table"} ${place.tables.map(code).join(", ")}`
            : `key ${(place.keys ?? []).map(code).join(", ")}`;
      const before = place.madeBefore?.length
        ? `, and ${place.madeBefore.length > 1 ? "tables" : "table"} ${place.madeBefore.map(code).join(", ")} where a release before made it`
        : "";
      return `Durable Objects ${code(place.className)} (${code(place.binding)}), ${inside}${before}`;
    }
    case "cache":
      return "the Cache API (`caches.default`) of each data center";
    case "queue":
      return `Queues ${place.bindings.map(code).join(", ")} and their dead-letter queues`;
    case "analytics-engine":
      return `Workers Analytics Engine (${code(place.binding)})`;
    case "rate-limit":
      return `Workers rate limiting (${place.bindings.map(code).join(", ")})`;
    case "r2":
      return `R2 (${code(place.binding)})`;
    case "kv":
      return `Workers KV (${code(place.binding)})`;
    case "logs":
      return "Workers Logs";
  }
}

const erasureText = (erasure: Erasure): string => {
  switch (erasure.by) {
    case "record":
      return `by the record's erasure: ${erasure.how}`;
    case "cron":
      return `by the cron's erasure: ${erasure.how}`;
    case "nothing":
      return `nothing to erase: ${erasure.why}`;
    case "unreachable":
      return `not reachable: ${erasure.why}`;
  }
};

/** docs/reference.md's list of every store (rule 10), as a Markdown table: the document holds exactly this text. */
export function storesTable(): string {
  const cell = (text: string) => text.replaceAll("|", "\\|");
  const rows = STORES.map((store) =>
    [
      store.title,
      placeText(store.place),
      store.holds,
      store.personal.length ? store.personal.join(", ") : "none",
      erasureText(store.erasure),
      store.end.how,
    ]
      .map(cell)
      .join(" | "),
  );
  return [
    "| Store | Where | What it holds | Personal data it may hold | users/erase | What ends it |",
    "|---|---|---|---|---|---|",
    ...rows.map((row) => `| ${row} |`),
  ].join("\n");
}
