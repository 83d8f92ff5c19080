/**
 * Rule 13's decision, as a pure function of a subject's log: whether a call
 * may go on under every counter it names, and the log with its uses counted.
 * The subject's Durable Object (src/risk/risk-object.ts) runs it on its
 * stored log; when that object cannot answer, src/risk/check.ts runs it on
 * the isolate's own copy (its fallback).
 *
 * The log: each key (src/config/risk-limits.ts RISK_KEYS) maps an entry to the end
 * of its keep (the longest window that counts it). An entry is
 * `<ref>:<nonce>`, one per counted call (a card's fingerprint or a user's
 * key, and the call's nonce), or `<ref>` alone for a key whose entries are
 * one per card. A rule counts the entries of its key whose use is within its
 * own window (an hour's rule reads a day's entries by when each was made).
 *
 * Why one entry per call: a call refused by one subject takes back what the
 * other subject counted for it, and a takeback must never undo what another
 * call, admitted meanwhile, relies on. With its own entries a call's
 * takeback removes exactly those; a card another call used stays counted by
 * that call's entry. (A set of cards, where a second call finds the card
 * already there and writes nothing, loses it when the first call is taken
 * back.)
 *
 * Compatible both ways with the previous release's log, which kept, per
 * rule, a list of ends or a map of ends in the same one value: every key is
 * such a list or map, so each release keeps the other's keys until they end
 * (it prunes every key alike) and sets its alarm by them. This one reads two
 * of the previous release's keys as its own: a user's distinct cards
 * (`user_cards_per_day`, every card number the user named) and a user's OTP
 * sends (`user_otp_sends_per_day`).
 */
import { RISK_KEYS, RISK_RULES, type RiskKey, type RiskRule } from "../config/risk-limits";

/** One counter a call is checked and counted against: the rule, its limit, its window, its key's keep, and what it counts (`ref`). */
export interface Counter {
  rule: RiskRule;
  limit: number;
  windowMs: number;
  /** How long the rule's key keeps an entry: its longest window (src/config/risk-limits.ts KEEP_MS). */
  keepMs: number;
  /** The card's fingerprint (a user's counters) or the user's key (a card's). */
  ref: string;
}

/** An entry a call counted, to take back if the call is refused elsewhere. */
export interface Taken {
  key: RiskKey;
  entry: string;
}

export type Verdict = { ok: true; taken: Taken[] } | { ok: false; rule: RiskRule; retryAfterMs: number };

/** A key's uses: a map of entries to their ends (and, in the previous release's keys, a list of ends). */
export type Uses = number[] | Record<string, number>;

/** A subject's log, the object's one stored value. */
export type Log = Record<string, Uses>;

/** At most this many entries a key keeps, whatever the limits (a limit switched off bounds nothing): the soonest to end go first. */
export const MAX_ENTRIES = 256;

/** The previous release's keys this one counts as its own rules' entries (a user's cards; a user's OTP sends). */
const PREVIOUS_KEYS: Partial<Record<RiskRule, string>> = {
  user_payer_cards_per_day: "user_cards_per_day",
  user_otp_sends_per_day: "user_otp_sends_per_day",
};

const isEnd = (value: unknown, now: number): value is number => typeof value === "number" && value > now;

/** The log without what has ended by `now`, nor anything that is no list or map of ends: every key alike, known or not. */
export function prune(log: unknown, now: number): Log {
  const kept: Log = {};
  if (log === null || typeof log !== "object") return kept;
  for (const [key, uses] of Object.entries(log)) {
    if (Array.isArray(uses)) {
      const left = uses.filter((until) => isEnd(until, now));
      if (left.length > 0) kept[key] = left;
    } else if (uses !== null && typeof uses === "object") {
      const left = Object.fromEntries(Object.entries(uses).filter((use): use is [string, number] => isEnd(use[1], now)));
      if (Object.keys(left).length > 0) kept[key] = left;
    }
  }
  return kept;
}

/** Every end the log holds, in every key. */
export const endsIn = (log: Log): number[] => Object.values(log).flatMap((uses) => (Array.isArray(uses) ? uses : Object.values(uses)));

/** The card or user an entry counts: its name up to the nonce. */
const refOf = (entry: string): string => {
  const colon = entry.indexOf(":");
  return colon < 0 ? entry : entry.slice(0, colon);
};

/** The counter's entries within its window: each one's ref and the time it leaves the window. */
function inWindow(log: Log, counter: Counter, now: number): [ref: string, leaves: number][] {
  const { key } = RISK_RULES[counter.rule];
  const uses = log[key];
  const own: [string, number][] =
    uses === undefined || Array.isArray(uses)
      ? []
      : Object.entries(uses).map(([entry, end]): [string, number] => [refOf(entry), end - counter.keepMs + counter.windowMs]);
  const previousKey = PREVIOUS_KEYS[counter.rule];
  const previous = previousKey === undefined ? undefined : log[previousKey];
  // The previous release's ends are a day's, as are the two rules that read them.
  const earlier: [string, number][] =
    previous === undefined ? [] : Array.isArray(previous) ? previous.map((end) => ["", end]) : Object.entries(previous);
  return [...own, ...earlier].filter(([, leaves]) => leaves > now);
}

/**
 * The counter's refusal, if the call is past its limit: how long until the
 * caller's own window lets it through. A distinct count admits a card (or a
 * user) already counted, whatever the count; a refusal that rests on other
 * people's uses (`others`) waits the whole window, so it tells nothing of
 * when they came.
 */
function refusalBy(log: Log, counter: Counter, now: number): number | null {
  const rule: { counts: string; others?: true } = RISK_RULES[counter.rule];
  const entries = inWindow(log, counter, now);
  let ends: number[];
  if (rule.counts === "ref") ends = entries.filter(([ref]) => ref === counter.ref).map(([, leaves]) => leaves);
  else if (rule.counts === "all") ends = entries.map(([, leaves]) => leaves);
  else {
    const present = new Map<string, number>();
    for (const [ref, leaves] of entries) present.set(ref, Math.max(present.get(ref) ?? 0, leaves));
    if (present.has(counter.ref)) return null;
    ends = [...present.values()];
  }
  if (ends.length < counter.limit) return null;
  if (rule.others) return counter.windowMs;
  ends.sort((a, b) => a - b);
  // Once this many of the caller's own uses have left, one more fits.
  return Math.max(0, ends[ends.length - counter.limit]! - now);
}

/**
 * Checks every counter and, only if none refuses, counts the call in each
 * counter's key: all or nothing, so a refused call counts nothing. The
 * refusal named is the one that waits longest (retrying after it, no
 * counter of this subject refuses for the uses it knows now). `log` is the
 * log to store, or null when nothing is to be written (a refusal, or no
 * counter).
 */
export function judge(stored: unknown, counters: readonly Counter[], nonce: string, now: number): { verdict: Verdict; log: Log | null } {
  const log = prune(stored, now);
  let refusal: { rule: RiskRule; retryAfterMs: number } | null = null;
  for (const counter of counters) {
    const wait = refusalBy(log, counter, now);
    if (wait !== null && (refusal === null || wait > refusal.retryAfterMs)) refusal = { rule: counter.rule, retryAfterMs: wait };
  }
  if (refusal) return { verdict: { ok: false, ...refusal }, log: null };
  if (counters.length === 0) return { verdict: { ok: true, taken: [] }, log: null };

  const taken: Taken[] = [];
  const counted = new Set<string>();
  for (const counter of counters) {
    const { key } = RISK_RULES[counter.rule];
    if (counted.has(`${key}\0${counter.ref}`)) continue;
    counted.add(`${key}\0${counter.ref}`);
    const before = log[key];
    const uses: Record<string, number> = before === undefined || Array.isArray(before) ? {} : { ...before };
    const until = now + counter.keepMs;
    if (RISK_KEYS[key].entries === "call") {
      const entry = `${counter.ref}:${nonce}`;
      uses[entry] = until;
      taken.push({ key, entry });
    } else {
      uses[counter.ref] = Math.max(uses[counter.ref] ?? 0, until);
    }
    log[key] = capped(uses);
  }
  return { verdict: { ok: true, taken }, log };
}

/** A log whose every key keeps at most MAX_ENTRIES entries, as one `judge` wrote (a log read from several stored parts). */
export const cappedLog = (log: Log): Log =>
  Object.fromEntries(Object.entries(log).map(([key, uses]) => [key, Array.isArray(uses) ? uses : capped(uses)]));

/** A key's entries, at most MAX_ENTRIES of them: the ones that end last. */
function capped(uses: Record<string, number>): Record<string, number> {
  const entries = Object.entries(uses);
  if (entries.length <= MAX_ENTRIES) return uses;
  return Object.fromEntries(entries.sort(([, a], [, b]) => b - a).slice(0, MAX_ENTRIES));
}

/** The log without the entries a refused call counted; null when none of them is left to take back. */
export function takeBack(stored: unknown, taken: readonly Taken[], now: number): Log | null {
  const log = prune(stored, now);
  let changed = false;
  for (const { key, entry } of taken) {
    const uses = log[key];
    if (uses === undefined || Array.isArray(uses) || !Object.hasOwn(uses, entry)) continue;
    const { [entry]: _gone, ...left } = uses;
    if (Object.keys(left).length > 0) log[key] = left;
    else delete log[key];
    changed = true;
  }
  return changed ? log : null;
}
