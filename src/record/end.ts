/**
 * The end of a record, and what comes after it (rule 10).
 *
 * A record that is final (4, 21, or closed at the edge) and owes nothing (no
 * call in flight, nothing suspect, no event left in its outbox, no fiscal
 * data missing and nothing owed to the fiscal list: rule 14) is deleted by
 * its own alarm RECORD_RETENTION_DAYS after its last change: its SQLite and
 * its alarm, with `deleteAll()`, the only removal that ends the billing of
 * what it stored. src/rules/lifecycle.ts's recordDeletionAt decides when.
 *
 * The record keeps the bodies of its events, which the D1 event log lists
 * (events/list, events/resend, the sweep) until retention prunes them on
 * windows of their own (a cron tick or more after they are due, an
 * undelivered event up to EVENTS_UNDELIVERED_RETENTION_DAYS). So when its
 * time comes the record asks the log for the events it keeps (every one it
 * published), and is deleted only once the log holds none of them: it never
 * races the cron, and no listed event loses its body. While the log still
 * holds some, it asks again later (END_RECHECK_MS, at most its own window).
 * That is also why events/list by record needs no index of the log by
 * record: the record names every event the log may hold of it
 * (src/events/log.ts).
 *
 * After that, the partner's operations on it (check-id, a2c/get-by-id,
 * cancel, hold-confirm) rebuild it from the upstream:
 * - only a record the upstream created at least the retention window ago, so
 *   a create whose record is not written yet is never taken for a deleted
 *   one (its owner and events would be lost);
 * - owned by the partner: who owned it (a user's sub, the tid they chose) was
 *   deleted with it, and a user's operations on it answer 404 as on any
 *   record they cannot prove is theirs; the tid shown is the upstream's;
 * - no `created` event (it was created long ago), and its event sequence
 *   starts at the rebuild's time in milliseconds: the deleted record's
 *   sequences (1, 2, ...) are far below it, so a receiver that keeps the
 *   highest sequence per receipt takes a rebuilt record's events as newer
 *   and never ignores a real change as stale;
 * - closed at the edge when the upstream still shows a state the gateway
 *   ends (rule 12's: unpaid, or held): the gateway deletes only final
 *   records, so such a one was closed at the edge (its guesses ran out or
 *   it expired, and the upstream had no cancel for it or refused it). What
 *   the gateway ended stays ended: rebuilt open, its guesses would count
 *   from nothing and a fourth OTP would reach the upstream (rule 2 counts
 *   across the record's end). Which of the two ended it went with the
 *   record, so it comes back expired (receipt_expired: it is unpaid and
 *   long past its window either way; "three wrong OTPs" would accuse a card
 *   owner who may never have guessed), with no event (the deleted record
 *   sent its own), and no cancel owed (the upstream is never asked again).
 */

import { readConfig } from "../config/config";
import type { Failure } from "../errors/errors";
import { recordHasLoggedEvents } from "../events/log";
import { type Caller, ownerOf } from "../rules/caller";
import { type KindName, kindNamed } from "../rules/kinds";
import { expiryRuleOf } from "../rules/lifecycle";
import { recordDeletionAt } from "../rules/schedule";
import { clock } from "../shared/clock";
import { log } from "../shared/log";
import type { UpstreamClient } from "../upstream/client";
import type { Alarm } from "./alarm";
import { type FiscalWatch, fiscalColumnsOf } from "./fiscal";
import { closedAtEdgeOf } from "./reconciler";
import { newRecordRow, type RecordRow, type RecordStore } from "./store";

/** How long a record whose events the log still holds waits before it asks again (never longer than its window). */
export const END_RECHECK_MS = 3_600_000;

/** The record an operation names: what a rebuild needs when nothing is stored. */
export interface RecordTarget {
  kind: KindName;
  id: string;
}

export class RecordEnd {
  readonly #store: RecordStore;
  readonly #alarm: Alarm;
  readonly #env: Env;
  readonly #retentionMs: number;
  readonly #fiscal: FiscalWatch;
  /**
   * Not before this (ms): the log still held events of the record when it last
   * asked. In memory: a new incarnation asks once more, one D1 read.
   */
  #notBefore = 0;

  constructor(store: RecordStore, alarm: Alarm, env: Env, retentionMs: number, fiscal: FiscalWatch) {
    this.#store = store;
    this.#alarm = alarm;
    this.#env = env;
    this.#retentionMs = retentionMs;
    this.#fiscal = fiscal;
  }

  /** When this record is to be deleted, or null while it is not final or owes something. */
  deleteAt(rec: RecordRow): number | null {
    const at = recordDeletionAt(
      {
        state: rec.state,
        edgeClosed: closedAtEdgeOf(rec),
        pending: rec.pending_op !== null,
        suspect: rec.suspect_since !== 0,
        unsentEvents: this.#store.outbox.hasUnsent(),
        fiscalPending: this.#fiscal.isPending(rec),
        listingOwed: this.#fiscal.owesListing(rec),
        changedAt: rec.updated_at,
      },
      this.#retentionMs,
    );
    return at === null ? null : Math.max(at, this.#notBefore);
  }

  /**
   * Deletes the record if its time has come (the alarm's first question) and
   * the event log holds none of its events. `idle` says whether the object
   * is still free of operations: one may begin while the log is asked, and
   * the record is then judged again as that operation left it.
   */
  async deleteIfDue(rec: RecordRow, now: number, idle: () => boolean): Promise<boolean> {
    const at = this.deleteAt(rec);
    if (at === null || at > now) return false;
    let logged: boolean;
    try {
      logged = await recordHasLoggedEvents(this.#env, rec.id, this.#store.outbox.eventIds());
    } catch (err) {
      // Not knowing is owing: the record stays, and asks again later.
      logged = true;
      log("warn", "record_end_check_failed", { id: rec.id, kind: rec.kind, error: err instanceof Error ? err.message : String(err) });
    }
    if (logged) {
      this.#notBefore = now + Math.min(END_RECHECK_MS, this.#retentionMs);
      log("info", "record_end_waits_for_events", { id: rec.id, kind: rec.kind, next_check_at: this.#notBefore });
      return false;
    }
    // Decided again on the record as it is now: an operation may have changed it while the log was asked.
    const current = this.#store.current;
    const still = current === null || !idle() ? null : this.deleteAt(current);
    if (still === null || still > now) return false;
    // The alarm that is firing is spent; one set since (by a drain meanwhile) is deleted with the record.
    this.#alarm.set(null);
    await this.#store.deleteAll();
    this.#alarm.fired();
    this.#notBefore = 0;
    log("info", "record_deleted", { id: rec.id, kind: rec.kind, state: rec.state, changed_at: rec.updated_at });
    return true;
  }

  /**
   * Rebuilds a deleted record from the upstream for the partner; null when
   * there is nothing to rebuild (the upstream has no such record, or one too
   * young to have been deleted) or the caller is not the partner.
   */
  async rebuild(target: RecordTarget | undefined, caller: Caller, upstream: UpstreamClient, requestId: string): Promise<RecordRow | null | Failure> {
    if (!target || caller.kind !== "partner") return null;
    const kind = kindNamed(target.kind);
    const read = await kind.read(upstream, target.id);
    if (!read.ok) return read.failure.code === "receipt_not_found" ? null : read.failure;
    const body = read.value;
    const now = clock.now();
    if (kind.idOf(body) !== target.id || kind.createdAtOf(body) > now - this.#retentionMs) return null;
    const state = kind.stateOf(body);
    const merchant = kind.merchantOfBody(body);
    // What the gateway ended stays ended (module header): a state the gateway ends is one it deletes only once ended.
    const ended = expiryRuleOf(target.kind, state);
    const row = newRecordRow({
      kind: target.kind,
      id: target.id,
      tid: body.tid,
      upstream_tid: body.tid,
      owner: ownerOf(caller),
      is_hold: state === 5 ? 1 : 0,
      qr_merchant: merchant !== undefined && readConfig(this.#env).qrMerchantIds.has(merchant) ? 1 : 0,
      is_verify: body.is_verify ? 1 : 0,
      state,
      body: JSON.stringify(body),
      created_at: now,
    });
    // A rebuilt receipt whose fiscal data is missing is watched and listed from now (rule 14).
    const closed = ended ? { expiry: ended.reason, edge_closed: 1 } : {};
    this.#store.create({ ...row, ...fiscalColumnsOf(target.kind, body, now), ...closed, event_seq: now }, () => {
      this.#store.trail.add({ at: now, op: "rebuild", actor: ownerOf(caller), request_id: requestId, outcome: "ok" });
    });
    log("info", "record_rebuilt", { request_id: requestId, id: target.id, kind: target.kind, state, closed_at_edge: ended !== null });
    return this.#store.current;
  }
}
