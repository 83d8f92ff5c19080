/** The production entry: the gateway, its Durable Object and the events queue consumer, nothing else. */
import { createApp } from "./app";
import { type EventMessage, handleEventBatch } from "./events";

export { ReceiptObject } from "./receipt-object";

const app = createApp();

export default {
  fetch: app.fetch,
  // The events queue and its dead-letter queue (src/events/delivery.ts tells them apart by batch.queue).
  queue: handleEventBatch,
} satisfies ExportedHandler<Env, EventMessage>;
