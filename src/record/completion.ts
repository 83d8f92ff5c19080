/**
 * The tid claim a record object owes: a create answers before its
 * tid row is completed (src/operations/creation.ts), so the answer waits for one D1
 * round trip, the claim. The completion is then done twice over, after the
 * answer: by the create's request (`waitUntil`), and owed by the record's
 * object, which stores that it owes it in its init's own storage commit
 * (`owed_completion`: the D1 binding holding the row, which with
 * TID_INDEX_SHARDS_PREVIOUS may be an earlier list's database, the claim and
 * the time of the answer). Its alarm completes the row (an UPDATE keyed by
 * the claim's token: a no-op when the request already did it, or when the
 * row is gone) and forgets, in memory at once and in storage with the
 * row's next write: no write of its own.
 *
 * Until then the row is a pending claim inside its lease: a retry gets
 * tid_in_progress and check-tid likewise, as rule 8's lease already makes
 * safe; a completion lost for longer than the lease is what an expired
 * claim always was: the identical retry takes it over and adopts the record.
 */
import { retentionPolicy } from "../config/retention-policy";
import { log } from "../shared/log";
import { completeTid, type HeldClaim, leaseMs } from "../tids/tid-index";
import type { RecordRow, RecordStore, Slice } from "./store";

export interface OwedCompletion extends HeldClaim {
  /** The D1 binding that holds the row (claimIndexFor's answer). */
  binding: string;
  receiptId: string;
  /** When the create was answered: the row's time, which the replay window counts from. */
  answeredAt: number;
}

/** How long after the answer the alarm looks at a completion the request should have done by then. */
export const COMPLETION_CHECK_MS = 10_000;
/** Between attempts while D1 refuses. */
const RETRY_MS = 60_000;

export class Completion {
  readonly #store: RecordStore;
  readonly #slice: Slice<"owed_completion">;
  readonly #env: Env;
  /** How long the create's claim holds its tid (src/tids/tid-index.ts leaseMs). */
  readonly #leaseMs: number;
  #failedAt = 0;

  constructor(store: RecordStore, env: Env, upstreamTimeoutMs: number) {
    this.#store = store;
    this.#slice = store.slice("completion", ["owed_completion"]);
    this.#env = env;
    this.#leaseMs = leaseMs(upstreamTimeoutMs);
  }

  /** A takeover's init (the same record, adopted) owes its own claim's completion. */
  owe(owed: OwedCompletion): void {
    const text = Completion.serialize(owed);
    if (this.#store.current?.owed_completion !== text) this.#slice.update({ owed_completion: text });
  }

  static serialize(owed: OwedCompletion): string {
    return JSON.stringify(owed);
  }

  owed(rec: RecordRow): OwedCompletion | null {
    return rec.owed_completion ? (JSON.parse(rec.owed_completion) as OwedCompletion) : null;
  }

  /**
   * When the alarm should complete what is owed, and the latest an alarm
   * already set may be and still do; null when nothing is. The check backs
   * up the request's own completion (a backstop, not a deadline), so an
   * alarm up to a claim's lease after the answer does: until about then the
   * row is a pending claim an identical retry and check-tid wait for
   * (tid_in_progress); past the lease, counted from the claim just before
   * the answer, the retry takes the claim over and adopts the record, as
   * for any create that never finished. At production's pace the trail's
   * export needs the alarm by then anyway, so the check costs no alarm of
   * its own. A retry after D1 refused is due at its time.
   */
  dueAt(rec: RecordRow): { at: number; latest: number } | null {
    const owed = this.owed(rec);
    if (!owed) return null;
    if (this.#failedAt) return { at: this.#failedAt + RETRY_MS, latest: this.#failedAt + RETRY_MS };
    return { at: owed.answeredAt + COMPLETION_CHECK_MS, latest: owed.answeredAt + this.#leaseMs };
  }

  /** Completes the owed row (if the request has not) and forgets it. Never throws: a failure waits for the next alarm. */
  async settle(rec: RecordRow, now: number): Promise<void> {
    const owed = this.owed(rec);
    if (!owed) return;
    try {
      const db = (this.#env as unknown as Record<string, D1Database | undefined>)[owed.binding];
      if (!db) throw new Error(`no D1 binding ${owed.binding}`);
      const done = await completeTid(db, owed, owed.receiptId, owed.answeredAt, retentionPolicy(this.#env).tidRetentionMs);
      if (done) log("info", "tid_completed_by_record", { id: owed.receiptId, binding: owed.binding });
      this.#failedAt = 0;
      // Only the completion it owed: a takeover's newer claim (init again) is owed anew. Forgotten with the row's
      // next write, if one comes: a later incarnation that still finds it completes it again, which changes nothing.
      if (this.#store.current?.owed_completion === rec.owed_completion) this.#slice.later({ owed_completion: null });
    } catch (err) {
      this.#failedAt = now;
      log("error", "tid_completion_failed", { id: owed.receiptId, binding: owed.binding, error: err instanceof Error ? err.message : String(err) });
    }
  }
}
