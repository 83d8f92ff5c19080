/**
 * The event a record's state change becomes (the contract's Events section).
 * Built inside the same storage step as the change it reports.
 */
import { newEventId } from "../events/publish";
import type { EventType, GatewayEvent } from "../events/types";
import type { ReceiptBody, TransferBody } from "../schemas";

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
    id: newEventId(fields.at),
    type: fields.type,
    created: fields.at,
    sequence: fields.sequence,
    request_id: fields.requestId,
    data: { object: fields.object, owner: eventOwner(fields.owner), previous_state: fields.previousState },
  };
}
