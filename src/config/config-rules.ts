/**
 * The configuration rules that need nothing but the settings themselves:
 * pure functions over strings and plain objects, shared by the running
 * gateway (src/config/config.ts reads the settings with them, src/http/guard.ts refuses
 * to serve on their problems) and `npm run deploy`'s offline check
 * (scripts/deploy.mjs): the development credentials production refuses, the
 * hosts it may call, the vars' and secrets' production rules, and the
 * deployment's shape. How a list is read is src/config/config-lists.ts's. Node loads
 * this file as it is (it strips the types), so it imports only that file, by
 * the whole name Node needs, and uses only erasable TypeScript.
 *
 * Every problem is a sentence that names the setting and never its value.
 */
import {
  durationList,
  MAX_SCHEDULED_READS,
  previousTidShardLayouts,
  previousTidShardList,
  secretList,
  settingText,
  tidShardList,
  tidShardListProblems,
} from "./config-lists.ts";

/** The development credentials of `.dev.vars.example`; a production deployment refuses to run with them. */
export const DEVELOPMENT_PARTNER_KEY = "sk_test_local_partner";
/** SHA-256 of DEVELOPMENT_PARTNER_KEY (a test proves it). */
export const DEVELOPMENT_PARTNER_KEY_DIGEST = "201db62f3c69cf8de8fe2450797a0c481469bb36ffc7e49ea916efb6bb68bd35";
export const DEVELOPMENT_JWT_SECRET = "local-dev-jwt-secret";
export const DEVELOPMENT_TID_SECRET = "local-dev-tid-secret";
export const DEVELOPMENT_CARD_FINGERPRINT_SECRET = "local-dev-card-fingerprint-secret";
/** The base64 of `local-dev-webhook-secret`, as `.dev.vars.example` sets it. */
export const DEVELOPMENT_WEBHOOK_SECRET = "whsec_bG9jYWwtZGV2LXdlYmhvb2stc2VjcmV0";
export const SANDBOX_UPSTREAM_API_KEY = "sandbox-upstream-key";
/** What every value of production.secrets.example.json starts with, so a template uploaded as it is never serves. */
export const TEMPLATE_PLACEHOLDER = "REPLACE_ME";
/** HMAC keys shorter than this are refused. */
export const MIN_TID_SECRET_LENGTH = 32;

/** The secrets a production deployment needs (production.secrets.example.json names each). */
export const PRODUCTION_SECRETS = ["UPSTREAM_API_KEY", "PARTNER_KEY_HASHES", "TID_SECRET", "CARD_FINGERPRINT_SECRET", "WEBHOOK_SECRET"] as const;
/** Set in production, this is a problem: users are verified against JWKS_URL only. */
export const FORBIDDEN_PRODUCTION_SECRETS = ["JWT_SECRET", "ACCESS_DEV_SECRET"] as const;
/** The URLs production calls out to; each must be a public https host. */
export const PRODUCTION_URLS = ["UPSTREAM_BASE_URL", "JWKS_URL", "WEBHOOK_URL"] as const;

export type Settings = Readonly<Record<string, unknown>>;

/** The URL `value` spells, or null when it spells none. */
export function parseUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------
// Hosts

/** The four octets of a dotted-quad IPv4 address (what the URL parser turns every IPv4 spelling into), or null. */
function ipv4(host: string): number[] | null {
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return null;
  const octets = parts.map(Number);
  return octets.every((o) => o <= 255) ? octets : null;
}

/** The eight 16-bit groups of an IPv6 address (without brackets), or null. */
function ipv6(host: string): number[] | null {
  // A trailing dotted IPv4 part (::ffff:127.0.0.1) is two groups written differently.
  const address = host.replace(/(\d+\.\d+\.\d+\.\d+)$/, (dotted) => {
    const v4 = ipv4(dotted);
    return v4 ? `${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}` : "invalid";
  });
  const halves = address.split("::");
  if (halves.length > 2) return null;
  const groupsOf = (s: string) => (s === "" ? [] : s.split(":"));
  const head = groupsOf(halves[0]!);
  const tail = halves.length === 2 ? groupsOf(halves[1]!) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(missing).fill("0"), ...tail];
  return groups.every((g) => /^[0-9a-f]{1,4}$/i.test(g)) ? groups.map((g) => Number.parseInt(g, 16)) : null;
}

/** What kind of non-public IPv4 address this is, or null for a public one. */
function ipv4Kind([a, b]: number[]): string | null {
  if (a === 0) return "an unspecified address (0.0.0.0/8)";
  if (a === 127) return "a loopback address";
  if (a === 10 || (a === 172 && b! >= 16 && b! <= 31) || (a === 192 && b === 168)) return "a private address";
  if (a === 169 && b === 254) return "a link-local address";
  if (a === 100 && b! >= 64 && b! <= 127) return "a carrier-grade NAT address (100.64.0.0/10)";
  return null;
}

/** What kind of non-public IPv6 address this is (looking inside the forms that carry an IPv4 one), or null. */
function ipv6Kind(groups: number[]): string | null {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  const embedded = [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff];
  const zeroTo = (n: number) => groups.slice(0, n).every((g) => g === 0);
  if (zeroTo(8)) return "an unspecified address (::)";
  if (zeroTo(7) && g7 === 1) return "a loopback address";
  // ::ffff:a.b.c.d (IPv4-mapped), ::a.b.c.d (IPv4-compatible), 64:ff9b::a.b.c.d (NAT64): the IPv4 address decides.
  if (zeroTo(5) && g5 === 0xffff) return ipv4Kind(embedded);
  if (zeroTo(6)) return ipv4Kind(embedded);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return ipv4Kind(embedded);
  if ((g0 & 0xffc0) === 0xfe80) return "a link-local address";
  if ((g0 & 0xfe00) === 0xfc00 || (g0 & 0xffc0) === 0xfec0) return "a private address";
  return null;
}

/**
 * Why a production deployment must not call this host, or null. The host is
 * as the URL parser leaves it: lowercase, IPv4 in dotted quads whatever the
 * spelling (decimal, hex, octal, short), IPv6 in brackets.
 */
export function hostProblem(name: string, hostname: string): string | null {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) return `${name} points at localhost; production must call a public host name.`;
  const v4 = ipv4(host);
  const v6 = host.startsWith("[") && host.endsWith("]") ? ipv6(host.slice(1, -1)) : null;
  if (v4 || v6) {
    const kind = v4 ? ipv4Kind(v4) : ipv6Kind(v6!);
    if (kind) return `${name} points at ${kind}; production must call a public host name.`;
    // A deployed Worker cannot fetch an IP address directly, and a certificate for one is rare.
    return `${name} is an IP address; production must call a public host name (a Worker cannot fetch an IP address).`;
  }
  if (host.startsWith("[")) return `${name} is not a valid host.`;
  if (!host.includes(".")) return `${name} is not a fully qualified host name; production must call a public host name.`;
  if (/\.(local|internal|home\.arpa|lan|intranet|corp)$/.test(host)) {
    return `${name} is a private network name; production must call a public host name.`;
  }
  return null;
}

/**
 * Why production must not use this URL, or null: not a URL, not https,
 * credentials in it, the `.invalid` placeholder of wrangler.toml, or a host
 * that is not public.
 */
export function productionUrlProblem(name: string, value: string): string | null {
  const url = parseUrl(value);
  if (!url) return `${name} is not a URL.`;
  if (url.protocol !== "https:") return `${name} must be an https URL.`;
  if (url.username || url.password) return `${name} carries a user name or password; credentials belong in secrets, not in a URL.`;
  if (url.hostname.replace(/\.$/, "").endsWith(".invalid")) return `${name} is still the placeholder of wrangler.toml; set the real URL.`;
  return hostProblem(name, url.hostname);
}

// ---------------------------------------------------------------------------
// Rule 14's reads of a fiscal-pending receipt (FISCAL_READS)

/** FISCAL_READS when it is not set: production reads at 5 minutes, 1 hour and 24 hours; development within 2 minutes. */
export const FISCAL_READ_DEFAULTS = { production: "5m 1h 24h", development: "20s 60s 110s" } as const;

/** Why FISCAL_READS cannot be read, in every environment (a schedule nobody chose would watch nothing). */
export const FISCAL_READS_UNREADABLE = `FISCAL_READS is not a list of 1 to ${MAX_SCHEDULED_READS} increasing durations (a number and s, m, h or d, e.g. "5m 1h 24h").`;

/**
 * Rule 14's production schedule: reads at least 5 minutes, 1 hour and 24
 * hours after the payment or refund, so one read in each of these windows
 * (from each point to the next; the last has no end).
 */
export const FISCAL_READ_WINDOWS_MS = [300_000, 3_600_000, 86_400_000] as const;

/** What is wrong with FISCAL_READS in production: unreadable, or a window of the production schedule without a read. */
export function fiscalReadProductionProblems(value: unknown): string[] {
  if (settingText(value) === "") return [];
  const offsets = durationList(value);
  if (!offsets) return [FISCAL_READS_UNREADABLE];
  const covered = FISCAL_READ_WINDOWS_MS.every((from, i) => {
    const to = FISCAL_READ_WINDOWS_MS[i + 1] ?? Number.POSITIVE_INFINITY;
    return offsets.some((ms) => ms >= from && ms < to);
  });
  return covered
    ? []
    : [
        "FISCAL_READS must read a fiscal-pending receipt at least 5 minutes, 1 hour and 24 hours after its payment or refund in production: one read from 5 minutes to 1 hour, one from 1 to 24 hours, one at 24 hours or later.",
      ];
}

// ---------------------------------------------------------------------------
// Rules 15 and 16: how long the audit trail is kept, and the statement's settings

/** PCI DSS requirement 10 keeps an audit trail 12 months: production keeps it at least this many days. */
export const MIN_AUDIT_RETENTION_DAYS = 365;

/** What is wrong with rule 15's and 16's settings, in every environment; `production` adds the year the audit trail must be kept. */
export function auditSettingProblems(vars: Settings, production: boolean): string[] {
  const problems: string[] = [];
  const days = settingText(vars.AUDIT_RETENTION_DAYS);
  const n = Number(days);
  if (days !== "" && !(Number.isFinite(n) && n > 0)) problems.push("AUDIT_RETENTION_DAYS is not a positive number of days.");
  else if (production && days !== "" && n < MIN_AUDIT_RETENTION_DAYS)
    problems.push(`AUDIT_RETENTION_DAYS is under ${MIN_AUDIT_RETENTION_DAYS}: the audit trail must be kept a year (rule 15).`);
  const chains = settingText(vars.AUDIT_CHAINS);
  if (chains !== "" && !(Number.isInteger(Number(chains)) && Number(chains) >= 1 && Number(chains) <= 64))
    problems.push("AUDIT_CHAINS is not a whole number from 1 to 64.");
  const pagers = settingText(vars.EVENT_PAGERS);
  if (pagers !== "" && !(Number.isInteger(Number(pagers)) && Number(pagers) >= 1 && Number(pagers) <= 64))
    problems.push("EVENT_PAGERS is not a whole number from 1 to 64.");
  const flush = settingText(vars.AUDIT_FLUSH_SECONDS);
  if (flush !== "" && !(Number(flush) > 0 && Number(flush) <= 3600)) problems.push("AUDIT_FLUSH_SECONDS is not a number of seconds from 0 to 3600.");
  const share = settingText(vars.STATEMENT_CHECK_SHARE);
  if (share !== "" && !(Number(share) >= 0 && Number(share) <= 1)) problems.push("STATEMENT_CHECK_SHARE is not a share from 0 to 1.");
  const zone = settingText(vars.STATEMENT_TIMEZONE);
  if (zone !== "") {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: zone });
    } catch {
      problems.push("STATEMENT_TIMEZONE is not a time zone (an IANA name such as Asia/Tashkent).");
    }
  }
  return problems;
}

// Who the payment service is told cancelled (GATEWAY_CANCELLED_BY)

/** GATEWAY_CANCELLED_BY when it is not set. */
export const DEFAULT_CANCELLED_BY = "payments-gateway";
/** The longest name a cancel carries upstream: the cancel request's own `cancelledBy` limit. */
export const MAX_CANCELLED_BY_LENGTH = 128;

/**
 * The deployment's name as its cancels give it to the payment service
 * (`cancelledBy`): a user's cancel, whatever its body says, and the
 * gateway's own. Unset or blank: DEFAULT_CANCELLED_BY. Null when it cannot
 * be sent: longer than MAX_CANCELLED_BY_LENGTH, or with a control character.
 */
export function cancelledByName(value: unknown): string | null {
  const name = settingText(value);
  if (name === "") return DEFAULT_CANCELLED_BY;
  return [...name].length <= MAX_CANCELLED_BY_LENGTH && !/\p{Cc}/u.test(name) ? name : null;
}

/** Why GATEWAY_CANCELLED_BY cannot be used, in every environment. */
export const CANCELLED_BY_UNFIT = `GATEWAY_CANCELLED_BY is not a name of at most ${MAX_CANCELLED_BY_LENGTH} characters without control characters: users' cancels could not say who cancelled.`;

// ---------------------------------------------------------------------------
// Vars (what wrangler.toml's [env.production.vars] holds) and secrets

/**
 * The claims production pins on users' JWTs besides a signature from
 * JWKS_URL's key set. An identity provider signs the tokens of every
 * application it serves with the keys of one set: without `iss` and `aud`
 * checked, a token it issued for another application would be a user here.
 */
const PRODUCTION_JWT_CLAIMS = [
  ["JWT_ISSUER", "iss", "a token signed with a key of the set would be accepted whoever issued it"],
  ["JWT_AUDIENCE", "aud", "a token the identity provider issued for any of its applications would be accepted"],
] as const;

/** The vars' problems in production: the three URLs, the issuer and audience of users' JWTs, rule 14's schedule and the name cancels give. `vars` is what the Worker's env holds. */
export function productionVarProblems(vars: Settings): string[] {
  const problems: string[] = [];
  const jwksUrl = settingText(vars.JWKS_URL);
  if (!jwksUrl) problems.push("JWKS_URL is not set: users' JWTs cannot be verified.");
  else {
    const jwks = productionUrlProblem("JWKS_URL", jwksUrl);
    if (jwks) problems.push(jwks);
  }
  for (const [name, claim, risk] of PRODUCTION_JWT_CLAIMS) {
    if (!settingText(vars[name])) problems.push(`${name} is not set: ${risk}. Set it to the \`${claim}\` its tokens for this gateway carry.`);
  }
  const upstream = productionUrlProblem("UPSTREAM_BASE_URL", settingText(vars.UPSTREAM_BASE_URL));
  if (upstream) problems.push(upstream);
  const webhookUrl = settingText(vars.WEBHOOK_URL);
  if (!webhookUrl) problems.push("WEBHOOK_URL is not set: events cannot be delivered.");
  else {
    const webhook = productionUrlProblem("WEBHOOK_URL", webhookUrl);
    if (webhook) problems.push(webhook);
  }
  problems.push(...fiscalReadProductionProblems(vars.FISCAL_READS));
  problems.push(...auditSettingProblems(vars, true).filter((p) => p.startsWith("AUDIT_RETENTION_DAYS is under")));
  if (cancelledByName(vars.GATEWAY_CANCELLED_BY) === null) problems.push(CANCELLED_BY_UNFIT);
  problems.push(...accessVarProblems(vars));
  return problems;
}

/**
 * The back office in production (the contract, "The back office"): it is
 * reached through Cloudflare Access alone, so the team's domain, the
 * application's audience and who has which role must all be set.
 */
export function accessVarProblems(vars: Settings): string[] {
  const problems: string[] = [];
  const domain = settingText(vars.ACCESS_TEAM_DOMAIN);
  if (!domain) problems.push("ACCESS_TEAM_DOMAIN is not set: the console's Cloudflare Access tokens cannot be verified (docs/production.md).");
  else if (!/^(https:\/\/)?[a-z0-9-]+(\.[a-z0-9-]+)+\/?$/i.test(domain))
    problems.push("ACCESS_TEAM_DOMAIN is not a domain such as <team>.cloudflareaccess.com.");
  if (!settingText(vars.ACCESS_AUD)) problems.push("ACCESS_AUD is not set: set it to the Access application's audience (AUD) tag.");
  if (!settingText(vars.STAFF_ROLES)) problems.push("STAFF_ROLES is not set: nobody would have a role in the console.");
  return problems;
}

/**
 * TID_SECRET in production: one value, or during a rotation "<current>
 * <previous>" (space-separated; new claims use the first, earlier claims
 * match any). Each value is checked on its own.
 */
export function tidSecretProblems(value: unknown, upstreamApiKey: unknown): string[] {
  if (settingText(value).includes(TEMPLATE_PLACEHOLDER)) return ["TID_SECRET is still the template's placeholder; set a random one."];
  const values = secretList(value);
  const problems: string[] = [];
  values.forEach((secret, i) => {
    const name = values.length > 1 ? `TID_SECRET entry ${i + 1}` : "TID_SECRET";
    if (secret === DEVELOPMENT_TID_SECRET) problems.push(`${name} is the development secret; set a random one of its own.`);
    else if (secret === settingText(upstreamApiKey)) {
      problems.push(`${name} equals UPSTREAM_API_KEY; it must be a secret of its own, so rotating the upstream credential changes no tid.`);
    } else if (secret.length < MIN_TID_SECRET_LENGTH) problems.push(`${name} is shorter than ${MIN_TID_SECRET_LENGTH} characters.`);
  });
  if (new Set(values).size !== values.length) problems.push("TID_SECRET holds the same value twice.");
  return problems;
}

/**
 * CARD_FINGERPRINT_SECRET in production: random, its own (no other secret's
 * value, so rotating one of those resets no counter of rule 13), at least
 * MIN_TID_SECRET_LENGTH characters. Changing it starts every counter afresh.
 */
export function cardFingerprintSecretProblems(value: unknown, others: Settings): string[] {
  const secret = settingText(value);
  if (!secret) return ["CARD_FINGERPRINT_SECRET is not set: rule 13 cannot count cards."];
  if (secret.includes(TEMPLATE_PLACEHOLDER)) return ["CARD_FINGERPRINT_SECRET is still the template's placeholder; set a random one."];
  if (secret === DEVELOPMENT_CARD_FINGERPRINT_SECRET) return ["CARD_FINGERPRINT_SECRET is the development secret; set a random one of its own."];
  for (const name of ["UPSTREAM_API_KEY", "TID_SECRET", "WEBHOOK_SECRET"]) {
    if (secretList(others[name]).includes(secret)) return [`CARD_FINGERPRINT_SECRET equals ${name}; it must be a secret of its own.`];
  }
  if (secret.length < MIN_TID_SECRET_LENGTH) return [`CARD_FINGERPRINT_SECRET is shorter than ${MIN_TID_SECRET_LENGTH} characters.`];
  return [];
}

/**
 * The production rules for the secrets' values (the running guard sees them;
 * `npm run deploy -- --secrets-file` checks a file before it is uploaded).
 * The rules every environment shares (PARTNER_KEY_HASHES and TID_SECRET set,
 * PARTNER_KEY_HASHES and WEBHOOK_SECRET well-formed) are src/config/config.ts's.
 */
export function productionSecretProblems(secrets: Settings): string[] {
  const problems: string[] = [];
  const digests = settingText(secrets.PARTNER_KEY_HASHES)
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (digests.includes(DEVELOPMENT_PARTNER_KEY_DIGEST)) {
    problems.push("PARTNER_KEY_HASHES holds the digest of the development server key; remove it.");
  }
  if (settingText(secrets.ACCESS_DEV_SECRET)) {
    problems.push("ACCESS_DEV_SECRET is set; it signs the console's development sign-in, which production never serves. Delete the secret.");
  }
  const jwtSecret = settingText(secrets.JWT_SECRET);
  if (jwtSecret === DEVELOPMENT_JWT_SECRET) {
    problems.push("JWT_SECRET is the development secret; production verifies users' JWTs against JWKS_URL only. Delete the secret.");
  } else if (jwtSecret) {
    problems.push("JWT_SECRET is set; production verifies users' JWTs against JWKS_URL only (no shared-secret HS256). Delete the secret.");
  }
  problems.push(...tidSecretProblems(secrets.TID_SECRET, secrets.UPSTREAM_API_KEY));
  problems.push(...cardFingerprintSecretProblems(secrets.CARD_FINGERPRINT_SECRET, secrets));
  const apiKey = settingText(secrets.UPSTREAM_API_KEY);
  if (!apiKey) problems.push("UPSTREAM_API_KEY is not set.");
  else if (apiKey === SANDBOX_UPSTREAM_API_KEY) problems.push("UPSTREAM_API_KEY is the sandbox's development key.");
  const webhookSecrets = secretList(secrets.WEBHOOK_SECRET);
  if (webhookSecrets.length === 0) problems.push("WEBHOOK_SECRET is not set: events cannot be signed.");
  if (webhookSecrets.includes(DEVELOPMENT_WEBHOOK_SECRET)) {
    problems.push("WEBHOOK_SECRET holds the development secret; set the secret shared with the partner's receiver.");
  }
  for (const name of ["UPSTREAM_API_KEY", "PARTNER_KEY_HASHES", "WEBHOOK_SECRET"]) {
    if (settingText(secrets[name]).includes(TEMPLATE_PLACEHOLDER)) problems.push(`${name} is still the template's placeholder; set the real value.`);
  }
  return problems;
}

// ---------------------------------------------------------------------------
// The deployment's shape (wrangler.toml's [env.production], as wrangler resolves it)

type Route = string | { pattern: string; custom_domain?: boolean; zone_name?: string; zone_id?: string };

/** The keys of wrangler's resolved configuration (unstable_readConfig) the offline check reads. */
export const DEPLOYMENT_CONFIG_KEYS = [
  "name",
  "main",
  "workers_dev",
  "vars",
  "route",
  "routes",
  "d1_databases",
  "queues",
  "durable_objects",
  "services",
  "ratelimits",
  "assets",
  "r2_buckets",
] as const;

/** The parts of wrangler's resolved configuration (unstable_readConfig) the offline check reads. */
export interface DeploymentConfig {
  name?: string;
  main?: string;
  workers_dev?: boolean;
  vars?: Settings;
  route?: Route;
  routes?: readonly Route[];
  d1_databases?: readonly { binding: string; database_id?: string; database_name?: string }[];
  queues?: {
    producers?: readonly { binding: string; queue: string }[];
    consumers?: readonly { queue: string; dead_letter_queue?: string }[];
  };
  durable_objects?: { bindings?: readonly { name: string; class_name: string }[] };
  services?: readonly { binding: string }[];
  ratelimits?: readonly { name: string }[];
  assets?: { directory?: string; binding?: string; run_worker_first?: boolean | readonly string[] };
  r2_buckets?: readonly { binding: string; bucket_name?: string }[];
}

/** Rules 15 and 16's buckets, by binding: the audit trail and the statements. */
export const R2_BINDINGS = { AUDIT: "the audit trail (rule 15)", STATEMENTS: "the daily statements (rule 16)" } as const;

/**
 * The lifecycle rules `npm run deploy` sets on a bucket (wrangler r2 bucket
 * lifecycle set): its objects deleted AUDIT_RETENTION_DAYS after they were
 * written, and a multipart upload left incomplete aborted after 7 days.
 */
export function lifecycleRules(binding: keyof typeof R2_BINDINGS, vars: Settings): { rules: Record<string, unknown>[] } {
  const days = Number(settingText(vars.AUDIT_RETENTION_DAYS) || MIN_AUDIT_RETENTION_DAYS);
  const prefix = binding === "AUDIT" ? "audit/" : "statements/";
  return {
    rules: [
      {
        id: `${binding === "AUDIT" ? "audit" : "statements"}-retention`,
        enabled: true,
        conditions: { prefix },
        deleteObjectsTransition: { condition: { type: "Age", maxAge: Math.round(days * 86_400) } },
        abortMultipartUploadsTransition: { condition: { type: "Age", maxAge: 7 * 86_400 } },
      },
    ],
  };
}

/**
 * The paths the Worker answers before any static asset is looked up: every
 * operation, health, the OpenAPI document and the back office (whose page is
 * served only to a verified Access identity). A file in public/ can never
 * answer one of them, and they skip the asset lookup.
 */
export const WORKER_FIRST_PATHS = ["/api/*", "/healthz", "/readyz", "/openapi.json", "/console", "/console/*"] as const;

/** Every D1 binding the gateway uses: DB, the list's and the previous list's; `npm run deploy` migrates each. */
export function d1Bindings(vars: Settings): string[] {
  return [...new Set(["DB", ...tidShardList(vars.TID_INDEX_SHARDS), ...previousTidShardList(vars.TID_INDEX_SHARDS_PREVIOUS)])];
}

/** The host a route pattern or custom domain names (`api.partner.com/*` -> api.partner.com). */
export function routeHost(route: Route): string {
  const pattern = typeof route === "string" ? route : route.pattern;
  return pattern
    .replace(/^[a-z]+:\/\//i, "")
    .split("/")[0]!
    .replace(/^\*\.?/, "")
    .toLowerCase();
}

/** The addresses production answers on: https://<host> of each route or custom domain. */
export function deploymentUrls(config: DeploymentConfig): string[] {
  const routes = [...(config.routes ?? []), ...(config.route ? [config.route] : [])];
  return [...new Set(routes.map((r) => `https://${routeHost(r)}`))];
}

const ZERO_ID = /^0{8}-0{4}-0{4}-0{4}-0{12}$/;

/**
 * What is wrong with production's configuration before it is deployed: the
 * vars' URLs, the route or custom domain (a required setting), the D1
 * database, the queues, and nothing of the sandbox. `required.rateLimits`
 * names the rate limiting bindings the gateway needs.
 */
export function deploymentProblems(config: DeploymentConfig, required: { rateLimits: readonly string[] }): string[] {
  const vars = config.vars ?? {};
  const problems: string[] = [];

  if (settingText(vars.ENVIRONMENT) === "development") problems.push("ENVIRONMENT is development in production's vars; set it to production.");
  for (const name of [...PRODUCTION_SECRETS, ...FORBIDDEN_PRODUCTION_SECRETS]) {
    if (name in vars)
      problems.push(`${name} is a var, in plain text in wrangler.toml and the dashboard; remove it from the vars and set it as a secret.`);
  }
  problems.push(...productionVarProblems(vars));
  for (const name of Object.keys(vars).filter((n) => n.startsWith("SANDBOX_"))) {
    problems.push(`The var ${name} configures the sandbox; production has none, remove it.`);
  }

  const routes = [...(config.routes ?? []), ...(config.route ? [config.route] : [])];
  if (routes.length === 0) {
    problems.push(
      'routes is not set: production has no address. Set a route or custom domain in [env.production] (routes = [{ pattern = "payments.partner.com", custom_domain = true }]).',
    );
  }
  routes.forEach((route, i) => {
    const host = routeHost(route);
    const name = routes.length > 1 ? `routes entry ${i + 1}` : "routes";
    if (host.endsWith(".invalid")) problems.push(`${name} is still the placeholder of wrangler.toml; set the gateway's own domain.`);
    else {
      const hostIssue = hostProblem(name, host);
      if (hostIssue) problems.push(hostIssue);
    }
  });
  if (config.workers_dev) problems.push("workers_dev is true: production would also answer on a workers.dev address; set it to false.");
  if (config.main && /(^|[\\/])dev\.ts$/.test(config.main))
    problems.push("main is src/dev.ts, the sandbox build; production's entry is src/index.ts.");

  // The tid index and the event log live in the databases TID_INDEX_SHARDS names (DB alone by default).
  problems.push(...tidShardListProblems(tidShardList(vars.TID_INDEX_SHARDS)));
  for (const list of previousTidShardLayouts(vars.TID_INDEX_SHARDS_PREVIOUS))
    problems.push(...tidShardListProblems(list, "TID_INDEX_SHARDS_PREVIOUS"));
  const ids = new Map<string, string>();
  for (const binding of d1Bindings(vars)) {
    const db = config.d1_databases?.find((d) => d.binding === binding);
    if (!db) problems.push(`The D1 binding ${binding} is missing from [[env.production.d1_databases]].`);
    else if (!db.database_id || ZERO_ID.test(db.database_id)) {
      problems.push(
        `${binding}'s database_id is still the zero placeholder; put the id \`wrangler d1 create\` printed into [[env.production.d1_databases]].`,
      );
    } else if (ids.has(db.database_id)) {
      problems.push(`${binding} and ${ids.get(db.database_id)} are the same database (one database_id): each shard needs a database of its own.`);
    } else ids.set(db.database_id, binding);
  }

  const producer = config.queues?.producers?.find((p) => p.binding === "EVENTS");
  if (!producer || !settingText(producer.queue))
    problems.push("The queue binding EVENTS is missing from [[env.production.queues.producers]]: events cannot be published.");
  else {
    const consumer = config.queues?.consumers?.find((c) => c.queue === producer.queue);
    if (!consumer)
      problems.push(`No consumer of the events queue ${producer.queue} in [[env.production.queues.consumers]]: events would never be delivered.`);
    else if (!settingText(consumer.dead_letter_queue))
      problems.push(`The consumer of ${producer.queue} has no dead_letter_queue: events that keep failing would be lost.`);
    else if (!config.queues?.consumers?.some((c) => c.queue === consumer.dead_letter_queue)) {
      problems.push(`No consumer of the dead-letter queue ${consumer.dead_letter_queue}: failed events would never show as failed.`);
    }
  }

  const objects = config.durable_objects?.bindings ?? [];
  if (!objects.some((o) => o.name === "RECEIPTS" && o.class_name === "ReceiptObject")) {
    problems.push("The Durable Object binding RECEIPTS (ReceiptObject) is missing from [[env.production.durable_objects.bindings]].");
  }
  if (!objects.some((o) => o.name === "RISK" && o.class_name === "RiskObject")) {
    problems.push("The Durable Object binding RISK (RiskObject, rule 13's counters) is missing from [[env.production.durable_objects.bindings]].");
  }
  if (!objects.some((o) => o.name === "AUDIT_WRITER" && o.class_name === "AuditWriter")) {
    problems.push(
      "The Durable Object binding AUDIT_WRITER (AuditWriter, rule 15's writers) is missing from [[env.production.durable_objects.bindings]].",
    );
  }
  if (!objects.some((o) => o.name === "EVENT_PAGER" && o.class_name === "EventPager")) {
    problems.push(
      "The Durable Object binding EVENT_PAGER (EventPager, the events' pagers) is missing from [[env.production.durable_objects.bindings]].",
    );
  }
  if (!objects.some((o) => o.name === "STATEMENT" && o.class_name === "StatementObject")) {
    problems.push(
      "The Durable Object binding STATEMENT (StatementObject, rule 16's statements) is missing from [[env.production.durable_objects.bindings]].",
    );
  }
  for (const [binding, what] of Object.entries(R2_BINDINGS)) {
    const bucket = config.r2_buckets?.find((b) => b.binding === binding);
    if (!bucket || !settingText(bucket.bucket_name))
      problems.push(`The R2 binding ${binding} (${what}) is missing from [[env.production.r2_buckets]].`);
  }
  if (objects.some((o) => o.name === "SANDBOX" || o.class_name === "SandboxObject")) {
    problems.push("The SANDBOX Durable Object is bound; production has no sandbox, remove it.");
  }
  if (config.services?.some((s) => s.binding === "UPSTREAM")) {
    problems.push("The UPSTREAM binding (the sandbox) is present; production reaches the real upstream at UPSTREAM_BASE_URL.");
  }
  const workerFirst = config.assets?.run_worker_first;
  if (config.assets && workerFirst !== true) {
    const missing = WORKER_FIRST_PATHS.filter((path) => !(Array.isArray(workerFirst) && workerFirst.includes(path)));
    if (missing.length > 0) {
      problems.push(
        `[env.production.assets] run_worker_first lacks ${missing.join(", ")}: a static file could answer an API path. Set run_worker_first = ${JSON.stringify(WORKER_FIRST_PATHS)}.`,
      );
    }
  }
  const limits = new Set((config.ratelimits ?? []).map((r) => r.name));
  for (const name of required.rateLimits) {
    if (!limits.has(name)) problems.push(`The rate limiting binding ${name} is missing from [[env.production.ratelimits]].`);
  }
  return problems;
}
