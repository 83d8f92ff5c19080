/**
 * The event a record's state change becomes (the contract's Events section).
 * Built inside the same storage step as the change it reports.
 */

import { newEventId } from "../events/publish";
import { type EventType, kindOfEvent } from "../events/types";
import { eventOwner } from "../rules/caller";
import type { GatewayCause } from "../rules/lifecycle";

/**
 * An event as the JSON text the outbox keeps and the queue carries. The
 * record's body is already JSON text: it is spliced in, not parsed and
 * serialized again.
 */
export function eventPayload(fields: {
  type: EventType;
  sequence: number;
  requestId: string;
  /** The receipt or transfer as the API answers it, as JSON text. */
  objectJson: string;
  owner: string;
  previousState: number | null;
  at: number;
  /** Why, where the gateway itself caused the change (rule 12). */
  cause?: GatewayCause | null;
}): { id: string; payload: string } {
  const id = newEventId(fields.at);
  const head = { id, type: fields.type, created: fields.at, sequence: fields.sequence, request_id: fields.requestId };
  const cause = fields.cause ? `,${JSON.stringify(fields.cause).slice(1, -1)}` : "";
  // object_type first: old bodies get it in the same place (withObjectType, src/events/types.ts).
  const data = `{"object_type":${JSON.stringify(kindOfEvent(fields.type))},"object":${fields.objectJson},"owner":${JSON.stringify(eventOwner(fields.owner))},"previous_state":${JSON.stringify(fields.previousState)}${cause}}`;
  return { id, payload: `${JSON.stringify(head).slice(0, -1)},"data":${data}}` };
}
