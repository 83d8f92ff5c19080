// The sandbox upstream, exercised the way the gateway reaches it: through the
// UPSTREAM service binding. Storage is shared by all tests in this file, so
// every test makes its own tids.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ensureSchema } from "../../src/sandbox/schema";
import { ageSandboxOtp, letLatePayHappen, letSupplierAnswer, REDUCED_RECEIPT_KEYS, SANDBOX_OTP_TTL_MS } from "../helpers";
import { scriptedUpstream } from "../support/scripted-upstream";

const API = "https://sandbox.upstream.invalid/api/v1/partner/";
const AUTH = { authorization: "Bearer sandbox-upstream-key", "content-type": "application/json" };
const OTP = "111111";
const FUTURE = "3012";
const PAST = "2001";

type Json = any;
type Answer = { status: number; body: Json; headers: Headers };

const upstream = () => {
  if (!env.UPSTREAM) throw new Error("UPSTREAM binding missing");
  return env.UPSTREAM;
};

async function call(op: string, body: unknown, headers: Record<string, string> = AUTH): Promise<Answer> {
  const res = await upstream().fetch(API + op, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

async function sandboxRecord(kind: "receipts" | "a2c", id: string): Promise<Answer> {
  const res = await upstream().fetch(`https://x/__sandbox/${kind}/${id}`);
  return { status: res.status, body: await res.json(), headers: res.headers };
}

let seq = 0;
const newTid = () => `sbx-${crypto.randomUUID()}-${++seq}`;

async function created(fields: Record<string, unknown> = {}): Promise<Json> {
  const answer = await call("receipt/create", {
    tid: newTid(),
    amount: 250_000,
    merchant_id: 1003,
    account: [{ key: "account", value: "123456" }],
    ...fields,
  });
  expect(answer.status).toBe(200);
  return answer.body;
}

const payToken = (id: string, token: string, otp?: string) => call("receipt/pay", { id, card: { token }, ...(otp === undefined ? {} : { otp }) });

/** authorize: the sandbox's OTP is right only after a send (token authorize unless a card number is given). */
async function sendOtp(id: string, card: Record<string, string> = { token: "tok_sandbox_ok" }): Promise<void> {
  const answer = await call("token" in card ? "receipt/authorize" : "receipt/anonymous/authorize", { id, card });
  expect(answer.status).toBe(200);
}

async function paid(fields: Record<string, unknown> = {}): Promise<Json> {
  const receipt = await created(fields);
  if (receipt.is_verify) await sendOtp(receipt.id);
  const answer = await payToken(receipt.id, "tok_sandbox_ok", receipt.is_verify ? OTP : undefined);
  expect(answer.status).toBe(200);
  return answer.body;
}

async function transfer(fields: Record<string, unknown> = {}): Promise<Json> {
  const answer = await call("a2c/create", {
    tid: newTid(),
    amount: 500_000,
    rate_id: 1,
    receiver_card: "8600123412341234",
    token: "tok_sandbox_ok",
    ...fields,
  });
  expect(answer.status).toBe(200);
  return answer.body;
}

const expectError = (answer: Answer, status: number, code: string) => {
  expect({ status: answer.status, code: answer.body?.error?.code }).toEqual({ status, code });
};

const MS = /^\d{13}$/;
const SECONDS = /^\d{10}$/;
const _MASKED_PAN = /^\d{6}\*{6}\d{4}$/;

describe("transport", () => {
  it("refuses a missing or wrong partner credential with 401 UNAUTHORIZED", async () => {
    expectError(await call("receipt/check-id", { id: "x" }, { "content-type": "application/json" }), 401, "UNAUTHORIZED");
    expectError(await call("receipt/check-id", { id: "x" }, { ...AUTH, authorization: "Bearer nope" }), 401, "UNAUTHORIZED");
  });

  it("echoes X-Request-Id on successes and errors", async () => {
    const ok = await call("receipt/create", { tid: newTid(), amount: 5_000, merchant_id: 1003 }, { ...AUTH, "x-request-id": "req-1" });
    expect(ok.headers.get("x-request-id")).toBe("req-1");
    const bad = await call("receipt/check-id", { id: "nope" }, { ...AUTH, "x-request-id": "req-2" });
    expect(bad.headers.get("x-request-id")).toBe("req-2");
  });

  it("answers malformed JSON and wrongly typed bodies with 400 VALIDATION_ERROR and details", async () => {
    expectError(await call("receipt/create", "{not json"), 400, "VALIDATION_ERROR");
    expectError(await call("receipt/create", "[1,2]"), 400, "VALIDATION_ERROR");
    const typed = await call("receipt/create", { tid: 5, amount: "100", merchant_id: 1003 });
    expectError(typed, 400, "VALIDATION_ERROR");
    expect(typed.body.details.map((d: Json) => d.path)).toEqual(expect.arrayContaining(["tid", "amount"]));
    expectError(await call("receipt/create", { tid: newTid(), amount: 1.5, merchant_id: 1003 }), 400, "VALIDATION_ERROR");
    expectError(await call("receipt/create", { tid: newTid(), amount: -5, merchant_id: 1003 }), 400, "VALIDATION_ERROR");
    expectError(await call("receipt/pay", { id: "x", card: { token: "tok_sandbox_ok" }, otp: 111111 }), 400, "VALIDATION_ERROR");
    expectError(await call("receipt/anonymous/pay", { id: "x", card: { number: "4111" } }), 400, "VALIDATION_ERROR");
    expectError(await call("a2c/pay", null), 400, "VALIDATION_ERROR");
  });

  it("answers an unknown operation with 404 NOT_FOUND", async () => {
    expectError(await call("receipt/teleport", { id: "x" }), 404, "NOT_FOUND");
  });

  it("serves /__sandbox records without credentials and 404 JSON for unknown ids", async () => {
    const receipt = await created();
    expect((await sandboxRecord("receipts", receipt.id)).status).toBe(200);
    expectError(await sandboxRecord("receipts", "000000000000000000000000"), 404, "RECEIPT_NOT_FOUND");
    expectError(await sandboxRecord("a2c", "01J00000000000000000000000"), 404, "RECEIPT_NOT_FOUND");
  });
});

describe("receipt/create", () => {
  it("creates a state 0 receipt with the upstream's quirks: comission, ms create_date, 0 pay/cancel dates, null error", async () => {
    const tid = newTid();
    const { status, body } = await call("receipt/create", {
      tid,
      amount: 200_000,
      merchant_id: 1001,
      account: [{ key: "phone", value: "901234567" }],
      description: "Top-up",
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      tid,
      state: 0,
      pay_date: 0,
      cancel_date: 0,
      error: null,
      type: 1,
      description: "Top-up",
      account: [{ key: "phone", value: "901234567" }],
      ofd: null,
      amount: 200_000,
      init_amount: 0,
      currency: 860,
      comission: 0,
      is_verify: true,
      rrn: null,
      card_number: null,
      merchant: { merchant_id: 1001, merchant_name: "Sandbox Mobile", min_amount: 100_000, max_amount: 500_000_000 },
    });
    expect(body.id).toMatch(/^[0-9a-f]{24}$/);
    expect(String(body.create_date)).toMatch(MS);
    expect(body).not.toHaveProperty("commission");
    expect(Object.keys(body.merchant).sort()).toEqual([
      "category_id",
      "category_name",
      "logo_url",
      "max_amount",
      "merchant_id",
      "merchant_name",
      "min_amount",
    ]);
  });

  it("takes is_verify from the merchant: 1001 true, 1002 and 1003 false", async () => {
    expect((await created({ merchant_id: 1001 })).is_verify).toBe(true);
    expect((await created({ merchant_id: 1002 })).is_verify).toBe(false);
    expect((await created({ merchant_id: 1003 })).is_verify).toBe(false);
  });

  it("charges Sandbox Utilities a 1% commission so comission normalization is visible", async () => {
    expect((await created({ merchant_id: 1003, amount: 250_000 })).comission).toBe(2_500);
  });

  it("answers an unknown merchant with 404 MERCHANT_NOT_FOUND", async () => {
    expectError(await call("receipt/create", { tid: newTid(), amount: 5_000, merchant_id: 4242 }), 404, "MERCHANT_NOT_FOUND");
  });

  it.each([
    [1001, 99_999, 100_000, 500_000_000, 500_000_001],
    [1002, 999, 1_000, 100_000_000, 100_000_001],
    [1003, 999, 1_000, 1_000_000_000, 1_000_000_001],
  ])("enforces merchant %i's min and max with AMOUNT_OUT_OF_RANGE", async (merchant_id, below, min, max, above) => {
    for (const amount of [below, above]) {
      const answer = await call("receipt/create", { tid: newTid(), amount, merchant_id });
      expectError(answer, 400, "AMOUNT_OUT_OF_RANGE");
      expect(answer.body).toMatchObject({ min_amount: min, max_amount: max });
    }
    await created({ merchant_id, amount: min });
    await created({ merchant_id, amount: max });
  });

  it("accepts only currency 860", async () => {
    expect((await created({ currency: 860 })).currency).toBe(860);
    expectError(await call("receipt/create", { tid: newTid(), amount: 5_000, merchant_id: 1003, currency: 840 }), 400, "VALIDATION_ERROR");
  });

  it("refuses a reused tid with 409 TID_DUPLICATE carrying the existing receipt", async () => {
    const first = await created();
    const again = await call("receipt/create", { tid: first.tid, amount: 9_000, merchant_id: 1003 });
    expectError(again, 409, "TID_DUPLICATE");
    expect(again.body.receipt.id).toBe(first.id);
  });

  it("shares one tid space between receipts and transfers", async () => {
    const receipt = await created();
    const clash = await call("a2c/create", {
      tid: receipt.tid,
      amount: 5_000,
      rate_id: 1,
      receiver_card: "8600123412341234",
      token: "tok_sandbox_ok",
    });
    expectError(clash, 409, "TID_DUPLICATE");
    expect(clash.body.receipt.id).toBe(receipt.id);
    const moved = await transfer();
    const back = await call("receipt/create", { tid: moved.tId, amount: 5_000, merchant_id: 1003 });
    expectError(back, 409, "TID_DUPLICATE");
    expect(back.body.transfer.receipt_id).toBe(moved.receipt_id);
  });
});

describe("authorize", () => {
  it("sends an OTP for a token card: {id, sent, masked phone, wait in ms}", async () => {
    const receipt = await created({ merchant_id: 1001 });
    const { status, body } = await call("receipt/authorize", { id: receipt.id, card: { token: "tok_sandbox_ok" } });
    expect(status).toBe(200);
    expect(body).toEqual({ id: receipt.id, sent: true, phone: "+998 90 *** ** 67", wait: 60_000 });
    expect(typeof (await sandboxRecord("receipts", receipt.id)).body.otp_sent_at).toBe("number");
  });

  it("sends an OTP for a card number on anonymous/authorize", async () => {
    const receipt = await created();
    const { status, body } = await call("receipt/anonymous/authorize", { id: receipt.id, card: { number: "8600000000000007", expire: FUTURE } });
    expect(status).toBe(200);
    expect(body).toMatchObject({ id: receipt.id, sent: true, wait: 60_000 });
    expect(body.phone).toMatch(/^\+998 \d\d \*\*\* \*\* \d\d$/);
  });

  it("refuses a resend before wait has passed with 429 OTP_RESEND_TOO_SOON and Retry-After", async () => {
    const receipt = await created({ merchant_id: 1001 });
    expect((await call("receipt/authorize", { id: receipt.id, card: { token: "tok_sandbox_ok" } })).status).toBe(200);
    const again = await call("receipt/anonymous/authorize", { id: receipt.id, card: { number: "8600000000000007", expire: FUTURE } });
    expectError(again, 429, "OTP_RESEND_TOO_SOON");
    expect(again.body.wait).toBeGreaterThan(0);
    expect(Number(again.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("authorizes only receipts in state 0", async () => {
    const done = await paid();
    expectError(await call("receipt/authorize", { id: done.id, card: { token: "tok_sandbox_ok" } }), 400, "RECEIPT_ALREADY_PAID");
    const receipt = await created();
    await call("receipt/cancel", { id: receipt.id });
    expectError(await call("receipt/authorize", { id: receipt.id, card: { token: "tok_sandbox_ok" } }), 400, "RECEIPT_CANCELLED");
    expectError(await call("receipt/authorize", { id: "ffffffffffffffffffffffff", card: { token: "tok_sandbox_ok" } }), 404, "RECEIPT_NOT_FOUND");
  });

  it("declines an unknown token, an unknown number and an expired card with CARD_DECLINED", async () => {
    const receipt = await created();
    expectError(await call("receipt/authorize", { id: receipt.id, card: { token: "tok_other" } }), 402, "CARD_DECLINED");
    expectError(
      await call("receipt/anonymous/authorize", { id: receipt.id, card: { number: "4111111111111111", expire: FUTURE } }),
      402,
      "CARD_DECLINED",
    );
    expectError(
      await call("receipt/anonymous/authorize", { id: receipt.id, card: { number: "8600000000000007", expire: PAST } }),
      402,
      "CARD_DECLINED",
    );
  });
});

describe("receipt/pay with a token", () => {
  it("pays an is_verify false receipt without OTP: state 4, Sale ofd, rrn, masked card_number, pay_date in seconds", async () => {
    const receipt = await created({ merchant_id: 1003, description: "Electricity" });
    const { status, body } = await payToken(receipt.id, "tok_sandbox_ok");
    expect(status).toBe(200);
    expect(body).toMatchObject({ id: receipt.id, state: 4, error: null, cancel_date: 0, card_number: "860049******0011" });
    expect(String(body.pay_date)).toMatch(SECONDS);
    expect(body.rrn).toMatch(/^\d{12}$/);
    expect(body.ofd).toMatchObject({ code: 0, type: "Sale", vatRate: 12, merchantInfo: { name: "Sandbox Utilities" } });
    for (const key of ["id", "message", "terminalId", "receiptId", "fiscalSign", "qrCodeUrl", "tin", "spic", "label", "packageCode"]) {
      expect(body.ofd).toHaveProperty(key);
    }
    expect(body.ofd.time).toMatch(/^\d{14}$/);
    expect(Object.keys(body.ofd.items[0]).sort()).toEqual([
      "count",
      "discount",
      "package_code",
      "pinfl",
      "spic",
      "tin",
      "title",
      "unit_price",
      "units",
      "vat_percent",
    ]);
    expect(body.ofd.items[0]).toMatchObject({ title: "Electricity", unit_price: 250_000, count: 1 });
  });

  it("ignores and does not count an OTP sent for an is_verify false receipt", async () => {
    const receipt = await created({ merchant_id: 1003 });
    expect((await payToken(receipt.id, "tok_sandbox_ok", "000000")).body.state).toBe(4);
    expect((await sandboxRecord("receipts", receipt.id)).body.otp_attempts).toBe(0);
  });

  it("requires an OTP for an is_verify true receipt (OTP_REQUIRED, not counted)", async () => {
    const receipt = await created({ merchant_id: 1001 });
    expectError(await payToken(receipt.id, "tok_sandbox_ok"), 400, "OTP_REQUIRED");
    expect((await sandboxRecord("receipts", receipt.id)).body).toMatchObject({ state: 0, otp_attempts: 0 });
  });

  it("pays an is_verify true receipt with OTP 111111 and counts the submission", async () => {
    const receipt = await created({ merchant_id: 1001 });
    await sendOtp(receipt.id);
    expect((await payToken(receipt.id, "tok_sandbox_ok", OTP)).body.state).toBe(4);
    expect((await sandboxRecord("receipts", receipt.id)).body.otp_attempts).toBe(1);
  });

  it("cancels the receipt on the third wrong OTP and answers OTP_INVALID with attempts_left before that", async () => {
    const receipt = await created({ merchant_id: 1001 });
    await sendOtp(receipt.id);
    const first = await payToken(receipt.id, "tok_sandbox_ok", "123456");
    expectError(first, 400, "OTP_INVALID");
    expect(first.body.attempts_left).toBe(2);
    const second = await payToken(receipt.id, "tok_sandbox_ok", "654321");
    expect(second.body.attempts_left).toBe(1);
    expect(second.body.receipt.state).toBe(0);
    const third = await payToken(receipt.id, "tok_sandbox_ok", "000000");
    expectError(third, 400, "OTP_ATTEMPTS_EXCEEDED");
    expect(third.body.receipt.state).toBe(21);
    expect(String(third.body.receipt.cancel_date)).toMatch(SECONDS);
    expect((await sandboxRecord("receipts", receipt.id)).body).toMatchObject({ state: 21, otp_attempts: 3, wrong_otp_attempts: 3 });
    expectError(await payToken(receipt.id, "tok_sandbox_ok", OTP), 400, "RECEIPT_CANCELLED");
  });

  it("counts wrong OTPs across token and anonymous pay of the same receipt", async () => {
    const receipt = await created({ merchant_id: 1001 });
    await sendOtp(receipt.id);
    await payToken(receipt.id, "tok_sandbox_ok", "1");
    await call("receipt/anonymous/pay", { id: receipt.id, card: { number: "8600000000000007", expire: FUTURE }, otp: "2" });
    expectError(await payToken(receipt.id, "tok_sandbox_ok", "3"), 400, "OTP_ATTEMPTS_EXCEEDED");
  });

  it("checks the OTP before the card", async () => {
    const receipt = await created({ merchant_id: 1001 });
    await sendOtp(receipt.id);
    expectError(await payToken(receipt.id, "tok_sandbox_insufficient", "999999"), 400, "OTP_INVALID");
    expectError(await payToken(receipt.id, "tok_unknown"), 400, "OTP_REQUIRED");
  });

  it("declines tok_sandbox_insufficient with 402 INSUFFICIENT_FUNDS, leaving state 0 with error set", async () => {
    const receipt = await created();
    const answer = await payToken(receipt.id, "tok_sandbox_insufficient");
    expectError(answer, 402, "INSUFFICIENT_FUNDS");
    expect(answer.body.receipt).toMatchObject({ state: 0, pay_date: 0 });
    expect(answer.body.receipt.error).toEqual(expect.any(String));
    expect((await sandboxRecord("receipts", receipt.id)).body).toMatchObject({ state: 0, card_behaviour: "insufficient" });
    expect((await payToken(receipt.id, "tok_sandbox_ok")).body).toMatchObject({ state: 4, error: null });
  });

  it("declines an unknown token with 402 CARD_DECLINED", async () => {
    const receipt = await created();
    expectError(await payToken(receipt.id, "tok_made_up"), 402, "CARD_DECLINED");
    expect((await sandboxRecord("receipts", receipt.id)).body.state).toBe(0);
  });

  it("leaves tok_sandbox_supplier_pending in 57, which refuses cancel and a second pay", async () => {
    const receipt = await created();
    const answer = await payToken(receipt.id, "tok_sandbox_supplier_pending");
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ state: 57, ofd: null });
    expectError(await call("receipt/cancel", { id: receipt.id }), 400, "CANCEL_NOT_ALLOWED");
    expectError(await payToken(receipt.id, "tok_sandbox_ok"), 400, "RECEIPT_ALREADY_PAID");
  });

  it("answers tok_sandbox_error with 500 INTERNAL_ERROR and does not pay", async () => {
    const receipt = await created();
    expectError(await payToken(receipt.id, "tok_sandbox_error"), 500, "INTERNAL_ERROR");
    expect((await sandboxRecord("receipts", receipt.id)).body).toMatchObject({ state: 0, pay_date: 0 });
  });

  it("holds tok_sandbox_timeout for SANDBOX_TIMEOUT_DELAY_MS, then 500 without paying, while other calls proceed", async () => {
    const receipt = await created();
    const started = Date.now();
    const slow = payToken(receipt.id, "tok_sandbox_timeout");
    // The object is not blocked: another call completes while the pay is held.
    expect((await call("receipt/check-id", { id: receipt.id })).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(3_000);
    const answer = await slow;
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_900);
    expectError(answer, 500, "INTERNAL_ERROR");
    expect((await sandboxRecord("receipts", receipt.id)).body.state).toBe(0);
  }, 20_000);

  it("refuses to pay a paid receipt (RECEIPT_ALREADY_PAID) and an unknown one (404)", async () => {
    const done = await paid();
    expectError(await payToken(done.id, "tok_sandbox_ok"), 400, "RECEIPT_ALREADY_PAID");
    expectError(await payToken("ffffffffffffffffffffffff", "tok_sandbox_ok"), 404, "RECEIPT_NOT_FOUND");
  });
});

describe("receipt/anonymous/pay", () => {
  const anonymous = (id: string, number: string, otp?: string, expire = FUTURE) =>
    call("receipt/anonymous/pay", { id, card: { number, expire }, ...(otp === undefined ? {} : { otp }) });

  it("always requires an OTP, even for an is_verify false merchant", async () => {
    const receipt = await created({ merchant_id: 1003 });
    expectError(await anonymous(receipt.id, "8600000000000007"), 400, "OTP_REQUIRED");
  });

  it("answers the upstream's reduced receipt: commission spelled right, error '', merchant.fields [], short ofd", async () => {
    const receipt = await created({ merchant_id: 1003 });
    await sendOtp(receipt.id, { number: "8600000000000007", expire: FUTURE });
    const { status, body } = await anonymous(receipt.id, "8600000000000007", OTP);
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(REDUCED_RECEIPT_KEYS);
    expect(body).toMatchObject({ state: 4, error: "", type: 1, commission: 2_500, merchant: { merchant_id: 1003, fields: [] } });
    expect(Object.keys(body.ofd).sort()).toEqual(["code", "fiscalSign", "id", "message", "qrCodeUrl", "receiptId", "terminalId", "time"]);
    const full = (await call("receipt/check-id", { id: receipt.id })).body;
    expect(full).toMatchObject({ state: 4, card_number: "860000******0007" });
    expect(full.ofd.type).toBe("Sale");
    expect((await sandboxRecord("receipts", receipt.id)).body.otp_attempts).toBe(1);
  });

  it("approves 9860000000000018 with any future expire", async () => {
    const receipt = await created();
    await sendOtp(receipt.id, { number: "9860000000000018", expire: "2801" });
    expect((await anonymous(receipt.id, "9860000000000018", OTP, "2801")).body.state).toBe(4);
  });

  it("declines 8600000000000015 with INSUFFICIENT_FUNDS, unknown numbers and past expire with CARD_DECLINED", async () => {
    const receipt = await created();
    await sendOtp(receipt.id, { number: "8600000000000015", expire: FUTURE });
    expectError(await anonymous(receipt.id, "8600000000000015", OTP), 402, "INSUFFICIENT_FUNDS");
    expectError(await anonymous(receipt.id, "4111111111111111", OTP), 402, "CARD_DECLINED");
    expectError(await anonymous(receipt.id, "8600000000000007", OTP, PAST), 402, "CARD_DECLINED");
    expectError(await anonymous(receipt.id, "8600000000000007", OTP, "3013"), 402, "CARD_DECLINED");
    expect((await sandboxRecord("receipts", receipt.id)).body).toMatchObject({ state: 0, otp_attempts: 4 });
  });

  it("cancels after three wrong OTPs", async () => {
    const receipt = await created();
    await sendOtp(receipt.id, { number: "8600000000000007", expire: FUTURE });
    for (const otp of ["1", "2"]) expectError(await anonymous(receipt.id, "8600000000000007", otp), 400, "OTP_INVALID");
    const third = await anonymous(receipt.id, "8600000000000007", "3");
    expectError(third, 400, "OTP_ATTEMPTS_EXCEEDED");
    expect(third.body.receipt.state).toBe(21);
  });
});

describe("the OTP's lifetime (SANDBOX_OTP_TTL_MS after the last send)", () => {
  const CARD_NUMBER = { number: "8600000000000007", expire: FUTURE };
  const anonymous = (id: string, otp: string) => call("receipt/anonymous/pay", { id, card: CARD_NUMBER, otp });
  const counters = async (id: string) => {
    const { state, otp_attempts, wrong_otp_attempts, expired_otp_attempts } = (await sandboxRecord("receipts", id)).body;
    return { state, otp_attempts, wrong_otp_attempts, expired_otp_attempts };
  };

  it("refuses any OTP for a receipt never authorized as OTP_EXPIRED: received, never judged, never ending it", async () => {
    const receipt = await created({ merchant_id: 1001 });
    const right = await payToken(receipt.id, "tok_sandbox_ok", OTP);
    expectError(right, 400, "OTP_EXPIRED");
    expect(right.body.receipt).toMatchObject({ id: receipt.id, state: 0 });
    expect(right.body).not.toHaveProperty("attempts_left");
    // Wrong ones too, and more than three of them: none is a wrong OTP.
    for (const otp of ["1", "2", "3", "4"]) expectError(await payToken(receipt.id, "tok_sandbox_ok", otp), 400, "OTP_EXPIRED");
    expectError(await anonymous(receipt.id, OTP), 400, "OTP_EXPIRED");
    expect(await counters(receipt.id)).toEqual({ state: 0, otp_attempts: 6, wrong_otp_attempts: 0, expired_otp_attempts: 6 });
    // Still the same receipt to pay once an OTP is sent.
    await sendOtp(receipt.id);
    expect((await payToken(receipt.id, "tok_sandbox_ok", OTP)).body.state).toBe(4);
    expect(await counters(receipt.id)).toEqual({ state: 4, otp_attempts: 7, wrong_otp_attempts: 0, expired_otp_attempts: 6 });
  });

  it("applies to anonymous pay of any merchant and to the pay of a hold receipt", async () => {
    const plain = await created({ merchant_id: 1003 });
    expectError(await anonymous(plain.id, OTP), 400, "OTP_EXPIRED");
    const hold = await created({ merchant_id: 1001, is_hold: true });
    expectError(await payToken(hold.id, "tok_sandbox_ok", OTP), 400, "OTP_EXPIRED");
    await sendOtp(hold.id);
    expect((await payToken(hold.id, "tok_sandbox_ok", OTP)).body.state).toBe(5);
  });

  it("accepts the OTP until SANDBOX_OTP_TTL_MS after the send and refuses it after, right or wrong", async () => {
    const inside = await created({ merchant_id: 1001 });
    await sendOtp(inside.id);
    await ageSandboxOtp(inside.id, SANDBOX_OTP_TTL_MS - 30_000);
    expect((await payToken(inside.id, "tok_sandbox_ok", OTP)).body.state).toBe(4);

    const outside = await created({ merchant_id: 1001 });
    await sendOtp(outside.id, CARD_NUMBER);
    expectError(await payToken(outside.id, "tok_sandbox_ok", "123456"), 400, "OTP_INVALID");
    await ageSandboxOtp(outside.id, SANDBOX_OTP_TTL_MS);
    expectError(await payToken(outside.id, "tok_sandbox_ok", OTP), 400, "OTP_EXPIRED");
    expectError(await anonymous(outside.id, "654321"), 400, "OTP_EXPIRED");
    expect(await counters(outside.id)).toEqual({ state: 0, otp_attempts: 3, wrong_otp_attempts: 1, expired_otp_attempts: 2 });
  });

  it("renews the lifetime with every send", async () => {
    const receipt = await created({ merchant_id: 1001 });
    await sendOtp(receipt.id);
    await ageSandboxOtp(receipt.id, SANDBOX_OTP_TTL_MS);
    expectError(await payToken(receipt.id, "tok_sandbox_ok", OTP), 400, "OTP_EXPIRED");
    await sendOtp(receipt.id, CARD_NUMBER);
    expect((await anonymous(receipt.id, OTP)).body.state).toBe(4);
  });

  it("reads SANDBOX_OTP_TTL_MS", async () => {
    scriptedUpstream.vars({ SANDBOX_OTP_TTL_MS: "1000" });
    const receipt = await created({ merchant_id: 1001 });
    await sendOtp(receipt.id);
    // Inside the default lifetime, outside this one; past the resend wait, for the send below.
    await ageSandboxOtp(receipt.id, 60_001);
    expectError(await payToken(receipt.id, "tok_sandbox_ok", OTP), 400, "OTP_EXPIRED");
    await sendOtp(receipt.id, CARD_NUMBER);
    expect((await anonymous(receipt.id, OTP)).body.state).toBe(4);
  });

  it("leaves transfers alone: their OTP is right at any time, with no send step", async () => {
    scriptedUpstream.vars({ SANDBOX_OTP_TTL_MS: "0" });
    const created = await transfer({ amount: 2_000_000 });
    expectError(await call("a2c/pay", { id: created.receipt_id, otp: "1" }), 400, "OTP_INVALID");
    expect((await call("a2c/pay", { id: created.receipt_id, otp: OTP })).body.state).toBe(4);
    expect((await sandboxRecord("a2c", created.receipt_id)).body).toMatchObject({ otp_attempts: 2, wrong_otp_attempts: 1 });
  });
});

describe("SANDBOX_CANCEL_ACCESS=false", () => {
  it("refuses every cancel with 403 CANCEL_ACCESS_DENIED, before looking at the receipt, and cancels nothing", async () => {
    const fresh = await created();
    const done = await paid();
    const qr = await created({ merchant_id: 1002 });
    scriptedUpstream.vars({ SANDBOX_CANCEL_ACCESS: "false" });
    for (const id of [fresh.id, done.id, qr.id, "ffffffffffffffffffffffff"]) {
      const answer = await call("receipt/cancel", { id, reason: "customer asked", cancelledBy: "partner-app" });
      expectError(answer, 403, "CANCEL_ACCESS_DENIED");
      expect(answer.body.error.message).toMatch(/support.*receipt id.*reason/);
      expect(answer.body).not.toHaveProperty("receipt");
    }
    expect((await sandboxRecord("receipts", fresh.id)).body).toMatchObject({ state: 0, cancel_reason: null, cancelled_by: null });
    expect((await call("receipt/check-id", { id: done.id })).body).toEqual(done);
    const logged = (await (await upstream().fetch(`https://x/__sandbox/calls?id=${fresh.id}`)).json()) as Json[];
    expect(logged.map(({ path, status, code }) => [path, status, code])).toEqual([["receipt/cancel", 403, "CANCEL_ACCESS_DENIED"]]);

    // Any other value, or none, is a partner with access.
    scriptedUpstream.vars({ SANDBOX_CANCEL_ACCESS: "true" });
    expect((await call("receipt/cancel", { id: fresh.id })).body.state).toBe(21);
  });
});

describe("hold", () => {
  it("holds an is_hold receipt on pay (state 5, no ofd) and hold-confirm pays it with a Sale ofd", async () => {
    const receipt = await created({ is_hold: true });
    const held = await payToken(receipt.id, "tok_sandbox_ok");
    expect(held.body).toMatchObject({ state: 5, ofd: null, card_number: "860049******0011" });
    expect((await sandboxRecord("receipts", receipt.id)).body).toMatchObject({ is_hold: true, hold_status: "held" });
    expectError(await payToken(receipt.id, "tok_sandbox_ok"), 400, "RECEIPT_ALREADY_PAID");
    const confirmed = await call("receipt/hold-confirm", { id: receipt.id });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ state: 4, ofd: { type: "Sale" } });
    expect(String(confirmed.body.pay_date)).toMatch(SECONDS);
    expect((await sandboxRecord("receipts", receipt.id)).body.hold_status).toBe("confirmed");
  });

  it("refuses hold-confirm of a receipt not in 5 (RECEIPT_NOT_HELD) and of a cancelled one (RECEIPT_CANCELLED)", async () => {
    expectError(await call("receipt/hold-confirm", { id: (await created({ is_hold: true })).id }), 400, "RECEIPT_NOT_HELD");
    expectError(await call("receipt/hold-confirm", { id: (await paid()).id }), 400, "RECEIPT_NOT_HELD");
    const cancelled = await created();
    await call("receipt/cancel", { id: cancelled.id });
    expectError(await call("receipt/hold-confirm", { id: cancelled.id }), 400, "RECEIPT_CANCELLED");
    expectError(await call("receipt/hold-confirm", { id: "ffffffffffffffffffffffff" }), 404, "RECEIPT_NOT_FOUND");
  });

  it("releases the hold when a held receipt is cancelled", async () => {
    const receipt = await created({ is_hold: true });
    await payToken(receipt.id, "tok_sandbox_ok");
    const answer = await call("receipt/cancel", { id: receipt.id });
    expect(answer.body).toMatchObject({ state: 21, ofd: null });
    expect((await sandboxRecord("receipts", receipt.id)).body.hold_status).toBe("released");
  });
});

describe("receipt/cancel and check-id", () => {
  it("cancels a created receipt: state 21, cancel_date in seconds, reason and cancelledBy recorded", async () => {
    const receipt = await created();
    const { status, body } = await call("receipt/cancel", { id: receipt.id, reason: "customer asked", cancelledBy: "partner-app" });
    expect(status).toBe(200);
    expect(body).toMatchObject({ state: 21, pay_date: 0, ofd: null });
    expect(String(body.cancel_date)).toMatch(SECONDS);
    expect((await sandboxRecord("receipts", receipt.id)).body).toMatchObject({ cancel_reason: "customer asked", cancelled_by: "partner-app" });
  });

  it("cancels a paid receipt with the cancel-sample refund ofd (items shape B, partnerFiscaliztionUrl)", async () => {
    const done = await paid({ amount: 300_000 });
    const { body } = await call("receipt/cancel", { id: done.id });
    expect(body).toMatchObject({ state: 21, rrn: done.rrn, card_number: done.card_number, pay_date: done.pay_date });
    expect(body.ofd).toMatchObject({ type: "Refund", merchantInfo: { tin: expect.any(String), pinfl: expect.any(String) } });
    expect(body.ofd.partnerFiscaliztionUrl).toEqual(expect.any(String));
    expect(body.ofd.items).toEqual([{ name: expect.any(String), price: 300_000, quantity: 1, sum: 300_000 }]);
  });

  it("refuses cancel in 21 and for the QR merchant 1002 with CANCEL_NOT_ALLOWED", async () => {
    const receipt = await created();
    await call("receipt/cancel", { id: receipt.id });
    expectError(await call("receipt/cancel", { id: receipt.id }), 400, "CANCEL_NOT_ALLOWED");
    const qr = await created({ merchant_id: 1002 });
    const refused = await call("receipt/cancel", { id: qr.id });
    expectError(refused, 400, "CANCEL_NOT_ALLOWED");
    expect(refused.body.receipt.state).toBe(0);
    expectError(await call("receipt/cancel", { id: (await paid({ merchant_id: 1002 })).id }), 400, "CANCEL_NOT_ALLOWED");
    expectError(await call("receipt/cancel", { id: "ffffffffffffffffffffffff" }), 404, "RECEIPT_NOT_FOUND");
  });

  it("check-id returns the receipt as it stands, 404 RECEIPT_NOT_FOUND when unknown", async () => {
    const done = await paid();
    expect((await call("receipt/check-id", { id: done.id })).body).toEqual(done);
    expectError(await call("receipt/check-id", { id: "ffffffffffffffffffffffff" }), 404, "RECEIPT_NOT_FOUND");
  });
});

describe("a2c", () => {
  const payTransfer = (id: string, otp?: string) => call("a2c/pay", { id, ...(otp === undefined ? {} : { otp }) });

  it("creates a transfer receipt in the upstream's shape: tId, ULID receipt_id, type 6, null dates, sender token", async () => {
    const tid = newTid();
    const { status, body } = await call("a2c/create", {
      tid,
      amount: 500_000,
      rate_id: 1,
      receiver_card: "8600123412341234",
      token: "tok_sandbox_ok",
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      tId: tid,
      state: 0,
      type: 6,
      pay_date: null,
      cancel_date: null,
      error: "",
      ofd: null,
      is_verify: false,
      sender: {
        masked_pan: "860049******0011",
        token: "tok_sandbox_ok",
        amount: 502_500,
        currency: 860,
        commission: 2_500,
        phone: "+998 90 *** ** 67",
      },
      receiver: { masked_pan: "860012******1234", amount: 500_000, currency: 860, commission: 0, phone: null },
    });
    expect(body.receipt_id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(String(body.created_date)).toMatch(MS);
    expect(body.description).toEqual(expect.any(String));
    expect(body.sender.holder_name).toEqual(expect.any(String));
    expect(body.receiver.holder_name).toEqual(expect.any(String));
    expect(body.receiver).not.toHaveProperty("token");
  });

  it("accepts tId in place of tid", async () => {
    const tid = newTid();
    expect(
      (await call("a2c/create", { tId: tid, amount: 5_000, rate_id: 1, receiver_card: "8600123412341234", token: "tok_sandbox_ok" })).body.tId,
    ).toBe(tid);
    expectError(
      await call("a2c/create", { amount: 5_000, rate_id: 1, receiver_card: "8600123412341234", token: "tok_sandbox_ok" }),
      400,
      "VALIDATION_ERROR",
    );
  });

  it("applies the rate table: 1 = 0.5%, 2 = 1%, 3 = flat 1000; unknown rate 404 RATE_NOT_FOUND", async () => {
    expect((await transfer({ amount: 300_000, rate_id: 1 })).sender.commission).toBe(1_500);
    expect((await transfer({ amount: 300_000, rate_id: 2 })).sender.commission).toBe(3_000);
    expect((await transfer({ amount: 300_000, rate_id: 3 })).sender).toMatchObject({ commission: 1_000, amount: 301_000 });
    expectError(
      await call("a2c/create", { tid: newTid(), amount: 5_000, rate_id: 9, receiver_card: "8600123412341234", token: "tok_sandbox_ok" }),
      404,
      "RATE_NOT_FOUND",
    );
  });

  it("declines a sender token that is not a sandbox card at create", async () => {
    expectError(
      await call("a2c/create", { tid: newTid(), amount: 5_000, rate_id: 1, receiver_card: "8600123412341234", token: "tok_x" }),
      402,
      "CARD_DECLINED",
    );
  });

  it("sets is_verify from 1000000 tiyin", async () => {
    expect((await transfer({ amount: 999_999 })).is_verify).toBe(false);
    expect((await transfer({ amount: 1_000_000 })).is_verify).toBe(true);
  });

  it("pays a transfer without OTP when not is_verify: state 4, pay_date in ms, OTP not counted", async () => {
    const created = await transfer();
    const { status, body } = await payTransfer(created.receipt_id, "000000");
    expect(status).toBe(200);
    expect(body).toMatchObject({ receipt_id: created.receipt_id, state: 4, error: "", cancel_date: null });
    expect(String(body.pay_date)).toMatch(MS);
    expect((await sandboxRecord("a2c", created.receipt_id)).body.otp_attempts).toBe(0);
    expectError(await payTransfer(created.receipt_id), 400, "RECEIPT_ALREADY_PAID");
  });

  it("requires and counts the OTP of an is_verify transfer", async () => {
    const created = await transfer({ amount: 2_000_000 });
    expectError(await payTransfer(created.receipt_id), 400, "OTP_REQUIRED");
    expect((await payTransfer(created.receipt_id, OTP)).body.state).toBe(4);
    expect((await sandboxRecord("a2c", created.receipt_id)).body).toMatchObject({ state: 4, otp_attempts: 1 });
  });

  it("cancels a transfer on the third wrong OTP", async () => {
    const created = await transfer({ amount: 2_000_000 });
    const first = await payTransfer(created.receipt_id, "1");
    expectError(first, 400, "OTP_INVALID");
    expect(first.body.attempts_left).toBe(2);
    expectError(await payTransfer(created.receipt_id, "2"), 400, "OTP_INVALID");
    const third = await payTransfer(created.receipt_id, "3");
    expectError(third, 400, "OTP_ATTEMPTS_EXCEEDED");
    expect(third.body.transfer.state).toBe(21);
    expect(String(third.body.transfer.cancel_date)).toMatch(MS);
    expect((await sandboxRecord("a2c", created.receipt_id)).body.otp_attempts).toBe(3);
    expectError(await payTransfer(created.receipt_id, OTP), 400, "RECEIPT_CANCELLED");
  });

  it("refuses receiver 8600000000000098 at pay with 402 RECEIVER_UNAVAILABLE, state 0, error set", async () => {
    const created = await transfer({ receiver_card: "8600000000000098" });
    const answer = await payTransfer(created.receipt_id);
    expectError(answer, 402, "RECEIVER_UNAVAILABLE");
    expect(answer.body.transfer.state).toBe(0);
    expect(answer.body.transfer.error).not.toBe("");
  });

  it("declines tok_sandbox_insufficient at pay, not at create", async () => {
    const created = await transfer({ token: "tok_sandbox_insufficient" });
    expectError(await payTransfer(created.receipt_id), 402, "INSUFFICIENT_FUNDS");
    expect((await sandboxRecord("a2c", created.receipt_id)).body.state).toBe(0);
  });

  it("answers a sender tok_sandbox_error with 500 INTERNAL_ERROR at pay", async () => {
    const created = await transfer({ token: "tok_sandbox_error" });
    expectError(await payTransfer(created.receipt_id), 500, "INTERNAL_ERROR");
  });

  it("reads a transfer back with get-by-id, 404 RECEIPT_NOT_FOUND when unknown", async () => {
    const created = await transfer();
    expect((await call("a2c/get-by-id", { id: created.receipt_id })).body).toEqual(created);
    expectError(await call("a2c/get-by-id", { id: "01J00000000000000000000000" }), 404, "RECEIPT_NOT_FOUND");
    expectError(await payTransfer("01J00000000000000000000000"), 404, "RECEIPT_NOT_FOUND");
  });
});

describe("call log", () => {
  it("lists every operation that reached the sandbox with its identifiers, status and code, never card data", async () => {
    const tid = newTid();
    const receipt = (await call("receipt/create", { tid, amount: 200_000, merchant_id: 1001 }, { ...AUTH, "x-request-id": "log-1" })).body;
    // Never authorized: refused unjudged, and logged like any call.
    await call("receipt/anonymous/pay", { id: receipt.id, card: { number: "8600000000000007", expire: FUTURE }, otp: "314159" });
    await call("receipt/create", "{broken");
    await call("receipt/check-id", { id: receipt.id }, { "content-type": "application/json" });
    const res = await upstream().fetch("https://x/__sandbox/calls");
    expect(res.status).toBe(200);
    const calls: Json[] = await res.json();
    const mine = calls.filter((c) => c.tid === tid || c.id === receipt.id);
    expect(mine.map(({ path, tid: t, id, status, code }) => ({ path, tid: t, id, status, code }))).toEqual([
      { path: "receipt/create", tid, id: null, status: 200, code: null },
      { path: "receipt/anonymous/pay", tid: null, id: receipt.id, status: 400, code: "OTP_EXPIRED" },
    ]);
    expect(mine[0].request_id).toBe("log-1");
    expect(mine[0].seq).toBeLessThan(mine[1].seq);
    expect(calls.some((c) => c.path === "receipt/create" && c.code === "VALIDATION_ERROR" && c.tid === null)).toBe(true);
    const text = JSON.stringify(calls);
    expect(text).not.toContain("8600000000000007");
    expect(text).not.toContain("314159");
  });
});

describe("card data at rest", () => {
  it("never stores a raw card number, expiry, token or OTP in the sandbox's SQL", async () => {
    const receipt = await created({ merchant_id: 1001 });
    await sendOtp(receipt.id, { number: "9860000000000018", expire: "2911" });
    await call("receipt/anonymous/pay", { id: receipt.id, card: { number: "9860000000000018", expire: "2911" }, otp: "271828" });
    await call("receipt/anonymous/pay", { id: receipt.id, card: { number: "9860000000000018", expire: "2911" }, otp: OTP });
    const other = await created({ merchant_id: 1001 });
    await sendOtp(other.id);
    await payToken(other.id, "tok_sandbox_supplier_pending", OTP);
    await transfer({ receiver_card: "8600555566667777", token: "tok_sandbox_insufficient", amount: 2_000_000 });
    if (!env.SANDBOX) throw new Error("SANDBOX binding missing");
    const stub = env.SANDBOX.get(env.SANDBOX.idFromName("sandbox"));
    const dump = await runInDurableObject(stub, (_instance, state) =>
      JSON.stringify(["receipts", "transfers", "tids", "calls"].map((t) => state.storage.sql.exec(`SELECT * FROM ${t}`).toArray())),
    );
    // Short values are checked as whole SQL values, so random digits elsewhere cannot match them.
    for (const secret of ["9860000000000018", "8600555566667777", '"2911"', '"271828"', `"${OTP}"`, "tok_sandbox_"]) {
      expect(dump).not.toContain(secret);
    }
    expect(dump).toContain("986000******0018");
  });
});

describe("tok_sandbox_paid_timeout", () => {
  it("pays at once (4 with a Sale ofd; 5 for a hold receipt; 4 for a transfer) and answers 200 only after SANDBOX_TIMEOUT_DELAY_MS", async () => {
    const plain = await created({ merchant_id: 1003 });
    const hold = await created({ merchant_id: 1003, is_hold: true });
    const moved = await transfer({ token: "tok_sandbox_paid_timeout" });
    const started = Date.now();
    const slowPlain = payToken(plain.id, "tok_sandbox_paid_timeout");
    const slowHold = payToken(hold.id, "tok_sandbox_paid_timeout");
    const slowTransfer = call("a2c/pay", { id: moved.receipt_id });
    // While the answers are held back, the sandbox has already acted and logged the calls.
    await expect.poll(async () => (await sandboxRecord("receipts", plain.id)).body.state, { timeout: 3_000 }).toBe(4);
    await expect.poll(async () => (await sandboxRecord("receipts", hold.id)).body.state, { timeout: 3_000 }).toBe(5);
    await expect.poll(async () => (await sandboxRecord("a2c", moved.receipt_id)).body.state, { timeout: 3_000 }).toBe(4);
    expect(Date.now() - started).toBeLessThan(3_500);
    const seen = (await sandboxRecord("receipts", plain.id)).body;
    expect(seen).toMatchObject({ card_number: "860049******0060", ofd: { type: "Sale" }, card_behaviour: "paid_timeout" });
    expect(String(seen.pay_date)).toMatch(SECONDS);
    expect((await sandboxRecord("receipts", hold.id)).body).toMatchObject({ hold_status: "held", ofd: null, pay_date: 0 });
    const logged = (await (await upstream().fetch(`https://x/__sandbox/calls?id=${plain.id}`)).json()) as Json[];
    expect(logged.map((c) => [c.path, c.status])).toEqual([["receipt/pay", 200]]);

    const [answerPlain, answerHold, answerTransfer] = await Promise.all([slowPlain, slowHold, slowTransfer]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_900);
    expect(answerPlain.status).toBe(200);
    // The late answer is the paid receipt as it was when the sandbox acted.
    expect(answerPlain.body).toEqual((await call("receipt/check-id", { id: plain.id })).body);
    expect(answerHold.status).toBe(200);
    expect(answerHold.body).toMatchObject({ id: hold.id, state: 5 });
    expect(answerTransfer.status).toBe(200);
    expect(answerTransfer.body).toMatchObject({ receipt_id: moved.receipt_id, state: 4 });
  }, 20_000);
});

describe("tok_sandbox_busy", () => {
  const expectBusy = (answer: Answer) => {
    expect(answer.status).toBe(503);
    expect(answer.headers.get("retry-after")).toBe("1");
    expect(answer.body).toEqual({ error: { code: "BUSY", message: expect.any(String) } });
  };

  it("answers pay with 503 BUSY and Retry-After: 1, judging no OTP and changing nothing", async () => {
    const receipt = await created({ merchant_id: 1001 });
    const before = (await sandboxRecord("receipts", receipt.id)).body;
    for (const otp of ["000000", OTP, undefined, "1", "2", "3"]) expectBusy(await payToken(receipt.id, "tok_sandbox_busy", otp));
    expect((await sandboxRecord("receipts", receipt.id)).body).toEqual(before);
    expect(before).toMatchObject({ state: 0, otp_attempts: 0, wrong_otp_attempts: 0, otp_sent_at: null, card_behaviour: null });
    // The receipt is as payable as it was.
    await sendOtp(receipt.id);
    expect((await payToken(receipt.id, "tok_sandbox_ok", OTP)).body.state).toBe(4);
  });

  it("answers authorize with 503 BUSY without sending an OTP or touching the resend timer", async () => {
    const receipt = await created({ merchant_id: 1001 });
    expectBusy(await call("receipt/authorize", { id: receipt.id, card: { token: "tok_sandbox_busy" } }));
    expect((await sandboxRecord("receipts", receipt.id)).body.otp_sent_at).toBeNull();
    expect((await call("receipt/authorize", { id: receipt.id, card: { token: "tok_sandbox_ok" } })).status).toBe(200);
    const sent = (await sandboxRecord("receipts", receipt.id)).body.otp_sent_at;
    // Busy wins over the resend timer: it is answered before anything is looked at.
    expectBusy(await call("receipt/authorize", { id: receipt.id, card: { token: "tok_sandbox_busy" } }));
    expect((await sandboxRecord("receipts", receipt.id)).body.otp_sent_at).toBe(sent);
  });

  it("answers pay on a receipt in any state with 503, leaving it as it is", async () => {
    const done = await paid();
    expectBusy(await payToken(done.id, "tok_sandbox_busy"));
    expect((await call("receipt/check-id", { id: done.id })).body).toEqual(done);
  });

  it("logs the refused calls as 503 BUSY", async () => {
    const receipt = await created({ merchant_id: 1001 });
    await payToken(receipt.id, "tok_sandbox_busy", OTP);
    await call("receipt/authorize", { id: receipt.id, card: { token: "tok_sandbox_busy" } });
    const logged = (await (await upstream().fetch(`https://x/__sandbox/calls?id=${receipt.id}`)).json()) as Json[];
    expect(logged.map(({ path, status, code, otp }) => ({ path, status, code, otp }))).toEqual([
      { path: "receipt/pay", status: 503, code: "BUSY", otp: true },
      { path: "receipt/authorize", status: 503, code: "BUSY", otp: false },
    ]);
  });

  it("creates a transfer with the busy sender, then answers a2c/pay with 503 judging nothing", async () => {
    const created = await transfer({ token: "tok_sandbox_busy", amount: 2_000_000 });
    expect(created).toMatchObject({ state: 0, is_verify: true, sender: { masked_pan: "860049******0078" } });
    for (const otp of ["1", "2", "3", OTP]) expectBusy(await call("a2c/pay", { id: created.receipt_id, otp }));
    expect((await sandboxRecord("a2c", created.receipt_id)).body).toMatchObject({ state: 0, otp_attempts: 0, wrong_otp_attempts: 0 });
  });
});

describe("the supplier of a receipt in 57", () => {
  it("confirms tok_sandbox_supplier_pending once SANDBOX_SUPPLIER_DELAY_MS has passed: 4 with a Sale ofd", async () => {
    const receipt = await created({ merchant_id: 1003 });
    const before = Date.now();
    const pending = (await payToken(receipt.id, "tok_sandbox_supplier_pending")).body;
    expect(pending).toMatchObject({ state: 57, ofd: null, card_number: "860049******0037" });
    const view = (await sandboxRecord("receipts", receipt.id)).body;
    // vitest.config.ts sets the delay to 600000 so no supplier answers on its own during a run.
    expect(view.supplier_due_at).toBeGreaterThanOrEqual(before + 600_000);
    expect(view.supplier_due_at).toBeLessThanOrEqual(Date.now() + 600_000);
    expect((await call("receipt/check-id", { id: receipt.id })).body.state).toBe(57);

    await letSupplierAnswer(receipt.id);
    const confirmed = (await call("receipt/check-id", { id: receipt.id })).body;
    expect(confirmed).toMatchObject({
      state: 4,
      error: null,
      pay_date: pending.pay_date,
      cancel_date: 0,
      rrn: pending.rrn,
      card_number: pending.card_number,
      ofd: { type: "Sale", code: 0, items: [{ unit_price: 250_000, count: 1 }] },
    });
    expect((await sandboxRecord("receipts", receipt.id)).body).toMatchObject({ state: 4, supplier_due_at: null });
    // Paid now, so a second pay is refused and a cancel refunds it.
    expectError(await payToken(receipt.id, "tok_sandbox_ok"), 400, "RECEIPT_ALREADY_PAID");
    expect((await call("receipt/cancel", { id: receipt.id })).body).toMatchObject({ state: 21, ofd: { type: "Refund" } });
  });

  it("applies the answer before any operation reads the receipt and persists it", async () => {
    const receipt = await created();
    await payToken(receipt.id, "tok_sandbox_supplier_pending");
    expectError(await call("receipt/cancel", { id: receipt.id }), 400, "CANCEL_NOT_ALLOWED");
    await letSupplierAnswer(receipt.id);
    // The cancel itself is the first read after the deadline: it meets a paid receipt.
    expect((await call("receipt/cancel", { id: receipt.id })).body).toMatchObject({ state: 21, ofd: { type: "Refund" } });

    const other = await created();
    await payToken(other.id, "tok_sandbox_supplier_pending");
    await letSupplierAnswer(other.id);
    await sandboxRecord("receipts", other.id);
    const stored = await runInDurableObject(env.SANDBOX!.get(env.SANDBOX!.idFromName("sandbox")), (_instance, state) =>
      state.storage.sql.exec<{ state: number; ofd: string | null }>("SELECT state, ofd FROM receipts WHERE id = ?", other.id).one(),
    );
    expect(stored.state).toBe(4);
    expect(JSON.parse(stored.ofd!).type).toBe("Sale");
  });

  it("leaves an is_hold receipt held (5) when the supplier confirms, as a normal pay would", async () => {
    const receipt = await created({ is_hold: true });
    expect((await payToken(receipt.id, "tok_sandbox_supplier_pending")).body.state).toBe(57);
    await letSupplierAnswer(receipt.id);
    expect((await call("receipt/check-id", { id: receipt.id })).body).toMatchObject({ state: 5, pay_date: 0, ofd: null });
    expect((await call("receipt/hold-confirm", { id: receipt.id })).body).toMatchObject({ state: 4, ofd: { type: "Sale" } });
  });

  it("refuses tok_sandbox_supplier_fails after the delay: 21, cancel_date set, error says why, no ofd", async () => {
    const receipt = await created();
    const pending = (await payToken(receipt.id, "tok_sandbox_supplier_fails")).body;
    expect(pending).toMatchObject({ state: 57, ofd: null, card_number: "860049******0086" });
    expect((await call("receipt/check-id", { id: receipt.id })).body.state).toBe(57);
    await letSupplierAnswer(receipt.id);
    const refused = (await call("receipt/check-id", { id: receipt.id })).body;
    expect(refused).toMatchObject({ state: 21, ofd: null, rrn: pending.rrn, pay_date: pending.pay_date });
    expect(String(refused.cancel_date)).toMatch(SECONDS);
    expect(refused.error).toMatch(/supplier refused/i);
    expectError(await payToken(receipt.id, "tok_sandbox_ok"), 400, "RECEIPT_CANCELLED");
    expectError(await call("receipt/cancel", { id: receipt.id }), 400, "CANCEL_NOT_ALLOWED");
  });

  it("a letSupplierAnswer on a receipt with nothing pending changes nothing", async () => {
    const done = await paid();
    await letSupplierAnswer(done.id);
    expect((await call("receipt/check-id", { id: done.id })).body).toEqual(done);
  });
});

describe("tok_sandbox_pays_late", () => {
  const payLate = (id: string, otp?: string) => payToken(id, "tok_sandbox_pays_late", otp);
  const callsOf = async (id: string) =>
    ((await (await upstream().fetch(`https://x/__sandbox/calls?id=${id}`)).json()) as Json[]).map((c) => [c.path, c.status, c.code]);

  it("answers pay as tok_sandbox_timeout does (500 after SANDBOX_TIMEOUT_DELAY_MS, state 0), then pays SANDBOX_LATE_MS after the call", async () => {
    const plain = await created({ merchant_id: 1003 });
    const hold = await created({ merchant_id: 1003, is_hold: true });
    const moved = await transfer({ token: "tok_sandbox_pays_late" });
    const started = Date.now();
    const answers = await Promise.all([payLate(plain.id), payLate(hold.id), call("a2c/pay", { id: moved.receipt_id })]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_900);
    for (const answer of answers) expectError(answer, 500, "INTERNAL_ERROR");
    expect(await callsOf(plain.id)).toEqual([["receipt/pay", 500, "INTERNAL_ERROR"]]);

    // Nothing is paid yet, and a reconciliation's read sees 0: vitest.config.ts sets the delay to 600000.
    const view = (await sandboxRecord("receipts", plain.id)).body;
    expect(view).toMatchObject({ state: 0, pay_date: 0, rrn: null, ofd: null, card_behaviour: "pays_late" });
    expect(view.late_pay_due_at).toBeGreaterThanOrEqual(started + 600_000);
    expect(view.late_pay_due_at).toBeLessThanOrEqual(Date.now() + 600_000);
    expect((await call("receipt/check-id", { id: plain.id })).body.state).toBe(0);
    expect((await call("receipt/check-id", { id: hold.id })).body.state).toBe(0);
    expect((await call("a2c/get-by-id", { id: moved.receipt_id })).body.state).toBe(0);
    expect((await sandboxRecord("a2c", moved.receipt_id)).body.late_pay_due_at).toBeGreaterThanOrEqual(started + 600_000);

    for (const id of [plain.id, hold.id, moved.receipt_id]) await letLatePayHappen(id);
    const late = (await call("receipt/check-id", { id: plain.id })).body;
    expect(late).toMatchObject({
      state: 4,
      error: null,
      cancel_date: 0,
      card_number: "860049******0094",
      ofd: { type: "Sale", code: 0 },
    });
    expect(String(late.pay_date)).toMatch(SECONDS);
    expect(late.rrn).toMatch(/^\d{12}$/);
    expect((await sandboxRecord("receipts", plain.id)).body).toMatchObject({ state: 4, late_pay_due_at: null });
    // A hold receipt is held, as a normal pay of it would leave it.
    expect((await call("receipt/check-id", { id: hold.id })).body).toMatchObject({ state: 5, pay_date: 0, ofd: null });
    expect((await sandboxRecord("receipts", hold.id)).body.hold_status).toBe("held");
    const movedLate = (await call("a2c/get-by-id", { id: moved.receipt_id })).body;
    expect(movedLate).toMatchObject({ state: 4 });
    expect(String(movedLate.pay_date)).toMatch(MS);
    // Paid now, as any paid receipt: a second pay is refused and a cancel refunds it.
    expectError(await payToken(plain.id, "tok_sandbox_ok"), 400, "RECEIPT_ALREADY_PAID");
    expect((await call("receipt/cancel", { id: plain.id })).body).toMatchObject({ state: 21, ofd: { type: "Refund" } });
  }, 30_000);

  it("judges the OTP of an is_verify receipt first: a wrong one is OTP_INVALID and schedules nothing, the right one is counted and paid late", async () => {
    const receipt = await created({ merchant_id: 1001 });
    await sendOtp(receipt.id);
    const wrong = await payLate(receipt.id, "000000");
    expectError(wrong, 400, "OTP_INVALID");
    expect((await sandboxRecord("receipts", receipt.id)).body).toMatchObject({ state: 0, late_pay_due_at: null, wrong_otp_attempts: 1 });
    expectError(await payLate(receipt.id, OTP), 500, "INTERNAL_ERROR");
    expect((await sandboxRecord("receipts", receipt.id)).body).toMatchObject({ state: 0, otp_attempts: 2, wrong_otp_attempts: 1 });
    await letLatePayHappen(receipt.id);
    expect((await sandboxRecord("receipts", receipt.id)).body).toMatchObject({ state: 4, otp_attempts: 2, late_pay_due_at: null });
  }, 30_000);

  it("pays nothing twice: a receipt cancelled or paid before the deadline stays as it is, and a repeated pay keeps the first deadline", async () => {
    const cancelled = await created();
    const paidMeanwhile = await created();
    const repeated = await created();
    await Promise.all([payLate(cancelled.id), payLate(paidMeanwhile.id), payLate(repeated.id)]);
    const first = (await sandboxRecord("receipts", repeated.id)).body.late_pay_due_at;
    const [cancel, paidOk] = await Promise.all([
      call("receipt/cancel", { id: cancelled.id }),
      payToken(paidMeanwhile.id, "tok_sandbox_ok"),
      payLate(repeated.id),
    ]);
    expect(cancel.body).toMatchObject({ state: 21, ofd: null });
    expect(paidOk.body).toMatchObject({ state: 4, card_number: "860049******0011" });
    expect((await sandboxRecord("receipts", repeated.id)).body.late_pay_due_at).toBe(first);

    for (const id of [cancelled.id, paidMeanwhile.id, repeated.id]) await letLatePayHappen(id);
    expect((await call("receipt/check-id", { id: cancelled.id })).body).toEqual(cancel.body);
    expect((await call("receipt/check-id", { id: paidMeanwhile.id })).body).toEqual(paidOk.body);
    expect((await call("receipt/check-id", { id: repeated.id })).body.state).toBe(4);
    for (const id of [cancelled.id, paidMeanwhile.id]) {
      expect((await sandboxRecord("receipts", id)).body.late_pay_due_at).toBeNull();
    }
  }, 30_000);

  it("a letLatePayHappen on a receipt with nothing pending changes nothing", async () => {
    const receipt = await created();
    await letLatePayHappen(receipt.id);
    expect((await sandboxRecord("receipts", receipt.id)).body).toMatchObject({ state: 0, late_pay_due_at: null });
  });
});

describe("tok_sandbox_judges_unknown", () => {
  const payUnknown = (id: string, otp?: string) => payToken(id, "tok_sandbox_judges_unknown", otp);
  const expectUnknown = (answer: Answer) => {
    expect(answer.status).toBe(400);
    // The bare envelope: nothing in the answer says what the upstream did.
    expect(answer.body).toEqual({ error: { code: "SANDBOX_UNKNOWN", message: expect.any(String) } });
  };

  it("judges and counts each OTP, pays nothing and answers 400 SANDBOX_UNKNOWN; the third wrong one cancels, as any does", async () => {
    const receipt = await created({ merchant_id: 1001 });
    await sendOtp(receipt.id);
    for (const [n, state] of [
      [1, 0],
      [2, 0],
      [3, 21],
    ]) {
      expectUnknown(await payUnknown(receipt.id, `00000${n}`));
      expect((await sandboxRecord("receipts", receipt.id)).body).toMatchObject({
        state,
        otp_attempts: n,
        wrong_otp_attempts: n,
        pay_date: 0,
        card_behaviour: "judges_unknown",
      });
    }
    // Cancelled: the next pay is refused before any OTP is looked at, with a code the gateway knows.
    expectError(await payUnknown(receipt.id, "000004"), 400, "RECEIPT_CANCELLED");
    expect((await sandboxRecord("receipts", receipt.id)).body.otp_attempts).toBe(3);
    const logged = (await (await upstream().fetch(`https://x/__sandbox/calls?id=${receipt.id}`)).json()) as Json[];
    expect(logged.filter((c) => c.path === "receipt/pay").map(({ status, code, otp }) => [status, code, otp])).toEqual([
      [400, "SANDBOX_UNKNOWN", true],
      [400, "SANDBOX_UNKNOWN", true],
      [400, "SANDBOX_UNKNOWN", true],
      [400, "RECEIPT_CANCELLED", true],
    ]);
  });

  it("answers the right OTP the same way: counted, not wrong, nothing paid, the receipt still payable", async () => {
    const receipt = await created({ merchant_id: 1001 });
    await sendOtp(receipt.id);
    expectUnknown(await payUnknown(receipt.id, OTP));
    expect((await sandboxRecord("receipts", receipt.id)).body).toMatchObject({ state: 0, otp_attempts: 1, wrong_otp_attempts: 0, rrn: null });
    expect((await payToken(receipt.id, "tok_sandbox_ok", OTP)).body).toMatchObject({ state: 4 });
  });

  it("keeps the known codes of an OTP it does not judge (missing, expired), and pays no receipt that needs none", async () => {
    const receipt = await created({ merchant_id: 1001 });
    expectError(await payUnknown(receipt.id), 400, "OTP_REQUIRED");
    expectError(await payUnknown(receipt.id, OTP), 400, "OTP_EXPIRED");
    expect((await sandboxRecord("receipts", receipt.id)).body).toMatchObject({ state: 0, wrong_otp_attempts: 0, expired_otp_attempts: 1 });
    const plain = await created({ merchant_id: 1003 });
    expectUnknown(await payUnknown(plain.id));
    expect((await sandboxRecord("receipts", plain.id)).body).toMatchObject({ state: 0, otp_attempts: 0, pay_date: 0, rrn: null });
  });

  it("does the same as the sender of a transfer", async () => {
    const moved = await transfer({ token: "tok_sandbox_judges_unknown", amount: 2_000_000 });
    expect(moved.is_verify).toBe(true);
    expectUnknown(await call("a2c/pay", { id: moved.receipt_id, otp: "000000" }));
    expectUnknown(await call("a2c/pay", { id: moved.receipt_id, otp: OTP }));
    expect((await sandboxRecord("a2c", moved.receipt_id)).body).toMatchObject({ state: 0, otp_attempts: 2, wrong_otp_attempts: 1 });
  });
});

describe("call log: otp flag and id filter", () => {
  it("says whether a body carried a non-empty OTP, never its value", async () => {
    const receipt = await created({ merchant_id: 1001 });
    await payToken(receipt.id, "tok_sandbox_ok");
    await call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" }, otp: "" });
    await payToken(receipt.id, "tok_sandbox_ok", "987654");
    await call("receipt/anonymous/pay", { id: receipt.id, card: { number: "8600000000000007", expire: FUTURE }, otp: "192837" });
    await call("receipt/check-id", { id: receipt.id });
    const res = await upstream().fetch(`https://x/__sandbox/calls?id=${receipt.id}`);
    const logged = (await res.json()) as Json[];
    expect(logged.map(({ path, otp }) => [path, otp])).toEqual([
      ["receipt/pay", false],
      ["receipt/pay", false],
      ["receipt/pay", true],
      ["receipt/anonymous/pay", true],
      ["receipt/check-id", false],
    ]);
    const text = JSON.stringify(logged);
    for (const secret of ["987654", "192837", "8600000000000007"]) expect(text).not.toContain(secret);
  });

  it("GET /__sandbox/calls?id= lists only the calls naming that record, oldest first", async () => {
    const one = await created();
    const two = await created();
    await call("receipt/check-id", { id: two.id });
    await call("receipt/check-id", { id: one.id });
    await call("receipt/cancel", { id: one.id });
    const logged = (await (await upstream().fetch(`https://x/__sandbox/calls?id=${one.id}`)).json()) as Json[];
    expect(logged.map((c) => c.path)).toEqual(["receipt/check-id", "receipt/cancel"]);
    expect(logged.every((c) => c.id === one.id)).toBe(true);
    expect(logged[0].seq).toBeLessThan(logged[1].seq);
    expect(await (await upstream().fetch("https://x/__sandbox/calls?id=nobody")).json()).toEqual([]);
  });
});

describe("schema upgrade", () => {
  it("adds the columns an older sandbox store lacks, and is harmless to run again", async () => {
    const stub = env.SANDBOX!.get(env.SANDBOX!.idFromName(`schema-${crypto.randomUUID()}`));
    const columns = await runInDurableObject(stub, (_instance, state) => {
      const sql = state.storage.sql;
      sql.exec("DROP TABLE receipts");
      sql.exec("DROP TABLE transfers");
      sql.exec("DROP TABLE calls");
      sql.exec(`CREATE TABLE receipts (
        id TEXT PRIMARY KEY, tid TEXT NOT NULL UNIQUE, merchant_id INTEGER NOT NULL, amount INTEGER NOT NULL,
        commission INTEGER NOT NULL, currency INTEGER NOT NULL, description TEXT, account TEXT NOT NULL,
        is_hold INTEGER NOT NULL, is_verify INTEGER NOT NULL, state INTEGER NOT NULL, created_ms INTEGER NOT NULL,
        paid_ms INTEGER, cancelled_ms INTEGER, error TEXT, rrn TEXT, card_number TEXT, card_behaviour TEXT,
        hold_status TEXT, ofd TEXT, otp_attempts INTEGER NOT NULL DEFAULT 0, wrong_otps INTEGER NOT NULL DEFAULT 0,
        otp_sent_ms INTEGER, cancel_reason TEXT, cancelled_by TEXT)`);
      sql.exec(`CREATE TABLE transfers (
        id TEXT PRIMARY KEY, tid TEXT NOT NULL UNIQUE, amount INTEGER NOT NULL, commission INTEGER NOT NULL,
        rate_id INTEGER NOT NULL, sender_behaviour TEXT NOT NULL, receiver_pan TEXT NOT NULL,
        receiver_unavailable INTEGER NOT NULL, is_verify INTEGER NOT NULL, state INTEGER NOT NULL,
        created_ms INTEGER NOT NULL, paid_ms INTEGER, cancelled_ms INTEGER, error TEXT NOT NULL DEFAULT '',
        otp_attempts INTEGER NOT NULL DEFAULT 0, wrong_otps INTEGER NOT NULL DEFAULT 0)`);
      sql.exec(`CREATE TABLE calls (
        seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, path TEXT NOT NULL, tid TEXT, id TEXT,
        status INTEGER NOT NULL, code TEXT, request_id TEXT)`);
      sql.exec("INSERT INTO calls (at, path, status) VALUES (1, 'receipt/check-id', 200)");
      ensureSchema(sql);
      ensureSchema(sql);
      const names = (table: string) =>
        sql
          .exec<{ name: string }>(`PRAGMA table_info(${table})`)
          .toArray()
          .map((c) => c.name);
      const old = sql.exec<{ otp: number }>("SELECT otp FROM calls").one();
      return { receipts: names("receipts"), transfers: names("transfers"), calls: names("calls"), oldOtp: old.otp };
    });
    expect(columns.receipts).toContain("supplier_due_ms");
    expect(columns.receipts).toContain("expired_otps");
    expect(columns.receipts).toContain("late_pay_due_ms");
    expect(columns.transfers).toContain("late_pay_due_ms");
    expect(columns.calls).toContain("otp");
    expect(columns.oldOtp).toBe(0);
  });
});
