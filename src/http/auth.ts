/**
 * Authentication: decides who the caller is and sets `c.var.caller`, the one
 * place every rule reads the caller from.
 *
 * - `Bearer sk_...`: the partner backend. The key is hashed (SHA-256) and
 *   compared in constant time with every digest in PARTNER_KEY_HASHES, so
 *   several keys may be valid at once while one is rotated out. Every key
 *   is the same caller: rotation keeps access to every receipt.
 * - `Bearer <JWT>`: a user, `sub`. Verified with jose against the identity
 *   provider's JWKS (RS256/ES256), or in development with the HS256 secret.
 *
 * Anything else is 401 unauthorized, before the body is parsed and before
 * anything reaches the upstream. Messages say what is wrong in general terms
 * and never echo the credential.
 */
import { createMiddleware } from "hono/factory";
import { type JWTPayload, jwtVerify } from "jose";
import { readConfig, type UserTokenConfig } from "../config/config";
import { ApiError } from "../errors/errors";
import type { Caller } from "../rules/caller";
import { log } from "../shared/log";
import { remoteKeySet, tokenFault } from "./jwt";
import type { GatewayEnv } from "./types";

/** Tolerated clock difference between the identity provider and the edge. */
export const CLOCK_TOLERANCE_SECONDS = 30;
/** Longer credentials are refused unread: no real key or token comes near it. */
const MAX_CREDENTIAL_LENGTH = 8192;
const MAX_SUBJECT_LENGTH = 255;
/** A token signed by a key id the identity provider's cached set lacks fetches the set again at most this often. */
const JWKS_REFETCH_COOLDOWN_MS = 30_000;
const PARTNER: Caller = { kind: "partner", id: "partner" };

/** The realm every 401 names (RFC 6750). */
export const REALM = "payments-gateway";

/**
 * 401 with its WWW-Authenticate challenge: `error="invalid_token"` when a
 * Bearer credential was sent and refused, the bare challenge when none was.
 */
const unauthorized = (message: string, credentialSent = true) =>
  new ApiError("unauthorized", message, {
    headers: {
      "WWW-Authenticate": credentialSent ? `Bearer realm="${REALM}", error="invalid_token"` : `Bearer realm="${REALM}"`,
    },
  });

export const authenticate = createMiddleware<GatewayEnv>(async (c, next) => {
  c.set("caller", await identify(c.env, c.req.header("authorization")));
  await next();
});

/** The caller behind an Authorization header, or a thrown ApiError. */
export async function identify(env: Env, authorization: string | undefined): Promise<Caller> {
  if (!authorization) throw unauthorized("Send Authorization: Bearer <partner server key or user JWT>.", false);
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
  if (!match) throw unauthorized("The Authorization header must be Bearer <partner server key or user JWT>.", false);
  const credential = match[1]!;
  if (credential.length > MAX_CREDENTIAL_LENGTH) throw unauthorized("The credential is too long to be a server key or JWT.");
  if (credential.startsWith("sk_")) {
    if (await isPartnerKey(env, credential)) return PARTNER;
    throw unauthorized("The server key is not valid.");
  }
  return { kind: "user", id: await verifyUserToken(env, credential) };
}

async function isPartnerKey(env: Env, key: string): Promise<boolean> {
  const presented = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)));
  let matched = false;
  // Every digest is compared, matched or not: the time taken says nothing about which, or whether.
  for (const digest of readConfig(env).partnerKeyDigests) {
    matched = crypto.subtle.timingSafeEqual(presented, digest) || matched;
  }
  return matched;
}

async function verifyUserToken(env: Env, token: string): Promise<string> {
  const config = readConfig(env).userTokens;
  if (!config) throw unauthorized("User tokens are not accepted by this deployment.");
  let payload: JWTPayload;
  try {
    ({ payload } = await verify(config, token));
  } catch (err) {
    throw tokenFailure(config, err);
  }
  const sub = payload.sub;
  if (typeof sub !== "string" || sub.length === 0 || sub.length > MAX_SUBJECT_LENGTH) {
    throw unauthorized('The token\'s "sub" claim is missing or not accepted.');
  }
  return sub;
}

function verify(config: UserTokenConfig, token: string) {
  const options = {
    algorithms: [...config.algorithms],
    requiredClaims: ["exp", "sub"],
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    ...(config.issuer ? { issuer: config.issuer } : {}),
    ...(config.audience ? { audience: config.audience } : {}),
  };
  return config.mode === "jwks"
    ? jwtVerify(token, remoteKeySet(config.jwksUrl, JWKS_REFETCH_COOLDOWN_MS), options)
    : jwtVerify(token, config.secret, options);
}

function tokenFailure(config: UserTokenConfig, err: unknown): ApiError {
  const fault = tokenFault(err, "The token");
  if (fault) return unauthorized(fault);
  if (config.mode === "jwks") {
    // The key set could not be fetched or read: not the caller's fault, and worth retrying.
    log("error", "jwks_unavailable", { error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
    return new ApiError("upstream_error", "The identity provider's signing keys could not be fetched; retry shortly.");
  }
  return unauthorized("The token could not be verified.");
}

/** For the partner backend only (the gateway's own operations): a user gets 403 forbidden before the body is read. */
export const requirePartner = createMiddleware<GatewayEnv>(async (c, next) => {
  if (c.var.caller.kind !== "partner") {
    throw new ApiError("forbidden", "This operation is for the partner backend's server key; users may not call it.");
  }
  await next();
});
