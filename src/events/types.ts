/**
 * What an event is: the shapes the receipt object hands to publishOutbox, the
 * log stores, the queue carries and the partner's backend receives.
 */

import type { ReceiptBody, TransferBody } from "../api/schemas";
import { type EventType, KINDS, type KindName } from "../rules/kinds";

/** The event types are the kinds' (src/rules/kinds.ts names each kind's events). */
export type { EventType };

/** When each event fires: the README, the OpenAPI document's webhooks and the type check read this one table. */
export const EVENT_TYPES = {
  "receipt.created": "A receipt was created (state 0).",
  "receipt.paid": "A receipt is paid (state 4): by pay, by hold-confirm, or when the supplier confirmed a payment that awaited it.",
  "receipt.held": "A hold receipt's amount is blocked on the card (state 5); hold-confirm debits it.",
  "receipt.awaiting_supplier": "A receipt was paid but awaits the supplier's confirmation (state 57); receipt.paid or receipt.cancelled follows.",
  "receipt.cancelled":
    "A receipt is cancelled (state 21): by cancel, by the supplier's refusal, by the gateway after three failed OTP guesses (rule 2: `data.reason` `otp_attempts_exhausted`), or by the gateway when it expired unpaid or its hold was not confirmed in time (rule 12: `data.reason` `expired` or `hold_expired`). Where the payment service refused that cancel, `data.closed_at_edge` is true and `data.object.state` shows what the payment service shows (0 or 5): ask its support to cancel it.",
  "receipt.otp_attempts_exhausted":
    "The third failed OTP guess ended a receipt; receipt.cancelled follows once the payment service has cancelled it.",
  "receipt.fiscalized":
    "A paid receipt's fiscal data, missing when it was paid (its `ofd` showed no fiscal sign or QR address), is shown at last (rule 14): `data.object.ofd` holds the fiscal receipt; the state stays 4 (`data.previous_state` 4). Until then the receipt is listed by fiscal/pending.",
  "receipt.refund_fiscalized":
    "A refunded receipt's fiscal data, missing when it was cancelled, is shown at last (rule 14): `data.object.ofd` holds the refund's fiscal receipt; the state stays 21 (`data.previous_state` 21). Until then the receipt is listed by fiscal/pending.",
  "transfer.created": "A card-to-card transfer was created.",
  "transfer.paid": "A transfer is paid.",
  "transfer.cancelled": "A transfer is cancelled.",
  "transfer.expired":
    "A transfer still unpaid RECEIPT_EXPIRY_HOURS after its creation is closed at the gateway (rule 12; `data.reason` `expired`): every later operation on it answers `receipt_expired`.",
  "transfer.otp_attempts_exhausted": "The third failed OTP guess closed a transfer at the gateway: every later operation on it is refused.",
} as const satisfies Record<EventType, string>;

export const EVENT_TYPE_NAMES = Object.keys(EVENT_TYPES) as EventType[];

export type EventKind = KindName;

export interface GatewayEvent {
  /** "evt_<ULID>": unique, time-ordered; the `webhook-id` of every delivery of this event. */
  id: string;
  type: EventType;
  /** ms since the epoch. */
  created: number;
  /** Per record: 1, 2, ...; a receiver ignores an event older than the last it applied. */
  sequence: number;
  request_id: string;
  data: {
    /** Which object `object` is: the kind the type begins with. */
    object_type: EventKind;
    /** The Receipt or Transfer receipt as the API returns it (masked card numbers only). */
    object: ReceiptBody | TransferBody;
    /** "partner", or the user's `sub`. */
    owner: string;
    previous_state: number | null;
    /** Why, where the gateway itself caused the change (rule 12: `expired`, `hold_expired`; rule 2: `otp_attempts_exhausted`). */
    reason?: string;
    /** Rule 12: the payment service refused the gateway's cancel; the record is closed at the gateway only. */
    closed_at_edge?: boolean;
  };
}

export type DeliveryStatus = "pending" | "delivered" | "failed";
export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const satisfies readonly DeliveryStatus[];

export interface EventDelivery {
  status: DeliveryStatus;
  attempts: number;
  /** The receiver's last HTTP status; null when it never answered (timeout, network error) or was not tried yet. */
  last_status: number | null;
  last_error: string | null;
  /** ms; null until a delivery got a 2xx. */
  delivered_at: number | null;
}

export type EventWithDelivery = GatewayEvent & { delivery: EventDelivery };

/**
 * What travels on the queue: the event's id and its JSON exactly as logged,
 * so every attempt signs and sends the same bytes.
 */
export interface EventMessage {
  id: string;
  payload: string;
}

/**
 * A page of events in one queue message (src/events/pager.ts): each one
 * exactly as its own message would carry it. A page stays under one 64 KB
 * billing unit of Queues.
 */
export interface EventPage {
  page: EventMessage[];
}

/** A message of the events queue: one event (every release's form), or a page of them. */
export type QueuedBody = EventMessage | EventPage;

/** The kind an event is about: the one its type begins with (assertWellFormed refuses a type of no kind). */
export const kindOfEvent = (type: EventType): EventKind =>
  (Object.keys(KINDS) as EventKind[]).find((kind) => type.startsWith(`${kind}.`)) ?? "receipt";

const DATA = ',"data":{';

/**
 * An event body (JSON text) with `data.object_type`. The gateway writes it
 * first in `data` (src/record/event.ts); a body kept from before the field
 * existed gets it spliced in there, every other byte as it was, so a stored
 * old event is listed, resent and delivered in the shape the document gives
 * (the webhook-id and sequence are unchanged, so a receiver that saw it
 * before still drops it). Anything else is answered as it is.
 */
export function withObjectType(body: string): string {
  // The head (id, type, created, sequence, request_id) holds no object: the first `"data":{` is the event's.
  const at = body.indexOf(DATA);
  if (at < 0 || body.startsWith('"object_type":', at + DATA.length)) return body;
  let event: { type?: unknown; data?: { object_type?: unknown } };
  try {
    event = JSON.parse(body);
  } catch {
    return body;
  }
  if (event.data?.object_type !== undefined || typeof event.type !== "string" || !Object.hasOwn(EVENT_TYPES, event.type)) return body;
  const cut = at + DATA.length;
  return `${body.slice(0, cut)}"object_type":${JSON.stringify(kindOfEvent(event.type as EventType))},${body.slice(cut)}`;
}

/** @deprecated kindOfEvent's earlier name: it stays while the event log imports it. */
export const kindOf = kindOfEvent;

const EVENT_ID = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/;

/** The record an event is about: `data.object.id` for receipts, `data.object.receipt_id` for transfers. */
export function recordIdOf(event: GatewayEvent): string {
  return (event.data.object as unknown as Record<string, unknown>)[KINDS[kindOfEvent(event.type)].idField] as string;
}

/**
 * Refuses an event that cannot be logged or delivered as one. Such an event
 * is a bug in its producer; retrying it would never help, so it is named loudly.
 */
export function assertWellFormed(event: GatewayEvent): void {
  const problem = !EVENT_ID.test(event.id)
    ? "its id is not evt_<ULID>"
    : !Object.hasOwn(EVENT_TYPES, event.type)
      ? `its type ${JSON.stringify(event.type)} is not an event type`
      : !Number.isSafeInteger(event.sequence) || event.sequence < 1
        ? "its sequence is not a positive integer"
        : event.data.object_type !== kindOfEvent(event.type)
          ? `its data.object_type is not ${JSON.stringify(kindOfEvent(event.type))}`
          : typeof recordIdOf(event) !== "string" || recordIdOf(event) === ""
            ? `its data.object has no ${KINDS[kindOfEvent(event.type)].idField}`
            : null;
  if (problem) throw new TypeError(`Event ${JSON.stringify(event.id)} cannot be published: ${problem}.`);
}
