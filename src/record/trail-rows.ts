/**
 * The audit trail of a record's object, kept in the record's own row (its
 * `audit` column: one page for the whole record, docs/capacity.md), the
 * last MAX_AUDIT_ENTRIES entries as tuples, and how far rule 15's export to
 * the audit trail in R2 has come.
 *
 * An entry is no change of the record: it moves neither updated_at nor the
 * row's version. It is written with the change in hand (inside one), or at
 * once; the export's mark waits for the row's next write, as the drain's
 * mark does.
 */
import { type AuditEntry, type AuditTuple, MAX_AUDIT_ENTRIES, type RecordRow } from "./row";

/** How the trail reads and writes its column of the record's row (the store's). */
export interface TrailWriter {
  /** The row as last read or written; null before the record exists. */
  row(): RecordRow | null;
  /** The column changed: written with the change in hand (inside one), or at once. */
  write(audit: string): void;
  /** With the row's next write. */
  defer(fields: { audit: string }): void;
}

/** An entry rule 15 has yet to export: the entry, its place among the entries of its millisecond, its tuple as stored. */
export interface OwedEntry {
  entry: AuditEntry;
  n: number;
  tuple: AuditTuple;
}

const entryOf = ([at, op, actor, request_id, outcome, state]: AuditTuple): AuditEntry => ({ at, op, actor, request_id, outcome, state });

export class TrailRows {
  readonly #writer: TrailWriter;

  constructor(writer: TrailWriter) {
    this.#writer = writer;
  }

  /** Appends an entry, with the record's state as it is now. */
  add(entry: Omit<AuditEntry, "state">): void {
    const row = this.#writer.row();
    if (!row) return;
    const entries = JSON.parse(row.audit) as AuditTuple[];
    entries.push([entry.at, entry.op, entry.actor, entry.request_id, entry.outcome, row.state]);
    this.#writer.write(JSON.stringify(entries.slice(-MAX_AUDIT_ENTRIES)));
  }

  /**
   * Rule 15: the entries of the trail not yet in the audit trail in R2, each
   * with its place among the entries of its millisecond (its id's last part),
   * oldest first; none when every entry is exported. The last exported entry
   * carries a seventh element, 1 (an older release reads past it and keeps
   * it): every entry before it is exported too.
   */
  toExport(): OwedEntry[] {
    const row = this.#writer.row();
    if (!row) return [];
    const tuples = JSON.parse(row.audit) as AuditTuple[];
    let from = 0;
    for (let i = tuples.length - 1; i >= 0; i--) {
      if ((tuples[i] as unknown[])[6] === 1) {
        from = i + 1;
        break;
      }
    }
    const seen = new Map<number, number>();
    const out: OwedEntry[] = [];
    tuples.forEach((tuple, i) => {
      const n = seen.get(tuple[0]) ?? 0;
      seen.set(tuple[0], n + 1);
      if (i < from) return;
      out.push({ entry: entryOf(tuple), n, tuple });
    });
    return out;
  }

  /**
   * These entries (the last of what toExport gave) are in the audit trail in
   * R2: the mark moves to it, written with the row's next write (or the
   * alarm's at the latest), as the drain's mark is.
   */
  markExported(last: AuditTuple): void {
    const row = this.#writer.row();
    if (!row) return;
    const tuples = JSON.parse(row.audit) as unknown[][];
    let at = -1;
    for (let i = tuples.length - 1; i >= 0; i--) {
      const t = tuples[i]!;
      if (t[0] === last[0] && t[1] === last[1] && t[3] === last[3] && t[4] === last[4]) {
        at = i;
        break;
      }
    }
    if (at < 0) return;
    const marked = tuples.map((t, i) => (i === at ? [...t.slice(0, 6), 1] : t.slice(0, 6)));
    this.#writer.defer({ audit: JSON.stringify(marked) });
  }

  entries(): AuditEntry[] {
    const row = this.#writer.row();
    if (!row) return [];
    return (JSON.parse(row.audit) as AuditTuple[]).map(entryOf);
  }
}
