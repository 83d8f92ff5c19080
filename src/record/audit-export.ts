/**
 * A record's part of rule 15: its audit trail is the outbox of the audit
 * trail in R2. The entries not yet exported go to the record's writer
 * (src/audit/writer.ts) with the record's next alarm, held at most
 * holdMs (half of AUDIT_FLUSH_SECONDS) after the oldest of them: an
 * alarm due by then carries them, and only where none is does the record
 * set one for them. So the entries of a payment's operations that follow
 * each other within the hold go in one append (a writer request and a row),
 * where an append each operation was three. Only once the writer answered
 * (they are durable there) are they marked exported; the mark rides the
 * alarm's write of the row (src/record/trail-rows.ts markExported). A record
 * stopped before the mark was written sends them again, with the same ids
 * (the writer keeps one of each it still holds; readers keep one of each in
 * R2). A record is not deleted while it owes entries (src/record/wake.ts).
 */

import { type AuditLine, chainFor, holdMs } from "../audit/entries";
import { eventOwner } from "../rules/caller";
import { backoffMs } from "../rules/schedule";
import { log } from "../shared/log";
import type { AuditTuple } from "./row";
import type { RecordStore } from "./store";

/** The entries a record's trail shows, as lines of the audit trail in R2. */
export function recordLines(store: RecordStore): { lines: AuditLine[]; last: AuditTuple } | null {
  const rec = store.current;
  const owed = store.trail.toExport();
  if (!rec || owed.length === 0) return null;
  const user = rec.owner.startsWith("user:") ? eventOwner(rec.owner) : undefined;
  let detail: Record<string, unknown> | undefined;
  const detailOf = () => {
    if (detail) return detail;
    const body = store.parsedBody<Record<string, unknown>>();
    detail =
      rec.kind === "receipt"
        ? {
            tid: rec.tid,
            amount: body.amount,
            merchant_id: (body.merchant as { merchant_id?: number } | undefined)?.merchant_id,
            account: Array.isArray(body.account) ? body.account : [],
          }
        : { tid: rec.tid, amount: (body.receiver as { amount?: number } | undefined)?.amount };
    return detail;
  };
  const lines = owed.map(({ entry, n }) => ({
    id: `${rec.kind === "receipt" ? "r" : "t"}:${rec.id}:${entry.at}:${n}`,
    at: entry.at,
    source: "record" as const,
    op: entry.op,
    // As the record's own trail answers them: "partner", "user:<sub>", "gateway", "operator".
    actor: entry.actor.startsWith("partner:") ? "partner" : entry.actor,
    request_id: entry.request_id,
    outcome: entry.outcome,
    state: entry.state,
    kind: rec.kind,
    receipt_id: rec.id,
    ...(user ? { user } : {}),
    ...(entry.op === "create" || entry.op === "rebuild" ? { detail: detailOf() } : {}),
  }));
  return { lines, last: owed[owed.length - 1]!.tuple };
}

export class AuditExport {
  readonly #store: RecordStore;
  readonly #env: Env;
  #failures = 0;
  #exporting: Promise<void> | null = null;

  constructor(store: RecordStore, env: Env) {
    this.#store = store;
    this.#env = env;
  }

  /** Entries of the trail are not in R2 yet. */
  get owed(): boolean {
    return this.#store.current !== null && this.#store.trail.toExport().length > 0;
  }

  /** Owed past their hold, and no export failed lately or is under way: worth sending at once (an operation that came after the alarm was due). */
  ready(now: number): boolean {
    if (this.#failures !== 0 || this.#exporting !== null) return false;
    const oldest = this.#oldestOwedAt();
    return oldest !== null && oldest + holdMs(this.#env) <= now;
  }

  /**
   * When the alarm should come for owed entries, and the latest an alarm
   * already set may be: the oldest owed entry's hold ends (an alarm due
   * sooner carries them, and the operations meanwhile add theirs), or after
   * a failed export its backoff.
   */
  dueAt(now: number): { at: number; latest: number } | null {
    const oldest = this.#oldestOwedAt();
    if (oldest === null) return null;
    if (this.#failures > 0) {
      const wait = backoffMs(this.#failures);
      return { at: now + wait, latest: now + 2 * wait };
    }
    const at = oldest + holdMs(this.#env);
    return { at, latest: at };
  }

  /** The time of the oldest entry not exported yet, or null when none is owed. */
  #oldestOwedAt(): number | null {
    if (this.#store.current === null) return null;
    return this.#store.trail.toExport()[0]?.entry.at ?? null;
  }

  /** Sends the owed entries to the record's writer; marks them once it answered. Never throws. */
  export(): Promise<void> {
    this.#exporting ??= this.#send().finally(() => {
      this.#exporting = null;
    });
    return this.#exporting;
  }

  async #send(): Promise<void> {
    const owed = recordLines(this.#store);
    if (!owed) return;
    const rec = this.#store.current!;
    const chain = chainFor(this.#env, `${rec.kind}:${rec.id}`);
    try {
      // Grouped with other records' appends in one row write: nobody's answer waits for it.
      await this.#env.AUDIT_WRITER.get(this.#env.AUDIT_WRITER.idFromName(chain)).append(chain, owed.lines, { group: true });
      this.#store.trail.markExported(owed.last);
      this.#failures = 0;
    } catch (err) {
      this.#failures++;
      log("warn", "audit_export_failed", {
        id: rec.id,
        kind: rec.kind,
        entries: owed.lines.length,
        failures: this.#failures,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
}
