/**
 * The capacity model (docs/capacity.md): a year at 1,000,000 and 10,000,000
 * creates a day, from the sizes and counts a capacity run measured, priced
 * with Cloudflare's published prices and held against its published limits.
 *
 *   ./node_modules/.bin/node bench/capacity-model.mjs                     # the newest results/capacity-*.json
 *   ./node_modules/.bin/node bench/capacity-model.mjs --from bench/results/capacity-<date>.json
 *   ./node_modules/.bin/node bench/capacity-model.mjs --markdown          # docs/capacity.md's table
 *
 * bench/capacity.mjs runs it on what it has just measured and stores the
 * model in its report, so a rerun after the bytes change (a smaller record
 * object, a smaller tid row) updates every number here. What is measured
 * comes from the run's JSON: bytes per tid row and event row (dbstat, pages
 * as production keeps them: no VACUUM ever runs; a tid
 * row keeps no answer and is only ever deleted), a record object's file after
 * create-authorize-pay, and D1 rows written per create and per event
 * (meta.rows_written). What is not measured (yet) is marked `estimated` in
 * the output, with the reason.
 *
 * Rule 11's Idempotency-Key is the caller's choice, so the bill is priced
 * without it, and `keyed_pay` says what it adds were every pay to carry one:
 * the object rows written per payment with and without a key on its pay, by
 * the same counted flows (the run's `costs_keyed_pay` against `costs`).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { RESULTS_DIR } from "./lib/config.mjs";

/** Each price and limit with the page that publishes it (Workers Paid, read 2026-11). */
export const PRICES = {
  workers: {
    page: "https://developers.cloudflare.com/workers/platform/pricing/",
    base: 5,
    requests: { included: 10e6, perMillion: 0.3 },
    cpuMs: { included: 30e6, perMillion: 0.02 },
  },
  durableObjects: {
    page: "https://developers.cloudflare.com/durable-objects/platform/pricing/",
    requests: { included: 1e6, perMillion: 0.15 },
    gbSeconds: { included: 400e3, perMillion: 12.5 },
    rowsWritten: { included: 50e6, perMillion: 1.0 },
    storageGbMonth: { included: 5, perGb: 0.2 },
  },
  d1: {
    page: "https://developers.cloudflare.com/d1/platform/pricing/",
    rowsRead: { included: 25e9, perMillion: 0.001 },
    rowsWritten: { included: 50e6, perMillion: 1.0 },
    storageGbMonth: { included: 5, perGb: 0.75 },
  },
  queues: { page: "https://developers.cloudflare.com/queues/platform/pricing/", operations: { included: 1e6, perMillion: 0.4 }, perMessage: 3 },
  logs: {
    page: "https://developers.cloudflare.com/workers/observability/logs/workers-logs/#pricing",
    events: { included: 20e6, perMillion: 0.6 },
  },
};

export const LIMITS = {
  d1: {
    page: "https://developers.cloudflare.com/d1/platform/limits/",
    databaseBytes: 10e9,
    accountBytes: 1e12,
    databasesPerAccount: 50_000,
    queriesPerInvocation: 1000,
  },
  workers: { page: "https://developers.cloudflare.com/workers/platform/limits/", connectionsPerInvocation: 6 },
  queues: { page: "https://developers.cloudflare.com/queues/platform/limits/", messagesPerSecond: 5000, consumerInvocations: 250 },
};

/** The deployment's defaults (src/retention.ts; rule 10's RECORD_RETENTION_DAYS) and the traffic's shape. */
export const ASSUMPTIONS = {
  replayDays: 7,
  tidRetentionDays: 90,
  deliveredEventsDays: 7,
  recordRetentionDays: 90,
  /** D1 databases are filled to this share of their 10 GB: room for a backlog and for growth. */
  databaseFill: 0.6,
  /** Peak over average (the bench's 200 creates/s at peak for 1,000,000 a day: ~17x). */
  peakFactor: 17.3,
  /** Requests to the gateway per flow: create, authorize, pay, and the queue consumer's share. */
  workerRequestsPerFlow: 3.3,
  /** Requests to a record object per flow: create's init, authorize, pay, the outbox alarm. */
  objectRequestsPerFlow: 4,
  /** Workers Logs lines per flow: one per invocation, per upstream call, per event delivered. */
  logEventsPerFlow: 10,
  /** CPU per flow, *assumed*: `npm run bench` measures ~12.8 ms of local workerd CPU over the three calls, D1's simulator and the sandbox included (bench/results/latest.md). */
  cpuMsPerFlow: 10,
  /** Per request to an object, awaiting the upstream at 128 MB, hibernation-eligible between calls: the estimate used when a run counted no requests. */
  objectGbSecondsPerRequest: 0.5 * 0.125,
  /**
   * Duration as it is spent: an object is billed while it runs or awaits, at 128 MB. Per flow: the
   * payment service's calls made from the objects (authorize, pay; the create's is the Worker's), *assumed* 300 ms
   * each, and *assumed* 20 ms for each other request (init, alarms: storage and a D1 statement at most).
   */
  objectUpstreamCallsPerFlow: 2,
  upstreamSeconds: 0.3,
  objectRequestSeconds: 0.02,
  objectMemoryGb: 0.125,
  /** Workers Logs invocation logs (wrangler.toml [observability.logs] invocation_logs): off. */
  invocationLogs: false,
  /** Events delivered per second by one consumer invocation (wrangler.toml: 12 a batch, six at a time, 200 ms receiver). */
  deliveriesPerInvocation: 26,
};

/**
 * Object rows a key on a pay writes, counted from the code for a run that did
 * not count them: src/record/keys.ts's `open` (one row, in the write-ahead
 * note's commit) and `answer` (that row updated with the answer, in the
 * outcome's commit). The record's deletion removes it with the rest (rule 10).
 */
const KEYED_PAY_ROWS_FROM_CODE = 2;

const DAY = 86_400;
const MONTH_DAYS = 30.4;
const GB = 1e9;
const round = (value, digits = 0) => Math.round(value * 10 ** digits) / 10 ** digits;
const over = (used, { included, perMillion }) => (Math.max(0, used - included) / 1e6) * perMillion;

/** What a capacity run measured, as the model reads it (null where the run has no such figure). */
export function measuredOf(report) {
  const rows = report.bytes_per_row;
  // The tid row of migrations/0001_initial.sql (no answer), in pages; an earlier run's row with its answer otherwise.
  const tidRow = (side) => (side.row ?? side.with_answer).total;
  const withAnswer = (tidRow(rows.partner) + tidRow(rows.user)) / 2;
  const run = report.throughput?.at(-1) ?? {};
  const perEvent = run.d1_rows_written_per_event ?? {};
  // The whole life of a flow, counted by the traced gateway (bench/lib/costs.mjs), when the run has it.
  const life = report.costs?.per_flow?.ended ?? null;
  // The same flows with an Idempotency-Key on each pay (rule 11), when the run counted them.
  const keyed = life ? (report.costs_keyed_pay?.per_flow?.ended ?? null) : null;
  const keyedBy = report.costs_keyed_pay?.rows_written_per_flow_by_statement?.object ?? {};
  return {
    source: report.date,
    counted: life !== null,
    d1RowsWrittenPerFlow: life?.d1_rows_written ?? null,
    workerRequestsPerFlow: life?.worker_invocations ?? null,
    objectRequestsPerFlow: life?.object_requests ?? null,
    queueMessagesPerFlow: life?.queue_messages ?? null,
    // Workers Logs bills every log event: each line written, and each invocation's own log where those are on
    // (wrangler.toml turns them off: ASSUMPTIONS.invocationLogs).
    logEventsPerFlow: life ? life.log_lines + (ASSUMPTIONS.invocationLogs ? life.worker_invocations + life.object_requests : 0) : null,
    tidRowBytes: withAnswer,
    eventRowBytes: rows.event.total,
    eventsPerFlow: rows.event.per_flow,
    recordObjectBytes: report.shape.record_object.file_bytes.median,
    d1RowsWrittenPerCreate: run.d1_rows_written_per_create ?? null,
    d1RowsWrittenPerEvent: (perEvent.logged ?? 0) + (perEvent.delivered ?? 0) + (perEvent.pruned ?? 0),
    // The object's own cursors (rowsWritten), when the run measured them; otherwise rows held x 2 (written, then updated or deleted).
    objectRowsWrittenPerFlow:
      life?.object_rows_written ??
      report.shape.record_object.rows_written_per_flow ??
      2 * Object.values(report.shape.record_object.typical_rows ?? {}).reduce((sum, n) => sum + n, 0),
    objectRowsWrittenMeasured: life !== null || report.shape.record_object.rows_written_per_flow !== undefined,
    // What a key on the pay adds per payment: the flows with keys against the same flows without.
    keyedPay: keyed
      ? {
          measured: true,
          objectRowsWritten: round(keyed.object_rows_written - life.object_rows_written, 2),
          d1RowsWritten: round(keyed.d1_rows_written - life.d1_rows_written, 2),
          // Of which the key's own table's statements (the rest would be a change of path the key made).
          idempotencyRowsWritten: round(
            Object.entries(keyedBy)
              .filter(([what]) => /\bidempotency$/i.test(what))
              .reduce((sum, [, n]) => sum + n, 0),
            2,
          ),
        }
      : { measured: false, objectRowsWritten: KEYED_PAY_ROWS_FROM_CODE, d1RowsWritten: 0, idempotencyRowsWritten: KEYED_PAY_ROWS_FROM_CODE },
  };
}

/** The model at `perDay` creates a day; `recordsDeleted`: whether record objects end (rule 10) or are kept for ever. */
export function model(measured, perDay, { recordsDeleted = true } = {}) {
  const a = ASSUMPTIONS;
  const perMonth = perDay * MONTH_DAYS;
  // D1 in the steady state: tid rows for their whole window at their full size (no VACUUM), delivered events for theirs.
  const tidBytes = perDay * a.tidRetentionDays * measured.tidRowBytes;
  const eventBytes = perDay * a.deliveredEventsDays * measured.eventsPerFlow * measured.eventRowBytes;
  const d1Bytes = tidBytes + eventBytes;
  const databases = Math.ceil(d1Bytes / (LIMITS.d1.databaseBytes * a.databaseFill));
  // Record objects: held for RECORD_RETENTION_DAYS, or (were they kept for ever) a year's worth in month 12.
  const objectBytesMonth12 = perDay * (recordsDeleted ? a.recordRetentionDays : 365) * measured.recordObjectBytes;

  const d1RowsWritten =
    perMonth * (measured.d1RowsWrittenPerFlow ?? measured.d1RowsWrittenPerCreate + measured.eventsPerFlow * measured.d1RowsWrittenPerEvent);
  const objectRequests = perMonth * (measured.objectRequestsPerFlow ?? a.objectRequestsPerFlow);
  const workerRequests = perMonth * (measured.workerRequestsPerFlow ?? a.workerRequestsPerFlow);
  const queueMessages = perMonth * (measured.queueMessagesPerFlow ?? measured.eventsPerFlow);
  const logEvents = perMonth * (measured.logEventsPerFlow ?? a.logEventsPerFlow);
  const p = PRICES;
  const bill = {
    workers_paid_base: p.workers.base,
    workers_requests: over(workerRequests, p.workers.requests),
    workers_cpu: over(perMonth * a.cpuMsPerFlow, p.workers.cpuMs),
    do_requests: over(objectRequests, p.durableObjects.requests),
    do_duration: over(
      measured.counted
        ? perMonth *
            a.objectMemoryGb *
            (a.objectUpstreamCallsPerFlow * a.upstreamSeconds +
              (measured.objectRequestsPerFlow - a.objectUpstreamCallsPerFlow) * a.objectRequestSeconds)
        : objectRequests * a.objectGbSecondsPerRequest,
      p.durableObjects.gbSeconds,
    ),
    do_rows_written: over(perMonth * measured.objectRowsWrittenPerFlow, p.durableObjects.rowsWritten),
    do_storage: Math.max(0, objectBytesMonth12 / GB - p.durableObjects.storageGbMonth.included) * p.durableObjects.storageGbMonth.perGb,
    d1_rows_written: over(d1RowsWritten, p.d1.rowsWritten),
    d1_storage: Math.max(0, d1Bytes / GB - p.d1.storageGbMonth.included) * p.d1.storageGbMonth.perGb,
    queues: over(queueMessages * p.queues.perMessage, p.queues.operations),
    workers_logs: over(logEvents, p.logs.events),
  };
  const total = Object.values(bill).reduce((sum, v) => sum + v, 0);
  // Rule 11: the same month with an Idempotency-Key on every pay (one pay a payment); only rows written move.
  const key = measured.keyedPay;
  const keyedPayAdds =
    over(perMonth * (measured.objectRowsWrittenPerFlow + key.objectRowsWritten), p.durableObjects.rowsWritten) -
    bill.do_rows_written +
    over(d1RowsWritten + perMonth * key.d1RowsWritten, p.d1.rowsWritten) -
    bill.d1_rows_written;

  // Each limit, and the volume or day at which it binds.
  const peakEventsPerSecond = (perDay / DAY) * a.peakFactor * measured.eventsPerFlow;
  const dailyD1Growth = perDay * (measured.tidRowBytes + measured.eventsPerFlow * measured.eventRowBytes);
  const limits = [
    {
      limit: `D1 storage per account (${LIMITS.d1.accountBytes / 1e12} TB)`,
      page: LIMITS.d1.page,
      use: `${round(d1Bytes / GB)} GB in the steady state`,
      binds: d1Bytes >= LIMITS.d1.accountBytes ? `day ${Math.ceil(LIMITS.d1.accountBytes / dailyD1Growth)}` : null,
      binds_at_per_day: round((perDay * LIMITS.d1.accountBytes) / d1Bytes, -5),
    },
    {
      limit: `Queues throughput per queue (${LIMITS.queues.messagesPerSecond.toLocaleString("en")} messages/s)`,
      page: LIMITS.queues.page,
      use: `${round(peakEventsPerSecond)} events/s at peak`,
      binds: peakEventsPerSecond >= LIMITS.queues.messagesPerSecond ? "at peak" : null,
      binds_at_per_day: round((perDay * LIMITS.queues.messagesPerSecond) / peakEventsPerSecond, -5),
    },
    {
      limit: `Queues consumer invocations (${LIMITS.queues.consumerInvocations})`,
      page: LIMITS.queues.page,
      use: `${Math.ceil(peakEventsPerSecond / a.deliveriesPerInvocation)} at peak to a 200 ms receiver`,
      binds: peakEventsPerSecond / a.deliveriesPerInvocation > LIMITS.queues.consumerInvocations ? "at peak" : null,
      binds_at_per_day: round((perDay * LIMITS.queues.consumerInvocations * a.deliveriesPerInvocation) / peakEventsPerSecond, -5),
    },
    {
      limit: `D1 database size (${LIMITS.d1.databaseBytes / GB} GB)`,
      page: LIMITS.d1.page,
      use: `${databases} databases at ${a.databaseFill * 100}%`,
      binds: databases > 1 ? `day ${Math.ceil((LIMITS.d1.databaseBytes * a.databaseFill) / dailyD1Growth)} with one database` : null,
      binds_at_per_day: round((perDay * LIMITS.d1.databaseBytes * a.databaseFill) / d1Bytes, -3),
    },
  ];
  // Beyond the one database's size (which sharding answers): the account's limits, and the volume each binds at.
  const accountLimits = limits.filter((l) => !l.limit.startsWith("D1 database size")).sort((x, y) => x.binds_at_per_day - y.binds_at_per_day);
  return {
    per_day: perDay,
    record_objects_end: recordsDeleted,
    steady_state: {
      d1_gb: round(d1Bytes / GB, 1),
      tid_index_gb: round(tidBytes / GB, 1),
      event_log_gb: round(eventBytes / GB, 1),
      // Steady-state bytes over a month's (30 days') receipts: docs/capacity.md's "D1 bytes per receipt".
      d1_bytes_per_receipt: round(d1Bytes / (perDay * 30)),
      record_objects_tb_month_12: round(objectBytesMonth12 / 1e12, 2),
    },
    databases,
    bill_month_12: Object.fromEntries(Object.entries(bill).map(([k, v]) => [k, round(v)])),
    bill_month_12_total: round(total),
    keyed_pay: {
      object_rows_written_per_pay: key.objectRowsWritten,
      of_which_idempotency_table: key.idempotencyRowsWritten,
      d1_rows_written_per_pay: key.d1RowsWritten,
      counted: key.measured,
      bill_month_12_added: round(keyedPayAdds),
    },
    limits,
    // The first limit that binds beyond the database size (which sharding answers): the one that stops growth.
    first_binding_limit:
      limits.find((l) => l.binds && !l.limit.startsWith("D1 database size"))?.limit ??
      `one database's size (${limits.at(-1).binds ?? "never"}; sharding answers it); next: ${accountLimits[0].limit} at ~${(accountLimits[0].binds_at_per_day / 1e6).toLocaleString("en")}M a day`,
    estimated: [
      measured.counted
        ? "CPU and duration per flow (ASSUMPTIONS); requests, rows written, queue messages and log events are counted (bench/lib/costs.mjs)"
        : "requests, CPU, duration and log lines per flow (ASSUMPTIONS: not counted by this run)",
      ...(measured.objectRowsWrittenMeasured
        ? []
        : ["record object rows written: rows held after the flow x 2 (the run did not count the object's cursors)"]),
      ...(key.measured
        ? []
        : [`rows a key on the pay writes: ${KEYED_PAY_ROWS_FROM_CODE}, counted from src/record/keys.ts (the run did not count flows with keys)`]),
    ],
  };
}

/** The newest capacity run's report in bench/results. */
export function newestReport() {
  const files = readdirSync(RESULTS_DIR)
    .filter((f) => /^capacity-.*\.json$/.test(f))
    .sort();
  if (files.length === 0) throw new Error("no bench/results/capacity-*.json: run bench/capacity.mjs first");
  return join(RESULTS_DIR, files.at(-1));
}

/** The model at 1,000,000 and 10,000,000 creates a day, with record objects ending (rule 10) and, for comparison, kept for ever. */
export function capacityModel(report) {
  const measured = measuredOf(report);
  return {
    measured,
    prices: PRICES,
    limits: LIMITS,
    assumptions: ASSUMPTIONS,
    volumes: [1e6, 1e7].map((perDay) => ({
      kept_for_ever: model(measured, perDay, { recordsDeleted: false }),
      records_end: model(measured, perDay, { recordsDeleted: true }),
    })),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const from = args.includes("--from") ? args[args.indexOf("--from") + 1] : newestReport();
  const result = capacityModel(JSON.parse(readFileSync(from, "utf8")));
  if (!args.includes("--markdown")) console.log(JSON.stringify({ from, ...result }, null, 2));
  else {
    const rows = [
      ["D1 steady state (GB)", (m) => m.steady_state.d1_gb],
      ["D1 bytes per receipt", (m) => m.steady_state.d1_bytes_per_receipt],
      ["D1 databases (60% of 10 GB)", (m) => m.databases],
      ["record objects, month 12 (TB)", (m) => m.steady_state.record_objects_tb_month_12],
      ["bill in month 12 ($)", (m) => m.bill_month_12_total],
      [
        "an Idempotency-Key on every pay: object rows written per pay, month-12 bill added ($)",
        (m) => `${m.keyed_pay.object_rows_written_per_pay}${m.keyed_pay.counted ? "" : " (from the code)"}, +${m.keyed_pay.bill_month_12_added}`,
      ],
      ["first binding limit", (m) => m.first_binding_limit],
    ];
    console.log(`from ${from}\n`);
    console.log("| | 1M/day, objects kept | 1M/day, objects end | 10M/day, objects kept | 10M/day, objects end |\n|---|---:|---:|---:|---:|");
    for (const [name, pick] of rows) {
      console.log(`| ${name} | ${result.volumes.flatMap((v) => [pick(v.kept_for_ever), pick(v.records_end)]).join(" | ")} |`);
    }
    for (const v of result.volumes) console.log(`\n${v.records_end.per_day}/day, objects end:`, JSON.stringify(v.records_end.bill_month_12));
  }
}
