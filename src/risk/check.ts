/**
 * Rule 13 at the edge: card testing and SMS pumping stopped before the
 * upstream is called. A user's call that uses a card or sends an OTP is
 * counted in the Durable Objects of its subjects (src/risk/risk-object.ts),
 * the card's and the user's, asked in parallel: one object hop of latency,
 * one object request per subject. Only if both admit it is it counted in
 * both; if either refuses, what the other wrote is taken back, so a refused
 * call counts nothing (a blocked attacker does not extend their own window).
 *
 * The partner backend is exempt, as from the rate limits: it is one server
 * calling for many users and limits its own.
 */
import type { Caller } from "../caller";
import type { Failure } from "../errors";
import { log } from "../log";
import { metric } from "../metrics";
import { type CardReference, cardFingerprint, fingerprintPrefix } from "./fingerprint";
import { RISK_RULES, type RiskRule, riskLimits } from "./limits";
import type { Admission, Counter } from "./risk-object";

/** What one call uses: the card it names, whether that is a use of a card number, whether it sends an OTP. */
export interface RiskUses {
  card: CardReference;
  /** An OTP send (authorize): counted per user and per card. */
  otpSend?: boolean;
}

/** Why a use is refused, in a sentence for the developer of the app. */
const REFUSALS: Record<RiskRule, string> = {
  card_uses_per_hour: "This card number was used too many times in the last hour",
  user_cards_per_day: "This user has used too many different card numbers today",
  user_otp_sends_per_day: "Too many OTPs were sent for this user today",
  card_otp_sends_per_day: "Too many OTPs were sent to this card today",
};

/** The subject's object (env.RISK) by name: "card:<fingerprint>" or "user:<sub>". */
const riskStub = (env: Env, subject: string) => env.RISK.get(env.RISK.idFromName(subject));

/**
 * Checks and counts a user's call against rule 13's limits. Null when it may
 * go on (and is counted); otherwise the 429 risk_limited to answer, with
 * Retry-After: the seconds until the refusing window lets the subject
 * through. A counter that cannot answer lets the call through, loudly: a
 * broken limiter must not stop payments.
 */
export async function admitRisk(env: Env, caller: Caller, uses: RiskUses, requestId: string): Promise<Failure | null> {
  if (caller.kind === "partner") return null;
  const limits = riskLimits(env);
  const fingerprint = await cardFingerprint(env.CARD_FINGERPRINT_SECRET ?? "", uses.card);
  const isNumber = "number" in uses.card;
  const counter = (rule: RiskRule, distinct?: string): Counter[] => {
    const limit = limits[rule];
    return limit === null ? [] : [{ rule, limit, windowMs: RISK_RULES[rule].windowMs, ...(distinct === undefined ? {} : { distinct }) }];
  };
  const subjects = [
    {
      kind: "card" as const,
      name: `card:${fingerprint}`,
      counters: [...(isNumber ? counter("card_uses_per_hour") : []), ...(uses.otpSend ? counter("card_otp_sends_per_day") : [])],
    },
    {
      kind: "user" as const,
      name: `user:${caller.id}`,
      counters: [...(isNumber ? counter("user_cards_per_day", fingerprint) : []), ...(uses.otpSend ? counter("user_otp_sends_per_day") : [])],
    },
  ].filter((subject) => subject.counters.length > 0);
  if (subjects.length === 0) return null;

  const stubs = subjects.map((subject) => riskStub(env, subject.name));
  const admissions = await Promise.all(
    stubs.map((stub, i) =>
      stub.admit(subjects[i]!.counters).catch((err: unknown): Admission => {
        log("error", "risk_unavailable", { request_id: requestId, subject: subjects[i]!.kind, error: String(err) });
        return { ok: true, written: [] };
      }),
    ),
  );
  let refusal: { rule: RiskRule; retryAfterMs: number; subject: "card" | "user" } | null = null;
  admissions.forEach((admission, i) => {
    if (!admission.ok && (!refusal || admission.retryAfterMs > refusal.retryAfterMs)) refusal = { ...admission, subject: subjects[i]!.kind };
  });
  if (!refusal) return null;
  const refused: { rule: RiskRule; retryAfterMs: number; subject: "card" | "user" } = refusal;
  await Promise.all(
    admissions.map((admission, i) =>
      admission.ok && admission.written.length > 0
        ? stubs[i]!.release(admission.written).catch((err: unknown) => {
            log("error", "risk_unavailable", { request_id: requestId, subject: subjects[i]!.kind, error: String(err) });
          })
        : undefined,
    ),
  );
  const retryAfter = Math.max(1, Math.ceil(refused.retryAfterMs / 1000));
  metric(env, "risk_refused", { operation: refused.rule, outcome: refused.subject });
  log("warn", "risk_limited", {
    request_id: requestId,
    rule: refused.rule,
    subject: refused.subject,
    fingerprint: fingerprintPrefix(fingerprint),
    ...(refused.subject === "user" ? { user: caller.id } : {}),
    retry_after: retryAfter,
  });
  return {
    code: "risk_limited",
    message: `${REFUSALS[refused.rule]} (rule 13, ${refused.rule}); retry after Retry-After seconds.`,
    rule: refused.rule,
    retry_after: retryAfter,
  };
}
