/**
 * One Durable Object per subject of rule 13 ("card:<fingerprint>" or
 * "user:<sub>"): its counters, exact across every location, because every
 * use of the subject is counted in this one object.
 *
 * A counter is a sliding window kept as a log of when each use leaves it:
 * per rule, the ends of its uses, soonest first (for a user's distinct cards,
 * a map from each card's fingerprint to its use's end). Exact where a fixed
 * window lets twice the limit through across its edge, and small because a
 * refused use writes nothing: a counter never holds more uses than its limit
 * (at the defaults a card object at most 20, a user's at most 25).
 *
 * The whole log is the object's one stored value, a single key of the
 * synchronous KV API, because the platform bills every row written: a use
 * counted is one row written however many counters it counts in, a refused
 * call or one that counts nothing new writes none, and a use leaves its
 * window without a write of its own (the next write or the alarm drops it).
 * A new object creates no table.
 *
 * A check-and-count is one synchronous step (no await between reading the
 * log and writing it), and the object runs one step at a time, so however
 * many uses arrive at once, exactly the limit gets through. Uses end with
 * their window (rule 10): an alarm at the last use's end deletes the object
 * itself once nothing is left.
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

/** A use an admission counted (its rule, its end, and for a distinct count the thing counted), to take back if another subject refuses the same call. */
export type Written = readonly [rule: RiskRule, until: number, ref?: string];

export type Admission = { ok: true; written: Written[] } | { ok: false; rule: RiskRule; retryAfterMs: number };

/** A rule's uses in its window: their ends, soonest first; for a distinct count, each thing counted with its use's end. */
type Uses = number[] | Record<string, number>;

/** The object's one stored value: each rule's uses still in its window (or not yet dropped). */
type Log = Partial<Record<RiskRule, Uses>>;

/** The key of the one value (the bench reads it to tell a live object from one that deleted itself). */
export const RISK_LOG = "log";

/** When each of a rule's uses leaves its window. */
const endsOf = (uses: Uses | undefined): number[] => (uses === undefined ? [] : Array.isArray(uses) ? uses : Object.values(uses));

/** How many uses the log holds in all. */
const size = (log: Log): number => Object.values(log).reduce((n, uses) => n + endsOf(uses).length, 0);

/** The log without the uses that have left their window by `now` (and without the rules left empty). */
function prune(log: Log, now: number): Log {
  const kept: Log = {};
  for (const [rule, uses] of Object.entries(log) as [RiskRule, Uses][]) {
    const left = Array.isArray(uses)
      ? uses.filter((until) => until > now)
      : Object.fromEntries(Object.entries(uses).filter(([, until]) => until > now));
    if (endsOf(left).length > 0) kept[rule] = left;
  }
  return kept;
}

export class RiskObject extends DurableObject<Env> {
  #alarmSet = false;

  /** The stored log (empty when there is none). */
  #read(): Log {
    return this.ctx.storage.kv.get<Log>(RISK_LOG) ?? {};
  }

  /** Writes the log once: one row written, or the key deleted when nothing is left. */
  #write(log: Log): void {
    if (size(log) === 0) this.ctx.storage.kv.delete(RISK_LOG);
    else this.ctx.storage.kv.put(RISK_LOG, log);
  }

  /**
   * Checks every counter and, only if none is at its limit, counts the use in
   * each: all or nothing, so a refused call counts nothing. A refusal says
   * which rule and how long until its window lets one more use through. The
   * log is written once if the call counted anything, and not at all if not.
   */
  async admit(counters: readonly Counter[]): Promise<Admission> {
    const now = clock.now();
    const log = prune(this.#read(), now);
    const fresh: Counter[] = [];
    for (const counter of counters) {
      const uses = log[counter.rule];
      if (counter.distinct !== undefined && uses !== undefined && !Array.isArray(uses) && Object.hasOwn(uses, counter.distinct)) continue;
      const ends = endsOf(uses);
      const first = ends.length > 0 ? Math.min(...ends) : null;
      if (ends.length >= counter.limit) return { ok: false, rule: counter.rule, retryAfterMs: Math.max(0, (first ?? now) - now) };
      fresh.push(counter);
    }
    const written: Written[] = [];
    for (const counter of fresh) {
      const until = now + counter.windowMs;
      if (counter.distinct === undefined) {
        const ends = (log[counter.rule] ?? []) as number[];
        // Soonest first: a rule's window is one length, so a new use nearly always goes last.
        let at = ends.length;
        while (at > 0 && ends[at - 1]! > until) at--;
        ends.splice(at, 0, until);
        log[counter.rule] = ends;
        written.push([counter.rule, until]);
      } else {
        log[counter.rule] = { ...(log[counter.rule] as Record<string, number> | undefined), [counter.distinct]: until };
        written.push([counter.rule, until, counter.distinct]);
      }
    }
    if (written.length === 0) return { ok: true, written };
    this.#write(log);
    await this.#armAlarm(now + Math.max(...fresh.map((c) => c.windowMs)));
    return { ok: true, written };
  }

  /** Takes back what admit counted for a call another subject refused: one write, none if none of it is left. */
  async release(written: readonly Written[]): Promise<void> {
    const log = prune(this.#read(), clock.now());
    let changed = false;
    for (const [rule, until, ref] of written) {
      const uses = log[rule];
      if (uses === undefined) continue;
      if (ref === undefined) {
        const at = Array.isArray(uses) ? uses.indexOf(until) : -1;
        if (at >= 0) {
          (uses as number[]).splice(at, 1);
          changed = true;
        }
      } else if (!Array.isArray(uses) && Object.hasOwn(uses, ref)) {
        delete uses[ref];
        changed = true;
      }
    }
    if (changed) this.#write(prune(log, clock.now()));
  }

  /** The last use's end: expired uses go; an object with none left deletes itself, else waits for its newest use. */
  override async alarm(): Promise<void> {
    this.#alarmSet = false;
    const stored = this.#read();
    const log = prune(stored, clock.now());
    const ends = Object.values(log).flatMap(endsOf);
    if (ends.length === 0) {
      await this.ctx.storage.deleteAll();
      return;
    }
    if (size(log) < size(stored)) this.#write(log);
    await this.#armAlarm(Math.max(...ends));
  }

  /** One alarm at a time, set once and moved on by alarm() itself: an admission writes no alarm when one is pending. */
  async #armAlarm(at: number): Promise<void> {
    if (this.#alarmSet) return;
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(at);
    this.#alarmSet = true;
  }
}
