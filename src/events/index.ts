/**
 * Events: how the partner backend learns what apps did. The receipt object
 * writes each state change's event into its outbox and drains it with
 * publishOutbox (logged in D1, then queued a page at a time by a pager,
 * src/events/pager.ts); the queue consumer
 * (handleEventBatch) delivers each one, signed, to WEBHOOK_URL; the event log
 * in D1 tells how each delivery stands, and the sweep (sweepEvents, run by
 * the Cron Trigger) sends again what no attempt is scheduled for.
 */

export type { DeliveryOutcome } from "./delivery";
export { DEAD_LETTER_SUFFIX, handleEventBatch, isDeadLetterQueue, postEvent, RETRY_SCHEDULES, retryDelaySeconds, retrySchedule } from "./delivery";
export { listLoggedEvents, newestEvents } from "./log";
export type { EventQuery, EventRow } from "./log-database";
export { findEvent, listEvents, recordEvents } from "./log-database";
export { listEventPage, resendEvent } from "./operations";
export { newEventId, publishEvents, publishOutbox } from "./publish";
export { signWebhook } from "./signing";
export type { SweepReport, SweepSettings } from "./sweep";
export { REQUEUE_LIMIT, SWEEP_SETTINGS, sweepEvents, sweepSettings } from "./sweep";
export type {
  DeliveryStatus,
  EventDelivery,
  EventKind,
  EventMessage,
  EventPage,
  EventType,
  EventWithDelivery,
  GatewayEvent,
  QueuedBody,
} from "./types";
export { EVENT_TYPE_NAMES, EVENT_TYPES, kindOfEvent, recordIdOf } from "./types";
