/**
 * The capacity bench (bench/README.md, "Capacity"): what one receipt costs in
 * storage, and how many creates a second one local D1 database sustains when
 * its tid index already holds millions of rows.
 *
 *   ./node_modules/.bin/node bench/capacity.mjs                 # shapes, then 0, 1M and 10M rows (~10-15 min)
 *   ./node_modules/.bin/node bench/capacity.mjs --rows 0,1000000 --seconds 5
 *   ./node_modules/.bin/node bench/capacity.mjs --quick         # shapes, then 0 and 100k rows: a smoke test
 *
 * 1. Shapes: the gateway (src/dev.ts with the sandbox, as `npm run dev` runs
 *    it) in Miniflare does create-authorize-pay flows for the partner and for
 *    users; then its D1 file and each receipt's Durable Object file are read
 *    with node:sqlite (dbstat: bytes per table and index).
 * 2. Bytes per row at scale: 100,000 rows made from those real rows (the real
 *    event bodies) go into a fresh SQLite file with the migrations applied,
 *    in random key order as creates make them; bytes per tid row (partner
 *    and user: migrations/0001_initial.sql, no answer) and per event row,
 *    in pages (dbstat: every page of the table and its indexes; never after
 *    a VACUUM, which production never runs).
 * 3. Throughput: a worker that runs the gateway's claimTid + completeTid
 *    (bench/workers/tid-claims.ts) on a local D1 database that already holds
 *    N rows (generated straight into Miniflare's D1 file, spread over the
 *    retention window); creates/s at concurrency 32 and latency at concurrency 1, and
 *    the time of one retention batch (1,000 rows) at that size.
 *
 *    Between 2 and 3, a payment's whole life counted (bench/lib/costs.mjs),
 *    once as is and once with an Idempotency-Key on every pay (rule 11);
 *    and a paid and an abandoned payment at production's windows and pace,
 *    the day-long windows crossed by the sandbox's test clock (`costs.paced`,
 *    ~1.5 min): the record objects' requests and rows the model prices.
 *
 * 4. The model: bench/capacity-model.mjs prices a year at 1M and 10M creates
 *    a day from what this run measured (stored as `model` in the report).
 *
 * Writes bench/results/capacity-<date-time>.json. Never run by `npm test`.
 * State lives where the bench keeps it (/dev/shm; BENCH_STATE_DIR=/tmp puts
 * it on disk): 10M rows are ~3 GB. It is removed at the end.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join, relative } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { SignJWT } from "jose";
import { encodeTime } from "ulid";
import { unstable_readConfig, unstable_splitSqlQuery } from "wrangler";
import { EVENT_TABLES } from "../scripts/restore-plan.mjs";
import { decodeBody } from "../src/record/event-texts.ts";
import { capacityModel } from "./capacity-model.mjs";
import { BENCH_DIR, BUILD_DIR, DEV_VARS, GATEWAY_HEADERS, RESULTS_DIR, ROOT, WRANGLER_BIN } from "./lib/config.mjs";
import { countFlowCosts } from "./lib/costs.mjs";
import { runLoad } from "./lib/load.mjs";
import { describeMachine, describeSource } from "./lib/report.mjs";
import { applyMigrations, runtimeCpuMs, STATE_ROOT, startRuntime, stopAll, workerFromBuild } from "./lib/runtime.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const quick = args.includes("--quick");
const ROW_COUNTS = option("rows", quick ? "0,100000" : "0,1000000,10000000")
  .split(",")
  .map(Number);
const SECONDS = Number(option("seconds", quick ? "2" : "8"));
const FLOWS = quick ? 4 : 20;
const SAMPLE_ROWS = quick ? 20_000 : 100_000;
/** Away from run.mjs's ports (BENCH_PORT_BASE + 1..), so both can run at once. */
const PORT = Number(process.env.CAPACITY_PORT ?? 18831);
const DAY_MS = 86_400_000;
/** The default windows (src/cron/retention.ts): the steady state holds 90 days of rows, the newest 7 with their answer. */
const RETENTION_DAYS = 90;

const CAPACITY_BUILD = join(BUILD_DIR, "capacity");
const MIGRATIONS = join(ROOT, "migrations");

const stateDirs = new Set();
process.on("exit", () => {
  for (const dir of stateDirs) rmSync(dir, { recursive: true, force: true });
});
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    stopAll().finally(() => process.exit(130));
  });
}

const log = (...parts) => console.log(`[capacity ${new Date().toISOString().slice(11, 19)}]`, ...parts);
const round = (value, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

// --- building -----------------------------------------------------------------

function wrangler(argv) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRANGLER_BIN, ...argv], {
      cwd: ROOT,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`wrangler ${argv.join(" ")} failed:\n${out}`))));
  });
}

/** The development gateway (as `npm run dev` runs it), bundled by wrangler as a deploy would. */
async function buildGateway() {
  const outdir = join(CAPACITY_BUILD, "gateway");
  await wrangler(["deploy", "--dry-run", "--outdir", outdir, "--config", join(ROOT, "wrangler.toml"), "--env", "dev"]);
  const base = unstable_readConfig({ config: join(ROOT, "wrangler.toml"), env: "dev" }, { hideWarnings: true });
  return { config: join(ROOT, "wrangler.toml"), env: "dev", name: base.name, module: join(outdir, "dev.js") };
}

/** The tid-claims worker with a D1 binding whose migrations are the gateway's. */
async function buildClaims(createAnswer, eventBody) {
  const dir = join(CAPACITY_BUILD, "tid-claims");
  mkdirSync(dir, { recursive: true });
  const base = unstable_readConfig({ config: join(ROOT, "wrangler.toml") }, { hideWarnings: true });
  const config = join(dir, "wrangler.json");
  writeFileSync(
    config,
    JSON.stringify(
      {
        name: "capacity-tid-claims",
        main: relative(dir, join(BENCH_DIR, "workers", "tid-claims.ts")),
        compatibility_date: base.compatibility_date,
        compatibility_flags: base.compatibility_flags,
        vars: { CREATE_ANSWER: JSON.stringify(createAnswer), EVENT_BODY: eventBody },
        d1_databases: [{ binding: "DB", database_name: "capacity", database_id: "00000000-0000-0000-0000-000000000001", migrations_dir: MIGRATIONS }],
      },
      null,
      2,
    ),
  );
  const outdir = join(dir, "out");
  await wrangler(["deploy", "--dry-run", "--outdir", outdir, "--config", config]);
  return { config, env: undefined, name: "capacity-tid-claims", module: join(outdir, "tid-claims.js") };
}

// --- SQLite files ---------------------------------------------------------------

function sqliteFiles(dir) {
  const found = [];
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".sqlite")) found.push(path);
    }
  };
  walk(dir);
  return found;
}

const tablesOf = (db) =>
  db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
    .all()
    .map((r) => r.name);

/** Bytes per table and index (dbstat: pages in use, and what of them is payload), the file's size, its free pages. */
function storageOf(db) {
  const pageSize = db.prepare("PRAGMA page_size").get().page_size;
  const pageCount = db.prepare("PRAGMA page_count").get().page_count;
  const freelist = db.prepare("PRAGMA freelist_count").get().freelist_count;
  const objects = {};
  for (const row of db
    .prepare("SELECT name, COUNT(*) AS pages, SUM(pgsize) AS bytes, SUM(payload) AS payload, SUM(ncell) AS cells FROM dbstat GROUP BY name")
    .all()) {
    objects[row.name] = { pages: row.pages, bytes: row.bytes, payload: row.payload };
  }
  return { page_size: pageSize, file_bytes: pageSize * pageCount, free_bytes: pageSize * freelist, objects };
}

function freshDb(path, migrationsUpTo = Infinity) {
  const db = new DatabaseSync(path);
  const files = readdirSync(MIGRATIONS)
    .filter((f) => f.endsWith(".sql"))
    .sort()
    .slice(0, migrationsUpTo);
  for (const file of files) for (const sql of unstable_splitSqlQuery(readFileSync(join(MIGRATIONS, file), "utf8"))) db.exec(sql);
  return db;
}

// --- 1. shapes: real flows through the gateway --------------------------------------

async function post(url, path, body, headers) {
  const res = await fetch(`${url}/api/v1/partner/${path}`, { method: "POST", headers, body: JSON.stringify(body) });
  const json = await res.json();
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function userHeaders(sub) {
  const jwt = await new SignJWT({})
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime("1h")
    .sign(new TextEncoder().encode(DEV_VARS.JWT_SECRET));
  return { "content-type": "application/json", authorization: `Bearer ${jwt}` };
}

/** A typical payment: create (merchant 1001, an OTP), authorize, pay with the OTP; with `payKey`, the pay carries that Idempotency-Key (rule 11), as the typed client's does. */
async function flow(url, headers, payKey) {
  const created = await post(
    url,
    "receipt/create",
    {
      tid: `order-${crypto.randomUUID()}`,
      amount: 150_000,
      merchant_id: 1001,
      account: [{ key: "phone", value: "998901234567" }],
      description: "Mobile top-up",
    },
    headers,
  );
  await post(url, "receipt/authorize", { id: created.id, card: { token: "tok_sandbox_ok" } }, headers);
  await post(
    url,
    "receipt/pay",
    { id: created.id, card: { token: "tok_sandbox_ok" }, otp: "111111" },
    payKey ? { ...headers, "idempotency-key": payKey } : headers,
  );
  return created;
}

async function shapes() {
  log("shapes: building the gateway");
  const build = await buildGateway();
  const runtime = await startRuntime({ key: "capacity-gateway", workers: [workerFromBuild(build)], port: PORT });
  stateDirs.add(runtime.persist);
  await applyMigrations(runtime, build);
  log(`shapes: ${FLOWS} partner and ${FLOWS} user create-authorize-pay flows, and ${FLOWS} partner ones with a keyed pay`);
  const answers = { partner: null, user: null };
  for (let i = 0; i < FLOWS; i++) {
    answers.partner = await flow(runtime.url, GATEWAY_HEADERS);
    answers.user = await flow(runtime.url, await userHeaders(`user-${crypto.randomUUID()}`));
    await flow(runtime.url, GATEWAY_HEADERS, `pay-${crypto.randomUUID()}`);
  }
  // Events reach the D1 log from each object's outbox shortly after the call; wait for created + paid of every flow.
  // The event log is spread over every D1 database of [env.dev] (TID_INDEX_SHARDS): count them all.
  const { d1_databases: databases = [] } = unstable_readConfig({ config: build.config, env: build.env || undefined }, { hideWarnings: true });
  const d1s = await Promise.all(databases.map((database) => runtime.mf.getD1Database(database.binding, build.name)));
  const deadline = Date.now() + 30_000;
  let events = 0;
  while (Date.now() < deadline) {
    events = 0;
    for (const d1 of d1s) for (const table of EVENT_TABLES) events += (await d1.prepare(`SELECT COUNT(*) AS n FROM ${table}`).first()).n;
    if (events >= 6 * FLOWS) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  runtime.keepState = true;
  await runtime.stop();

  const files = sqliteFiles(runtime.persist);
  const objects = [];
  /** The records whose pay carried a key (their row's `keys` column holds its kept answer), apart. */
  const keyedObjects = [];
  const bodies = [];
  let index = null;
  for (const file of files) {
    const db = new DatabaseSync(file, { readOnly: false });
    const tables = tablesOf(db);
    if (tables.includes("tid_index")) {
      // Every D1 database of [env.dev] (DB and the tid index's shards, TID_INDEX_SHARDS) has the schema: gather them all.
      index ??= { tid_rows: [], event_rows: [] };
      // tid_index and its ring of slots (src/tids/tid-index.ts): new claims are in the slots.
      for (const table of tables.filter((t) => TID_TABLE.test(t)))
        index.tid_rows.push(...db.prepare(`SELECT * FROM ${table} WHERE status = 1`).all());
      for (const table of EVENT_TABLES) index.event_rows.push(...db.prepare(`SELECT * FROM ${table}`).all());
    } else if (tables.includes("record")) {
      // The event bodies live in their records' rows (the outbox: [event_id, ...parts], each body as parts of the row's
      // answer and body where it repeats them: src/record/event-texts.ts), not in D1.
      const record = db.prepare("SELECT events, body, answer FROM record").get();
      const texts = [record?.answer ?? null, record?.body ?? ""];
      bodies.push(...JSON.parse(record?.events ?? "[]").map(([id, ...parts]) => ({ id, body: decodeBody(parts, texts) })));
      const storage = storageOf(db);
      const rows = Object.fromEntries(
        tables.filter((t) => !t.startsWith("sqlite_")).map((t) => [t, db.prepare(`SELECT COUNT(*) AS n FROM "${t}"`).get().n]),
      );
      const kind = db.prepare("SELECT * FROM record").get();
      if (kind) (kind.keys ? keyedObjects : objects).push({ storage, rows });
    }
    db.close();
  }
  rmSync(runtime.persist, { recursive: true, force: true });
  stateDirs.delete(runtime.persist);
  if (!index) throw new Error("the gateway's D1 file was not found");

  const sizes = objects.map((o) => o.storage.file_bytes).sort((a, b) => a - b);
  const median = sizes[Math.floor(sizes.length / 2)];
  const typical = objects.find((o) => o.storage.file_bytes === median);
  const keyedSizes = keyedObjects.map((o) => o.storage.file_bytes).sort((a, b) => a - b);
  return {
    create_answer: answers.partner,
    create_answer_bytes: Buffer.byteLength(JSON.stringify(answers.partner)),
    tid_rows: index.tid_rows,
    event_rows: index.event_rows,
    outbox_bodies: bodies,
    events_logged: events,
    record_object: {
      objects: objects.length,
      file_bytes: { min: sizes[0], median, max: sizes.at(-1) },
      typical_rows: typical?.rows,
      typical_storage: typical?.storage,
    },
    // The same paid flow with its pay keyed: what keeping the pay's answer adds to a record (bench/capacity-model.mjs keyed_pay_storage).
    record_object_keyed: {
      objects: keyedObjects.length,
      file_bytes: { min: keyedSizes[0], median: keyedSizes[Math.floor(keyedSizes.length / 2)], max: keyedSizes.at(-1) },
    },
  };
}

// --- 2. bytes per row at scale ---------------------------------------------------

const pick = (rows, i) => rows[i % rows.length];

/**
 * A ULID for `at`: its time part, then 16 random characters (hex digits are
 * Crockford base32 digits too). ulid() itself draws each character from the
 * CSPRNG separately (~150 µs a call): 25 minutes for 10M rows.
 */
const ulid = (at) => `${encodeTime(at, 10)}${crypto.randomUUID().replace(/-/g, "").slice(0, 16).toUpperCase()}`;

/** `n` random bytes, as the fingerprint (16) and a user's upstream tid (16) are stored. */
const randomBytes = (n) => crypto.getRandomValues(new Uint8Array(n));

/** A tid-index row like `template` (no answer: migrations/0001_initial.sql) with fresh identifiers of the same lengths. */
function likeTidRow(template, i, at) {
  const tid = `order-${crypto.randomUUID()}`;
  const user = template.owner.startsWith("user:");
  return {
    owner: template.owner,
    tid,
    upstream_tid: user ? randomBytes(16) : null,
    kind: template.kind,
    status: 1,
    fingerprint: randomBytes(16),
    claim_token: null,
    receipt_id: ulid(at),
    created_at: at,
    updated_at: at + (i % 50),
  };
}

/** The tid index's tables: tid_index and its ring of slots, tid_index_0 .. tid_index_7 (migrations/0009_tid_ring.sql). */
const TID_TABLE = /^tid_index(_\d)?$/;

/** The table a claim writes (src/tids/tid-index.ts): a slot of the ring, each of the same shape. */
const CLAIM_TABLE = "tid_index_0";

const TID_COLUMNS = ["owner", "tid", "upstream_tid", "kind", "status", "fingerprint", "claim_token", "receipt_id", "created_at", "updated_at"];

function bytesPerRow(shape) {
  const dir = mkdtempSync(join(STATE_ROOT, "capacity-rows-"));
  stateDirs.add(dir);
  try {
    const per = (storage, names, n) => {
      const out = {};
      let total = 0;
      for (const name of names) {
        const bytes = storage.objects[name]?.bytes ?? 0;
        out[name] = round(bytes / n);
        total += bytes;
      }
      out.total = round(total / n);
      return out;
    };
    const result = {};
    for (const who of ["partner", "user"]) {
      const templates = shape.tid_rows.filter((r) => r.owner.startsWith(who === "partner" ? "partner:" : "user:"));
      const db = freshDb(join(dir, `${who}.sqlite`));
      const insert = db.prepare(`INSERT INTO ${CLAIM_TABLE} (${TID_COLUMNS.join(", ")}) VALUES (${TID_COLUMNS.map(() => "?").join(", ")})`);
      const start = Date.now() - 30 * DAY_MS;
      db.exec("BEGIN");
      for (let i = 0; i < SAMPLE_ROWS; i++) {
        const row = likeTidRow(pick(templates, i), i, start + i * 1000);
        insert.run(...TID_COLUMNS.map((c) => row[c]));
      }
      db.exec("COMMIT");
      const names = db
        .prepare(`SELECT name FROM sqlite_master WHERE tbl_name = '${CLAIM_TABLE}'`)
        .all()
        .map((r) => r.name);
      // In pages as they stand after the creates (no VACUUM): random keys leave the key's pages part full, as in production.
      const storage = storageOf(db);
      const row = per(storage, names, SAMPLE_ROWS);
      db.close();
      result[who] = { row, file_bytes_per_row: round((storage.file_bytes - storage.free_bytes) / SAMPLE_ROWS) };
    }
    // Events: the real bodies, under fresh ids.
    const db = freshDb(join(dir, "events.sqlite"));
    const columns = Object.keys(shape.event_rows[0]);
    const insert = db.prepare(`INSERT INTO events (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`);
    db.exec("BEGIN");
    for (let i = 0; i < SAMPLE_ROWS; i++) {
      const template = pick(shape.event_rows, i);
      const id = `evt_${ulid(Date.UTC(2026, 0, 1) + i)}`;
      insert.run(...columns.map((c) => (c === "id" ? id : c === "body" ? template.body.replace(template.id, id) : template[c])));
    }
    db.exec("COMMIT");
    const names = db
      .prepare("SELECT name FROM sqlite_master WHERE tbl_name = 'events'")
      .all()
      .map((r) => r.name);
    result.event = per(storageOf(db), names, SAMPLE_ROWS);
    // The bodies, kept by the records (not in these rows): their mean size, for the record object's share.
    result.event.body_bytes_mean = round(shape.outbox_bodies.reduce((s, r) => s + Buffer.byteLength(r.body), 0) / shape.outbox_bodies.length);
    result.event.per_flow = round(shape.event_rows.length / (3 * FLOWS), 2);
    db.close();
    result.sample_rows = SAMPLE_ROWS;
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    stateDirs.delete(dir);
  }
}

// --- 3. creates per second on a full index --------------------------------------------

/**
 * Writes `count` partner rows into the D1 file, spread over the retention
 * window (oldest first) and evenly over the tid key space, so the bench's
 * random new tids land among them as real ones would. Indexes are dropped
 * during the load and built again after (a sort, not 10M random inserts).
 */
function fill(file, count, now) {
  const db = new DatabaseSync(file);
  const indexes = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name LIKE 'tid_index%' AND sql IS NOT NULL").all();
  for (const { name } of indexes) db.exec(`DROP INDEX "${name}"`);
  db.exec("PRAGMA synchronous = OFF");
  const span = RETENTION_DAYS * DAY_MS;
  // Each row in the slot of its time, as the claims put them (src/d1/ring.ts: 8 slots, a period of the window / 6).
  const period = Math.ceil(span / 6);
  const inserts = Array.from({ length: 8 }, (_, slot) =>
    db.prepare(`INSERT INTO tid_index_${slot} (${TID_COLUMNS.join(", ")}) VALUES (${TID_COLUMNS.map(() => "?").join(", ")})`),
  );
  const insert = { run: (...values) => inserts[Math.floor(values[8] / period) % 8].run(...values) };
  const started = performance.now();
  db.exec("BEGIN");
  for (let i = 0; i < count; i++) {
    // Increasing keys spread over the whole range of a random UUID's first 8 hex digits.
    const prefix = Math.floor((i / count) * 0x1_0000_0000)
      .toString(16)
      .padStart(8, "0");
    const tid = `order-${prefix}${crypto.randomUUID().slice(8)}`;
    const at = now - span + Math.floor((i / count) * span);
    insert.run("partner:partner", tid, null, 0, 1, randomBytes(16), null, ulid(at), at, at);
    if (i % 200_000 === 199_999) {
      db.exec("COMMIT");
      db.exec("BEGIN");
    }
  }
  db.exec("COMMIT");
  const loadSeconds = (performance.now() - started) / 1000;
  for (const { sql } of indexes) db.exec(sql);
  const storage = storageOf(db);
  db.close();
  return {
    load_seconds: round(loadSeconds),
    total_seconds: round((performance.now() - started) / 1000),
    file_bytes: storage.file_bytes,
    objects: storage.objects,
  };
}

async function throughput(createAnswer, eventBody, count) {
  const claims = await buildClaims(createAnswer, eventBody);
  let runtime = await startRuntime({ key: "capacity-claims", workers: [workerFromBuild(claims)], port: PORT });
  stateDirs.add(runtime.persist);
  const persist = runtime.persist;
  await applyMigrations(runtime, claims);
  runtime.keepState = true;
  await runtime.stop();
  const d1File = sqliteFiles(persist).find((file) => {
    const db = new DatabaseSync(file, { readOnly: true });
    const has = tablesOf(db).includes("tid_index");
    db.close();
    return has;
  });
  const now = Date.now();
  let filled = null;
  if (count > 0) {
    log(`throughput: generating ${count.toLocaleString("en")} rows`);
    filled = fill(d1File, count, now);
    log(`throughput: ${count.toLocaleString("en")} rows in ${filled.total_seconds} s, file ${round(filled.file_bytes / 2 ** 20)} MiB`);
  }
  runtime = await startRuntime({ key: "capacity-claims", workers: [workerFromBuild(claims)], port: PORT, reuseState: persist });
  try {
    const requests = [{ method: "POST", path: "/create" }];
    await runLoad({ url: runtime.url, connections: 8, amount: 400, requests, expect: 204 });
    const latency = await runLoad({ url: runtime.url, connections: 1, duration: Math.max(1, SECONDS / 4), requests, expect: 204 });
    const cpuBefore = runtimeCpuMs(runtime);
    const load = await runLoad({ url: runtime.url, connections: 32, duration: SECONDS, requests, expect: 204 });
    const cpuAfter = runtimeCpuMs(runtime);
    const batches = {};
    for (const step of ["delete"]) {
      const times = [];
      let changes = 0;
      let written = 0;
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        const res = await fetch(`${runtime.url}/retention`, { method: "POST", body: JSON.stringify({ step, now: now + DAY_MS, limit: 1000 }) });
        const body = await res.json();
        times.push(performance.now() - started);
        changes += body.changes;
        written += body.rows_written;
      }
      times.sort((a, b) => a - b);
      batches[step] = {
        batches: 5,
        rows: changes,
        ms_median: round(times[2], 2),
        ms_max: round(times[4], 2),
        rows_written_per_row: changes ? round(written / changes, 2) : null,
      };
    }
    const billed = await (await fetch(`${runtime.url}/rows-written`, { method: "POST" })).json();
    const eventBilled = await (await fetch(`${runtime.url}/event-rows-written`, { method: "POST" })).json();
    return {
      rows_before: count,
      fill: filled,
      creates_per_second_c32: load.rps,
      c32: { ok: load.ok, unexpected: load.unexpected, statuses: load.statuses, seconds: load.seconds, latency: load.latency },
      c1: { rps: latency.rps, latency: latency.latency },
      workerd_cpu_ms_per_create: cpuBefore != null && cpuAfter != null ? round((cpuAfter - cpuBefore) / load.ok, 3) : null,
      retention_batch_of_1000: batches,
      d1_rows_written_per_create: billed.rows_written_per_create,
      d1_rows_written_per_event: eventBilled.rows_written_per_event,
    };
  } finally {
    runtime.keepState = false;
    await runtime.stop();
    rmSync(persist, { recursive: true, force: true });
    stateDirs.delete(persist);
  }
}

// --- main -----------------------------------------------------------------------------

async function main() {
  mkdirSync(CAPACITY_BUILD, { recursive: true });
  const started = new Date();
  const loadBefore = loadavg();
  const shape = await shapes();
  log(
    `shapes: create answer ${shape.create_answer_bytes} B, ${shape.event_rows.length} events, record object median ${shape.record_object.file_bytes.median} B, ${shape.record_object_keyed.file_bytes.median} B with a keyed pay`,
  );
  const rows = bytesPerRow(shape);
  log(`rows: tid row ${rows.partner.row.total} B (partner), ${rows.user.row.total} B (user), in pages; event row ${rows.event.total} B`);
  // What a flow costs over its whole life, counted (rows written, requests, log lines): bench/lib/costs.mjs.
  const base = unstable_readConfig({ config: join(ROOT, "wrangler.toml"), env: "dev" }, { hideWarnings: true });
  // With the payments that never complete (rule 12: a receipt never paid, a hold never confirmed), and the paced ones;
  // and, at the same time, the same paid flows with an Idempotency-Key on every pay (rule 11): the difference is what
  // a key costs.
  const { keyed: keyedCosts, ...costs } = await countFlowCosts({
    wrangler,
    root: ROOT,
    benchDir: BENCH_DIR,
    dir: CAPACITY_BUILD,
    name: base.name,
    flows: FLOWS,
    scenarios: true,
    paced: true,
    keyedToo: true,
    log,
  });
  log(`costs per flow, ended: ${JSON.stringify(costs.per_flow.ended)}`);
  log(`costs per flow with a keyed pay, ended: ${JSON.stringify(keyedCosts.per_flow.ended)}`);
  const runs = [];
  for (const count of ROW_COUNTS) {
    const run = await throughput(shape.create_answer, shape.outbox_bodies.find((r) => JSON.parse(r.body).type === "receipt.paid").body, count);
    log(`throughput at ${count.toLocaleString("en")} rows: ${run.creates_per_second_c32} creates/s (c=32), p50 ${run.c1.latency.p50} ms (c=1)`);
    runs.push(run);
  }
  const report = {
    command: `node bench/capacity.mjs ${args.join(" ")}`.trim(),
    date: started.toISOString(),
    machine: describeMachine(),
    source: describeSource(),
    state_dir: STATE_ROOT,
    // Other work on the (shared) machine shows here: the throughput figures move with it.
    load_average: { start: loadBefore.map((v) => round(v, 2)), end: loadavg().map((v) => round(v, 2)) },
    shape: {
      create_answer: shape.create_answer,
      create_answer_bytes: shape.create_answer_bytes,
      flows: { partner: FLOWS, user: FLOWS, partner_keyed_pay: FLOWS },
      events_logged: shape.events_logged,
      record_object: shape.record_object,
      record_object_keyed: shape.record_object_keyed,
    },
    bytes_per_row: rows,
    costs,
    costs_keyed_pay: keyedCosts,
    throughput: runs,
  };
  // The year at 1M and 10M creates a day, priced from what this run measured (bench/capacity-model.mjs).
  // A model that fails must not lose what the run measured: the report is written either way.
  try {
    report.model = capacityModel(report);
  } catch (err) {
    report.model_error = String(err.stack ?? err);
    log(`model failed: ${err.message}`);
  }
  for (const { records_end: m } of report.model?.volumes ?? []) {
    log(
      `model at ${m.per_day.toLocaleString("en")}/day: ${m.steady_state.d1_gb} GB of D1, ${m.databases} databases, $${m.bill_month_12_total} in month 12; a key on every pay: ${m.keyed_pay.object_rows_written_per_pay} object rows written per pay, +$${m.keyed_pay.bill_month_12_added}`,
    );
  }
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(
    RESULTS_DIR,
    `capacity-${started
      .toISOString()
      .replace(/:/g, "-")
      .replace(/\.\d+Z$/, "Z")}.json`,
  );
  if (!quick) writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(
    JSON.stringify(
      {
        bytes_per_row: rows,
        record_object: shape.record_object.file_bytes,
        record_object_keyed: shape.record_object_keyed.file_bytes,
        throughput: runs.map((r) => ({
          rows: r.rows_before,
          creates_per_second: r.creates_per_second_c32,
          p50_ms: r.c1.latency.p50,
          rows_written: r.d1_rows_written_per_create,
          event_rows_written: r.d1_rows_written_per_event,
          batches: r.retention_batch_of_1000,
        })),
      },
      null,
      2,
    ),
  );
  log(quick ? "quick run: nothing written" : `wrote ${relative(ROOT, file)}`);
}

try {
  await main();
} finally {
  await stopAll();
  rmSync(CAPACITY_BUILD, { recursive: true, force: true });
}
