/**
 * The deployment's vars and secrets as typed values, read once per env
 * object, and what is wrong with them. Only the settings: each binding is
 * checked by the module that uses it, and src/http/guard.ts collects every
 * problem and refuses to serve while there is one.
 */
import { durationList, parseWebhookSecrets, secretList, settingText } from "./config-lists";
import {
  CANCELLED_BY_UNFIT,
  cancelledByName,
  DEFAULT_CANCELLED_BY,
  FISCAL_READ_DEFAULTS,
  FISCAL_READS_UNREADABLE,
  parseUrl,
  productionSecretProblems,
  productionVarProblems,
} from "./config-rules";

export interface GatewayConfig {
  environment: string;
  upstreamBaseUrl: string;
  upstreamTimeoutMs: number;
  upstreamApiKey: string;
  /** Keys the tid index: the fingerprint of create requests and users' upstream tids (rule 9). New claims use it. */
  tidSecret: string;
  /** TID_SECRET's earlier values, kept while it is rotated: claims made under them still match (docs/production.md). */
  formerTidSecrets: readonly string[];
  holdEnabled: boolean;
  qrMerchantIds: ReadonlySet<number>;
  /** SHA-256 digests of the accepted partner server keys (several at once, for rotation). */
  partnerKeyDigests: readonly Uint8Array[];
  /** How users' JWTs are verified; null when neither JWKS_URL nor JWT_SECRET is set. */
  userTokens: UserTokenConfig | null;
  /** Where events are delivered, the keys they are signed with (several during a rotation), how long a delivery may take. */
  webhook: { url: string; keys: readonly Uint8Array[]; timeoutMs: number };
  /** Rule 12's windows (RECEIPT_EXPIRY_HOURS, HOLD_EXPIRY_DAYS), in ms. */
  expiry: { unpaidMs: number; heldMs: number };
  /** Rule 14's reads of a fiscal-pending receipt (FISCAL_READS): ms after its payment or refund, increasing. */
  fiscalReads: readonly number[];
  /**
   * Who the payment service is told cancelled (GATEWAY_CANCELLED_BY): what a
   * user's cancel sends as `cancelledBy` whatever its body says (a user
   * cannot speak for someone else upstream), and what the gateway's own
   * cancels may send.
   */
  cancelledBy: string;
  /** LOG_SUCCESS_SAMPLE: the share of successful, unremarkable invocations whose canonical line is written (src/shared/log.ts). */
  logSuccessSample: number;
}

/** Rule 12's windows, as the settings name them: each a positive number, fractions accepted. */
export const EXPIRY_SETTINGS = {
  RECEIPT_EXPIRY_HOURS: { unitMs: 3_600_000, fallback: 24 },
  HOLD_EXPIRY_DAYS: { unitMs: 86_400_000, fallback: 7 },
} as const;

/** A window's value, or null when it is set and not a positive finite number; unset: its default. */
function windowValue(value: string | undefined, fallback: number): number | null {
  if (value === undefined || value.trim() === "") return fallback;
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : null;
}

const windowMs = (env: Env, name: keyof typeof EXPIRY_SETTINGS): number => {
  const { unitMs, fallback } = EXPIRY_SETTINGS[name];
  return (windowValue(env[name], fallback) ?? fallback) * unitMs;
};

/** What is wrong with rule 12's windows: an unreadable one would silently end receipts at its default. */
export const expiryProblems = (env: Env): string[] =>
  (Object.keys(EXPIRY_SETTINGS) as (keyof typeof EXPIRY_SETTINGS)[])
    .filter((name) => windowValue(env[name], EXPIRY_SETTINGS[name].fallback) === null)
    .map((name) => `${name} is not a positive number (fractions are accepted).`);

/**
 * Rule 14's schedule: FISCAL_READS, or when it is unset the environment's
 * default (development reads within 2 minutes, production at 5 minutes, 1
 * hour and 24 hours). An unreadable value is the guard's problem; until the
 * guard refuses to serve, the default stands.
 */
export function fiscalReadSchedule(env: Env): readonly number[] {
  const fallback = durationList(env.ENVIRONMENT === "development" ? FISCAL_READ_DEFAULTS.development : FISCAL_READ_DEFAULTS.production)!;
  return settingText(env.FISCAL_READS) === "" ? fallback : (durationList(env.FISCAL_READS) ?? fallback);
}

/** LOG_SUCCESS_SAMPLE's value, or null when it is set and not a share from 0 to 1; unset: 1, every line written. */
function logSampleValue(value: string | undefined): number | null {
  const text = settingText(value);
  if (text === "") return 1;
  const n = Number(text);
  return Number.isFinite(n) && n >= 0 && n <= 1 ? n : null;
}

/** What is wrong with LOG_SUCCESS_SAMPLE: a share that is not one would keep or drop lines by a default no one chose. */
export const logSampleProblems = (env: Env): string[] =>
  logSampleValue(env.LOG_SUCCESS_SAMPLE) === null ? ["LOG_SUCCESS_SAMPLE is not a share from 0 to 1."] : [];

/** What is wrong with GATEWAY_CANCELLED_BY in every environment: a name the upstream could not be sent. */
export const cancelledByProblems = (env: Env): string[] => (cancelledByName(env.GATEWAY_CANCELLED_BY) === null ? [CANCELLED_BY_UNFIT] : []);

/** What is wrong with FISCAL_READS in every environment: a value that is not a schedule (production's own rule is config-rules's). */
export const fiscalReadProblems = (env: Env): string[] =>
  settingText(env.FISCAL_READS) !== "" && durationList(env.FISCAL_READS) === null ? [FISCAL_READS_UNREADABLE] : [];

export type UserTokenConfig = (
  | { mode: "jwks"; jwksUrl: string; algorithms: readonly ["RS256", "ES256"] }
  | { mode: "shared-secret"; secret: Uint8Array; algorithms: readonly ["HS256"] }
) & { issuer?: string; audience?: string };

export {
  DEVELOPMENT_CARD_FINGERPRINT_SECRET,
  DEVELOPMENT_JWT_SECRET,
  DEVELOPMENT_PARTNER_KEY,
  DEVELOPMENT_PARTNER_KEY_DIGEST,
  DEVELOPMENT_TID_SECRET,
  DEVELOPMENT_WEBHOOK_SECRET,
} from "./config-rules";

const cache = new WeakMap<object, GatewayConfig>();

function intVar(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

const DIGEST = /^[0-9a-f]{64}$/;

function hexBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

/** PARTNER_KEY_HASHES's entries, well-formed or not. */
const partnerKeyHashes = (env: Env): string[] =>
  (env.PARTNER_KEY_HASHES ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

export function readConfig(env: Env): GatewayConfig {
  let config = cache.get(env);
  if (!config) {
    const jwksUrl = (env.JWKS_URL ?? "").trim();
    const jwtSecret = env.JWT_SECRET ?? "";
    const claims = {
      ...(env.JWT_ISSUER ? { issuer: env.JWT_ISSUER } : {}),
      ...(env.JWT_AUDIENCE ? { audience: env.JWT_AUDIENCE } : {}),
    };
    config = {
      environment: env.ENVIRONMENT,
      upstreamBaseUrl: (env.UPSTREAM_BASE_URL ?? "").replace(/\/+$/, ""),
      upstreamTimeoutMs: intVar(env.UPSTREAM_TIMEOUT_MS, 10_000),
      upstreamApiKey: env.UPSTREAM_API_KEY ?? "",
      tidSecret: secretList(env.TID_SECRET)[0] ?? "",
      formerTidSecrets: secretList(env.TID_SECRET).slice(1),
      holdEnabled: env.HOLD_ENABLED === "true",
      qrMerchantIds: new Set(
        (env.QR_MERCHANT_IDS ?? "")
          .split(",")
          .map((s) => Number(s.trim()))
          .filter((n) => Number.isInteger(n) && n > 0),
      ),
      partnerKeyDigests: partnerKeyHashes(env)
        .filter((d) => DIGEST.test(d))
        .map(hexBytes),
      // A JWKS deployment accepts only the asymmetric algorithms, whatever JWT_SECRET says.
      userTokens: jwksUrl
        ? { mode: "jwks", jwksUrl, algorithms: ["RS256", "ES256"], ...claims }
        : jwtSecret
          ? { mode: "shared-secret", secret: new TextEncoder().encode(jwtSecret), algorithms: ["HS256"], ...claims }
          : null,
      webhook: {
        url: (env.WEBHOOK_URL ?? "").trim(),
        keys: parseWebhookSecrets(env.WEBHOOK_SECRET).keys,
        timeoutMs: intVar(env.WEBHOOK_TIMEOUT_MS, 10_000),
      },
      expiry: { unpaidMs: windowMs(env, "RECEIPT_EXPIRY_HOURS"), heldMs: windowMs(env, "HOLD_EXPIRY_DAYS") },
      fiscalReads: fiscalReadSchedule(env),
      cancelledBy: cancelledByName(env.GATEWAY_CANCELLED_BY) ?? DEFAULT_CANCELLED_BY,
      // Until the guard refuses to serve with an unreadable value, every line is written.
      logSuccessSample: logSampleValue(env.LOG_SUCCESS_SAMPLE) ?? 1,
    };
    cache.set(env, config);
  }
  return config;
}

/*
 * What is wrong with the settings, each in a sentence that names the setting
 * but never a secret's value (src/http/guard.ts lists them with the bindings').
 * Only ENVIRONMENT=development may use the sandbox and the development
 * credentials; any other value (or none) is held to the production rules, so
 * a typo fails closed.
 */

/** Whether callers can be verified and tids kept apart: every environment. */
export function credentialProblems(env: Env): string[] {
  const problems: string[] = [];
  const digests = partnerKeyHashes(env);
  const jwksUrl = (env.JWKS_URL ?? "").trim();
  if (digests.length === 0) problems.push("PARTNER_KEY_HASHES is not set: no partner server key can be accepted.");
  digests.forEach((digest, i) => {
    if (!DIGEST.test(digest)) problems.push(`PARTNER_KEY_HASHES entry ${i + 1} is not a lowercase hex SHA-256 digest.`);
  });
  if (jwksUrl && !parseUrl(jwksUrl)) problems.push("JWKS_URL is not a URL.");
  if (!jwksUrl && !env.JWT_SECRET) problems.push("Neither JWKS_URL nor JWT_SECRET is set: users' JWTs cannot be verified.");
  if (secretList(env.TID_SECRET).length === 0) problems.push("TID_SECRET is not set: users' tids cannot be kept apart (rule 9).");
  if (!(env.CARD_FINGERPRINT_SECRET ?? "")) problems.push("CARD_FINGERPRINT_SECRET is not set: rule 13 cannot count cards.");
  return problems;
}

/** Whether events can be signed: each WEBHOOK_SECRET entry well-formed. */
export const webhookSecretProblems = (env: Env): string[] => parseWebhookSecrets(env.WEBHOOK_SECRET).problems;

/** Outside development, the production rules (src/config/config-rules.ts) and no sandbox. */
export function productionProblems(env: Env): string[] {
  if (env.ENVIRONMENT === "development") return [];
  const problems: string[] = [];
  if (env.UPSTREAM) {
    problems.push("The UPSTREAM binding (the sandbox) is present; production reaches the real upstream at UPSTREAM_BASE_URL.");
  }
  const settings = env as unknown as Record<string, unknown>;
  // A JWKS_URL that is not a URL, a FISCAL_READS that is no schedule and an unfit GATEWAY_CANCELLED_BY are every environment's problems.
  const everywhere = new Set(["JWKS_URL is not a URL.", FISCAL_READS_UNREADABLE, CANCELLED_BY_UNFIT]);
  problems.push(...productionVarProblems(settings).filter((p) => !everywhere.has(p)));
  problems.push(...productionSecretProblems(settings));
  return problems;
}
