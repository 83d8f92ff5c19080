/**
 * The events' examples in the OpenAPI document: one per event type, each
 * carrying the record that src/api/examples.ts shows for it, and the pages of
 * the event operations built of them.
 */
import {
  EXAMPLE_EVENT_ID,
  EXAMPLE_REQUEST_ID,
  RECEIPT_CANCELLED,
  RECEIPT_CREATED,
  RECEIPT_HELD,
  RECEIPT_PAID,
  TRANSFER_CREATED,
  TRANSFER_PAID,
} from "../api/examples";
import { type EventType, kindOfEvent } from "./types";

/** A minute after the example records were created. */
const PUBLISHED = RECEIPT_CREATED.create_date + 60000;

/** Each event type: the record it carries and the state before. */
const EVENT_OBJECTS: Record<EventType, [object, number | null]> = {
  "receipt.created": [RECEIPT_CREATED, null],
  "receipt.paid": [RECEIPT_PAID, 0],
  "receipt.held": [RECEIPT_HELD, 0],
  "receipt.awaiting_supplier": [{ ...RECEIPT_PAID, state: 57, ofd: null }, 0],
  "receipt.cancelled": [RECEIPT_CANCELLED, 4],
  "receipt.otp_attempts_exhausted": [RECEIPT_CREATED, 0],
  "receipt.fiscalized": [RECEIPT_PAID, 4],
  "receipt.refund_fiscalized": [RECEIPT_CANCELLED, 21],
  "transfer.created": [TRANSFER_CREATED, null],
  "transfer.paid": [TRANSFER_PAID, 0],
  "transfer.cancelled": [{ ...TRANSFER_CREATED, state: 21, cancel_date: RECEIPT_CANCELLED.cancel_date }, 0],
  "transfer.otp_attempts_exhausted": [TRANSFER_CREATED, 0],
  "transfer.expired": [TRANSFER_CREATED, 0],
};

/** Why, for the events the gateway itself causes (rule 12). */
const CAUSES: Partial<Record<EventType, { reason: string; closed_at_edge?: boolean }>> = {
  "transfer.expired": { reason: "expired", closed_at_edge: true },
};

const SEQUENCE: Partial<Record<EventType, number>> = {
  "receipt.created": 1,
  "transfer.created": 1,
  "receipt.cancelled": 3,
  "receipt.fiscalized": 3,
  "receipt.refund_fiscalized": 4,
};

export function eventExample(type: EventType) {
  const [object, previous] = EVENT_OBJECTS[type];
  return {
    id: EXAMPLE_EVENT_ID,
    type,
    created: PUBLISHED,
    sequence: SEQUENCE[type] ?? 2,
    request_id: EXAMPLE_REQUEST_ID,
    data: { object_type: kindOfEvent(type), object, owner: "partner", previous_state: previous, ...CAUSES[type] },
  };
}

export const EVENT_PAGE = {
  events: [
    { ...eventExample("receipt.paid"), delivery: { status: "failed", attempts: 8, last_status: 500, last_error: "HTTP 500", delivered_at: null } },
  ],
  has_more: false,
};

export const EVENT_RESENT = eventExample("receipt.paid");
