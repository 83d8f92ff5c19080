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
 *
 * Rule 14's fiscal-late payments (the fiscal data operator answers late) are
 * ASSUMPTIONS `fiscalLateShare` of the payments; what one adds over a paid
 * payment is the run's `fiscal_late` flow less its paid flow where the run
 * counted it, estimated from the code otherwise (FISCAL_LATE_FROM_CODE), and
 * `fiscal` says what it adds to the bill.
 *
 * The bill is priced as Cloudflare bills it: every meter of every product a
 * payment touches, each line with its page. Payments are a mix (ASSUMPTIONS
 * `mix`): paid, abandoned (never paid, expired by rule 12) and held never
 * confirmed, each counted over its whole life by the traced run where the
 * gateway completes it, estimated from the contract where it does not yet.
 * The cron is priced per run (every minute, whatever the traffic). `floor` is
 * the same model for the cheapest any design could be, so that each line of
 * the shipped bill stands against what it must cost at least.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { unstable_readConfig } from "wrangler";
import { RESULTS_DIR, ROOT } from "./lib/config.mjs";

/** Each price and limit with the page that publishes it (Workers Paid, read 2026-11-27). */
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
    // Duration at 128 MB (0.128 GB) an active object, whatever it uses; alarm invocations are requests.
    gbSeconds: { included: 400e3, perMillion: 12.5 },
    // SQLite backend: each setAlarm() is billed as a row written, deletes are counted as rows written.
    rowsRead: { included: 25e9, perMillion: 0.001 },
    rowsWritten: { included: 50e6, perMillion: 1.0 },
    storageGbMonth: { included: 5, perGb: 0.2 },
  },
  d1: {
    page: "https://developers.cloudflare.com/d1/platform/pricing/",
    rowsRead: { included: 25e9, perMillion: 0.001 },
    rowsWritten: { included: 50e6, perMillion: 1.0 },
    storageGbMonth: { included: 5, perGb: 0.75 },
  },
  queues: {
    page: "https://developers.cloudflare.com/queues/platform/pricing/",
    operations: { included: 1e6, perMillion: 0.4 },
    // A write, a read and a delete per message (under 64 KB); each retry is one more read; a dead letter one more write.
    perMessage: 3,
  },
  // Workers Logs until 30 November 2026: per log event.
  logs: {
    page: "https://developers.cloudflare.com/workers/observability/logs/workers-logs/#pricing",
    events: { included: 20e6, perMillion: 0.6 },
  },
  // From 1 December 2026 Workers Logs uses Cloudflare Observability pricing: ingestion (the event body with its
  // enriched attributes, before compression) and storage (GB-month: each day's queryable GB / 30; seven days kept).
  observability: {
    page: "https://developers.cloudflare.com/observability/pricing/",
    from: "2026-12-01",
    ingestionGb: { included: 50, perGb: 0.25 },
    storageGbMonth: { included: 12, perGb: 0.1 },
    retentionDays: 7,
  },
};

/** Workers Analytics Engine (the METRICS binding, src/metrics/metrics.ts): data points written, Workers Paid. */
PRICES.analyticsEngine = {
  page: "https://developers.cloudflare.com/analytics/analytics-engine/pricing/",
  dataPoints: { included: 10e6, perMillion: 0.25 },
};

/** R2 (rules 15 and 16: the audit trail and the statements), Standard storage. */
PRICES.r2 = {
  page: "https://developers.cloudflare.com/r2/pricing/",
  storageGbMonth: { included: 10, perGb: 0.015 },
  classA: { included: 1e6, perMillion: 4.5 },
  classB: { included: 10e6, perMillion: 0.36 },
};

export const LIMITS = {
  d1: {
    page: "https://developers.cloudflare.com/d1/platform/limits/",
    databaseBytes: 10e9,
    accountBytes: 1e12,
    databasesPerAccount: 50_000,
    queriesPerInvocation: 1000,
    // "Each individual D1 database is inherently single-threaded, and processes queries one at a time":
    // ~1,000 queries/s at 1 ms a query (the same page's FAQ).
    queriesPerSecondAt1Ms: 1000,
  },
  workers: { page: "https://developers.cloudflare.com/workers/platform/limits/", connectionsPerInvocation: 6 },
  queues: { page: "https://developers.cloudflare.com/queues/platform/limits/", messagesPerSecond: 5000, consumerInvocations: 250 },
};

/** wrangler.toml's [env.production], as wrangler reads it (null when it cannot be read): what production ships, read, not restated. */
let production;
function shippedConfig() {
  if (production === undefined) {
    try {
      production = unstable_readConfig({ config: join(ROOT, "wrangler.toml"), env: "production" }, { hideWarnings: true });
    } catch {
      production = null;
    }
  }
  return production;
}

/** A whole number production's vars set (at least 1), or `fallback`: what the gateway takes when it is unset. */
const shippedCount = (name, fallback) => Number(shippedConfig()?.vars?.[name] ?? fallback) || fallback;

/**
 * The event pagers as shipped (wrangler.toml [env.production] EVENT_PAGERS; src/events/pager.ts's caps): a
 * record's drain hands its events to one, which sends them a page at a time, one queue message a page.
 */
const shippedPagers = () => shippedCount("EVENT_PAGERS", 1);
/**
 * The pagers' caps (src/events/pager.ts), and the drains' calls a second one pager is given at the peak at most:
 * half of the ~1,000 requests a second one object takes (https://developers.cloudflare.com/durable-objects/platform/limits/).
 */
const PAGER = { pageEvents: 16, pageBytes: 60_000, waitSeconds: 1, peakCallsPerSecond: 500 };

/** Pagers at `perDay`: as shipped, or as many as the peak's drains need (a drain a payment's event, at most). */
function pagersAt(perDay, eventsPerPayment) {
  const peakCalls = (perDay * eventsPerPayment * ASSUMPTIONS.peakFactor) / DAY;
  return Math.max(shippedPagers(), Math.ceil(peakCalls / PAGER.peakCallsPerSecond));
}

/** The audit trail's writers as shipped (wrangler.toml [env.production] AUDIT_CHAINS; src/audit/entries.ts: 2 unless set). */
const shippedChains = () => shippedCount("AUDIT_CHAINS", 2);

/**
 * Audit writers at `perDay`: as shipped, or as many as the peak's appends need, at most 500 a second a writer
 * (half of the ~1,000 requests a second one object takes, as for the pagers). AUDIT_CHAINS may grow or shrink
 * while a deployment runs (a writer no longer named flushes what it holds; docs/production.md), so a deployment
 * runs what its traffic needs.
 */
function chainsAt(perDay, appendsPerPayment) {
  const peakAppends = (perDay * appendsPerPayment * ASSUMPTIONS.peakFactor) / DAY;
  return Math.max(shippedChains(), Math.ceil(peakAppends / PAGER.peakCallsPerSecond));
}

/**
 * Events a page carries in production at `perDay` payments a day: what reaches one pager in its wait (the day's
 * average rate over the pagers x 1 s), at most PAGE_EVENTS and what fits in PAGE_BYTES, at least one. The
 * run's own pages (flows back to back on one machine) are not production's and are not used.
 */
function eventsPerPage(perDay, eventsPerPayment, pagers = pagersAt(perDay, eventsPerPayment)) {
  const perPagerPerSecond = (perDay * eventsPerPayment) / DAY / pagers;
  const byBytes = Math.floor(PAGER.pageBytes / ASSUMPTIONS.eventMessageBytes);
  return Math.max(1, Math.min(PAGER.pageEvents, byBytes, perPagerPerSecond * PAGER.waitSeconds));
}

/** The queue consumer's retries, as shipped (wrangler.toml [env.production]): read, not restated. */
function shippedQueueConfig() {
  const consumers = shippedConfig()?.queues?.consumers ?? [];
  const consumer = consumers.find((c) => c.dead_letter_queue) ?? consumers[0];
  if (!consumer) return { maxRetries: 3, deadLetter: true, batchSize: 10 };
  return { maxRetries: consumer.max_retries ?? 3, deadLetter: Boolean(consumer.dead_letter_queue), batchSize: consumer.max_batch_size ?? 10 };
}

/** Whether production makes holds (wrangler.toml [env.production] HOLD_ENABLED): read, not restated. */
function shippedHolds() {
  return String(shippedConfig()?.vars?.HOLD_ENABLED ?? "true") !== "false";
}

/**
 * The share of successful, unremarkable canonical log lines production writes (wrangler.toml [env.production]
 * LOG_SUCCESS_SAMPLE; src/shared/log.ts): read, not restated. Unset or unreadable: 1, as the gateway takes it.
 */
export function shippedLogSample() {
  const text = String(shippedConfig()?.vars?.LOG_SUCCESS_SAMPLE ?? "").trim();
  const n = Number(text);
  return text !== "" && n >= 0 && n <= 1 ? n : 1;
}

/** The mix as production makes it: with holds off (HOLD_ENABLED=false), no hold is left unconfirmed, and their share pays. */
function shippedMix() {
  const { paid, abandoned, hold_expired } = ASSUMPTIONS.mix;
  return shippedHolds() ? ASSUMPTIONS.mix : { paid: paid + hold_expired, abandoned, hold_expired: 0 };
}

/**
 * How long a row of a ring (src/d1/ring.ts: RING_SLOTS 8, a slot taking rows for its window / 6) stays, at most, against
 * its window: a slot is dropped in the period before it is written again, 7 periods after it began, 7/6 of the window.
 */
const RING_KEPT = 7 / 6;

/** The deployment's defaults (src/cron/retention.ts; rule 10's RECORD_RETENTION_DAYS; rule 12's windows) and the traffic's shape. */
export const ASSUMPTIONS = {
  replayDays: 7,
  tidRetentionDays: 90,
  deliveredEventsDays: 7,
  // Rule 10's default since the audit trail is kept in R2 (rule 15): 30 days (90 before).
  recordRetentionDays: 30,
  /** Rule 12's defaults: an unpaid receipt expires after RECEIPT_EXPIRY_HOURS, a hold after HOLD_EXPIRY_DAYS. */
  receiptExpiryHours: 24,
  holdExpiryDays: 7,
  /**
   * What payments become, *assumed*: 20% of receipts are never paid (created and authorized, then expired by
   * rule 12), 5% are holds never confirmed (cancelled by rule 12; production ships HOLD_ENABLED=false, so this
   * share is what a deployment with holds would see), the rest paid. Each record then ends by rule 10.
   */
  mix: { paid: 0.75, abandoned: 0.2, hold_expired: 0.05 },
  /**
   * Rule 13's counters, *assumed*: 30% of payments are made anonymously with a raw card number by a user of the
   * app (anonymous/authorize and anonymous/pay, each counted in the user's object, their use of the card and
   * the OTP send, and in the card's, its user), the rest by token, and every token payment's authorize is a
   * user's call too, counted as an OTP send in the user's object alone, by the token's fingerprint
   * (`tokenByUserShare` 1: the partner backend's calls are exempt and count nothing, so this is the upper end).
   * Each payment's subjects are priced as its own objects, created for it and ended a day later (`riskDaysKept`:
   * a subject's object lives a day after its last use, the longest window, and its alarm's hour); a card or a
   * user that pays again within the day shares its object and costs less. A payment that is never paid is
   * priced with the paid one's counts (its authorize counts the same; it lacks the pay's use of a number).
   */
  anonymousShare: 0.3,
  tokenByUserShare: 1,
  riskDaysKept: 1.04,
  /**
   * With a shard's day split into chunks (src/risk/risk-object.ts), a subject's part is kept until its day's chunk
   * ends, once every use of that day has left its window: the rest of its day, the next day, and the sweep's hour
   * (a day and a half and an hour on average).
   */
  riskChunkDaysKept: 1.54,
  /**
   * Rule 14, *assumed*: 2% of payments are fiscal-late (paid while the fiscal data operator has not answered),
   * their data found by the second scheduled read (1 hour after the payment), none refunded while pending; a
   * receipt whose data never comes would stay listed (and its record kept) until someone chases it: priced as none.
   */
  fiscalLateShare: 0.02,
  /** Hours a fiscal-late receipt stays in the D1 list (until its data is found), and its row's bytes in pages, *estimated*. */
  fiscalListedHours: 1,
  fiscalListRowBytes: 200,
  /** D1 databases are filled to this share of their 10 GB: room for a backlog and for growth. */
  databaseFill: 0.6,
  /**
   * Peak second over the day's average second: docs/capacity.md's design point of 200 creates/s at 1,000,000 a
   * day (~17x). Daily traffic peaks at 2-3x its average in its busiest hour; a payment day's busiest minute
   * (salaries, a sale closing) is several times that again, and the databases, the queue and the consumer must
   * take that minute without queueing for seconds.
   */
  peakFactor: 17.3,
  /** A D1 query's time in its database, *assumed* 1 ms (indexed point reads and writes of one row), and the share of a database's one thread a shard may use at the peak. */
  d1QueryMs: 1,
  d1PeakUtilization: 0.6,
  /** Requests to the gateway per flow: create, authorize, pay, and the queue consumer's share. */
  workerRequestsPerFlow: 3.3,
  /** Requests to a record object per flow: create's init, authorize, pay, the outbox alarm. */
  objectRequestsPerFlow: 4,
  /** Workers Logs lines per flow: one per invocation, per upstream call, per event delivered. */
  logEventsPerFlow: 10,
  /**
   * CPU per flow as Workers bills it, *assumed* from `npm run bench`'s own isolates (the Worker and its objects,
   * what Workers bills; the process's workerd CPU also carries Miniflare's simulators and the sandbox): 4.6 ms a
   * flow in bench/results/latest.md, 5.1-6.4 ms over the three runs in docs/capacity.md. 6 ms keeps room for
   * the work after the flow's slice (the record's later alarms, its end, the queue consumer's deliveries).
   * It was 10, from the process's CPU, simulators included.
   */
  cpuMsPerFlow: 6,
  /** CPU of one cron run, *assumed*: a handful of D1 statements per database visited and one log line. */
  cronCpuMs: 5,
  /** Cron runs a month (wrangler.toml [triggers]: every minute). */
  cronRunsPerDay: 1440,
  /** Databases one cron run visits at most (src/d1/fanout.ts: floor(700 / (6 x RETENTION_ROUNDS + 2)) with the defaults). */
  cronDatabasesPerRun: 21,
  /** Per request to an object, awaiting the upstream at 128 MB: the estimate used when a run counted no requests. */
  objectGbSecondsPerRequest: 0.5 * 0.128,
  /**
   * Duration as it is spent: an object is billed while it runs or awaits, at 128 MB (0.128 GB, as Cloudflare's
   * examples count it). The run measures each object request's wall time and what of it waited on D1, the
   * queue and the upstream; production's waits replace the local ones, *assumed*: the payment service 300 ms a
   * call, a D1 round trip 30 ms (one primary, often in another location), a queue send 10 ms.
   */
  objectUpstreamCallsPerFlow: 2,
  upstreamSeconds: 0.3,
  d1RoundTripSeconds: 0.03,
  queueSendSeconds: 0.01,
  objectRequestSeconds: 0.02,
  objectMemoryGb: 0.128,
  /** Workers Logs invocation logs (wrangler.toml [observability.logs] invocation_logs): off. */
  invocationLogs: false,
  /** Bytes Workers Logs adds to each event, *assumed*: its default enriched attributes (timestamps, the script, request id, trigger, outcome). */
  logEnrichmentBytes: 600,
  /** Bytes of one event's message in a page, *estimated* from the events' bodies (a receipt's object with its ofd, ~1.2 KB). */
  eventMessageBytes: 1200,
  /** Share of webhook messages whose every delivery fails, *assumed*: each is retried max_retries times (wrangler.toml), then dead-lettered. */
  failingDeliveryShare: 0.01,
  /** Events delivered per second by one consumer invocation (wrangler.toml: 12 a batch, six at a time, 200 ms receiver). */
  deliveriesPerInvocation: 26,
  /** The month the bill is for: month 12 from 2026-11-27, so Observability pricing applies to the logs. */
  billMonth: "2027-11",
  /**
   * Rule 11 as apps use it: the typed client (client/) sends an Idempotency-Key on every write, so every pay is
   * priced with one (its rows counted by the run's keyed flows, its storage measured by its keyed records: KEYED_PAY_BYTES
   * for a run that did not).
   */
  keyOnEveryPay: true,
  /** The target at 10,000,000 payments a day. */
  targetMonth12AtTenMillion: 7000,
  /** The target: the month-12 bill at 1,000,000 payments a day, by this model. */
  targetMonth12AtOneMillion: 800,
};

/**
 * What rule 12's expiry adds to a payment that never completes, estimated from the contract for a build that does
 * not expire it yet (the run then sees no record of the scenario end): an alarm when the window runs out (a
 * request, and the alarm set at the create: a row written), the upstream read and cancel (two calls on the
 * alarm's one canonical log line), the write-ahead note and the outcome (2 rows), the event (an outbox row, its
 * logged mark, one queue message, its D1 rows and its batch's log line, at most one), then rule 10's end like a
 * paid record's (its alarm, deleteAll).
 */
const EXPIRY_FROM_CONTRACT = {
  object_requests: 1,
  object_alarm_writes: 1,
  object_rows_written: 4,
  object_upstream_calls: 2,
  object_d1_round_trips: 1,
  object_queue_sends: 1,
  queue_messages: 1,
  events: 1,
  log_lines: 2,
};

/**
 * What a fiscal-late payment adds to a paid one (rule 14), for a run that did not count the `fiscal_late` flow:
 * as the code does it (src/record/fiscal.ts, src/record/wake.ts), its data found by the second of its reads, in
 * the numbers the run of 2026-11-27 21:37 counted where the code alone does not say them (the rows a statement
 * is billed). Two alarm invocations, each setting the alarm that stands for its read, then the next (5 alarm
 * writes beyond the paid record's), each reading the upstream (check-id: the alarm's canonical line each); 4 updates of the
 * record's row (the two reads', and the writes the event's and the list's marks ride on); the D1 list: two
 * upserts (4 rows written) and a deletion (1); and the event's own delivery (one queue message, its D1 rows,
 * its consumer's share, its batch's log line), added from the paid flow's events.
 */
const FISCAL_LATE_FROM_CODE = {
  object_requests: 2,
  // The two alarm invocations' own time, as a paid flow's object requests take (objectRequestSeconds).
  object_wall_ms: 40,
  object_alarm_writes: 5,
  object_rows_written: 4,
  object_rows_read: 4,
  object_upstream_calls: 2,
  object_d1_round_trips: 4,
  object_queue_sends: 1,
  d1_queries: 3,
  d1_rows_written: 5,
  d1_rows_read: 3,
  queue_messages: 1,
  log_lines: 3,
};

/**
 * Object rows a key on a pay writes, counted from the code for a run that did
 * not count them: none of its own. src/record/keys.ts keeps a record's keys
 * in its row (`keys`): the key is opened with the write-ahead note's UPDATE
 * and answered in the settlement's change, one UPDATE, commits the pay makes
 * anyway. (Kept in a table of the record's own, as the releases before did,
 * a keyed pay wrote 5: the table's creation 2, its row opened and answered 2,
 * the row `deleteAll()` removes 1.)
 */
const KEYED_PAY_ROWS_FROM_CODE = 0;

/**
 * The storage a record's keys add, for as long as the record is kept, for a
 * run that did not measure it (one before `shape.record_object_keyed`): the
 * `keys` column of its row with a pay's kept answer as text (the record's
 * body, ~1.6 KB of JSON) spills the row out of its table's page into one
 * overflow page (4 KB): a record paid with a key was 16,384 B, without one
 * 12,288 B. A run measures it: its keyed records' median file against its
 * unkeyed ones' (measuredOf keyedPayBytes).
 */
const KEYED_PAY_BYTES = 4096;

/**
 * Analytics Engine data points a payment writes (src/metrics/metrics.ts), counted from
 * the code: one per call to the payment service (`upstream_call`: the create's,
 * in the Worker, and the record's) and one per webhook delivery attempt
 * (`event_delivery`), each written `successSample` times fewer when it
 * succeeds; failures, refusals and the rest are rare and priced as none.
 */
export const METRICS_FROM_CODE = {
  workerUpstreamCallsPerPayment: 1,
  // src/metrics/metrics.ts SUCCESS_SAMPLE.
  successSample: 10,
};

/** The floor: the least any design could cost a payment (create, authorize, pay through one object that writes its row twice, one log event). */
export const FLOOR = {
  worker_invocations: 3,
  object_requests: 3,
  object_rows_written: 2,
  log_lines: 1,
  object_upstream_calls: 2,
  /** Cloudflare's FAQ: "An empty SQLite database consumes approximately 12 KB of storage" (durable-objects/reference/faq). */
  recordObjectBytes: 12_288,
};

const DAY = 86_400;
const MONTH_DAYS = 30.4;
const GB = 1e9;
const round = (value, digits = 0) => Math.round(value * 10 ** digits) / 10 ** digits;
const over = (used, { included, perMillion }) => (Math.max(0, used - included) / 1e6) * perMillion;
const overGb = (used, { included, perGb }) => Math.max(0, used - included) * perGb;

/** The counters a traced run keeps per flow, with 0 for any an older run lacks. */
const COUNTERS = [
  "worker_invocations",
  "d1_queries",
  "d1_rows_read",
  "d1_rows_written",
  "object_requests",
  "object_rows_written",
  "object_rows_read",
  "object_alarm_writes",
  "object_deletions",
  "object_rows_deleted",
  "object_wall_ms",
  "object_d1_wait_ms",
  "object_d1_round_trips",
  "object_upstream_wait_ms",
  "object_upstream_calls",
  "object_queue_wait_ms",
  "object_queue_sends",
  "queue_messages",
  "pager_requests",
  "log_lines",
  "log_bytes",
];
/** Rule 13's counters a traced run keeps per flow (bench/workers/traced-gateway.ts's `risk_*`). */
const RISK_COUNTERS = [
  "risk_requests",
  "risk_rows_written",
  "risk_rows_read",
  "risk_alarm_writes",
  "risk_deletions",
  "risk_rows_deleted",
  "risk_wall_ms",
  "risk_alarm_runs",
];

/**
 * A shard of rule 13's counters (src/risk/risk-object.ts), whatever the traffic: its alarm at most once an hour
 * (a row written and a request each), and the deletions of each day's chunks once their uses have ended (at most
 * the run's `risk.chunks` a day, the sweep's; before the chunks, a deletion per subject, counted per payment). No
 * guard's put: it kept a shard from the alarm of the release before 030096c, and this code follows 030096c. Under
 * steady traffic a shard never ends, so no `deleteAll`.
 */
const SHARD_DAY = { alarms: 24, guardWrites: 0 };

/**
 * Rule 13's counters per payment (ASSUMPTIONS `anonymousShare`, `tokenByUserShare`), from the run's user flows
 * by card number (`anonymous`) and by token (`user_token`); null when the run counted neither.
 */
function riskOf(report) {
  const a = ASSUMPTIONS;
  const flow = (name) => {
    const counted = report.costs?.scenarios?.[name];
    const ended = counted?.per_flow?.ended;
    if (!ended || !counted.risk) return null;
    return {
      ...Object.fromEntries(RISK_COUNTERS.map((k) => [k, ended[k] ?? 0])),
      objects: counted.risk.subjects_per_flow,
      shards: counted.risk.shards ?? null,
      chunks: counted.risk.chunks ?? 0,
      object_bytes: counted.risk.object_bytes_median ?? 0,
      ended: counted.risk.ended,
      rows_written_by_statement: counted.rows_written_per_flow_by_statement?.risk ?? {},
    };
  };
  const anonymous = flow("anonymous");
  const token = flow("user_token");
  if (!anonymous || !token) return null;
  const shares = [
    [anonymous, a.anonymousShare],
    [token, (1 - a.anonymousShare) * a.tokenByUserShare],
  ];
  const payment = Object.fromEntries([...RISK_COUNTERS, "objects"].map((k) => [k, shares.reduce((sum, [f, share]) => sum + share * f[k], 0)]));
  const objects = shares.reduce((sum, [f, share]) => sum + share * f.objects, 0);
  payment.object_bytes = objects ? shares.reduce((sum, [f, share]) => sum + share * f.objects * f.object_bytes, 0) / objects : 0;
  return { payment, anonymous, user_token: token, ended: anonymous.ended && token.ended, shards: anonymous.shards ?? null, chunks: anonymous.chunks };
}

const CRON_COUNTERS = ["worker_invocations", "d1_queries", "d1_rows_read", "d1_rows_written", "log_lines", "log_bytes"];

/** A scenario's counts per flow over its whole life, less the fixed cost of the cron runs it includes (priced per run). */
function lifeOf(costs) {
  const ended = costs?.per_flow?.ended;
  if (!ended) return null;
  const life = Object.fromEntries(COUNTERS.map((k) => [k, ended[k] ?? 0]));
  const cron = costs.cron;
  if (cron?.empty_run) {
    for (const k of CRON_COUNTERS) life[k] = Math.max(0, life[k] - (cron.runs_in_ended * (cron.empty_run[k] ?? 0)) / costs.flows);
  }
  // The walks' cursors (events_cursors, tid_walk) move once a run a database whenever the log or the tid index holds
  // something new: the run's cron runs over a few flows moved them up to three times a flow, production's once a
  // minute over all its payments. Priced per run (CURSOR_WALKS), not per payment.
  const cursors = costs.rows_written_per_flow_by_statement?.d1 ?? {};
  // A ring's slot made again after its drop (CREATE TABLE, CREATE INDEX: the schema's rows; src/d1/ring.ts) happens once
  // a period a database (15 days at the default windows), whatever the payments: the run's short windows turned the
  // ring many times over a few flows. Not a payment's.
  const rebuilds = Object.entries(cursors)
    .filter(([name]) => /^CREATE (TABLE|(UNIQUE )?INDEX) /.test(name))
    .reduce((sum, [, n]) => sum + n, 0);
  life.d1_rows_written = Math.max(0, life.d1_rows_written - (cursors["UPDATE events_cursors"] ?? 0) - (cursors["UPDATE tid_walk"] ?? 0) - rebuilds);
  // The run writes every line (development's LOG_SUCCESS_SAMPLE of 1) and counts those production samples (they say
  // `sample`): production writes that share of them; the rest (faults, refusals, the gateway's own acts, the cron's)
  // it writes all. A run before the sampling counted none as sampled.
  const drop = 1 - shippedLogSample();
  life.log_lines = Math.max(0, life.log_lines - drop * (ended.log_lines_sampled ?? 0));
  life.log_bytes = Math.max(0, life.log_bytes - drop * (ended.log_bytes_sampled ?? 0));
  return life;
}

/**
 * The walks whose cursor a cron run moves in each database it visits: the event log's sweep and prune
 * (src/events/log-database.ts) and retention's walk of the tid index (src/tids/tid-index.ts pruneTids).
 */
const CURSOR_WALKS = 3;

/** The payment that never completes, with rule 12's expiry estimated where the run did not see it (see EXPIRY_FROM_CONTRACT). */
function withExpiry(life, paid, perEvent) {
  const out = { ...life };
  const e = EXPIRY_FROM_CONTRACT;
  for (const k of Object.keys(e)) if (k in out) out[k] += e[k];
  // Rule 10's end, as the paid record's: its alarm request, the alarm writes and the rows deleteAll removes.
  const ends = paid.object_deletions || 1;
  out.object_requests += 1;
  out.object_alarm_writes += 1;
  out.object_deletions += 1;
  out.object_rows_deleted += paid.object_rows_deleted / ends;
  // The event's D1 rows (logged, delivered, pruned) and queries, its share of a consumer invocation, a log line's bytes.
  out.d1_rows_written += perEvent.d1RowsWritten;
  out.d1_queries += 3;
  out.worker_invocations += perEvent.workerInvocations;
  out.log_bytes += e.log_lines * (paid.log_lines ? paid.log_bytes / paid.log_lines : 200);
  return out;
}

/** The record objects' counters a paced payment of the run prices (bench/lib/costs.mjs countPaced): requests and rows written. */
const PACED_COUNTERS = ["object_requests", "object_rows_written", "object_alarm_writes", "object_deletions", "object_rows_deleted"];

/**
 * The record objects' counts of a paid and an abandoned payment at production's windows and pace, from the
 * run's paced payments (`costs.paced`), where it has them and each ended; null for an older run (the back-to-back
 * flows and AUDIT_FROM_CODE.recordRowsPerPayment price them then).
 */
function pacedOf(report) {
  const paced = report.costs?.paced;
  if (!paced?.paid?.ended || !paced?.abandoned?.ended) return null;
  const counts = (run) => Object.fromEntries(PACED_COUNTERS.map((k) => [k, run.per_flow_ended[k] ?? 0]));
  return { paid: counts(paced.paid), abandoned: counts(paced.abandoned), pace: paced.pace, check: paced.check?.difference ?? null };
}

/** What a capacity run measured, as the model reads it (null where the run has no such figure). */
export function measuredOf(report) {
  const rows = report.bytes_per_row;
  // The tid row of migrations/0001_initial.sql (no answer), in pages; an earlier run's row with its answer otherwise.
  const tidRow = (side) => (side.row ?? side.with_answer).total;
  const withAnswer = (tidRow(rows.partner) + tidRow(rows.user)) / 2;
  const run = report.throughput?.at(-1) ?? {};
  const perEventRows = run.d1_rows_written_per_event ?? {};
  const d1RowsWrittenPerEvent = (perEventRows.logged ?? 0) + (perEventRows.delivered ?? 0) + (perEventRows.pruned ?? 0);
  // The whole life of a flow, counted by the traced gateway (bench/lib/costs.mjs), when the run has it.
  const paid = lifeOf(report.costs);
  const keyedLife = paid ? lifeOf(report.costs_keyed_pay) : null;
  const keyedBy = report.costs_keyed_pay?.rows_written_per_flow_by_statement?.object ?? {};
  const eventsPerFlow = rows.event.per_flow;
  // Per event, from the paid flow: the consumer's share of invocations (beyond the three calls).
  const perEvent = { d1RowsWritten: d1RowsWrittenPerEvent, workerInvocations: paid ? Math.max(0, paid.worker_invocations - 3) / eventsPerFlow : 0.3 };
  // The payments that never complete: counted where the run saw their records end, estimated otherwise.
  const scenarios = {};
  const estimatedScenarios = [];
  for (const name of ["abandoned", "hold_expired"]) {
    const counted = report.costs?.scenarios?.[name];
    const life = lifeOf(counted);
    if (life && counted.ended) scenarios[name] = life;
    else if (life && paid) {
      scenarios[name] = withExpiry(life, paid, perEvent);
      estimatedScenarios.push(
        `${name}: counted up to the expiry; rule 12's expiry and rule 10's end estimated from the contract (the build did not expire it)`,
      );
    } else if (paid) {
      scenarios[name] = paid;
      estimatedScenarios.push(`${name}: not counted by this run; priced as a paid payment`);
    }
  }
  // Rule 14: what a fiscal-late payment adds to a paid one, over both whole lives (counted), or from the code.
  const fiscalCounted = report.costs?.scenarios?.fiscal_late;
  const fiscalLife = lifeOf(fiscalCounted);
  let fiscalLate = null;
  if (fiscalLife && fiscalCounted.ended && paid) {
    fiscalLate = { counted: true, added: Object.fromEntries(COUNTERS.map((k) => [k, Math.max(0, fiscalLife[k] - paid[k])])) };
  } else if (paid) {
    const added = Object.fromEntries(COUNTERS.map((k) => [k, FISCAL_LATE_FROM_CODE[k] ?? 0]));
    // The event's D1 rows and its consumer's share, as the paid flow's events cost; a log line's bytes as its lines'.
    added.d1_rows_written += perEvent.d1RowsWritten;
    added.d1_queries += 3;
    added.worker_invocations += perEvent.workerInvocations;
    added.log_bytes += added.log_lines * (paid.log_lines ? paid.log_bytes / paid.log_lines : 200);
    fiscalLate = { counted: false, added };
  }
  // Cron: one run with nothing due, per database it visited.
  const cron = report.costs?.cron;
  const cronPerRun = cron?.empty_run
    ? {
        databases: cron.databases,
        fixed: { worker_invocations: 1, log_lines: cron.empty_run.log_lines, log_bytes: cron.empty_run.log_bytes },
        perDatabase: {
          d1_queries: cron.empty_run.d1_queries / cron.databases,
          d1_rows_read: cron.empty_run.d1_rows_read / cron.databases,
          d1_rows_written: cron.empty_run.d1_rows_written / cron.databases,
        },
      }
    : null;
  return {
    source: report.date,
    counted: paid !== null,
    // Rule 13's counters per payment (null: the run did not count them).
    risk: riskOf(report),
    // Rule 14: what one fiscal-late payment adds to a paid one (null: no paid flow to add to).
    fiscalLate,
    paid,
    scenarios,
    estimatedScenarios,
    // The record objects' requests and rows of a paid and an abandoned payment at production's pace (null: an older run).
    paced: paid ? pacedOf(report) : null,
    cronPerRun,
    perEvent,
    // Legacy fields (docs and older runs read them): the paid flow's counts.
    d1RowsWrittenPerFlow: paid?.d1_rows_written ?? null,
    workerRequestsPerFlow: paid?.worker_invocations ?? null,
    objectRequestsPerFlow: paid?.object_requests ?? null,
    queueMessagesPerFlow: paid?.queue_messages ?? null,
    logEventsPerFlow: paid ? paid.log_lines + (ASSUMPTIONS.invocationLogs ? paid.worker_invocations + paid.object_requests : 0) : null,
    tidRowBytes: withAnswer,
    eventRowBytes: rows.event.total,
    eventsPerFlow,
    recordObjectBytes: report.shape.record_object.file_bytes.median,
    d1RowsWrittenPerCreate: run.d1_rows_written_per_create ?? null,
    d1RowsWrittenPerEvent,
    // The object's own cursors (rowsWritten), when the run measured them; otherwise rows held x 2 (written, then updated or deleted).
    objectRowsWrittenPerFlow:
      paid?.object_rows_written ??
      report.shape.record_object.rows_written_per_flow ??
      2 * Object.values(report.shape.record_object.typical_rows ?? {}).reduce((sum, n) => sum + n, 0),
    objectRowsWrittenMeasured: paid !== null || report.shape.record_object.rows_written_per_flow !== undefined,
    // What a key on the pay adds to a record's storage: the same flow's records with a keyed pay against those without.
    keyedPayBytes:
      typeof report.shape.record_object_keyed?.file_bytes?.median === "number"
        ? { bytes: Math.max(0, report.shape.record_object_keyed.file_bytes.median - report.shape.record_object.file_bytes.median), measured: true }
        : { bytes: KEYED_PAY_BYTES, measured: false },
    // What a key on the pay adds per payment: the flows with keys against the same flows without.
    keyedPay: keyedLife
      ? {
          measured: true,
          // Deletions are billed as rows written: the key's row, removed with the record (rule 10), is one.
          objectRowsWritten: round(
            keyedLife.object_rows_written +
              keyedLife.object_alarm_writes +
              keyedLife.object_rows_deleted -
              (paid.object_rows_written + paid.object_alarm_writes + paid.object_rows_deleted),
            2,
          ),
          d1RowsWritten: round(keyedLife.d1_rows_written - paid.d1_rows_written, 2),
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

/** A payment's counts, the mix of ASSUMPTIONS applied (the paid flow alone where the run counted nothing else). */
function mixOf(measured) {
  const parts = { paid: measured.paid, ...measured.scenarios };
  const out = Object.fromEntries(COUNTERS.map((k) => [k, 0]));
  let shares = 0;
  for (const [name, share] of Object.entries(shippedMix())) {
    // The record objects' requests and rows at production's pace where the run counted this kind so (paid, abandoned).
    const paced = measured.paced?.[name] ?? {};
    const part = { ...(parts[name] ?? measured.paid), ...paced };
    shares += share;
    for (const k of COUNTERS) out[k] += share * (part[k] ?? 0);
  }
  for (const k of COUNTERS) out[k] /= shares;
  return out;
}

/** Days a record object is kept, averaged over the mix: its life before it is final, then RECORD_RETENTION_DAYS. */
function daysKept() {
  const a = ASSUMPTIONS;
  const before = { paid: 0, abandoned: a.receiptExpiryHours / 24, hold_expired: a.holdExpiryDays };
  let days = 0;
  for (const [name, share] of Object.entries(shippedMix())) days += share * (before[name] + a.recordRetentionDays);
  return days;
}

/** Production seconds an object is active per payment: the run's wall time, its local waits replaced by production's. */
function objectSecondsOf(p) {
  const a = ASSUMPTIONS;
  const ownMs = Math.max(0, p.object_wall_ms - p.object_d1_wait_ms - p.object_upstream_wait_ms - p.object_queue_wait_ms);
  return (
    ownMs / 1000 +
    p.object_upstream_calls * a.upstreamSeconds +
    p.object_d1_round_trips * a.d1RoundTripSeconds +
    p.object_queue_sends * a.queueSendSeconds
  );
}

/**
 * The bill of one month at `perDay` payments a day from `p`, a payment's counts (mixOf), priced line by line.
 * `storage`: the record object's bytes and the D1 bytes in the steady state; `cron`: the run's cost per run (or null).
 */
function bill(p, perDay, { objectBytes, recordsDeleted = true, d1Bytes, databases, cron, risk = null, paced = false }) {
  const a = ASSUMPTIONS;
  const P = PRICES;
  const perMonth = perDay * MONTH_DAYS;
  const queue = shippedQueueConfig();
  // The cron: every minute, each run visiting up to cronDatabasesPerRun databases.
  const runs = cron ? a.cronRunsPerDay * MONTH_DAYS : 0;
  const visited = cron ? Math.min(databases, a.cronDatabasesPerRun) : 0;
  const cronUse = {
    worker_invocations: runs,
    d1_queries: runs * visited * (cron?.perDatabase.d1_queries ?? 0),
    d1_rows_read: runs * visited * (cron?.perDatabase.d1_rows_read ?? 0),
    d1_rows_written: runs * visited * ((cron?.perDatabase.d1_rows_written ?? 0) + (cron ? CURSOR_WALKS : 0)),
    log_lines: runs * (cron?.fixed.log_lines ?? 0),
    log_bytes: runs * (cron?.fixed.log_bytes ?? 0),
    cpu_ms: runs * a.cronCpuMs,
  };
  // Events reach the queue a page at a time when the run's drains went through pagers (pager_requests): a page's
  // size is production's at this scale (eventsPerPage), never the run's. Each pager is active (billed) while a
  // page waits, which at these rates is most of the time.
  const paged = (p.pager_requests ?? 0) > 0;
  const pagers = pagersAt(perDay, p.queue_messages);
  const perPage = paged ? eventsPerPage(perDay, p.queue_messages, pagers) : 1;
  const events = perMonth * p.queue_messages;
  const messages = events / perPage;
  const pagerRequests = paged ? perMonth * p.pager_requests : 0;
  const pagerActiveShare = Math.min(1, ((perDay * p.queue_messages) / DAY / pagers) * PAGER.waitSeconds);
  const pagerGbSeconds = paged ? pagers * MONTH_DAYS * DAY * pagerActiveShare * a.objectMemoryGb : 0;
  // Webhook retries: a message with a failing event is retried max_retries times (a read, the consumer's D1 mark of
  // that event, a log line each), then dead-lettered; a page is retried once whatever number of its events failed.
  const failingEvents = events * a.failingDeliveryShare;
  const failing = messages * (1 - (1 - a.failingDeliveryShare) ** perPage);
  const retries = failing * queue.maxRetries;
  const deadLetterOps = queue.deadLetter ? failing * 3 : 0;
  const queueOps = messages * P.queues.perMessage + retries + deadLetterOps;
  const retryD1Rows = failingEvents * (queue.maxRetries + 1) * (p.d1_rows_written > 0 ? 2 : 0);
  const retryInvocations = (retries + (queue.deadLetter ? failing : 0)) / queue.batchSize;

  const invocationLogEvents = a.invocationLogs ? perMonth * (p.worker_invocations + p.object_requests) + runs : 0;
  const bytesPerLine = p.log_lines ? p.log_bytes / p.log_lines : 200;
  const logEvents = perMonth * p.log_lines + cronUse.log_lines + retries + invocationLogEvents;
  const logBytes = perMonth * p.log_bytes + cronUse.log_bytes + retries * bytesPerLine + logEvents * a.logEnrichmentBytes;
  const logGbMonth = (logBytes / GB / MONTH_DAYS) * P.observability.retentionDays;

  const objectGbSeconds = perMonth * a.objectMemoryGb * objectSecondsOf(p);
  const objectRowsWritten = perMonth * (p.object_rows_written + p.object_alarm_writes + p.object_rows_deleted);
  const objectBytesMonth12 = perDay * (recordsDeleted ? daysKept() : 365) * objectBytes;
  const d1RowsWritten = perMonth * p.d1_rows_written + cronUse.d1_rows_written + retryD1Rows;
  const d1RowsRead = perMonth * p.d1_rows_read + cronUse.d1_rows_read;
  const workerRequests = perMonth * p.worker_invocations + cronUse.worker_invocations + retryInvocations;

  // Rule 13's objects: billed on the same meters as the record objects, so each line is what they add on top of those.
  const r = risk?.payment;
  const objectRowsRead = perMonth * p.object_rows_read;
  // Sharded (risk.shards): a shard's alarms and guard are priced per shard; a payment's are its subjects' own
  // (their puts, their reads of the previous release's objects, their deletion by the sweep). Before the shards
  // each subject's object had its alarm and its deleteAll, per payment.
  const shardsMonth = risk?.shards ? risk.shards * MONTH_DAYS : 0;
  // In a day's chunk a subject is kept until the chunk ends, the day after its day (ASSUMPTIONS riskChunkDaysKept).
  const riskDaysKept = risk?.chunks ? a.riskChunkDaysKept : a.riskDaysKept;
  const riskUse = r
    ? {
        requests: risk.shards ? perMonth * (r.risk_requests - (r.risk_alarm_runs ?? 0)) + shardsMonth * SHARD_DAY.alarms : perMonth * r.risk_requests,
        rowsWritten: risk.shards
          ? perMonth * r.risk_rows_written + shardsMonth * (SHARD_DAY.alarms + SHARD_DAY.guardWrites + risk.chunks)
          : perMonth * (r.risk_rows_written + r.risk_alarm_writes + r.risk_rows_deleted),
        rowsRead: perMonth * r.risk_rows_read,
        gbSeconds: (perMonth * a.objectMemoryGb * r.risk_wall_ms) / 1000,
        gbMonth: (perDay * r.objects * riskDaysKept * r.object_bytes) / GB,
      }
    : null;
  const added = (base, extra, price) => over(base + extra, price) - over(base, price);
  const addedGb = (base, extra, price) => overGb(base + extra, price) - overGb(base, price);
  // The event pagers (src/events/pager.ts): billed on the objects' meters, on top of the records' and rule 13's.
  const pagerLines = paged
    ? [
        {
          line: "pager_do_requests",
          usage: `${round(pagerRequests / 1e6, 1)} M (${p.pager_requests.toFixed(2)} a payment: a drain's call to its pager)`,
          dollars: added(perMonth * p.object_requests + (riskUse?.requests ?? 0), pagerRequests, P.durableObjects.requests),
          page: P.durableObjects.page,
        },
        {
          line: "pager_do_duration",
          usage: `${round(pagerGbSeconds / 1e6, 2)} M GB-s (${pagers} pagers, active ${round(pagerActiveShare * 100)}% of the month at ${a.objectMemoryGb} GB)`,
          dollars: added(objectGbSeconds + (riskUse?.gbSeconds ?? 0), pagerGbSeconds, P.durableObjects.gbSeconds),
          page: P.durableObjects.page,
        },
      ]
    : [];
  const riskLines = riskUse
    ? [
        {
          line: "risk_do_requests",
          usage: risk.shards
            ? `${round(riskUse.requests / 1e6, 1)} M (${(r.risk_requests - (r.risk_alarm_runs ?? 0)).toFixed(2)} a payment: rule 13's subjects, each ${risk.chunks ? "a part of a day's chunk" : "a key"} of one of ${risk.shards} shards; their alarms, ${SHARD_DAY.alarms} a shard a day)`
            : `${round(riskUse.requests / 1e6, 1)} M (${r.risk_requests.toFixed(2)} a payment, alarms included: rule 13's card and user objects)`,
          dollars: added(perMonth * p.object_requests, riskUse.requests, P.durableObjects.requests),
          page: P.durableObjects.page,
        },
        {
          line: "risk_do_duration",
          usage: `${round(riskUse.gbSeconds / 1e6, 2)} M GB-s (${(r.risk_wall_ms / 1000).toFixed(3)} s a payment at ${a.objectMemoryGb} GB)`,
          dollars: added(objectGbSeconds, riskUse.gbSeconds, P.durableObjects.gbSeconds),
          page: P.durableObjects.page,
        },
        {
          line: "risk_do_rows_written",
          usage: risk.shards
            ? `${round(riskUse.rowsWritten / 1e6, 1)} M (${r.risk_rows_written.toFixed(2)} KV puts and deletes a payment; ${SHARD_DAY.alarms + SHARD_DAY.guardWrites + risk.chunks} a shard a day: its alarms${risk.chunks ? `, and its ${risk.chunks} chunks' deletions` : ""})`
            : `${round(riskUse.rowsWritten / 1e6, 1)} M (${r.risk_rows_written.toFixed(2)} SQL and KV + ${r.risk_alarm_writes.toFixed(2)} alarms + ${r.risk_rows_deleted.toFixed(2)} deleted a payment)`,
          dollars: added(objectRowsWritten, riskUse.rowsWritten, P.durableObjects.rowsWritten),
          page: P.durableObjects.page,
        },
        {
          line: "risk_do_rows_read",
          usage: `${round(riskUse.rowsRead / 1e6, 1)} M (${r.risk_rows_read.toFixed(2)} a payment)`,
          dollars: added(objectRowsRead, riskUse.rowsRead, P.durableObjects.rowsRead),
          page: P.durableObjects.page,
        },
        {
          line: "risk_do_storage",
          usage: `${round(riskUse.gbMonth, 2)} GB-month (${r.objects.toFixed(2)} ${risk.shards ? (risk.chunks ? "subjects' parts of chunks" : "subjects' keys") : "objects"} a payment, ${round(r.object_bytes)} B each, ${riskDaysKept} day kept)`,
          dollars: addedGb(objectBytesMonth12 / GB, riskUse.gbMonth, P.durableObjects.storageGbMonth),
          page: P.durableObjects.page,
        },
      ]
    : [];

  const lines = [
    { line: "workers_paid_base", usage: "the Workers Paid plan", dollars: P.workers.base, page: P.workers.page },
    {
      line: "workers_requests",
      usage: `${round(workerRequests / 1e6, 1)} M (${p.worker_invocations.toFixed(2)} a payment, ${round(runs)} cron runs)`,
      dollars: over(workerRequests, P.workers.requests),
      page: P.workers.page,
    },
    {
      line: "workers_cpu",
      usage: `${round((perMonth * a.cpuMsPerFlow + cronUse.cpu_ms) / 1e6)} M ms (assumed ${a.cpuMsPerFlow} ms a payment)`,
      dollars: over(perMonth * a.cpuMsPerFlow + cronUse.cpu_ms, P.workers.cpuMs),
      page: P.workers.page,
    },
    {
      line: "do_requests",
      usage: `${round((perMonth * p.object_requests) / 1e6, 1)} M (${p.object_requests.toFixed(2)} a payment, alarms included${paced ? "; counted at production's pace" : ""})`,
      dollars: over(perMonth * p.object_requests, P.durableObjects.requests),
      page: P.durableObjects.page,
    },
    {
      line: "do_duration",
      usage: `${round(objectGbSeconds / 1e6, 2)} M GB-s (${objectSecondsOf(p).toFixed(2)} s a payment at ${a.objectMemoryGb} GB)`,
      dollars: over(objectGbSeconds, P.durableObjects.gbSeconds),
      page: P.durableObjects.page,
    },
    {
      line: "do_rows_written",
      usage: `${round(objectRowsWritten / 1e6, 1)} M (${p.object_rows_written.toFixed(2)} SQL + ${p.object_alarm_writes.toFixed(2)} alarms + ${p.object_rows_deleted.toFixed(2)} deleted a payment${paced ? "; counted at production's windows and pace, the audit trail's alarms and marks included" : ""})`,
      dollars: over(objectRowsWritten, P.durableObjects.rowsWritten),
      page: P.durableObjects.page,
    },
    {
      line: "do_rows_read",
      usage: `${round((perMonth * p.object_rows_read) / 1e6, 1)} M (${p.object_rows_read.toFixed(2)} a payment)`,
      dollars: over(perMonth * p.object_rows_read, P.durableObjects.rowsRead),
      page: P.durableObjects.page,
    },
    {
      line: "do_storage",
      usage: `${round(objectBytesMonth12 / GB)} GB-month (${round(objectBytes)} B an object, ${round(recordsDeleted ? daysKept() : 365, 1)} days kept)`,
      dollars: overGb(objectBytesMonth12 / GB, P.durableObjects.storageGbMonth),
      page: P.durableObjects.page,
    },
    {
      line: "d1_rows_written",
      usage: `${round(d1RowsWritten / 1e6, 1)} M (${p.d1_rows_written.toFixed(2)} a payment, retries' marks included)`,
      dollars: over(d1RowsWritten, P.d1.rowsWritten),
      page: P.d1.page,
    },
    {
      line: "d1_rows_read",
      usage: `${round(d1RowsRead / 1e6)} M (${p.d1_rows_read.toFixed(2)} a payment, ${round(cronUse.d1_rows_read / 1e6)} M by the cron)`,
      dollars: over(d1RowsRead, P.d1.rowsRead),
      page: P.d1.page,
    },
    { line: "d1_storage", usage: `${round(d1Bytes / GB, 1)} GB`, dollars: overGb(d1Bytes / GB, P.d1.storageGbMonth), page: P.d1.page },
    {
      line: "queues",
      usage: paged
        ? `${round(queueOps / 1e6, 1)} M operations (${p.queue_messages.toFixed(2)} events a payment in pages of ${round(perPage, 1)}: ${(p.queue_messages / perPage).toFixed(3)} messages a payment x 3; ${round((failing / Math.max(messages, 1)) * 100, 1)}% of pages with a failing event x ${queue.maxRetries} retries + dead letter)`
        : `${round(queueOps / 1e6, 1)} M operations (${p.queue_messages.toFixed(2)} messages a payment x 3; ${a.failingDeliveryShare * 100}% failing x ${queue.maxRetries} retries + dead letter)`,
      dollars: over(queueOps, P.queues.operations),
      page: P.queues.page,
    },
    {
      line: "workers_logs_ingestion",
      usage: `${round(logBytes / GB, 1)} GB (${round(logEvents / 1e6, 1)} M events, ${round(bytesPerLine)} B a line + ${a.logEnrichmentBytes} B enrichment)`,
      dollars: overGb(logBytes / GB, P.observability.ingestionGb),
      page: P.observability.page,
    },
    {
      line: "workers_logs_storage",
      usage: `${round(logGbMonth, 1)} GB-month (${P.observability.retentionDays} days kept)`,
      dollars: overGb(logGbMonth, P.observability.storageGbMonth),
      page: P.observability.page,
    },
    ...riskLines,
    ...pagerLines,
  ];
  const cronDollars =
    (cronUse.worker_invocations / Math.max(workerRequests, 1)) * lines[1].dollars +
    (cronUse.d1_rows_read / Math.max(d1RowsRead, 1)) * lines[9].dollars +
    (cronUse.d1_rows_written / Math.max(d1RowsWritten, 1)) * lines[8].dollars +
    (cronUse.cpu_ms / Math.max(perMonth * a.cpuMsPerFlow + cronUse.cpu_ms, 1)) * lines[2].dollars;
  return {
    lines,
    total: lines.reduce((sum, l) => sum + l.dollars, 0),
    riskTotal: riskLines.reduce((sum, l) => sum + l.dollars, 0),
    // The same logs at the per-event price that ends on 30 November 2026, for comparison (not in the total).
    logsPerEventPrice: over(logEvents, P.logs.events),
    cron: {
      runs: round(runs),
      databases_per_run: visited,
      d1_queries: round(cronUse.d1_queries),
      d1_rows_read: round(cronUse.d1_rows_read),
      dollars: round(cronDollars, 2),
    },
    objectBytesMonth12,
    d1QueriesPerMonth: perMonth * p.d1_queries + cronUse.d1_queries,
  };
}

/** The model at `perDay` creates a day; `recordsDeleted`: whether record objects end (rule 10) or are kept for ever. */
export function model(measured, perDay, { recordsDeleted = true } = {}) {
  const a = ASSUMPTIONS;
  // D1 in the steady state: tid rows for their whole window at their full size (no VACUUM), delivered events for theirs,
  // each kept in a ring of slots (src/d1/ring.ts) that drops a slot whole once its youngest row is past the window:
  // a row stays up to RING_KEPT times its window, and the databases are sized for that.
  const tidBytes = perDay * a.tidRetentionDays * RING_KEPT * measured.tidRowBytes;
  const eventBytes = perDay * a.deliveredEventsDays * RING_KEPT * measured.eventsPerFlow * measured.eventRowBytes;
  // Rule 14's list holds a fiscal-late receipt while its data is missing; its event, the delivered events' window.
  const fiscalBytes = measured.fiscalLate
    ? perDay * a.fiscalLateShare * ((a.fiscalListedHours / 24) * a.fiscalListRowBytes + a.deliveredEventsDays * measured.eventRowBytes)
    : 0;
  const d1Bytes = tidBytes + eventBytes + fiscalBytes;
  const withoutFiscal = measured.counted ? mixOf(measured) : legacyCounts(measured);
  // Rule 14: the mix with its fiscal-late share's additions.
  const p = measured.fiscalLate
    ? Object.fromEntries(Object.entries(withoutFiscal).map(([k, v]) => [k, v + a.fiscalLateShare * (measured.fiscalLate.added[k] ?? 0)]))
    : withoutFiscal;
  // Databases: enough for the bytes at the fill, and for the queries at the peak (one query at a time each).
  const databasesBySize = Math.ceil(d1Bytes / (LIMITS.d1.databaseBytes * a.databaseFill));
  const perDatabaseQps = (LIMITS.d1.queriesPerSecondAt1Ms / a.d1QueryMs) * a.d1PeakUtilization;
  const peakPaymentQps = (perDay / DAY) * a.peakFactor * p.d1_queries;
  // The cron's queries spread over the minute; one run visits at most cronDatabasesPerRun databases.
  const cronQps = measured.cronPerRun ? (measured.cronPerRun.perDatabase.d1_queries * a.cronDatabasesPerRun) / 60 : 0;
  const databasesByQueries = Math.ceil((peakPaymentQps + cronQps) / perDatabaseQps);
  const databases = Math.max(1, databasesBySize, databasesByQueries);
  const priced = bill(p, perDay, {
    objectBytes: measured.recordObjectBytes,
    recordsDeleted,
    d1Bytes,
    databases,
    cron: measured.cronPerRun,
    risk: measured.risk,
    paced: measured.paced !== null,
  });
  // Rule 14: the same month without fiscal-late payments, line by line: what they add.
  const unfiscal = measured.fiscalLate
    ? bill(withoutFiscal, perDay, {
        objectBytes: measured.recordObjectBytes,
        recordsDeleted,
        d1Bytes: d1Bytes - fiscalBytes,
        databases,
        cron: measured.cronPerRun,
        risk: measured.risk,
        paced: measured.paced !== null,
      })
    : null;
  const perMonth = perDay * MONTH_DAYS;
  const P = PRICES;

  // Rule 11: the same month with an Idempotency-Key on every pay (one pay a paid payment); only rows written move.
  const key = measured.keyedPay;
  const paidShare = shippedMix().paid + shippedMix().hold_expired;
  const objectRows = perMonth * (p.object_rows_written + p.object_alarm_writes + p.object_rows_deleted);
  const keyedPayAdds =
    over(objectRows + perMonth * paidShare * key.objectRowsWritten, P.durableObjects.rowsWritten) -
    over(objectRows, P.durableObjects.rowsWritten) +
    (key.d1RowsWritten > 0 ? (perMonth * paidShare * key.d1RowsWritten * P.d1.rowsWritten.perMillion) / 1e6 : 0);

  // As apps use it: every pay keyed (its rows, and the page its keys take in the record while it is kept),
  // the metrics' data points, the audit trail and the statements (rules 15 and 16). Each line is what it adds
  // on top of the meters above (their included amounts are used already).
  const keyedPays = a.keyOnEveryPay ? perMonth * paidShare : 0;
  const keyedBytes = measured.keyedPayBytes;
  const keyedGbMonth = a.keyOnEveryPay ? (perDay * paidShare * daysKept() * keyedBytes.bytes) / GB : 0;
  const deliveries = perMonth * p.queue_messages * (1 + a.failingDeliveryShare * shippedQueueConfig().maxRetries);
  const upstreamCalls = perMonth * (METRICS_FROM_CODE.workerUpstreamCallsPerPayment + p.object_upstream_calls);
  const dataPoints = (upstreamCalls + deliveries) / METRICS_FROM_CODE.successSample;
  // The record's own rows for the trail: counted in do_rows_written where the run paced its payments.
  const audit = auditBill(perDay, AUDIT_FROM_CODE, { recordRowsCounted: measured.paced !== null });
  const appLines = [
    {
      line: "keyed_pay_rows_written",
      usage: `${round((keyedPays * key.objectRowsWritten) / 1e6, 1)} M (${key.objectRowsWritten} object rows a keyed pay${key.measured ? "" : ", from the code"}; every pay keyed)`,
      dollars: keyedPays ? keyedPayAdds : 0,
      page: P.durableObjects.page,
    },
    {
      line: "keyed_pay_storage",
      usage: `${round(keyedGbMonth)} GB-month (${keyedBytes.bytes} B a keyed record more${keyedBytes.measured ? ", measured" : ", from the code"}, ${round(daysKept(), 1)} days kept)`,
      dollars: keyedGbMonth * P.durableObjects.storageGbMonth.perGb,
      page: P.durableObjects.page,
    },
    {
      line: "analytics_engine_points",
      usage: `${round(dataPoints / 1e6, 1)} M data points (${round(dataPoints / perMonth, 2)} a payment: upstream calls and deliveries${METRICS_FROM_CODE.successSample > 1 ? `, a success 1 in ${METRICS_FROM_CODE.successSample}` : ""})`,
      dollars: over(dataPoints, P.analyticsEngine.dataPoints),
      page: P.analyticsEngine.page,
    },
    ...audit.lines,
  ];
  const appTotal = appLines.reduce((sum, l) => sum + l.dollars, 0);
  const allLines = [...priced.lines, ...appLines];
  const total = priced.total + appTotal;

  // Each limit, and the volume or day at which it binds.
  const peakEventsPerSecond = (perDay / DAY) * a.peakFactor * p.queue_messages;
  // Through pagers, the queue's messages at the peak are its pages, each as full as the peak's rate fills it.
  const peakPage = (p.pager_requests ?? 0) > 0 ? eventsPerPage(perDay * a.peakFactor, p.queue_messages, pagersAt(perDay, p.queue_messages)) : 1;
  const peakMessagesPerSecond = peakEventsPerSecond / peakPage;
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
      use:
        peakPage > 1
          ? `${round(peakMessagesPerSecond)} pages/s at peak (${round(peakEventsPerSecond)} events/s)`
          : `${round(peakEventsPerSecond)} events/s at peak`,
      binds: peakMessagesPerSecond >= LIMITS.queues.messagesPerSecond ? "at peak" : null,
      binds_at_per_day: round((perDay * LIMITS.queues.messagesPerSecond) / peakMessagesPerSecond, -5),
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
      use: `${databasesBySize} databases at ${a.databaseFill * 100}%`,
      binds: databasesBySize > 1 ? `day ${Math.ceil((LIMITS.d1.databaseBytes * a.databaseFill) / dailyD1Growth)} with one database` : null,
      binds_at_per_day: round((perDay * LIMITS.d1.databaseBytes * a.databaseFill) / d1Bytes, -3),
    },
    {
      limit: `D1 queries per database (one at a time: ~${LIMITS.d1.queriesPerSecondAt1Ms.toLocaleString("en")}/s at 1 ms)`,
      page: LIMITS.d1.page,
      use: `${round(peakPaymentQps + cronQps)} queries/s at peak: ${databasesByQueries} databases at ${a.d1PeakUtilization * 100}% busy`,
      binds: databasesByQueries > 1 ? "with one database, at peak" : null,
      binds_at_per_day: round((perDay * perDatabaseQps) / (peakPaymentQps + cronQps), -3),
    },
  ];
  const perDatabase = (l) => l.limit.startsWith("D1 database size") || l.limit.startsWith("D1 queries per database");
  // Beyond one database's size and query rate (which sharding answers): the account's limits, and the volume each binds at.
  const accountLimits = limits.filter((l) => !perDatabase(l)).sort((x, y) => x.binds_at_per_day - y.binds_at_per_day);
  const shardBinds = databasesBySize >= databasesByQueries ? "size" : "queries";
  return {
    per_day: perDay,
    record_objects_end: recordsDeleted,
    payment: Object.fromEntries(Object.entries(p).map(([k, v]) => [k, round(v, 2)])),
    steady_state: {
      d1_gb: round(d1Bytes / GB, 1),
      tid_index_gb: round(tidBytes / GB, 1),
      event_log_gb: round(eventBytes / GB, 1),
      // Steady-state bytes over a month's (30 days') receipts: docs/capacity.md's "D1 bytes per receipt".
      d1_bytes_per_receipt: round(d1Bytes / (perDay * 30)),
      record_objects_tb_month_12: round(priced.objectBytesMonth12 / 1e12, 2),
    },
    databases,
    databases_by_size: databasesBySize,
    databases_by_queries: databasesByQueries,
    // Which sets the shard count: the bytes at the fill or the queries at the peak.
    shards_bound_by: shardBinds,
    peak_d1_queries_per_second: round(peakPaymentQps + cronQps),
    // What the bill counts (docs/capacity.md): every line below is in the total.
    assumptions: [
      `payments: ${Object.entries(shippedMix())
        .map(([k, v]) => `${v * 100}% ${k}`)
        .join(
          ", ",
        )}${shippedHolds() ? "" : " (production's HOLD_ENABLED=false: the assumed holds pay at once)"}; ${a.fiscalLateShare * 100}% fiscal-late (rule 14)`,
      a.keyOnEveryPay ? "an Idempotency-Key on every pay (the typed client keys every write): its rows and its storage" : "no Idempotency-Key",
      measured.risk
        ? `rule 13's counters: ${a.anonymousShare * 100}% of payments by card number, every token authorize a user's`
        : "rule 13's counters: not counted by this run",
      `Analytics Engine: a data point per upstream call and per delivery attempt${METRICS_FROM_CODE.successSample > 1 ? `, successes sampled 1 in ${METRICS_FROM_CODE.successSample}` : ""}`,
      `the audit trail (rule 15): ${AUDIT_FROM_CODE.appendsPerPayment} appends a payment, ${AUDIT_FROM_CODE.writerRowsPerAppend(perDay)} writer rows an append (grouped), kept ${AUDIT_FROM_CODE.retentionDays} days in R2`,
      "the daily statements (rule 16): a line a payment in R2, a check-id for 1% of lines",
      `records kept ${a.recordRetentionDays} days after final (rule 10); the cron every minute`,
      `canonical log lines: production's LOG_SUCCESS_SAMPLE of ${shippedLogSample()} (wrangler.toml [env.production]) applied to the lines the run counted as sampled (they say \`sample\`); every other line kept`,
      measured.paced
        ? `the record objects' requests and rows written (statements, alarms, deletions) of a paid and an abandoned payment: counted by the run's paced payments, production's windows (wrangler.toml [env.production]) at the pace of an authorize ${measured.paced.pace.authorizeAfterMs / 1000} s after the create and a pay ${measured.paced.pace.payAfterMs / 1000} s after it, the day-long windows crossed by the sandbox's test clock (its own bookkeeping left out); the audit trail's record rows are in them`
        : `the record objects' requests and rows written: the run's back-to-back flows (every window shortened), plus ${AUDIT_FROM_CODE.recordRowsPerPayment} record rows a payment for the audit trail at production's pace, from the code (the run paced no payment)`,
    ],
    bill_month_12: Object.fromEntries(allLines.map((l) => [l.line, round(l.dollars)])),
    bill_month_12_lines: allLines.map((l) => ({ ...l, dollars: round(l.dollars, 2) })),
    bill_month_12_total: round(total),
    // The bill of the gateway alone, as the model priced it before apps' use was counted: no key, no metrics, no audit trail.
    bill_month_12_gateway_alone: round(priced.total),
    cron_month_12: priced.cron,
    // Rule 13's counters: what a payment costs in them (the assumed mix of number and token payments), and their lines' sum.
    risk: measured.risk
      ? {
          anonymous_share: a.anonymousShare,
          token_by_user_share: a.tokenByUserShare,
          payment: Object.fromEntries(Object.entries(measured.risk.payment).map(([k, v]) => [k, round(v, 2)])),
          bill_month_12: round(priced.riskTotal, 2),
          objects_ended_in_run: measured.risk.ended,
        }
      : null,
    // Rule 14: what fiscal-late payments add, at the assumed share (per fiscal-late payment and per payment), and the bill's lines that move.
    fiscal: measured.fiscalLate
      ? {
          fiscal_late_share: a.fiscalLateShare,
          counted: measured.fiscalLate.counted,
          per_fiscal_late_payment: Object.fromEntries(
            Object.entries(measured.fiscalLate.added)
              .filter(([, v]) => v !== 0)
              .map(([k, v]) => [k, round(v, 2)]),
          ),
          per_payment: Object.fromEntries(
            Object.entries(measured.fiscalLate.added)
              .filter(([, v]) => v !== 0)
              .map(([k, v]) => [k, round(v * a.fiscalLateShare, 3)]),
          ),
          fiscal_late_per_day: round(perDay * a.fiscalLateShare),
          bill_month_12_added: round(priced.total - unfiscal.total, 2),
          bill_month_12_added_by_line: Object.fromEntries(
            priced.lines.map((l, i) => [l.line, round(l.dollars - unfiscal.lines[i].dollars, 2)]).filter(([, dollars]) => dollars !== 0),
          ),
        }
      : null,
    workers_logs_at_the_per_event_price: round(priced.logsPerEventPrice),
    // The record objects' counts a paid and an abandoned payment make at production's pace, as priced (null: an older run),
    // and the run's check: the paid payment crossed by the test clock less the same payment waiting in real time.
    paced: measured.paced,
    keyed_pay: {
      object_rows_written_per_pay: key.objectRowsWritten,
      of_which_idempotency_table: key.idempotencyRowsWritten,
      d1_rows_written_per_pay: key.d1RowsWritten,
      counted: key.measured,
      record_bytes_added: keyedBytes.bytes,
      record_bytes_measured: keyedBytes.measured,
      bill_month_12_added: round(keyedPayAdds),
    },
    limits,
    // The first limit that binds beyond one database's size and query rate (which sharding answers): the one that stops growth.
    first_binding_limit:
      limits.find((l) => l.binds && !perDatabase(l))?.limit ??
      `one database's ${shardBinds === "size" ? "size" : "query rate"} (${databases} databases: ${databasesBySize} by size, ${databasesByQueries} by queries at peak; sharding answers it); next: ${accountLimits[0].limit} at ~${(accountLimits[0].binds_at_per_day / 1e6).toLocaleString("en")}M a day`,
    estimated: [
      measured.counted
        ? "CPU per payment, production's latencies inside object requests, log enrichment bytes, the failing share of deliveries and the mix of payments (ASSUMPTIONS); requests, rows read and written (alarms and deletions included), queue messages, object wall time and log lines and bytes are counted (bench/lib/costs.mjs)"
        : "requests, CPU, duration and log lines per flow (ASSUMPTIONS: not counted by this run)",
      ...measured.estimatedScenarios,
      ...(measured.fiscalLate
        ? [
            `rule 14: ${a.fiscalLateShare * 100}% of payments fiscal-late, each found by its second read (ASSUMPTIONS); what one adds ${measured.fiscalLate.counted ? "counted by the run's fiscal_late flow less its paid flow" : "counted from the code (FISCAL_LATE_FROM_CODE): the run did not count the fiscal_late flow"}`,
          ]
        : []),
      ...(measured.risk
        ? [
            `rule 13's counters: ${a.anonymousShare * 100}% of payments by card number, every token authorize a user's (ASSUMPTIONS), each payment's subjects its own ${measured.risk.chunks ? `parts of a day's chunks, kept ${a.riskChunkDaysKept} day` : `objects, kept ${a.riskDaysKept} day`}; counted by the user flows of bench/lib/costs.mjs`,
          ]
        : ["rule 13's counters: not counted by this run, not priced"]),
      ...(measured.objectRowsWrittenMeasured
        ? []
        : ["record object rows written: rows held after the flow x 2 (the run did not count the object's cursors)"]),
      ...(key.measured
        ? []
        : [`rows a key on the pay writes: ${KEYED_PAY_ROWS_FROM_CODE}, counted from src/record/keys.ts (the run did not count flows with keys)`]),
    ],
  };
}

/** A run that counted no whole life: the counts from the run's per-create and per-event figures and ASSUMPTIONS. */
function legacyCounts(measured) {
  const a = ASSUMPTIONS;
  const out = Object.fromEntries(COUNTERS.map((k) => [k, 0]));
  out.worker_invocations = a.workerRequestsPerFlow;
  out.object_requests = a.objectRequestsPerFlow;
  out.object_rows_written = measured.objectRowsWrittenPerFlow;
  out.d1_rows_written = measured.d1RowsWrittenPerCreate + measured.eventsPerFlow * measured.d1RowsWrittenPerEvent;
  out.queue_messages = measured.eventsPerFlow;
  out.log_lines = a.logEventsPerFlow;
  out.log_bytes = a.logEventsPerFlow * 200;
  out.object_upstream_calls = a.objectUpstreamCallsPerFlow;
  out.object_wall_ms = (a.objectRequestsPerFlow - a.objectUpstreamCallsPerFlow) * a.objectRequestSeconds * 1000;
  return out;
}

/** The floor at `perDay`: FLOOR's counts priced by the same bill, with the shipped run's own time per object request. */
export function floorModel(measured, perDay) {
  const a = ASSUMPTIONS;
  const shipped = measured.counted ? mixOf(measured) : legacyCounts(measured);
  const p = Object.fromEntries(COUNTERS.map((k) => [k, 0]));
  Object.assign(p, {
    worker_invocations: FLOOR.worker_invocations,
    object_requests: FLOOR.object_requests,
    object_rows_written: FLOOR.object_rows_written,
    log_lines: FLOOR.log_lines,
    log_bytes: shipped.log_lines ? shipped.log_bytes / shipped.log_lines : 200,
    object_upstream_calls: FLOOR.object_upstream_calls,
    // The one request that calls nothing upstream takes what the shipped object's own time per request is.
    object_wall_ms:
      (Math.max(0, shipped.object_wall_ms - shipped.object_d1_wait_ms - shipped.object_upstream_wait_ms - shipped.object_queue_wait_ms) /
        Math.max(1, shipped.object_requests)) *
      FLOOR.object_requests,
  });
  const priced = bill(p, perDay, { objectBytes: FLOOR.recordObjectBytes, d1Bytes: 0, databases: 0, cron: null });
  return {
    per_day: perDay,
    payment: { ...FLOOR, events: 1 },
    bill_month_12: Object.fromEntries(priced.lines.map((l) => [l.line, round(l.dollars)])),
    bill_month_12_total: round(priced.total),
    note: `the cheapest any design could be: ${FLOOR.worker_invocations} Worker requests, ${FLOOR.object_requests} object requests (${FLOOR.object_upstream_calls} of them awaiting the payment service ${a.upstreamSeconds * 1000} ms), ${FLOOR.object_rows_written} object rows written and ${FLOOR.log_lines} log event a payment; a ${FLOOR.recordObjectBytes}-byte object kept as long as the shipped one; no D1, no queue, no cron`,
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
  const volumes = [1e6, 1e7].map((perDay) => ({
    kept_for_ever: model(measured, perDay, { recordsDeleted: false }),
    records_end: model(measured, perDay, { recordsDeleted: true }),
  }));
  const shipped = Object.fromEntries(volumes.map((v) => [String(v.records_end.per_day), v.records_end]));
  const floor = Object.fromEntries([1e6, 1e7].map((perDay) => [String(perDay), floorModel(measured, perDay)]));
  const atOneMillion = shipped["1000000"].bill_month_12_total;
  return {
    measured,
    prices: PRICES,
    limits: LIMITS,
    assumptions: ASSUMPTIONS,
    bill_month: ASSUMPTIONS.billMonth,
    // The month-12 bill as shipped (record objects end by rule 10), every line priced with its page, and the floor beside it.
    shipped,
    floor,
    target: {
      bill_month_12_at_1M: ASSUMPTIONS.targetMonth12AtOneMillion,
      shipped: atOneMillion,
      met: atOneMillion <= ASSUMPTIONS.targetMonth12AtOneMillion,
      bill_month_12_at_10M: ASSUMPTIONS.targetMonth12AtTenMillion,
      shipped_at_10M: shipped["10000000"].bill_month_12_total,
      met_at_10M: shipped["10000000"].bill_month_12_total <= ASSUMPTIONS.targetMonth12AtTenMillion,
      // Per line, the shipped bill against the floor at 1M a day: where the money above the floor goes.
      over_floor_by_line: Object.fromEntries(
        Object.entries(shipped["1000000"].bill_month_12)
          .map(([line, dollars]) => [line, round(dollars - (floor["1000000"].bill_month_12[line] ?? 0))])
          .sort((x, y) => y[1] - x[1]),
      ),
    },
    volumes,
  };
}

/**
 * Rules 15 and 16, priced from their code (src/audit/, src/statements/), not
 * measured by a run: the traced gateway does not trace the writers or the
 * statement's object. Per payment of the mix: its record's trail entries
 * (create, authorize, pay or the expiry's steps) and the appends that carry
 * them: a record sends its entries with its next alarm, at most half of
 * AUDIT_FLUSH_SECONDS after the oldest (src/record/audit-export.ts), so the
 * create's go with its drain's alarm 10 s later, and the authorize's with
 * the pay's when the OTP comes within the hold (assumed: 2 appends a
 * payment; 1 when its operations follow each other within 10 s, as the
 * run's flows do). Each append a writer request and one row (its entries
 * added to the waiting row, src/audit/writer.ts ROW_ENTRIES a row), a flush
 * deleting one row per ROW_ENTRIES entries; per flush (within
 * AUDIT_FLUSH_SECONDS of the oldest entry's time per chain while entries
 * come: entries arrive 10 to 30 s old, so about every 40 s; one batch per
 * hour of their times) an alarm (a request and its setAlarm row), the head's
 * row, and two puts (the batch and the chain's head); the record's export
 * mark rides the alarm's write of the row (the drain's mark is written
 * there). What the trail adds to the record's rows beyond the run's flows
 * (whose operations follow each other within the drain's 10 s), with
 * production's pace: the alarm set for the authorize's entry, where the
 * record has none due within the hold (its expiry's is a day away); a paid
 * payment's pay drains its event by that alarm instead of moving the
 * record's own, an abandoned one's alarm only exports, so its mark and the
 * expiry's alarm set again are two rows more (1 a paid payment, 3 an
 * abandoned one). By the same count the export at once cost 2 a paid
 * payment (the authorize's mark written alone, the pay moving the alarm)
 * and 1 an abandoned one; the model priced 1. These record rows price only a
 * run without paced payments (an older run, `--from`): where the run has them
 * (bench/lib/costs.mjs `paced`), a paid and an abandoned payment's record rows
 * and requests are counted at production's windows and pace, the trail's
 * alarms and marks among them (the run of 2026-12-07 14:59: 14 rows written
 * and 6 requests a paid payment, 17 and 7 an abandoned one, where the
 * back-to-back flows plus these rows made 11 and 4, 16 and 4). The statement: a line a payment
 * (~1.05 over the mix: refunds, holds), a CSV and a JSON row each, its day's
 * log rows read once, a check-id for STATEMENT_CHECK_SHARE of the lines.
 */
export const AUDIT_FROM_CODE = {
  entriesPerPayment: 3.3,
  appendsPerPayment: 2,
  /** A line of NDJSON as the writer writes it (the create's, with its detail, ~400 B; the others ~230 B). */
  bytesPerEntry: 270,
  /** Entries a waiting row of the writer takes (src/audit/writer.ts ROW_ENTRIES): its deletion is shared by as many. */
  writerRowEntries: 32,
  /**
   * A record's appends within groupSeconds of each other share a row write (src/audit/writer.ts GROUP_MS):
   * at the day's average rate (a peak groups more) a write carries 1 + rate x window of them; and each its share
   * of the waiting row's deletion once flushed. A record's wait for its append's group is its object's
   * duration, which the run measures (do_duration): its flows' one append each waits the whole window alone,
   * where production's two wait ~0.08 s each at 1M a day.
   */
  groupSeconds: 0.1,
  appendsPerChainSecond(perDay) {
    return (perDay * this.appendsPerPayment) / DAY / chainsAt(perDay, this.appendsPerPayment);
  },
  writerRowsPerAppend(perDay) {
    const perWrite = 1 + this.appendsPerChainSecond(perDay) * this.groupSeconds;
    return round(1 / perWrite + this.entriesPerPayment / this.appendsPerPayment / this.writerRowEntries, 3);
  },
  /** A chain's flushes: within AUDIT_FLUSH_SECONDS (60) of the oldest entry's time, entries arriving 10 to 30 s old. */
  flushSeconds: 40,
  /** Per batch: the alarm set, the head's row. */
  writerRowsPerBatch: 2,
  putsPerBatch: 2,
  /** The writer's wall time per append and per flush (a SQLite insert; two R2 puts), assumed. */
  writerSecondsPerAppend: 0.003,
  writerSecondsPerFlush: 0.15,
  /** Over the mix production makes: 1 row a paid payment, 3 an abandoned one (a run without paced payments). */
  get recordRowsPerPayment() {
    const mix = shippedMix();
    return round(1 - mix.abandoned + 3 * mix.abandoned, 2);
  },
  retentionDays: 365,
  statementLinesPerPayment: 1.05,
  statementBytesPerLine: 520,
  statementLogRowsReadPerPayment: 2.6,
  checkShare: 0.01,
  /** A check's wall time in the statement's object (the payment service's check-id). */
  checkSeconds: 0.3,
};

/** The month-12 lines of rules 15 and 16 at `perDay` payments a day (R2 at its steady state: a year of batches and statements). */
export function auditBill(perDay, c = AUDIT_FROM_CODE, { recordRowsCounted = false } = {}) {
  const P = PRICES;
  const perMonth = perDay * MONTH_DAYS;
  const chains = chainsAt(perDay, c.appendsPerPayment);
  const flushesPerDay = Math.min((DAY / c.flushSeconds) * chains, (perDay * c.appendsPerPayment) / 1) + 24 * chains;
  const batchesPerMonth = flushesPerDay * MONTH_DAYS;
  const appends = perMonth * c.appendsPerPayment;
  const writerRequests = appends + batchesPerMonth;
  const writerRows = appends * c.writerRowsPerAppend(perDay) + batchesPerMonth * c.writerRowsPerBatch;
  const writerGbSeconds = (appends * c.writerSecondsPerAppend + batchesPerMonth * c.writerSecondsPerFlush) * 0.128;
  const trailGb = (perDay * c.entriesPerPayment * c.bytesPerEntry * c.retentionDays) / GB;
  const statementGb = (perDay * c.statementLinesPerPayment * c.statementBytesPerLine * c.retentionDays) / GB;
  const lines = perDay * c.statementLinesPerPayment;
  // Multipart: the parts of both files, their creation and completion, the summary; the heads' and batches' puts.
  const statementPuts = ((lines * c.statementBytesPerLine) / (5 * 1024 * 1024) + 6) * MONTH_DAYS;
  const classA = batchesPerMonth * c.putsPerBatch + statementPuts;
  const checkGbSeconds = lines * c.checkShare * c.checkSeconds * 0.128 * MONTH_DAYS;
  const out = [
    {
      line: "audit_writer_requests",
      usage: `${round(writerRequests / 1e6, 1)} M (${c.appendsPerPayment} appends a payment, an alarm a flush)`,
      dollars: (writerRequests / 1e6) * P.durableObjects.requests.perMillion,
    },
    {
      line: "audit_writer_rows_written",
      usage: `${round(writerRows / 1e6, 1)} M (${c.writerRowsPerAppend(perDay)} an append, its write shared by the appends of ${c.groupSeconds} s at one of ${chains} writers; ${c.writerRowsPerBatch} a batch)`,
      dollars: (writerRows / 1e6) * P.durableObjects.rowsWritten.perMillion,
    },
    {
      line: "audit_writer_duration",
      usage: `${round(writerGbSeconds / 1e6, 2)} M GB-s`,
      dollars: (writerGbSeconds / 1e6) * P.durableObjects.gbSeconds.perMillion,
    },
    recordRowsCounted
      ? {
          line: "audit_record_rows_written",
          usage: "0 M beyond do_rows_written (the record's alarms and marks for the trail are counted there, by the run's paced payments)",
          dollars: 0,
        }
      : {
          line: "audit_record_rows_written",
          usage: `${round((perMonth * c.recordRowsPerPayment) / 1e6, 1)} M (the alarm set for the authorize's entry, which the pay's drain rides; an abandoned payment's mark and expiry alarm again: from the code, the run paced no payment)`,
          dollars: ((perMonth * c.recordRowsPerPayment) / 1e6) * P.durableObjects.rowsWritten.perMillion,
        },
    {
      line: "r2_class_a",
      usage: `${round(classA / 1e6, 2)} M (${round(batchesPerMonth / 1e3)} k batches x ${c.putsPerBatch}, statements' parts)`,
      dollars: over(classA, P.r2.classA),
    },
    {
      line: "r2_storage",
      usage: `${round(trailGb + statementGb, 1)} GB (trail ${round(trailGb, 1)}, statements ${round(statementGb, 1)}; ${c.retentionDays} days)`,
      dollars: overGb(trailGb + statementGb, P.r2.storageGbMonth),
    },
    {
      line: "statement_checks",
      usage: `${round((lines * c.checkShare * MONTH_DAYS) / 1e3)} k check-ids (object duration)`,
      dollars: (checkGbSeconds / 1e6) * P.durableObjects.gbSeconds.perMillion,
    },
  ].map((l) => ({ ...l, page: l.line.startsWith("r2") ? P.r2.page : P.durableObjects.page }));
  return { lines: out, total: out.reduce((sum, l) => sum + l.dollars, 0) };
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
      ["D1 databases: max(by size at 60% of 10 GB, by queries at peak)", (m) => `${m.databases} (${m.databases_by_size}, ${m.databases_by_queries})`],
      ["record objects, month 12 (TB)", (m) => m.steady_state.record_objects_tb_month_12],
      ["bill in month 12 ($)", (m) => m.bill_month_12_total],
      ["of which rule 13's counters ($)", (m) => (m.risk ? m.risk.bill_month_12 : "not counted")],
      [
        "of which rule 14's fiscal-late payments ($)",
        (m) =>
          m.fiscal
            ? `${m.fiscal.bill_month_12_added} (${m.fiscal.fiscal_late_share * 100}% of payments${m.fiscal.counted ? "" : ", from the code"})`
            : "not priced",
      ],
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
    // The month-12 bill line by line, as shipped and at the floor, each with its page.
    const money = (n) => `$${Math.round(n).toLocaleString("en")}`;
    const [one, ten] = ["1000000", "10000000"];
    console.log(
      `\n**The month-12 bill (${result.bill_month}), line by line** (targets: ${money(result.target.bill_month_12_at_1M)} at 1M a day, ${result.target.met ? "met" : "not met"}; ${money(result.target.bill_month_12_at_10M)} at 10M, ${result.target.met_at_10M ? "met" : "not met"})\n`,
    );
    console.log(
      "| line | 1M/day shipped | 1M/day floor | over the floor | 10M/day shipped | 10M/day floor | usage at 1M/day | price |\n|---|---:|---:|---:|---:|---:|---|---|",
    );
    for (const line of result.shipped[one].bill_month_12_lines) {
      const f1 = result.floor[one].bill_month_12[line.line] ?? 0;
      const s10 = result.shipped[ten].bill_month_12[line.line];
      const f10 = result.floor[ten].bill_month_12[line.line] ?? 0;
      console.log(
        `| ${line.line} | ${money(line.dollars)} | ${money(f1)} | ${money(line.dollars - f1)} | ${money(s10)} | ${money(f10)} | ${line.usage} | [page](${line.page}) |`,
      );
    }
    const t1 = result.shipped[one].bill_month_12_total;
    const ft1 = result.floor[one].bill_month_12_total;
    console.log(
      `| **total** | **${money(t1)}** | **${money(ft1)}** | **${money(t1 - ft1)}** | **${money(result.shipped[ten].bill_month_12_total)}** | **${money(result.floor[ten].bill_month_12_total)}** | | |`,
    );
    console.log(`\nthe cron at 1M a day: ${JSON.stringify(result.shipped[one].cron_month_12)}`);
    console.log(
      `Workers Logs at the per-event price (until 2026-11-30), 1M a day: ${money(result.shipped[one].workers_logs_at_the_per_event_price)}`,
    );
    console.log(`a payment, as priced (the mix): ${JSON.stringify(result.shipped[one].payment)}`);
    if (result.shipped[one].risk) console.log(`rule 13's counters a payment, as priced: ${JSON.stringify(result.shipped[one].risk.payment)}`);
    if (result.shipped[one].fiscal) {
      const f = result.shipped[one].fiscal;
      console.log(
        `rule 14 at 1M a day: ${f.fiscal_late_per_day} fiscal-late payments a day (${f.fiscal_late_share * 100}%), $${f.bill_month_12_added} a month: ${JSON.stringify(f.bill_month_12_added_by_line)}; a fiscal-late payment adds ${JSON.stringify(f.per_fiscal_late_payment)}`,
      );
    }
    const paced = result.shipped[one].paced;
    console.log(
      paced
        ? `record objects a payment at production's pace (counted): paid ${JSON.stringify(paced.paid)}; abandoned ${JSON.stringify(paced.abandoned)}; the test clock less a real wait, a paid payment: ${JSON.stringify(paced.check)}`
        : `record objects a payment at production's pace: not counted by this run (back-to-back flows, plus ${AUDIT_FROM_CODE.recordRowsPerPayment} record rows a payment for the audit trail from the code)`,
    );
    for (const note of result.shipped[one].estimated) console.log(`estimated: ${note}`);
  }
}
