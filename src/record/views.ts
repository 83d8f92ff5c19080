/**
 * What a record shows to those who look at it rather than move it: its
 * audit trail (the partner's receipt/audit), the sandbox console's view and
 * the back office's. Plain functions of the record's store: nothing here
 * writes, and nothing asks the upstream.
 */
import { eventOwner } from "../rules/caller";
import { kindNamed, type RecordBody } from "../rules/kinds";
import type { KindName } from "../rules/lifecycle";
import { clock } from "../shared/clock";
import type { AuditEntry, RecordStore } from "./store";

/** A record's audit trail as auditTrail() answers it: owner and actors as events show them. */
export interface AuditTrail {
  id: string;
  kind: KindName;
  owner: string;
  entries: AuditEntry[];
}

/** What the sandbox console shows of a record: its trail, the tid it was created with, its amount now and its own time. */
export type ConsoleView = AuditTrail & { tid: string; upstreamTid: string; createdAt: number; amount: number | null; now: number; aheadMs: number };

/** What the back office shows of a record: its trail, the body as last stored, its ids, its times, its events' ids and where rule 14 stands. */
export type BackOfficeView = AuditTrail & {
  tid: string;
  createdAt: number;
  updatedAt: number;
  state: number;
  body: string;
  eventIds: string[];
  fiscal: string | null;
  fiscalSince: number;
  fiscalReads: number;
  erased: boolean;
};

/** The audit trail, oldest first (partner only: the route checks); null when nothing is stored. */
export function auditTrailOf(store: RecordStore): AuditTrail | null {
  const rec = store.load();
  if (!rec) return null;
  // Owners as events show them ("partner" or the user's sub); actors keep their kind ("partner", "user:<sub>", "gateway").
  const actor = (who: string) => (who.startsWith("partner:") ? "partner" : who);
  return {
    id: rec.id,
    kind: rec.kind,
    owner: eventOwner(rec.owner),
    entries: store.trail.entries().map((entry) => ({ ...entry, actor: actor(entry.actor) })),
  };
}

/** The console's view (`now`: the record's own time; `aheadMs`: how far the sandbox's test clock moved it ahead of the deployment's). */
export function consoleViewOf({ store }: { store: RecordStore }): ConsoleView | null {
  const trail = auditTrailOf(store);
  const rec = store.current;
  if (!trail || !rec) return null;
  const amount = kindNamed(rec.kind).amountOf(store.parsedBody<RecordBody>());
  return {
    ...trail,
    tid: rec.tid,
    upstreamTid: rec.upstream_tid,
    createdAt: rec.created_at,
    amount: typeof amount === "number" ? amount : null,
    now: clock.now(),
    aheadMs: rec.clock_offset,
  };
}

/** The back office's view: card numbers masked as stored, phone and account values as they are (the console masks them unless a reveal asks). */
export function backOfficeViewOf({ store }: { store: RecordStore }): BackOfficeView | null {
  const trail = auditTrailOf(store);
  const rec = store.current;
  if (!trail || !rec) return null;
  return {
    ...trail,
    tid: rec.tid,
    createdAt: rec.created_at,
    updatedAt: rec.updated_at,
    state: rec.state,
    body: rec.body,
    eventIds: store.outbox.eventIds(),
    fiscal: rec.fiscal,
    fiscalSince: rec.fiscal_since,
    fiscalReads: rec.fiscal_reads,
    erased: rec.erased === 1,
  };
}
