/**
 * `npm run deploy`'s offline check (scripts/deploy.mjs): the pure rules of
 * src/config/config-rules.ts over production's configuration as wrangler resolves
 * it. The committed wrangler.toml holds placeholders, each refused with a
 * sentence naming its setting; a filled-in configuration passes; the secrets
 * template names every secret and none of its values would serve.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import template from "../../production.secrets.example.json";
import {
  type DeploymentConfig,
  d1Bindings,
  deploymentProblems,
  deploymentUrls,
  FORBIDDEN_PRODUCTION_SECRETS,
  PRODUCTION_SECRETS,
  productionSecretProblems,
  WORKER_FIRST_PATHS,
} from "../../src/config/config-rules";
import { RATE_LIMIT_BINDINGS } from "../../src/http/rate-limit";
import { PRODUCTION_WEBHOOK_SECRET, sha256Hex } from "../helpers";

declare global {
  namespace Cloudflare {
    interface Env {
      /** wrangler.toml's [env.production] as `npm run deploy` reads it (vitest.config.ts). */
      TEST_WRANGLER_PRODUCTION: DeploymentConfig;
    }
  }
}

const required = { rateLimits: RATE_LIMIT_BINDINGS };

/** Production's configuration with every placeholder filled in. */
const filled = (): DeploymentConfig => {
  const committed = structuredClone(env.TEST_WRANGLER_PRODUCTION);
  return {
    ...committed,
    vars: {
      ...committed.vars,
      UPSTREAM_BASE_URL: "https://partner-api.payments.uz",
      JWKS_URL: "https://login.partner.uz/.well-known/jwks.json",
      JWT_ISSUER: "https://login.partner.uz/",
      JWT_AUDIENCE: "payments-gateway",
      WEBHOOK_URL: "https://api.partner.uz/webhooks/payments-gateway",
      ACCESS_TEAM_DOMAIN: "partner.cloudflareaccess.com",
      ACCESS_AUD: "4714c1358e65fe4b408ad6d432a5f878f08194bdb4752441fd56faefa9b2b6f2",
      STAFF_ROLES: '{"support": ["@support.partner.uz"], "finance": ["finance@partner.uz"], "operator": ["oncall@partner.uz"]}',
    },
    routes: [{ pattern: "payments.partner.uz", custom_domain: true }],
    d1_databases: committed.d1_databases!.map((d) => ({ ...d, database_id: "5f0c9c4e-0b8a-4b7e-9a1d-2f3e4d5c6b7a" })),
  };
};

describe("the committed wrangler.toml's production configuration", () => {
  it("is refused for each placeholder, with a sentence naming the setting, and for nothing else", () => {
    expect(deploymentProblems(env.TEST_WRANGLER_PRODUCTION, required)).toEqual([
      "JWKS_URL is still the placeholder of wrangler.toml; set the real URL.",
      "JWT_ISSUER is not set: a token signed with a key of the set would be accepted whoever issued it. Set it to the `iss` its tokens for this gateway carry.",
      "JWT_AUDIENCE is not set: a token the identity provider issued for any of its applications would be accepted. Set it to the `aud` its tokens for this gateway carry.",
      "UPSTREAM_BASE_URL is still the placeholder of wrangler.toml; set the real URL.",
      "WEBHOOK_URL is still the placeholder of wrangler.toml; set the real URL.",
      "ACCESS_TEAM_DOMAIN is not set: the console's Cloudflare Access tokens cannot be verified (docs/production.md).",
      "ACCESS_AUD is not set: set it to the Access application's audience (AUD) tag.",
      "STAFF_ROLES is not set: nobody would have a role in the console.",
      "routes is still the placeholder of wrangler.toml; set the gateway's own domain.",
      "DB's database_id is still the zero placeholder; put the id `wrangler d1 create` printed into [[env.production.d1_databases]].",
    ]);
  });

  it("passes once they are filled in, and its address is the custom domain", () => {
    expect(deploymentProblems(filled(), required)).toEqual([]);
    expect(deploymentUrls(filled())).toEqual(["https://payments.partner.uz"]);
    expect(deploymentUrls({ routes: ["api.partner.uz/*", { pattern: "*.partner.uz/payments/*", zone_name: "partner.uz" }] })).toEqual([
      "https://api.partner.uz",
      "https://partner.uz",
    ]);
  });

  it("has none of the sandbox: no UPSTREAM binding, no SANDBOX object, no SANDBOX_ var, entry src/index.ts", () => {
    const committed = env.TEST_WRANGLER_PRODUCTION;
    expect(committed.services ?? []).toEqual([]);
    expect(committed.durable_objects?.bindings?.map((b) => b.name)).toEqual(["RECEIPTS", "RISK", "AUDIT_WRITER", "STATEMENT", "EVENT_PAGER"]);
    expect(Object.keys(committed.vars ?? {}).filter((name) => name.startsWith("SANDBOX_"))).toEqual([]);
    expect(committed.main).toMatch(/src\/index\.ts$/);
  });

  it("sends every operation, health and the OpenAPI document to the Worker before any static file is looked up", () => {
    expect(env.TEST_WRANGLER_PRODUCTION.assets?.run_worker_first).toEqual([...WORKER_FIRST_PATHS]);
    // Without it, a file in public/ named like an operation would answer it.
    const sentence =
      '[env.production.assets] run_worker_first lacks /api/*, /readyz, /console, /console/*: a static file could answer an API path. Set run_worker_first = ["/api/*","/healthz","/readyz","/openapi.json","/console","/console/*"].';
    const partial = { ...filled(), assets: { directory: "./public", run_worker_first: ["/healthz", "/openapi.json"] } };
    expect(deploymentProblems(partial, required)).toEqual([sentence]);
    const none = { ...filled(), assets: { directory: "./public" } };
    expect(deploymentProblems(none, required)).toEqual([sentence.replace("/api/*, /readyz,", "/api/*, /healthz, /readyz, /openapi.json,")]);
    expect(deploymentProblems({ ...filled(), assets: { directory: "./public", run_worker_first: true } }, required)).toEqual([]);
  });
});

/** `config` with a second tid-index shard declared and listed after DB. */
const sharded = (config: DeploymentConfig, shard: { binding: string; database_name: string; database_id?: string }): DeploymentConfig => ({
  ...config,
  vars: { ...config.vars, TID_INDEX_SHARDS: `DB ${shard.binding}` },
  d1_databases: [...config.d1_databases!, shard],
});

describe("the tid index's shards", () => {
  it("are DB alone in the committed production configuration", () => {
    expect(env.TEST_WRANGLER_PRODUCTION.vars?.TID_INDEX_SHARDS).toBe("DB");
    expect(d1Bindings(env.TEST_WRANGLER_PRODUCTION.vars ?? {})).toEqual(["DB"]);
  });

  it("pass when each is declared with a database of its own, and each is migrated by npm run deploy", () => {
    const config = sharded(filled(), {
      binding: "DB_TID_1",
      database_name: "payments-gateway-tid-1",
      database_id: "6a1d2f3e-4d5c-4b7a-9e8f-0a1b2c3d4e5f",
    });
    expect(deploymentProblems(config, required)).toEqual([]);
    expect(d1Bindings(config.vars!)).toEqual(["DB", "DB_TID_1"]);
    // DB keeps the event log, so it is migrated even when the index lives elsewhere.
    expect(d1Bindings({ TID_INDEX_SHARDS: "DB_TID_0, DB_TID_1" })).toEqual(["DB", "DB_TID_0", "DB_TID_1"]);
  });
});

describe("deploymentProblems", () => {
  const defects: [string, (config: DeploymentConfig) => DeploymentConfig, string][] = [
    ["no route or custom domain", (c) => ({ ...c, routes: [] }), "routes is not set: production has no address."],
    ["a route on an IP address", (c) => ({ ...c, routes: ["203.0.113.7/*"] }), "routes is an IP address"],
    ["a route on localhost", (c) => ({ ...c, routes: [{ pattern: "payments.localhost", custom_domain: true }] }), "routes points at localhost"],
    [
      "a placeholder beside a real route",
      (c) => ({ ...c, routes: [...c.routes!, "payments.example.invalid/*"] }),
      "routes entry 2 is still the placeholder",
    ],
    [
      "no D1 database_id",
      (c) => ({ ...c, d1_databases: [{ binding: "DB", database_name: "payments-gateway" }] }),
      "DB's database_id is still the zero placeholder",
    ],
    ["no D1 binding", (c) => ({ ...c, d1_databases: [] }), "The D1 binding DB is missing"],
    [
      "an upstream over http",
      (c) => ({ ...c, vars: { ...c.vars, UPSTREAM_BASE_URL: "http://partner-api.payments.uz" } }),
      "UPSTREAM_BASE_URL must be an https URL.",
    ],
    [
      "a private upstream",
      (c) => ({ ...c, vars: { ...c.vars, UPSTREAM_BASE_URL: "https://10.0.0.8" } }),
      "UPSTREAM_BASE_URL points at a private address",
    ],
    ["a loopback JWKS", (c) => ({ ...c, vars: { ...c.vars, JWKS_URL: "https://[::1]/jwks.json" } }), "JWKS_URL points at a loopback address"],
    ["no JWT_ISSUER", (c) => ({ ...c, vars: { ...c.vars, JWT_ISSUER: "" } }), "JWT_ISSUER is not set"],
    ["a blank JWT_AUDIENCE", (c) => ({ ...c, vars: { ...c.vars, JWT_AUDIENCE: "  " } }), "JWT_AUDIENCE is not set"],
    ["no WEBHOOK_URL", (c) => ({ ...c, vars: { ...c.vars, WEBHOOK_URL: "" } }), "WEBHOOK_URL is not set"],
    ["ENVIRONMENT development", (c) => ({ ...c, vars: { ...c.vars, ENVIRONMENT: "development" } }), "ENVIRONMENT is development"],
    ["a secret written as a var", (c) => ({ ...c, vars: { ...c.vars, TID_SECRET: "x".repeat(40) } }), "TID_SECRET is a var, in plain text"],
    ["JWT_SECRET written as a var", (c) => ({ ...c, vars: { ...c.vars, JWT_SECRET: "x" } }), "JWT_SECRET is a var"],
    ["a sandbox var", (c) => ({ ...c, vars: { ...c.vars, SANDBOX_OTP_WAIT_MS: "60000" } }), "The var SANDBOX_OTP_WAIT_MS configures the sandbox"],
    ["the UPSTREAM service binding", (c) => ({ ...c, services: [{ binding: "UPSTREAM" }] }), "The UPSTREAM binding (the sandbox) is present"],
    [
      "the SANDBOX object",
      (c) => ({ ...c, durable_objects: { bindings: [...c.durable_objects!.bindings!, { name: "SANDBOX", class_name: "SandboxObject" }] } }),
      "The SANDBOX Durable Object is bound",
    ],
    ["no RECEIPTS object", (c) => ({ ...c, durable_objects: { bindings: [] } }), "The Durable Object binding RECEIPTS (ReceiptObject) is missing"],
    ["the sandbox entry", (c) => ({ ...c, main: "/repo/src/dev.ts" }), "main is src/dev.ts"],
    ["a workers.dev address", (c) => ({ ...c, workers_dev: true }), "workers_dev is true"],
    ["no events queue", (c) => ({ ...c, queues: { producers: [], consumers: c.queues!.consumers! } }), "The queue binding EVENTS is missing"],
    [
      "no consumer of the events queue",
      (c) => ({ ...c, queues: { ...c.queues, consumers: c.queues!.consumers!.filter((q) => q.queue !== "payments-gateway-events") } }),
      "No consumer of the events queue payments-gateway-events",
    ],
    [
      "no dead-letter queue",
      (c) => ({ ...c, queues: { ...c.queues, consumers: c.queues!.consumers!.map(({ dead_letter_queue: _, ...q }) => q) } }),
      "The consumer of payments-gateway-events has no dead_letter_queue",
    ],
    [
      "no consumer of the dead-letter queue",
      (c) => ({ ...c, queues: { ...c.queues, consumers: c.queues!.consumers!.filter((q) => q.queue === "payments-gateway-events") } }),
      "No consumer of the dead-letter queue payments-gateway-events-dlq",
    ],
    ["a missing rate limit", (c) => ({ ...c, ratelimits: c.ratelimits!.slice(1) }), "The rate limiting binding LIMIT_AUTHORIZE_PER_USER is missing"],
    ["a tid-index shard not declared", (c) => ({ ...c, vars: { ...c.vars, TID_INDEX_SHARDS: "DB DB_TID_1" } }), "The D1 binding DB_TID_1 is missing"],
    [
      "a tid-index shard with the zero database_id",
      (c) => sharded(c, { binding: "DB_TID_1", database_name: "payments-gateway-tid-1", database_id: "00000000-0000-0000-0000-000000000000" }),
      "DB_TID_1's database_id is still the zero placeholder",
    ],
    [
      "a tid-index shard that is DB again",
      (c) => sharded(c, { binding: "DB_TID_1", database_name: "payments-gateway", database_id: c.d1_databases![0]!.database_id }),
      "DB_TID_1 and DB are the same database",
    ],
    ["a tid-index shard named twice", (c) => ({ ...c, vars: { ...c.vars, TID_INDEX_SHARDS: "DB DB" } }), "TID_INDEX_SHARDS names DB twice"],
  ];

  it.each(defects)("refuses %s, naming it", (_name, defect, named) => {
    const problems = deploymentProblems(defect(filled()), required);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.join(" ")).toContain(named);
  });
});

describe("production.secrets.example.json", () => {
  it("names every production secret, and sets JWT_SECRET to null so `wrangler secret bulk` deletes it", () => {
    expect(Object.keys(template).sort()).toEqual([...PRODUCTION_SECRETS, ...FORBIDDEN_PRODUCTION_SECRETS].sort());
    expect(template.JWT_SECRET).toBeNull();
  });

  it("would not serve if uploaded as it is: every placeholder is named", () => {
    const problems = productionSecretProblems(template);
    for (const name of ["UPSTREAM_API_KEY", "PARTNER_KEY_HASHES", "TID_SECRET", "CARD_FINGERPRINT_SECRET", "WEBHOOK_SECRET"]) {
      expect(problems.join(" ")).toContain(`${name} is still the template's placeholder`);
    }
  });

  it("filled in with real values passes the production rules", async () => {
    const secrets = {
      UPSTREAM_API_KEY: "live-upstream-credential",
      PARTNER_KEY_HASHES: await sha256Hex("sk_live_partner_key_of_production"),
      TID_SECRET: "a-random-tid-secret-of-this-deployment-only",
      CARD_FINGERPRINT_SECRET: "a-random-card-fingerprint-secret-of-this-deployment",
      WEBHOOK_SECRET: PRODUCTION_WEBHOOK_SECRET,
      JWT_SECRET: null,
    };
    expect(productionSecretProblems(secrets)).toEqual([]);
  });
});
