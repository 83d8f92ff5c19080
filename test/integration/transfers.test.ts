import { describe, expect, it } from "vitest";
import { call, expectError, expectStatus, OTP_OK, OTP_WRONG, receiptRequest, sandboxCalls, sandboxTransfer, transferRequest } from "../helpers";

async function createTransfer(overrides: Record<string, unknown> = {}): Promise<any> {
  return expectStatus(call("a2c/create", transferRequest(overrides)), 200);
}

describe("card-to-card transfers", () => {
  it("create, pay and get-by-id a small transfer without an OTP", async () => {
    const created = await createTransfer();
    expect(created).toMatchObject({ state: 0, type: 6, is_verify: false, pay_date: null, cancel_date: null });
    expect(created.receipt_id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(created.receiver).toMatchObject({ masked_pan: "986000******0018", amount: 500_000, currency: 860 });
    expect(created.sender.masked_pan).toMatch(/^\d{6}\*+\d{4}$/);
    expect(created.sender).not.toHaveProperty("token");
    expect(created).not.toHaveProperty("tId");
    expect(String(created.created_date)).toHaveLength(13);

    const paid = await expectStatus(call("a2c/pay", { id: created.receipt_id }), 200);
    expect(paid.state).toBe(4);
    expect(paid.pay_date).toBeGreaterThan(0);

    const read = await expectStatus(call("a2c/get-by-id", { id: created.receipt_id }), 200);
    expect(read).toMatchObject({ receipt_id: created.receipt_id, tid: created.tid, state: 4 });
  });

  it("accepts tId as an alias of tid, and treats both spellings as the same create", async () => {
    const { tid, ...rest } = transferRequest();
    const created = await expectStatus(call("a2c/create", { ...rest, tId: tid }), 200);
    expect(created.tid).toBe(tid);
    const retry = await call("a2c/create", { ...rest, tid });
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect((await expectStatus(retry, 200)).receipt_id).toBe(created.receipt_id);
    expect((await sandboxCalls()).filter((c) => c.path === "a2c/create" && c.tid === tid)).toHaveLength(1);
  });

  it("a large transfer needs the OTP: otp_required without it, paid with it", async () => {
    const created = await createTransfer({ amount: 1_000_000 });
    expect(created.is_verify).toBe(true);
    await expectError(call("a2c/pay", { id: created.receipt_id }), 400, "otp_required");
    expect((await sandboxTransfer(created.receipt_id)).otp_attempts).toBe(0);
    const paid = await expectStatus(call("a2c/pay", { id: created.receipt_id, otp: OTP_OK }), 200);
    expect(paid.state).toBe(4);
  });

  it("never pays a transfer twice", async () => {
    const created = await createTransfer();
    await expectStatus(call("a2c/pay", { id: created.receipt_id }), 200);
    await expectError(call("a2c/pay", { id: created.receipt_id }), 409, "receipt_already_paid");
  });

  it("three wrong OTPs cancel the transfer, and the sandbox received exactly 3", async () => {
    const created = await createTransfer({ amount: 2_000_000 });
    expect((await expectError(call("a2c/pay", { id: created.receipt_id, otp: OTP_WRONG }), 422, "otp_invalid")).attempts_left).toBe(2);
    expect((await expectError(call("a2c/pay", { id: created.receipt_id, otp: OTP_WRONG }), 422, "otp_invalid")).attempts_left).toBe(1);
    const exhausted = await expectError(call("a2c/pay", { id: created.receipt_id, otp: OTP_WRONG }), 409, "otp_attempts_exhausted");
    expect(exhausted.message).toMatch(
      /^Three wrong OTPs: the transfer is closed at the gateway and takes no further code\. Create a new transfer\.$/,
    );
    await expectError(call("a2c/pay", { id: created.receipt_id, otp: OTP_OK }), 409, "otp_attempts_exhausted");
    const upstream = await sandboxTransfer(created.receipt_id);
    expect(upstream).toMatchObject({ state: 21, otp_attempts: 3 });
    expect((await expectStatus(call("a2c/get-by-id", { id: created.receipt_id }), 200)).state).toBe(21);
    // The upstream has no cancel for transfers: the gateway never sends a receipt/cancel for one.
    expect((await sandboxCalls()).filter((c) => c.id === created.receipt_id).map((c) => c.path)).not.toContain("receipt/cancel");
  });

  it("20 concurrent wrong OTPs on a fresh transfer: at most 3 reach the sandbox", async () => {
    const created = await createTransfer({ amount: 2_000_000 });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => call("a2c/pay", { id: created.receipt_id, otp: String(700000 + i) })));
    const codes = await Promise.all(answers.map(async (res) => ((await res.json()) as any).error.code));
    expect(codes.filter((code) => code === "operation_in_progress").length).toBeGreaterThan(0);
    for (const code of codes) expect(["otp_invalid", "operation_in_progress", "otp_attempts_exhausted"]).toContain(code);
    expect((await sandboxTransfer(created.receipt_id)).otp_attempts).toBeLessThanOrEqual(3);
  });

  it("a receiver that cannot take the transfer is card_declined with the reason", async () => {
    const created = await createTransfer({ receiver_card: "8600000000000098" });
    const error = await expectError(call("a2c/pay", { id: created.receipt_id }), 402, "card_declined");
    expect(error.decline_reason).toBe("receiver_unavailable");
  });

  it("an unknown rate is refused as invalid_request, and the tid is free again", async () => {
    const request = transferRequest({ rate_id: 999 });
    const error = await expectError(call("a2c/create", request), 400, "invalid_request");
    expect(error.details).toEqual([{ path: "rate_id", message: "unknown rate_id" }]);
    await expectStatus(call("a2c/create", { ...request, rate_id: 1 }), 200);
  });

  it("a tid used by a receipt cannot be reused by a transfer, nor the other way round", async () => {
    const receipt = receiptRequest();
    await expectStatus(call("receipt/create", receipt), 200);
    await expectError(call("a2c/create", transferRequest({ tid: receipt.tid })), 409, "tid_conflict");

    const transfer = await createTransfer();
    await expectError(call("receipt/create", receiptRequest({ tid: transfer.tid })), 409, "tid_conflict");
    expect((await sandboxCalls()).filter((c) => c.tid === receipt.tid || c.tid === transfer.tid)).toHaveLength(2);
  });

  it("a transfer id is not a receipt id: check-id does not find it", async () => {
    const created = await createTransfer();
    await expectError(call("receipt/check-id", { id: created.receipt_id }), 404, "receipt_not_found");
    await expectError(call("a2c/get-by-id", { id: "01ARZ3NDEKTSV4RRFFQ69G5FAV" }), 404, "receipt_not_found");
  });
});
