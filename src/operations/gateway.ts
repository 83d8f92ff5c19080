/**
 * The gateway's own operations (audit trails, events), one description each
 * (src/operations/operation.ts says what a description holds; their prose is
 * in src/operations/docs.ts). Their API is partner-only (src/operations/index.ts).
 */
import * as v from "valibot";
import { clock } from "../clock";
import { requestErasure } from "../erasure";
import { ApiError } from "../errors";
import { listEventPage, resendEvent } from "../events";
import { DeliveryStatusName, Event, EventId, EventTypeName, ListEventsResult } from "../events/schemas";
import { KIND_NAMES } from "../kinds";
import { receiptStub } from "../receipt-object";
import { int32, MaxText, ReceiptId } from "../schemas";
import { DOCS } from "./docs";
import { describe, type Section } from "./operation";

const AuditTrailResult = v.object({
  id: v.string(),
  kind: v.picklist(KIND_NAMES),
  owner: v.pipe(v.string(), v.description('"partner", or the user\'s sub, as events show it.')),
  entries: v.array(
    v.object({
      at: v.pipe(v.number(), v.description("Milliseconds since the epoch.")),
      op: v.pipe(v.string(), v.description("create, authorize, pay, hold-confirm, cancel, read, or reconcile (the gateway's own).")),
      actor: v.pipe(v.string(), v.description("partner, user:<sub>, or gateway (its own reconciliation).")),
      request_id: v.string(),
      outcome: v.pipe(v.string(), v.description("ok, or the error code answered.")),
      state: v.nullable(v.number()),
    }),
  ),
});

const ListEventsRequest = v.object({
  receipt_id: v.optional(v.pipe(ReceiptId, v.description("Only this receipt's (or transfer's `receipt_id`) events."))),
  type: v.optional(EventTypeName),
  delivery: v.optional(DeliveryStatusName),
  after: v.optional(v.pipe(EventId, v.description("The last event id of the previous page: answers events older than it."))),
  limit: v.optional(
    v.pipe(
      v.number("limit must be a number"),
      v.integer("limit must be an integer"),
      v.minValue(1, "limit must be 1 to 100"),
      v.maxValue(100, "limit must be 1 to 100"),
      int32(),
    ),
    20,
  ),
});

const UserSub = v.pipe(
  v.string(),
  v.minLength(1, "user must not be empty"),
  ...MaxText(255, "user must be at most 255 characters"),
  v.description("The user's `sub`, as in their JWT."),
);

export const GATEWAY: Section = {
  tag: "Gateway",
  operations: [
    describe({
      path: "/receipt/audit",
      operationId: "auditReceipt",
      summary: "A receipt's or transfer's audit trail (partner only)",
      description: DOCS.auditReceipt,
      request: v.object({
        id: ReceiptId,
        kind: v.optional(v.picklist(KIND_NAMES, "kind must be receipt or transfer"), "receipt"),
      }),
      response: AuditTrailResult,
      errors: ["forbidden", "receipt_not_found"],
      upstream: [],
      handle: async (c, { id, kind }) => {
        const trail = await receiptStub(c.env, kind, id).auditTrail();
        if (!trail) throw new ApiError("receipt_not_found", `No such ${kind}.`);
        return c.json(trail, 200);
      },
    }),
    describe({
      path: "/events/list",
      operationId: "listEvents",
      summary: "List events with their delivery status (partner only)",
      description: DOCS.listEvents,
      request: ListEventsRequest,
      response: ListEventsResult,
      errors: ["forbidden"],
      upstream: [],
      handle: async (c, { receipt_id, type, delivery, after, limit }) =>
        c.json(await listEventPage(c.env, { receiptId: receipt_id, type, delivery, after, limit }), 200),
    }),
    describe({
      path: "/events/resend",
      operationId: "resendEvent",
      summary: "Queue an event for delivery again (partner only)",
      description: DOCS.resendEvent,
      request: v.object({ id: EventId }),
      response: Event,
      errors: ["forbidden", "not_found"],
      upstream: [],
      handle: async (c, { id }) => c.json(await resendEvent(c.env, id), 200),
    }),
    describe({
      path: "/users/erase",
      operationId: "eraseUser",
      summary: "Erase a user's personal data (partner only)",
      description: DOCS.eraseUser,
      request: v.pipe(v.object({ user: UserSub }), v.examples([{ user: "user-123" }])),
      response: v.object({
        user: UserSub,
        accepted_at: v.pipe(v.number(), v.description("Milliseconds since the epoch: the erasure is done within 24 hours of it.")),
      }),
      status: 202,
      errors: ["forbidden"],
      upstream: [],
      handle: async (c, { user }) => c.json(await requestErasure(c.env, user, clock.now()), 202),
    }),
  ],
};
