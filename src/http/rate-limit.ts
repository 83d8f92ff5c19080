/**
 * Abuse limits on the operations that cost the partner: authorize (each one
 * may send an SMS) and pay (each one may debit a card or spend an OTP guess).
 * Counted per user (`user:<sub>`) and per client address (`ip:<addr>`, from
 * CF-Connecting-IP) with the Workers rate limiting binding; the limits
 * themselves are configuration, in wrangler.toml's [[ratelimits]].
 *
 * The partner backend is exempt: it is one server calling for many users,
 * so a per-user or per-address count would throttle all of them at once. It
 * limits its own users; the per-receipt rules (rule 6: resend wait, at most
 * 5 OTPs per receipt; three wrong OTPs) hold for it as for everyone.
 */
import { createMiddleware } from "hono/factory";
import { ApiError } from "../errors/errors";
import { log } from "../shared/log";
import type { GatewayEnv } from "./types";

export type LimitedOperation = "authorize" | "pay";

/**
 * The bindings counting each operation. Every one is declared with
 * `period = 60` in wrangler.toml; a 429 asks the caller to wait that long.
 */
const LIMITERS = {
  authorize: { perUser: "LIMIT_AUTHORIZE_PER_USER", perAddress: "LIMIT_AUTHORIZE_PER_IP" },
  pay: { perUser: "LIMIT_PAY_PER_USER", perAddress: "LIMIT_PAY_PER_IP" },
} as const satisfies Record<LimitedOperation, { perUser: keyof Env; perAddress: keyof Env }>;

export const RATE_LIMIT_PERIOD_SECONDS = 60;

/** Every binding the limits need; the guard refuses to serve without one. */
export const RATE_LIMIT_BINDINGS = Object.values(LIMITERS).flatMap(({ perUser, perAddress }) => [perUser, perAddress]);

/** The guard's sentences (src/http/guard.ts): each binding the limits need that this deployment lacks. */
export function rateLimitProblems(env: Env): string[] {
  const bindings = env as unknown as Record<string, { limit?: unknown } | undefined>;
  return RATE_LIMIT_BINDINGS.filter((binding) => typeof bindings[binding]?.limit !== "function").map(
    (binding) => `The rate limiting binding ${binding} is missing (see [[ratelimits]] in wrangler.toml).`,
  );
}

/**
 * Counts the call against its user's and its address's budget for `operation`;
 * 429 rate_limited past either. An operation's description names its limit
 * (src/operations/), and its route counts it after the body's validation: a
 * malformed request is 400 and costs no budget.
 */
export const rateLimit = (operation: LimitedOperation) =>
  createMiddleware<GatewayEnv>(async (c, next) => {
    const caller = c.var.caller;
    if (caller.kind === "partner") return next();
    const { perUser, perAddress } = LIMITERS[operation];
    const address = c.req.header("cf-connecting-ip");
    let outcomes: RateLimitOutcome[];
    try {
      outcomes = await Promise.all([
        c.env[perUser].limit({ key: `user:${caller.id}` }),
        ...(address ? [c.env[perAddress].limit({ key: `ip:${address}` })] : []),
      ]);
    } catch (err) {
      // A limiter that cannot answer must not stop payments: let the call through, loudly.
      log("error", "rate_limit_unavailable", { request_id: c.var.requestId, operation, error: String(err) });
      return next();
    }
    if (outcomes.some((outcome) => !outcome.success)) {
      throw new ApiError("rate_limited", `Too many ${operation} calls; wait before trying again.`, {
        retry_after: RATE_LIMIT_PERIOD_SECONDS,
      });
    }
    await next();
  });
