import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { claimTid, completeTid, expireTid, fingerprint, leaseExpired, leaseMs, releaseTid, upstreamTidFor } from "../../src/tids/tid-index";
import {
  call,
  expectError,
  expectStatus,
  newTid,
  receiptRequest,
  sandboxCalls,
  sandboxReceipt,
  sandboxTransfer,
  tidDb,
  tidRow,
  transferRequest,
} from "../helpers";
import { scriptedUpstream } from "../support/scripted-upstream";

const createCalls = async (tid: string) => (await sandboxCalls()).filter((c) => c.path === "receipt/create" && c.tid === tid).length;

describe("tid uniqueness", () => {
  it("an identical retry replays the original receipt with Idempotent-Replayed and creates nothing upstream", async () => {
    const request = receiptRequest();
    const first = await call("receipt/create", request);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const original = await expectStatus(first, 200);

    const retry = await call("receipt/create", request);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await expectStatus(retry, 200)).toEqual(original);
    expect(await createCalls(request.tid)).toBe(1);
  });

  it("a different body with the same tid is tid_conflict", async () => {
    const request = receiptRequest();
    await expectStatus(call("receipt/create", request), 200);
    const error = await expectError(call("receipt/create", { ...request, amount: request.amount + 100 }), 409, "tid_conflict");
    expect(Object.keys(error).sort()).toEqual(["code", "message", "request_id", "user_message"]);
    expect(await createCalls(request.tid)).toBe(1);
  });

  it("the defaults count as sent: omitting currency and is_hold replays a create that sent them", async () => {
    const request = receiptRequest();
    await expectStatus(call("receipt/create", { ...request, currency: 860, is_hold: false }), 200);
    const retry = await call("receipt/create", request);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
  });

  it("20 concurrent creates with one tid: one receipt upstream; while the first is in flight every other is tid_in_progress, after it a replay", async () => {
    const request = receiptRequest();
    // The first create is held at the upstream (it has created the receipt) until the other 19 have been answered.
    const held = scriptedUpstream.hold("receipt/create", { act: true });
    const first = call("receipt/create", request);
    await held.arrived;
    const others = await Promise.all(Array.from({ length: 19 }, () => call("receipt/create", request)));
    for (const res of others) {
      const retryAfter = res.headers.get("retry-after");
      await expectError(res, 409, "tid_in_progress");
      expect(Number(retryAfter)).toBeGreaterThan(0);
    }
    held.release();
    const original = await first;
    expect(original.headers.get("idempotent-replayed")).toBeNull();
    const receiptId = (await expectStatus(original, 200)).id;

    const retry = await call("receipt/create", request);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect((await expectStatus(retry, 200)).id).toBe(receiptId);
    expect(await createCalls(request.tid)).toBe(1);
    const row = await tidRow(PARTNER, request.tid);
    expect(row).toMatchObject({ status: "completed", receipt_id: receiptId });
  });

  it("a lost create's retry never adopts a receipt the upstream holds under the tid for another amount", async () => {
    const tid = newTid();
    // The upstream already holds a receipt under this tid, of another amount (made around the gateway).
    const theirs = await upstreamCreate({ ...receiptRequest({ tid, amount: 120_000 }), is_hold: false, currency: 860 });
    // Our create of 150 000 never reaches it (its outcome unknown: the gateway gave up waiting)...
    const request = receiptRequest({ tid, amount: 150_000 });
    scriptedUpstream.on("receipt/create", { kind: "timeout", act: false });
    await expectError(call("receipt/create", request), 504, "upstream_timeout");
    // ...so the identical retry takes the claim over, and the upstream answers TID_DUPLICATE with its own receipt.
    await expectError(call("receipt/create", request), 409, "tid_conflict");
    expect((await sandboxReceipt(theirs.id)).amount).toBe(120_000);
    const creates = (await sandboxCalls()).filter((c) => c.path === "receipt/create" && c.tid === tid);
    expect(creates.map((c) => [c.status, c.code])).toEqual([
      [200, null],
      [409, "TID_DUPLICATE"],
    ]);
    await expectError(call("receipt/check-tid", { tid }), 404, "receipt_not_found");
  });

  it("a create the upstream refused frees its tid for a corrected request", async () => {
    const tid = newTid();
    await expectError(call("receipt/create", receiptRequest({ tid, merchant_id: 9999 })), 400, "invalid_request");
    const created = await expectStatus(call("receipt/create", receiptRequest({ tid })), 200);
    expect(created.tid).toBe(tid);
  });

  it("keeps the request only as a fingerprint keyed with TID_SECRET, not the upstream credential", async () => {
    const request = receiptRequest();
    await expectStatus(call("receipt/create", request), 200);
    const row = await tidRow(PARTNER, request.tid);
    const validated = { kind: "receipt", request: { ...request, is_hold: false, currency: 860 } };
    expect(row?.fingerprint).toBe(await fingerprint(env.TID_SECRET, validated));
    expect(row?.fingerprint).not.toBe(await fingerprint(env.UPSTREAM_API_KEY, validated));
    expect(Object.keys(row ?? {}).sort()).toEqual(
      ["claim_token", "created_at", "fingerprint", "kind", "owner", "receipt_id", "status", "tid", "upstream_tid", "updated_at"].sort(),
    );
  });

  it("a create that reached the upstream but whose answer was lost is adopted by an identical retry", async () => {
    const request = { ...receiptRequest({ merchant_id: 1003 }), is_hold: false, currency: 860 };
    // The earlier attempt: the upstream created the receipt...
    const lost = await upstreamCreate(request);
    // ...and the gateway kept only its claim, then learnt the outcome was unknown.
    const claim = await claimTid(await tidDb(PARTNER, request.tid), await claimRequest(request));
    if (claim.kind !== "claimed") throw new Error(claim.kind);
    await expireTid(await tidDb(PARTNER, request.tid), { owner: PARTNER, tid: request.tid, token: claim.token });

    const adopted = await expectStatus(call("receipt/create", request), 200);
    expect(adopted.id).toBe(lost.id);
    const paid = await expectStatus(call("receipt/pay", { id: adopted.id, card: { token: "tok_sandbox_ok" } }), 200);
    expect(paid.state).toBe(4);
    const replay = await call("receipt/create", request);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
  });

  it("a pending claim of another request is a conflict, and of the same one tid_in_progress with Retry-After", async () => {
    const request = { ...receiptRequest(), is_hold: false, currency: 860 };
    expect((await claimTid(await tidDb(PARTNER, request.tid), await claimRequest(request))).kind).toBe("claimed");
    const res = await call("receipt/create", request);
    await expectError(res.clone(), 409, "tid_in_progress");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    await expectError(call("receipt/check-tid", { tid: request.tid }), 409, "tid_in_progress");
    await expectError(call("receipt/create", { ...request, amount: 999_999 }), 409, "tid_conflict");
    expect(await createCalls(request.tid)).toBe(0);
  });

  it("a create whose claim outlived its lease: check-tid answers 404 saying so, never an endless tid_in_progress", async () => {
    const request = { ...receiptRequest(), is_hold: false, currency: 860 };
    // A create that died mid-flight (the gateway restarted) left its claim, one lease ago.
    const lease = leaseMs(Number(env.UPSTREAM_TIMEOUT_MS));
    expect(lease).toBeLessThanOrEqual(5 * 60_000);
    const claim = await claimTid(await tidDb(PARTNER, request.tid), await claimRequest(request), Date.now() - lease - 1);
    expect(claim.kind).toBe("claimed");
    const error = await expectError(call("receipt/check-tid", { tid: request.tid }), 404, "receipt_not_found");
    expect(error.message).toMatch(/did not finish.*Retry that create with the same body/);
    // The identical retry takes the claim over and creates it.
    const created = await expectStatus(call("receipt/create", request), 200);
    expect((await expectStatus(call("receipt/check-tid", { tid: request.tid }), 200)).id).toBe(created.id);
    expect(await createCalls(request.tid)).toBe(1);
  });
});

describe("a lost transfer create's retry adopts the upstream's transfer only if it is the one asked for: same amount and same receiver card", () => {
  /**
   * The upstream already holds a transfer under the tid, made from `theirs`
   * (around the gateway). The gateway's a2c/create of `ours` meets a 502
   * before the upstream acted (its outcome unknown), so the identical retry
   * takes the claim over and the upstream answers TID_DUPLICATE with its transfer.
   */
  async function retryMeeting(theirs: ReturnType<typeof transferRequest>, ours: ReturnType<typeof transferRequest>) {
    const held = await upstreamCreate(theirs, "a2c/create");
    scriptedUpstream.on("a2c/create", { kind: "status", status: 502, act: false });
    await expectError(call("a2c/create", ours), 502, "upstream_error");
    const retry = await call("a2c/create", ours);
    const creates = (await sandboxCalls()).filter((c) => c.path === "a2c/create" && c.tid === ours.tid);
    expect(creates.map((c) => [c.status, c.code])).toEqual([
      [200, null],
      [409, "TID_DUPLICATE"],
    ]);
    return { held, retry };
  }

  it("another amount under the tid: not adopted, tid_conflict, and the upstream's transfer is left as it was", async () => {
    const ours = transferRequest();
    const { held, retry } = await retryMeeting({ ...ours, amount: 400_000 }, ours);
    await expectError(retry, 409, "tid_conflict");
    expect(await sandboxTransfer(held.receipt_id)).toMatchObject({ state: 0, receiver: { amount: 400_000 } });
    await expectError(call("a2c/get-by-id", { id: held.receipt_id }), 404, "receipt_not_found");
  });

  it("another receiver card under the tid: not adopted, tid_conflict, though the amount is the same", async () => {
    const ours = transferRequest({ receiver_card: "9860000000000018" });
    const { held, retry } = await retryMeeting({ ...ours, receiver_card: "8600000000000007" }, ours);
    expect(held.receiver).toMatchObject({ masked_pan: "860000******0007", amount: ours.amount });
    await expectError(retry, 409, "tid_conflict");
    await expectError(call("a2c/get-by-id", { id: held.receipt_id }), 404, "receipt_not_found");
  });

  it("the very transfer asked for (amount and receiver card): adopted, replayed after, and payable once", async () => {
    const ours = transferRequest();
    const { held, retry } = await retryMeeting(ours, ours);
    const adopted = await expectStatus(retry, 200);
    expect(adopted).toMatchObject({ receipt_id: held.receipt_id, tid: ours.tid, receiver: { masked_pan: "986000******0018", amount: ours.amount } });
    const replay = await call("a2c/create", ours);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect((await expectStatus(replay, 200)).receipt_id).toBe(held.receipt_id);
    expect((await expectStatus(call("a2c/pay", { id: held.receipt_id }), 200)).state).toBe(4);
    expect((await sandboxCalls()).filter((c) => c.path === "a2c/create" && c.tid === ours.tid)).toHaveLength(2);
  });
});

const PARTNER = "partner:partner";
/** Another request's fingerprint: 32 hex digits, as every fingerprint is. */
const ANOTHER = "ab".repeat(16);

/** A create sent straight to the upstream, around the gateway. */
async function upstreamCreate(request: unknown, path = "receipt/create"): Promise<any> {
  const res = await env.UPSTREAM!.fetch(`https://sandbox.upstream.invalid/api/v1/partner/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${env.UPSTREAM_API_KEY}` },
    body: JSON.stringify(request),
  });
  return expectStatus(res, 200);
}

async function claimRequest(request: { tid: string }, owner = PARTNER) {
  return {
    owner,
    tid: request.tid,
    upstreamTid: await upstreamTidFor(env.TID_SECRET, owner, request.tid),
    kind: "receipt" as const,
    fingerprint: await fingerprint(env.TID_SECRET, { kind: "receipt", request }),
    leaseMs: 30_000,
  };
}

describe("the tid index, called directly", () => {
  it("claim, then a racing claim is in progress, completion replays, a changed body conflicts", async () => {
    const request = { tid: newTid("unit") };
    const first = await claimTid(await tidDb(PARTNER, request.tid), await claimRequest(request));
    if (first.kind !== "claimed") throw new Error(first.kind);
    expect(first.takeover).toBe(false);
    expect(await claimTid(await tidDb(PARTNER, request.tid), await claimRequest(request))).toMatchObject({ kind: "in_progress" });
    await completeTid(await tidDb(PARTNER, request.tid), { owner: PARTNER, tid: request.tid, token: first.token }, "r-1");
    const replay = await claimTid(await tidDb(PARTNER, request.tid), await claimRequest(request));
    expect(replay).toMatchObject({ kind: "replay", row: { receipt_id: "r-1", status: "completed", claim_token: null } });
    expect(await claimTid(await tidDb(PARTNER, request.tid), { ...(await claimRequest(request)), fingerprint: ANOTHER })).toMatchObject({
      kind: "conflict",
      row: { receipt_id: "r-1" },
    });
  });

  it("a claim is taken over only after its lease, and only by the same request", async () => {
    const request = { tid: newTid("unit") };
    const t0 = Date.now();
    const first = await claimTid(await tidDb(PARTNER, request.tid), await claimRequest(request), t0);
    if (first.kind !== "claimed") throw new Error(first.kind);
    const justInside = await claimTid(await tidDb(PARTNER, request.tid), await claimRequest(request), t0 + 30_000 - 1);
    expect(justInside).toEqual({ kind: "in_progress", retryAfterSeconds: 1 });
    expect(await claimTid(await tidDb(PARTNER, request.tid), { ...(await claimRequest(request)), fingerprint: ANOTHER }, t0 + 30_000)).toMatchObject({
      kind: "conflict",
      row: { status: "pending" },
    });
    const after = await claimTid(await tidDb(PARTNER, request.tid), await claimRequest(request), t0 + 30_000);
    expect(after).toMatchObject({ kind: "claimed", takeover: true });
    // The first claimant's token no longer completes anything.
    await completeTid(await tidDb(PARTNER, request.tid), { owner: PARTNER, tid: request.tid, token: first.token }, "stale");
    expect((await tidRow(PARTNER, request.tid))?.status).toBe("pending");
  });

  it("release frees a tid; expire keeps it but ends its lease at once", async () => {
    const released = { tid: newTid("unit") };
    const a = await claimTid(await tidDb(PARTNER, released.tid), await claimRequest(released));
    if (a.kind !== "claimed") throw new Error(a.kind);
    await releaseTid(await tidDb(PARTNER, released.tid), { owner: PARTNER, tid: released.tid, token: a.token });
    expect(await tidRow(PARTNER, released.tid)).toBeNull();

    const expired = { tid: newTid("unit") };
    const b = await claimTid(await tidDb(PARTNER, expired.tid), await claimRequest(expired));
    if (b.kind !== "claimed") throw new Error(b.kind);
    await expireTid(await tidDb(PARTNER, expired.tid), { owner: PARTNER, tid: expired.tid, token: b.token });
    const row = await tidRow(PARTNER, expired.tid);
    expect(row && leaseExpired(row, 30_000, Date.now())).toBe(true);
  });

  it("the same tid in two spaces is two claims; a user's upstream tid is a UUID nobody else derives", async () => {
    const tid = newTid("unit");
    const alice = await upstreamTidFor(env.TID_SECRET, "user:alice", tid);
    expect(alice).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(await upstreamTidFor(env.TID_SECRET, "user:alice", tid)).toBe(alice);
    expect(await upstreamTidFor(env.TID_SECRET, "user:bob", tid)).not.toBe(alice);
    expect(await upstreamTidFor("another-deployment-secret-0123456789", "user:alice", tid)).not.toBe(alice);
    expect(await upstreamTidFor(env.TID_SECRET, PARTNER, tid)).toBe(tid);
    for (const owner of [PARTNER, "user:alice", "user:bob"]) {
      expect((await claimTid(await tidDb(owner, tid), await claimRequest({ tid }, owner))).kind).toBe("claimed");
    }
  });
});
