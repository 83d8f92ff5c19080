/**
 * The gateway's own event operations (events/list, events/resend): what the
 * partner backend may ask of the event log. The routes validate and call these.
 * The log gives each event's delivery; its body comes from its record
 * (src/events/bodies.ts).
 */
import { ApiError } from "../errors/errors";
import { log } from "../shared/log";
import { withBodies } from "./bodies";
import { listLoggedEvents, locateEvent } from "./log";
import { type EventQuery, eventOf, markPendingAgain, restoreDelivery, withDelivery } from "./log-database";
import { enqueue } from "./publish";
import type { EventWithDelivery, GatewayEvent } from "./types";

/**
 * A page of the log, newest first. `has_more` is the log's: an event whose
 * body is found nowhere is left out of the page (src/events/bodies.ts), and
 * paging by the last event shown still reaches every older one.
 */
export async function listEventPage(env: Env, query: EventQuery): Promise<{ events: EventWithDelivery[]; has_more: boolean }> {
  const { rows, hasMore } = await listLoggedEvents(env, query);
  return { events: (await withBodies(env, rows)).map(withDelivery), has_more: hasMore };
}

/**
 * Queues an event again, whatever its delivery status, and answers it. Its
 * status is pending until that delivery's outcome; attempts keep counting.
 * Unknown id: 404 not_found (an event id is not a receipt, so not
 * receipt_not_found); so is an event whose body is found nowhere (nothing to
 * send: logged as event_body_missing, the log left as it was).
 */
export async function resendEvent(env: Env, id: string): Promise<GatewayEvent> {
  // An event id does not name its record, so every database is asked.
  const found = await locateEvent(env, id);
  if (!found) throw new ApiError("not_found", "No event with this id.");
  const [event] = await withBodies(env, [found.row]);
  if (!event) throw new ApiError("not_found", "This event's body is no longer kept, so it cannot be sent again.");
  const row = await markPendingAgain(found.db, id);
  if (!row) throw new ApiError("not_found", "No event with this id.");
  try {
    await enqueue(env, [{ id: event.id, payload: event.body }]);
  } catch (err) {
    await restoreDelivery(found.db, row).catch(() => undefined);
    throw err;
  }
  log("info", "event_resent", { event_id: id, was: row.delivery_status });
  return eventOf(event);
}
