/** The production entry: the gateway, its Durable Object, the events queue consumer and the cron (retention, the event sweep), nothing else. */
import { createApp } from "./app";
import { runErasures } from "./erasure";
import { type EventMessage, handleEventBatch, sweepEvents } from "./events";
import { runRetention } from "./retention";

export { ReceiptObject } from "./receipt-object";

const app = createApp();

export default {
  fetch: app.fetch,
  // The events queue and its dead-letter queue (src/events/delivery.ts tells them apart by batch.queue).
  queue: handleEventBatch,
  // The Cron Trigger ([triggers] in wrangler.toml; in development scripts/dev.mjs fires it every 15 s):
  // one bounded retention run and one event sweep, side by side, on the trigger's own clock. Either
  // failing fails the invocation, once both have run.
  async scheduled(controller, env, _ctx) {
    // A number (ms) as the runtime fires it; the tests' loopback may hand a Date, which D1 would not bind.
    const now = Number(controller.scheduledTime);
    const runs = await Promise.allSettled([runRetention(env, now), sweepEvents(env, now), runErasures(env, now)]);
    for (const run of runs) if (run.status === "rejected") throw run.reason;
  },
} satisfies ExportedHandler<Env, EventMessage>;
