/**
 * Event bodies, from where they are kept: the event log holds each event's
 * delivery and no body; the record that produced an event keeps its body in
 * its outbox, byte for byte as signed and sent, until the record is deleted
 * (src/record/outbox.ts), and the record is kept at least as long as the log
 * lists its events (src/cron/retention.ts, recordRetentionMs).
 *
 * A body found nowhere (a record deleted early by hand, or a retention run
 * that fell far behind) is never invented: the event is left out of the page
 * (events/list), answered 404 `not_found` (events/resend) or not queued (the
 * sweep, whose horizon marks it failed), and `event_body_missing` is logged
 * at error level with its id and record.
 */
import { inPool } from "../d1/fanout";
import { receiptStub } from "../record-stub";
import { log } from "../shared/log";
import { type EventRow, type LoggedRow, withBody } from "./log-database";

/**
 * These rows with their bodies, in the same order; a row whose body is found
 * nowhere is left out (logged). One call per record, six at a time
 * (src/d1/fanout.ts).
 */
export async function withBodies(env: Env, rows: readonly LoggedRow[]): Promise<EventRow[]> {
  const byRecord = new Map<string, LoggedRow[]>();
  for (const row of rows) {
    const key = `${row.kind}:${row.record_id}`;
    byRecord.set(key, [...(byRecord.get(key) ?? []), row]);
  }
  const found = new Map<string, string>();
  await inPool([...byRecord.values()], async (group) => {
    const { kind, record_id: recordId } = group[0]!;
    try {
      const bodies = await receiptStub(env, kind, recordId).eventBodies(group.map((row) => row.id));
      for (const [id, body] of Object.entries(bodies)) found.set(id, body);
    } catch (err) {
      log("error", "event_body_read_failed", { kind, id: recordId, events: group.length, error: err instanceof Error ? err.message : String(err) });
    }
  });
  const complete: EventRow[] = [];
  for (const row of rows) {
    const body = found.get(row.id);
    if (body === undefined) log("error", "event_body_missing", { event_id: row.id, kind: row.kind, id: row.record_id });
    else complete.push(withBody(row, body));
  }
  return complete;
}
