import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { ReceiptEvent } from "../../src/events/schemas";
import { callGateway, loggedEventTypes } from "../events";
import { call, createReceipt, expectError, expectStatus, OTP_OK, OTP_WRONG, REDUCED_RECEIPT_KEYS, sandboxReceipt } from "../helpers";

const CARD = { number: "8600000000000007", expire: "3012" };

describe("anonymous card payment", () => {
  it("authorize and pay with a card number: the upstream's reduced receipt", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    const sent = await expectStatus(call("receipt/anonymous/authorize", { id: receipt.id, card: CARD }), 200);
    expect(sent).toMatchObject({ id: receipt.id, sent: true });

    const paid = await expectStatus(call("receipt/anonymous/pay", { id: receipt.id, card: CARD, otp: OTP_OK }), 200);
    expect(Object.keys(paid).sort()).toEqual(REDUCED_RECEIPT_KEYS);
    expect(paid.state).toBe(4);
    expect(paid.error).toBe("");
    expect(paid.merchant.fields).toEqual([]);
    expect(Object.keys(paid.ofd).sort()).toEqual(["code", "fiscalSign", "id", "message", "qrCodeUrl", "receiptId", "terminalId", "time"].sort());
    expect(String(paid.pay_date)).toHaveLength(13);

    // check-id still answers the full receipt, with the card masked.
    const checked = await expectStatus(call("receipt/check-id", { id: receipt.id }), 200);
    expect(checked.state).toBe(4);
    expect(checked.card_number).toBe("860000******0007");
  });

  it("its receipt.paid event carries the whole receipt (the reduced answer laid over it), as ReceiptEvent says", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/anonymous/authorize", { id: receipt.id, card: CARD }), 200);
    await expectStatus(call("receipt/anonymous/pay", { id: receipt.id, card: CARD, otp: OTP_OK }), 200);
    expect(await loggedEventTypes("receipt", receipt.id)).toEqual(["receipt.created", "receipt.paid"]);
    const { events } = await expectStatus(callGateway("events/list", { receipt_id: receipt.id, type: "receipt.paid" }), 200);
    const [paid] = events;
    expect(v.safeParse(ReceiptEvent, paid).issues?.map((issue) => `${v.getDotPath(issue)}: ${issue.message}`)).toBeUndefined();
    expect(paid.data).toMatchObject({ object_type: "receipt", object: { id: receipt.id, state: 4 } });
    // The fields the reduced answer lacks are there, as the receipt last showed them.
    expect(Object.keys(paid.data.object)).toEqual(expect.arrayContaining(["cancel_date", "is_verify", "rrn", "card_number"]));
  });

  it("requires the OTP even for a merchant that does not verify token payments", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    const error = await expectError(call("receipt/anonymous/pay", { id: receipt.id, card: CARD }), 400, "invalid_request");
    expect(error.details).toContainEqual({ path: "otp", message: expect.any(String) });
    expect((await sandboxReceipt(receipt.id)).otp_attempts).toBe(0);
  });

  it("declines the insufficient-funds test card with 402", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    const card = { number: "8600000000000015", expire: "3012" };
    await expectStatus(call("receipt/anonymous/authorize", { id: receipt.id, card }), 200);
    const error = await expectError(call("receipt/anonymous/pay", { id: receipt.id, card, otp: OTP_OK }), 402, "card_declined");
    expect(error.decline_reason).toBe("insufficient_funds");
    expect(JSON.stringify(error)).not.toContain("8600000000000015");
  });

  it("three wrong OTPs cancel the receipt, counted together with token pay attempts", async () => {
    const receipt = await createReceipt({ merchant_id: 1001 });
    await expectStatus(call("receipt/anonymous/authorize", { id: receipt.id, card: CARD }), 200);
    await expectError(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" }, otp: OTP_WRONG }), 422, "otp_invalid");
    await expectError(call("receipt/anonymous/pay", { id: receipt.id, card: CARD, otp: OTP_WRONG }), 422, "otp_invalid");
    await expectError(call("receipt/anonymous/pay", { id: receipt.id, card: CARD, otp: OTP_WRONG }), 409, "otp_attempts_exhausted");
    expect(await sandboxReceipt(receipt.id)).toMatchObject({ state: 21, otp_attempts: 3 });
  });
});
