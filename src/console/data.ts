/**
 * What the sandbox console shows, read from where the gateway keeps it: the
 * tid index (D1, every database of it) lists the records, each record's
 * Durable Object its audit trail, the event log (D1) its events and how
 * their delivery stands, and the sandbox's call log the upstream calls it
 * caused.
 *
 * Read only, and nothing here reaches the upstream: a check-id would be one
 * more call the record "caused", and would move the state it is meant to show.
 * Every store read here holds masked card numbers only (rule 7), so the pages
 * show what is stored as it is: a second pass of `redact` would also mask
 * any long digit run, a tid or an account number, and show a record that is
 * not the one the partner received.
 */

import { type EventRow, listLoggedEvents, newestEvents } from "../events";
import { withBodies } from "../events/bodies";
import type { AuditEntry } from "../record/receipt-object";
import { receiptStub } from "../record-stub";
import { eventOwner } from "../rules/caller";
import type { KindName } from "../rules/lifecycle";
import type { SandboxCall } from "../sandbox/answers";
import type { SandboxObject } from "../sandbox/sandbox-object";
import { latestTids } from "../tids/tid-index";

/** How many records the front page lists. */
export const LATEST_RECORDS = 50;
/** Events shown for one record; more than any record produces. */
const EVENTS_PER_RECORD = 100;
/** Longer than any id the gateway hands out: anything longer is no record, and is not looked up. */
const MAX_ID_LENGTH = 128;

export interface RecordSummary {
  kind: KindName;
  /** null while the create has not settled (its tid is claimed, the outcome not known yet). */
  id: string | null;
  tid: string;
  /** "partner" or the user's sub, as events show it. */
  owner: string;
  state: number | null;
  amount: number | null;
  createdAt: number;
  /** How far the record's own time runs ahead of the deployment's (the test clock); null while the create has not settled. */
  aheadMs: number | null;
}

export interface RecordView {
  kind: KindName;
  id: string;
  tid: string | null;
  owner: string;
  state: number | null;
  createdAt: number | null;
  /** The record's own time (the test clock's), and how far it runs ahead of the deployment's. */
  ownTime: number;
  aheadMs: number;
  audit: AuditEntry[];
  /** Oldest first. */
  events: EventRow[];
  /** Oldest first. */
  calls: SandboxCall[];
  /** The record as the API last answered it (its newest logged event's object); null before any event is logged. */
  latest: unknown;
}

/** The newest event the log holds for a record: when it was made, and the state it reported. */
export interface LatestEvent {
  created: number;
  state: number | null;
}

/**
 * The state the gateway last recorded for a record. Every operation and every
 * reconciliation that changed something leaves an audit entry with the state
 * after it; a change a plain read found (check-id) leaves an event but no
 * audit entry. So: whichever of the two is newer.
 */
export function currentState(audit: readonly AuditEntry[], latest: LatestEvent | null): number | null {
  const last = audit.at(-1);
  if (latest?.state != null && (!last || latest.created > last.at)) return latest.state;
  return last?.state ?? null;
}

export function sandboxObject(env: Env): DurableObjectStub<SandboxObject> {
  if (!env.SANDBOX) throw new Error("SANDBOX binding is missing");
  return env.SANDBOX.get(env.SANDBOX.idFromName("sandbox"));
}

/** The newest records created through the gateway, newest first, each with its state. */
export async function latestRecords(env: Env, limit = LATEST_RECORDS): Promise<RecordSummary[]> {
  const rows = await latestTids(env, limit);
  const records = rows.flatMap((row) => (row.status === "completed" && row.receipt_id ? [{ kind: row.kind, id: row.receipt_id }] : []));
  const [latest, trails] = await Promise.all([
    latestEventsOf(env, records),
    Promise.all(rows.map((row) => (row.status === "completed" && row.receipt_id ? describeOf(env, row.kind, row.receipt_id) : null))),
  ]);
  return rows.map((row, i) => {
    const completed = row.status === "completed" && row.receipt_id !== null;
    return {
      kind: row.kind,
      id: completed ? row.receipt_id : null,
      tid: row.tid,
      owner: eventOwner(row.owner),
      state: completed ? currentState(trails[i]?.entries ?? [], latest.get(`${row.kind}:${row.receipt_id}`) ?? null) : null,
      amount: trails[i]?.amount ?? null,
      createdAt: row.created_at,
      aheadMs: trails[i]?.aheadMs ?? null,
    };
  });
}

/** One record, everything the console knows of it; null when the gateway holds no such record. */
export async function recordView(env: Env, kind: KindName, id: string): Promise<RecordView | null> {
  if (id.length === 0 || id.length > MAX_ID_LENGTH) return null;
  // The record's object knows the tid it was created with: no tid-index row is looked for by record id.
  const trail = await describeOf(env, kind, id);
  if (!trail) return null;
  const [eventPage, allCalls] = await Promise.all([
    listLoggedEvents(env, { receiptId: id, limit: EVENTS_PER_RECORD }),
    // The call log filters by id only; the create names the record by its upstream tid.
    sandboxObject(env).calls(),
  ]);
  const events = (
    await withBodies(
      env,
      eventPage.rows.filter((row) => row.kind === kind),
    )
  ).reverse();
  const calls = allCalls.filter((call) => call.id === id || call.tid === trail.upstreamTid);
  const newest = events.at(-1);
  return {
    kind,
    id,
    tid: trail.tid,
    owner: trail.owner,
    state: currentState(trail.entries, newest ? latestOf(newest) : null),
    createdAt: trail.createdAt,
    ownTime: trail.now,
    aheadMs: trail.aheadMs,
    audit: trail.entries,
    events,
    calls,
    latest: newest ? ((JSON.parse(newest.body) as { data?: { object?: unknown } }).data?.object ?? null) : null,
  };
}

function describeOf(env: Env, kind: KindName, id: string) {
  return receiptStub(env, kind, id).describe();
}

function latestOf(row: EventRow): LatestEvent {
  const state = (JSON.parse(row.body) as { data?: { object?: { state?: unknown } } }).data?.object?.state;
  return { created: row.created, state: typeof state === "number" ? state : null };
}

/** Each record's newest logged event, keyed `kind:id`. */
async function latestEventsOf(env: Env, records: readonly { kind: KindName; id: string }[]): Promise<Map<string, LatestEvent>> {
  return new Map((await withBodies(env, await newestEvents(env, records))).map((row) => [`${row.kind}:${row.record_id}`, latestOf(row)]));
}
