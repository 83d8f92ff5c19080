/**
 * The misconfiguration guard: everything that keeps this deployment from
 * serving safely, each problem named by the module that owns what it is
 * about, and the middleware that refuses every call while there is one. The
 * events queue's consumer asks it too (src/events/delivery.ts), and holds its
 * events back.
 */
import { createMiddleware } from "hono/factory";
import {
  cancelledByProblems,
  credentialProblems,
  expiryProblems,
  fiscalReadProblems,
  logSampleProblems,
  productionProblems,
  webhookSecretProblems,
} from "../config/config";
import { auditSettingProblems } from "../config/config-rules";
import { riskProblems } from "../config/risk-limits";
import { staffRoleProblems } from "../config/staff-roles";
import { shardProblems } from "../d1/shards";
import { ApiError } from "../errors/errors";
import { log } from "../shared/log";
import { rateLimitProblems } from "./rate-limit";
import type { GatewayEnv } from "./types";

/** The EVENTS queue binding, which src/events/ sends to: checked here, below the events that ask the guard. */
function eventQueueProblems(env: Env): string[] {
  if (typeof (env as { EVENTS?: { send?: unknown } }).EVENTS?.send === "function") return [];
  return ["The queue binding EVENTS is missing (see [[queues.producers]] in wrangler.toml): events cannot be published."];
}

/** Rules 15 and 16: their settings, and the buckets and objects that keep the audit trail and the statements. */
function auditProblems(env: Env): string[] {
  const problems = auditSettingProblems(env as unknown as Record<string, unknown>, false);
  const bound = env as unknown as Record<string, { put?: unknown; idFromName?: unknown } | undefined>;
  for (const name of ["AUDIT", "STATEMENTS"])
    if (typeof bound[name]?.put !== "function") problems.push(`The R2 binding ${name} is missing (see [[r2_buckets]] in wrangler.toml).`);
  for (const name of ["AUDIT_WRITER", "STATEMENT"])
    if (typeof bound[name]?.idFromName !== "function")
      problems.push(`The Durable Object binding ${name} is missing (see [[durable_objects.bindings]] in wrangler.toml).`);
  return problems;
}

/** Every check, in the order a 503 names their problems. */
const CHECKS: readonly ((env: Env) => readonly string[])[] = [
  credentialProblems,
  rateLimitProblems,
  riskProblems,
  eventQueueProblems,
  webhookSecretProblems,
  expiryProblems,
  fiscalReadProblems,
  auditProblems,
  cancelledByProblems,
  logSampleProblems,
  staffRoleProblems,
  shardProblems,
  productionProblems,
];

const cache = new WeakMap<object, readonly string[]>();

/**
 * What is wrong with this deployment, each in a sentence that names the
 * setting or binding but never a secret's value; read once per env object.
 * Non-empty: the gateway serves nothing.
 */
export function configProblems(env: Env): readonly string[] {
  let problems = cache.get(env);
  if (!problems) {
    problems = CHECKS.flatMap((check) => check(env));
    cache.set(env, problems);
  }
  return problems;
}

const reported = new WeakSet<object>();

/**
 * Answers every call, health check included, with 503 service_misconfigured
 * while the configuration has problems: a deployment that would accept the
 * development credentials, or could not verify anyone, must not look healthy.
 */
export const requireSoundConfig = createMiddleware<GatewayEnv>(async (c, next) => {
  const problems = configProblems(c.env);
  if (problems.length > 0) {
    if (!reported.has(c.env)) {
      reported.add(c.env);
      log("error", "service_misconfigured", { problems: problems.join(" ") });
    }
    throw new ApiError("service_misconfigured", `This deployment is misconfigured: ${problems.join(" ")}`);
  }
  await next();
});
