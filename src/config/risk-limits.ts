/**
 * Rule 13's limits as configuration: the RISK_LIMITS var, one JSON object
 * read with valibot. Each limit is a positive integer or "off"; a limit the
 * object leaves out keeps its default, and an absent or empty var means
 * every default. The windows belong to the rules' names (an hour, a day):
 * a deployment changes how many, never how long, so a counter's rows always
 * end when its name says.
 *
 * Every limit is the caller's own, or protects the caller's own: a user's
 * uses of a card, a user's cards, a user's OTP sends, and a card's users,
 * where a user the card already admitted is never refused. Nothing counts a
 * card's uses across users, so nobody can use up a stranger's card.
 */
import * as v from "valibot";

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * Where a subject's object keeps the uses its rules count (one key of its
 * log each), and how an entry is written: `call`, one entry per counted call
 * (so a call's own entries can be taken back without touching another's);
 * `ref`, one entry per card, its end moved on by each use (only on a
 * subject that a call asks alone, so never taken back).
 */
export const RISK_KEYS = {
  /** A user's uses of card numbers as the payer's, by the card's fingerprint. */
  payer_uses: { subject: "user", entries: "call" },
  /** A user's OTP sends, by the card's (number's or token's) fingerprint. */
  otp_sends: { subject: "user", entries: "call" },
  /** A user's receiver cards (a2c/create's receiver_card), by fingerprint: a2c/create asks the user's object alone. */
  receiver_cards: { subject: "user", entries: "ref" },
  /** A card's users as the payer, by a keyed hash of the user (src/risk/fingerprint.ts userKey). */
  card_users: { subject: "card", entries: "call" },
} as const satisfies Record<string, { subject: "card" | "user"; entries: "call" | "ref" }>;

export type RiskKey = keyof typeof RISK_KEYS;

/**
 * The counters of rule 13, each with the window its name promises, the key
 * its uses are kept in, and what it counts there: `ref`, this card's (or
 * this user's) entries; `all`, every entry; `distinct`, the cards (or users)
 * with an entry, where one already among them is always admitted.
 * `others`: the entries are other people's, so a refusal's Retry-After is
 * the whole window and tells nothing of when they used the card.
 */
export const RISK_RULES = {
  /** Uses of one card number as the payer's by one user (anonymous/authorize, anonymous/pay). */
  user_card_uses_per_hour: { key: "payer_uses", counts: "ref", windowMs: HOUR_MS, fallback: 5 },
  user_card_uses_per_day: { key: "payer_uses", counts: "ref", windowMs: DAY_MS, fallback: 10 },
  /** Distinct users of one card number as the payer's; a user already among them is never refused. */
  card_users_per_day: { key: "card_users", counts: "distinct", windowMs: DAY_MS, fallback: 3, others: true },
  /** Distinct card numbers one user pays with. */
  user_payer_cards_per_day: { key: "payer_uses", counts: "distinct", windowMs: DAY_MS, fallback: 5 },
  /** Distinct receiver cards of one user's transfers (a2c/create); they count toward no other limit. */
  user_receiver_cards_per_day: { key: "receiver_cards", counts: "distinct", windowMs: DAY_MS, fallback: 20 },
  /** OTP sends (authorize, by token or number) one user asks for. */
  user_otp_sends_per_day: { key: "otp_sends", counts: "all", windowMs: DAY_MS, fallback: 20 },
  /** OTP sends one user asks for to one card, by its number's or its token's fingerprint. */
  user_card_otp_sends_per_day: { key: "otp_sends", counts: "ref", windowMs: DAY_MS, fallback: 5 },
} as const satisfies Record<string, { key: RiskKey; counts: "ref" | "all" | "distinct"; windowMs: number; fallback: number; others?: true }>;

export type RiskRule = keyof typeof RISK_RULES;

/** The rules' names, in the order above (the OpenAPI document's `rule`). */
export const RISK_RULE_NAMES = Object.keys(RISK_RULES) as [RiskRule, ...RiskRule[]];

/** How long an entry of each key is kept: the longest window of the rules that count it. */
export const KEEP_MS: Readonly<Record<RiskKey, number>> = Object.fromEntries(
  (Object.keys(RISK_KEYS) as RiskKey[]).map((key) => [
    key,
    Math.max(...Object.values(RISK_RULES).flatMap((rule) => (rule.key === key ? [rule.windowMs] : []))),
  ]),
) as Record<RiskKey, number>;

/**
 * The previous release's limits, which counted a card across all users (so
 * anyone could use up a stranger's card): named in RISK_LIMITS they are
 * refused with what replaced them, rather than read as something else.
 */
const RETIRED: Readonly<Record<string, string>> = {
  card_uses_per_hour: "user_card_uses_per_hour and user_card_uses_per_day (a card's uses are counted per user) and card_users_per_day",
  card_otp_sends_per_day: "user_card_otp_sends_per_day (a card's OTP sends are counted per user)",
  user_cards_per_day: "user_payer_cards_per_day and user_receiver_cards_per_day",
};

/** Each rule's limit; null when the deployment switched it off. */
export type RiskLimits = Readonly<Record<RiskRule, number | null>>;

const Limit = v.union(
  [v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(Number.MAX_SAFE_INTEGER)), v.literal("off")],
  'each limit must be a positive integer or "off"',
);

const RiskLimitsSetting = v.strictObject(
  Object.fromEntries(RISK_RULE_NAMES.map((rule) => [rule, v.optional(Limit)])) as Record<RiskRule, v.OptionalSchema<typeof Limit, undefined>>,
  `RISK_LIMITS must be a JSON object of the limits ${RISK_RULE_NAMES.join(", ")}, and no other key`,
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
    return { limits: DEFAULT_RISK_LIMITS, problem: 'RISK_LIMITS is not JSON (rule 13\'s limits, e.g. {"user_card_uses_per_hour": 5}).' };
  }
  const retired = json !== null && typeof json === "object" ? Object.keys(json).filter((name) => Object.hasOwn(RETIRED, name)) : [];
  if (retired.length > 0) {
    const name = retired[0]!;
    return { limits: DEFAULT_RISK_LIMITS, problem: `RISK_LIMITS names ${name}, a limit no longer counted: set ${RETIRED[name]} instead.` };
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

/** The guard's sentences (src/http/guard.ts): RISK_LIMITS that does not parse, or no RISK binding to count in. */
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
