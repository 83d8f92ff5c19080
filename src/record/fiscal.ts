/**
 * Rule 14's part of the record: no paid receipt lacks its fiscal receipt
 * unnoticed. Whenever the recorder stores what the upstream showed, this
 * part puts the receipt in its fiscal phase (src/rules/lifecycle.ts fiscalPhaseOf):
 * paid with an `ofd` lacking a fiscal sign or QR address, or cancelled while
 * its refund shows no fiscal data, it is fiscal-pending; the data shown at
 * last is its event (`receipt.fiscalized`, `receipt.refund_fiscalized`), in
 * the same change. While it is pending the record's alarm reads the upstream
 * on FISCAL_READS's schedule (the reconciler's look, as the gateway: a read
 * needs no decision of the table, whoever asks), and the record does not end
 * (rule 10).
 *
 * The fiscal list (D1, src/d1/fiscal-list.ts) follows the record, its source of
 * truth: each change of what the list should show marks the listing owed in
 * the same change, and `sync` writes it after the change (never inside a
 * caller's answer), marking it done only if nothing changed meanwhile. A
 * write that fails is tried again by the alarm with backoff, and one whose
 * mark a crash lost is written again (both writes are idempotent), as the
 * outbox hands events to the event log.
 */

import { type FiscalListing, listFiscal, unlistFiscal } from "../d1/fiscal-list";
import { kindNamed, type RecordBody } from "../rules/kinds";
import { fiscalEventOf, fiscalPhaseOf, isFiscalPending } from "../rules/lifecycle";
import { backoffMs, fiscalReadAt, fiscalReadsDoneAt } from "../rules/schedule";
import { clock } from "../shared/clock";
import { log } from "../shared/log";
import type { Outbox } from "./outbox";
import type { RecordRow, RecordStore, Slice } from "./store";

export const FISCAL_COLUMNS = ["fiscal", "fiscal_since", "fiscal_reads", "fiscal_listed"] as const;

/** The alarm that backs up the listing written at once after a change, should the object stop before it. */
const LISTING_FALLBACK_MS = 10_000;

/** A record's fiscal columns for a receipt first stored in this state with this body (a rebuilt record: rule 10). */
export function fiscalColumnsOf(kind: RecordRow["kind"], body: RecordBody, now: number): Pick<RecordRow, (typeof FISCAL_COLUMNS)[number]> {
  const fiscal = fiscalPhaseOf({ kind, state: kindNamed(kind).stateOf(body), ofd: body.ofd, before: null });
  const pending = isFiscalPending(fiscal);
  return { fiscal, fiscal_since: pending ? now : 0, fiscal_reads: 0, fiscal_listed: pending ? 0 : 1 };
}

export class FiscalWatch {
  readonly #store: RecordStore;
  readonly #slice: Slice<(typeof FISCAL_COLUMNS)[number]>;
  readonly #outbox: Outbox;
  readonly #env: Env;
  readonly #schedule: readonly number[];
  /** Bumped by every change of what the list should show: a listing written from an older one is not marked done. */
  #changes = 0;
  /** Listing writes that failed in a row (the backoff). */
  #failures = 0;
  /** The listing write under way, if any (one at a time). */
  #syncing: Promise<void> | null = null;

  constructor(store: RecordStore, outbox: Outbox, env: Env, schedule: readonly number[]) {
    this.#store = store;
    this.#slice = store.slice("fiscal", FISCAL_COLUMNS);
    this.#outbox = outbox;
    this.#env = env;
    this.#schedule = schedule;
  }

  /** The fiscal data is missing: the record is watched, listed, and kept (rule 10). */
  isPending(rec: RecordRow = this.#store.current!): boolean {
    return isFiscalPending(rec.fiscal);
  }

  /** The fiscal list does not show the record as it stands yet. */
  owesListing(rec: RecordRow | null = this.#store.current): boolean {
    return rec !== null && rec.fiscal_listed === 0;
  }

  /**
   * What the upstream showed was just stored (the recorder's change): the
   * receipt's fiscal phase follows it, and the data shown at last is its
   * event. A look at the upstream counts as every scheduled read due by now.
   * Inside a change.
   */
  observed(requestId: string): void {
    const rec = this.#store.current!;
    const before = rec.fiscal;
    const ofd = this.#store.parsedBody<{ ofd?: unknown }>().ofd;
    const after = fiscalPhaseOf({ kind: rec.kind, state: rec.state, ofd, before });
    const now = clock.now();
    let { fiscal_since: since, fiscal_reads: reads } = rec;
    if (isFiscalPending(after) && after !== before) {
      // A new watch: the payment, or the refund, whose fiscal data is missing.
      since = now;
      reads = 0;
    } else if (isFiscalPending(after)) {
      reads = fiscalReadsDoneAt({ since, reads }, this.#schedule, now);
    }
    const listed = isFiscalPending(before) || isFiscalPending(after);
    const moved = after !== before || since !== rec.fiscal_since || reads !== rec.fiscal_reads;
    if (!moved) return;
    this.#slice.update({ fiscal: after, fiscal_since: since, fiscal_reads: reads, ...(listed ? { fiscal_listed: 0 } : {}) });
    if (listed) this.#changes++;
    const type = fiscalEventOf(rec.kind, before, after);
    if (type) this.#outbox.emit(type, rec.state, requestId, now);
  }

  /** When the next scheduled read is due, or null (not pending, or every read of the schedule done). */
  readAt(rec: RecordRow = this.#store.current!): number | null {
    if (!isFiscalPending(rec.fiscal)) return null;
    return fiscalReadAt({ since: rec.fiscal_since, reads: rec.fiscal_reads }, this.#schedule);
  }

  /** A scheduled read is due: the alarm looks at the upstream. */
  isDue(rec: RecordRow, now = clock.now()): boolean {
    const at = this.readAt(rec);
    return at !== null && at <= now;
  }

  /** When the alarm should come for the next read: a read that failed backs off like any other look. */
  dueAt(rec: RecordRow, now: number): number | null {
    const at = this.readAt(rec);
    if (at === null) return null;
    return rec.reconcile_attempts > 0 ? Math.max(at, now + backoffMs(rec.reconcile_attempts)) : at;
  }

  /** When the alarm should come back for an owed listing, and the latest an alarm already set may be; null when none is owed. */
  listingDueAt(now: number): { at: number; latest: number } | null {
    if (!this.owesListing()) return null;
    const wait = this.#failures === 0 ? LISTING_FALLBACK_MS : backoffMs(this.#failures);
    return { at: now + wait, latest: now + 2 * wait };
  }

  /** A listing is owed and no write has failed lately: worth writing at once. */
  get ready(): boolean {
    return this.#failures === 0 && this.#syncing === null && this.owesListing();
  }

  /** What the list should show of the record: its row, or none. */
  #listing(rec: RecordRow): FiscalListing | null {
    if (!isFiscalPending(rec.fiscal)) return null;
    const amount = kindNamed(rec.kind).amountOf(this.#store.parsedBody<RecordBody>());
    return {
      id: rec.id,
      tid: rec.tid,
      amount: typeof amount === "number" ? amount : 0,
      state: rec.state,
      since: rec.fiscal_since,
      reads: rec.fiscal_reads,
    };
  }

  /**
   * Writes the owed listing (the row, or its deletion), one write at a time;
   * marks it done once it landed and nothing changed meanwhile (else writes
   * again). The mark waits for the row's next write: an incarnation that
   * stops before it writes the same listing again. Never throws.
   */
  sync(): Promise<void> {
    this.#syncing ??= this.#sync().finally(() => {
      this.#syncing = null;
    });
    return this.#syncing;
  }

  async #sync(): Promise<void> {
    for (;;) {
      const rec = this.#store.current;
      if (!rec || !this.owesListing(rec)) return;
      const changes = this.#changes;
      const listing = this.#listing(rec);
      try {
        if (listing) await listFiscal(this.#env, listing);
        else await unlistFiscal(this.#env, rec.id);
      } catch (err) {
        this.#failures++;
        log("warn", "fiscal_listing_failed", {
          id: rec.id,
          fiscal: rec.fiscal,
          failures: this.#failures,
          error: err instanceof Error ? err.message : String(err),
        });
        return;
      }
      this.#failures = 0;
      // The record may have been deleted or changed while the list was written.
      if (this.#store.current === null) return;
      if (changes === this.#changes) {
        this.#slice.later({ fiscal_listed: 1 });
        return;
      }
    }
  }
}
