/**
 * Rule 13's limits as configuration: the RISK_LIMITS var, one JSON object
 * read with valibot. Each limit is a positive integer or "off"; a limit the
 * object leaves out keeps its default, and an absent or empty var means
 * every default. The windows belong to the rules' names (an hour, a day):
 * a deployment changes how many, never how long, so a counter's rows always
 * end when its name says.
 */
import * as v from "valibot";

/** The counters of rule 13, each with the window its name promises. */
export const RISK_RULES = {
  /** Uses of one card number (anonymous authorize and pay, a2c/create's receiver_card), across all receipts and users. */
  card_uses_per_hour: { subject: "card", windowMs: 3_600_000, fallback: 10 },
  /** Distinct card numbers one user uses; a card counts from its first use in the window. */
  user_cards_per_day: { subject: "user", windowMs: 86_400_000, fallback: 5 },
  /** OTP sends (authorize, token or number) one user asks for. */
  user_otp_sends_per_day: { subject: "user", windowMs: 86_400_000, fallback: 20 },
  /** OTP sends to one card, by its number's or its token's fingerprint. */
  card_otp_sends_per_day: { subject: "card", windowMs: 86_400_000, fallback: 10 },
} as const satisfies Record<string, { subject: "card" | "user"; windowMs: number; fallback: number }>;

export type RiskRule = keyof typeof RISK_RULES;

/** Each rule's limit; null when the deployment switched it off. */
export type RiskLimits = Readonly<Record<RiskRule, number | null>>;

const Limit = v.union(
  [v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(Number.MAX_SAFE_INTEGER)), v.literal("off")],
  'each limit must be a positive integer or "off"',
);

const RiskLimitsSetting = v.strictObject(
  Object.fromEntries(Object.keys(RISK_RULES).map((rule) => [rule, v.optional(Limit)])) as Record<RiskRule, v.OptionalSchema<typeof Limit, undefined>>,
  `RISK_LIMITS must be a JSON object of the limits ${Object.keys(RISK_RULES).join(", ")}, and no other key`,
);

export const DEFAULT_RISK_LIMITS: RiskLimits = Object.fromEntries(
  Object.entries(RISK_RULES).map(([rule, { fallback }]) => [rule, fallback]),
) as Record<RiskRule, number>;

/** RISK_LIMITS read, or the sentence that says what is wrong with it (never used: the guard refuses to serve). */
export function parseRiskLimits(value: unknown): { limits: RiskLimits; problem: string | null } {
  const text = typeof value === "string" ? value.trim() : "";
  if (!text) return { limits: DEFAULT_RISK_LIMITS, problem: null };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { limits: DEFAULT_RISK_LIMITS, problem: 'RISK_LIMITS is not JSON (rule 13\'s limits, e.g. {"card_uses_per_hour": 10}).' };
  }
  const parsed = v.safeParse(RiskLimitsSetting, json);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const at = v.getDotPath(issue);
    return { limits: DEFAULT_RISK_LIMITS, problem: `RISK_LIMITS is not valid: ${at ? `${at}: ` : ""}${issue.message}.` };
  }
  const limits = { ...DEFAULT_RISK_LIMITS };
  for (const [rule, limit] of Object.entries(parsed.output) as [RiskRule, number | "off" | undefined][]) {
    if (limit !== undefined) limits[rule] = limit === "off" ? null : limit;
  }
  return { limits, problem: null };
}

const cache = new WeakMap<object, RiskLimits>();

/** This deployment's limits, read once per env object. */
export function riskLimits(env: Env): RiskLimits {
  let limits = cache.get(env);
  if (!limits) {
    limits = parseRiskLimits((env as { RISK_LIMITS?: unknown }).RISK_LIMITS).limits;
    cache.set(env, limits);
  }
  return limits;
}

/** The guard's sentences (src/guard.ts): RISK_LIMITS that does not parse, or no RISK binding to count in. */
export function riskProblems(env: Env): string[] {
  const problems: string[] = [];
  const { problem } = parseRiskLimits((env as { RISK_LIMITS?: unknown }).RISK_LIMITS);
  if (problem) problems.push(problem);
  if (typeof (env as { RISK?: { idFromName?: unknown } }).RISK?.idFromName !== "function") {
    problems.push(
      "The Durable Object binding RISK (RiskObject) is missing (see [[durable_objects.bindings]] in wrangler.toml): rule 13 cannot count.",
    );
  }
  return problems;
}
