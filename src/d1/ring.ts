/**
 * A D1 table kept as a ring of slots: tables of the same shape, each taking
 * the rows written during one period, and emptied whole (`DROP TABLE`, then
 * the same `CREATE TABLE`) once every row it took is past its window, instead
 * of deleting its rows one by one. D1 bills a row written for each row a
 * `DELETE` removes; a dropped table writes none (`meta.rows_written` is 0),
 * and its pages go back to the database's free list for reuse, as a delete's
 * do.
 *
 * With a window of W, a slot takes rows for P = W / (RING_SLOTS - 2). During
 * period m the cron empties the slot period m + 1 writes to: it last took
 * rows during period m + 1 - RING_SLOTS, so the youngest of them was written
 * before (m + 2 - RING_SLOTS) P and is past W since m P, the start of the
 * period the cron runs in. A whole period is left for the cron to do it.
 *
 * Timing is never what keeps a row: the batch that empties a slot first
 * copies the rows still within their window (a row changed after it was
 * written, an event still undelivered, a row written by a Worker whose clock
 * runs ahead) into the slot written now, in the same transaction. So a late
 * cron, a changed window or a skewed clock costs rows written, never a row.
 */
export const RING_SLOTS = 8;

/** How long one slot takes rows, for a window of `windowMs`. */
export const slotPeriodMs = (windowMs: number): number => Math.max(1, Math.ceil(windowMs / (RING_SLOTS - 2)));

/** The slot rows written at `at` go to. */
export const slotAt = (at: number, periodMs: number): number => Math.floor(at / periodMs) % RING_SLOTS;

/** The slot the cron empties at `now`: the one the next period writes to. */
export const slotToEmpty = (now: number, periodMs: number): number => (slotAt(now, periodMs) + 1) % RING_SLOTS;

/** Every slot's table name, for a table kept as a ring: `<name>_0` ... `<name>_7`. */
export const slotNames = (name: string): string[] => Array.from({ length: RING_SLOTS }, (_, slot) => `${name}_${slot}`);

/** The most SELECTs D1 parses in one compound (its SQLITE_LIMIT_COMPOUND_SELECT): more fail with "too many terms in compound SELECT". */
export const D1_COMPOUND_TERMS = 5;

/**
 * The SELECTs one after the other (UNION ALL), in one statement: a ring and
 * its first table are more tables than D1 takes in one compound, so they
 * are grouped in subqueries of D1_COMPOUND_TERMS. `tail` (an ORDER BY ...
 * LIMIT) ends each group and the whole: each group's merge reads at most
 * its LIMIT from each table.
 */
export function unionAll(selects: readonly string[], tail = ""): string {
  if (selects.length <= D1_COMPOUND_TERMS) return `${selects.join("\n   UNION ALL ")}${tail ? ` ${tail}` : ""}`;
  const groups: string[] = [];
  for (let i = 0; i < selects.length; i += D1_COMPOUND_TERMS)
    groups.push(`SELECT * FROM (${unionAll(selects.slice(i, i + D1_COMPOUND_TERMS), tail)})`);
  return unionAll(groups, tail);
}

/** How many rows a batch of one statement a table changed, all tables together: only the table holding the row writes it. */
export const changedRows = (results: readonly D1Result[]): number => results.reduce((n, result) => n + (result.meta.changes ?? 0), 0);
