/**
 * What one invocation may do with many D1 databases. At 10,000,000 creates a
 * day the tid index and event log span 240-410 databases (docs/capacity.md),
 * and every invocation of a Worker is held to two of Cloudflare's limits:
 *
 * - D1: 1,000 queries per Worker invocation (Workers Paid;
 *   https://developers.cloudflare.com/d1/platform/limits/);
 * - Workers: 6 simultaneous open connections per invocation; a seventh waits
 *   until one of them has its answer's headers
 *   (https://developers.cloudflare.com/workers/platform/limits/).
 *
 * So nothing here touches every database at once: `inPool` runs at most
 * MAX_CONNECTIONS calls at a time, and the cron's work (retention, the event
 * sweep) takes a slice of the databases per run (`cronSlice`), turning
 * through all of them over successive runs, sized so a run's queries stay
 * under QUERY_BUDGET whatever the number of databases. test/unit/fanout.test.ts
 * runs each fan-out at 410 databases with a counting D1.
 */

/** Workers: simultaneous open connections per invocation. */
export const MAX_CONNECTIONS = 6;

/** D1: queries per Worker invocation (Workers Paid). */
export const MAX_QUERIES_PER_INVOCATION = 1000;

/**
 * What a cron run's retention and sweep may spend on databases: the limit
 * less erasure's own 200 a run (ERASE_QUERIES_PER_RUN, src/cron/erasure.ts) and a
 * margin of 100 for the run's bookkeeping.
 */
export const QUERY_BUDGET = 700;

/**
 * `fn` over every item, at most `limit` calls in flight at a time, results in
 * the items' order. The first rejection rejects the whole (after the calls in
 * flight settle; no new one starts), as Promise.all would.
 */
export async function inPool<T, R>(items: readonly T[], fn: (item: T, index: number) => Promise<R>, limit = MAX_CONNECTIONS): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async () => {
    while (failure === null && next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index]!, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== null) throw (failure as { error: unknown }).error;
  return results;
}

/**
 * The databases a cron run at `runIndex` (its minute: scheduledTime / 60,000)
 * works on: consecutive slices of `perRun`, turning through the list, so each
 * database is visited once every ceil(N / perRun) runs. The clock is the
 * cursor: nothing to store, and a missed run only delays its slice by a turn.
 */
export function cronSlice<T>(items: readonly T[], perRun: number, runIndex: number): T[] {
  if (items.length <= perRun) return [...items];
  const turns = Math.ceil(items.length / perRun);
  const turn = ((Math.floor(runIndex) % turns) + turns) % turns;
  return items.slice(turn * perRun, (turn + 1) * perRun);
}

/** How many databases one cron run can work on when each costs at most `queriesPerDatabase`. */
export const databasesPerRun = (queriesPerDatabase: number, budget = QUERY_BUDGET): number =>
  Math.max(1, Math.floor(budget / Math.max(1, queriesPerDatabase)));

/**
 * A bounded sample of `items` for a probe at `at` (ms): always the first (DB,
 * which the deployment cannot work without), then `size - 1` of the others,
 * turning through them from one probe to the next.
 */
export function probeSample<T>(items: readonly T[], size: number, at: number): T[] {
  if (items.length <= size) return [...items];
  const rest = items.slice(1);
  const take = size - 1;
  const start = (Math.floor(at / 1000) * take) % rest.length;
  return [items[0]!, ...Array.from({ length: take }, (_, i) => rest[(start + i) % rest.length]!)];
}
