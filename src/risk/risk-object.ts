/**
 * Rule 13's counters, spread over RISK_SHARDS objects ("shard:<n>"): each
 * subject ("card:<fingerprint>" or "user:<sub>") is counted in the one shard
 * its name falls to (shardOf), exact across every location, because every
 * use of the subject is counted in that one object.
 *
 * A counter is a sliding window kept as a log of when each use leaves it
 * (src/risk/judge.ts says how): exact where a fixed window lets twice the
 * limit through across its edge, and small because a refused use writes
 * nothing: at the defaults a user's log holds at most 10 uses of each of 5
 * cards and 20 OTP sends, a card's at most 3 users' uses.
 *
 * A subject's log is kept in its shard's chunks, each one key of the
 * shard's synchronous KV API (`c:<chunk>:<day>`): the subject's name picks
 * one of RISK_CHUNKS chunks (chunkOf), and a call writes what it counted
 * into that chunk's value for the day it is made, a map of subjects to the
 * part of their log written that day. Because the platform bills every row
 * written, a put and a delete alike, whatever the row holds: a call
 * counted is one row written however many counters it counts in, a
 * refused call writes none, and a use leaves its window without a write of
 * its own. A subject's log is the union of its parts in every chunk of its
 * chunk's days still kept (a day's uses end within the next day, so two),
 * so a window that spans midnight counts the uses on both sides of it. A
 * day's chunk ends as a whole: a shard's one alarm deletes each chunk once
 * every use it holds has ended (rule 10), at most once every SWEEP_GAP_MS,
 * so a day ends with at most RISK_CHUNKS deletions a shard, not one per
 * subject. Shared objects, because an object per subject costs an alarm and
 * a `deleteAll` for each card and each user a day (rows written, and an
 * alarm's request).
 *
 * A check-and-count is one synchronous step (no await between reading the
 * log and writing it), and the object runs one step at a time, so however
 * many uses arrive at once, exactly the limit gets through.
 *
 * The release before 030096c counted each subject in an object of its own,
 * named by the subject, in one stored value (RISK_LOG). 030096c read that
 * object the first time a shard met a subject, and kept a guard in its
 * shards' RISK_LOG so that release's alarm left them alone after a
 * rollback; both served that release alone, and a deploy of this code
 * follows 030096c (docs/production.md, "The required stop"), which counts
 * in the same chunks. So a shard reads nothing but its own chunks. Its
 * alarm still ends a subject's own object that release left (its log, once
 * every use in it has ended) and a guard 030096c wrote; a rollback to
 * 030096c finds the shards as it keeps them (its alarm deletes a shard only
 * when its RISK_LOG holds something that has ended).
 */
import { DurableObject } from "cloudflare:workers";
import { clock } from "../shared/clock";
import { fnv1a } from "../shared/fnv1a";
import { type Counter, cappedLog, endsIn, judge, type Log, prune, type Taken, takeBack, type Verdict } from "./judge";

/** The key of the one value a subject's own object kept (the layout of the release before 030096c), and of 030096c's guard in a shard. */
export const RISK_LOG = "log";

/** How many objects rule 13's counters are spread over: a few counts a second each at 10M payments a day. */
export const RISK_SHARDS = 256;

/**
 * How many chunks a shard's day is split into: a chunk holds a 131,072th of
 * the day's subjects (RISK_SHARDS × RISK_CHUNKS), about 100 of them, some
 * 20 KB, at 10M payments a day, a sixth of the KV API's 128 KiB a value
 * (docs/capacity.md shows the arithmetic); and RISK_SHARDS × RISK_CHUNKS
 * deletions a day end them all, whatever the traffic. Changing it moves
 * subjects between chunks: a count then misses what the old chunk holds.
 */
export const RISK_CHUNKS = 512;

/** The prefix of a shard's chunks: `c:<chunk>:<day>`. */
export const CHUNK = "c:";

/** A chunk's value: each subject's part of its log written in the chunk's day. */
type Chunk = Record<string, Log>;

const DAY_MS = 86_400_000;

/** The shard that counts `subject` ("card:<fingerprint>" or "user:<sub>"): FNV-1a of its name. */
export const shardOf = (subject: string): string => `shard:${fnv1a(subject) % RISK_SHARDS}`;

/** The prefix of `subject`'s chunks in its shard (one a day): the hash's bits above the shard's pick the chunk. */
export const chunkOf = (subject: string): string => `${CHUNK}${Math.floor(fnv1a(subject) / RISK_SHARDS) % RISK_CHUNKS}:`;

/**
 * The least time between two sweeps of a shard: an hour, a 24th of a day's
 * keep, so a day's chunk is gone at most that long after its last use's end, and
 * a shard's alarms are at most 24 a day whatever its traffic.
 */
const SWEEP_GAP_MS = 3_600_000;

/** The union of two logs: every entry of either, at the later end (the previous release's lists of ends: the longer). */
function union(a: Log, b: Log): Log {
  const out: Log = { ...a };
  for (const [key, uses] of Object.entries(b)) {
    const mine = out[key];
    if (mine === undefined) out[key] = uses;
    else if (Array.isArray(mine) || Array.isArray(uses))
      out[key] = (Array.isArray(mine) ? mine : []).length >= (Array.isArray(uses) ? uses : []).length ? mine : uses;
    else {
      const merged: Record<string, number> = { ...mine };
      for (const [entry, end] of Object.entries(uses)) merged[entry] = Math.max(merged[entry] ?? 0, end);
      out[key] = merged;
    }
  }
  return out;
}

/** What of `log` the other days' parts (`held`) do not already hold as it is: the part a call writes into today's chunk. */
function unheld(log: Log, held: Log): Log {
  const out: Log = {};
  for (const [key, uses] of Object.entries(log)) {
    const there = held[key];
    if (Array.isArray(uses)) {
      if (!Array.isArray(there) || there.length < uses.length) out[key] = uses;
      continue;
    }
    const fresh = Object.entries(uses).filter(([entry, end]) => there === undefined || Array.isArray(there) || there[entry] !== end);
    if (fresh.length > 0) out[key] = Object.fromEntries(fresh);
  }
  return out;
}

/** The latest end a chunk holds, in any subject's part (0 when none): the chunk ends with it. */
function latestEnd(chunk: Chunk): number {
  let latest = 0;
  for (const part of Object.values(chunk)) {
    for (const uses of Object.values(part ?? {})) {
      for (const end of Array.isArray(uses) ? uses : Object.values(uses ?? {})) if (typeof end === "number" && end > latest) latest = end;
    }
  }
  return latest;
}

export class RiskObject extends DurableObject<Env> {
  /** The least time between two sweeps (the bench's shortened day shortens it too): a field, not a method, so no wrapper of the object's calls takes it for one. */
  protected sweepGapMs = SWEEP_GAP_MS;

  /** The length of a chunk's day (the bench's shortened day shortens it too): a field, as sweepGapMs. */
  protected dayMs = DAY_MS;

  /** Every chunk `subject` may have a part in, each day's: its key and value. */
  #chunks(subject: string): [string, Chunk][] {
    return [...this.ctx.storage.kv.list<Chunk>({ prefix: chunkOf(subject) })];
  }

  /** A subject's log in this shard, the union of its parts (each key at most MAX_ENTRIES, as one stored log keeps), or undefined when it has none. */
  #readSubject(subject: string, chunks: [string, Chunk][]): Log | undefined {
    let log: Log | undefined;
    for (const [, chunk] of chunks) if (Object.hasOwn(chunk, subject)) log = union(log ?? {}, chunk[subject]!);
    return log === undefined ? undefined : cappedLog(log);
  }

  /**
   * Writes a subject's log once, into today's chunk: what of it no other
   * day's part holds as it is. One row written (or the chunk deleted when
   * nothing is left in it).
   */
  #writeSubject(subject: string, log: Log, chunks: [string, Chunk][], now: number): void {
    const today = `${chunkOf(subject)}${Math.floor(now / this.dayMs)}`;
    let held: Log = {};
    for (const [key, chunk] of chunks) if (key !== today && Object.hasOwn(chunk, subject)) held = union(held, chunk[subject]!);
    const stored = chunks.find(([key]) => key === today);
    this.#putPart(today, stored?.[1] ?? {}, subject, unheld(log, held), stored !== undefined);
  }

  /** Puts `part` as the subject's in `chunk` (stored at `key` if `stored`): one row written, the chunk deleted when nothing is left. */
  #putPart(key: string, chunk: Chunk, subject: string, part: Log, stored: boolean): void {
    if (endsIn(part).length === 0) delete chunk[subject];
    else chunk[subject] = part;
    if (Object.keys(chunk).length > 0) this.ctx.storage.kv.put(key, chunk);
    else if (stored) this.ctx.storage.kv.delete(key);
  }

  /**
   * Checks a call against every counter it names and, only if none refuses,
   * counts it in each (src/risk/judge.ts): all or nothing, so a refused call
   * counts nothing. The subject's log is written once if the call counted
   * anything. `nonce` names the call's own entries, which `takeBack` removes.
   */
  async count(subject: string, counters: readonly Counter[], nonce: string): Promise<Verdict> {
    // From the read to the write, one synchronous step.
    const chunks = this.#chunks(subject);
    const now = clock.now();
    const { verdict, log } = judge(prune(this.#readSubject(subject, chunks), now), counters, nonce, now);
    if (log === null) return verdict;
    this.#writeSubject(subject, log, chunks, now);
    const keepMs = Math.max(...counters.map((c) => c.keepMs));
    await this.#armAlarm(now + keepMs + this.sweepGapMs);
    return verdict;
  }

  /**
   * Takes back what `count` counted for a call another subject refused: its
   * own entries only, in the day's chunk that holds them (the day before,
   * when the call was counted before midnight); one write, none if none is
   * left.
   */
  async takeBack(subject: string, taken: readonly Taken[]): Promise<void> {
    const now = clock.now();
    for (const [key, chunk] of this.#chunks(subject)) {
      if (!Object.hasOwn(chunk, subject)) continue;
      const part = takeBack(chunk[subject], taken, now);
      if (part !== null) this.#putPart(key, chunk, subject, part, true);
    }
  }

  /**
   * A shard: every chunk whose uses have all ended is deleted (rule 10),
   * and the alarm comes back for the next one to end, at least
   * sweepGapMs later. An object whose RISK_LOG holds something (a
   * subject's own object of the release before 030096c, or a shard with
   * 030096c's guard) deletes itself once that and every chunk have ended.
   */
  override async alarm(): Promise<void> {
    const now = clock.now();
    let next = Infinity;
    for (const [key, chunk] of this.ctx.storage.kv.list<Chunk>({ prefix: CHUNK })) {
      const latest = latestEnd(chunk);
      if (latest <= now) this.ctx.storage.kv.delete(key);
      else next = Math.min(next, latest);
    }
    const own = this.ctx.storage.kv.get(RISK_LOG);
    if (own !== undefined) {
      const ends = endsIn(prune(own, now));
      if (ends.length === 0 && next === Infinity) {
        await this.ctx.storage.deleteAll();
        return;
      }
      if (ends.length > 0) next = Math.min(next, Math.max(...ends));
    }
    if (next !== Infinity) await this.#armAlarm(Math.max(next, now + this.sweepGapMs));
  }

  /**
   * One alarm at a time, moved on by alarm() itself: a count writes no alarm
   * when one is pending. Asked of the storage every time (the runtime keeps
   * it in memory: no row read), not remembered by the incarnation, which a
   * storage restored or deleted under it would leave believing in an alarm
   * that is gone, and its chunks would never end.
   */
  async #armAlarm(at: number): Promise<void> {
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(at);
  }
}
