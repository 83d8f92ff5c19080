/**
 * The shapes of events: the webhook body (the Event component), its delivery
 * status, and events/list's answer (its request and events/resend's are in
 * their descriptions, src/operations/gateway.ts).
 * Built from the receipt and transfer shapes of src/schemas.ts.
 */
import * as v from "valibot";
import { bounded, Int, int32, int64, Receipt, ReceiptState, TransferReceipt } from "../schemas";
import { eventExample } from "./examples";
import { DELIVERY_STATUSES, EVENT_TYPE_NAMES, EVENT_TYPES } from "./types";

export const EventId = v.pipe(
  v.string(),
  v.regex(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/, "id must be evt_ followed by a ULID"),
  bounded(30),
  v.description("Event id: `evt_` and a ULID, so ids sort by time. The `webhook-id` of every delivery of the event."),
);

export const EventTypeName = v.pipe(
  v.picklist(EVENT_TYPE_NAMES, "type must be an event type"),
  v.description(
    Object.entries(EVENT_TYPES)
      .map(([type, when]) => `\`${type}\`: ${when}`)
      .join("\n"),
  ),
);

export const DeliveryStatusName = v.pipe(
  v.picklist(DELIVERY_STATUSES, "delivery must be pending, delivered or failed"),
  v.description("`pending`: queued or being retried; `delivered`: the receiver answered 2xx; `failed`: every retry failed (resend it)."),
);

export const Event = v.pipe(
  v.object({
    id: EventId,
    type: EventTypeName,
    created: Int("Milliseconds since the epoch."),
    sequence: v.pipe(
      v.number(),
      v.integer(),
      int64(),
      v.description(
        "Per receipt or transfer: 1, 2, ... Order of delivery is not guaranteed; ignore an event whose sequence is not above the last one applied.",
      ),
    ),
    request_id: v.pipe(v.string(), v.description("The X-Request-Id of the call that caused it (or of the gateway's own reconciliation).")),
    data: v.object({
      object: v.pipe(
        v.union([Receipt, TransferReceipt]),
        v.description("The Receipt (receipt.*) or Transfer receipt (transfer.*) as the API returns it: masked card numbers only."),
      ),
      owner: v.pipe(v.string(), v.description("`partner`, or the `sub` of the user who owns it.")),
      previous_state: v.pipe(v.nullable(ReceiptState), v.description("The state before this change; null for a create.")),
      reason: v.optional(
        v.pipe(
          v.picklist(["expired", "hold_expired"]),
          v.description(
            "Why, where the gateway itself caused the change (rule 12): `expired` (unpaid RECEIPT_EXPIRY_HOURS after its creation), `hold_expired` (held and not confirmed within HOLD_EXPIRY_DAYS).",
          ),
        ),
      ),
      closed_at_edge: v.optional(
        v.pipe(
          v.boolean(),
          v.description(
            "True when the payment service refused the gateway's cancel (no cancel access, a QR merchant) or has no cancel (transfers): the record is closed at the gateway only, `object.state` is what the payment service shows, and the partner asks its support to cancel it.",
          ),
        ),
      ),
    }),
  }),
  v.title("Event"),
  // Checked against this schema by test/docs/examples.test.ts.
  v.examples([eventExample("receipt.paid") as never]),
  v.description("An event: one change of a receipt or transfer, POSTed as JSON to WEBHOOK_URL and listed by events/list."),
);

export const EventDelivery = v.object({
  status: DeliveryStatusName,
  attempts: v.pipe(v.number(), v.integer(), int32(), v.description("Delivery attempts so far, resends included.")),
  last_status: v.pipe(
    v.nullable(v.pipe(v.number(), v.integer(), int32())),
    v.description("The receiver's last HTTP status; null if it never answered (timeout, network error) or no attempt was made yet."),
  ),
  last_error: v.pipe(v.nullable(v.string()), v.description("Why the last attempt failed; null after a success.")),
  delivered_at: v.pipe(v.nullable(Int()), v.description("Milliseconds; when a delivery got a 2xx.")),
});

export const EventWithDelivery = v.object({ ...Event.entries, delivery: EventDelivery });

export const ListEventsResult = v.object({
  events: v.pipe(
    v.array(EventWithDelivery),
    v.metadata<v.InferOutput<typeof EventWithDelivery>[], { maxItems: number }>({ maxItems: 100 }),
    v.description("Newest first; at most `limit`."),
  ),
  has_more: v.pipe(v.boolean(), v.description("Older events match too: ask again with `after` set to the last id of this page.")),
});
