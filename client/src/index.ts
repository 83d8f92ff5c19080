/**
 * A typed client for the payments edge gateway (README.md): every operation
 * typed from openapi.json (schema.ts, `npm run client`), every answer a
 * Result, safe retries, and the Standard Webhooks verification of events.
 */
export { type CallOptions, type ClientOptions, createGatewayClient, type GatewayClient, isRetriedPath } from "./client.js";
export type { components, operations, paths } from "./schema.js";
export type * from "./types.js";
export { type VerifyOptions, verifyWebhook, WebhookVerificationError } from "./webhooks.js";
