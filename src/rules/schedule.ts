/**
 * When the gateway looks at a record again on its own, and when a record
 * ends: rule 8's reconciliation schedule (a call in flight, the supplier's
 * 57, an exhaustion cancel owed, the late reads after a lost call), rule
 * 14's reads of a fiscal-pending receipt, and rule 10's deletion time. Pure: the record's alarm (src/record/alarm.ts) asks
 * each part when it is next due, and the parts ask this module.
 */

import type { UpstreamState } from "../upstream/calls";
import { isFinal, type Phase } from "./lifecycle";

export interface ScheduleFacts {
  phase: Phase;
  /** A receipt exhausted by guesses whose upstream cancel is not confirmed. */
  exhaustionCancelPending: boolean;
  /** Reconciliation attempts that failed in a row. */
  attempts: number;
  /** When the call in flight left (ms), for in_flight. */
  pendingSince: number;
  /** The upstream's own timeout: a call in flight is not reconciled before it could have ended. */
  upstreamTimeoutMs: number;
  /** The next late read of a suspect record (lateReadAt), if any. */
  lateReadAt: number | null;
}

/**
 * Rule 8's late upstream: after a call whose outcome was unknown (pay,
 * hold-confirm, cancel) was first reconciled, the record is read again at
 * these times after the call, whatever the first look showed: the upstream
 * may act on it long after the gateway stopped waiting. Production: 1 min,
 * 10 min, 1 h and 24 h; development: four looks within 2 minutes, so a late
 * change shows while someone watches.
 */
export const LATE_READ_SCHEDULES = {
  production: [60_000, 600_000, 3_600_000, 86_400_000],
  development: [15_000, 35_000, 70_000, 110_000],
} as const satisfies Record<string, readonly number[]>;

export const lateReadSchedule = (environment: string | undefined): readonly number[] =>
  environment === "development" ? LATE_READ_SCHEDULES.development : LATE_READ_SCHEDULES.production;

/** The operations whose late action upstream would change the record's state. */
export const STATE_CHANGING_CALLS: ReadonlySet<string> = new Set(["pay", "hold-confirm", "cancel"]);

export interface SuspectFacts {
  /** When the suspect call left (ms); 0 when nothing is suspect. */
  since: number;
  /** Late reads done so far. */
  reads: number;
}

/** When the next late read is due, or null when none is (never suspect, or every read done). */
export function lateReadAt(suspect: SuspectFacts, schedule: readonly number[]): number | null {
  if (suspect.since === 0) return null;
  const offset = schedule[suspect.reads];
  return offset === undefined ? null : suspect.since + offset;
}

/** The late reads a look at the upstream made at `now` completes: every one due by then. */
export function lateReadsDoneAt(suspect: SuspectFacts, schedule: readonly number[], now: number): SuspectFacts {
  let reads = suspect.reads;
  while (suspect.since !== 0 && reads < schedule.length && suspect.since + schedule[reads]! <= now) reads++;
  return reads >= schedule.length ? { since: 0, reads: 0 } : { since: suspect.since, reads };
}

// ---------------------------------------------------------------------------
// Rule 14: the reads of a fiscal-pending receipt

/** A fiscal-pending receipt's watch: when it began (the payment or refund the gateway saw) and how many scheduled reads are done. */
export interface FiscalWatchFacts {
  since: number;
  reads: number;
}

/**
 * When the next scheduled read of a fiscal-pending receipt is due (FISCAL_READS:
 * offsets after `since`), or null once every read of the schedule is done:
 * the receipt then stays listed for the partner to chase, and any later read
 * (check-id) that shows the fiscal data still stores it.
 */
export function fiscalReadAt(watch: FiscalWatchFacts, schedule: readonly number[]): number | null {
  const offset = schedule[watch.reads];
  return offset === undefined ? null : watch.since + offset;
}

/** The scheduled reads a look at the upstream made at `now` completes: every one due by then, and none not yet due. */
export function fiscalReadsDoneAt(watch: FiscalWatchFacts, schedule: readonly number[], now: number): number {
  let reads = watch.reads;
  while (reads < schedule.length && watch.since + schedule[reads]! <= now) reads++;
  return reads;
}

/** First look 1 s after the fault, then doubling to a minute: the first look is always within the minute rule 8 asks for. */
export function backoffMs(attempts: number): number {
  return Math.min(60_000, 1000 * 2 ** Math.max(0, attempts));
}

/** Only the upstream can settle the record now: a call's outcome is unknown, its supplier has not answered, or an exhaustion cancel is owed. */
export const needsSettling = (facts: Omit<ScheduleFacts, "lateReadAt">): boolean => settlingAt({ ...facts, lateReadAt: null }, 0) !== null;

/** When the alarm should next reconcile this record, or null when it is settled. */
export function nextReconcileAt(facts: ScheduleFacts, now: number): number | null {
  const settling = settlingAt(facts, now);
  if (facts.lateReadAt === null) return settling;
  // A late read that failed backs off like any other look.
  const late = Math.max(facts.lateReadAt, facts.attempts > 0 ? now + backoffMs(facts.attempts) : 0);
  return settling === null ? late : Math.min(settling, late);
}

function settlingAt(facts: ScheduleFacts, now: number): number | null {
  if (facts.phase === "in_flight") {
    // Not before the call in flight could have ended on its own.
    return Math.max(facts.pendingSince + facts.upstreamTimeoutMs + 1000, now + backoffMs(facts.attempts));
  }
  if (facts.exhaustionCancelPending) return now + backoffMs(facts.attempts);
  // The supplier answers on its own time: poll, backing off to a minute.
  if (facts.phase === "awaiting_supplier") return now + Math.max(5000, backoffMs(facts.attempts));
  return null;
}

// ---------------------------------------------------------------------------
// The end of a record (rule 10): when the object deletes itself

export interface EndFacts {
  state: UpstreamState;
  /** Closed at the edge (closedAtEdge). */
  edgeClosed: boolean;
  /** A write-ahead note is stored (a call in flight, or lost). */
  pending: boolean;
  /** A call whose outcome was unknown may still act upstream (suspect_since != 0: late reads owed). */
  suspect: boolean;
  /** Events still in the outbox, not yet in the event log. */
  unsentEvents: boolean;
  /** Rule 14: the receipt's fiscal data is still missing (it stays, and stays listed, until it shows). */
  fiscalPending?: boolean;
  /** Rule 14: the fiscal list (D1) does not show the record as it stands yet: its write is owed. */
  listingOwed?: boolean;
  /** The record's last change (ms): when it became final, or later. */
  changedAt: number;
}

/**
 * When the record may be deleted: `retentionMs` after its last change, once
 * it is final and owes nothing (no call in flight, nothing suspect, no event
 * left in its outbox, no fiscal data missing, nothing owed to the fiscal
 * list); null while it is not so. Any later change (a read that found news,
 * a refund, the fiscal data shown) starts the window again.
 */
export function recordDeletionAt(facts: EndFacts, retentionMs: number): number | null {
  if (!isFinal(facts) || facts.pending || facts.suspect || facts.unsentEvents || facts.fiscalPending || facts.listingOwed) return null;
  return facts.changedAt + retentionMs;
}
