/** The production entry: the gateway and its Durable Object, nothing else. */
import { createApp } from "./app";

export { ReceiptObject } from "./receipt-object";

const app = createApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
