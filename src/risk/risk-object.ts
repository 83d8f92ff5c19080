/**
 * One Durable Object per subject of rule 13 ("card:<fingerprint>" or
 * "user:<sub>"): its counters, exact across every location, because every
 * use of the subject is counted in this one object.
 *
 * A counter is a sliding window kept as a log of when each use leaves it
 * (src/risk/judge.ts says how): exact where a fixed window lets twice the
 * limit through across its edge, and small because a refused use writes
 * nothing: at the defaults a user's log holds at most 10 uses of each of 5
 * cards and 20 OTP sends, a card's at most 3 users' uses.
 *
 * The whole log is the object's one stored value, a single key of the
 * synchronous KV API, because the platform bills every row written: a call
 * counted is one row written however many counters it counts in, a refused
 * call writes none, and a use leaves its window without a write of its own
 * (the next write or the alarm drops it). A new object creates no table.
 *
 * A check-and-count is one synchronous step (no await between reading the
 * log and writing it), and the object runs one step at a time, so however
 * many uses arrive at once, exactly the limit gets through. Uses end with
 * their window (rule 10): an alarm after the last use's end deletes the
 * object itself once nothing is left.
 */
import { DurableObject } from "cloudflare:workers";
import { clock } from "../shared/clock";
import { type Counter, endsIn, judge, type Log, prune, type Taken, takeBack, type Uses, type Verdict } from "./judge";

/** The key of the one value (the bench reads it to tell a live object from one that deleted itself). */
export const RISK_LOG = "log";

/**
 * The alarm comes a 24th of the keep after the first counted use's end (an
 * hour, for a day): a payment's calls, minutes apart, then end together, and
 * the object deletes itself with one alarm instead of waking once more for
 * its last use. Its uses are pruned at every read, so the hour changes no
 * count; the object is gone at most that long after its last use's end.
 */
const ALARM_SLACK = 24;

export class RiskObject extends DurableObject<Env> {
  #alarmSet = false;

  /** The stored log (empty when there is none). */
  #read(): unknown {
    return this.ctx.storage.kv.get(RISK_LOG) ?? {};
  }

  /** Writes the log once: one row written, or the key deleted when nothing is left. */
  #write(log: Log): void {
    if (endsIn(log).length === 0) this.ctx.storage.kv.delete(RISK_LOG);
    else this.ctx.storage.kv.put(RISK_LOG, log);
  }

  /**
   * Checks a call against every counter it names and, only if none refuses,
   * counts it in each (src/risk/judge.ts): all or nothing, so a refused call
   * counts nothing. The log is written once if the call counted anything.
   * `nonce` names the call's own entries, which `takeBack` removes.
   */
  async count(counters: readonly Counter[], nonce: string): Promise<Verdict> {
    const now = clock.now();
    const { verdict, log } = judge(this.#read(), counters, nonce, now);
    if (log === null) return verdict;
    this.#write(log);
    const keepMs = Math.max(...counters.map((c) => c.keepMs));
    await this.#armAlarm(now + keepMs + keepMs / ALARM_SLACK);
    return verdict;
  }

  /** Takes back what `count` counted for a call another subject refused: its own entries only, one write, none if none is left. */
  async takeBack(taken: readonly Taken[]): Promise<void> {
    const log = takeBack(this.#read(), taken, clock.now());
    if (log !== null) this.#write(log);
  }

  /**
   * After the uses' end: an object with none left deletes itself; else it
   * waits for its newest use, writing nothing (every read prunes what ended,
   * so the next count's write drops it).
   */
  override async alarm(): Promise<void> {
    this.#alarmSet = false;
    const ends = endsIn(prune(this.#read(), clock.now()));
    if (ends.length === 0) {
      await this.ctx.storage.deleteAll();
      return;
    }
    await this.#armAlarm(Math.max(...ends));
  }

  /** One alarm at a time, set once and moved on by alarm() itself: a count writes no alarm when one is pending. */
  async #armAlarm(at: number): Promise<void> {
    if (this.#alarmSet) return;
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(at);
    this.#alarmSet = true;
  }

  // --- the previous release's calls -------------------------------------------------------------
  // During a gradual deploy the previous release's Worker calls objects that already run this code
  // (a Durable Object runs one version, whichever Worker calls it). Its `admit` and `release` are
  // answered as that release answered them, in its own keys of the same log, which this release
  // keeps and does not otherwise count by (its limits counted a card across users). To be removed
  // by the first release after the one that no longer calls them.

  /** The previous release's check-and-count: its counters (a list of ends per rule, or for a distinct count a map). */
  async admit(counters: readonly PreviousCounter[]): Promise<PreviousAdmission> {
    const now = clock.now();
    const log = prune(this.#read(), now);
    const fresh: PreviousCounter[] = [];
    for (const counter of counters) {
      const uses = log[counter.rule];
      if (counter.distinct !== undefined && uses !== undefined && !Array.isArray(uses) && Object.hasOwn(uses, counter.distinct)) continue;
      const ends = endsOf(uses);
      const first = ends.length > 0 ? Math.min(...ends) : null;
      if (ends.length >= counter.limit) return { ok: false, rule: counter.rule, retryAfterMs: Math.max(0, (first ?? now) - now) };
      fresh.push(counter);
    }
    const written: PreviousWritten[] = [];
    for (const counter of fresh) {
      const until = now + counter.windowMs;
      if (counter.distinct === undefined) {
        const before = log[counter.rule];
        log[counter.rule] = [...(Array.isArray(before) ? before : []), until].sort((a, b) => a - b);
        written.push([counter.rule, until]);
      } else {
        const before = log[counter.rule];
        log[counter.rule] = { ...(before === undefined || Array.isArray(before) ? {} : before), [counter.distinct]: until };
        written.push([counter.rule, until, counter.distinct]);
      }
    }
    if (written.length === 0) return { ok: true, written };
    this.#write(log);
    await this.#armAlarm(now + Math.max(...fresh.map((c) => c.windowMs)));
    return { ok: true, written };
  }

  /** The previous release's takeback of what `admit` counted. */
  async release(written: readonly PreviousWritten[]): Promise<void> {
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
}

/** The previous release's counter: its rule's name (its key in the log), limit and window, and for a distinct count the card. */
interface PreviousCounter {
  rule: string;
  limit: number;
  windowMs: number;
  distinct?: string;
}

type PreviousWritten = readonly [rule: string, until: number, ref?: string];

type PreviousAdmission = { ok: true; written: PreviousWritten[] } | { ok: false; rule: string; retryAfterMs: number };

const endsOf = (uses: Uses | undefined): number[] => (uses === undefined ? [] : Array.isArray(uses) ? uses : Object.values(uses));
