/**
 * The buckets of the CPU table (lib/profile.mjs): what each operation's CPU
 * is spent on, and which code counts for which bucket.
 *
 * A file's bucket is derived from its path by rules that name files and
 * folders, not whole paths: `record/store` is any store.ts whose folder is
 * record/, `auth` any auth.ts, the folder `upstream` anything beneath an
 * upstream/ folder at any depth. So a file moved to another folder keeps its
 * bucket, and a new file in a folder a rule names gets that folder's. A file
 * no rule names counts for OTHER, which the CPU table shows with the files
 * in it; the bench never stops over one. test/unit/bench-buckets.test.ts
 * fails while a file of src/ falls to OTHER, so the rules keep up in review,
 * not an hour into a run.
 *
 * Pure: no Node API, so the unit test runs it in workerd as it is.
 */

export const OTHER = "other";

/**
 * The buckets, in the order of the table's columns. A sample goes to the
 * bucket of its nearest frame (itself, else its caller, and so on up the
 * stack) that is gateway code, a package or workerd's own D1 client: a V8
 * builtin (JSON.parse, crypto, sql.exec) counts for whoever called it.
 * Samples with no such frame (V8's "(program)", the garbage collector) are
 * the runtime's.
 */
export const BUCKETS = [
  { key: "auth", label: "auth", what: "auth.ts, caller.ts, jwt.ts, jose: the key's SHA-256, a JWT's verification" },
  {
    key: "validation",
    label: "validation",
    what: "http.ts, schemas.ts (the gateway's and events/'), valibot: content type, body limit, JSON parse, the schemas",
  },
  {
    key: "d1",
    label: "D1",
    what: "tid-index.ts, tid-shards.ts, shards.ts, fanout.ts, retention.ts, erasure.ts, stores.ts (the list those two walk), fiscal-list.ts, events/log.ts, events/log-database.ts, events/sweep.ts and workerd's D1 client (the SQL itself runs in Miniflare's D1, outside this isolate)",
  },
  {
    key: "storage",
    label: "storage",
    what: "record/store.ts, row.ts, outbox-rows.ts, schema.ts, alarm.ts: the record's SQLite (sql.exec, transactions) and its alarm calls",
  },
  {
    key: "queue",
    label: "queue",
    what: "events/, record/event.ts, record/outbox.ts, ulid: the outbox's events, their ids, the queue send",
  },
  {
    key: "logging",
    label: "logging",
    what: "log.ts, canonical-line.ts, redact.ts, metrics.ts, dev-metrics.ts: the canonical log line, its redaction, the metrics' data points",
  },
  { key: "upstream", label: "upstream client", what: "upstream/: the request, its answer parsed and normalized" },
  {
    key: "audit",
    label: "audit trail",
    what: "audit/, statements/, fnv1a.ts: the trail's entries, their hash-chained batches written to R2 (a key's chain and filter by FNV-1a), its search and erasure; the daily statement",
  },
  {
    key: "hop",
    label: "Durable Object call",
    what: "an operation's call on the receipt's stub (`receiptStub(...)`, a handler's `record.pay(...)`): the RPC's argument copy and, for an object not in memory, its start, native work the profiler gives to the calling line (create's call is inside creation.ts and stays under create)",
  },
  {
    key: "record",
    label: "record object",
    what: "receipt-object.ts, record-stub.ts, lifecycle.ts, kinds.ts, clock.ts, schedule.ts, the rest of record/ (the money move, write-ahead, OTP ledger, recorder, late reads, reconciler), risk/ (rule 13's counters): the lifecycle, the Durable Objects' RPC",
  },
  {
    key: "create",
    label: "create",
    what: "creation.ts, tid-cache.ts (the data center's memory of completed tids, the Cache API) and keyed-hash.ts: the tid's HMAC fingerprint and upstream tid, the create's steps, and in createOnce's own frame the call that starts the new receipt object (native: its SQLite file, the RPC)",
  },
  {
    key: "routing",
    label: "routing",
    what: "hono, app.ts, index.ts, operations/, backoffice/ (the console's server), errors.ts, language.ts, config*.ts, guard.ts, rate-limit.ts, readiness.ts, restore.ts and the other packages: router, middleware, answers",
  },
  {
    key: "sandbox",
    label: "sandbox (not the gateway)",
    what: "sandbox/, console/: the upstream simulation and its console, in the same isolate in development",
  },
  {
    key: OTHER,
    label: "other gateway code",
    what: "files of src/ no rule of bench/lib/buckets.mjs names (the table lists them): give each a rule",
  },
  {
    key: "runtime",
    label: "runtime",
    what: "V8 and workerd with no JavaScript frame above: (program), the garbage collector, RPC and HTTP plumbing",
  },
];

/**
 * Which bucket each piece of src/ belongs to. `files` name a file by its
 * name without .ts, alone or with the folders right above it
 * (`record/store`); `folders` name a folder anywhere above the file. The
 * most specific rule wins: a file named with its folder, then a folder (the
 * nearest one above the file), then a file's name alone; so events/index.ts
 * is the queue's, as events/ is, while index.ts at the top is routing's.
 */
export const RULES = [
  // Not the gateway's: checked before every other rule, whatever names its files share with the gateway's (store, schema, routes).
  { bucket: "sandbox", folders: ["sandbox", "console"], first: true },
  { bucket: "auth", files: ["auth", "caller", "jwt"], packages: ["jose"] },
  { bucket: "validation", files: ["http", "schemas", "events/schemas"], packages: ["valibot", "@hono/standard-validator"] },
  {
    bucket: "d1",
    files: [
      "tid-index",
      "tid-shards",
      "shards",
      "ring",
      "fanout",
      "retention",
      "erasure",
      "stores",
      "fiscal-list",
      "events/log",
      "events/log-database",
      "events/sweep",
    ],
  },
  { bucket: "storage", files: ["record/store", "record/schema", "record/alarm", "record/outbox-rows", "record/row", "record/key-texts"] },
  { bucket: "queue", folders: ["events"], files: ["record/event", "record/outbox"], packages: ["ulid"] },
  { bucket: "logging", files: ["log", "canonical-line", "redact", "metrics", "dev-metrics"] },
  { bucket: "upstream", folders: ["upstream"] },
  { bucket: "audit", folders: ["audit", "statements"], files: ["record/audit-export", "events/statement-lines", "fnv1a"] },
  { bucket: "record", folders: ["record", "risk"], files: ["receipt-object", "record-stub", "lifecycle", "schedule", "kinds", "clock"] },
  // creation.ts lives in operations/, whose folder would give it to routing: named with its folder, the create's steps
  // and the native start of its new object (createOnce's own frame) count as the create's, wherever the file moves.
  { bucket: "create", files: ["creation", "operations/creation", "tid-cache", "keyed-hash"] },
  {
    bucket: "routing",
    folders: ["operations", "build", "backoffice"],
    files: [
      "app",
      "index",
      "dev",
      "errors",
      "error-codes",
      "language",
      "config",
      "config-lists",
      "config-rules",
      "retention-policy",
      "risk-limits",
      "staff-roles",
      "guard",
      "rate-limit",
      "readiness",
      "restore",
      "schema-version",
      "types",
      "openapi",
      "examples",
    ],
  },
];

/**
 * The bucket of a file of src/ by its path ("src/record/store.ts", or
 * relative to src/: "record/store.ts"), OTHER when no rule names it.
 */
export function bucketOfPath(path) {
  const parts = path
    .replace(/^.*?\bsrc\//, "")
    .replace(/\.[cm]?[jt]sx?$/, "")
    .split("/");
  const folders = parts.slice(0, -1);
  let best = null;
  for (const rule of RULES) {
    let score = 0;
    for (const entry of rule.files ?? []) {
      const want = entry.split("/");
      if (want.length <= parts.length && want.every((segment, i) => parts[parts.length - want.length + i] === segment)) {
        score = Math.max(score, want.length > 1 ? 1000 + want.length : 1);
      }
    }
    for (const folder of rule.folders ?? []) {
      const at = folders.lastIndexOf(folder);
      if (at >= 0) score = Math.max(score, rule.first ? 10_000 : 100 + at);
    }
    if (score > (best?.score ?? 0)) best = { score, bucket: rule.bucket };
  }
  return best?.bucket ?? OTHER;
}

/**
 * A line of routing code that calls the receipt's stub, whose CPU is the
 * Durable Object call's ("hop"): the RPC's argument copy and an object's
 * start are native work V8 gives to the calling line. The stub is
 * `receiptStub(...)`, or the `record` an operation's handler is given:
 * `onRecord("receipt", (record, _input, op) => record.check(op))`,
 * `keyed("receipt", (record, { card }, op) => record.pay(...))`.
 */
export const STUB_CALL = /\breceiptStub\(|\brecord\.\w+\(/;

/** The bucket of a package of node_modules: jose is auth's, valibot validation's, ulid the queue's, every other one routing's. */
export function bucketOfPackage(name) {
  return RULES.find((rule) => rule.packages?.includes(name))?.bucket ?? "routing";
}
