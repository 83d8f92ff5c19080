/**
 * The deployment's vars and secrets as typed values, read once per env
 * object, and the check that refuses to serve while they are unsafe.
 */
import { createMiddleware } from "hono/factory";
import { productionSecretProblems, productionVarProblems, secretList } from "./config-rules";
import { ApiError } from "./errors";
import { parseWebhookSecrets } from "./events/signing";
import { RATE_LIMIT_BINDINGS } from "./rate-limit";
import { log } from "./log";
import { shardProblems } from "./shards";
import type { GatewayEnv } from "./types";

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
  /**
   * What is wrong with this deployment, each in a sentence that names the
   * setting but never a secret's value. Non-empty: the gateway serves nothing.
   */
  problems: readonly string[];
}

export type UserTokenConfig = (
  | { mode: "jwks"; jwksUrl: string; algorithms: readonly ["RS256", "ES256"] }
  | { mode: "shared-secret"; secret: Uint8Array; algorithms: readonly ["HS256"] }
) & { issuer?: string; audience?: string };

export {
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

function isUrl(value: string): boolean {
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * Everything that keeps this deployment from serving safely. Only
 * ENVIRONMENT=development may use the sandbox and the development
 * credentials; any other value (or none) is held to the production rules, so
 * a typo fails closed.
 */
function findProblems(env: Env, digests: readonly string[], jwksUrl: string, jwtSecret: string, webhookSecretProblems: readonly string[]): string[] {
  const problems: string[] = [];
  const production = env.ENVIRONMENT !== "development";

  if (digests.length === 0) problems.push("PARTNER_KEY_HASHES is not set: no partner server key can be accepted.");
  digests.forEach((digest, i) => {
    if (!DIGEST.test(digest)) problems.push(`PARTNER_KEY_HASHES entry ${i + 1} is not a lowercase hex SHA-256 digest.`);
  });
  if (jwksUrl && !isUrl(jwksUrl)) problems.push("JWKS_URL is not a URL.");
  if (!jwksUrl && !jwtSecret) problems.push("Neither JWKS_URL nor JWT_SECRET is set: users' JWTs cannot be verified.");
  if (secretList(env.TID_SECRET).length === 0) problems.push("TID_SECRET is not set: users' tids cannot be kept apart (rule 9).");
  for (const binding of RATE_LIMIT_BINDINGS) {
    if (typeof (env as unknown as Record<string, { limit?: unknown } | undefined>)[binding]?.limit !== "function") {
      problems.push(`The rate limiting binding ${binding} is missing (see [[ratelimits]] in wrangler.toml).`);
    }
  }
  if (typeof (env as { EVENTS?: { send?: unknown } }).EVENTS?.send !== "function") {
    problems.push("The queue binding EVENTS is missing (see [[queues.producers]] in wrangler.toml): events cannot be published.");
  }
  problems.push(...webhookSecretProblems);
  problems.push(...shardProblems(env));
  if (!production) return problems;

  if (env.UPSTREAM) {
    problems.push("The UPSTREAM binding (the sandbox) is present; production reaches the real upstream at UPSTREAM_BASE_URL.");
  }
  const settings = env as unknown as Record<string, unknown>;
  // A JWKS_URL that is not a URL was named above, for every environment.
  problems.push(...productionVarProblems(settings).filter((p) => p !== "JWKS_URL is not a URL."));
  problems.push(...productionSecretProblems(settings));
  return problems;
}

export function readConfig(env: Env): GatewayConfig {
  let config = cache.get(env);
  if (!config) {
    const digests = (env.PARTNER_KEY_HASHES ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    const jwksUrl = (env.JWKS_URL ?? "").trim();
    const jwtSecret = env.JWT_SECRET ?? "";
    const webhookSecrets = parseWebhookSecrets(env.WEBHOOK_SECRET);
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
      partnerKeyDigests: digests.filter((d) => DIGEST.test(d)).map(hexBytes),
      // A JWKS deployment accepts only the asymmetric algorithms, whatever JWT_SECRET says.
      userTokens: jwksUrl
        ? { mode: "jwks", jwksUrl, algorithms: ["RS256", "ES256"], ...claims }
        : jwtSecret
          ? { mode: "shared-secret", secret: new TextEncoder().encode(jwtSecret), algorithms: ["HS256"], ...claims }
          : null,
      webhook: {
        url: (env.WEBHOOK_URL ?? "").trim(),
        keys: webhookSecrets.keys,
        timeoutMs: intVar(env.WEBHOOK_TIMEOUT_MS, 10_000),
      },
      problems: findProblems(env, digests, jwksUrl, jwtSecret, webhookSecrets.problems),
    };
    cache.set(env, config);
  }
  return config;
}

const reported = new WeakSet<object>();

/**
 * Answers every call, health check included, with 503 service_misconfigured
 * while the configuration has problems: a deployment that would accept the
 * development credentials, or could not verify anyone, must not look healthy.
 */
export const requireSoundConfig = createMiddleware<GatewayEnv>(async (c, next) => {
  const { problems } = readConfig(c.env);
  if (problems.length > 0) {
    if (!reported.has(c.env)) {
      reported.add(c.env);
      log("error", "service_misconfigured", { problems: problems.join(" ") });
    }
    throw new ApiError("service_misconfigured", `This deployment is misconfigured: ${problems.join(" ")}`);
  }
  await next();
});
