// The scripted upstream (test/support/scripted-upstream.ts) that the test
// configuration binds UPSTREAM to: each fault kind, observed through the
// gateway's HTTP surface or directly through env.UPSTREAM, with the sandbox's
// own views as the proof of whether the upstream acted. The gateway's error
// codes for these faults are being redesigned, so only "an error" is asserted.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { call, createReceipt, sandboxCalls, sandboxReceipt } from "../helpers";
import { forwardDeferred, scriptedUpstream } from "../support/scripted-upstream";

afterEach(() => scriptedUpstream.reset());

const UPSTREAM_API = "https://sandbox.upstream.invalid/api/v1/partner/";
const UPSTREAM_HEADERS = { authorization: "Bearer sandbox-upstream-key", "content-type": "application/json" };

/** Straight to env.UPSTREAM, as the gateway's upstream client calls it. */
function upstream(path: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return env.UPSTREAM!.fetch(UPSTREAM_API + path, {
    method: "POST",
    headers: UPSTREAM_HEADERS,
    body: JSON.stringify(body),
    ...init,
  });
}

/** A receipt that pays without an OTP (merchant 1003), created through the gateway. */
const payable = () => createReceipt({ merchant_id: 1003 });
const pay = (id: string) => call("receipt/pay", { id, card: { token: "tok_sandbox_ok" } });
const payUpstream = (id: string, init: RequestInit = {}) => upstream("receipt/pay", { id, card: { token: "tok_sandbox_ok" } }, init);
const paysLogged = async (id: string) => (await sandboxCalls()).filter((c) => c.id === id && c.path === "receipt/pay");

/** Settles a promise without waiting for it, to tell whether it is still in flight. */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  const pending = Symbol("pending");
  return (
    (await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      Promise.resolve(pending),
    ])) !== pending
  );
}

describe("wiring", () => {
  it("passes every request through to the sandbox when no rule is set, /__sandbox views included", async () => {
    const receipt = await payable();
    const paid = await pay(receipt.id);
    expect(paid.status).toBe(200);
    expect(((await paid.json()) as any).state).toBe(4);
    expect((await sandboxReceipt(receipt.id)).state).toBe(4);
    expect(scriptedUpstream.fired()).toEqual({});
  });

  it("shares its rules with the gateway: a rule set here changes a call the ReceiptObject makes through env.UPSTREAM", async () => {
    const receipt = await payable();
    scriptedUpstream.on("receipt/pay", { kind: "status", status: 500 }, { id: receipt.id });
    const res = await pay(receipt.id);
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(scriptedUpstream.fired()).toEqual({ status: 1 });
    // The sandbox never saw the pay: nothing moved.
    expect(await paysLogged(receipt.id)).toEqual([]);
    expect((await sandboxReceipt(receipt.id)).state).toBe(0);
  });

  it("pass counts as fired and changes nothing", async () => {
    const receipt = await payable();
    scriptedUpstream.on("receipt/pay", { kind: "pass" });
    expect((await pay(receipt.id)).status).toBe(200);
    expect(scriptedUpstream.fired()).toEqual({ pass: 1 });
  });
});

describe("rules", () => {
  it("match the path and, when given, the body's id; apply `times` times; are consumed in the order added", async () => {
    const mine = await payable();
    const other = await payable();
    scriptedUpstream.on("receipt/check-id", { kind: "status", status: 502 }, { id: mine.id, times: 2 });
    scriptedUpstream.on("receipt/check-id", { kind: "status", status: 504 }, { id: mine.id });
    scriptedUpstream.on("receipt/pay", { kind: "status", status: 500 });
    const check = async (id: string) => (await upstream("receipt/check-id", { id })).status;

    expect(await check(other.id)).toBe(200);
    expect(await check(mine.id)).toBe(502);
    expect(await check(mine.id)).toBe(502);
    expect(await check(mine.id)).toBe(504);
    expect(await check(mine.id)).toBe(200);
    // A rule without an id takes the next request to its path, whichever record.
    expect((await payUpstream(other.id)).status).toBe(500);
    expect((await payUpstream(other.id)).status).toBe(200);
    expect(scriptedUpstream.fired()).toEqual({ status: 4 });
  });

  it("reset() forgets rules and counts", async () => {
    const receipt = await payable();
    scriptedUpstream.on("receipt/check-id", { kind: "status", status: 500 }, { times: 5 });
    expect((await upstream("receipt/check-id", { id: receipt.id })).status).toBe(500);
    scriptedUpstream.reset();
    expect(scriptedUpstream.fired()).toEqual({});
    expect((await upstream("receipt/check-id", { id: receipt.id })).status).toBe(200);
  });
});

describe("status", () => {
  it("answers the wire envelope with the status, code, message and Retry-After, without acting by default", async () => {
    const receipt = await payable();
    scriptedUpstream.on("receipt/pay", { kind: "status", status: 503, retryAfter: 7 }, { id: receipt.id });
    const res = await payUpstream(receipt.id, { headers: { ...UPSTREAM_HEADERS, "x-request-id": "req-503" } });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("7");
    expect(res.headers.get("x-request-id")).toBe("req-503");
    expect(await res.json()).toEqual({ error: { code: "BUSY", message: expect.any(String) } });
    expect(await paysLogged(receipt.id)).toEqual([]);

    scriptedUpstream.on("receipt/pay", { kind: "status", status: 429, code: "SLOW_DOWN", message: "later" }, { id: receipt.id });
    const custom = await payUpstream(receipt.id);
    expect(custom.status).toBe(429);
    expect(custom.headers.get("retry-after")).toBeNull();
    expect(await custom.json()).toEqual({ error: { code: "SLOW_DOWN", message: "later" } });
    expect((await sandboxReceipt(receipt.id)).state).toBe(0);
  });

  it("acts first with act: true, so the error hides a payment", async () => {
    const receipt = await payable();
    scriptedUpstream.on("receipt/pay", { kind: "status", status: 500, act: true }, { id: receipt.id });
    const res = await pay(receipt.id);
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect((await sandboxReceipt(receipt.id)).state).toBe(4);
    expect((await paysLogged(receipt.id)).map((c) => c.status)).toEqual([200]);
  });
});

describe("lost", () => {
  it("lets the sandbox pay, then breaks the connection: the status line arrives, reading the answer fails", async () => {
    const receipt = await payable();
    scriptedUpstream.on("receipt/pay", { kind: "lost" }, { id: receipt.id });
    const res = await payUpstream(receipt.id);
    await expect(res.text()).rejects.toThrow(/connection lost after the sandbox acted/);
    expect((await sandboxReceipt(receipt.id)).state).toBe(4);
    expect(scriptedUpstream.fired()).toEqual({ lost: 1 });
  });

  it("through the gateway: the receipt is paid upstream while the gateway's answer is an error", async () => {
    const receipt = await payable();
    scriptedUpstream.on("receipt/pay", { kind: "lost" }, { id: receipt.id });
    const started = Date.now();
    const res = await pay(receipt.id);
    expect(res.ok).toBe(false);
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect((await sandboxReceipt(receipt.id)).state).toBe(4);
  });
});

describe("body", () => {
  it("answers the raw text with status 200 after the sandbox acted", async () => {
    const receipt = await payable();
    scriptedUpstream.on("receipt/pay", { kind: "body", body: '{"id":"x","state":"4"}' }, { id: receipt.id });
    const res = await payUpstream(receipt.id);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"id":"x","state":"4"}');
    expect((await sandboxReceipt(receipt.id)).state).toBe(4);
  });

  it("with act: false and a status, answers without the sandbox seeing the call", async () => {
    const receipt = await payable();
    scriptedUpstream.on("receipt/pay", { kind: "body", body: "<html>bad gateway</html>", status: 502, act: false }, { id: receipt.id });
    const res = await payUpstream(receipt.id);
    expect(res.status).toBe(502);
    expect(await res.text()).toBe("<html>bad gateway</html>");
    expect(await paysLogged(receipt.id)).toEqual([]);
  });

  it("through the gateway: an unreadable 200 is an error, not a state, while the sandbox paid", async () => {
    const receipt = await payable();
    scriptedUpstream.on("receipt/pay", { kind: "body", body: '{"id":"' }, { id: receipt.id });
    const res = await pay(receipt.id);
    expect(res.ok).toBe(false);
    expect((await sandboxReceipt(receipt.id)).state).toBe(4);
    expect(scriptedUpstream.fired()).toEqual({ body: 1 });
  });
});

describe("late", () => {
  it("lets the sandbox act at once and answers its real response after ms", async () => {
    const receipt = await payable();
    scriptedUpstream.on("receipt/pay", { kind: "late", ms: 600 }, { id: receipt.id });
    const started = Date.now();
    const answer = payUpstream(receipt.id);
    await expect.poll(async () => (await sandboxReceipt(receipt.id)).state, { timeout: 500, interval: 20 }).toBe(4);
    const res = await answer;
    expect(Date.now() - started).toBeGreaterThanOrEqual(590);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: receipt.id, state: 4 });
  });
});

describe("timeout", () => {
  it("acts, then never answers: the caller's own deadline ends the call", async () => {
    const receipt = await payable();
    scriptedUpstream.on("receipt/pay", { kind: "timeout" }, { id: receipt.id });
    await expect(payUpstream(receipt.id, { signal: AbortSignal.timeout(300) })).rejects.toThrow();
    expect((await sandboxReceipt(receipt.id)).state).toBe(4);
  });

  it("with act: false, never reaches the sandbox", async () => {
    const receipt = await payable();
    scriptedUpstream.on("receipt/pay", { kind: "timeout", act: false }, { id: receipt.id });
    await expect(payUpstream(receipt.id, { signal: AbortSignal.timeout(300) })).rejects.toThrow();
    expect(await paysLogged(receipt.id)).toEqual([]);
    expect((await sandboxReceipt(receipt.id)).state).toBe(0);
  });

  it("through the gateway: answered as an error after UPSTREAM_TIMEOUT_MS (2000 in tests), the receipt paid upstream", async () => {
    const receipt = await payable();
    scriptedUpstream.on("receipt/pay", { kind: "timeout" }, { id: receipt.id });
    const started = Date.now();
    const res = await pay(receipt.id);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    expect(res.ok).toBe(false);
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect((await sandboxReceipt(receipt.id)).state).toBe(4);
    expect(scriptedUpstream.fired()).toEqual({ timeout: 1 });
  }, 15_000);
});

describe("hold", () => {
  it("lets a test look at the sandbox while the gateway's pay is in flight, then release the real answer", async () => {
    const receipt = await payable();
    const held = scriptedUpstream.hold("receipt/pay", { id: receipt.id });
    const answer = pay(receipt.id);
    await held.arrived;
    expect((await sandboxReceipt(receipt.id)).state).toBe(4);
    expect(await settledYet(answer)).toBe(false);
    held.release();
    const res = await answer;
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: receipt.id, state: 4 });
    expect(scriptedUpstream.fired()).toEqual({ hold: 1 });
  });

  it("with act: false, the sandbox acts only on release", async () => {
    const receipt = await payable();
    const held = scriptedUpstream.hold("receipt/pay", { id: receipt.id, act: false });
    const answer = pay(receipt.id);
    await held.arrived;
    expect((await sandboxReceipt(receipt.id)).state).toBe(0);
    expect(await paysLogged(receipt.id)).toEqual([]);
    held.release();
    expect((await answer).status).toBe(200);
    expect((await sandboxReceipt(receipt.id)).state).toBe(4);
  });

  it("a release before the request arrives lets it through unheld", async () => {
    const receipt = await payable();
    const held = scriptedUpstream.hold("receipt/pay", { id: receipt.id });
    held.release();
    expect((await payUpstream(receipt.id)).status).toBe(200);
    await held.arrived;
  });

  it("reset() releases every held request", async () => {
    const receipt = await payable();
    const held = scriptedUpstream.hold("receipt/pay", { id: receipt.id });
    const answer = payUpstream(receipt.id);
    await held.arrived;
    scriptedUpstream.reset();
    expect((await answer).status).toBe(200);
  });
});

describe("defer", () => {
  it("keeps the request without acting and breaks the connection; forwardDeferred makes the sandbox act on it later", async () => {
    const receipt = await payable();
    scriptedUpstream.on("receipt/pay", { kind: "defer" }, { id: receipt.id });
    const res = await pay(receipt.id);
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(scriptedUpstream.firedOn()).toEqual([{ path: "receipt/pay", kind: "defer" }]);
    expect(await paysLogged(receipt.id)).toEqual([]);
    const [kept, ...more] = scriptedUpstream.takeDeferred();
    expect(more).toEqual([]);
    expect(kept!.requestId).toBe(res.headers.get("x-request-id"));
    // Later, the upstream acts on the call the gateway gave up on: it pays, under the gateway's request id.
    expect(await forwardDeferred(env.UPSTREAM!, kept!)).toBe(200);
    expect((await sandboxReceipt(receipt.id)).state).toBe(4);
    expect((await paysLogged(receipt.id)).map((c) => (c as any).request_id)).toEqual([kept!.requestId]);
    expect(scriptedUpstream.takeDeferred()).toEqual([]);
  });

  it("with hang, answers nobody until the caller gives up; deferredArrived tells when it was kept", async () => {
    const receipt = await payable();
    scriptedUpstream.on("receipt/pay", { kind: "defer", hang: true }, { id: receipt.id });
    const answer = payUpstream(receipt.id);
    await scriptedUpstream.deferredArrived();
    expect(await settledYet(answer)).toBe(false);
    scriptedUpstream.reset();
    expect((await answer).status).toBe(504);
    expect((await sandboxReceipt(receipt.id)).state).toBe(0);
    expect(scriptedUpstream.takeDeferred()).toHaveLength(1);
  });
});
