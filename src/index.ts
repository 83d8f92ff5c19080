/** The production entry: the gateway, its Durable Object, the events queue consumer and the cron (retention, the event sweep), nothing else. */
import { createApp } from "./app";
import { retentionPolicy } from "./config/retention-policy";
import { runErasures } from "./cron/erasure";
import { cronShards, runRetention } from "./cron/retention";
import { handleEventBatch, type QueuedBody, sweepEvents } from "./events";
import { inLine, LogLine } from "./shared/log";
import { kickStatements, STATEMENT_CRON } from "./statements/api";

export { AuditWriter } from "./audit/writer";
export { EventPager } from "./events/pager";
export { ReceiptObject } from "./record/receipt-object";
export { RiskObject } from "./risk/risk-object";
export { StatementObject } from "./statements/statement-object";

const app = createApp();

export default {
  fetch: app.fetch,
  // The events queue and its dead-letter queue (src/events/delivery.ts tells them apart by batch.queue).
  queue: handleEventBatch,
  // The Cron Trigger ([triggers] in wrangler.toml; in development scripts/dev.mjs fires it every 15 s, and the
  // statements' every minute): runCron below.
  scheduled(controller, env, _ctx) {
    // One canonical line a run (src/shared/log.ts): the retention's and the erasures' counts ride on it.
    const line = new LogLine("cron", { cron: controller.cron });
    return inLine(line, () => runCron(controller, env)).finally(() => line.write());
  },
} satisfies ExportedHandler<Env, QueuedBody>;

/**
 * One event sweep, then one bounded retention run, on the trigger's own clock. One after the other, each at most six
 * databases at a time, so the invocation never holds more than the Workers limit of six connections. Either failing
 * fails the invocation, once both have run.
 */
async function runCron(controller: ScheduledController, env: Env): Promise<void> {
  // A number (ms) as the runtime fires it; the tests' loopback may hand a Date, which D1 would not bind.
  const now = Number(controller.scheduledTime);
  // Rule 16: yesterday's statement, started once after midnight (its object builds it with alarms of its own).
  if (controller.cron === STATEMENT_CRON) {
    await kickStatements(env, now);
    return;
  }
  // This minute's slice of the databases (all of them while they fit one run's D1 query budget): src/d1/fanout.ts.
  const policy = retentionPolicy(env);
  // A misconfigured list throws here: undefined lets each run fail (and log) on its own.
  let databases: ReturnType<typeof cronShards> | undefined;
  try {
    databases = cronShards(env, now, policy);
  } catch {
    databases = undefined;
  }
  const runs = [
    ...(await Promise.allSettled([sweepEvents(env, now, undefined, databases)])),
    ...(await Promise.allSettled([runRetention(env, now, policy, databases)])),
    // Erasure keeps its own bounded budget (src/cron/erasure.ts: 50 records or 200 D1 queries a run).
    ...(await Promise.allSettled([runErasures(env, now)])),
  ];
  for (const run of runs) if (run.status === "rejected") throw run.reason;
}
