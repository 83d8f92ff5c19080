/**
 * A record's row: what its object stores of one receipt or transfer, column
 * by column, and which part of the record owns each column that changes
 * (src/record/parts.ts wires each part with its slice: RecordStore.slice).
 *
 * Nothing here is a card number, expiry, token or OTP: bodies are the
 * upstream client's normalized ones (masked card numbers only), audit
 * entries hold codes and ids.
 */
import type { KindName } from "../rules/kinds";
import type { ExpiryReason, FiscalPhase } from "../rules/lifecycle";
import type { UpstreamState } from "../upstream/calls";

export interface RecordRow {
  kind: KindName;
  id: string;
  /** The tid as the caller chose it (what answers show). */
  tid: string;
  /** The tid the upstream holds: the caller's for the partner, a derived UUID for a user (rule 9). */
  upstream_tid: string;
  owner: string;
  is_hold: number;
  qr_merchant: number;
  is_verify: number;
  state: UpstreamState;
  /** The record as the API answers it (JSON text), tid as the caller chose it. */
  body: string;
  wrong_otps: number;
  unconfirmed_otps: number;
  otp_sends: number;
  last_otp_sent_at: number;
  resend_wait_ms: number;
  /** Write-ahead (rule 8): the call that left and whose outcome is not stored; null when none. */
  pending_op: string | null;
  /** 1 when that call carried an OTP. */
  pending_otp: number;
  pending_since: number;
  pending_request_id: string | null;
  /** Who asked for that call ("partner:<id>", "user:<sub>", "gateway"): a lost call is completed only as its caller may. */
  pending_actor: string | null;
  /** Reconciliation attempts that failed in a row (the alarm's backoff). */
  reconcile_attempts: number;
  /** The last event's sequence number. */
  event_seq: number;
  /** 1: exhausted, and the upstream refused for good to cancel it: no more cancels sent (closed at the edge: lifecycle's closedAtEdge). */
  edge_closed: number;
  /**
   * Rule 8's late upstream: when the last call whose outcome was unknown left
   * (0: nothing suspect), how many of the late reads after it are done, and
   * 1 when its OTP was counted as an unconfirmed guess that a late payment
   * would prove right.
   */
  suspect_since: number;
  suspect_reads: number;
  suspect_otp: number;
  /** 1: the owner's personal data was erased (rule 10); bodies stored since are erased too. */
  erased: number;
  /** The audit trail, oldest first: JSON of compact tuples [at, op, actor, request_id, outcome, state]. */
  audit: string;
  /** The create's answer exactly as it was given (JSON), for replays; null for a record rebuilt from the upstream (rule 10). */
  answer: string | null;
  /** The tid-index completion this object owes (src/record/completion.ts), JSON; null when none. */
  owed_completion: string | null;
  /** When the upstream was first seen holding it (state 5), ms; 0 when never: rule 12's hold window starts here. */
  held_at: number;
  /** Rule 12: why the gateway ended (or is ending) it, `expired` or `hold_expired`; null while it has not expired. */
  expiry: ExpiryReason | null;
  /**
   * Rule 14 (src/record/fiscal.ts): where the receipt's fiscal receipt stands
   * (lifecycle's FiscalPhase; null: nothing fiscal to watch), when its last
   * watch began (the payment or refund whose fiscal data was missing, as the
   * gateway saw it; 0: never watched), the scheduled reads done since, and 1
   * when the fiscal list (D1) shows the record as it stands (0: its write is owed).
   */
  fiscal: FiscalPhase | null;
  fiscal_since: number;
  fiscal_reads: number;
  fiscal_listed: number;
  /** How far the record's own time runs ahead of the deployment's, ms (the sandbox's test clock; 0 in production): src/shared/clock.ts. */
  clock_offset: number;
  /**
   * The record's events, oldest first (its outbox: src/record/outbox-rows.ts):
   * JSON of [event_id, body] pairs, each body byte for byte as signed and sent.
   */
  events: string;
  /** How many of the first events are in the event log as stored (this incarnation may know of more). */
  events_logged: number;
  /**
   * Rule 11's keys kept in the row (src/record/keys.ts KeyEntry, JSON); null
   * when none. Stored with each answer as parts of the row's texts (schema
   * 9: src/record/key-texts.ts); the store's copy holds every answer whole.
   */
  keys?: string | null;
  created_at: number;
  updated_at: number;
}

/** The columns that change after a record is created (the others are its identity; the audit trail and the events are appended by the store). */
export type RecordFields = Partial<
  Omit<RecordRow, "kind" | "id" | "tid" | "upstream_tid" | "owner" | "created_at" | "audit" | "updated_at" | "events" | "events_logged">
>;

/** One part's writer of its own columns (RecordStore.slice). */
export interface Slice<K extends keyof RecordFields> {
  update(fields: Pick<RecordFields, K>): void;
  /**
   * Fields worth no write of their own, nor a change of the record (its
   * time): the copy holds them at once, and the row's next write stores
   * them. Only for what a later incarnation may safely do again, should
   * none come before it stops.
   */
  later(fields: Pick<RecordFields, K>): void;
}

/** An audit entry as the row stores it. */
export type AuditTuple = [at: number, op: string, actor: string, request_id: string, outcome: string, state: number | null];

/** Audit entries a record keeps: the latest, should a caller repeat refused calls for ever. */
export const MAX_AUDIT_ENTRIES = 200;

/** What a record is created with; everything else starts at nothing counted, nothing in flight, nothing suspect. */
type RecordIdentity = Pick<
  RecordRow,
  "kind" | "id" | "tid" | "upstream_tid" | "owner" | "is_hold" | "qr_merchant" | "is_verify" | "state" | "body" | "created_at"
>;

export function newRecordRow(identity: RecordIdentity): Omit<RecordRow, "updated_at"> {
  return {
    ...identity,
    wrong_otps: 0,
    unconfirmed_otps: 0,
    otp_sends: 0,
    last_otp_sent_at: 0,
    resend_wait_ms: 0,
    pending_op: null,
    pending_otp: 0,
    pending_since: 0,
    pending_request_id: null,
    pending_actor: null,
    reconcile_attempts: 0,
    event_seq: 0,
    edge_closed: 0,
    suspect_since: 0,
    suspect_reads: 0,
    suspect_otp: 0,
    erased: 0,
    audit: "[]",
    answer: null,
    owed_completion: null,
    // A record created (or rebuilt) held has been held since then, as far as the gateway knows.
    held_at: identity.state === 5 ? identity.created_at : 0,
    expiry: null,
    fiscal: null,
    fiscal_since: 0,
    fiscal_reads: 0,
    fiscal_listed: 1,
    clock_offset: 0,
    events: "[]",
    events_logged: 0,
    keys: null,
  };
}

export interface AuditEntry {
  at: number;
  op: string;
  actor: string;
  request_id: string;
  outcome: string;
  state: number | null;
}

/** An event of the record's outbox; `seq` is its place among the record's events (0: the first). */
export interface OutboxEntry {
  seq: number;
  event_id: string;
  body: string;
}
