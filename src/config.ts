/**
 * The deployment's vars and secrets as typed values, read once per env
 * object, and the check that refuses to serve while they are unsafe.
 */
import { createMiddleware } from "hono/factory";
import { ApiError } from "./errors";
import { parseWebhookSecrets } from "./events/signing";
import { RATE_LIMIT_BINDINGS } from "./rate-limit";
import { log } from "./redact";
import type { GatewayEnv } from "./types";

export interface GatewayConfig {
  environment: string;
  upstreamBaseUrl: string;
  upstreamTimeoutMs: number;
  upstreamApiKey: string;
  /** Keys the tid index: the fingerprint of create requests and users' upstream tids (rule 9). */
  tidSecret: string;
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

/** The development credentials of `.dev.vars.example`; a production deployment refuses to run with them. */
export const DEVELOPMENT_PARTNER_KEY = "sk_test_local_partner";
/** SHA-256 of DEVELOPMENT_PARTNER_KEY (a test proves it). */
export const DEVELOPMENT_PARTNER_KEY_DIGEST = "201db62f3c69cf8de8fe2450797a0c481469bb36ffc7e49ea916efb6bb68bd35";
export const DEVELOPMENT_JWT_SECRET = "local-dev-jwt-secret";
export const DEVELOPMENT_TID_SECRET = "local-dev-tid-secret";
/** The base64 of `local-dev-webhook-secret`, as `.dev.vars.example` sets it. */
export const DEVELOPMENT_WEBHOOK_SECRET = "whsec_bG9jYWwtZGV2LXdlYmhvb2stc2VjcmV0";
const SANDBOX_UPSTREAM_API_KEY = "sandbox-upstream-key";

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

function parseUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

/** A URL nobody configured: the `.invalid` placeholders of wrangler.toml, or not https. */
function urlProblem(name: string, value: string): string | null {
  const url = parseUrl(value);
  if (!url) return `${name} is not a URL.`;
  if (url.protocol !== "https:") return `${name} must be an https URL.`;
  if (url.hostname.endsWith(".invalid")) return `${name} is still the placeholder of wrangler.toml; set the real URL.`;
  return null;
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
  if (jwksUrl && !parseUrl(jwksUrl)) problems.push("JWKS_URL is not a URL.");
  if (!jwksUrl && !jwtSecret) problems.push("Neither JWKS_URL nor JWT_SECRET is set: users' JWTs cannot be verified.");
  if (!env.TID_SECRET) problems.push("TID_SECRET is not set: users' tids cannot be kept apart (rule 9).");
  for (const binding of RATE_LIMIT_BINDINGS) {
    if (typeof (env as unknown as Record<string, { limit?: unknown } | undefined>)[binding]?.limit !== "function") {
      problems.push(`The rate limiting binding ${binding} is missing (see [[ratelimits]] in wrangler.toml).`);
    }
  }
  if (typeof (env as { EVENTS?: { send?: unknown } }).EVENTS?.send !== "function") {
    problems.push("The queue binding EVENTS is missing (see [[queues.producers]] in wrangler.toml): events cannot be published.");
  }
  problems.push(...webhookSecretProblems);
  if (!production) return problems;

  if (digests.includes(DEVELOPMENT_PARTNER_KEY_DIGEST)) {
    problems.push("PARTNER_KEY_HASHES holds the digest of the development server key; remove it.");
  }
  if (jwtSecret === DEVELOPMENT_JWT_SECRET) {
    problems.push("JWT_SECRET is the development secret; production verifies users' JWTs against JWKS_URL only. Delete the secret.");
  } else if (jwtSecret) {
    problems.push("JWT_SECRET is set; production verifies users' JWTs against JWKS_URL only (no shared-secret HS256). Delete the secret.");
  }
  if (!jwksUrl) problems.push("JWKS_URL is not set: users' JWTs cannot be verified.");
  else if (parseUrl(jwksUrl)) {
    const jwks = urlProblem("JWKS_URL", jwksUrl);
    if (jwks) problems.push(jwks);
  }
  if (env.UPSTREAM) {
    problems.push("The UPSTREAM binding (the sandbox) is present; production reaches the real upstream at UPSTREAM_BASE_URL.");
  }
  const upstream = urlProblem("UPSTREAM_BASE_URL", env.UPSTREAM_BASE_URL ?? "");
  if (upstream) problems.push(upstream);
  if (env.TID_SECRET === DEVELOPMENT_TID_SECRET) problems.push("TID_SECRET is the development secret; set a random one of its own.");
  else if (env.TID_SECRET && env.TID_SECRET === env.UPSTREAM_API_KEY) {
    problems.push("TID_SECRET equals UPSTREAM_API_KEY; it must be a secret of its own, so rotating the upstream credential changes no tid.");
  } else if (env.TID_SECRET && env.TID_SECRET.length < 32) problems.push("TID_SECRET is shorter than 32 characters.");
  if (!env.UPSTREAM_API_KEY) problems.push("UPSTREAM_API_KEY is not set.");
  else if (env.UPSTREAM_API_KEY === SANDBOX_UPSTREAM_API_KEY) problems.push("UPSTREAM_API_KEY is the sandbox's development key.");
  const webhookUrl = (env.WEBHOOK_URL ?? "").trim();
  if (!webhookUrl) problems.push("WEBHOOK_URL is not set: events cannot be delivered.");
  else {
    const webhook = urlProblem("WEBHOOK_URL", webhookUrl);
    if (webhook) problems.push(webhook);
  }
  const webhookSecrets = (env.WEBHOOK_SECRET ?? "").split(/\s+/).filter(Boolean);
  if (webhookSecrets.length === 0) problems.push("WEBHOOK_SECRET is not set: events cannot be signed.");
  if (webhookSecrets.includes(DEVELOPMENT_WEBHOOK_SECRET)) {
    problems.push("WEBHOOK_SECRET holds the development secret; set the secret shared with the partner's receiver.");
  }
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
      tidSecret: env.TID_SECRET ?? "",
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
