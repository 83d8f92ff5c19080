/**
 * Users' JWTs verified against an identity provider's JWKS, as production
 * does. The key pairs are made here and served by a stub JWKS endpoint: the
 * worker runs in the tests' isolate, so a spy on fetch answers its JWKS URL.
 */
import { createExecutionContext, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { type CryptoKey, exportJWK, exportSPKI, generateKeyPair, type JWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import { receiptStub } from "../../src/record/receipt-object";
import { API, expectError, expectStatus, newUser, receiptRequest, sandboxCalls, userToken } from "../helpers";

const ISSUER = "https://idp.test/";
const AUDIENCE = "payments-gateway";

interface Signer {
  alg: string;
  kid?: string;
  key: CryptoKey | Uint8Array;
}

let rsa: Signer;
let ec: Signer;
/** A key the identity provider never published. */
let imposter: CryptoKey;
let rsaPublicPem: string;
/** The provider's key set: the public halves of rsa and ec. */
let published: JWK[] = [];

/** What each stub JWKS URL serves, and how often it was asked. */
const served = new Map<string, { status: number; keys: JWK[]; requests: number }>();

beforeAll(async () => {
  const rsaPair = await generateKeyPair("RS256", { extractable: true });
  const ecPair = await generateKeyPair("ES256", { extractable: true });
  imposter = (await generateKeyPair("RS256")).privateKey;
  rsa = { alg: "RS256", kid: "rsa-1", key: rsaPair.privateKey };
  ec = { alg: "ES256", kid: "ec-1", key: ecPair.privateKey };
  rsaPublicPem = await exportSPKI(rsaPair.publicKey);
  published = [
    { ...(await exportJWK(rsaPair.publicKey)), kid: "rsa-1", alg: "RS256", use: "sig" },
    { ...(await exportJWK(ecPair.publicKey)), kid: "ec-1", alg: "ES256", use: "sig" },
  ];

  const realFetch = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const stub = served.get(url);
    if (!stub) return realFetch(input, init);
    stub.requests++;
    return stub.status === 200 ? Response.json({ keys: stub.keys }) : new Response("unavailable", { status: stub.status });
  });
});

afterAll(() => {
  vi.restoreAllMocks();
});

/** A deployment verifying users against a JWKS URL of its own (so key caches never cross tests). */
function jwksDeployment(status = 200, keys: JWK[] = published) {
  const url = `https://idp.test/${crypto.randomUUID()}/jwks.json`;
  const stub = { status, keys, requests: 0 };
  served.set(url, stub);
  const deploymentEnv = { ...env, JWKS_URL: url, JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE };
  const app = createApp();
  const call = (path: string, body: unknown, token: string) =>
    app.fetch(
      new Request(`${API}/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      }),
      deploymentEnv,
      createExecutionContext(),
    );
  return { call, stub };
}

function sign(signer: Signer, sub: string, claims: Record<string, unknown> = {}, expiresIn = 600): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: ISSUER, aud: AUDIENCE, ...claims })
    .setProtectedHeader({ alg: signer.alg, ...(signer.kid ? { kid: signer.kid } : {}), typ: "JWT" })
    .setSubject(sub)
    .setIssuedAt(now)
    .setExpirationTime(now + expiresIn)
    .sign(signer.key);
}

describe("users' JWTs verified against the identity provider's JWKS", () => {
  it("accepts RS256 and ES256 tokens from the key set; the same sub is the same owner whatever the key", async () => {
    const { call } = jwksDeployment();
    const user = newUser();
    const created = await expectStatus(call("receipt/create", receiptRequest(), await sign(rsa, user)), 200);
    const read = await expectStatus(call("receipt/check-id", { id: created.id }, await sign(ec, user)), 200);
    expect(read.id).toBe(created.id);

    const owner = await runInDurableObject(
      receiptStub(env, "receipt", created.id),
      (_instance, state) => state.storage.sql.exec("SELECT owner FROM record").one().owner,
    );
    expect(owner).toBe(`user:${user}`);
    await expectError(call("receipt/check-id", { id: created.id }, await sign(ec, newUser())), 404, "receipt_not_found");
  });

  it("fetches the key set once and reuses it", async () => {
    const { call, stub } = jwksDeployment();
    for (let i = 0; i < 4; i++) {
      await expectError(call("receipt/check-id", { id: `nope-${i}` }, await sign(i % 2 ? ec : rsa, newUser())), 404, "receipt_not_found");
    }
    expect(stub.requests).toBe(1);
  });

  const UNVERIFIED = "The token's signature could not be verified.";
  const ALGORITHM = "The token's signing algorithm is not accepted.";
  const refusals: [string, string, (user: string) => Promise<string>][] = [
    ["an unknown kid", UNVERIFIED, (user) => sign({ alg: "RS256", kid: "rsa-2", key: imposter }, user)],
    ["a known kid on a token signed with another key", UNVERIFIED, (user) => sign({ alg: "RS256", kid: "rsa-1", key: imposter }, user)],
    ["the RSA key's kid on an ES256 token", UNVERIFIED, (user) => sign({ alg: "ES256", kid: "rsa-1", key: ec.key }, user)],
    ["HS256 with the development secret (algorithm confusion)", ALGORITHM, (user) => userToken(user, { claims: { iss: ISSUER, aud: AUDIENCE } })],
    [
      "HS256 keyed with the provider's public key (algorithm confusion)",
      ALGORITHM,
      (user) => sign({ alg: "HS256", kid: "rsa-1", key: new TextEncoder().encode(rsaPublicPem) }, user),
    ],
    [
      "PS256, an algorithm not on the list",
      ALGORITHM,
      async (user) => sign({ alg: "PS256", kid: "rsa-1", key: (await generateKeyPair("PS256")).privateKey }, user),
    ],
    ["another issuer", 'The token\'s "iss" claim is missing or not accepted.', (user) => sign(rsa, user, { iss: "https://elsewhere.test/" })],
    ["another audience", 'The token\'s "aud" claim is missing or not accepted.', (user) => sign(rsa, user, { aud: "another-app" })],
    ["an expired token", "The token has expired.", (user) => sign(rsa, user, {}, -120)],
  ];

  it.each(refusals)("refuses %s: 401 unauthorized, nothing upstream", async (_name, why, token) => {
    const { call } = jwksDeployment();
    const user = newUser();
    const credential = await token(user);
    const before = await sandboxCalls();
    const error = await expectError(call("receipt/create", receiptRequest(), credential), 401, "unauthorized");
    expect(error.message).toBe(why);
    expect(JSON.stringify(error)).not.toContain(credential);
    expect(await sandboxCalls()).toEqual(before);
  });

  it("answers 502 when the key set cannot be fetched, and reaches nothing upstream", async () => {
    const { call, stub } = jwksDeployment(503);
    const before = await sandboxCalls();
    await expectError(call("receipt/create", receiptRequest(), await sign(rsa, newUser())), 502, "upstream_error");
    expect(stub.requests).toBe(1);
    expect(await sandboxCalls()).toEqual(before);
  });
});

describe("rotating the identity provider's signing key (docs/production.md)", () => {
  it("while the provider publishes the old and the new key, a token signed by either passes, as the same user", async () => {
    const next = await generateKeyPair("RS256", { extractable: true });
    const nextSigner: Signer = { alg: "RS256", kid: "rsa-2", key: next.privateKey };
    const nextPublic: JWK = { ...(await exportJWK(next.publicKey)), kid: "rsa-2", alg: "RS256", use: "sig" };
    const oldPublic = published.find((k) => k.kid === "rsa-1")!;

    // Overlap: the set holds both; tokens signed before and after the switch are all accepted.
    const { call } = jwksDeployment(200, [oldPublic, nextPublic]);
    const user = newUser();
    const created = await expectStatus(call("receipt/create", receiptRequest(), await sign(rsa, user)), 200);
    expect((await expectStatus(call("receipt/check-id", { id: created.id }, await sign(nextSigner, user)), 200)).id).toBe(created.id);
    expect((await expectStatus(call("receipt/check-id", { id: created.id }, await sign(rsa, user)), 200)).id).toBe(created.id);

    // After: the provider dropped the old key; once the gateway's copy of the set is refreshed, only the new key signs.
    const after = jwksDeployment(200, [nextPublic]);
    expect((await expectStatus(after.call("receipt/check-id", { id: created.id }, await sign(nextSigner, user)), 200)).id).toBe(created.id);
    const refused = await expectError(after.call("receipt/check-id", { id: created.id }, await sign(rsa, user)), 401, "unauthorized");
    expect(refused.message).toBe("The token's signature could not be verified.");
  });
});
