/**
 * Who is at the console: Cloudflare Access's signed identity, verified on
 * every request, never a login of the gateway's own.
 *
 * Access puts its JWT in the `Cf-Access-Jwt-Assertion` header of every
 * request it lets through (and the browser holds the same JWT as the
 * `CF_Authorization` cookie). It is verified with jose against the team's
 * signing keys at `https://<ACCESS_TEAM_DOMAIN>/cdn-cgi/access/certs`: RS256,
 * `aud` = ACCESS_AUD, `iss` = `https://<ACCESS_TEAM_DOMAIN>`, `exp` required.
 * The keys are cached (10 minutes at most); a token signed by a key the
 * cache does not hold makes one refetch, so a key Access rotates in is picked
 * up at its first token, and such refetches are at most one every 30 s, so
 * tokens with made-up key ids cannot hammer the team's endpoint.
 *
 * In development (ENVIRONMENT=development with ACCESS_DEV_SECRET set), the
 * development sign-in issues HS256 tokens signed by ACCESS_DEV_SECRET
 * instead; a production deployment refuses to start with that secret set
 * (src/config/config-rules.ts), and this file accepts HS256 nowhere else.
 */
import { getCookie } from "hono/cookie";
import { decodeProtectedHeader, errors, type JWTPayload, jwtVerify, SignJWT } from "jose";
import { parseStaffRoles, ROLES, type Role, roleOf } from "../config/staff-roles";
import { ApiError } from "../errors/errors";
import { CLOCK_TOLERANCE_SECONDS } from "../http/auth";
import { remoteKeySet, tokenFault } from "../http/jwt";
import { clock } from "../shared/clock";
import { log } from "../shared/log";

/** The cookie Access sets in the browser, holding the same JWT as the header. */
export const ACCESS_COOKIE = "CF_Authorization";
export const ACCESS_HEADER = "cf-access-jwt-assertion";
/** The development sign-in's issuer: no Access team ever has it. */
export const DEV_ISSUER = "payments-gateway-development";
/** ACCESS_AUD's stand-in where development leaves it unset. */
export const DEV_AUDIENCE = "payments-gateway-console";
/** How long a development sign-in lasts. */
export const DEV_SESSION_SECONDS = 8 * 3600;
/** At most one refetch of the team's keys for an unknown key id in this long. */
export const KEY_REFETCH_COOLDOWN_MS = 30_000;
const MAX_TOKEN_LENGTH = 8192;

export interface Staff {
  email: string;
  /** null: verified, but STAFF_ROLES gives this person no role. */
  role: Role | null;
}

export const isDevelopment = (env: Env): boolean => env.ENVIRONMENT === "development";

/** Whether this deployment offers the development sign-in. */
export const devSignInOffered = (env: Env): boolean => isDevelopment(env) && (env.ACCESS_DEV_SECRET ?? "") !== "";

const unauthorized = (message: string) => new ApiError("unauthorized", message, { headers: { "WWW-Authenticate": 'Bearer realm="console"' } });

/** The team's domain, as `team.cloudflareaccess.com` whether or not it was written with its scheme. */
export const teamDomain = (env: Env): string =>
  (env.ACCESS_TEAM_DOMAIN ?? "")
    .trim()
    .replace(/^https?:\/\//, "")
    .replace(/\/+$/, "");

/** When the team's keys were last fetched again for an unknown key, by certs URL (by the gateway's clock). */
const refetchedAt = new Map<string, number>();

function refusal(err: unknown): ApiError {
  if (err instanceof errors.JWTExpired) return unauthorized("The Access token has expired: sign in again.");
  const fault = tokenFault(err, "The Access token");
  if (fault) return unauthorized(fault);
  // The team's keys could not be fetched or read: not the caller's fault, and worth retrying.
  log("error", "access_keys_unavailable", { error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
  return new ApiError("upstream_error", "Cloudflare Access's signing keys could not be fetched; retry shortly.");
}

/** Verifies a token Access signed: the team's keys, its audience and issuer, exp required. */
async function verifyAccessToken(env: Env, token: string): Promise<JWTPayload> {
  const domain = teamDomain(env);
  const audience = (env.ACCESS_AUD ?? "").trim();
  if (!domain || !audience) throw unauthorized("Cloudflare Access is not configured for this console (ACCESS_TEAM_DOMAIN, ACCESS_AUD).");
  const options = {
    algorithms: ["RS256"],
    audience,
    issuer: `https://${domain}`,
    requiredClaims: ["exp"],
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    currentDate: new Date(clock.now()),
  };
  const url = `https://${domain}/cdn-cgi/access/certs`;
  // jose's own refetch on an unknown key waits as long as its cache lives: the cooldown below is the gateway's.
  const keys = remoteKeySet(url, 600_000);
  try {
    return (await jwtVerify(token, keys, options)).payload;
  } catch (err) {
    // A key the cached set lacks: Access may have rotated one in; look once more, unless such a look was just made.
    if (!(err instanceof errors.JWKSNoMatchingKey) || clock.now() - (refetchedAt.get(url) ?? Number.NEGATIVE_INFINITY) < KEY_REFETCH_COOLDOWN_MS)
      throw err;
    refetchedAt.set(url, clock.now());
    await keys.reload();
    return (await jwtVerify(token, keys, options)).payload;
  }
}

const devSecret = (env: Env): Uint8Array => new TextEncoder().encode(env.ACCESS_DEV_SECRET ?? "");
const devAudience = (env: Env): string => (env.ACCESS_AUD ?? "").trim() || DEV_AUDIENCE;

/** A development sign-in's token: the email, and the role chosen (development only; the caller checks). */
export function signDevToken(env: Env, email: string, role: Role): Promise<string> {
  const now = Math.floor(clock.now() / 1000);
  return new SignJWT({ email, role })
    .setProtectedHeader({ alg: "HS256" })
    .setIssuer(DEV_ISSUER)
    .setAudience(devAudience(env))
    .setSubject(email)
    .setIssuedAt(now)
    .setExpirationTime(now + DEV_SESSION_SECONDS)
    .sign(devSecret(env));
}

/** The identity token of a request: Access's header, else its cookie. */
export function tokenOf(headers: { header(name: string): string | undefined }, cookie: string | undefined): string | undefined {
  return headers.header(ACCESS_HEADER)?.trim() || cookie?.trim() || undefined;
}

/**
 * The staff member behind a request, or a thrown 401 (no token, or one that
 * does not verify) or 403 (a partner's server key or a user's JWT, which
 * never reach the console). The role may be null: the caller refuses.
 */
export async function identifyStaff(env: Env, c: Parameters<typeof getCookie>[0]): Promise<Staff> {
  if (c.req.header("authorization")) {
    throw new ApiError("forbidden", "The console does not take a server key or a user's token: sign in through Cloudflare Access.");
  }
  const token = tokenOf(c.req, getCookie(c, ACCESS_COOKIE));
  if (!token) throw unauthorized("Sign in through Cloudflare Access: no Access token came with the request.");
  if (token.length > MAX_TOKEN_LENGTH) throw unauthorized("The Access token is too long to be one.");
  let alg: string | undefined;
  try {
    alg = decodeProtectedHeader(token).alg;
  } catch {
    throw unauthorized("The Access token is not a well-formed JWT.");
  }
  const development = alg === "HS256";
  if (development && !devSignInOffered(env)) throw unauthorized("The Access token's signing algorithm is not accepted.");
  let payload: JWTPayload;
  try {
    payload = development
      ? (
          await jwtVerify(token, devSecret(env), {
            algorithms: ["HS256"],
            audience: devAudience(env),
            issuer: DEV_ISSUER,
            requiredClaims: ["exp"],
            currentDate: new Date(clock.now()),
          })
        ).payload
      : await verifyAccessToken(env, token);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw refusal(err);
  }
  const email = typeof payload.email === "string" ? payload.email.trim().toLowerCase() : "";
  // A service token of Access carries no email: no person, no role.
  if (!email || email.length > 255)
    throw new ApiError("forbidden", "The Access identity has no email: the console is for people named in STAFF_ROLES.");
  const parsed = parseStaffRoles(env.STAFF_ROLES);
  const configured = "roles" in parsed ? roleOf(parsed.roles, email) : null;
  // The development sign-in chooses its role; an Access token's role is STAFF_ROLES's alone.
  const chosen = development && (ROLES as readonly unknown[]).includes(payload.role) ? (payload.role as Role) : null;
  return { email, role: chosen ?? configured };
}
