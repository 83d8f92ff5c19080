/**
 * The gateway's own operations, under /api/v1/gateway: partner server key
 * only (app.ts binds authentication and requirePartner before the body is read).
 */
import { Hono } from "hono";
import { ApiError } from "../errors";
import { listEventPage, resendEvent } from "../events";
import { jsonBody } from "../http";
import { documented } from "../openapi";
import { receiptStub } from "../receipt-object";
import { Event, EventIdRequest, ListEventsRequest, ListEventsResult } from "../events/schemas";
import { AuditRequest, AuditTrailResult } from "../schemas";
import type { GatewayEnv } from "../types";

const tags = ["Gateway"];

export const gateway = new Hono<GatewayEnv>()
  .post(
    "/receipt/audit",
    documented({
      operationId: "auditReceipt",
      summary: "A receipt's or transfer's audit trail (partner only)",
      description:
        "Every operation on the record, oldest first: when, which operation, who (`partner`, `user:<sub>`, or `gateway` for its own reconciliation), the request id, the outcome (`ok` or the error code) and the state after it. No card data is ever in it.",
      tags,
      response: AuditTrailResult,
      partnerOnly: true,
      errors: ["forbidden", "receipt_not_found"],
    }),
    jsonBody(AuditRequest),
    async (c) => {
      const { id, kind } = c.req.valid("json");
      const trail = await receiptStub(c.env, kind, id).auditTrail();
      if (!trail) throw new ApiError("receipt_not_found", `No such ${kind}.`);
      return c.json(trail, 200);
    },
  )
  .post(
    "/events/list",
    documented({
      operationId: "listEvents",
      summary: "List events with their delivery status (partner only)",
      description:
        "Events newest first, with how their delivery to WEBHOOK_URL stands, optionally only one receipt's (or transfer's), one type, or one delivery status. Page with `after`: the last id of the page before.",
      tags,
      response: ListEventsResult,
      partnerOnly: true,
      errors: ["forbidden"],
    }),
    jsonBody(ListEventsRequest),
    async (c) => {
      const { receipt_id, type, delivery, after, limit } = c.req.valid("json");
      return c.json(await listEventPage(c.env, { receiptId: receipt_id, type, delivery, after, limit }), 200);
    },
  )
  .post(
    "/events/resend",
    documented({
      operationId: "resendEvent",
      summary: "Queue an event for delivery again (partner only)",
      description:
        "Sends the event again, whatever its delivery status (typically `failed`), with the same `webhook-id`: its status is `pending` until that delivery's outcome. An unknown id is 404 `not_found`.",
      tags,
      response: Event,
      partnerOnly: true,
      errors: ["forbidden", "not_found"],
    }),
    jsonBody(EventIdRequest),
    async (c) => {
      const { id } = c.req.valid("json");
      return c.json(await resendEvent(c.env, id), 200);
    },
  );
