/**
 * The shapes of events: the webhook body (the Event component: a ReceiptEvent
 * or a TransferEvent, told apart by `type` and `data.object_type`), its delivery
 * status, and events/list's answer (its request and events/resend's are in
 * their descriptions, src/operations/gateway.ts).
 * Built from the receipt and transfer shapes of src/api/schemas.ts.
 */
import * as v from "valibot";
import { bounded, Int, int32, int64, Receipt, ReceiptState, TransferReceipt, TransferState } from "../api/schemas";
import { eventExample } from "./examples";
import { DELIVERY_STATUSES, EVENT_TYPE_NAMES, EVENT_TYPES, type EventKind, kindOfEvent } from "./types";

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

/** The event types of one kind, as its event schema's `type` enumerates them. */
const typesOf = (kind: EventKind) => EVENT_TYPE_NAMES.filter((type) => kindOfEvent(type) === kind);

const TypeOf = (kind: EventKind) =>
  v.pipe(
    v.picklist(typesOf(kind)),
    v.description(
      typesOf(kind)
        .map((type) => `\`${type}\`: ${EVENT_TYPES[type]}`)
        .join("\n"),
    ),
  );

/** `data.object_type`: which object `data.object` is, the same for every event of a kind (a discriminator that does not grow with the event types). */
const ObjectType = <K extends EventKind>(kind: K) =>
  v.pipe(
    v.literal(kind),
    v.metadata<K, { type: string }>({ type: "string" }),
    v.description(`\`${kind}\`: \`data.object\` is a ${kind === "receipt" ? "Receipt" : "Transfer receipt"}.`),
  );

/** What every event carries beside its type and data. */
const head = {
  id: EventId,
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
};

/** What every event's data carries beside its object and states. */
const dataFields = {
  owner: v.pipe(v.string(), v.description("`partner`, or the `sub` of the user who owns it.")),
  reason: v.optional(
    v.pipe(
      v.picklist(["expired", "hold_expired", "otp_attempts_exhausted"]),
      v.description(
        "Why, where the gateway itself caused the change: `expired` (rule 12: unpaid RECEIPT_EXPIRY_HOURS after its creation), `hold_expired` (rule 12: held and not confirmed within HOLD_EXPIRY_DAYS), `otp_attempts_exhausted` (rule 2: the cancel that ends a receipt after three failed OTP guesses).",
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
};

const previous = <S extends v.GenericSchema>(state: S) =>
  v.pipe(v.nullable(state), v.description("The state before this change; null for a create."));

/**
 * A receipt's event. Its object is always the whole Receipt, also after an
 * anonymous pay: the reduced answer is laid over the stored receipt before
 * the event is made (src/record/recorder.ts).
 */
export const ReceiptEvent = v.pipe(
  v.object({
    ...head,
    type: TypeOf("receipt"),
    data: v.object({
      object_type: ObjectType("receipt"),
      object: Receipt,
      previous_state: previous(ReceiptState),
      ...dataFields,
    }),
  }),
  v.title("ReceiptEvent"),
  v.examples([eventExample("receipt.paid") as never]),
  v.description(
    "An event of a receipt (`receipt.*`): `data.object` is the whole Receipt as check-id answers it (masked card numbers only). After an anonymous pay too: its reduced answer is laid over the receipt as last stored, so the fields that answer lacks (`rrn`, `card_number`, ...) show what the gateway last read.",
  ),
);

/** A transfer's event: its object is the Transfer receipt. */
export const TransferEvent = v.pipe(
  v.object({
    ...head,
    type: TypeOf("transfer"),
    data: v.object({
      object_type: ObjectType("transfer"),
      object: TransferReceipt,
      previous_state: previous(TransferState),
      ...dataFields,
    }),
  }),
  v.title("TransferEvent"),
  v.examples([eventExample("transfer.paid") as never]),
  v.description(
    "An event of a card-to-card transfer (`transfer.*`): `data.object` is the Transfer receipt as a2c/get-by-id answers it (masked card numbers only).",
  ),
);

const SCHEMA_OF: Record<EventKind, string> = { receipt: "#/components/schemas/ReceiptEvent", transfer: "#/components/schemas/TransferEvent" };

export const Event = v.pipe(
  v.variant("type", [ReceiptEvent, TransferEvent]),
  v.title("Event"),
  // `type` names the schema: generators make a union that a switch on `type` narrows.
  v.metadata({
    discriminator: { propertyName: "type", mapping: Object.fromEntries(EVENT_TYPE_NAMES.map((type) => [type, SCHEMA_OF[kindOfEvent(type)]])) },
  }),
  // Checked against this schema by test/docs/examples.test.ts.
  v.examples([eventExample("receipt.paid") as never]),
  v.description(
    "An event: one change of a receipt or transfer, POSTed as JSON to WEBHOOK_URL and listed by events/list. `type` (and `data.object_type`, the same for every event of a kind) tells a ReceiptEvent from a TransferEvent. The types grow: answer 2xx to a type you do not know (its `data.object_type` still says which object it carries).",
  ),
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

export const EventWithDelivery = v.intersect([Event, v.object({ delivery: EventDelivery })]);

export const ListEventsResult = v.object({
  events: v.pipe(
    v.array(EventWithDelivery),
    v.metadata<v.InferOutput<typeof EventWithDelivery>[], { maxItems: number }>({ maxItems: 100 }),
    v.description("Newest first; at most `limit`."),
  ),
  has_more: v.pipe(v.boolean(), v.description("Older events match too: ask again with `after` set to the last id of this page.")),
});
