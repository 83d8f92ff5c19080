/**
 * What the gateway's two kinds of signed token share: a user's JWT
 * (src/http/auth.ts) and a staff member's Cloudflare Access token
 * (src/backoffice/access.ts). Each issuer's key set is fetched from its URL
 * and kept for the isolate's life, and a refusal says what is wrong with the
 * token in the same words for both, by jose's error; a failure that is not
 * the token's (its keys could not be fetched or read) is the caller's to word.
 */
import { createRemoteJWKSet, errors } from "jose";

export type RemoteKeySet = ReturnType<typeof createRemoteJWKSet>;

const keySets = new Map<string, RemoteKeySet>();

/**
 * The key set at `url`: fetched within 3 s, cached 10 minutes, fetched again
 * by jose for a key id it lacks at most once per `cooldownMs`.
 */
export function remoteKeySet(url: string, cooldownMs: number): RemoteKeySet {
  const name = `${cooldownMs} ${url}`;
  let set = keySets.get(name);
  if (!set) {
    set = createRemoteJWKSet(new URL(url), { timeoutDuration: 3_000, cooldownDuration: cooldownMs, cacheMaxAge: 600_000 });
    keySets.set(name, set);
  }
  return set;
}

/**
 * Why `token` ("The token", "The Access token") is refused, for its caller;
 * null when jose's failure is not the token's own.
 */
export function tokenFault(err: unknown, token: string): string | null {
  if (err instanceof errors.JWTClaimValidationFailed) return `${token}'s "${err.claim}" claim is missing or not accepted.`;
  switch (err instanceof errors.JOSEError ? err.code : "") {
    case errors.JWTExpired.code:
      return `${token} has expired.`;
    case errors.JOSEAlgNotAllowed.code:
      return `${token}'s signing algorithm is not accepted.`;
    case errors.JOSENotSupported.code:
      return `${token} uses a feature that is not accepted.`;
    case errors.JWSInvalid.code:
    case errors.JWTInvalid.code:
      return `${token} is not a well-formed JWT.`;
    case errors.JWSSignatureVerificationFailed.code:
    case errors.JWKSNoMatchingKey.code:
    case errors.JWKSMultipleMatchingKeys.code:
      return `${token}'s signature could not be verified.`;
    default:
      return null;
  }
}
