/**
 * A day's statement under way (rule 16), as its builder keeps it in its
 * Durable Object's SQLite: the run (cursors, totals, mismatches, the two
 * uploads) as one row, and what is short of an upload's next part as the
 * tail, in chunks of 1 MiB (a row holds at most 2 MB).
 */
import type { Mismatch, Total } from "./format";

/** One of the day's two files, a multipart upload to R2 under way. */
export interface Upload {
  key: string;
  uploadId: string;
  parts: R2UploadedPart[];
  bytes: number;
}

export interface Run {
  date: string;
  generation: number;
  zone: string;
  from: number;
  to: number;
  /** The day had ended when the build began: a statement of a day not over yet is partial, and written again after it. */
  complete: boolean;
  started_at: number;
  cursors: Record<string, string>;
  exhausted: Record<string, boolean>;
  totals: Record<string, Total>;
  mismatches: Mismatch[];
  mismatch_count: number;
  checked: number;
  lines: number;
  csv: Upload;
  json: Upload;
  done_at: number | null;
}

export interface StatementStatus {
  date: string;
  state: "building" | "ready" | "none";
  generation: number;
  complete: boolean;
  lines: number;
  checked: number;
  mismatches: number;
  generated_at: number | null;
}

export type StatementFile = "csv" | "json";

export function statusOf(run: Run): StatementStatus {
  return {
    date: run.date,
    state: run.done_at === null ? "building" : "ready",
    generation: run.generation,
    complete: run.complete,
    lines: run.lines,
    checked: run.checked,
    mismatches: run.mismatch_count,
    generated_at: run.done_at,
  };
}

/** The builder's storage: the run and the two files' tails. */
export class RunStorage {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
    this.#sql.exec(`
      CREATE TABLE IF NOT EXISTS run (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), state TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS tail (file TEXT NOT NULL, n INTEGER NOT NULL, bytes BLOB NOT NULL, PRIMARY KEY (file, n));`);
  }

  run(): Run | null {
    const row = this.#sql.exec<{ state: string }>("SELECT state FROM run").toArray()[0];
    return row ? (JSON.parse(row.state) as Run) : null;
  }

  save(run: Run): void {
    this.#sql.exec("INSERT OR REPLACE INTO run (singleton, state) VALUES (1, ?)", JSON.stringify(run));
  }

  /** A new run starts with no tail of the run before. */
  clearTails(): void {
    this.#sql.exec("DELETE FROM tail");
  }

  tail(file: StatementFile): Uint8Array {
    const chunks = this.#sql.exec<{ bytes: ArrayBuffer }>("SELECT bytes FROM tail WHERE file = ? ORDER BY n", file).toArray();
    const total = chunks.reduce((sum, chunk) => sum + chunk.bytes.byteLength, 0);
    const out = new Uint8Array(total);
    let at = 0;
    for (const chunk of chunks) {
      out.set(new Uint8Array(chunk.bytes), at);
      at += chunk.bytes.byteLength;
    }
    return out;
  }

  saveTail(file: StatementFile, bytes: Uint8Array): void {
    this.#sql.exec("DELETE FROM tail WHERE file = ?", file);
    for (let i = 0, n = 0; i < bytes.length; i += 1 << 20, n++)
      this.#sql.exec("INSERT INTO tail (file, n, bytes) VALUES (?, ?, ?)", file, n, bytes.slice(i, i + (1 << 20)));
  }
}
