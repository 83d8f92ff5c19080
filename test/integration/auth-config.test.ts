/**
 * A deployment that is not development refuses to run with the development
 * credentials, a shared JWT secret, the sandbox, no way to verify callers, or
 * users' JWTs pinned to no issuer or audience: every call, health included,
 * answers 503 service_misconfigured naming the problem (never a secret's
 * value). So does any deployment whose cancels could not say who cancelled.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { DEVELOPMENT_JWT_SECRET, DEVELOPMENT_PARTNER_KEY, DEVELOPMENT_PARTNER_KEY_DIGEST, readConfig } from "../../src/config/config";
import { DEFAULT_CANCELLED_BY, productionVarProblems } from "../../src/config/config-rules";
import { configProblems } from "../../src/http/guard";
import { API, expectError, expectStatus, newUser, PARTNER_KEY, productionEnv, sha256Hex, userToken } from "../helpers";

const LIVE_KEY = "sk_live_partner_key_of_production";
const NEXT_KEY = "sk_live_partner_key_rotated_in";

/** What a correctly configured production deployment holds (two partner keys, mid-rotation): no sandbox, no development value. */
const production = async (overrides: Record<string, unknown> = {}): Promise<Env> =>
  productionEnv({ PARTNER_KEY_HASHES: `${await sha256Hex(LIVE_KEY)}, ${await sha256Hex(NEXT_KEY)}`, ...overrides });

async function ask(deployment: Env, path: string, credential?: string): Promise<Response> {
  const init: RequestInit = path.startsWith("/api/")
    ? {
        method: "POST",
        headers: { "content-type": "application/json", ...(credential ? { authorization: `Bearer ${credential}` } : {}) },
        body: JSON.stringify({ id: `missing-${crypto.randomUUID()}` }),
      }
    : {};
  return createApp().fetch(new Request(`http://gateway.test${path}`, init), deployment, createExecutionContext());
}

const CHECK_ID = new URL(`${API}/receipt/check-id`).pathname;

describe("the development credentials", () => {
  it("the development key's digest is what .dev.vars.example configures", async () => {
    expect(await sha256Hex(DEVELOPMENT_PARTNER_KEY)).toBe(DEVELOPMENT_PARTNER_KEY_DIGEST);
    expect(PARTNER_KEY).toBe(DEVELOPMENT_PARTNER_KEY);
    expect(env.PARTNER_KEY_HASHES.split(",")).toContain(DEVELOPMENT_PARTNER_KEY_DIGEST);
    expect(env.JWT_SECRET).toBe(DEVELOPMENT_JWT_SECRET);
  });

  it("serve a development deployment", async () => {
    await expectStatus(ask(env, "/healthz"), 200);
    await expectError(ask(env, CHECK_ID, PARTNER_KEY), 404, "receipt_not_found");
  });
});

describe("a production deployment", () => {
  it("configured correctly, serves: every listed key works, the development ones do not", async () => {
    const deployment = await production();
    await expectStatus(ask(deployment, "/healthz"), 200);
    await expectError(ask(deployment, CHECK_ID, LIVE_KEY), 404, "receipt_not_found");
    await expectError(ask(deployment, CHECK_ID, NEXT_KEY), 404, "receipt_not_found");
    await expectError(ask(deployment, CHECK_ID, DEVELOPMENT_PARTNER_KEY), 401, "unauthorized");
    const devToken = await userToken(newUser());
    const refused = await expectError(ask(deployment, CHECK_ID, devToken), 401, "unauthorized");
    expect(refused.message).toBe("The token's signing algorithm is not accepted.");
  });

  const problems: [string, Record<string, unknown>, string][] = [
    [
      "accepts the development partner key",
      { PARTNER_KEY_HASHES: `${DEVELOPMENT_PARTNER_KEY_DIGEST}` },
      "PARTNER_KEY_HASHES holds the digest of the development server key",
    ],
    ["holds the development JWT secret", { JWT_SECRET: DEVELOPMENT_JWT_SECRET }, "JWT_SECRET is the development secret"],
    ["holds any JWT secret", { JWT_SECRET: "a-production-hs256-secret" }, "JWT_SECRET is set"],
    ["has no partner key digests", { PARTNER_KEY_HASHES: "" }, "PARTNER_KEY_HASHES is not set"],
    [
      "has a partner key digest that is not one",
      { PARTNER_KEY_HASHES: LIVE_KEY },
      "PARTNER_KEY_HASHES entry 1 is not a lowercase hex SHA-256 digest",
    ],
    ["has no JWKS_URL", { JWKS_URL: "" }, "JWKS_URL is not set"],
    ["has a JWKS_URL over plain http", { JWKS_URL: "http://idp.test/jwks.json" }, "JWKS_URL must be an https URL"],
    ["kept the placeholder JWKS_URL", { JWKS_URL: "https://idp.example.invalid/.well-known/jwks.json" }, "JWKS_URL is still the placeholder"],
    // Any token of the identity provider's key set would be a user: whoever issued it, for whichever application.
    ["has no JWT_ISSUER", { JWT_ISSUER: "" }, "JWT_ISSUER is not set"],
    ["has no JWT_AUDIENCE", { JWT_AUDIENCE: "" }, "JWT_AUDIENCE is not set"],
    ["has the sandbox's UPSTREAM binding", { UPSTREAM: env.UPSTREAM }, "The UPSTREAM binding (the sandbox) is present"],
    ["kept the placeholder upstream URL", { UPSTREAM_BASE_URL: "https://partner-api.example.invalid" }, "UPSTREAM_BASE_URL is still the placeholder"],
    ["has no upstream credential", { UPSTREAM_API_KEY: "" }, "UPSTREAM_API_KEY is not set"],
    ["uses the sandbox's upstream credential", { UPSTREAM_API_KEY: "sandbox-upstream-key" }, "UPSTREAM_API_KEY is the sandbox's development key"],
    ["has no TID_SECRET", { TID_SECRET: "" }, "TID_SECRET is not set"],
    ["uses the development TID_SECRET", { TID_SECRET: "local-dev-tid-secret" }, "TID_SECRET is the development secret"],
    ["keys tids with the upstream credential", { TID_SECRET: "live-upstream-credential" }, "TID_SECRET equals UPSTREAM_API_KEY"],
    ["has a short TID_SECRET", { TID_SECRET: "short" }, "TID_SECRET is shorter than 32 characters"],
    ["lacks a rate limiting binding", { LIMIT_PAY_PER_IP: undefined }, "The rate limiting binding LIMIT_PAY_PER_IP is missing"],
  ];

  it.each(problems)("that %s answers every call with 503 naming the problem", async (_name, overrides, named) => {
    const deployment = await production(overrides);
    for (const [path, credential] of [
      ["/healthz"],
      ["/openapi.json"],
      ["/docs"],
      ["/nothing-here"],
      [CHECK_ID, LIVE_KEY],
      [CHECK_ID, undefined],
    ] as const) {
      const error = await expectError(ask(deployment, path, credential), 503, "service_misconfigured");
      expect(error.message, path).toContain(named);
      for (const secret of [DEVELOPMENT_JWT_SECRET, "a-production-hs256-secret", DEVELOPMENT_PARTNER_KEY, DEVELOPMENT_PARTNER_KEY_DIGEST, LIVE_KEY]) {
        expect(error.message).not.toContain(secret);
      }
    }
  });

  it("names every problem at once", async () => {
    const error = await expectError(
      ask(
        await production({ PARTNER_KEY_HASHES: DEVELOPMENT_PARTNER_KEY_DIGEST, JWT_SECRET: DEVELOPMENT_JWT_SECRET, UPSTREAM: env.UPSTREAM }),
        "/healthz",
      ),
      503,
      "service_misconfigured",
    );
    expect(error.message).toContain("development server key");
    expect(error.message).toContain("JWT_SECRET is the development secret");
    expect(error.message).toContain("UPSTREAM binding");
  });

  it("comes without Retry-After, as the document says: waiting does not fix a configuration", async () => {
    const deployment = await production({ TID_SECRET: "" });
    for (const path of ["/healthz", "/readyz", CHECK_ID]) {
      const res = await ask(deployment, path, LIVE_KEY);
      await expectError(res.clone(), 503, "service_misconfigured");
      expect(res.headers.get("retry-after"), path).toBeNull();
    }
  });

  it.each([["production"], ["prod"], ["staging"], [undefined]])(
    "ENVIRONMENT=%s with the development configuration is held to the production rules",
    async (environment) => {
      const error = await expectError(ask({ ...env, ENVIRONMENT: environment } as unknown as Env, "/healthz"), 503, "service_misconfigured");
      expect(error.message).toContain("development server key");
      expect(error.message).toContain("JWT_SECRET is the development secret");
      expect(error.message).toContain("UPSTREAM binding");
    },
  );

  it("development without any way to verify callers is refused too", async () => {
    const error = await expectError(
      ask({ ...env, PARTNER_KEY_HASHES: "", JWT_SECRET: "", JWKS_URL: "" } as unknown as Env, "/healthz"),
      503,
      "service_misconfigured",
    );
    expect(error.message).toContain("PARTNER_KEY_HASHES is not set");
    expect(error.message).toContain("Neither JWKS_URL nor JWT_SECRET is set");
  });
});

describe("the hosts a production deployment may call (UPSTREAM_BASE_URL, JWKS_URL, WEBHOOK_URL)", () => {
  const SETTINGS = ["UPSTREAM_BASE_URL", "JWKS_URL", "WEBHOOK_URL"] as const;
  const refused: [string, string][] = [
    ["https://localhost/api", "points at localhost"],
    ["https://LOCALHOST./api", "points at localhost"],
    ["https://gateway.localhost/api", "points at localhost"],
    ["https://127.0.0.1/api", "points at a loopback address"],
    ["https://127.8.9.10/api", "points at a loopback address"],
    ["https://2130706433/api", "points at a loopback address"],
    ["https://0x7f000001/api", "points at a loopback address"],
    ["https://0x7f.1/api", "points at a loopback address"],
    ["https://0177.0.0.1/api", "points at a loopback address"],
    ["https://[::1]/api", "points at a loopback address"],
    ["https://[::ffff:127.0.0.1]/api", "points at a loopback address"],
    ["https://[0:0:0:0:0:ffff:7f00:1]/api", "points at a loopback address"],
    ["https://10.1.2.3/api", "points at a private address"],
    ["https://172.16.0.1/api", "points at a private address"],
    ["https://172.31.255.255/api", "points at a private address"],
    ["https://192.168.1.10/api", "points at a private address"],
    ["https://[::ffff:192.168.1.10]/api", "points at a private address"],
    ["https://[64:ff9b::10.0.0.1]/api", "points at a private address"],
    ["https://[fd12:3456::1]/api", "points at a private address"],
    ["https://169.254.169.254/latest", "points at a link-local address"],
    ["https://[fe80::1]/api", "points at a link-local address"],
    ["https://100.64.0.1/api", "points at a carrier-grade NAT address"],
    ["https://100.127.255.254/api", "points at a carrier-grade NAT address"],
    ["https://0.0.0.0/api", "points at an unspecified address"],
    ["https://0/api", "points at an unspecified address"],
    ["https://[::]/api", "points at an unspecified address"],
    ["https://203.0.113.7/api", "is an IP address"],
    ["https://[2001:db8::7]/api", "is an IP address"],
    ["https://[::ffff:8.8.8.8]/api", "is an IP address"],
    ["https://upstream/api", "is not a fully qualified host name"],
    ["https://payments.internal/api", "is a private network name"],
    ["https://printer.local/api", "is a private network name"],
    ["https://router.home.arpa/api", "is a private network name"],
    ["https://gateway:s3cr3t-pw@partner-api.test/api", "carries a user name or password"],
    ["http://partner-api.test/api", "must be an https URL"],
  ];
  const accepted = [
    "https://partner-api.test/api",
    "https://api.payments.uz/v1",
    "https://100.ns.partner.com/api",
    "https://172.32.0.1.nip.partner.com/api",
    "https://xn--80ak6aa92e.com/api",
  ];

  it.each(refused)("refuses %s in each setting, naming the setting and not the URL", async (url, why) => {
    for (const name of SETTINGS) {
      const error = await expectError(ask(await production({ [name]: url }), "/healthz"), 503, "service_misconfigured");
      expect(error.message).toContain(`${name} ${why}`);
      expect(error.message).not.toContain("s3cr3t-pw");
    }
  });

  it.each(accepted)("accepts %s in each setting", async (url) => {
    for (const name of SETTINGS) await expectStatus(ask(await production({ [name]: url }), "/healthz"), 200);
  });

  it("development may call its loopback receiver and sandbox", async () => {
    await expectStatus(ask({ ...env, WEBHOOK_URL: "http://127.0.0.1:4242/webhooks", JWKS_URL: "" } as unknown as Env, "/healthz"), 200);
  });
});

describe("GATEWAY_CANCELLED_BY, the name users' cancels give the payment service", () => {
  it("unset or blank, is the default; a name of at most 128 characters is taken as it is", async () => {
    for (const value of [undefined, "", "   "])
      expect(readConfig({ ...env, GATEWAY_CANCELLED_BY: value } as Env).cancelledBy).toBe(DEFAULT_CANCELLED_BY);
    expect(readConfig({ ...env, GATEWAY_CANCELLED_BY: " Acme Payments " } as Env).cancelledBy).toBe("Acme Payments");
    expect(readConfig({ ...env, GATEWAY_CANCELLED_BY: "ш".repeat(128) } as Env).cancelledBy).toBe("ш".repeat(128));
    expect(configProblems(await production({ GATEWAY_CANCELLED_BY: undefined }))).toEqual([]);
  });

  it("one the payment service could not be sent (too long, a control character) keeps the gateway from serving, in every environment", async () => {
    for (const value of ["x".repeat(129), "Acme\nPayments", "Acme\u0000"]) {
      for (const deployment of [{ ...env, GATEWAY_CANCELLED_BY: value } as Env, await production({ GATEWAY_CANCELLED_BY: value })]) {
        const res = await ask(deployment, "/healthz");
        const error = await expectError(res, 503, "service_misconfigured");
        expect(error.message).toContain("GATEWAY_CANCELLED_BY");
      }
    }
    expect(productionVarProblems({ GATEWAY_CANCELLED_BY: "x".repeat(129) }).join(" ")).toContain("GATEWAY_CANCELLED_BY");
  });
});
