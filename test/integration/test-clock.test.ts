// Test clocks and triggers (the sandbox only): one receipt's or transfer's own
// time moves forward, for the gateway's record and the sandbox's receipt
// alike, and what would have happened meanwhile runs at once, through the
// record's own alarm and the sandbox's own deadlines; every other record's
// time stays. A trigger makes the upstream act now, and the gateway finds it
// by reading. Driven through the Worker, as an app team's tester drives it.
import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { receiptStub } from "../../src/record/receipt-object";
import { consume, loggedEventTypes, queueSpy, type Received, receiver, unsentEvents } from "../events";
import {
  call,
  createReceipt,
  expectError,
  expectStatus,
  OTP_OK,
  productionEnv,
  sandboxCalls,
  sandboxReceipt,
  sandboxTransfer,
  transferRequest,
} from "../helpers";

const TOKEN = { token: "tok_sandbox_ok" };

const post = (path: string, body: unknown) =>
  exports.default.fetch(`http://gateway.test/__sandbox/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
const advance = (id: string, by: string, kind = "receipts") => expectStatus(post(`${kind}/${id}/advance`, { by }), 200);
const trigger = (id: string, what: string) => expectStatus(post(`receipts/${id}/trigger`, { what }), 200);

/** Every message the gateway sends to the events queue, for the test to deliver (tests consume the queue themselves). */
let queue: ReturnType<typeof queueSpy>;
beforeEach(() => {
  queue = queueSpy();
});
afterEach(() => vi.restoreAllMocks());

/** What the partner's webhook receiver gets of the record's events, once the queue's messages are consumed. */
async function delivered(id: string): Promise<any[]> {
  const received: Received[] = receiver();
  await consume(queue.sent.splice(0).map((body) => ({ body })));
  return received.map((d) => JSON.parse(d.body)).filter((event) => (event.data.object.receipt_id ?? event.data.object.id) === id);
}

/** The gateway's reads of the receipt (check-id calls the sandbox received). */
const reads = async (id: string) => (await sandboxCalls()).filter((c) => c.id === id && c.path === "receipt/check-id").length;

describe("POST /__sandbox/receipts/{id}/advance", () => {
  it("25 hours: the unpaid receipt expires (receipt.cancelled, reason expired, delivered); one created at the same moment is untouched", async () => {
    const advanced = await createReceipt({ merchant_id: 1003 });
    const other = await createReceipt({ merchant_id: 1003 });
    const answer = await advance(advanced.id, "25h");
    expect(answer).toMatchObject({ id: advanced.id, kind: "receipt", by_ms: 25 * 3_600_000, ended: false });
    // The answer says what ran: the record's alarm at its expiry, which cancelled it.
    expect(answer.steps).toContainEqual(expect.objectContaining({ by: "gateway", state: 21, events: ["receipt.cancelled"] }));
    expect(await sandboxReceipt(advanced.id)).toMatchObject({ state: 21, cancelled_by: env.GATEWAY_CANCELLED_BY });
    const events = await delivered(advanced.id);
    expect(events.map((e) => [e.type, e.data.reason ?? null])).toEqual([
      ["receipt.created", null],
      ["receipt.cancelled", "expired"],
    ]);
    await expectError(call("receipt/pay", { id: advanced.id, card: TOKEN }), 409, "receipt_expired");

    expect((await sandboxReceipt(other.id)).state).toBe(0);
    expect((await expectStatus(call("receipt/pay", { id: other.id, card: TOKEN }), 200)).state).toBe(4);
  });

  it("23 hours is not yet the expiry: nothing is cancelled, and the next 2 hours are", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await advance(receipt.id, "23h");
    expect((await sandboxReceipt(receipt.id)).state).toBe(0);
    expect((await expectStatus(call("receipt/check-id", { id: receipt.id }), 200)).state).toBe(0);
    await advance(receipt.id, "2h");
    expect((await sandboxReceipt(receipt.id)).state).toBe(21);
  });

  it("8 days: a held receipt's hold lapses (receipt.cancelled, reason hold_expired, delivered)", async () => {
    const receipt = await createReceipt({ merchant_id: 1003, is_hold: true });
    expect((await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }), 200)).state).toBe(5);
    await advance(receipt.id, "8d");
    expect(await sandboxReceipt(receipt.id)).toMatchObject({ state: 21, hold_status: "released", cancelled_by: env.GATEWAY_CANCELLED_BY });
    const cancelled = (await delivered(receipt.id)).filter((e) => e.type === "receipt.cancelled");
    expect(cancelled.map((e) => e.data)).toMatchObject([{ reason: "hold_expired", previous_state: 5, object: { state: 21 } }]);
  });

  it("10 minutes after authorize: the OTP's lifetime is over, and the right OTP is refused otp_expired", async () => {
    const receipt = await createReceipt({ merchant_id: 1001 });
    await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 200);
    const answer = await advance(receipt.id, "10m");
    expect(answer.steps).toContainEqual(expect.objectContaining({ by: "upstream", what: "otp_expired" }));
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_OK }), 409, "otp_expired");
  });

  it("a pay whose answer was lost: advanced past its late reads, the gateway finds the late pay (receipt.paid delivered)", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await expectError(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_pays_late" } }), 504, "upstream_timeout");
    const answer = await advance(receipt.id, "25h");
    const paidLate = answer.steps.findIndex((s: any) => s.what === "paid_late");
    const found = answer.steps.findIndex((s: any) => s.events?.includes("receipt.paid"));
    // In order: the upstream paid, then one of the gateway's late reads found it.
    expect(paidLate).toBeGreaterThanOrEqual(0);
    expect(found).toBeGreaterThan(paidLate);
    expect((await sandboxReceipt(receipt.id)).state).toBe(4);
    expect((await delivered(receipt.id)).map((e) => e.type)).toEqual(["receipt.created", "receipt.paid"]);
    // Found by reading, never cancelled as expired.
    expect((await sandboxCalls()).filter((c) => c.id === receipt.id && c.path === "receipt/cancel")).toEqual([]);
  });

  it("the supplier's answer comes in the receipt's own time: a 57 receipt advanced 1 minute is paid", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    expect((await expectStatus(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_supplier_pending" } }), 200)).state).toBe(57);
    const answer = await advance(receipt.id, "11m");
    expect(answer.steps).toContainEqual(expect.objectContaining({ by: "upstream", what: "supplier_confirmed" }));
    expect((await expectStatus(call("receipt/check-id", { id: receipt.id }), 200)).state).toBe(4);
  });

  it("31 days: a final record ends (rule 10); the user's check-id then answers 404", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    expect((await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }), 200)).state).toBe(4);
    await advance(receipt.id, "1m");
    expect((await delivered(receipt.id)).map((e) => e.type)).toEqual(["receipt.created", "receipt.paid"]);
    const answer = await advance(receipt.id, "31d");
    expect(answer).toMatchObject({ ended: true, now: null });
    expect(answer.steps.at(-1)).toMatchObject({ by: "gateway", what: "ended" });
    const stored = await runInDurableObject(receiptStub(env, "receipt", receipt.id), (_i, state) =>
      state.storage.sql.exec("SELECT name FROM sqlite_master WHERE name = 'record'").toArray(),
    );
    expect(stored).toEqual([]);
  });

  it("29 days is not yet its end", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    expect((await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }), 200)).state).toBe(4);
    await advance(receipt.id, "1m");
    await delivered(receipt.id);
    expect(await advance(receipt.id, "29d")).toMatchObject({ ended: false });
    expect((await expectStatus(call("receipt/check-id", { id: receipt.id }), 200)).state).toBe(4);
  });

  it("/__sandbox/a2c/{id}/advance: an unpaid transfer past its window is closed at the edge", async () => {
    const transfer = await expectStatus(call("a2c/create", transferRequest()), 200);
    await advance(transfer.receipt_id, "25h", "a2c");
    const closed = (await delivered(transfer.receipt_id)).filter((e) => e.type === "transfer.expired");
    expect(closed.map((e) => e.data)).toMatchObject([{ reason: "expired", closed_at_edge: true }]);
    expect((await sandboxTransfer(transfer.receipt_id)).state).toBe(0);
  });

  it("bad input is 400 invalid_request and moves nothing; an unknown id is 404", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    for (const by of ["25", "0h", "-1h", "1.5h", "25H", "1w", " 25h", "401d", 25, null]) {
      await expectError(post(`receipts/${receipt.id}/advance`, { by }), 400, "invalid_request");
    }
    await expectError(post(`receipts/${receipt.id}/advance`, {}), 400, "invalid_request");
    await expectError(post(`receipts/${receipt.id}/advance`, { by: "25h", extra: 1 }), 400, "invalid_request");
    await expectError(post(`receipts/${receipt.id}/advance`, "{"), 400, "invalid_json");
    await expectError(post(`receipts/${"f".repeat(24)}/advance`, { by: "25h" }), 404, "receipt_not_found");
    // The longest advance: a paid receipt whose events were delivered runs to its end (rule 10) on the way.
    expect((await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }), 200)).state).toBe(4);
    await advance(receipt.id, "1m");
    await delivered(receipt.id);
    expect(await advance(receipt.id, "400d")).toMatchObject({ by_ms: 400 * 86_400_000, ended: true });
    const fresh = await createReceipt({ merchant_id: 1003 });
    await advance(fresh.id, "90s");
    expect((await sandboxReceipt(fresh.id)).state).toBe(0);
  });
});

describe("POST /__sandbox/receipts/{id}/trigger", () => {
  it("fiscal_data_appears: the gateway finds it at its next scheduled read (advanced to it), receipt.fiscalized delivered", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    const paid = await expectStatus(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_fiscal_late" } }), 200);
    expect(paid.ofd.fiscalSign).toBeFalsy();
    await trigger(receipt.id, "fiscal_data_appears");
    // The gateway is not told: until its read, it shows the data missing.
    const before = await reads(receipt.id);
    expect((await delivered(receipt.id)).map((e) => e.type)).toEqual(["receipt.created", "receipt.paid"]);
    await advance(receipt.id, "5m");
    expect(await reads(receipt.id)).toBeGreaterThan(before);
    const fiscalized = (await delivered(receipt.id)).filter((e) => e.type === "receipt.fiscalized");
    expect(fiscalized).toHaveLength(1);
    expect(fiscalized[0].data.object.ofd.fiscalSign).toMatch(/^\d{12}$/);
  });

  it("refund_fiscal_data_appears: a cancelled fiscal-late payment's refund is fiscalized at the next read", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_fiscal_late" } }), 200);
    await trigger(receipt.id, "fiscal_data_appears");
    await expectError(post(`receipts/${receipt.id}/trigger`, { what: "refund_fiscal_data_appears" }), 400, "invalid_request");
    await advance(receipt.id, "5m");
    expect((await expectStatus(call("receipt/cancel", { id: receipt.id }), 200)).state).toBe(21);
    await trigger(receipt.id, "refund_fiscal_data_appears");
    await advance(receipt.id, "5m");
    expect((await delivered(receipt.id)).map((e) => e.type)).toContain("receipt.refund_fiscalized");
  });

  it("pay_late: the lost pay lands now, and the gateway's next look finds it", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await expectError(post(`receipts/${receipt.id}/trigger`, { what: "pay_late" }), 400, "invalid_request");
    await expectError(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_pays_late" } }), 504, "upstream_timeout");
    expect(await trigger(receipt.id, "pay_late")).toMatchObject({ id: receipt.id, what: "pay_late", state: 4 });
    expect((await expectStatus(call("receipt/check-id", { id: receipt.id }), 200)).state).toBe(4);
    expect(await loggedEventTypes("receipt", receipt.id)).toEqual(["receipt.created", "receipt.paid"]);
  });

  it("supplier_confirms and supplier_fails: a receipt in 57 is paid, or cancelled and refunded, whatever its card said", async () => {
    const confirmed = await createReceipt({ merchant_id: 1003 });
    const failed = await createReceipt({ merchant_id: 1003 });
    await expectError(post(`receipts/${confirmed.id}/trigger`, { what: "supplier_confirms" }), 400, "invalid_request");
    await expectStatus(call("receipt/pay", { id: confirmed.id, card: { token: "tok_sandbox_supplier_fails" } }), 200);
    await expectStatus(call("receipt/pay", { id: failed.id, card: { token: "tok_sandbox_supplier_pending" } }), 200);
    expect(await trigger(confirmed.id, "supplier_confirms")).toMatchObject({ state: 4 });
    expect(await trigger(failed.id, "supplier_fails")).toMatchObject({ state: 21 });
    expect((await expectStatus(call("receipt/check-id", { id: confirmed.id }), 200)).state).toBe(4);
    expect((await expectStatus(call("receipt/check-id", { id: failed.id }), 200)).state).toBe(21);
  });

  it("an unknown trigger is 400 invalid_request; an unknown receipt 404", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    for (const what of ["pay", "", null, 1]) await expectError(post(`receipts/${receipt.id}/trigger`, { what }), 400, "invalid_request");
    await expectError(post(`receipts/${"f".repeat(24)}/trigger`, { what: "pay_late" }), 404, "receipt_not_found");
    expect(await unsentEvents("receipt", receipt.id)).toBeGreaterThanOrEqual(0);
  });
});

describe("production", () => {
  it("has none of the routes: the production entry answers 404 not_found", async () => {
    const worker = (await import("../../src/index")).default;
    const deployment = await productionEnv();
    const receipt = await createReceipt({ merchant_id: 1003 });
    for (const [path, body] of [
      [`receipts/${receipt.id}/advance`, { by: "25h" }],
      [`a2c/${receipt.id}/advance`, { by: "25h" }],
      [`receipts/${receipt.id}/trigger`, { what: "pay_late" }],
    ] as const) {
      const request = new Request(`http://gateway.test/__sandbox/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      await expectError(worker.fetch!(request as any, deployment, { waitUntil() {}, passThroughOnException() {} } as any), 404, "not_found");
    }
    expect((await sandboxReceipt(receipt.id)).state).toBe(0);
  });
});
