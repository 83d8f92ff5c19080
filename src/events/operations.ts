/**
 * The gateway's own event operations (events/list, events/resend): what the
 * partner backend may ask of the event log. The routes validate and call these.
 */
import { ApiError } from "../errors";
import { log } from "../log";
import { type EventQuery, eventOf, listLoggedEvents, locateEvent, markPendingAgain, restoreDelivery, withDelivery } from "./log";
import { enqueue } from "./publish";
import type { EventWithDelivery, GatewayEvent } from "./types";

export async function listEventPage(env: Env, query: EventQuery): Promise<{ events: EventWithDelivery[]; has_more: boolean }> {
  const { rows, hasMore } = await listLoggedEvents(env, query);
  return { events: rows.map(withDelivery), has_more: hasMore };
}

/**
 * Queues an event again, whatever its delivery status, and answers it. Its
 * status is pending until that delivery's outcome; attempts keep counting.
 * Unknown id: 404 not_found (an event id is not a receipt, so not receipt_not_found).
 */
export async function resendEvent(env: Env, id: string): Promise<GatewayEvent> {
  // An event id does not name its record, so every database is asked.
  const found = await locateEvent(env, id);
  const row = found && (await markPendingAgain(found.db, id));
  if (!found || !row) throw new ApiError("not_found", "No event with this id.");
  try {
    await enqueue(env, [{ id: row.id, payload: row.body }]);
  } catch (err) {
    await restoreDelivery(found.db, row).catch(() => undefined);
    throw err;
  }
  log("info", "event_resent", { event_id: id, was: row.delivery_status });
  return eventOf(row);
}
