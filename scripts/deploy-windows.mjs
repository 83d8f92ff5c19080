#!/usr/bin/env node
/**
 * `npm run test:deploy`: a deploy loses nothing, in any of its windows. Part
 * of `npm test`.
 *
 * A deploy (docs/production.md, "Deploys") applies the new D1 migrations
 * while the previous release still serves (window A), then switches the code
 * (window B); a gradual deployment mixes the two versions meanwhile, and a
 * rollback switches back. This runs each against one persisted state: the
 * previous release as it was built (test/releases/previous/, made by
 * `npm run release:fixture`) and this checkout's code bundled as `wrangler
 * dev` bundles it, in Miniflare, each with its own wrangler.toml's
 * development bindings (the gateway and the sandbox upstream, src/dev.ts),
 * and a webhook receiver of the run's own:
 *
 * 1. the previous release, on its own migrations, with the receiver down,
 *    makes records in every phase (for each window to come: created,
 *    authorized, held, one to cancel, a transfer; and paid, cancelled, a
 *    user's), so their tids are claimed and their events left pending;
 * 2. window A: migrations/ applied as `npm run deploy` applies them, the
 *    previous release serving; its cron;
 * 3. gradual 1: this checkout's Worker, the previous release's objects and
 *    queue consumer; a pay is in flight (the upstream paid, its answer held
 *    back) when the objects' code changes;
 * 4. gradual 2: the previous release's Worker, this checkout's objects and
 *    queue consumer;
 * 5. window B: this checkout alone; its cron's sweep queues again what the
 *    switches left pending;
 * 6. rolled back: the previous release on everything this checkout stored
 *    (records it created, migrated and changed, kept answers of
 *    Idempotency-Keys, rule 13's counters, the D1 rows and rule 14's
 *    events, their marks written with the row's next write), as a gradual deployment's rollback
 *    leaves it;
 * 7. rolled forward: this checkout again, on what the previous release did
 *    meanwhile.
 *
 * In every window records are read and their creates replayed (in windows A
 * and B every record, twice; in the gradual, rollback and roll-forward
 * windows, once, the window's own, the stable ones and those earlier windows
 * made), a claimed tid is refused another body, check-tid finds a partner's
 * and a user's receipt, the window creates, replays and pays records of its
 * own (their events delivered within it; the partner's pay with an
 * Idempotency-Key, and from window B on the user's by card number, which
 * rule 13 counts, with keys too: every later window repeats each keyed
 * request and gets its first answer), events/list answers with each filter,
 * and the window's records take their next step: pay, pay with the OTP,
 * hold-confirm, cancel, a2c/pay. Rule 14 is carried across the rollback: a
 * receipt whose fiscal data shows late (window B: its `receipt.fiscalized`
 * in its outbox and the log) and one whose data is still missing (listed by
 * fiscal/pending) are both refunded by the previous release, each refund's
 * event delivered; rolled forward, the list holds both refunds (their data
 * still missing), as that release listed them. Rule 13 too: each window that
 * pays by card number does it as a user of its own, and rolled forward a
 * fourth user of the card is refused its day's limit, which counts the
 * user the previous release counted. No answer may be 5xx (the pay cut by the
 * switch may lose its caller), and no runtime logs an error (a record it
 * could not read, a counter that did not answer, an event it could not
 * publish, an alarm that failed) in the rollback and roll-forward windows. At the end every state
 * change of every record has its event in the log, delivered, received and
 * verified; no runtime's log line holds a card token, card number, JWT or
 * server key.
 *
 * Before any of it, migrations/ is held to the policy: the previous release's
 * files unchanged, and a newer one that drops or renames says why no running
 * code reads it (`-- contract:`); and the record schema this checkout stamps
 * is one the previous release reads (src/record/schema.ts).
 *
 * Generic: it applies whatever migrations/ holds and runs the code as it is,
 * so a new migration or record schema is tested as it lands.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseEnv, promisify } from "node:util";
import { SignJWT } from "jose";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { Webhook } from "standardwebhooks";
import { unstable_getMiniflareWorkerOptions, unstable_readConfig, unstable_splitSqlQuery } from "wrangler";
import { WRANGLER } from "./build.mjs";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
/**
 * The record schema this checkout reads and the one it stamps (src/record/schema.ts), read from the source as
 * scripts/release-fixture.mjs reads a release's: the module imports the gateway's errors, which Node cannot load.
 */
const schemaSource = readFileSync(join(ROOT, "src", "record", "schema.ts"), "utf8");
const schemaConstant = (name) => {
  const value = Number(new RegExp(`export const ${name}: number = (\\d+);`).exec(schemaSource)?.[1]);
  if (!Number.isInteger(value)) throw new Error(`src/record/schema.ts: no ${name}`);
  return value;
};
const CURRENT_SCHEMA_VERSION = schemaConstant("CURRENT_SCHEMA_VERSION");
const OLDEST_READER_VERSION = schemaConstant("OLDEST_READER_VERSION");
const PREVIOUS = join(ROOT, "test", "releases", "previous");
const started = Date.now();

/** A deadline for anything this waits on: a loaded 2-core machine is slow, never this slow. */
const WAIT_MS = 30_000;
const PARTNER_KEY = "sk_test_local_partner";
const SECRETS = parseEnv(readFileSync(join(ROOT, ".dev.vars.example"), "utf8"));
/** What must never appear in a log: the sandbox's card tokens and card number, JWTs, the server key. */
const NEVER_LOGGED = [/tok_sandbox_/, /8600000000000007/, /eyJ[\w-]{10,}\./, new RegExp(PARTNER_KEY)];
/** The upstream's answer to the pay cut by the switch is held this long (tok_sandbox_paid_timeout): past the switch. */
const HELD_ANSWER_MS = 60_000;
/** The gateway's own limit on an upstream call: the pay cut by the switch is reconciled this long (and 1 s) after it left. */
const UPSTREAM_TIMEOUT_MS = 6_000;
/** When the sandbox's fiscal data operator answers a tok_sandbox_fiscal_late payment: never within the run, but in window B (at the next read). */
const FISCAL_DELAY_MS = 3_600_000;
/** A card number a user pays with, so that rule 13 counts it (the sandbox's card that pays). */
const CARD_NUMBER = { number: "8600000000000007", expire: "3012" };
/** What no runtime may log in the rollback and roll-forward windows: an error, a record it refused, a counter that did not answer, an event it could not publish. */
const NEVER_AFTER_ROLLBACK = [/"level":"error"/, /record_schema_newer/, /risk_unavailable/, /outbox_drain_failed/, /Uncaught/i];

const seconds = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
const say = (line) => console.log(`deploy windows: [${seconds()}] ${line}`);

// ---------------------------------------------------------------------------
// The migrations' policy, read before anything runs

const CONTRACT_STATEMENT = /\bDROP\s+(TABLE|COLUMN|INDEX|VIEW|TRIGGER)\b|\bRENAME\b/i;
const withoutComments = (sql) => sql.replace(/--[^\n]*/g, "").replace(/\/\*[\s\S]*?\*\//g, "");
const sqlFiles = (dir) =>
  readdirSync(dir)
    .filter((name) => name.endsWith(".sql"))
    .sort();

/** The policy's offences in migrations/ against the previous release's (docs/production.md, "Deploys"). */
function migrationProblems(previousDir, currentDir) {
  const problems = [];
  const current = new Set(sqlFiles(currentDir));
  for (const name of sqlFiles(previousDir)) {
    if (!current.has(name)) problems.push(`${name}: the previous release applied it, and it is gone from migrations/`);
    else if (readFileSync(join(previousDir, name), "utf8") !== readFileSync(join(currentDir, name), "utf8"))
      problems.push(`${name}: the previous release applied it as it was; an edit reaches only new databases (add a new migration instead)`);
  }
  const previous = new Set(sqlFiles(previousDir));
  for (const name of current) {
    if (previous.has(name)) continue;
    const sql = readFileSync(join(currentDir, name), "utf8");
    for (const statement of unstable_splitSqlQuery(withoutComments(sql))) {
      if (CONTRACT_STATEMENT.test(statement) && !/^--\s*contract:/m.test(sql))
        problems.push(
          `${name}: \`${statement.trim().split("\n")[0]}\` removes or renames what the previous release may read; drop it in a later release, once no running code reads it, with a \`-- contract:\` line saying so`,
        );
      if (/\bADD\s+COLUMN\b/i.test(statement) && /\bNOT\s+NULL\b/i.test(statement) && !/\bDEFAULT\b/i.test(statement))
        problems.push(
          `${name}: \`${statement.trim().split("\n")[0]}\` adds a NOT NULL column without a default, which the previous release's inserts lack`,
        );
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------
// The releases

/** This checkout's development bundle, as `wrangler dev` would build it (src/dev.ts); built while the previous release runs. */
async function buildCurrent(outdir) {
  try {
    await promisify(execFile)(process.execPath, [WRANGLER, "deploy", "--dry-run", "--env", "dev", "--outdir", outdir], {
      cwd: ROOT,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    });
  } catch (err) {
    throw new Error(`wrangler could not bundle this checkout:\n${err.stdout}${err.stderr}`);
  }
  const script = readdirSync(outdir).find((name) => name.endsWith(".js"));
  return join(outdir, script);
}

const release = (label, configPath, scriptPath, migrationsDir, schemaVersion) => ({ label, configPath, scriptPath, migrationsDir, schemaVersion });

// ---------------------------------------------------------------------------
// The webhook receiver: verifies each signature, takes the events of the
// records in `deliverable` (204) and answers 503 to the others, as a receiver
// that is down

function webhookReceiver() {
  const verifier = new Webhook(SECRETS.WEBHOOK_SECRET);
  const received = new Map();
  const bad = [];
  const receiver = { received, bad, deliverable: new Set() };
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      let event;
      try {
        event = verifier.verify(body, req.headers);
      } catch (err) {
        bad.push(String(err));
        res.writeHead(400).end();
        return;
      }
      if (!receiver.deliverable.has(recordOf(event))) {
        res.writeHead(503).end();
        return;
      }
      received.set(event.id, { event, deliveries: (received.get(event.id)?.deliveries ?? 0) + 1 });
      res.writeHead(204).end();
    });
  });
  return Object.assign(receiver, {
    listen: () => new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${server.address().port}/webhooks`))),
    close: () => new Promise((resolve) => server.close(resolve)),
  });
}

/** The record an event is about: a receipt's id, a transfer's receipt_id. */
const recordOf = (event) => (event.type.startsWith("transfer.") ? event.data.object.receipt_id : event.data.object.id);

// ---------------------------------------------------------------------------
// Releases serving the persisted state

/** Every log line of every runtime, by window: printed when the run fails, and searched for card data. */
const logs = [];

/** A release's Worker as its wrangler.toml's [env.dev] declares it, with the run's settings (and the window's `settings`). */
function workerOf(rel, webhookUrl, settings = {}) {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(rel.configPath, "dev");
  const { name } = unstable_readConfig({ config: rel.configPath, env: "dev" }, { hideWarnings: true });
  // The API is served by the Worker first, never by the static assets; the bundle carries its own modules.
  const { assets: _assets, modulesRules: _rules, ...options } = workerOptions;
  // The run's user calls more often a minute than development's rate limits let one user: they are not what it tests.
  const ratelimits = Object.fromEntries(
    Object.entries(options.ratelimits ?? {}).map(([binding, limit]) => [binding, { ...limit, simple: { ...limit.simple, limit: 1000 } }]),
  );
  return {
    ...options,
    ratelimits,
    name,
    modules: true,
    scriptPath: rel.scriptPath,
    modulesRoot: dirname(rel.scriptPath),
    bindings: {
      ...options.bindings,
      ...SECRETS,
      WEBHOOK_URL: webhookUrl,
      WEBHOOK_TIMEOUT_MS: "2000",
      UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS),
      SANDBOX_TIMEOUT_DELAY_MS: String(HELD_ANSWER_MS),
      SANDBOX_FISCAL_DELAY_MS: String(FISCAL_DELAY_MS),
      ...settings,
    },
  };
}

/**
 * `objects`' Worker serving the state: its Durable Objects, its queue
 * consumer, its sandbox. With another `front`, the calls reach that
 * release's Worker instead, whose bindings lead to `objects`' Durable Objects
 * and queue, as a gradual deployment mixes them: a request is served by
 * either version, and a Durable Object by the one its id is assigned to.
 */
async function serve({ objects, front = objects, window, persist, webhookUrl, settings }) {
  const back = workerOf(objects, webhookUrl, settings);
  const workers = [back];
  if (front !== objects) {
    const { durableObjects, queueConsumers: _consumers, cronTriggers: _crons, ...options } = workerOf(front, webhookUrl);
    // The objects' Worker serves every class it defines. A class it does not (one this checkout adds, with a
    // migration of its own) is the front's: a version that adds a Durable Object class is deployed whole, never
    // gradually (Cloudflare refuses a gradual deployment of a version with a migration), so its objects exist
    // whichever version serves a request.
    const backClasses = new Set(Object.values(back.durableObjects ?? {}).map((object) => (typeof object === "string" ? object : object.className)));
    const elsewhere = Object.fromEntries(
      Object.entries(durableObjects ?? {}).map(([binding, object]) => [
        binding,
        backClasses.has(typeof object === "string" ? object : object.className) ? { ...object, scriptName: back.name } : object,
      ]),
    );
    // First: the Worker calls reach.
    workers.unshift({ ...options, name: "gateway-front", durableObjects: elsewhere });
  }
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      resourcePersistencePath: persist,
      handleStructuredLogs: ({ message }) => logs.push(`[${window}] ${message}`),
      workers,
    }),
  );
  await mf.ready;
  return { mf, window, objects: back.name, d1: Object.keys(back.d1Databases ?? {}) };
}

/** `wrangler d1 migrations apply` for each database, as `npm run deploy` runs it: each file once, in order, noted in d1_migrations. */
async function applyMigrations(gw, migrationsDir) {
  const applied = [];
  for (const binding of gw.d1) {
    const db = await gw.mf.getD1Database(binding);
    await db.exec(
      "CREATE TABLE IF NOT EXISTS d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)",
    );
    const done = new Set((await db.prepare("SELECT name FROM d1_migrations").all()).results.map((row) => row.name));
    for (const name of sqlFiles(migrationsDir)) {
      if (done.has(name)) continue;
      const statements = unstable_splitSqlQuery(readFileSync(join(migrationsDir, name), "utf8"));
      await db.batch([...statements.map((sql) => db.prepare(sql)), db.prepare("INSERT INTO d1_migrations (name) VALUES (?)").bind(name)]);
      applied.push(`${binding}:${name}`);
    }
  }
  return applied;
}

// ---------------------------------------------------------------------------
// Calls, as the partner backend and a user's app make them

/** Every answer of the run: none may be 5xx. */
const answers = [];

async function post(gw, path, body, { token = PARTNER_KEY, label = path, key } = {}) {
  const res = await gw.mf.dispatchFetch(`http://gateway.test${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}`, ...(key ? { "idempotency-key": key } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const answer = { window: gw.window, label, status: res.status, replayed: res.headers.get("idempotent-replayed") === "true", text };
  answers.push(answer);
  assert.ok(res.status < 500, `[${gw.window}] ${label} answered ${res.status}: ${text}`);
  answer.body = text ? JSON.parse(text) : null;
  return answer;
}

const api = (gw, path, body, options) => post(gw, `/api/v1/partner/${path}`, body, options);

async function ok(gw, path, body, options) {
  const answer = await api(gw, path, body, options);
  assert.equal(answer.status, 200, `[${gw.window}] ${options?.label ?? path}: ${answer.text}`);
  return answer;
}

async function sandbox(gw, path) {
  const res = await gw.mf.dispatchFetch(`http://gateway.test/__sandbox/${path}`);
  assert.equal(res.status, 200, `[${gw.window}] sandbox ${path}`);
  return res.json();
}

/** `work` on each item, a few at a time, as a partner backend's concurrent calls. */
async function inPool(items, work, size = 6) {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (queue.length > 0) await work(queue.shift());
    }),
  );
}

async function until(what, check, ms = WAIT_MS) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`not within ${ms / 1000} s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

// ---------------------------------------------------------------------------
// The records, and the events each state change owes

const records = new Map();

/** A create the run keeps: its request (replayed later), its record, the events its changes owe. */
async function create(gw, name, kind, request, options = {}) {
  const path = kind === "transfer" ? "a2c/create" : "receipt/create";
  const answer = await ok(gw, path, request, { ...options, label: `create ${name}` });
  assert.ok(!answer.replayed, `[${gw.window}] create ${name} is new`);
  const id = kind === "transfer" ? answer.body.receipt_id : answer.body.id;
  const record = { name, kind, id, tid: request.tid, request, token: options.token, state: 0, events: [`${kind}.created`] };
  records.set(name, record);
  return record;
}

const receiptRequest = (label, overrides = {}) => ({
  tid: `${label}-${crypto.randomUUID()}`,
  amount: 150_000,
  merchant_id: 1003,
  account: [{ key: "phone", value: "998901234567" }],
  description: "deploy windows",
  ...overrides,
});

const transferRequest = (label) => ({
  tid: `${label}-${crypto.randomUUID()}`,
  amount: 500_000,
  rate_id: 1,
  receiver_card: "9860000000000018",
  token: "tok_sandbox_ok",
});

/** An identical retry of the record's create: the same record, said to be a replay. */
async function replay(gw, record, why) {
  const path = record.kind === "transfer" ? "a2c/create" : "receipt/create";
  const answer = await ok(gw, path, record.request, { token: record.token ?? PARTNER_KEY, label: `replay of ${record.name} (${why})` });
  assert.ok(answer.replayed, `[${gw.window}] replay of ${record.name} (${why}) has Idempotent-Replayed: ${answer.text}`);
  assert.equal(record.kind === "transfer" ? answer.body.receipt_id : answer.body.id, record.id, `[${gw.window}] replay of ${record.name} (${why})`);
}

/** The record as the gateway reads it now: its state is what the run made it. */
async function read(gw, record) {
  const answer =
    record.kind === "transfer"
      ? await ok(gw, "a2c/get-by-id", { id: record.id }, { label: `get-by-id ${record.name}` })
      : await ok(gw, "receipt/check-id", { id: record.id }, { token: record.token ?? PARTNER_KEY, label: `check-id ${record.name}` });
  assert.equal(answer.body.state, record.state, `[${gw.window}] ${record.name}'s state`);
}

/** check-tid, by the record's owner: the receipt its create made. */
async function checkTid(gw, record) {
  const answer = await ok(gw, "receipt/check-tid", { tid: record.tid }, { token: record.token ?? PARTNER_KEY, label: `check-tid ${record.name}` });
  assert.equal(answer.body.id, record.id, `[${gw.window}] check-tid ${record.name} finds its receipt`);
}

/** Requests made with an Idempotency-Key, and the answer each got: every later window repeats them. */
const keyed = [];

/** An operation on the record by its owner, answered 200; with `key`, its answer kept to be repeated. */
async function operation(gw, record, path, body, key) {
  const request = { path, body: { id: record.id, ...body }, token: record.token ?? PARTNER_KEY, key, label: `${path} ${record.name}` };
  const answer = await ok(gw, path, request.body, request);
  if (key) keyed.push({ ...request, window: gw.window, text: answer.text });
  return answer;
}

/** A state change the run makes: the answer's state, and the event it owes. */
async function change(gw, record, path, body, state, event, key) {
  const answer = await operation(gw, record, path, body, key);
  assert.equal(answer.body.state, state, `[${gw.window}] ${path} ${record.name}: ${answer.text}`);
  record.state = state;
  if (event) record.events.push(event);
}

/** A user's payment by card number (anonymous/authorize, then anonymous/pay), which rule 13 counts per card and per user. */
async function payByNumber(gw, record, window) {
  const sent = await operation(gw, record, "receipt/anonymous/authorize", { card: CARD_NUMBER }, `authorize ${window} by number`);
  assert.equal(sent.body.sent, true, `[${gw.window}] anonymous/authorize ${record.name}: ${sent.text}`);
  await change(gw, record, "receipt/anonymous/pay", { card: CARD_NUMBER, otp: "111111" }, 4, "receipt.paid", `pay ${window} by number`);
}

/** A keyed request repeated: the first one's answer again, said to be a replay, whichever release kept it. */
async function repeatKeyed(gw, request) {
  const answer = await api(gw, request.path, request.body, { ...request, label: `${request.label} repeated (key of ${request.window})` });
  assert.ok(answer.replayed, `[${gw.window}] ${answer.label} has Idempotent-Replayed: ${answer.text}`);
  assert.equal(answer.text, request.text, `[${gw.window}] ${answer.label} answers as the first did`);
}

const TOKEN_CARD = { token: "tok_sandbox_ok" };
/** Pays, and the fiscal data operator answers FISCAL_DELAY_MS later (rule 14). */
const FISCAL_LATE_CARD = { token: "tok_sandbox_fiscal_late" };

/** The receipts fiscal/pending lists (this checkout's route; the previous release has none). */
async function fiscalList(gw) {
  const answer = await post(gw, "/api/v1/gateway/fiscal/pending", { limit: 100 }, { label: "fiscal/pending" });
  assert.equal(answer.status, 200, `[${gw.window}] fiscal/pending: ${answer.text}`);
  return answer.body.receipts.map((receipt) => receipt.id);
}

const sameIds = (ids, expected) => [...ids].sort().join() === [...expected].sort().join();

/** The record's events as events/list shows them: oldest first. */
async function listed(gw, record) {
  const answer = await post(gw, "/api/v1/gateway/events/list", { receipt_id: record.id, limit: 100 }, { label: `events/list ${record.name}` });
  assert.equal(answer.status, 200, `[${gw.window}] events/list ${record.name}: ${answer.text}`);
  return [...answer.body.events].sort((a, b) => a.sequence - b.sequence);
}

const typesOf = (events) => events.map((event) => event.type);

/** Each record's events are all in the log (and, with `delivered`, delivered and received). */
async function eventsOwed(gw, receiver, { delivered }) {
  await inPool(records.values(), async (record) => {
    await until(`${record.name}'s events (${record.events.join(", ")}) listed${delivered ? " and delivered" : ""} in ${gw.window}`, async () => {
      const events = await listed(gw, record);
      if (typesOf(events).join() !== record.events.join()) return false;
      return !delivered || events.every((event) => event.delivery.status === "delivered" && receiver.received.has(event.id));
    });
  });
}

// ---------------------------------------------------------------------------
// A window's work

/** Records in every phase a window takes a step further, made before the deploy. */
async function phases(gw, window) {
  const [created, authorized, held, cancellable, transfer] = await Promise.all([
    create(gw, `${window}: created`, "receipt", receiptRequest("created")),
    create(gw, `${window}: authorized`, "receipt", receiptRequest("authorized", { merchant_id: 1001 })),
    create(gw, `${window}: held`, "receipt", receiptRequest("held", { is_hold: true })),
    create(gw, `${window}: to cancel`, "receipt", receiptRequest("cancel")),
    create(gw, `${window}: transfer`, "transfer", transferRequest("a2c")),
  ]);
  const [sent] = await Promise.all([
    ok(gw, "receipt/authorize", { id: authorized.id, card: TOKEN_CARD }, { label: `authorize ${authorized.name}` }),
    change(gw, held, "receipt/pay", { card: TOKEN_CARD }, 5, "receipt.held"),
  ]);
  assert.equal(sent.body.sent, true, `[${gw.window}] authorize ${authorized.name}`);
  return { created, authorized, held, cancellable, transfer };
}

/** Each of those records a step further: pay, pay with the OTP, hold-confirm, cancel, a2c/pay. */
async function operate(gw, made) {
  await Promise.all([
    change(gw, made.created, "receipt/pay", { card: TOKEN_CARD }, 4, "receipt.paid"),
    change(gw, made.authorized, "receipt/pay", { card: TOKEN_CARD, otp: "111111" }, 4, "receipt.paid"),
    change(gw, made.held, "receipt/hold-confirm", {}, 4, "receipt.paid"),
    change(gw, made.cancellable, "receipt/cancel", { reason: "deploy windows" }, 21, "receipt.cancelled"),
    change(gw, made.transfer, "a2c/pay", {}, 4, "transfer.paid"),
  ]);
}

/**
 * What every window is asked: each record (or `only` these) read and its
 * create replayed (`replays` times), a claimed tid refused another body, check-tid (a
 * partner's and a user's), the window's own creates and their replays,
 * events/list. The window's own records' events are delivered (the receiver
 * takes them) within it.
 */
async function visit(gw, receiver, { window, replays, user, partners, users, only = [...records.values()], byNumber = false }) {
  await inPool(only, async (record) => {
    await read(gw, record);
    for (let n = 1; n <= replays; n++) await replay(gw, record, `${window}, ${n}`);
  });
  await inPool(keyed, (request) => repeatKeyed(gw, request));
  const { request } = partners;
  const conflict = await api(gw, "receipt/create", { ...request, amount: request.amount + 1 }, { label: "a claimed tid, another body" });
  assert.equal(conflict.status, 409, `[${window}] a claimed tid with another body: ${conflict.text}`);
  await checkTid(gw, partners);
  await checkTid(gw, users);
  const own = await Promise.all([
    create(gw, `made in ${window}`, "receipt", receiptRequest("made")),
    create(gw, `made in ${window} by a user`, "receipt", receiptRequest("made-user", byNumber ? { merchant_id: 1001 } : {}), { token: user }),
    create(gw, `transfer made in ${window}`, "transfer", transferRequest("a2c-made")),
  ]);
  for (const record of own) receiver.deliverable.add(record.id);
  await inPool(own, async (record) => {
    for (let n = 1; n <= replays; n++) await replay(gw, record, `${window}, ${n}`);
  });
  await Promise.all([
    change(gw, own[0], "receipt/pay", { card: TOKEN_CARD }, 4, "receipt.paid", `pay ${window}`),
    byNumber ? payByNumber(gw, own[1], window) : change(gw, own[1], "receipt/pay", { card: TOKEN_CARD }, 4, "receipt.paid"),
    change(gw, own[2], "a2c/pay", {}, 4, "transfer.paid"),
  ]);
  await inPool([{}, { type: "receipt.paid" }, { delivery: "pending" }, { delivery: "failed" }], async (filter) => {
    const list = await post(gw, "/api/v1/gateway/events/list", filter, { label: `events/list ${JSON.stringify(filter)}` });
    assert.equal(list.status, 200, `[${window}] events/list ${JSON.stringify(filter)}: ${list.text}`);
  });
  await inPool(own, (record) =>
    until(`[${window}] ${record.name}'s events delivered`, async () => {
      const events = await listed(gw, record);
      return typesOf(events).join() === record.events.join() && events.every((event) => receiver.received.has(event.id));
    }),
  );
}

/** The Cron Trigger of the objects' Worker, fired as at `time`. */
const cronAt = async (gw, time) => {
  const result = await (await gw.mf.getWorker(gw.objects)).scheduled({ scheduledTime: new Date(time), cron: "* * * * *" });
  assert.equal(result.outcome, "ok", `[${gw.window}] the cron`);
};

// ---------------------------------------------------------------------------
// The run

async function main() {
  const problems = migrationProblems(join(PREVIOUS, "migrations"), join(ROOT, "migrations"));
  assert.deepEqual(problems, [], `migrations/ breaks the deploy policy (docs/production.md, "Deploys"):\n${problems.join("\n")}`);

  const meta = JSON.parse(readFileSync(join(PREVIOUS, "meta.json"), "utf8"));
  assert.ok(
    OLDEST_READER_VERSION <= meta.record_schema_version,
    `this checkout stamps its records with schema ${OLDEST_READER_VERSION}, which the previous release (record schema ${meta.record_schema_version}) refuses: a rollback would answer 503 for every record it stored. Keep the stamp (an expansion), or ship a release that reads the new form first (src/record/schema.ts; docs/production.md, "Deploys")`,
  );
  const work = mkdtempSync(join(tmpdir(), "deploy-windows-"));
  const receiver = webhookReceiver();
  const gateways = [];
  try {
    const webhookUrl = await receiver.listen();
    const previous = release(
      `previous ${meta.commit.slice(0, 7)}`,
      join(PREVIOUS, "wrangler.toml"),
      join(PREVIOUS, "worker.js"),
      join(PREVIOUS, "migrations"),
      meta.record_schema_version,
    );
    const current = release("this checkout", join(ROOT, "wrangler.toml"), null, join(ROOT, "migrations"), CURRENT_SCHEMA_VERSION);
    const bundled = buildCurrent(join(work, "current"));
    // Awaited before its first use; a failure meanwhile is not left unhandled.
    bundled.catch(() => undefined);
    const persist = join(work, "state");
    const start = async (window, objects, front = objects, settings = {}) => {
      const gw = await serve({ objects, front, window, persist, webhookUrl, settings });
      gateways.push(gw);
      return gw;
    };
    const stop = async (gw) => {
      gateways.splice(gateways.indexOf(gw), 1);
      await gw.mf.dispose();
    };
    const newUser = () =>
      new SignJWT({})
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .setSubject(`deploy-windows-${crypto.randomUUID()}`)
        .setIssuedAt()
        .setExpirationTime("1h")
        .sign(new TextEncoder().encode(SECRETS.JWT_SECRET));
    const user = await newUser();

    // 1. The previous release on its own migrations, the receiver down: records in every phase.
    let gw = await start("before", previous);
    say(`1. ${previous.label} on its migrations (${(await applyMigrations(gw, previous.migrationsDir)).length} applied), the receiver down`);
    const windows = ["window A", "gradual 1", "gradual 2", "window B", "rolled back"];
    const ahead = {};
    await inPool(windows, async (window) => {
      ahead[window] = await phases(gw, window);
    });
    const [paid, cancelled, users] = await Promise.all([
      create(gw, "paid", "receipt", receiptRequest("paid")),
      create(gw, "cancelled", "receipt", receiptRequest("cancelled")),
      create(gw, "a user's", "receipt", receiptRequest("user"), { token: user }),
    ]);
    await Promise.all([
      change(gw, paid, "receipt/pay", { card: TOKEN_CARD }, 4, "receipt.paid"),
      change(gw, cancelled, "receipt/cancel", {}, 21, "receipt.cancelled"),
    ]);
    await inPool(records.values(), (record) => replay(gw, record, "before"));
    await eventsOwed(gw, receiver, { delivered: false });
    await stop(gw);
    const common = { user, partners: paid, users };
    // A gradual deployment's and a rollback's reads: every record but those made for the other windows to take further.
    const apartFromOtherWindows = (window) =>
      [...records.values()].filter((record) => record.name.startsWith(`${window}:`) || !record.name.includes(": "));

    // 2. Window A: this checkout's migrations applied, the previous release still serving.
    gw = await start("window A", previous);
    const applied = await applyMigrations(gw, current.migrationsDir);
    say(`2. window A: ${applied.length ? applied.join(", ") : "no new migration"} applied; ${previous.label} serving`);
    await visit(gw, receiver, { window: "window A", replays: 2, ...common });
    await operate(gw, ahead["window A"]);
    // Its cron on the migrated databases, at a time that queues nothing again: step 1's events stay for this checkout.
    await cronAt(gw, started);
    await eventsOwed(gw, receiver, { delivered: false });
    await stop(gw);

    current.scriptPath = await bundled;

    // 3. A gradual deployment: calls reach either version's Worker; each object is served by the version
    // its id is assigned to, the previous one first.
    gw = await start("gradual 1", previous, current);
    say(`3. gradual 1: ${current.label}'s Worker, ${previous.label}'s objects and queue consumer`);
    await visit(gw, receiver, { window: "gradual 1", replays: 1, ...common, only: apartFromOtherWindows("gradual 1") });
    await operate(gw, ahead["gradual 1"]);
    // A pay in flight when its object's code changes: the upstream has paid, its answer is held back.
    const inFlight = await create(gw, "paid across the switch", "receipt", receiptRequest("flight"));
    const cut = gw.mf
      .dispatchFetch("http://gateway.test/api/v1/partner/receipt/pay", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${PARTNER_KEY}` },
        body: JSON.stringify({ id: inFlight.id, card: { token: "tok_sandbox_paid_timeout" } }),
      })
      .then(
        async (res) => ({ status: res.status, text: await res.text() }),
        (error) => ({ error }),
      );
    await until("[gradual 1] the upstream paid the receipt in flight", async () => (await sandbox(gw, `receipts/${inFlight.id}`)).state === 4);
    await stop(gw);
    const outcome = await cut;
    // Its caller is cut off, or (on a machine slow enough for UPSTREAM_TIMEOUT_MS to pass first) told that the
    // outcome is unknown: 502 or 504, read before retrying. Never 500.
    if (!outcome.error) assert.ok([502, 504].includes(outcome.status), `[gradual 1] the pay in flight answered ${outcome.status}: ${outcome.text}`);
    say(
      `   the pay in flight: its caller ${outcome.error ? `cut off (${String(outcome.error.message ?? outcome.error).slice(0, 60)})` : `answered ${outcome.status}`}`,
    );
    inFlight.state = 4;
    inFlight.events.push("receipt.paid");

    gw = await start("gradual 2", current, previous);
    say(`4. gradual 2: ${previous.label}'s Worker, ${current.label}'s objects and queue consumer`);
    await visit(gw, receiver, { window: "gradual 2", replays: 1, ...common, only: apartFromOtherWindows("gradual 2") });
    await operate(gw, ahead["gradual 2"]);
    // Rule 14: a payment whose fiscal data is missing (and stays so through the run), on this checkout's objects.
    const fiscalPending = await create(gw, "fiscal data missing", "receipt", receiptRequest("fiscal-pending"));
    await change(gw, fiscalPending, "receipt/pay", { card: FISCAL_LATE_CARD }, 4, "receipt.paid");
    await stop(gw);

    // 5. Window B: this checkout's code alone; the receiver takes everything. The fiscal data operator answers
    // a payment here at once (its next read shows the data), so the log holds a receipt.fiscalized.
    receiver.deliverable = { add() {}, has: () => true };
    gw = await start("window B", current, current, { SANDBOX_FISCAL_DELAY_MS: "1" });
    say(`5. window B: ${current.label} serving (record schema ${current.schemaVersion}, the previous release's ${previous.schemaVersion})`);
    await visit(gw, receiver, { window: "window B", replays: 2, ...common, byNumber: true });
    await operate(gw, ahead["window B"]);
    for (const record of [paid, users]) await replay(gw, record, "window B, after check-tid");
    const fiscalized = await create(gw, "fiscalized late", "receipt", receiptRequest("fiscalized"));
    await change(gw, fiscalized, "receipt/pay", { card: FISCAL_LATE_CARD }, 4, "receipt.paid");
    await until("[window B] a read shows the late fiscal data", async () => {
      const answer = await ok(gw, "receipt/check-id", { id: fiscalized.id }, { label: `check-id ${fiscalized.name}` });
      return typeof answer.body.ofd?.fiscalSign === "string" && answer.body.ofd.fiscalSign !== "";
    });
    fiscalized.events.push("receipt.fiscalized");
    await until("[window B] fiscal/pending lists the payment whose fiscal data is missing, and only it", async () =>
      sameIds(await fiscalList(gw), [fiscalPending.id]),
    );
    // The sweep queues again what the switches left pending (their messages died with the runtimes), as
    // its minutely run does once an attempt is 30 s overdue.
    await cronAt(gw, Date.now() + 31_000);
    await eventsOwed(gw, receiver, { delivered: true });
    await stop(gw);

    // 6. Rolled back: the previous release on everything this checkout stored; it refunds the receipt whose
    // fiscal data is missing, and the one whose data showed.
    gw = await start("rolled back", previous);
    say(`6. rolled back: ${previous.label} serving again, on records of schema ${current.schemaVersion} stamped ${OLDEST_READER_VERSION}`);
    // Each window that pays by number does it as a user of its own: rule 13 counts a user's uses of a card (5 an
    // hour, authorizes and pays alike) across releases, and one user's three windows would be six.
    await visit(gw, receiver, {
      window: "rolled back",
      replays: 1,
      ...common,
      user: await newUser(),
      only: apartFromOtherWindows("rolled back"),
      byNumber: true,
    });
    await operate(gw, ahead["rolled back"]);
    await change(gw, fiscalPending, "receipt/cancel", { reason: "deploy windows" }, 21, "receipt.cancelled");
    // Its outbox holds the receipt.fiscalized this checkout drained: the refund's event is still delivered.
    await change(gw, fiscalized, "receipt/cancel", { reason: "deploy windows" }, 21, "receipt.cancelled");
    await eventsOwed(gw, receiver, { delivered: true });
    await stop(gw);

    // 7. Rolled forward: this checkout again, on what the previous release did meanwhile: the records it made and
    // those it took a step further (made before the deploy, opened by this checkout in window B), one of them refunded.
    gw = await start("rolled forward", current);
    say(`7. rolled forward: ${current.label} serving again`);
    await visit(gw, receiver, {
      window: "rolled forward",
      replays: 1,
      ...common,
      user: await newUser(),
      only: apartFromOtherWindows("rolled back"),
      byNumber: true,
    });
    // Rule 13's counts carried across the rollback: the card's three users today (window B's and this window's counted
    // by this checkout, the rolled back window's by the previous release) are its limit, so a fourth user is refused.
    const fourth = await newUser();
    const fourths = await create(gw, "a fourth user's", "receipt", receiptRequest("fourth-user", { merchant_id: 1001 }), { token: fourth });
    receiver.deliverable.add(fourths.id);
    const refused = await api(
      gw,
      "receipt/anonymous/authorize",
      { id: fourths.id, card: CARD_NUMBER },
      { token: fourth, label: "a fourth user's card" },
    );
    assert.equal(refused.status, 429, `[rolled forward] a fourth user of the card: ${refused.text}`);
    assert.equal(refused.body.error.rule, "card_users_per_day", `[rolled forward] a fourth user of the card: ${refused.text}`);
    await change(gw, ahead["rolled back"].created, "receipt/cancel", { reason: "deploy windows" }, 21, "receipt.cancelled");
    // The previous release keeps rule 14 too: each refund it made, its fiscal data missing (the operator answers an
    // hour later), it listed as a refund; this checkout reads that and keeps both listed, the sale's listing gone.
    await until("[rolled forward] fiscal/pending lists the two refunds the previous release made, and only them", async () => {
      const answer = await post(gw, "/api/v1/gateway/fiscal/pending", { limit: 100 }, { label: "fiscal/pending" });
      const refunds = answer.body.receipts.filter((receipt) => receipt.state === 21).map((receipt) => receipt.id);
      return sameIds(refunds, [fiscalPending.id, fiscalized.id]) && answer.body.receipts.length === 2;
    });
    await eventsOwed(gw, receiver, { delivered: true });
    await stop(gw);
    for (const line of logs.filter((line) => /^\[rolled (back|forward)\]/.test(line)))
      for (const wrong of NEVER_AFTER_ROLLBACK) assert.ok(!wrong.test(line), `a runtime logged ${wrong} after the rollback: ${line}`);

    // Nothing lost, nothing sent unsigned, nothing secret logged.
    assert.deepEqual(receiver.bad, [], "every delivery is signed with WEBHOOK_SECRET");
    const owed = [...records.values()].reduce((sum, record) => sum + record.events.length, 0);
    const twice = [...receiver.received.values()].filter(({ deliveries }) => deliveries > 1).length;
    assert.equal(receiver.received.size, owed, `the receiver got each owed event: ${receiver.received.size} of ${owed}`);
    for (const line of logs) for (const secret of NEVER_LOGGED) assert.ok(!secret.test(line), `a log line holds ${secret}: ${line}`);
    say(`ok: ${records.size} records, ${owed} events delivered (${twice} more than once), ${answers.length} answers, none 5xx`);
  } finally {
    await Promise.allSettled(gateways.map((gw) => gw.mf.dispose()));
    await receiver.close();
    rmSync(work, { recursive: true, force: true });
  }
}

try {
  await main();
} catch (err) {
  console.error(`\ndeploy windows: FAILED after ${seconds()}\n${err?.stack ?? err}`);
  console.error(`\nThe runtimes' last log lines:\n${logs.slice(-40).join("\n")}`);
  process.exit(1);
}
