/**
 * The event a record's state change becomes (the contract's Events section).
 * Built inside the same storage step as the change it reports.
 */
import { ulid } from "ulid";
import type { EventType } from "../lifecycle";
import type { ReceiptBody, TransferBody } from "../schemas";

export interface GatewayEvent {
  /** `evt_<ULID>`: also the webhook-id of its deliveries. */
  id: string;
  type: EventType;
  /** Milliseconds. */
  created: number;
  /** Per record: 1, 2, ... A receiver ignores an event older than one it has. */
  sequence: number;
  request_id: string;
  data: {
    /** The receipt or transfer as the API answers it. */
    object: ReceiptBody | TransferBody;
    /** "partner", or the user's `sub`. */
    owner: string;
    previous_state: number | null;
  };
}

/** The owner as events show it: the stored owner is `partner:partner` or `user:<sub>`. */
export const eventOwner = (owner: string): string => (owner.startsWith("user:") ? owner.slice("user:".length) : "partner");

export function buildEvent(fields: {
  type: EventType;
  sequence: number;
  requestId: string;
  object: ReceiptBody | TransferBody;
  owner: string;
  previousState: number | null;
  at: number;
}): GatewayEvent {
  return {
    id: `evt_${ulid(fields.at)}`,
    type: fields.type,
    created: fields.at,
    sequence: fields.sequence,
    request_id: fields.requestId,
    data: { object: fields.object, owner: eventOwner(fields.owner), previous_state: fields.previousState },
  };
}
