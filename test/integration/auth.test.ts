/**
 * Who may call what, over every operation path: each kind of credential
 * against a receipt or transfer that a user owns. What the caller sees
 * (status, code, body) and what the sandbox received are the proof.
 */
import { createExecutionContext, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { SignJWT, UnsecuredJWT } from "jose";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { receiptStub } from "../../src/record/receipt-object";
import {
  CARD_OK,
  call,
  createReceipt,
  expectError,
  expectStatus,
  newTid,
  newUser,
  OTP_OK,
  PARTNER_KEY,
  receiptRequest,
  sandboxCalls,
  sandboxReceipt,
  sandboxTransfer,
  tidRow,
  transferRequest,
  userToken,
} from "../helpers";

const TOKEN_CARD = { token: "tok_sandbox_ok" };
const missingId = () => `missing-${crypto.randomUUID()}`;

interface Operation {
  path: string;
  /** Creates what the operation acts on, as `owner`, and answers a body that works on it. */
  prepare(owner: string): Promise<Record<string, unknown>>;
  /** The same call naming something that does not exist; absent for creates. */
  missing?: () => Record<string, unknown>;
  /** For the owner itself: a partner-only operation answers 403 forbidden. */
  partnerOnly?: boolean;
}

async function createTransfer(token: string, overrides: Record<string, unknown> = {}) {
  return expectStatus(call("a2c/create", transferRequest(overrides), { token }), 200);
}

/** A receipt of `owner`'s whose OTP authorize has sent (the sandbox takes none before). */
async function authorized(owner: string, merchant_id: number, card: Record<string, string>): Promise<string> {
  const { id } = await createReceipt({ merchant_id }, { token: owner });
  await expectStatus(call("token" in card ? "receipt/authorize" : "receipt/anonymous/authorize", { id, card }, { token: owner }), 200);
  return id;
}

const OPERATIONS: Operation[] = [
  { path: "receipt/create", prepare: async () => receiptRequest({ merchant_id: 1003 }) },
  {
    path: "receipt/authorize",
    prepare: async (owner) => ({ id: (await createReceipt({ merchant_id: 1001 }, { token: owner })).id, card: TOKEN_CARD }),
    missing: () => ({ id: missingId(), card: TOKEN_CARD }),
  },
  {
    path: "receipt/anonymous/authorize",
    prepare: async (owner) => ({ id: (await createReceipt({ merchant_id: 1003 }, { token: owner })).id, card: CARD_OK }),
    missing: () => ({ id: missingId(), card: CARD_OK }),
  },
  {
    path: "receipt/pay",
    prepare: async (owner) => ({ id: await authorized(owner, 1001, TOKEN_CARD), card: TOKEN_CARD, otp: OTP_OK }),
    missing: () => ({ id: missingId(), card: TOKEN_CARD, otp: OTP_OK }),
  },
  {
    path: "receipt/anonymous/pay",
    prepare: async (owner) => ({ id: await authorized(owner, 1003, CARD_OK), card: CARD_OK, otp: OTP_OK }),
    missing: () => ({ id: missingId(), card: CARD_OK, otp: OTP_OK }),
  },
  {
    path: "receipt/hold-confirm",
    prepare: async (owner) => {
      const receipt = await createReceipt({ merchant_id: 1003, is_hold: true }, { token: owner });
      const held = await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN_CARD }, { token: owner }), 200);
      expect(held.state).toBe(5);
      return { id: receipt.id };
    },
    missing: () => ({ id: missingId() }),
    partnerOnly: true,
  },
  {
    path: "receipt/cancel",
    prepare: async (owner) => ({ id: (await createReceipt({ merchant_id: 1003 }, { token: owner })).id }),
    missing: () => ({ id: missingId() }),
  },
  {
    path: "receipt/check-id",
    prepare: async (owner) => ({ id: (await createReceipt({}, { token: owner })).id }),
    missing: () => ({ id: missingId() }),
  },
  {
    path: "receipt/check-tid",
    // The partner names the user whose tid it is (rule 9); the owner may name themself.
    prepare: async (owner) => ({ tid: (await createReceipt({}, { token: owner })).tid, user: subjectOf(owner) }),
    missing: () => ({ tid: newTid("missing") }),
  },
  { path: "a2c/create", prepare: async () => transferRequest() },
  {
    path: "a2c/pay",
    prepare: async (owner) => ({ id: (await createTransfer(owner)).receipt_id }),
    missing: () => ({ id: missingId() }),
  },
  {
    path: "a2c/get-by-id",
    prepare: async (owner) => ({ id: (await createTransfer(owner)).receipt_id }),
    missing: () => ({ id: missingId() }),
  },
];

/** The `sub` of a development JWT. */
const subjectOf = (token: string): string => JSON.parse(atob(token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/"))).sub;

/** A status, and the error code for a refusal (none: the call works). */
type Expected = { status: number; code?: string };

interface Scenario {
  name: string;
  /** The credential sent; null sends no Authorization header. `owner` is the user who owns the target. */
  credential(owner: string): Promise<string | null>;
  expected(op: Operation): Expected;
}

const UNAUTHORIZED: Expected = { status: 401, code: "unauthorized" };

const SCENARIOS: Scenario[] = [
  { name: "no credentials", credential: async () => null, expected: () => UNAUTHORIZED },
  { name: "a malformed token", credential: async () => "not.a-jwt", expected: () => UNAUTHORIZED },
  { name: "an unknown server key", credential: async () => "sk_live_not_a_key_of_ours", expected: () => UNAUTHORIZED },
  {
    name: "the owner's expired token",
    credential: async (owner) => userToken(owner, { expiresIn: -3600 }),
    expected: () => UNAUTHORIZED,
  },
  {
    name: "the owner's token signed with another key",
    credential: async (owner) => userToken(owner, { secret: "not-the-deployment-secret" }),
    expected: () => UNAUTHORIZED,
  },
  {
    name: "the owner's token with alg none",
    credential: async (owner) =>
      new UnsecuredJWT({})
        .setSubject(owner)
        .setExpirationTime(Math.floor(Date.now() / 1000) + 3600)
        .encode(),
    expected: () => UNAUTHORIZED,
  },
  {
    // A user's tids are their own (rule 9): the same create by another user makes that user's own receipt.
    name: "another user's token",
    credential: async () => userToken(newUser("other")),
    expected: (op) => (op.missing ? { status: 404, code: "receipt_not_found" } : { status: 200 }),
  },
  {
    name: "the owner's token",
    credential: async (owner) => userToken(owner),
    expected: (op) => (op.partnerOnly ? { status: 403, code: "forbidden" } : { status: 200 }),
  },
  { name: "the partner key", credential: async () => PARTNER_KEY, expected: () => ({ status: 200 }) },
];

/** The error body without its request id, which is the only thing two refusals may differ in. */
async function refusalBody(res: Response) {
  const body = (await res.json()) as { error: Record<string, unknown> };
  const { request_id, ...rest } = body.error;
  expect(request_id).toBe(res.headers.get("x-request-id"));
  return { status: res.status, headers: res.headers.get("content-type"), body: rest };
}

const describeExpected = (e: Expected) => (e.code ? `${e.status} ${e.code}` : `${e.status}, reaches the upstream`);

describe.each(OPERATIONS)("$path", (op) => {
  it.each(SCENARIOS.map((scenario) => ({ scenario, label: `${scenario.name}: ${describeExpected(scenario.expected(op))}` })))(
    "$label",
    async ({ scenario }) => {
      const owner = newUser("owner");
      const ownerToken = await userToken(owner);
      const body = await op.prepare(ownerToken);
      const expected = scenario.expected(op);
      const credential = await scenario.credential(owner);

      // A create replayed by someone else needs the original to exist first.
      if (!op.missing && scenario.name === "another user's token") {
        await expectStatus(call(op.path, body, { token: ownerToken }), 200);
      }

      const before = await sandboxCalls();
      const res = await call(op.path, body, { token: credential });
      if (!expected.code) {
        await expectStatus(res, 200);
        const reached = (await sandboxCalls()).slice(before.length);
        expect(reached.map((c) => c.path)).toContain(op.path === "receipt/check-tid" ? "receipt/check-id" : op.path);
        return;
      }

      const error = await expectError(res.clone(), expected.status, expected.code);
      if (credential) expect(JSON.stringify(error)).not.toContain(credential);
      expect(await sandboxCalls(), "a refused call reaches nothing upstream").toEqual(before);

      if (expected.code === "receipt_not_found" && op.missing) {
        // Another's receipt answers exactly as one that does not exist, but for the request id.
        const absent = await call(op.path, op.missing(), { token: credential });
        expect(await refusalBody(res)).toEqual(await refusalBody(absent));
      }
    },
  );
});

describe("ownership", () => {
  it("a user may not cancel their own paid receipt: 403 forbidden, no cancel upstream (only a read: rule 8); the partner may", async () => {
    const owner = await userToken(newUser());
    const receipt = await createReceipt({ merchant_id: 1003 }, { token: owner });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN_CARD }, { token: owner }), 200);

    const before = (await sandboxCalls()).length;
    await expectError(call("receipt/cancel", { id: receipt.id }, { token: owner }), 403, "forbidden");
    expect((await sandboxCalls()).slice(before).map((c) => c.path)).toEqual(["receipt/check-id"]);

    const cancelled = await expectStatus(call("receipt/cancel", { id: receipt.id }), 200);
    expect(cancelled.state).toBe(21);
  });

  it("a user may cancel their own unpaid receipt", async () => {
    const owner = await userToken(newUser());
    const receipt = await createReceipt({ merchant_id: 1003 }, { token: owner });
    expect((await expectStatus(call("receipt/cancel", { id: receipt.id }, { token: owner }), 200)).state).toBe(21);
  });

  it("a user cannot speak for someone else upstream: their cancel names the deployment, whatever the body says, and the trail names the user", async () => {
    const user = newUser();
    const owner = await userToken(user);
    const receipt = await createReceipt({ merchant_id: 1003 }, { token: owner });
    const body = { id: receipt.id, cancelledBy: "gateway", reason: "expired unpaid" };
    expect((await expectStatus(call("receipt/cancel", body, { token: owner, headers: { "x-request-id": "req-user-cancel" } }), 200)).state).toBe(21);
    expect(env.GATEWAY_CANCELLED_BY).toBe("payments-gateway-local");
    expect(await sandboxReceipt(receipt.id)).toMatchObject({ state: 21, cancelled_by: env.GATEWAY_CANCELLED_BY });

    const trail = await expectStatus<any>(
      exports.default.fetch("http://gateway.test/api/v1/gateway/receipt/audit", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${PARTNER_KEY}` },
        body: JSON.stringify({ id: receipt.id }),
      }),
      200,
    );
    expect(trail.entries.find((e: any) => e.op === "cancel")).toMatchObject({ actor: `user:${user}`, request_id: "req-user-cancel", outcome: "ok" });
  });

  it("the partner's cancel sends the cancelledBy it gives, or none", async () => {
    const named = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/cancel", { id: named.id, cancelledBy: "support-desk" }), 200);
    expect(await sandboxReceipt(named.id)).toMatchObject({ state: 21, cancelled_by: "support-desk" });
    const unnamed = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/cancel", { id: unnamed.id }), 200);
    expect(await sandboxReceipt(unnamed.id)).toMatchObject({ state: 21, cancelled_by: null });
  });

  it("check-tid of another user's tid answers as an unknown tid", async () => {
    const owner = await userToken(newUser());
    const other = await userToken(newUser());
    const receipt = await createReceipt({}, { token: owner });

    const before = await sandboxCalls();
    const theirs = await call("receipt/check-tid", { tid: receipt.tid }, { token: other });
    const unknown = await call("receipt/check-tid", { tid: newTid("unknown") }, { token: other });
    expect(await refusalBody(theirs.clone())).toEqual(await refusalBody(unknown));
    await expectError(theirs, 404, "receipt_not_found");
    expect(await sandboxCalls()).toEqual(before);

    expect((await expectStatus(call("receipt/check-tid", { tid: receipt.tid }, { token: owner }), 200)).id).toBe(receipt.id);
  });

  it("a user's tid is their own: the same tid by another user or the partner is another receipt, and the upstream never sees the user's tid", async () => {
    const ownerSub = newUser();
    const owner = await userToken(ownerSub);
    const request = receiptRequest();
    const mine = await createReceipt(request, { token: owner });
    expect(mine.tid).toBe(request.tid);

    const sentUpstream = async (id: string) => (await sandboxReceipt(id)).tid;
    const derived = await sentUpstream(mine.id);
    expect(derived).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(derived).not.toContain(request.tid);

    const theirs = await createReceipt(request, { token: await userToken(newUser()) });
    const partners = await createReceipt(request);
    expect(new Set([mine.id, theirs.id, partners.id]).size).toBe(3);
    expect([theirs.tid, partners.tid]).toEqual([request.tid, request.tid]);
    expect(await sentUpstream(partners.id), "the partner's tid goes upstream unchanged").toBe(request.tid);
    expect(await sentUpstream(theirs.id)).not.toBe(derived);

    // The owner's own identical retry still replays; the partner reads the user's receipt by naming the user.
    const retry = await call("receipt/create", request, { token: owner });
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect((await expectStatus(retry, 200)).id).toBe(mine.id);
    expect((await expectStatus(call("receipt/check-tid", { tid: request.tid, user: ownerSub }), 200)).id).toBe(mine.id);
    expect((await expectStatus(call("receipt/check-tid", { tid: request.tid }), 200)).id).toBe(partners.id);
    // Naming another user is, for a user, an unknown tid.
    await expectError(
      call("receipt/check-tid", { tid: request.tid, user: ownerSub }, { token: await userToken(newUser()) }),
      404,
      "receipt_not_found",
    );
  });

  it("a partner's tid taken first by a user does not block the partner's create", async () => {
    const request = transferRequest();
    await createTransfer(await userToken(newUser()), request);
    const partners = await expectStatus(call("a2c/create", request), 200);
    expect(partners.tid).toBe(request.tid);
    const upstream = await sandboxTransfer(partners.receipt_id);
    expect(upstream.tId ?? upstream.tid, "the partner's tid goes upstream unchanged").toBe(request.tid);
  });

  it("records the owner in the receipt's Durable Object and in the tid index", async () => {
    const user = newUser();
    const receipt = await createReceipt({}, { token: await userToken(user) });
    const partnerReceipt = await createReceipt({});
    const transfer = await createTransfer(await userToken(user));

    const ownerIn = (kind: "receipt" | "transfer", id: string) =>
      runInDurableObject(receiptStub(env, kind, id), (_instance, state) => state.storage.sql.exec("SELECT owner FROM record").one().owner);
    const indexed = async (owner: string, tid: string) => {
      const row = await tidRow(owner, tid);
      return row && { owner: row.owner, kind: row.kind, receipt_id: row.receipt_id };
    };

    expect(await ownerIn("receipt", receipt.id)).toBe(`user:${user}`);
    expect(await ownerIn("receipt", partnerReceipt.id)).toBe("partner:partner");
    expect(await ownerIn("transfer", transfer.receipt_id)).toBe(`user:${user}`);
    expect(await indexed(`user:${user}`, receipt.tid)).toEqual({ owner: `user:${user}`, kind: "receipt", receipt_id: receipt.id });
    expect(await indexed("partner:partner", partnerReceipt.tid)).toEqual({
      owner: "partner:partner",
      kind: "receipt",
      receipt_id: partnerReceipt.id,
    });
    expect(await indexed(`user:${user}`, transfer.tid)).toEqual({ owner: `user:${user}`, kind: "transfer", receipt_id: transfer.receipt_id });
    expect(await indexed("partner:partner", receipt.tid), "a user's tid is not in the partner's space").toBeNull();
  });

  it("the partner acts on every user's receipts", async () => {
    const owner = await userToken(newUser());
    const receipt = await createReceipt({ merchant_id: 1001 }, { token: owner });
    await expectStatus(call("receipt/check-id", { id: receipt.id }), 200);
    await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN_CARD }), 200);
    expect((await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN_CARD, otp: OTP_OK }), 200)).state).toBe(4);
  });
});

describe("credentials", () => {
  it("refuses before looking at the body: no credentials with bad JSON is 401, not 400", async () => {
    const before = await sandboxCalls();
    await expectError(call("receipt/create", null, { token: null, raw: "{not json" }), 401, "unauthorized");
    await expectError(call("receipt/create", null, { token: null, headers: { "content-type": "text/plain" }, raw: "x" }), 401, "unauthorized");
    expect(await sandboxCalls()).toEqual(before);
  });

  it("refuses a header that is not Bearer, and a token without exp or sub", async () => {
    const now = Math.floor(Date.now() / 1000);
    const secret = new TextEncoder().encode(env.JWT_SECRET);
    const noExp = await new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject(newUser()).sign(secret);
    const noSub = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setExpirationTime(now + 600)
      .sign(secret);
    const basic = { headers: { authorization: `Basic ${btoa("partner:sk_test_local_partner")}` }, token: null };

    await expectError(call("receipt/check-id", { id: missingId() }, basic), 401, "unauthorized");
    const exp = await expectError(call("receipt/check-id", { id: missingId() }, { token: noExp }), 401, "unauthorized");
    expect(exp.message).toContain('"exp"');
    const sub = await expectError(call("receipt/check-id", { id: missingId() }, { token: noSub }), 401, "unauthorized");
    expect(sub.message).toContain('"sub"');
  });

  it("allows 30 seconds of clock skew on exp, and no more", async () => {
    const user = newUser();
    await expectError(call("receipt/check-id", { id: missingId() }, { token: await userToken(user, { expiresIn: -10 }) }), 404, "receipt_not_found");
    await expectError(call("receipt/check-id", { id: missingId() }, { token: await userToken(user, { expiresIn: -120 }) }), 401, "unauthorized");
  });

  it("an HS256 token must carry the configured issuer and audience when the deployment sets them", async () => {
    const configured = { ...env, JWT_ISSUER: "https://idp.dev.test/", JWT_AUDIENCE: "payments-gateway" };
    const user = newUser();
    const ask = async (token: string) =>
      createApp().fetch(
        new Request("http://gateway.test/api/v1/partner/receipt/check-id", {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
          body: JSON.stringify({ id: missingId() }),
        }),
        configured,
        createExecutionContext(),
      );
    const good = { iss: "https://idp.dev.test/", aud: "payments-gateway" };
    await expectError(ask(await userToken(user, { claims: good })), 404, "receipt_not_found");
    await expectError(ask(await userToken(user)), 401, "unauthorized");
    await expectError(ask(await userToken(user, { claims: { ...good, iss: "https://elsewhere.test/" } })), 401, "unauthorized");
    await expectError(ask(await userToken(user, { claims: { ...good, aud: "another-app" } })), 401, "unauthorized");
  });

  it("health, the OpenAPI document and its page need no credentials", async () => {
    for (const path of ["/healthz", "/openapi.json", "/docs"]) {
      expect((await exports.default.fetch(`http://gateway.test${path}`)).status, path).toBe(200);
    }
  });

  it("the OpenAPI document offers both schemes on user operations and only the partner key on hold-confirm", async () => {
    const doc = (await (await exports.default.fetch("http://gateway.test/openapi.json")).json()) as any;
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(["partnerKey", "userJwt"]);
    expect(doc.paths["/api/v1/partner/receipt/pay"].post.security).toEqual([{ partnerKey: [] }, { userJwt: [] }]);
    expect(doc.paths["/api/v1/partner/receipt/hold-confirm"].post.security).toEqual([{ partnerKey: [] }]);
  });
});
