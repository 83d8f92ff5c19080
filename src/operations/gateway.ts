/**
 * The gateway's own operations (audit trails, events), one description each
 * (src/operations/operation.ts says what a description holds; their prose is
 * in src/operations/docs.ts). Their API is partner-only (src/operations/index.ts).
 */
import { ApiError } from "../errors";
import { listEventPage, resendEvent } from "../events";
import { Event, EventIdRequest, ListEventsRequest, ListEventsResult } from "../events/schemas";
import { receiptStub } from "../receipt-object";
import { AuditRequest, AuditTrailResult } from "../schemas";
import { DOCS } from "./docs";
import { describe, type Section } from "./operation";

export const GATEWAY: Section = {
  tag: "Gateway",
  operations: [
    describe({
      path: "/receipt/audit",
      operationId: "auditReceipt",
      summary: "A receipt's or transfer's audit trail (partner only)",
      description: DOCS.auditReceipt,
      request: AuditRequest,
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
      request: EventIdRequest,
      response: Event,
      errors: ["forbidden", "not_found"],
      upstream: [],
      handle: async (c, { id }) => c.json(await resendEvent(c.env, id), 200),
    }),
  ],
};
