/**
 * What one create-authorize-pay costs on the bill over its whole life,
 * counted rather than estimated: the traced gateway
 * (bench/workers/traced-gateway.ts) counts, for everything the isolate runs
 * (requests, the record objects' calls and alarms, the queue consumer, the
 * cron), D1 statements and the rows they read and wrote (each result's
 * `meta`), the objects' rows written (each `sql.exec` cursor's
 * `rowsWritten`), object requests, Worker invocations and queue messages;
 * Miniflare counts the log lines.
 *
 * The flows run with every window of rule 10 shortened to seconds, so the
 * whole life happens within the run: the answers, the events' delivery to
 * a receiver that is up, then retention (the cron, fired here) deleting the
 * tid rows and the events, and each record object deleting itself. The
 * event log's windows outlast the drain's mark (MARK_WAIT_MS, read from
 * src/record/outbox.ts), as production's days do: a record that stops
 * before its alarm drains its events again when the alarm fires, and the
 * log must still hold them then, or it takes them as new and queues them
 * twice. The scenarios run at once, each on a runtime of its own, so that
 * their waits for those windows overlap. Three
 * snapshots per flow: `answered` (the three calls and what they set off),
 * `delivered` (every event at the receiver), `ended` (retention and the
 * objects' own deletion done). What the platform bills is counted where the
 * platform sees it (bench/workers/traced-gateway.ts): statements' rows, each
 * alarm set or deleted, the rows each `deleteAll()` removes, the wall time of
 * each object request and its waits; Miniflare's log handler counts the log
 * lines and their bytes.
 *
 * The cron runs every minute whatever the traffic, so one run with nothing
 * due is counted apart first (`cron.empty_run`); then it runs in the
 * background through the scenario (`cron.runs_in_ended` runs): the model
 * prices it per run, and takes those runs' fixed cost out of the flows' own
 * share. The record's window is longer than the events', as production's is,
 * so a record ends after the cron has pruned its events.
 *
 * Besides the paid flow, the payments that never complete (rule 12): a
 * receipt created and authorized, never paid, and a held receipt never
 * confirmed, each with its expiry window shortened to seconds. Where the
 * gateway expires them (the run sees their records delete themselves),
 * their whole life is counted like the paid one's; where it does not yet,
 * the scenario says so (`ended: false`) and the model estimates the expiry.
 *
 * `keyedPays`: every pay carries an Idempotency-Key (rule 11), so that the
 * same flows with and without keys say what a key costs over a payment's life.
 *
 * Rule 14: `fiscal_late` is a paid flow whose fiscal data the operator
 * gives late (tok_sandbox_fiscal_late): the data appears between the record's
 * first and second scheduled read (FISCAL_READS shortened in proportion to
 * production's 5 min, 1 h, 24 h), so its whole life holds the fiscal list's
 * writes (listed, one read's update, unlisted), two reads of the upstream,
 * their alarms and receipt.fiscalized: less the paid flow's, what a
 * fiscal-late payment adds.
 *
 * Rule 13's counters: the partner's calls are exempt, so two more paid
 * scenarios are a user's (each flow a user of its own, with a JWT):
 * `anonymous` pays by card number (create, anonymous/authorize,
 * anonymous/pay), `user_token` by token (create, authorize, pay). The
 * tracer counts the RiskObjects apart (`risk_*`) and shrinks every
 * counter's window in proportion, a day to RISK_DAY_MS (BENCH_RISK_DAY_MS,
 * an hour to a 24th of it: the rows end in production's order), and each
 * flow waits for its subjects' objects to end before the next begins: the sandbox approves only one card number and one token, so
 * without the wait every flow would share one card object, and the counts
 * would be a busy card's rather than a payment's own.
 */
import { readFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { SignJWT } from "jose";
import { unstable_readConfig } from "wrangler";
import { DEV_VARS, PORTS, ROOT } from "./config.mjs";
import { post as partnerPost } from "./events.mjs";
import { startReceiver } from "./receiver.mjs";
import { applyMigrations, startRuntime, workerFromBuild } from "./runtime.mjs";

/** The tid's windows of rule 10 in days (~1.7 s), and the hold's of rule 12. */
const SHORT_WINDOW_DAYS = "0.00002";
const DAY_MS = 86_400_000;
/**
 * How long a record's drain may leave its events unmarked (src/record/outbox.ts MARK_WAIT_MS: the row's next write
 * or an alarm due within it writes the mark), read from the source, never retyped.
 */
const MARK_WAIT_MS = (() => {
  const source = readFileSync(join(ROOT, "src", "record", "outbox.ts"), "utf8");
  const found = /export const MARK_WAIT_MS = ([\d_]+);/.exec(source);
  if (!found) throw new Error("src/record/outbox.ts: no MARK_WAIT_MS");
  return Number(found[1].replaceAll("_", ""));
})();
/**
 * The events' windows of rule 10 (delivered and undelivered): past the drain's mark and the alarm that writes it
 * (it may fire a few seconds late: src/record/write-ahead.ts ALARM_DELAY_MS), with room (~70 s). A record that
 * stopped before that alarm drains its events again when it fires, and the log still holds them, so it logs and
 * queues nothing twice, as in production, where the log keeps them for days: with a shorter window the log has
 * forgotten them and takes them as new (a count of deliveries, log rows and prunes no payment makes).
 */
const EVENT_WINDOW_MS = MARK_WAIT_MS + 10_000;
const EVENT_WINDOW_DAYS = String(EVENT_WINDOW_MS / DAY_MS);
/**
 * The record's window, past the events' (~80 s), as production's 30 days are past the delivered events' 7: a
 * record whose end comes before the cron has pruned its events would ask the log again and again, which
 * production's record, ending 23 days after its events are gone, never does.
 */
const RECORD_WINDOW_MS = EVENT_WINDOW_MS + 10_000;
const RECORD_WINDOW_DAYS = String(RECORD_WINDOW_MS / DAY_MS);
/** The cron, fired in the background while a scenario runs: production's every minute is as good as continuous against its windows. */
const CRON_EVERY_MS = 1000;
/** The counters that move only with the payments' own work (the background cron's empty runs move none of them). */
const SETTLE_ON = [
  "object_requests",
  "object_rows_written",
  "object_alarm_writes",
  "object_deletions",
  "d1_rows_written",
  "queue_messages",
  "pager_requests",
  "risk_requests",
  "risk_rows_written",
  "risk_alarm_writes",
  "risk_deletions",
];
/** Rule 13's day in the run (the tracer's BENCH_RISK_DAY_MS; its hour a 24th of it): a subject's object ends this long after its last use. */
const RISK_DAY_MS = 2400;
/** The sandbox's card number that approves, with an expiry two years ahead. */
const ANONYMOUS_CARD = { number: "8600000000000007", expire: `${String((new Date().getUTCFullYear() + 2) % 100).padStart(2, "0")}12` };
/**
 * Rule 14's schedule in the run: production's 5 min, 1 h and 24 h shortened
 * (a minute to ~0.1 s), and the operator's answer between the first read and
 * the second, as the model assumes (found by the 1-hour read).
 */
const FISCAL_READS = "0.5s 6s 144s";
const FISCAL_DELAY_MS = 2000;
/** How long a fiscal-late flow's record waits after the answer before its data is found (its second read), with room. */
const FISCAL_FOUND_MS = 7000;
/** Rule 12's windows for the scenarios that expire: ~1.8 s for an unpaid receipt, ~1.7 s for a hold. */
const SHORT_EXPIRY_HOURS = "0.0005";
const EXPIRY_MS = Number(SHORT_EXPIRY_HOURS) * 3_600_000;

/**
 * The scenarios, each a payment's path (merchant 1001, tok_sandbox_ok):
 * `paid` create, authorize, pay with OTP; `abandoned` create and authorize,
 * never paid; `hold_expired` created with is_hold, authorized and paid (state
 * 5), never confirmed. `expiry`: the bindings that shorten its rule-12 window.
 */
const SCENARIOS = {
  paid: { steps: ["create", "authorize", "pay"], isHold: false, expiry: {} },
  // Rule 14: paid, its fiscal data late; three events (created, paid, fiscalized).
  fiscal_late: {
    steps: ["create", "authorize", "pay"],
    isHold: false,
    expiry: { FISCAL_READS, SANDBOX_FISCAL_DELAY_MS: String(FISCAL_DELAY_MS) },
    partnerCard: { token: "tok_sandbox_fiscal_late" },
    events: 3,
    laterMs: FISCAL_FOUND_MS,
  },
  abandoned: { steps: ["create", "authorize"], isHold: false, expiry: { RECEIPT_EXPIRY_HOURS: SHORT_EXPIRY_HOURS } },
  hold_expired: { steps: ["create", "authorize", "pay"], isHold: true, expiry: { HOLD_EXPIRY_DAYS: SHORT_WINDOW_DAYS } },
  // Rule 13's: a user pays, by card number (two subjects: the user's object and the card's) or by token (one: the
  // user's, where the OTP send is counted by the token's fingerprint); each flow's subjects end before the next.
  anonymous: { steps: ["create", "authorize", "pay"], isHold: false, expiry: {}, user: true, card: ANONYMOUS_CARD, subjects: 2 },
  user_token: { steps: ["create", "authorize", "pay"], isHold: false, expiry: {}, user: true, card: { token: "tok_sandbox_ok" }, subjects: 1 },
};

/** A development JWT for `user`, as `npm run token` makes it. */
const userToken = (user) =>
  new SignJWT({})
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(user)
    .setIssuedAt()
    .setExpirationTime("1h")
    .sign(new TextEncoder().encode(DEV_VARS.JWT_SECRET ?? ""));

/** A user's call: the same answer shape as the partner's `post`. */
async function userPost(url, path, body, jwt) {
  const res = await fetch(`${url}/api/v1/partner/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${jwt}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.text() };
}

const getJson = (url) =>
  new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        let text = "";
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () => resolve(JSON.parse(text)));
      })
      .on("error", reject);
  });

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the payments' counters stop moving for `quietMs` (what the flows set off has finished), at most `limitMs`. */
async function settle(runtime, quietMs, limitMs, until = () => true) {
  const started = Date.now();
  const read = async () => {
    const counts = await getJson(`${runtime.url}/__bench/counters`);
    return JSON.stringify(SETTLE_ON.map((k) => counts[k]));
  };
  let last = await read();
  let quietSince = Date.now();
  while (Date.now() - started < limitMs) {
    await sleep(250);
    const now = await read();
    if (now !== last) {
      last = now;
      quietSince = Date.now();
    } else if (Date.now() - quietSince >= quietMs && until()) return;
  }
}

/** The traced gateway built once, for every scenario. */
async function buildTraced({ wrangler, root, benchDir, dir, name }) {
  const outdir = join(dir, "traced");
  await wrangler([
    "deploy",
    join(benchDir, "workers", "traced-gateway.ts"),
    "--dry-run",
    "--outdir",
    outdir,
    "--config",
    join(root, "wrangler.toml"),
    "--env=dev",
  ]);
  return { config: join(root, "wrangler.toml"), env: "dev", name, module: join(outdir, "traced-gateway.js") };
}

const per = (flows) => (n) => Math.round((n / flows) * 100) / 100;

/** Runs `flows` payments of one scenario on a fresh traced gateway (on `port`, its receiver on one of its own) and counts their whole life. */
async function runScenario({ build, scenario, flows, keyedPays, log, port = PORTS.traced }) {
  const { steps, isHold, expiry, user, card: userCard, subjects, partnerCard, events, laterMs = 0 } = SCENARIOS[scenario];
  const receiver = await startReceiver(0);
  const worker = workerFromBuild(build);
  worker.bindings = {
    ...worker.bindings,
    WEBHOOK_URL: receiver.url,
    TID_REPLAY_DAYS: SHORT_WINDOW_DAYS,
    TID_RETENTION_DAYS: SHORT_WINDOW_DAYS,
    EVENTS_DELIVERED_RETENTION_DAYS: EVENT_WINDOW_DAYS,
    EVENTS_UNDELIVERED_RETENTION_DAYS: EVENT_WINDOW_DAYS,
    RECORD_RETENTION_DAYS: RECORD_WINDOW_DAYS,
    BENCH_RISK_DAY_MS: String(RISK_DAY_MS),
    // Production's (wrangler.toml [env.production]): a record holds its audit entries for half of it, so the
    // create's alarm (30 s on, when that hold ends) carries them, as in production, where development's 1 s set an alarm of their own.
    AUDIT_FLUSH_SECONDS: "60",
    ...expiry,
  };
  // The databases the cron visits here (TID_INDEX_SHARDS of [env.dev]): the model scales a run's cost by them.
  const databases = String(worker.bindings.TID_INDEX_SHARDS ?? "DB")
    .split(/[\s,]+/)
    .filter(Boolean).length;
  const runtime = await startRuntime({ key: `costs-${scenario}`, workers: [worker], port });
  try {
    await applyMigrations(runtime, build);
    const gateway = await runtime.mf.getWorker(build.name);
    const cron = async () => {
      await gateway.scheduled({ cron: "* * * * *", scheduledTime: new Date() });
      await settle(runtime, 1000, 20_000);
    };
    const counters = async (reset = false) => {
      const {
        rows_written_by,
        alarm_writes_by: _alarms,
        risk_objects_live: _live,
        risk_object_bytes: _bytes,
        risk_shards: _shards,
        risk_chunks: _chunks,
        ...counts
      } = await getJson(`${runtime.url}/__bench/counters${reset ? "?reset" : ""}`);
      const logs = runtime.logs;
      const lines = {
        log_lines: logs.lines,
        log_bytes: logs.bytes ?? 0,
        log_lines_sampled: logs.sampled ?? 0,
        log_bytes_sampled: logs.sampled_bytes ?? 0,
      };
      return { counts: { ...counts, ...lines }, rows_written_by };
    };
    // A user's flow: the bytes each subject of its risk counters holds right after it, and its subjects swept before the next flow.
    const riskBytes = [];
    const riskEnded = async () => {
      const live = await getJson(`${runtime.url}/__bench/counters`);
      riskShards = live.risk_shards ?? null;
      riskChunks = live.risk_chunks ?? null;
      if (live.risk_objects_live > 0) riskBytes.push(live.risk_object_bytes / live.risk_objects_live);
      const started = Date.now();
      while (Date.now() - started < RISK_DAY_MS + 15_000) {
        await sleep(250);
        // Every subject's chunks swept from its shard (rule 10): the shards themselves are priced per shard, not per payment.
        if ((await getJson(`${runtime.url}/__bench/counters`)).risk_objects_live === 0) return true;
      }
      return false;
    };
    let riskAllEnded = true;
    /** How many shards rule 13's counters are spread over (null: an object per subject, before the shards). */
    let riskShards = null;
    /** How many chunks a shard's day is split into (null: a key per subject, before the chunks): the sweep's deletions a shard a day. */
    let riskChunks = null;
    // One cron run with nothing due: what every minute costs whatever the traffic.
    await counters(true);
    const linesNow = () => ({
      lines: runtime.logs.lines,
      bytes: runtime.logs.bytes ?? 0,
      sampled: runtime.logs.sampled ?? 0,
      sampledBytes: runtime.logs.sampled_bytes ?? 0,
    });
    const since = (counts, before) => {
      counts.log_lines -= before.lines;
      counts.log_bytes -= before.bytes;
      counts.log_lines_sampled -= before.sampled;
      counts.log_bytes_sampled -= before.sampledBytes;
    };
    const linesBefore = linesNow();
    await cron();
    const empty = (await counters(true)).counts;
    since(empty, linesBefore);
    const linesAtStart = linesNow();
    const snapshots = {};
    // The cron runs in the background from now on; each snapshot says how many runs it includes.
    let cronRuns = 0;
    let cronStop = false;
    const cronLoop = (async () => {
      while (!cronStop) {
        await gateway.scheduled({ cron: "* * * * *", scheduledTime: new Date() });
        cronRuns++;
        await sleep(CRON_EVERY_MS);
      }
    })();
    const snap = async (name) => {
      const { counts, rows_written_by } = await counters();
      since(counts, linesAtStart);
      snapshots[name] = { ...counts, cron_runs: cronRuns, rows_written_by };
    };

    for (let i = 0; i < flows; i++) {
      const tid = `costs-${scenario}-${Date.now()}-${i}`;
      if (user) {
        const jwt = await userToken(`costs-${scenario}-${Date.now()}-${i}`);
        const number = "number" in userCard;
        const call = async (path, body) => {
          const answer = await userPost(runtime.url, path, body, jwt);
          if (answer.status !== 200) throw new Error(`costs (${scenario}): ${path} answered ${answer.status} ${answer.body}`);
          return JSON.parse(answer.body);
        };
        const { id } = await call("receipt/create", { tid, amount: 150000, merchant_id: 1001, account: [{ key: "phone", value: "998901234567" }] });
        await call(number ? "receipt/anonymous/authorize" : "receipt/authorize", { id, card: userCard });
        await call(number ? "receipt/anonymous/pay" : "receipt/pay", { id, card: userCard, otp: "111111" });
        riskAllEnded = (await riskEnded()) && riskAllEnded;
        continue;
      }
      const created = await partnerPost(undefined, runtime.url, "receipt/create", {
        tid,
        amount: 150000,
        merchant_id: 1001,
        account: [],
        ...(isHold ? { is_hold: true } : {}),
      });
      if (created.status !== 200) throw new Error(`costs (${scenario}): create answered ${created.status} ${created.body}`);
      const { id } = JSON.parse(created.body);
      const card = partnerCard ?? { token: "tok_sandbox_ok" };
      if (steps.includes("authorize")) {
        const authorized = await partnerPost(undefined, runtime.url, "receipt/authorize", { id, card });
        if (authorized.status !== 200) throw new Error(`costs (${scenario}): authorize answered ${authorized.status} ${authorized.body}`);
      }
      if (steps.includes("pay")) {
        const key = keyedPays ? { "idempotency-key": `${tid}-pay` } : {};
        const paid = await partnerPost(undefined, runtime.url, "receipt/pay", { id, card, otp: "111111" }, key);
        if (paid.status !== 200) throw new Error(`costs (${scenario}): pay answered ${paid.status} ${paid.body}`);
      }
    }
    await settle(runtime, 1000, 20_000);
    await snap("answered");
    // The events each flow makes by now (two for a paid one: receipt.created, receipt.paid; a fiscal-late one's third once its data is found), at the receiver.
    if (laterMs) await sleep(laterMs);
    const expected = (events ?? (steps.includes("pay") ? 2 : 1)) * flows;
    await settle(runtime, 1500, 60_000, () => receiver.received() >= expected);
    await snap("delivered");

    // Past every window (rule 12's expiry, then rule 10's): the records expire and delete themselves (their
    // alarms), while the cron removes what falls due.
    await sleep((Object.keys(expiry).length ? EXPIRY_MS : 0) + RECORD_WINDOW_MS + 1000);
    // A record ends by its own alarms: the create's comes up to 30 s on (src/record/wake.ts, `late`), its end's after it.
    const endBy = Date.now() + 60_000;
    while (Date.now() < endBy && (await counters()).counts.object_deletions < flows) await sleep(500);
    await settle(runtime, 1500, 30_000);
    cronStop = true;
    await cronLoop;
    await cron();
    cronRuns++;
    await snap("ended");
    // What the whole life left behind in D1 (the tid index and the event log should be empty).
    const db = await runtime.mf.getD1Database("DB", build.name);
    const left = {};
    for (const table of ["tid_index", "events"]) left[table] = (await db.prepare(`SELECT count(*) AS n FROM ${table}`).first()).n;
    log(
      `costs (${scenario}${keyedPays ? ", keyed pays" : ""}): ${flows} flows, ${receiver.received()} events delivered (${receiver.distinct()} distinct), ${snapshots.ended.object_deletions} records deleted themselves`,
    );

    const p = per(flows);
    const perFlow = ({ rows_written_by: _by, cron_runs: _runs, ...counts }) =>
      Object.fromEntries(Object.entries(counts).map(([key, n]) => [key, p(n)]));
    const byStatement = (rows) => Object.fromEntries(Object.entries(rows).map(([what, n]) => [what, p(n)]));
    return {
      scenario,
      steps,
      is_hold: isHold,
      flows,
      // Whether every record ended within the run (rule 10, after rule 12's expiry where the flow never completes).
      ended: snapshots.ended.object_deletions >= flows,
      ...(user
        ? {
            // Rule 13's objects: whether each flow's ended before the next began, and each one's database bytes while it lived.
            risk: {
              day_ms: RISK_DAY_MS,
              subjects_per_flow: subjects,
              shards: riskShards,
              chunks: riskChunks,
              ended: riskAllEnded,
              object_bytes_median: riskBytes.length ? [...riskBytes].sort((a, b) => a - b)[Math.floor((riskBytes.length - 1) / 2)] : null,
            },
          }
        : {}),
      // The deliveries the receiver took, and the events among them (by webhook-id): equal when none was delivered twice.
      events_delivered: receiver.received(),
      events_distinct: receiver.distinct(),
      rows_left_in_d1: left,
      per_flow: { answered: perFlow(snapshots.answered), delivered: perFlow(snapshots.delivered), ended: perFlow(snapshots.ended) },
      rows_written_per_flow_by_statement: {
        d1: byStatement(snapshots.ended.rows_written_by.d1),
        object: byStatement(snapshots.ended.rows_written_by.object),
        risk: byStatement(snapshots.ended.rows_written_by.risk ?? {}),
      },
      // The cron: one run with nothing due, over this many databases, and how many runs `ended` includes.
      cron: { empty_run: empty, databases, runs_in_ended: snapshots.ended.cron_runs },
    };
  } finally {
    await runtime.stop();
    receiver.server.close();
  }
}

// --- the paced payment: production's windows and pace ---------------------------------------

/**
 * Production's windows (wrangler.toml [env.production]), by name: rule 10's, rule 12's, rule 14's reads, rule
 * 15's flush, the timeouts. Read from the file, never retyped, so the paced count follows the deployment.
 */
const PRODUCTION_WINDOWS = [
  "TID_REPLAY_DAYS",
  "TID_RETENTION_DAYS",
  "EVENTS_DELIVERED_RETENTION_DAYS",
  "EVENTS_UNDELIVERED_RETENTION_DAYS",
  "RECORD_RETENTION_DAYS",
  "RECEIPT_EXPIRY_HOURS",
  "HOLD_EXPIRY_DAYS",
  "FISCAL_READS",
  "AUDIT_FLUSH_SECONDS",
  "UPSTREAM_TIMEOUT_MS",
  "WEBHOOK_TIMEOUT_MS",
];
/**
 * The model's pace (bench/capacity-model.mjs AUDIT_FROM_CODE): the authorize 15 s after the create, the pay 10 s
 * after the authorize: the create's alarm, due when the trail's hold (half of AUDIT_FLUSH_SECONDS) ends, 30 s on, comes
 * after both, and each operation's alarms and marks fall as in production, where the back-to-back flows answer all
 * three within a second.
 */
export const PACE = { authorizeAfterMs: 15_000, payAfterMs: 10_000 };
/** After the last operation, real time for every alarm due within the minute (the create's, 30 s on with the trail's hold) to run. */
const PACED_TAIL_MS = 40_000;
/**
 * The test clock's steps past the windows left: past rule 12's 24 h (an abandoned payment expires, its event
 * is drained and its trail exported), then, once its event is delivered in real time as production delivers
 * it within seconds, past rule 10's 30 days after final: the record ends. In one step the record would reach
 * its end before the queue had delivered its last event, and ask the log again and again, as no production
 * record does.
 */
const PACED_ADVANCES = ["25h", "31d"];
/**
 * How long the paced runtime's counters stay still before the clock moves on: past an event's way to its
 * delivery in real time (up to a second in its pager, src/events/pager.ts, and a second for the queue's batch),
 * so the record does not reach its end with its last event still pending.
 */
const PACED_QUIET_MS = 3000;
/** The counters the paced payment is priced by: the record objects' (the model takes the rest from the back-to-back flows). */
const PACED_COUNTERS = ["object_requests", "object_rows_written", "object_alarm_writes", "object_deletions", "object_rows_deleted"];
/** What the test clock's own bookkeeping did (bench/workers/traced-gateway.ts): counted apart, never a payment's. */
const CLOCK_COUNTERS = ["clock_requests", "clock_rows_written", "clock_alarm_writes"];

/**
 * The paced payments, each on a runtime of its own, all at once: `paid` (create, authorize 15 s later, pay 10 s
 * after that), `abandoned` (create, authorize, never paid: rule 12 expires it after RECEIPT_EXPIRY_HOURS), both
 * waiting in real time until only day-long windows are left, and `paid_by_clock`, the paid payment with every
 * wait crossed by the test clock instead: the check that an advance counts what a real wait would.
 */
const PACED = {
  paid: { pay: true, clockOnly: false },
  abandoned: { pay: false, clockOnly: false },
  paid_by_clock: { pay: true, clockOnly: true },
};

/** POST /__sandbox/receipts/{id}/advance (the contract's test clocks): the steps it ran, by whom. */
async function advance(url, id, by) {
  const res = await fetch(`${url}/__sandbox/receipts/${id}/advance`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ by }),
  });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`advance ${id} by ${by}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** One paced payment: its operations at the model's pace, each wait real or (clockOnly) crossed by the test clock. */
async function pacedPayment(url, name, i, { pay, clockOnly }) {
  const wait = async (id, ms) => {
    if (clockOnly) return advance(url, id, `${ms / 1000}s`);
    await sleep(ms);
    return null;
  };
  const call = async (path, body) => {
    const res = await partnerPost(undefined, url, path, body);
    if (res.status !== 200) throw new Error(`paced (${name}): ${path} answered ${res.status} ${res.body}`);
    return JSON.parse(res.body);
  };
  const card = { token: "tok_sandbox_ok" };
  const { id } = await call("receipt/create", { tid: `paced-${name}-${Date.now()}-${i}`, amount: 150000, merchant_id: 1001, account: [] });
  const advances = [await wait(id, PACE.authorizeAfterMs)];
  await call("receipt/authorize", { id, card });
  if (pay) {
    advances.push(await wait(id, PACE.payAfterMs));
    await call("receipt/pay", { id, card, otp: "111111" });
  }
  advances.push(await wait(id, PACED_TAIL_MS));
  return { id, advances: advances.filter(Boolean) };
}

/** Runs `flows` paced payments of one kind at once on a traced gateway with production's windows, and counts their record objects' life. */
async function runPaced({ build, name, flows, port, receiverUrl, windows }) {
  const worker = workerFromBuild(build);
  worker.bindings = { ...worker.bindings, WEBHOOK_URL: receiverUrl, ...windows };
  const runtime = await startRuntime({ key: `paced-${name}`, workers: [worker], port });
  try {
    await applyMigrations(runtime, build);
    await getJson(`${runtime.url}/__bench/counters?reset`);
    const payments = await Promise.all(Array.from({ length: flows }, (_, i) => pacedPayment(runtime.url, name, i, PACED[name])));
    await settle(runtime, PACED_QUIET_MS, 20_000);
    const paced = await getJson(`${runtime.url}/__bench/counters`);
    // Past the day-long windows by the test clock: each record runs what falls due, in order, until it ends.
    let crossed = [];
    for (const by of PACED_ADVANCES) {
      crossed = [...crossed, ...(await Promise.all(payments.map(({ id }) => advance(runtime.url, id, by))))];
      await settle(runtime, PACED_QUIET_MS, 20_000);
    }
    const ended = await getJson(`${runtime.url}/__bench/counters`);
    const steps = [...payments.flatMap((p) => p.advances), ...crossed].flatMap((a) => a.steps);
    const p = per(flows);
    const pick = (counts, keys) => Object.fromEntries(keys.map((k) => [k, p(counts[k] ?? 0)]));
    return {
      flows,
      ended: crossed.slice(-flows).every((a) => a.ended),
      // Within the minute after its operations, in real time (paid_by_clock: by the test clock too).
      per_flow_paced: pick(paced, PACED_COUNTERS),
      // Over the whole life: the day-long windows crossed by the test clock.
      per_flow_ended: pick(ended, PACED_COUNTERS),
      rows_written_per_flow_by_statement: Object.fromEntries(Object.entries(ended.rows_written_by.object).map(([what, n]) => [what, p(n)])),
      // Where the alarm writes go: by the call or alarm that made them, or set off what made them.
      alarm_writes_per_flow_by_call: Object.fromEntries(Object.entries(ended.alarm_writes_by ?? {}).map(([what, n]) => [what, p(n)])),
      // The test clock's own bookkeeping (its reads of the record, the time it stores, the alarm it sets again), left out above.
      test_clock: {
        ...pick(ended, CLOCK_COUNTERS),
        alarms_run_per_flow: p(steps.filter((s) => s.by === "gateway").length),
        rows_written_by_statement: Object.fromEntries(Object.entries(ended.rows_written_by.clock ?? {}).map(([what, n]) => [what, p(n)])),
      },
    };
  } finally {
    await runtime.stop();
  }
}

/**
 * The paced payments (PACED) at production's windows, each kind on its own runtime, all at once (~1.5 min): the
 * record objects' requests, rows, alarms and deletions a paid and an abandoned payment make at production's
 * pace, and the check: the paid payment with every wait crossed by the test clock, against the same payment
 * waiting in real time (`check.difference`: zero when an advance counts what a wait would).
 */
async function countPaced({ build, root, flows, log }) {
  const vars = unstable_readConfig({ config: join(root, "wrangler.toml"), env: "production" }, { hideWarnings: true }).vars ?? {};
  const missing = PRODUCTION_WINDOWS.filter((k) => vars[k] === undefined);
  if (missing.length) throw new Error(`wrangler.toml [env.production] has no ${missing.join(", ")}`);
  const windows = Object.fromEntries(PRODUCTION_WINDOWS.map((k) => [k, String(vars[k])]));
  const receiver = await startReceiver(PORTS.receiver);
  try {
    const names = Object.keys(PACED);
    const runs = await Promise.all(
      names.map((name, i) => runPaced({ build, name, flows, port: PORTS.traced + 20 + i, receiverUrl: receiver.url, windows })),
    );
    const out = Object.fromEntries(names.map((name, i) => [name, runs[i]]));
    const difference = Object.fromEntries(
      PACED_COUNTERS.map((k) => [k, Math.round((out.paid_by_clock.per_flow_ended[k] - out.paid.per_flow_ended[k]) * 100) / 100]),
    );
    for (const name of names) log(`paced (${name}): ${flows} flows, ended ${out[name].ended}, per flow ${JSON.stringify(out[name].per_flow_ended)}`);
    log(`paced: the test clock against real waits, per paid flow: ${JSON.stringify(difference)}`);
    return {
      note: `${flows} payments of each kind at once, production's windows (wrangler.toml [env.production]: ${PRODUCTION_WINDOWS.map((k) => `${k}=${windows[k]}`).join(", ")}), the authorize ${PACE.authorizeAfterMs / 1000} s after the create, the pay ${PACE.payAfterMs / 1000} s after the authorize, ${PACED_TAIL_MS / 1000} s of real time after the last operation, then the test clock ${PACED_ADVANCES.join(", then ")} on; the record objects' counts per flow (the test clock's own bookkeeping apart)`,
      windows,
      pace: PACE,
      paid: out.paid,
      abandoned: out.abandoned,
      check: { paid_by_clock: out.paid_by_clock, difference },
    };
  } finally {
    receiver.server.close();
  }
}

/**
 * Builds the traced gateway into `dir` with `wrangler` (capacity.mjs's runner) and counts `flows` partner
 * flows of each scenario: the paid one (its fields at the top level, as before), and with `scenarios` the
 * ones that never complete (`scenarios.abandoned`, `scenarios.hold_expired`), rule 13's user flows (`scenarios.anonymous`, `scenarios.user_token`) and rule 14's fiscal-late payment (`scenarios.fiscal_late`). With `keyedPays`, each pay
 * carries its own Idempotency-Key; with `keyedToo`, the paid flows are also counted with a key on every pay, at the
 * same time as the rest, and returned apart (`keyed`, as a call with `keyedPays` would return them).
 */
export async function countFlowCosts({
  wrangler,
  root,
  benchDir,
  dir,
  name,
  flows = 20,
  keyedPays = false,
  keyedToo = false,
  scenarios = false,
  paced = false,
  log = () => {},
}) {
  const build = await buildTraced({ wrangler, root, benchDir, dir, name });
  // The paced payments first: their runtimes wait in real time, and nothing else runs meanwhile to slow them.
  const pacedCounts = paced ? await countPaced({ build, root, flows, log }) : null;
  // Then every scenario at once, each on its own runtime and port: most of a scenario's time is the wait for the
  // event log's and the record's windows, which overlap so.
  const names = scenarios ? ["abandoned", "hold_expired", "anonymous", "user_token", "fiscal_late"] : [];
  const [paid, keyed, ...counted] = await Promise.all([
    runScenario({ build, scenario: "paid", flows, keyedPays, log }),
    keyedToo ? runScenario({ build, scenario: "paid", flows, keyedPays: true, log, port: PORTS.traced + 15 }) : null,
    ...names.map((scenario, i) =>
      runScenario({ build, scenario, flows, keyedPays: false, log, port: PORTS.traced + 10 + i }).catch((err) => {
        // A scenario the gateway cannot run yet (a hold where holds are off) is estimated by the model instead.
        log(`costs (${scenario}): not counted: ${err.message}`);
        return { scenario, error: String(err.message).slice(0, 300) };
      }),
    ),
  ]);
  const others = Object.fromEntries(names.map((scenario, i) => [scenario, counted[i]]));
  const note = (key) =>
    `${flows} partner flows (merchant 1001: create, authorize, pay with OTP${key ? " and an Idempotency-Key" : ""}) on the traced gateway, rule 10's windows shortened (the tid's ${SHORT_WINDOW_DAYS} days, the events' ${EVENT_WINDOW_MS / 1000} s, past the drain's mark, the record's ${RECORD_WINDOW_MS / 1000} s); cumulative counts per flow at each point`;
  return {
    note: note(keyedPays),
    keyed_pays: keyedPays,
    ...paid,
    ...(scenarios ? { scenarios: others } : {}),
    ...(pacedCounts ? { paced: pacedCounts } : {}),
    ...(keyed ? { keyed: { note: note(true), keyed_pays: true, ...keyed } } : {}),
  };
}
