/**
 * One Durable Object per subject of rule 13 ("card:<fingerprint>" or
 * "user:<sub>"): its counters, exact across every location, because every
 * use of the subject is counted in this one object.
 *
 * A counter is a sliding window kept as a log: one row per use (per new
 * card, for a user's distinct cards), with the time it leaves the window.
 * Exact where a fixed window lets twice the limit through across its edge,
 * and cheap here because a refused use writes nothing: a counter never holds
 * more rows than its limit (at the defaults a card object at most 20 rows, a
 * user's at most 25, each ~100 bytes). Each admitted use writes its row and
 * later deletes it.
 *
 * A check-and-count is one synchronous step (no await between reading the
 * count and writing the row), and the object runs one step at a time, so
 * however many uses arrive at once, exactly the limit gets through. Rows end
 * with their window (rule 10): each call deletes the subject's expired rows
 * first, and an alarm at the last row's end deletes the object itself once
 * nothing is left.
 */
import { DurableObject } from "cloudflare:workers";
import { clock } from "../clock";
import type { RiskRule } from "./limits";

/** One counter to check and count: its rule, its limit, its window, and for a distinct count the thing counted. */
export interface Counter {
  rule: RiskRule;
  limit: number;
  windowMs: number;
  /** Distinct counts (a user's cards): the card's fingerprint. A card already in the window is no new use. */
  distinct?: string;
}

/** A row an admission wrote, to take back if another subject refuses the same call. */
export type Written = readonly [rule: RiskRule, ref: string];

export type Admission = { ok: true; written: Written[] } | { ok: false; rule: RiskRule; retryAfterMs: number };

export class RiskObject extends DurableObject<Env> {
  #alarmSet = false;

  /** The counters' table, created when missing: deleteAll takes it away with the rows. */
  #table(): SqlStorage {
    const sql = this.ctx.storage.sql;
    sql.exec(
      "CREATE TABLE IF NOT EXISTS uses (rule TEXT NOT NULL, ref TEXT NOT NULL, until INTEGER NOT NULL, PRIMARY KEY (rule, ref)) WITHOUT ROWID",
    );
    return sql;
  }

  /**
   * Checks every counter and, only if none is at its limit, counts the use in
   * each: all or nothing, so a refused call counts nothing. A refusal says
   * which rule and how long until its window lets one more use through.
   */
  async admit(counters: readonly Counter[]): Promise<Admission> {
    const now = clock.now();
    const sql = this.#table();
    sql.exec("DELETE FROM uses WHERE until <= ?", now);
    const fresh: Counter[] = [];
    for (const counter of counters) {
      if (
        counter.distinct !== undefined &&
        sql.exec("SELECT 1 FROM uses WHERE rule = ? AND ref = ?", counter.rule, counter.distinct).toArray().length > 0
      ) {
        continue;
      }
      const { n, first } = sql
        .exec<{ n: number; first: number | null }>("SELECT count(*) AS n, min(until) AS first FROM uses WHERE rule = ?", counter.rule)
        .one();
      if (n >= counter.limit) return { ok: false, rule: counter.rule, retryAfterMs: Math.max(0, (first ?? now) - now) };
      fresh.push(counter);
    }
    const written: Written[] = [];
    for (const counter of fresh) {
      const ref = counter.distinct ?? crypto.randomUUID();
      sql.exec("INSERT INTO uses (rule, ref, until) VALUES (?, ?, ?)", counter.rule, ref, now + counter.windowMs);
      written.push([counter.rule, ref]);
    }
    if (written.length > 0) await this.#armAlarm(now + Math.max(...fresh.map((c) => c.windowMs)));
    return { ok: true, written };
  }

  /** Takes back what admit wrote for a call another subject refused. */
  async release(written: readonly Written[]): Promise<void> {
    const sql = this.#table();
    for (const [rule, ref] of written) sql.exec("DELETE FROM uses WHERE rule = ? AND ref = ?", rule, ref);
  }

  /** The last row's end: expired rows go; an object with none left deletes itself, else waits for its newest row. */
  override async alarm(): Promise<void> {
    this.#alarmSet = false;
    const sql = this.#table();
    sql.exec("DELETE FROM uses WHERE until <= ?", clock.now());
    const { last } = sql.exec<{ last: number | null }>("SELECT max(until) AS last FROM uses").one();
    if (last === null) {
      await this.ctx.storage.deleteAll();
      return;
    }
    await this.#armAlarm(last);
  }

  /** One alarm at a time, set once and moved on by alarm() itself: an admission writes no alarm when one is pending. */
  async #armAlarm(at: number): Promise<void> {
    if (this.#alarmSet) return;
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(at);
    this.#alarmSet = true;
  }
}
