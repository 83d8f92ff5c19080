/**
 * Rule 13 at the edge: card testing and SMS pumping stopped before the
 * upstream is called, without letting anyone lock another person's card
 * out. A user's call that uses a card or sends an OTP is counted for each
 * of its subjects, in the Durable Object its subject falls to (a shard:
 * src/risk/risk-object.ts): the user's
 * (their uses of each card, their payer and receiver cards, their OTP sends
 * in all and to each card) and, for a card number used as the payer's, the
 * card's (its distinct users, where one it already admitted is never
 * refused). Both are asked in parallel: one object hop of latency. Only if
 * both admit it is it counted in both; if either refuses, the other takes
 * back the entries it wrote for this call (its own, by the call's nonce:
 * src/risk/judge.ts), so a refused call counts nothing (a blocked attacker
 * does not extend their own window), and no other call's count moves.
 *
 * Callers check everything that can refuse a request before they ask (its
 * body, its Idempotency-Key, the caller's rights, a replay, the rate limit,
 * the record's state), so a request refused before the gateway acts counts
 * nothing at all.
 *
 * A counter that cannot answer (its object unreachable, overloaded or
 * throwing) is replaced by the isolate's own: the same decision on a log
 * this isolate keeps in memory, so the call is held to the limits as far as
 * this isolate has seen the subject. Letting the call through would let a
 * flood of one's own object buy unlimited card tests; refusing it would let
 * anyone who floods a card's object lock that card out, which this rule
 * exists to prevent. Logged (`risk_unavailable`, with `fallback`) for the
 * on-call.
 *
 * The partner backend is exempt, as from the rate limits: it is one server
 * calling for many users and limits its own.
 */

import { KEEP_MS, RISK_RULES, type RiskRule, riskLimits } from "../config/risk-limits";
import type { Failure } from "../errors/errors";
import { metric } from "../metrics/metrics";
import type { Caller } from "../rules/caller";
import { clock } from "../shared/clock";
import { log, note } from "../shared/log";
import { type CardReference, cardFingerprint, fingerprintPrefix, userKey } from "./fingerprint";
import { type Counter, judge, type Log, type Taken, takeBack, type Verdict } from "./judge";
import { shardOf } from "./risk-object";

/** What one call uses: the card it names, as the payer's or as a transfer's receiver, and whether it sends an OTP. */
export interface RiskUses {
  /** A card number is the payer's (anonymous authorize and pay) unless `receiver`; a token is counted for its OTP sends only. */
  card: CardReference;
  /** An OTP send (authorize, by token or number): counted for the user, and for the user and this card. */
  otpSend?: boolean;
  /** a2c/create's receiver_card: one of the user's distinct receiver cards, and nothing else. */
  receiver?: boolean;
}

/** Why a use is refused, in a sentence for the developer of the app. */
const REFUSALS: Record<RiskRule, string> = {
  user_card_uses_per_hour: "This user used this card number too many times in the last hour",
  user_card_uses_per_day: "This user used this card number too many times today",
  card_users_per_day: "This card number was used by too many users today",
  user_payer_cards_per_day: "This user has paid with too many different card numbers today",
  user_receiver_cards_per_day: "This user has sent transfers to too many different card numbers today",
  user_otp_sends_per_day: "Too many OTPs were sent for this user today",
  user_card_otp_sends_per_day: "Too many OTPs were sent for this user to this card today",
};

/** The shard (env.RISK) that counts a subject, "card:<fingerprint>" or "user:<sub>". */
const riskStub = (env: Env, subject: string) => env.RISK.get(env.RISK.idFromName(shardOf(subject)));

interface Subject {
  kind: "card" | "user";
  name: string;
  counters: Counter[];
}

/** A subject's verdict, and where its entries were counted: its object, or this isolate's fallback. */
type Judged = { verdict: Verdict; fallback: boolean };

/**
 * Checks and counts a user's call against rule 13's limits. Null when it may
 * go on (and is counted); otherwise the 429 risk_limited to answer, with
 * Retry-After: the seconds until the caller's own uses let it through (for
 * the distinct users of a card, whose other users the caller must learn
 * nothing of, the whole window).
 */
export async function admitRisk(env: Env, caller: Caller, uses: RiskUses, requestId: string): Promise<Failure | null> {
  if (caller.kind === "partner") return null;
  const limits = riskLimits(env);
  const secret = env.CARD_FINGERPRINT_SECRET ?? "";
  const fingerprint = await cardFingerprint(secret, uses.card);
  const payer = "number" in uses.card && !uses.receiver;
  const counter = (rule: RiskRule, ref: string): Counter[] => {
    const limit = limits[rule];
    const { key, windowMs } = RISK_RULES[rule];
    return limit === null ? [] : [{ rule, limit, windowMs, keepMs: KEEP_MS[key], ref }];
  };
  const subjects: Subject[] = [
    {
      kind: "user" as const,
      name: `user:${caller.id}`,
      counters: [
        ...(payer
          ? [
              ...counter("user_card_uses_per_hour", fingerprint),
              ...counter("user_card_uses_per_day", fingerprint),
              ...counter("user_payer_cards_per_day", fingerprint),
            ]
          : []),
        ...(uses.receiver ? counter("user_receiver_cards_per_day", fingerprint) : []),
        ...(uses.otpSend ? [...counter("user_otp_sends_per_day", fingerprint), ...counter("user_card_otp_sends_per_day", fingerprint)] : []),
      ],
    },
    {
      kind: "card" as const,
      name: `card:${fingerprint}`,
      counters: payer && limits.card_users_per_day !== null ? counter("card_users_per_day", await userKey(secret, caller.id)) : [],
    },
  ].filter((subject) => subject.counters.length > 0);
  if (subjects.length === 0) return null;

  const nonce = crypto.randomUUID().slice(0, 8);
  const judged = await Promise.all(subjects.map((subject) => countIn(env, subject, nonce, requestId)));
  let refused: { rule: RiskRule; retryAfterMs: number; subject: "card" | "user" } | null = null;
  judged.forEach(({ verdict }, i) => {
    if (!verdict.ok && (!refused || verdict.retryAfterMs > refused.retryAfterMs)) refused = { ...verdict, subject: subjects[i]!.kind };
  });
  if (!refused) return null;
  const refusal: { rule: RiskRule; retryAfterMs: number; subject: "card" | "user" } = refused;
  await Promise.all(
    judged.map(({ verdict, fallback }, i) => (verdict.ok ? takeBackIn(env, subjects[i]!, verdict.taken, fallback, requestId) : undefined)),
  );
  const retryAfter = Math.max(1, Math.ceil(refusal.retryAfterMs / 1000));
  metric(env, "risk_refused", { operation: refusal.rule, outcome: refusal.subject });
  // On the request's canonical line, at warn (src/shared/log.ts): a refusal, not a fault.
  note("warn", "risk_limited", {
    request_id: requestId,
    rule: refusal.rule,
    subject: refusal.subject,
    fingerprint: fingerprintPrefix(fingerprint),
    ...(refusal.subject === "user" ? { user: caller.id } : {}),
    retry_after: retryAfter,
  });
  return {
    code: "risk_limited",
    message: `${REFUSALS[refusal.rule]} (rule 13, ${refusal.rule}); retry after Retry-After seconds.`,
    rule: refusal.rule,
    retry_after: retryAfter,
  };
}

/** The subject's verdict from its object; from the isolate's fallback when the object cannot answer. */
async function countIn(env: Env, subject: Subject, nonce: string, requestId: string): Promise<Judged> {
  try {
    return { verdict: await riskStub(env, subject.name).count(subject.name, subject.counters, nonce), fallback: false };
  } catch (err) {
    log("error", "risk_unavailable", { request_id: requestId, subject: subject.kind, fallback: "isolate", error: String(err) });
    return { verdict: isolate.count(subject.name, subject.counters, nonce), fallback: true };
  }
}

/** Takes back a refused call's entries where they were counted; a takeback that fails leaves them, loudly (the call then counted). */
async function takeBackIn(env: Env, subject: Subject, taken: readonly Taken[], fallback: boolean, requestId: string): Promise<void> {
  if (taken.length === 0) return;
  if (fallback) return isolate.takeBack(subject.name, taken);
  try {
    await riskStub(env, subject.name).takeBack(subject.name, taken);
  } catch (err) {
    log("error", "risk_unavailable", { request_id: requestId, subject: subject.kind, step: "take_back", error: String(err) });
  }
}

/**
 * The fallback: each subject's log as this isolate has counted it while its
 * object could not answer, the most recently used FALLBACK_SUBJECTS of them.
 * Per isolate, so a call held to it is held to the limits as far as this
 * isolate has seen (a flood spread over many isolates gets the limits once
 * in each); never written anywhere, so it ends with the isolate.
 */
const FALLBACK_SUBJECTS = 10_000;

export const isolate = {
  logs: new Map<string, Log>(),
  count(name: string, counters: readonly Counter[], nonce: string): Verdict {
    const { verdict, log: counted } = judge(this.logs.get(name), counters, nonce, clock.now());
    if (counted !== null) this.keep(name, counted);
    return verdict;
  },
  takeBack(name: string, taken: readonly Taken[]): void {
    const left = takeBack(this.logs.get(name), taken, clock.now());
    if (left !== null) this.keep(name, left);
  },
  keep(name: string, counted: Log): void {
    this.logs.delete(name);
    this.logs.set(name, counted);
    if (this.logs.size > FALLBACK_SUBJECTS) this.logs.delete(this.logs.keys().next().value!);
  },
};
