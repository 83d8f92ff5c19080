/**
 * The back office at /console (the contract, "The back office"): Cloudflare
 * Access's identity verified with a key pair of the test's own, served by a
 * stub of the team's certs endpoint (the worker runs in the tests' isolate,
 * so a spy on fetch answers it); the roles' refusals; every view and action
 * in the audit trail; and one payment's whole story on one screen.
 */

import { createExecutionContext, runDurableObjectAlarm } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import { signDevToken } from "../../src/backoffice/access";
import { useLocalMetrics } from "../../src/backoffice/charts";
import type { Role } from "../../src/config/staff-roles";
import { devMetricPoints } from "../../src/metrics/dev-metrics";
import { type MetricFields, metricPoint, SUCCESS_SAMPLE, successSampling } from "../../src/metrics/metrics";
import { receiptStub } from "../../src/record/receipt-object";
import { clock } from "../../src/shared/clock";
import { redact } from "../../src/shared/redact";
import { dateIn } from "../../src/statements/days";
import { flushAudit, searchTrail } from "../audit";
import { callGateway, consume, DEAD_LETTER_QUEUE, fireCron, makeEvent, messageOf, newRecordId } from "../events";
import {
  call,
  createReceipt,
  expectError,
  expectStatus,
  letTimePass,
  newUser,
  OTP_OK,
  OTP_WRONG,
  PARTNER_KEY,
  productionEnv,
  receiptRequest,
  transferRequest,
  userToken,
} from "../helpers";

const CONSOLE = "http://gateway.test/console";
const AUD = "console-aud-of-the-test";

/** A console operation through the Worker, as the page sends it. */
async function op(name: string, body: unknown, headers: Record<string, string>, deployment?: Env): Promise<Response> {
  const request = new Request(`${CONSOLE}/api/${name}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return deployment ? createApp().fetch(request, deployment, createExecutionContext()) : exports.default.fetch(request);
}

/** A development sign-in's identity, as the header Access would set. */
async function as(role: Role, email = `${newUser(role)}@partner.test`): Promise<Record<string, string>> {
  return { "cf-access-jwt-assertion": await signDevToken(env, email, role) };
}

describe("Cloudflare Access's identity", () => {
  let signing: { key: CryptoKey; kid: string };
  let rotatedIn: { key: CryptoKey; kid: string };
  let published: JWK;
  let next: JWK;
  let imposter: CryptoKey;
  const served = new Map<string, { keys: JWK[]; requests: number }>();

  beforeAll(async () => {
    const first = await generateKeyPair("RS256", { extractable: true });
    const second = await generateKeyPair("RS256", { extractable: true });
    imposter = (await generateKeyPair("RS256")).privateKey;
    signing = { key: first.privateKey, kid: "access-1" };
    rotatedIn = { key: second.privateKey, kid: "access-2" };
    published = { ...(await exportJWK(first.publicKey)), kid: "access-1", alg: "RS256", use: "sig" };
    next = { ...(await exportJWK(second.publicKey)), kid: "access-2", alg: "RS256", use: "sig" };
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** A deployment with a team of its own (so no key cache crosses tests), its certs served by the stub. */
  function team(keys: JWK[] = [published]) {
    const domain = `${crypto.randomUUID()}.cloudflareaccess.test`;
    const stub = { keys, requests: 0 };
    served.set(`https://${domain}/cdn-cgi/access/certs`, stub);
    const realFetch = globalThis.fetch;
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      const certs = served.get(url);
      if (!certs) return realFetch(input, init);
      certs.requests++;
      return Response.json({ keys: certs.keys });
    });
    const deployment = {
      ...env,
      ACCESS_TEAM_DOMAIN: domain,
      ACCESS_AUD: AUD,
      STAFF_ROLES: JSON.stringify({ support: ["ana@partner.test"], operator: ["@ops.partner.test"] }),
    } as Env;
    const sign = (
      email: string,
      {
        key = signing,
        aud = AUD,
        iss = `https://${domain}`,
        exp = "10m",
      }: { key?: { key: CryptoKey; kid: string }; aud?: string; iss?: string; exp?: string | number } = {},
    ) =>
      new SignJWT({ email, type: "app" })
        .setProtectedHeader({ alg: "RS256", kid: key.kid })
        .setAudience(aud)
        .setIssuer(iss)
        .setIssuedAt()
        .setExpirationTime(exp)
        .sign(key.key);
    const me = (token: string | null, extra: Record<string, string> = {}) =>
      op("me", {}, { ...(token ? { "cf-access-jwt-assertion": token } : {}), ...extra }, deployment);
    return { domain, stub, deployment, sign, me };
  }

  it("a token Access signed for this application names the person, and STAFF_ROLES their role (by email or by domain)", async () => {
    const { sign, me } = team();
    expect(await expectStatus(me(await sign("Ana@Partner.test")), 200)).toMatchObject({ email: "ana@partner.test", role: "support" });
    const operator = await expectStatus(me(await sign("kim@ops.partner.test")), 200);
    expect(operator).toMatchObject({ email: "kim@ops.partner.test", role: "operator" });
    expect(operator.can).toContain("charts");
  });

  it("the CF_Authorization cookie is the same identity as the header", async () => {
    const { sign, deployment } = team();
    const token = await sign("ana@partner.test");
    const response = await op("me", {}, { cookie: `CF_Authorization=${token}` }, deployment);
    expect((await expectStatus(response, 200)).email).toBe("ana@partner.test");
  });

  it("none, a wrong audience, a wrong issuer, an expired token, an unknown key: 401 unauthorized", async () => {
    const { sign, me, domain } = team();
    expect((await expectError(me(null), 401, "unauthorized")).message).toMatch(/Access/);
    expect((await expectError(me(await sign("ana@partner.test", { aud: "another-application" })), 401, "unauthorized")).message).toMatch(/"aud"/);
    expect((await expectError(me(await sign("ana@partner.test", { iss: `https://other-${domain}` })), 401, "unauthorized")).message).toMatch(/"iss"/);
    const expired = await sign("ana@partner.test", { exp: Math.floor(Date.now() / 1000) - 120 });
    expect((await expectError(me(expired), 401, "unauthorized")).message).toMatch(/expired/);
    const noExpiry = await new SignJWT({ email: "ana@partner.test" })
      .setProtectedHeader({ alg: "RS256", kid: signing.kid })
      .setAudience(AUD)
      .setIssuer(`https://${domain}`)
      .sign(signing.key);
    expect((await expectError(me(noExpiry), 401, "unauthorized")).message).toMatch(/"exp"/);
    const forged = await sign("ana@partner.test", { key: { key: imposter, kid: "access-1" } });
    expect((await expectError(me(forged), 401, "unauthorized")).message).toMatch(/signature/);
    const unknownKey = await sign("ana@partner.test", { key: { key: imposter, kid: "not-published" } });
    expect((await expectError(me(unknownKey), 401, "unauthorized")).message).toMatch(/signature/);
  });

  it("a key Access rotates in is picked up: the keys are fetched again for it, at most once every 30 s", async () => {
    const { sign, me, stub } = team();
    await expectStatus(me(await sign("ana@partner.test")), 200);
    expect(stub.requests).toBe(1);
    // Access publishes the next key beside the current one, and signs with it.
    stub.keys = [published, next];
    const rotated = await sign("ana@partner.test", { key: rotatedIn });
    // The unknown key id of the first test above was looked for just now: the cache stands a while.
    await expectStatus(me(rotated), 200);
    expect(stub.requests).toBe(2);
    await expectStatus(me(await sign("ana@partner.test")), 200);
    await expectStatus(me(rotated), 200);
    expect(stub.requests).toBe(2);
    // A made-up key id straight after costs no fetch; after 30 s it may cost one.
    await expectError(me(await sign("ana@partner.test", { key: { key: imposter, kid: "made-up" } })), 401, "unauthorized");
    expect(stub.requests).toBe(2);
    letTimePass(31_000);
    await expectError(me(await sign("ana@partner.test", { key: { key: imposter, kid: "made-up" } })), 401, "unauthorized");
    expect(stub.requests).toBe(3);
  });

  it("a verified person STAFF_ROLES does not name is refused 403, and the refusal is in the audit trail", async () => {
    const { sign, me } = team();
    const email = `${newUser("stranger")}@elsewhere.test`;
    await expectError(me(await sign(email)), 403, "forbidden");
    await flushAudit();
    expect((await searchTrail({ staff: email })).entries).toEqual([
      expect.objectContaining({ op: "console.me", role: "none", outcome: "forbidden" }),
    ]);
  });
});

describe("credentials that never reach the console", () => {
  it("the partner's server key and a user's JWT are refused, as Authorization or as the Access header", async () => {
    await expectError(op("me", {}, { authorization: `Bearer ${PARTNER_KEY}` }), 403, "forbidden");
    const user = await userToken(newUser());
    await expectError(op("me", {}, { authorization: `Bearer ${user}` }), 403, "forbidden");
    await expectError(op("record", { id: "x" }, { "cf-access-jwt-assertion": user }), 401, "unauthorized");
    await expectError(op("me", {}, { "cf-access-jwt-assertion": PARTNER_KEY }), 401, "unauthorized");
  });

  it("production: no development sign-in, and a development token is refused", async () => {
    const production = await productionEnv();
    const page = await createApp().fetch(new Request(`${CONSOLE}/dev-sign-in`), production, createExecutionContext());
    expect(page.status).toBe(404);
    const devToken = await signDevToken(env, "ana@partner.test", "operator");
    await expectError(op("me", {}, { "cf-access-jwt-assertion": devToken }, production), 401, "unauthorized");
  });
});

describe("development sign-in", () => {
  it("sets the CF_Authorization cookie for the chosen email and role", async () => {
    const form = new URLSearchParams({ email: "Dev@Partner.test", role: "finance" });
    const signedIn = await exports.default.fetch(`${CONSOLE}/dev-sign-in`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://gateway.test" },
      body: form,
      redirect: "manual",
    });
    expect(signedIn.status).toBe(303);
    const cookie = signedIn.headers.get("set-cookie")!.split(";")[0]!;
    expect(cookie).toMatch(/^CF_Authorization=/);
    expect(await expectStatus(op("me", {}, { cookie }), 200)).toMatchObject({
      email: "dev@partner.test",
      role: "finance",
      environment: "development",
    });
  });
});

describe("each role's refusals (403 forbidden)", () => {
  it("support, finance and operator may do what CAN says, and nothing else", async () => {
    const support = await as("support");
    const finance = await as("finance");
    const operator = await as("operator");
    for (const [name, body] of [
      ["statements", {}],
      ["statement", { date: "2026-01-01" }],
      ["fiscal_pending", {}],
      ["charts", { hours: 1 }],
      ["resend", { event_id: "evt_01J0000000000000000000000" }],
      ["resend_failed", { from: 0, to: 1 }],
      ["erasures", {}],
    ] as const)
      await expectError(op(name, body, support), 403, "forbidden");
    for (const [name, body] of [
      ["reveal", { id: "x", field: "phone" }],
      ["charts", { hours: 1 }],
      ["resend", { event_id: "evt_01J0000000000000000000000" }],
      ["erasures", {}],
    ] as const)
      await expectError(op(name, body, finance), 403, "forbidden");
    await expectStatus(op("statements", {}, finance), 200);
    await expectStatus(op("fiscal_pending", {}, finance), 200);
    await expectStatus(op("erasures", {}, operator), 200);
    const statementFile = await exports.default.fetch(`${CONSOLE}/files/statements/2026-01-01.csv`, { headers: support });
    await expectError(statementFile, 403, "forbidden");
  });
});

describe("support's view of a payment", () => {
  it("finds it by id and by tid, masks the account values, reveals one as its own audited action", async () => {
    const tid = `tid-${crypto.randomUUID()}`;
    const receipt = await expectStatus(call("receipt/create", receiptRequest({ tid, account: [{ key: "phone", value: "998901234567" }] })), 200);
    const email = `${newUser("support")}@partner.test`;
    const support = await as("support", email);
    const byId = await expectStatus(op("find", { id: receipt.id }, support), 200);
    expect(byId.results).toEqual([expect.objectContaining({ id: receipt.id, kind: "receipt", state: 0, state_name: "created", tid })]);
    expect((await expectStatus(op("find", { tid }, support), 200)).results.map((r: { id: string }) => r.id)).toEqual([receipt.id]);

    const view = await expectStatus(op("record", { id: receipt.id }, support), 200);
    expect(JSON.stringify(view)).not.toContain("998901234567");
    expect(view.record.body.account).toEqual([{ key: "phone", value: "99********67" }]);

    const revealed = await expectStatus(op("reveal", { id: receipt.id, field: "account" }, support), 200);
    expect(revealed.value).toEqual([{ key: "phone", value: "998901234567" }]);
    // A receipt keeps its user's phone as the account value named phone.
    expect((await expectStatus(op("reveal", { id: receipt.id, field: "phone" }, support), 200)).value).toBe("998901234567");

    await flushAudit();
    const entries = (await searchTrail({ staff: email })).entries;
    expect(entries.map((e: { op: string }) => e.op)).toEqual(["console.find", "console.find", "console.record", "console.reveal", "console.reveal"]);
    expect(entries.slice(-2)).toEqual([
      expect.objectContaining({ role: "support", outcome: "ok", receipt_id: receipt.id, target: redact(`${receipt.id} account`) }),
      expect.objectContaining({ role: "support", outcome: "ok", receipt_id: receipt.id, target: redact(`${receipt.id} phone`) }),
    ]);
    // The revealed value is in no entry.
    expect(JSON.stringify(entries)).not.toContain("998901234567");
  });
});

describe("revealing a phone", () => {
  it("answers a transfer's sender's phone as the transfer keeps it, and none for a receipt without one", async () => {
    const support = await as("support");
    const transfer = await expectStatus(call("a2c/create", transferRequest()), 200);
    // The payment service answers the sender's phone itself masked; the record keeps it as answered.
    expect(transfer.sender.phone).toEqual(expect.stringMatching(/\d\d$/));
    const phone = await expectStatus(op("reveal", { id: transfer.receipt_id, kind: "transfer", field: "phone" }, support), 200);
    expect(phone.value).toBe(transfer.sender.phone);
    const none = await createReceipt({ account: [{ key: "order", value: "A-17" }] });
    expect((await expectStatus(op("reveal", { id: none.id, field: "phone" }, support), 200)).value).toBeNull();
  });
});

describe("a payment's timeline", () => {
  it("shows an unknown outcome and what reconciliation found, and a failed delivery resent by the operator", async () => {
    const receipt = await createReceipt();
    await expectStatus(call("receipt/authorize", { id: receipt.id, card: { token: "tok_sandbox_paid_timeout" } }), 200);
    await expectError(call("receipt/pay", { id: receipt.id, otp: OTP_OK, card: { token: "tok_sandbox_paid_timeout" } }), 504, "upstream_timeout");
    await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));

    // The receipt.paid event: its first delivery fails, the operator resends it, the second is delivered.
    const listed = await expectStatus(callGateway("events/list", { receipt_id: receipt.id, type: "receipt.paid" }), 200);
    const { delivery: _, ...paid } = listed.events[0];
    let answer = new Response("receiver down: 998901234567", { status: 503 });
    const realFetch = globalThis.fetch;
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      return url === env.WEBHOOK_URL ? answer : realFetch(input, init);
    });
    await consume([{ body: messageOf(paid) }]);
    const operator = await as("operator");
    expect(await expectStatus(op("resend", { event_id: paid.id }, operator), 200)).toEqual({ resent: 1 });
    answer = new Response(null, { status: 204 });
    await consume([{ body: messageOf(paid) }]);
    vi.restoreAllMocks();

    const view = await expectStatus(op("record", { id: receipt.id }, operator), 200);
    expect(view.record).toMatchObject({ id: receipt.id, state: 4, state_name: "paid" });
    expect(view.states.map((s: { state_name: string }) => s.state_name)).toEqual(["created", "paid"]);
    expect(view.calls).toContainEqual(
      expect.objectContaining({
        method: "pay",
        outcome: "unknown",
        code: "upstream_timeout",
        reconciled: expect.objectContaining({ found: 4, found_name: "paid" }),
      }),
    );
    expect(view.user_saw).toContainEqual(
      expect.objectContaining({ code: "upstream_timeout", user_message: expect.stringMatching(/may have gone through/) }),
    );
    const event = view.events.find((e: { id: string }) => e.id === paid.id);
    expect(event.delivery).toBe("delivered");
    expect(event.deliveries).toEqual([
      expect.objectContaining({ status: 503, ok: false, answer: "HTTP 503: receiver down: ************" }),
      expect.objectContaining({ status: 204, ok: true }),
    ]);
    // The receiver's answer is kept redacted.
    expect(JSON.stringify(event.deliveries)).not.toContain("998901234567");
  });
});

describe("the misconfiguration guard", () => {
  it("refuses production without ACCESS_TEAM_DOMAIN, ACCESS_AUD or STAFF_ROLES, or with ACCESS_DEV_SECRET; and any STAFF_ROLES it cannot read", async () => {
    const health = async (deployment: Env) => createApp().fetch(new Request("http://gateway.test/healthz"), deployment, createExecutionContext());
    await expectStatus(health(await productionEnv()), 200);
    for (const [overrides, named] of [
      [{ ACCESS_TEAM_DOMAIN: "" }, "ACCESS_TEAM_DOMAIN"],
      [{ ACCESS_AUD: "" }, "ACCESS_AUD"],
      [{ STAFF_ROLES: "" }, "STAFF_ROLES"],
      [{ ACCESS_DEV_SECRET: "local-dev-console-secret" }, "ACCESS_DEV_SECRET"],
    ] as const) {
      const refused = await expectError(health(await productionEnv(overrides)), 503, "service_misconfigured");
      expect(refused.message).toContain(named);
    }
    const unreadable = await expectError(health({ ...env, STAFF_ROLES: '{"admin": ["a@b.c"]}' } as Env), 503, "service_misconfigured");
    expect(unreadable.message).toContain("STAFF_ROLES");
  });
});

describe("the operator's charts", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("draw the payments made in development, per step of the last hour", async () => {
    // The pay's success drawn in: a success of upstream_call is written once in SUCCESS_SAMPLE (src/metrics/metrics.ts).
    vi.spyOn(successSampling, "keep").mockReturnValue(true);
    const receipt = await createReceipt();
    await expectStatus(call("receipt/authorize", { id: receipt.id, card: { token: "tok_sandbox_ok" } }), 200);
    await expectStatus(call("receipt/pay", { id: receipt.id, otp: OTP_OK, card: { token: "tok_sandbox_ok" } }), 200);
    const charts = await expectStatus(op("charts", { hours: 1 }, await as("operator")), 200);
    expect(charts).toMatchObject({ step_s: 60, source: "local" });
    const paid = charts.series.payments_by_outcome;
    expect(paid.t).toHaveLength(60);
    expect(paid.paid.reduce((a: number, b: number) => a + b, 0)).toBeGreaterThanOrEqual(1);
    expect(Math.max(...charts.series.latency_ms.p99)).toBeGreaterThanOrEqual(0);
  });

  it("count a sampled success as the payments it stands for, and one not drawn as none", async () => {
    const operator = await as("operator");
    const paid = async () => sums((await expectStatus(op("charts", { hours: 1 }, operator), 200)).series.payments_by_outcome).paid!;
    const pay = async () => {
      const receipt = await createReceipt({ merchant_id: 1003 });
      await expectStatus(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" } }), 200);
    };
    const keep = vi.spyOn(successSampling, "keep").mockReturnValue(true);
    const before = await paid();
    await pay();
    expect(await paid()).toBe(before + SUCCESS_SAMPLE);
    keep.mockReturnValue(false);
    await pay();
    expect(await paid()).toBe(before + SUCCESS_SAMPLE);
  });

  it("weigh a sampled success as the calls it stands for in the calls' percentiles", async () => {
    const at = Date.now();
    const call = (outcome: string, ms: number, count: number) => ({
      at,
      point: metricPoint("upstream_call", { operation: "receipt/pay", outcome, ms, count } as unknown as MetricFields["upstream_call"]),
    });
    // Ten fast calls in one point, two slow failures: the median call is a fast one.
    useLocalMetrics(() => [call("ok", 10, SUCCESS_SAMPLE), call("timeout", 2_000, 1), call("timeout", 2_000, 1)]);
    try {
      const { series } = await expectStatus(op("charts", { hours: 1 }, await as("operator")), 200);
      expect(Math.max(...series.latency_ms.p50)).toBe(10);
      expect(Math.max(...series.latency_ms.p99)).toBe(2_000);
    } finally {
      useLocalMetrics(devMetricPoints);
    }
  });
});

/** Each line of a chart summed over its steps. */
const sums = (chart: Record<string, number[]>): Record<string, number> =>
  Object.fromEntries(Object.entries(chart).flatMap(([name, values]) => (name === "t" ? [] : [[name, values.reduce((a, b) => a + b, 0)]])));

describe("the operator's charts of what the record and the queue know", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("declines by reason, OTP exhaustion and the queue's age have data after the flows that make them", async () => {
    const operator = await as("operator");
    const series = async () => (await expectStatus(op("charts", { hours: 1 }, operator), 200)).series;
    const before = await series();

    // The bank declines a card without the money.
    const poor = await createReceipt({ merchant_id: 1003 });
    const declined = await expectError(call("receipt/pay", { id: poor.id, card: { token: "tok_sandbox_insufficient" } }), 402, "card_declined");
    expect(declined.decline_reason).toBe("insufficient_funds");

    // Three wrong OTPs: rule 2 ends the receipt.
    const guessed = await createReceipt({ merchant_id: 1001 });
    await expectStatus(call("receipt/authorize", { id: guessed.id, card: { token: "tok_sandbox_ok" } }), 200);
    for (const otp of [OTP_WRONG, "333333"])
      await expectError(call("receipt/pay", { id: guessed.id, otp, card: { token: "tok_sandbox_ok" } }), 422, "otp_invalid");
    await expectError(call("receipt/pay", { id: guessed.id, otp: "444444", card: { token: "tok_sandbox_ok" } }), 409, "otp_attempts_exhausted");

    // An event delivered 90 s after it was queued.
    const realFetch = globalThis.fetch;
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      return url === env.WEBHOOK_URL ? new Response(null, { status: 204 }) : realFetch(input, init);
    });
    await consume([{ body: messageOf(makeEvent(newRecordId())), timestamp: new Date(Date.now() - 90_000) }]);

    const after = await series();
    expect(sums(after.declines_by_reason).insufficient_funds).toBe(sums(before.declines_by_reason).insufficient_funds! + 1);
    expect(sums(after.declines_by_reason).declined).toBe(sums(before.declines_by_reason).declined);
    // One payment declined; the wrong OTPs are refusals of the payment service, not declines.
    expect(sums(after.payments_by_outcome).declined).toBe(sums(before.payments_by_outcome).declined! + 1);
    expect(sums(after.upstream_refusals).refused).toBeGreaterThanOrEqual(sums(before.upstream_refusals).refused! + 3);
    expect(sums(after.otp_exhausted).receipt).toBe(sums(before.otp_exhausted).receipt! + 1);
    expect(Math.max(...before.queue_age_s.max)).toBeLessThan(90);
    expect(Math.max(...after.queue_age_s.max)).toBeGreaterThanOrEqual(90);
    expect(Math.max(...after.queue_age_s.p99)).toBeGreaterThanOrEqual(90);
    expect(after.queue_age_s.t).toHaveLength(60);
  });
});

describe("finding a user's payments", () => {
  it("by user, recent first (of one kind when asked), and one by the user's own tid", async () => {
    const user = newUser();
    const token = await userToken(user);
    const first = await createReceipt({}, { token });
    letTimePass(1_000);
    const second = await createReceipt({}, { token });
    // The partner's receipt with the user's tid is not the user's.
    const partners = await createReceipt({ tid: first.tid });
    const support = await as("support");

    const byUser = await expectStatus(op("find", { user }, support), 200);
    expect(byUser.results.map((r: { id: string }) => r.id)).toEqual([second.id, first.id]);
    expect(byUser.results[0]).toMatchObject({ kind: "receipt", state_name: "created", tid: second.tid });
    expect(JSON.stringify(byUser)).not.toContain(user);
    // The user's receipt is theirs, shown masked as erasure masks a sub; the partner's is the partner's.
    const masked = `${user.slice(0, 2)}${"*".repeat(user.length - 4)}${user.slice(-2)}`;
    expect(byUser.results.map((r: { user_masked: string }) => r.user_masked)).toEqual([masked, masked]);
    const theirs = await expectStatus(op("record", { id: first.id }, support), 200);
    expect(theirs.record).toMatchObject({ user_masked: masked, owner: `user:${masked}` });
    const partner = await expectStatus(op("find", { id: partners.id }, support), 200);
    expect(partner.results[0].user_masked).toBe("partner");
    expect((await expectStatus(op("record", { id: partners.id }, support), 200)).record.owner).toBe("partner");
    expect((await expectStatus(op("find", { user, kind: "transfer" }, support), 200)).results).toEqual([]);

    const byUserTid = await expectStatus(op("find", { user, user_tid: first.tid }, support), 200);
    expect(byUserTid.results.map((r: { id: string }) => r.id)).toEqual([first.id]);
    expect((await expectStatus(op("find", { tid: first.tid }, support), 200)).results.map((r: { id: string }) => r.id)).toEqual([partners.id]);
    expect((await expectStatus(op("find", { user: newUser() }, support), 200)).results).toEqual([]);
    await expectError(op("find", { user_tid: first.tid }, support), 400, "invalid_request");
  });
});

describe("finance's statements", () => {
  it("lists a day's statement, shows its totals and downloads its files", async () => {
    const receipt = await createReceipt({ merchant_id: 1003, amount: 123_400 });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" } }), 200);
    await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
    const date = dateIn(clock.now(), "Asia/Tashkent");
    await expectStatus(callGateway("statements/rebuild", { date }), 202);
    const builder = env.STATEMENT.get(env.STATEMENT.idFromName(date));
    while (await runDurableObjectAlarm(builder));

    const email = `${newUser("finance")}@partner.test`;
    const finance = await as("finance", email);
    const listed = await expectStatus(op("statements", {}, finance), 200);
    expect(listed.statements[0]).toMatchObject({
      date,
      files: { csv: `/console/files/statements/${date}.csv`, json: `/console/files/statements/${date}.json` },
    });
    const statement = await expectStatus(op("statement", { date }, finance), 200);
    expect(statement.date).toBe(date);
    expect(statement.totals).toContainEqual(expect.objectContaining({ merchant_id: 1003, change: "paid" }));
    await expectError(op("statement", { date: "2001-01-01" }, finance), 404, "not_found");

    const csv = await exports.default.fetch(`http://gateway.test${listed.statements[0].files.csv}`, { headers: finance });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(await csv.text()).toContain(receipt.id);
    const json = await exports.default.fetch(`http://gateway.test${listed.statements[0].files.json}`, { headers: finance });
    const file = (await json.json()) as { lines: { id: string }[]; totals: unknown[]; mismatches: unknown[] };
    expect(file.lines.map((l) => l.id)).toContain(receipt.id);
    // The screen shows the file's own totals and mismatches.
    expect(statement).toEqual({ date, totals: file.totals, mismatches: file.mismatches });

    await flushAudit();
    const ops = (await searchTrail({ staff: email })).entries.map((e: { op: string; outcome: string }) => `${e.op} ${e.outcome}`);
    expect(ops).toEqual([
      "console.statements ok",
      "console.statement ok",
      "console.statement not_found",
      "console.statement_file ok",
      "console.statement_file ok",
    ]);
  });
});

describe("the operator's resends and erasures", () => {
  it("resend_failed queues again the events given up on within the period, and only those", async () => {
    const receipt = await createReceipt();
    const created = async () => (await expectStatus(callGateway("events/list", { receipt_id: receipt.id, type: "receipt.created" }), 200)).events[0];
    const { delivery: _, ...event } = await created();
    await consume([{ body: messageOf(event) }], { queue: DEAD_LETTER_QUEUE });
    expect((await created()).delivery.status).toBe("failed");

    const operator = await as("operator");
    expect(await expectStatus(op("resend_failed", { from: 0, to: 1 }, operator), 200)).toEqual({ resent: 0 });
    expect((await created()).delivery.status).toBe("failed");
    const now = clock.now();
    const resent = await expectStatus(op("resend_failed", { from: now - 3_600_000, to: now + 60_000 }, operator), 200);
    expect(resent.resent).toBeGreaterThanOrEqual(1);
    expect((await created()).delivery.status).toBe("pending");
    await expectError(op("resend_failed", { from: 10, to: 5 }, operator), 400, "invalid_request");
  });

  it("erasures lists each request with its user masked, in progress and then done", async () => {
    const user = newUser("erased");
    await createReceipt({}, { token: await userToken(user) });
    await expectStatus(callGateway("users/erase", { user }), 202);
    const operator = await as("operator");
    const masked = `${user.slice(0, 2)}${"*".repeat(user.length - 4)}${user.slice(-2)}`;
    const request = async () => {
      const answer = await expectStatus(op("erasures", {}, operator), 200);
      expect(JSON.stringify(answer)).not.toContain(user);
      return answer.requests.find((r: { user_masked: string }) => r.user_masked === masked);
    };
    expect(await request()).toMatchObject({ state: "in_progress", done_at: null });
    await fireCron(clock.now());
    const done = await request();
    expect(done).toMatchObject({ state: "done", done_at: expect.any(Number) });
    expect(done.progress.steps_done).toBe(done.progress.steps_started);
  });
});

describe("the page", () => {
  it("is served from the bundled assets to a signed-in person; development sends anyone else to its sign-in, production answers 401", async () => {
    const asked: string[] = [];
    const ASSETS = {
      fetch: async (input: RequestInfo | URL) => {
        const path = new URL(input instanceof Request ? input.url : String(input)).pathname;
        asked.push(path);
        if (path === "/console/") return new Response("<!doctype html><title>Console</title>", { headers: { "content-type": "text/html" } });
        if (path === "/console/console.js") return new Response("// the page", { headers: { "content-type": "text/javascript" } });
        return new Response("Not found", { status: 404 });
      },
    };
    const get = async (path: string, headers: Record<string, string> = {}, deployment = { ...env, ASSETS } as unknown as Env) =>
      createApp().fetch(new Request(`http://gateway.test${path}`, { headers }), deployment, createExecutionContext());
    const support = await as("support");

    const page = await get("/console/", support);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(await page.text()).toContain("<title>Console</title>");
    expect(await (await get("/console/console.js", support)).text()).toBe("// the page");
    await expectError(get("/console/nothing.js", support), 404, "not_found");
    expect(asked).toEqual(["/console/", "/console/console.js", "/console/nothing.js"]);

    const anonymous = await get("/console/");
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get("location")).toBe("/console/dev-sign-in");
    const production = await get("/console/", {}, { ...(await productionEnv()), ASSETS } as unknown as Env);
    expect(production.status).toBe(401);
    expect(await production.text()).toContain("Cloudflare Access");
    // Nobody unsigned reached the assets.
    expect(asked).toHaveLength(3);
  });
});
