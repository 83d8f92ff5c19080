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
 * tid rows and the events, and each record object deleting itself. Three
 * snapshots per flow: `answered` (the three calls and what they set off),
 * `delivered` (every event at the receiver), `ended` (retention and the
 * objects' own deletion done). Not counted: an object's `deleteAll()` (it
 * runs no `sql.exec`; Cloudflare does not document it as rows written).
 *
 * `keyedPays`: every pay carries an Idempotency-Key (rule 11), so that the
 * same flows with and without keys say what a key costs over a payment's life.
 */
import http from "node:http";
import { join } from "node:path";
import { HOST, PORTS } from "./config.mjs";
import { post as partnerPost } from "./events.mjs";
import { startReceiver } from "./receiver.mjs";
import { applyMigrations, startRuntime, workerFromBuild } from "./runtime.mjs";

/** Every window of rule 10 in days: ~1.7 s (the cron is fired by hand, after them). */
const SHORT_WINDOW_DAYS = "0.00002";
const WINDOW_MS = Number(SHORT_WINDOW_DAYS) * 86_400_000;

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

/** Waits until the counters stop moving for `quietMs` (what the flows set off has finished), at most `limitMs`. */
async function settle(runtime, quietMs, limitMs, until = () => true) {
  const started = Date.now();
  let last = JSON.stringify(await getJson(`${runtime.url}/__bench/counters`));
  let quietSince = Date.now();
  while (Date.now() - started < limitMs) {
    await sleep(250);
    const now = JSON.stringify(await getJson(`${runtime.url}/__bench/counters`));
    if (now !== last) {
      last = now;
      quietSince = Date.now();
    } else if (Date.now() - quietSince >= quietMs && until()) return;
  }
}

/**
 * Builds the traced gateway into `dir` with `wrangler` (capacity.mjs's runner) and counts `flows` partner
 * flows (merchant 1001: create, authorize with tok_sandbox_ok, pay with OTP 111111; with `keyedPays`, each pay
 * with its own Idempotency-Key).
 */
export async function countFlowCosts({ wrangler, root, benchDir, dir, name, flows = 20, keyedPays = false, log = () => {} }) {
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
  const build = { config: join(root, "wrangler.toml"), env: "dev", name, module: join(outdir, "traced-gateway.js") };
  const worker = workerFromBuild(build);
  worker.bindings = {
    ...worker.bindings,
    WEBHOOK_URL: `http://${HOST}:${PORTS.receiver}/webhooks`,
    TID_REPLAY_DAYS: SHORT_WINDOW_DAYS,
    TID_RETENTION_DAYS: SHORT_WINDOW_DAYS,
    EVENTS_DELIVERED_RETENTION_DAYS: SHORT_WINDOW_DAYS,
    EVENTS_UNDELIVERED_RETENTION_DAYS: SHORT_WINDOW_DAYS,
    RECORD_RETENTION_DAYS: SHORT_WINDOW_DAYS,
  };
  const receiver = await startReceiver(PORTS.receiver);
  const runtime = await startRuntime({ key: "costs", workers: [worker], port: PORTS.traced });
  try {
    await applyMigrations(runtime, build);
    await getJson(`${runtime.url}/__bench/counters?reset`);
    const linesAtStart = runtime.logs.lines;
    const snapshots = {};
    const snap = async (name) => {
      snapshots[name] = { ...(await getJson(`${runtime.url}/__bench/counters`)), log_lines: runtime.logs.lines - linesAtStart };
    };

    for (let i = 0; i < flows; i++) {
      const tid = `costs-${Date.now()}-${i}`;
      const created = await partnerPost(undefined, runtime.url, "receipt/create", { tid, amount: 150000, merchant_id: 1001, account: [] });
      if (created.status !== 200) throw new Error(`costs: create answered ${created.status} ${created.body}`);
      const { id } = JSON.parse(created.body);
      const card = { token: "tok_sandbox_ok" };
      const authorized = await partnerPost(undefined, runtime.url, "receipt/authorize", { id, card });
      if (authorized.status !== 200) throw new Error(`costs: authorize answered ${authorized.status} ${authorized.body}`);
      const key = keyedPays ? { "idempotency-key": `${tid}-pay` } : {};
      const paid = await partnerPost(undefined, runtime.url, "receipt/pay", { id, card, otp: "111111" }, key);
      if (paid.status !== 200) throw new Error(`costs: pay answered ${paid.status} ${paid.body}`);
    }
    await settle(runtime, 1000, 20_000);
    await snap("answered");
    // Two events a flow (receipt.created, receipt.paid), at the receiver.
    await settle(runtime, 1500, 60_000, () => receiver.received() >= 2 * flows);
    await snap("delivered");
    log(`costs: ${flows} flows answered, ${receiver.received()} events delivered`);

    // Past every window: the records delete themselves (their alarms), and each cron run removes what fell due.
    await sleep(2 * WINDOW_MS + 1000);
    const gateway = await runtime.mf.getWorker(build.name);
    for (let run = 0; run < 3; run++) {
      await gateway.scheduled({ cron: "* * * * *", scheduledTime: new Date() });
      await settle(runtime, 1000, 20_000);
    }
    await snap("ended");
    // What the whole life left behind in D1 (the tid index and the event log should be empty).
    const db = await runtime.mf.getD1Database("DB", build.name);
    const left = {};
    for (const table of ["tid_index", "events"]) left[table] = (await db.prepare(`SELECT count(*) AS n FROM ${table}`).first()).n;

    const per = (n) => Math.round((n / flows) * 100) / 100;
    const perFlow = ({ rows_written_by: _by, ...counts }) => Object.fromEntries(Object.entries(counts).map(([key, n]) => [key, per(n)]));
    const byStatement = (rows) => Object.fromEntries(Object.entries(rows).map(([what, n]) => [what, per(n)]));
    return {
      note: `${flows} partner flows (merchant 1001: create, authorize, pay with OTP${keyedPays ? " and an Idempotency-Key" : ""}) on the traced gateway, every rule-10 window ${SHORT_WINDOW_DAYS} days; cumulative counts per flow at each point`,
      flows,
      keyed_pays: keyedPays,
      events_delivered: receiver.received(),
      rows_left_in_d1: left,
      per_flow: { answered: perFlow(snapshots.answered), delivered: perFlow(snapshots.delivered), ended: perFlow(snapshots.ended) },
      // Where the rows written of a whole life go, per flow: by statement (its verb and table).
      rows_written_per_flow_by_statement: {
        d1: byStatement(snapshots.ended.rows_written_by.d1),
        object: byStatement(snapshots.ended.rows_written_by.object),
      },
    };
  } finally {
    await runtime.stop();
    receiver.server.close();
  }
}
