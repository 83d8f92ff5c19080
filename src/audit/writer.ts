/**
 * A writer of the audit trail (rule 15): one Durable Object per chain
 * (`w0`, `w1`, ...: AUDIT_CHAINS of them). `append` keeps the entries in
 * its SQLite and answers once they are durable; its alarm flushes them
 * within AUDIT_FLUSH_SECONDS of the oldest entry's time (a record holds its
 * entries up to half of that before it sends them: src/audit/entries.ts
 * holdMs), at once past FLUSH_AT entries, as batches of
 * its chain, one per UTC hour of their times, oldest first (src/audit/batch.ts),
 * then moves the chain's head and deletes what it flushed in one storage
 * transaction. A flush cut short writes the same batches again under the
 * same keys, since the head did not move. `rewrite` is erasure's
 * (src/audit/erase.ts): the rewrite is recorded in the chain before the
 * batch's new bytes are put, so verification tells it from tampering.
 * One flush or rewrite at a time (R2 calls let other requests in).
 * An entry sent again while the writer still holds it, or just after the
 * flush that put it (a record stopped before it wrote its mark sends its
 * entries again, with the same ids, by its alarm's retry), is kept once, so
 * R2 holds it once; one sent again later (this writer stopped meanwhile) is
 * a second copy readers keep one of, as audit:verify counts it.
 *
 * Appends share a row: each one rewrites the newest waiting row with its
 * entries added (up to ROW_ENTRIES), so an append writes one row and its
 * flush deletes one row per many appends, where a row each was two rows
 * written an append (its insert, its delete): the trail's rows are billed
 * per row written (docs/capacity.md). A shared row keeps the layout of one
 * row per append ({chain, entries}), so any release of the writer reads it.
 */
import { DurableObject } from "cloudflare:workers";
import { log } from "../shared/log";
import { erasePersonal } from "../shared/redact";
import {
  type BatchHeader,
  batchKey,
  batchMetadata,
  formatBatch,
  GENESIS,
  type Head,
  headKey,
  hourOf,
  parseBatch,
  parseBatchKey,
  sha256Hex,
} from "./batch";
import { type AuditLine, cleanLine, flushMs, holdsPersonalValues } from "./entries";

/** Entries waiting that make a flush due at once. */
export const FLUSH_AT = 2_000;
/** Entries one flush takes (the rest wait for the next, at once). */
const FLUSH_MAX = 10_000;
/** Entries a waiting row takes before an append starts another: ~10 KB rewritten at most an append. */
export const ROW_ENTRIES = 32;
/**
 * How long a record's append waits for others to share its row write: its record waits that much longer for
 * the answer (object duration, ~$0.2 a million appends at 100 ms), where a row is $1 a million; at 10M
 * payments a day a writer gets ~60 appends a second, so a write carries ~7 (docs/capacity.md).
 */
export const GROUP_MS = 100;

export class AuditWriter extends DurableObject<Env> {
  readonly #sql: SqlStorage;
  /** The alarm this incarnation set (undefined: not known yet). */
  #alarmAt: number | null | undefined;
  #busy: Promise<unknown> = Promise.resolve();
  /** The waiting row appends add to, as stored (null: the next append starts one; a flush closes it). */
  #open: { n: number; chain: string; text: string; count: number } | null = null;
  /** The ids of the entries waiting (null: not read since the last flush). */
  #waiting: Set<string> | null = null;
  /** The ids of the entries this incarnation's last flush put. */
  #flushed: ReadonlySet<string> = new Set();
  /** Appends waiting for their row write (a record's, grouped: append), and when it comes. */
  #queue: { chain: string; entries: AuditLine[]; resolve: () => void; reject: (err: unknown) => void }[] = [];
  #timer: ReturnType<typeof setTimeout> | null = null;
  /** The ids of the entries queued, with the promise of their write. */
  readonly #queuedIds = new Map<string, Promise<void>>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    this.#sql.exec(`
      CREATE TABLE IF NOT EXISTS pending (n INTEGER PRIMARY KEY AUTOINCREMENT, entries TEXT NOT NULL, count INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS head (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), chain TEXT NOT NULL, seq INTEGER NOT NULL, hash TEXT NOT NULL, key TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS erased (user TEXT PRIMARY KEY, until INTEGER NOT NULL);`);
  }

  /**
   * Erasure (rule 10), before the trail's eraser flushes and walks the batches: from now until `until`, an
   * appended entry of `user` that holds personal values is kept with them masked. An export that was on its
   * way while the user's records were erased (it left with the values) then lands masked, after the walk that
   * would have missed it.
   */
  async forget(user: string, until: number): Promise<void> {
    this.#sql.exec("DELETE FROM erased WHERE until <= ?", Date.now());
    this.#sql.exec("INSERT INTO erased (user, until) VALUES (?, ?) ON CONFLICT (user) DO UPDATE SET until = excluded.until", user, until);
  }

  /** The entry as kept: masked when its user is being erased (forget). */
  #masked(line: AuditLine): AuditLine {
    if (!line.user || !line.detail || !holdsPersonalValues(line)) return line;
    const erased = this.#sql.exec("SELECT 1 FROM erased WHERE user = ? AND until > ?", line.user, Date.now()).toArray().length > 0;
    return erased ? { ...line, detail: { ...(erasePersonal(line.detail) as Record<string, unknown>), erased: true } } : line;
  }

  /**
   * Keeps these entries for the chain's next batch; answers once they are durable. `group` (a record's export,
   * which no caller waits for): written with the other appends of the next GROUP_MS in one row write, so
   * at 10M payments a day a writer writes a row per several appends; without it (a gateway call, a staff
   * action: their answer waits), written at once, with whatever waits to be grouped. A release before reads
   * no third argument and writes each at once.
   */
  async append(chain: string, entries: readonly AuditLine[], options?: { group?: boolean }): Promise<void> {
    const waiting = this.#waitingIds();
    const queued: Promise<void>[] = [];
    const fresh = entries.filter((entry, i) => {
      if (waiting.has(entry.id) || this.#flushed.has(entry.id) || entries.findIndex((other) => other.id === entry.id) !== i) return false;
      // Sent again while its first append waits for its write: durable when that one is.
      const first = this.#queuedIds.get(entry.id);
      if (first) queued.push(first);
      return !first;
    });
    const done = fresh.length === 0 ? null : this.#enqueue(chain, fresh.map(cleanLine));
    if (done && options?.group !== true) void this.#commit();
    else if (done) this.#timer ??= setTimeout(() => void this.#commit(), GROUP_MS);
    await Promise.all([done, ...queued]);
  }

  /** Queues entries for the next write: the promise settles once they are durable (or their write failed). */
  #enqueue(chain: string, clean: AuditLine[]): Promise<void> {
    let settle!: { resolve: () => void; reject: (err: unknown) => void };
    const done = new Promise<void>((resolve, reject) => {
      settle = { resolve, reject };
    });
    this.#queue.push({ chain, entries: clean, ...settle });
    for (const entry of clean) this.#queuedIds.set(entry.id, done);
    return done;
  }

  /** Writes every queued append (a row write a chain), arms the flush, and answers them. */
  async #commit(): Promise<void> {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const items = this.#queue.splice(0);
    if (items.length === 0) return;
    // Masked as the write finds the erasures (forget): one that began while they were queued masks them too.
    for (const item of items) item.entries = item.entries.map((entry) => this.#masked(entry));
    const all = items.flatMap((item) => item.entries);
    try {
      for (const chain of new Set(items.map((item) => item.chain)))
        this.#write(
          chain,
          items.filter((item) => item.chain === chain).flatMap((item) => item.entries),
        );
      const waiting = this.#waitingIds();
      for (const entry of all) waiting.add(entry.id);
      const count = this.#sql.exec<{ n: number }>("SELECT coalesce(sum(count), 0) AS n FROM pending").one().n;
      // Within AUDIT_FLUSH_SECONDS of the oldest entry's time (an entry in the future, a sandbox record's own time, counts from now).
      const oldest = Math.min(Date.now(), ...all.map((entry) => entry.at));
      await this.#arm(count >= FLUSH_AT ? Date.now() : oldest + flushMs(this.env));
      for (const item of items) item.resolve();
    } catch (err) {
      for (const item of items) item.reject(err);
    } finally {
      for (const entry of all) this.#queuedIds.delete(entry.id);
    }
  }

  /** One row write: these entries added to the waiting row (up to ROW_ENTRIES), or a row of their own. */
  #write(chain: string, clean: readonly AuditLine[]): void {
    const open = this.#open;
    const shared = open !== null && open.chain === chain && open.count + clean.length <= ROW_ENTRIES ? open : null;
    if (shared) {
      // The row's text with these entries added to its list: what JSON.stringify({chain, entries}) of them all gives, without writing the others again.
      const text = `${shared.text.slice(0, -2)},${JSON.stringify(clean).slice(1)}}`;
      const count = shared.count + clean.length;
      const written = this.#sql.exec("UPDATE pending SET entries = ?, count = ? WHERE n = ?", text, count, shared.n).rowsWritten;
      if (written > 0) Object.assign(shared, { text, count });
      else this.#open = null;
    }
    if (!shared || this.#open === null) {
      const text = JSON.stringify({ chain, entries: clean });
      const n = this.#sql.exec<{ n: number }>("INSERT INTO pending (entries, count) VALUES (?, ?) RETURNING n", text, clean.length).one().n;
      this.#open = { n, chain, text, count: clean.length };
    }
  }

  /** The ids of the entries waiting, read from storage once after each flush. */
  #waitingIds(): Set<string> {
    if (this.#waiting) return this.#waiting;
    const ids = new Set<string>();
    for (const row of this.#sql.exec<{ entries: string }>("SELECT entries FROM pending"))
      for (const entry of (JSON.parse(row.entries) as { entries: AuditLine[] }).entries) ids.add(entry.id);
    this.#waiting = ids;
    return ids;
  }

  override async alarm(): Promise<void> {
    this.#alarmAt = null;
    await this.flush();
  }

  /** Writes every waiting entry to R2 now (the alarm's work; the eraser's and tests', to see a batch at once), those queued for their row write too. */
  async flush(): Promise<number> {
    await this.#commit();
    return this.#serially(() => this.#flush());
  }

  /** The chain's head as this writer keeps it, or null before its first batch. */
  async head(): Promise<Head | null> {
    return this.#head();
  }

  /**
   * Erasure (rule 10): masks `user`'s personal values in the batch at `key`
   * (of this writer's chain), after recording the rewrite in the chain.
   * False when the batch holds nothing of theirs to mask (or is gone).
   */
  rewrite(key: string, user: string): Promise<boolean> {
    return this.#serially(async () => {
      const place = parseBatchKey(key);
      const object = await this.env.AUDIT.get(key);
      if (!place || !object) return false;
      const text = await object.text();
      const { header, entries } = parseBatch(text);
      if (!header) return false;
      let changed = false;
      const masked = entries.map((entry) => {
        if (entry.user !== user || !entry.detail || !holdsPersonalValues(entry)) return entry;
        const detail = erasePersonal(entry.detail) as Record<string, unknown>;
        if (JSON.stringify(detail) === JSON.stringify(entry.detail)) return entry;
        changed = true;
        return { ...entry, detail: { ...detail, erased: true } };
      });
      if (!changed) return false;
      const next = formatBatch(header, masked);
      const rewrite = {
        key,
        seq: place.seq,
        old: await sha256Hex(text),
        new: await sha256Hex(next),
        reason: "erasure" as const,
        user_hash: await sha256Hex(user),
      };
      // First the record of the rewrite, in this chain; then the new bytes.
      await this.#flush({ rewrite, chain: place.chain });
      await this.env.AUDIT.put(key, next, { customMetadata: batchMetadata(masked), httpMetadata: { contentType: "application/x-ndjson" } });
      log("info", "audit_batch_rewritten", { key, reason: "erasure" });
      return true;
    });
  }

  #serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#busy.then(work, work);
    this.#busy = run.catch(() => undefined);
    return run;
  }

  #head(): Head | null {
    return (this.#sql.exec("SELECT chain, seq, hash, key FROM head").toArray()[0] as Head | undefined) ?? null;
  }

  async #arm(at: number): Promise<void> {
    if (this.#alarmAt === undefined) this.#alarmAt = await this.ctx.storage.getAlarm();
    if (this.#alarmAt !== null && this.#alarmAt <= at) return;
    await this.ctx.storage.setAlarm(at);
    this.#alarmAt = at;
  }

  /** One flush: the waiting entries as batches (and a rewrite's record, when one is given), then the head. */
  async #flush(extra?: { rewrite: NonNullable<BatchHeader["rewrite"]>; chain: string }): Promise<number> {
    // The rows read here are deleted once their batches are in R2: an append meanwhile starts a row of its own.
    this.#open = null;
    const rows = this.#sql.exec<{ n: number; entries: string; count: number }>("SELECT n, entries, count FROM pending ORDER BY n").toArray();
    let taken = 0;
    let last = 0;
    let chain = extra?.chain ?? null;
    const entries: AuditLine[] = [];
    for (const row of rows) {
      if (taken > 0 && taken + row.count > FLUSH_MAX) break;
      const parsed = JSON.parse(row.entries) as { chain: string; entries: AuditLine[] };
      chain ??= parsed.chain;
      entries.push(...parsed.entries);
      taken += row.count;
      last = row.n;
    }
    if (chain === null) return 0;
    // By time; a batch per hour, oldest hour first. The id breaks ties, so the same rows make the same bytes.
    entries.sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const byHour = new Map<string, AuditLine[]>();
    for (const entry of entries) {
      const hour = hourOf(entry.at);
      byHour.set(hour, [...(byHour.get(hour) ?? []), entry]);
    }
    let head = this.#head() ?? { chain, seq: 0, hash: GENESIS, key: "" };
    const now = Date.now();
    const batches: { header: BatchHeader; entries: AuditLine[] }[] = [...byHour].map(([hour, list]) => ({
      header: { chain, seq: 0, prev: "", hour, count: list.length, written_at: now },
      entries: list,
    }));
    if (extra)
      batches.push({ header: { chain, seq: 0, prev: "", hour: hourOf(now), count: 0, written_at: now, rewrite: extra.rewrite }, entries: [] });
    for (const batch of batches) {
      const header = { ...batch.header, seq: head.seq + 1, prev: head.hash };
      const text = formatBatch(header, batch.entries);
      const key = batchKey(header.hour, chain, header.seq);
      await this.env.AUDIT.put(key, text, { customMetadata: batchMetadata(batch.entries), httpMetadata: { contentType: "application/x-ndjson" } });
      head = { chain, seq: header.seq, hash: await sha256Hex(text), key };
      await this.env.AUDIT.put(headKey(chain), JSON.stringify(head), { httpMetadata: { contentType: "application/json" } });
    }
    const moved = head;
    this.ctx.storage.transactionSync(() => {
      this.#sql.exec(
        "INSERT OR REPLACE INTO head (singleton, chain, seq, hash, key) VALUES (1, ?, ?, ?, ?)",
        moved.chain,
        moved.seq,
        moved.hash,
        moved.key,
      );
      if (last > 0) this.#sql.exec("DELETE FROM pending WHERE n <= ?", last);
    });
    this.#waiting = null;
    if (entries.length > 0) this.#flushed = new Set(entries.map((entry) => entry.id));
    if (taken < rows.reduce((sum, row) => sum + row.count, 0)) await this.#arm(Date.now());
    return taken;
  }
}
