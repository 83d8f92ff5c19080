/** The production entry: the gateway, its Durable Object, the events queue consumer and the retention cron, nothing else. */
import { createApp } from "./app";
import { type EventMessage, handleEventBatch } from "./events";
import { runRetention } from "./retention";

export { ReceiptObject } from "./receipt-object";

const app = createApp();

export default {
  fetch: app.fetch,
  // The events queue and its dead-letter queue (src/events/delivery.ts tells them apart by batch.queue).
  queue: handleEventBatch,
  // The Cron Trigger ([triggers] in wrangler.toml): one bounded retention run, on the trigger's own clock.
  async scheduled(controller, env, _ctx) {
    await runRetention(env, controller.scheduledTime);
  },
} satisfies ExportedHandler<Env, EventMessage>;
