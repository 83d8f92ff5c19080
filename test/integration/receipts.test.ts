import { describe, expect, it } from "vitest";
import { call, createReceipt, expectError, expectStatus, OTP_OK, receiptRequest, sandboxCalls, sandboxReceipt } from "../helpers";

const TOKEN = { token: "tok_sandbox_ok" };

describe("a receipt paid through the gateway", () => {
  it("create, authorize, pay with the OTP and check-id: state 4 with fiscal data", async () => {
    const created = await createReceipt({ merchant_id: 1001, amount: 150_000 });
    expect(created).toMatchObject({ state: 0, is_verify: true, amount: 150_000, currency: 860, pay_date: 0, cancel_date: 0 });
    expect(created.merchant).toMatchObject({ merchant_id: 1001, merchant_name: "Sandbox Mobile" });

    const sent = await expectStatus(call("receipt/authorize", { id: created.id, card: TOKEN }), 200);
    expect(sent).toMatchObject({ id: created.id, sent: true });
    expect(sent.phone).toMatch(/\*/);
    expect(sent.wait).toBeGreaterThan(0);

    const paid = await expectStatus(call("receipt/pay", { id: created.id, card: TOKEN, otp: OTP_OK }), 200);
    expect(paid.state).toBe(4);
    expect(paid.ofd).toMatchObject({ type: "Sale" });
    expect(paid.card_number).toMatch(/^\d{6}\*+\d{4}$/);

    const checked = await expectStatus(call("receipt/check-id", { id: created.id }), 200);
    expect(checked).toMatchObject({ id: created.id, tid: created.tid, state: 4 });
    expect(checked.ofd.fiscalSign).toBeTruthy();
  });

  it("normalizes the upstream's spellings: commission, never comission; timestamps in milliseconds", async () => {
    const created = await createReceipt({ merchant_id: 1003 });
    const paid = await expectStatus(call("receipt/pay", { id: created.id, card: TOKEN }), 200);
    for (const receipt of [created, paid]) {
      expect(receipt).toHaveProperty("commission");
      expect(receipt).not.toHaveProperty("comission");
    }
    // The sandbox sends pay_date in seconds (10 digits), create_date in milliseconds.
    expect(String(paid.create_date)).toHaveLength(13);
    expect(String(paid.pay_date)).toHaveLength(13);
    expect(Math.abs(paid.pay_date - Date.now())).toBeLessThan(10 * 60_000);
  });

  it("pays without an OTP when the merchant does not verify (1003)", async () => {
    const created = await createReceipt({ merchant_id: 1003 });
    expect(created.is_verify).toBe(false);
    const paid = await expectStatus(call("receipt/pay", { id: created.id, card: TOKEN }), 200);
    expect(paid.state).toBe(4);
  });

  it("refuses pay without an OTP when the receipt verifies, and sends nothing upstream", async () => {
    const created = await createReceipt({ merchant_id: 1001 });
    await expectError(call("receipt/pay", { id: created.id, card: TOKEN }), 400, "otp_required");
    expect((await sandboxReceipt(created.id)).otp_attempts).toBe(0);
    expect((await sandboxReceipt(created.id)).state).toBe(0);
  });

  it("holds, then confirms: state 5, then 4 with fiscal data", async () => {
    const created = await createReceipt({ merchant_id: 1003, is_hold: true });
    const held = await expectStatus(call("receipt/pay", { id: created.id, card: TOKEN }), 200);
    expect(held.state).toBe(5);
    const confirmed = await expectStatus(call("receipt/hold-confirm", { id: created.id }), 200);
    expect(confirmed.state).toBe(4);
    expect(confirmed.ofd).toMatchObject({ type: "Sale" });
    expect((await sandboxReceipt(created.id)).state).toBe(4);
  });

  it("refuses hold-confirm of a receipt created without hold", async () => {
    const created = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/pay", { id: created.id, card: TOKEN }), 200);
    await expectError(call("receipt/hold-confirm", { id: created.id }), 409, "receipt_not_held");
    expect((await sandboxReceipt(created.id)).state).toBe(4);
  });

  it("refuses hold-confirm of a hold receipt that holds nothing yet", async () => {
    const created = await createReceipt({ merchant_id: 1003, is_hold: true });
    await expectError(call("receipt/hold-confirm", { id: created.id }), 409, "receipt_not_held");
  });

  it("never pays a receipt twice", async () => {
    const created = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/pay", { id: created.id, card: TOKEN }), 200);
    await expectError(call("receipt/pay", { id: created.id, card: TOKEN }), 409, "receipt_already_paid");
    const held = await createReceipt({ merchant_id: 1003, is_hold: true });
    await expectStatus(call("receipt/pay", { id: held.id, card: TOKEN }), 200);
    await expectError(call("receipt/pay", { id: held.id, card: TOKEN }), 409, "receipt_already_paid");
  });

  it("answers a declined card with 402 card_declined and the reason, leaving the receipt payable", async () => {
    const created = await createReceipt({ merchant_id: 1003 });
    const error = await expectError(call("receipt/pay", { id: created.id, card: { token: "tok_sandbox_insufficient" } }), 402, "card_declined");
    expect(error.decline_reason).toBe("insufficient_funds");
    expect(error.upstream_code).toBe("INSUFFICIENT_FUNDS");
    const paid = await expectStatus(call("receipt/pay", { id: created.id, card: TOKEN }), 200);
    expect(paid.state).toBe(4);
  });

  it("answers an upstream 5xx with 502 upstream_error", async () => {
    const created = await createReceipt({ merchant_id: 1003 });
    await expectError(call("receipt/pay", { id: created.id, card: { token: "tok_sandbox_error" } }), 502, "upstream_error");
  });

  it("answers an upstream that does not answer in time with 504, then reconciles before paying again", async () => {
    const created = await createReceipt({ merchant_id: 1003 });
    await expectError(call("receipt/pay", { id: created.id, card: { token: "tok_sandbox_timeout" } }), 504, "upstream_timeout");
    // The next pay first asks the upstream how the receipt stands; it was not paid, so it pays.
    const paid = await expectStatus(call("receipt/pay", { id: created.id, card: TOKEN }), 200);
    expect(paid.state).toBe(4);
  });

  it("leaves a receipt in 57 when the supplier has not answered", async () => {
    const created = await createReceipt({ merchant_id: 1003 });
    const pending = await expectStatus(call("receipt/pay", { id: created.id, card: { token: "tok_sandbox_supplier_pending" } }), 200);
    expect(pending.state).toBe(57);
    await expectError(call("receipt/pay", { id: created.id, card: TOKEN }), 409, "receipt_already_paid");
  });
});

describe("cancel", () => {
  it("cancels a created receipt: state 21", async () => {
    const created = await createReceipt({ merchant_id: 1001 });
    const cancelled = await expectStatus(call("receipt/cancel", { id: created.id, reason: "changed my mind" }), 200);
    expect(cancelled.state).toBe(21);
    expect(cancelled.cancel_date).toBeGreaterThan(0);
    expect((await sandboxReceipt(created.id)).state).toBe(21);
  });

  it("cancels a paid receipt: state 21", async () => {
    const created = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/pay", { id: created.id, card: TOKEN }), 200);
    const cancelled = await expectStatus(call("receipt/cancel", { id: created.id, cancelledBy: "partner-backend" }), 200);
    expect(cancelled.state).toBe(21);
    expect((await sandboxReceipt(created.id)).state).toBe(21);
  });

  it("refuses to cancel a cancelled receipt", async () => {
    const created = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/cancel", { id: created.id }), 200);
    await expectError(call("receipt/cancel", { id: created.id }), 409, "cancel_not_allowed");
  });

  it("refuses to cancel a receipt awaiting the supplier (57)", async () => {
    const created = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/pay", { id: created.id, card: { token: "tok_sandbox_supplier_pending" } }), 200);
    await expectError(call("receipt/cancel", { id: created.id }), 409, "cancel_not_allowed");
    expect((await sandboxReceipt(created.id)).state).toBe(57);
  });

  it("refuses to cancel a receipt of the QR merchant, at the edge", async () => {
    const created = await createReceipt({ merchant_id: 1002, amount: 50_000 });
    await expectError(call("receipt/cancel", { id: created.id }), 409, "cancel_not_allowed");
    expect((await sandboxReceipt(created.id)).state).toBe(0);
  });

  it("refuses to pay a cancelled receipt", async () => {
    const created = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/cancel", { id: created.id }), 200);
    await expectError(call("receipt/pay", { id: created.id, card: TOKEN }), 409, "receipt_cancelled");
  });
});

describe("reading receipts", () => {
  it("check-tid answers the receipt created with that tid", async () => {
    const created = await createReceipt({ merchant_id: 1003 });
    const found = await expectStatus(call("receipt/check-tid", { tid: created.tid }), 200);
    expect(found).toMatchObject({ id: created.id, tid: created.tid, state: 0 });
  });

  it("an unknown id or tid is receipt_not_found", async () => {
    await expectError(call("receipt/check-id", { id: "000000000000000000000000" }), 404, "receipt_not_found");
    await expectError(call("receipt/check-tid", { tid: "never-used" }), 404, "receipt_not_found");
    await expectError(call("receipt/pay", { id: "nope", card: TOKEN }), 404, "receipt_not_found");
  });

  it("refuses an amount outside the merchant's limits with 422, and frees the tid", async () => {
    const tooSmall = receiptRequest({ tid: "too-small", amount: 100, merchant_id: 1001 });
    const error = await expectError(call("receipt/create", tooSmall), 422, "amount_out_of_range");
    expect(error.upstream_code).toBe("AMOUNT_OUT_OF_RANGE");
    const fixed = await createReceipt({ tid: "too-small", amount: 150_000, merchant_id: 1001 });
    expect(fixed.state).toBe(0);
  });
});

describe("one operation at a time per receipt", () => {
  it("while a pay is in flight, another pay or a cancel is refused and check-id answers the last known state", async () => {
    const created = await createReceipt({ merchant_id: 1003 });
    // The sandbox sits on this pay for longer than the gateway waits.
    const slowPay = call("receipt/pay", { id: created.id, card: { token: "tok_sandbox_timeout" } });

    // Proof the slow pay holds the receipt: a second pay is refused (bounded, no sleeping).
    let refused: any;
    for (let i = 0; i < 500 && !refused; i++) {
      const res = await call("receipt/pay", { id: created.id, card: TOKEN });
      const body = (await res.json()) as any;
      if (res.status === 409 && body.error.code === "operation_in_progress") refused = { res, body };
    }
    expect(refused).toBeTruthy();
    expect(refused.res.headers.get("retry-after")).toBe("1");
    await expectError(call("receipt/cancel", { id: created.id }), 409, "operation_in_progress");

    const checksBefore = (await sandboxCalls()).filter((c) => c.path === "receipt/check-id").length;
    const seen = await expectStatus(call("receipt/check-id", { id: created.id }), 200);
    expect(seen.state).toBe(0);
    expect((await sandboxCalls()).filter((c) => c.path === "receipt/check-id").length).toBe(checksBefore);

    await expectError(slowPay, 504, "upstream_timeout");
    expect((await sandboxCalls()).filter((c) => c.path === "receipt/pay" && c.id === created.id)).toHaveLength(1);
  });
});
