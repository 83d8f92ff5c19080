/**
 * The D1 databases the tid index and the event log are spread over, and
 * which of them holds a key: a tid's row, or a record's events. One database
 * cannot hold a large deployment's tid index and event log (docs/capacity.md's
 * capacity model: ~45 GB and ~137 GB at 1,000,000 creates a day against D1's
 * 10 GB), so both are spread over the D1 bindings TID_INDEX_SHARDS names
 * (default: DB alone, the layout every single-database deployment already has).
 *
 * A tid's key is the tid as its caller chose it, in its caller's space:
 * (owner, tid), never the upstream tid. So every lookup (claim, completion,
 * release, expiry, replay, check-tid) finds its shard without TID_SECRET, and
 * rotating TID_SECRET never moves a row. Owner is part of the key so that
 * many users choosing the same small tids ("1", "2", ...) spread like any
 * other tids. A record's events are keyed by its record id
 * (`eventShardFor`): a record's events are in one database.
 *
 * The shard is a jump consistent hash (Lamping and Veach, 2014) of the first
 * 8 bytes of SHA-256 of the key: as even as modulo, and appending a binding
 * to the list moves only the keys the new database takes (1/N of them), each
 * from its old shard to the new one; nothing moves between the old shards.
 * No row is ever copied: while TID_INDEX_SHARDS_PREVIOUS names the earlier
 * lists (as many as may still hold rows: growing twice within the retention
 * window keeps both), a key has a place now and the places it had before
 * (`tidShardsFor`, `eventShardsFor`); a create fences each earlier place
 * before it claims in the current one, so a Worker still on an earlier list
 * can never claim the same tid elsewhere (src/tids/tid-index.ts, `claimIndexFor`).
 * Reordering or removing a binding moves rows: never do it.
 *
 * What only one shard sees: the cross-space check of a claim (a partner tid
 * equal to a user's derived upstream tid, `findByUpstreamTid` in
 * src/tids/tid-index.ts) now looks in the claim's own shard only. Such a tid takes
 * TID_SECRET to compute, and the upstream's own tid uniqueness is the
 * backstop: its TID_DUPLICATE is answered 409 tid_conflict (src/operations/creation.ts).
 */
import { previousTidShardLayouts, tidShardList, tidShardListProblems } from "../config/config-lists";

export interface Shard {
  /** The binding's name, as TID_INDEX_SHARDS spells it: what /readyz and the retention log name. */
  binding: string;
  db: D1Database;
}

const isD1 = (value: unknown): value is D1Database =>
  typeof (value as D1Database | undefined)?.prepare === "function" && typeof (value as D1Database | undefined)?.batch === "function";

/** The guard's sentences: each list's own problems, and each binding that is missing or no D1 database. */
export function shardProblems(env: Env): string[] {
  const problems: string[] = [];
  const lists: [string, string[]][] = [
    ["TID_INDEX_SHARDS", tidShardList(env.TID_INDEX_SHARDS)],
    ...previousTidShardLayouts(env.TID_INDEX_SHARDS_PREVIOUS).map((list): [string, string[]] => ["TID_INDEX_SHARDS_PREVIOUS", list]),
  ];
  for (const [setting, names] of lists) {
    problems.push(...tidShardListProblems(names, setting));
    for (const name of new Set(names)) {
      if (!isD1((env as unknown as Record<string, unknown>)[name])) {
        problems.push(`${setting} names ${name}, which is not a D1 database binding of this deployment (see [[d1_databases]] in wrangler.toml).`);
      }
    }
  }
  return problems;
}

interface Layout {
  /** TID_INDEX_SHARDS: where every key is placed. */
  current: readonly Shard[];
  /** TID_INDEX_SHARDS_PREVIOUS: each earlier list that may still place a row, newest (longest) first; empty when none. */
  previous: readonly (readonly Shard[])[];
  /** Every database either list names, the current ones first. */
  all: readonly Shard[];
}

const cache = new WeakMap<object, Layout>();

/**
 * Both lists, resolved. Throws on a binding that is missing or no D1
 * database: the guard answers such a deployment's requests with 503
 * service_misconfigured before any of them gets here; the cron and the queue
 * consumer, which it does not guard, fail loudly instead of using a wrong list.
 */
function layout(env: Env): Layout {
  let found = cache.get(env);
  if (!found) {
    const problems = shardProblems(env);
    if (problems.length > 0) throw new Error(problems.join(" "));
    const resolve = (names: readonly string[]) => names.map((binding) => ({ binding, db: (env as unknown as Record<string, D1Database>)[binding]! }));
    const current = resolve(tidShardList(env.TID_INDEX_SHARDS));
    const previous = previousTidShardLayouts(env.TID_INDEX_SHARDS_PREVIOUS)
      .map(resolve)
      .sort((a, b) => b.length - a.length);
    const all = [...current];
    for (const shard of previous.flat()) if (!all.some((known) => known.binding === shard.binding)) all.push(shard);
    found = { current, previous, all };
    cache.set(env, found);
  }
  return found;
}

/** Every shard of TID_INDEX_SHARDS, in the list's order: where keys are placed. */
export const tidShards = (env: Env): readonly Shard[] => layout(env).current;

/** Every database that may hold a row: TID_INDEX_SHARDS's, then those only TID_INDEX_SHARDS_PREVIOUS names. */
export const allShards = (env: Env): readonly Shard[] => layout(env).all;

/** The position in a list of `count` shards of a key: a jump hash of the first 8 bytes of its SHA-256. */
async function shardIndex(count: number, key: string): Promise<number> {
  if (count <= 1) return 0;
  const digest = new DataView(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)));
  return jumpHash(digest.getBigUint64(0), count);
}

/** The position in a list of `count` shards of (owner, tid)'s row. */
export const tidShardIndex = (count: number, owner: string, tid: string): Promise<number> => shardIndex(count, `${owner}\0${tid}`);

/**
 * The position of a record's events (src/events/log.ts): the same list, keyed
 * by the record id, so a record's events are in one database and its list
 * reads one. (A receipt's and a transfer's ids never meet: the upstream makes
 * both kinds of id, and events/list by record id does not ask the kind.)
 */
export const eventShardIndex = (count: number, recordId: string): Promise<number> => shardIndex(count, `record\0${recordId}`);

/** The shard a record's new events go to. */
export async function eventShardFor(env: Env, recordId: string): Promise<Shard> {
  const shards = tidShards(env);
  return shards[await eventShardIndex(shards.length, recordId)]!;
}

/** Every database that may hold a record's events: its shard, then (newest first) each different one an earlier list placed it in. */
export async function eventShardsFor(env: Env, recordId: string): Promise<Shard[]> {
  const { previous } = layout(env);
  const places = [await eventShardFor(env, recordId)];
  for (const list of previous) places.push(list[await eventShardIndex(list.length, recordId)]!);
  return distinct(places);
}

const distinct = (places: Shard[]): Shard[] => places.filter((place, i) => places.findIndex((p) => p.binding === place.binding) === i);

/** The shard (owner, tid)'s row is placed in. */
export async function tidShardFor(env: Env, owner: string, tid: string): Promise<Shard> {
  const shards = tidShards(env);
  return shards[await tidShardIndex(shards.length, owner, tid)]!;
}

/**
 * Every database that may hold (owner, tid)'s row: its shard now first, then
 * (newest first) each different one an earlier list placed it in
 * (src/tids/tid-index.ts's claimIndexFor and readIndexFor).
 */
export async function tidShardsFor(env: Env, owner: string, tid: string): Promise<Shard[]> {
  const { previous } = layout(env);
  const places = [await tidShardFor(env, owner, tid)];
  for (const list of previous) places.push(list[await tidShardIndex(list.length, owner, tid)]!);
  return distinct(places);
}

const MASK_64 = (1n << 64n) - 1n;

/** Jump consistent hash: a bucket in [0, buckets) for a 64-bit key. */
export function jumpHash(key: bigint, buckets: number): number {
  let b = -1;
  let j = 0;
  while (j < buckets) {
    b = j;
    key = (key * 2862933555777941757n + 1n) & MASK_64;
    j = Math.floor((b + 1) * (2 ** 31 / (Number(key >> 33n) + 1)));
  }
  return b;
}
