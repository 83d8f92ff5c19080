// Upstream faults, through the gateway: answers late or lost, 5xx, busy,
// bodies the gateway cannot read, refusals it does not know, the supplier's
// own time (57). Each test reproduces a way money went wrong before, and
// asserts what a caller and the upstream observe.
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { readConfig } from "../../src/config/config";
import { receiptStub } from "../../src/record/receipt-object";
import type { KindName } from "../../src/rules/lifecycle";
import { loggedEventTypes } from "../events";
import {
  alarmWithinADay,
  call,
  callSettled,
  createReceipt,
  DAY_MS,
  expectError,
  expectStatus,
  letLatePayHappen,
  letSupplierAnswer,
  letTimePass,
  newTid,
  newUser,
  OTP_OK,
  OTP_WRONG,
  receiptRequest,
  sandboxCalls,
  sandboxReceipt,
  sandboxTransfer,
  storedRecord,
  transferRequest,
  userToken,
} from "../helpers";
import { forwardDeferred, scriptedUpstream } from "../support/scripted-upstream";

const TOKEN = { token: "tok_sandbox_ok" };
const pay = (id: string, otp?: string, token = "tok_sandbox_ok") => call("receipt/pay", { id, card: { token }, ...(otp ? { otp } : {}) });

const outboxTypes = (kind: KindName, id: string): Promise<string[]> => loggedEventTypes(kind, id);

async function authorized(merchant_id = 1001) {
  const receipt = await createReceipt({ merchant_id });
  if (merchant_id === 1001) await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 200);
  return receipt;
}

describe("what is not a guess (rule 2)", () => {
  it("three busy answers (503) to the right OTP judge nothing: the fourth pays", async () => {
    const receipt = await authorized();
    for (let i = 0; i < 3; i++) {
      const res = await pay(receipt.id, OTP_OK, "tok_sandbox_busy");
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      await expectError(res, 503, "upstream_unavailable");
    }
    expect((await expectStatus(pay(receipt.id, OTP_OK), 200)).state).toBe(4);
    expect(await storedRecord("receipt", receipt.id)).toMatchObject({ wrong_otps: 0, unconfirmed_otps: 0 });
  });

  it("429 from the upstream is upstream_unavailable with Retry-After, and no guess", async () => {
    const receipt = await authorized();
    scriptedUpstream.on("receipt/pay", { kind: "status", status: 429, code: "TOO_MANY_REQUESTS", retryAfter: 7 }, { times: 3 });
    for (let i = 0; i < 3; i++) {
      const res = await pay(receipt.id, OTP_WRONG);
      expect(res.headers.get("retry-after")).toBe("7");
      await expectError(res, 503, "upstream_unavailable");
    }
    expect((await expectError(pay(receipt.id, OTP_WRONG), 422, "otp_invalid")).attempts_left).toBe(2);
  });

  it("OTP_EXPIRED is 409 otp_expired, and no guess", async () => {
    const receipt = await authorized();
    scriptedUpstream.on("receipt/pay", { kind: "status", status: 400, code: "OTP_EXPIRED" }, { times: 3 });
    for (let i = 0; i < 3; i++) await expectError(pay(receipt.id, OTP_OK), 409, "otp_expired");
    expect((await expectStatus(pay(receipt.id, OTP_OK), 200)).state).toBe(4);
  });

  it("a VALIDATION_ERROR refusal of a pay with an OTP is 400 invalid_request, and no guess: the OTP was never judged", async () => {
    const receipt = await authorized();
    scriptedUpstream.on(
      "receipt/pay",
      { kind: "status", status: 400, code: "VALIDATION_ERROR", message: "card.token is malformed" },
      { id: receipt.id },
    );
    const error = await expectError(pay(receipt.id, OTP_WRONG), 400, "invalid_request");
    expect(error.attempts_left).toBeUndefined();
    expect(await storedRecord("receipt", receipt.id)).toMatchObject({ state: 0, pending_op: null, wrong_otps: 0, unconfirmed_otps: 0 });
    expect((await expectError(pay(receipt.id, OTP_WRONG), 422, "otp_invalid")).attempts_left).toBe(2);
  });

  it("a refused credential is no guess either", async () => {
    const receipt = await authorized();
    scriptedUpstream.on("receipt/pay", { kind: "status", status: 401, code: "UNAUTHORIZED" }, { times: 3 });
    for (let i = 0; i < 3; i++) await expectError(pay(receipt.id, OTP_WRONG), 502, "upstream_error");
    expect((await expectError(pay(receipt.id, OTP_WRONG), 422, "otp_invalid")).attempts_left).toBe(2);
  });
});

describe("what is a guess (rule 2)", () => {
  it("an OTP whose answer was lost and did not pay counts; three such end the receipt, said so", async () => {
    const receipt = await authorized();
    for (let i = 0; i < 3; i++) {
      scriptedUpstream.on("receipt/pay", { kind: "status", status: 500 });
      await expectError(pay(receipt.id, OTP_OK), 502, "upstream_error");
    }
    const exhausted = await expectError(pay(receipt.id, OTP_OK), 409, "otp_attempts_exhausted");
    expect(exhausted.message).toMatch(/3 whose answer was lost/);
    // A lost pay may yet land: the gateway's cancel waits for the late reads (rule 8), then ends the receipt.
    expect((await sandboxReceipt(receipt.id)).state).toBe(0);
    letTimePass(120_000);
    await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
    expect((await sandboxReceipt(receipt.id)).state).toBe(21);
    expect(await outboxTypes("receipt", receipt.id)).toEqual(["receipt.created", "receipt.otp_attempts_exhausted", "receipt.cancelled"]);
  });

  it("refusals in codes the gateway does not know, after the upstream judged the OTP, count: no fourth OTP reaches it", async () => {
    const receipt = await authorized();
    // The upstream judges each OTP (act: the sandbox counts it), then refuses in words of its own.
    scriptedUpstream.on("receipt/pay", { kind: "status", status: 400, code: "ACQUIRER_SAYS_NO", act: true }, { id: receipt.id, times: 3 });
    const left: number[] = [];
    for (let i = 0; i < 2; i++) left.push((await expectError(pay(receipt.id, OTP_WRONG), 422, "upstream_refused")).attempts_left);
    expect(left).toEqual([2, 1]);
    const exhausted = await expectError(pay(receipt.id, OTP_WRONG), 409, "otp_attempts_exhausted");
    expect(exhausted.message).toMatch(/3 whose answer was lost/);
    await expectError(pay(receipt.id, OTP_OK), 409, "otp_attempts_exhausted");
    const upstream = await sandboxReceipt(receipt.id);
    expect(upstream.otp_attempts).toBe(3);
    expect(upstream.state).toBe(21);
  });

  it.each([
    ["a JSON body with no error code", 400, "{}"],
    ["a body that is not JSON", 403, "<html><body>403 Forbidden</body></html>"],
  ])(
    "a refusal of an OTP with %s (a 4xx in no code) is 422 upstream_refused naming its status, and the OTP counts as a guess",
    async (_name, status, body) => {
      const receipt = await authorized();
      scriptedUpstream.on("receipt/pay", { kind: "body", status, body, act: false }, { id: receipt.id });
      const error = await expectError(pay(receipt.id, OTP_WRONG), 422, "upstream_refused");
      expect(error.upstream_code).toBe(`HTTP_${status}`);
      expect(error.message).toMatch(/counts as a guess/);
      expect(error.attempts_left).toBe(2);
      expect(await storedRecord("receipt", receipt.id)).toMatchObject({ state: 0, pending_op: null, wrong_otps: 0, unconfirmed_otps: 1 });
      // Two more guesses end it: the next wrong OTP has one try left.
      expect((await expectError(pay(receipt.id, OTP_WRONG), 422, "otp_invalid")).attempts_left).toBe(1);
    },
  );

  it("the sandbox's tok_sandbox_judges_unknown: three right-or-wrong OTPs judged behind an unknown code end the receipt", async () => {
    const receipt = await authorized();
    for (const attemptsLeft of [2, 1]) {
      expect((await expectError(pay(receipt.id, OTP_OK, "tok_sandbox_judges_unknown"), 422, "upstream_refused")).attempts_left).toBe(attemptsLeft);
    }
    await expectError(pay(receipt.id, OTP_WRONG, "tok_sandbox_judges_unknown"), 409, "otp_attempts_exhausted");
    await expectError(pay(receipt.id, OTP_OK), 409, "otp_attempts_exhausted");
    expect(await sandboxReceipt(receipt.id)).toMatchObject({ otp_attempts: 3, state: 21 });
  });

  it("an OTP whose answer was lost but that paid is no guess: the upstream paid at once, answered late", async () => {
    const receipt = await authorized();
    await expectError(pay(receipt.id, OTP_OK, "tok_sandbox_paid_timeout"), 504, "upstream_timeout");
    await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
    expect(await storedRecord("receipt", receipt.id)).toMatchObject({ state: 4, pending_op: null, wrong_otps: 0, unconfirmed_otps: 0 });
    await expectError(pay(receipt.id, OTP_OK), 409, "receipt_already_paid");
    expect((await sandboxCalls()).filter((c) => c.path === "receipt/pay" && c.id === receipt.id)).toHaveLength(1);
  });

  it("a transfer exhausted by lost answers is closed at the edge: no receipt/cancel, the upstream's state shown", async () => {
    const transfer = await expectStatus(call("a2c/create", transferRequest({ amount: 2_000_000 })), 200);
    const id = transfer.receipt_id;
    scriptedUpstream.on("a2c/pay", { kind: "status", status: 502 }, { times: 3 });
    for (let i = 0; i < 3; i++) await call("a2c/pay", { id, otp: OTP_OK });
    const exhausted = await expectError(call("a2c/pay", { id, otp: OTP_OK }), 409, "otp_attempts_exhausted");
    expect(exhausted.message).toMatch(/closed at the gateway.*transfer/);
    expect((await expectStatus(call("a2c/get-by-id", { id }), 200)).state).toBe(0);
    expect((await sandboxTransfer(id)).state).toBe(0);
    // The three pays were answered 502 before the upstream judged them; nothing else went out but reads.
    expect(scriptedUpstream.fired().status).toBe(3);
    const paths = (await sandboxCalls()).filter((c) => c.id === id).map((c) => c.path);
    expect(new Set(paths)).toEqual(new Set(["a2c/get-by-id"]));
    expect(await outboxTypes("transfer", id)).toEqual(["transfer.created", "transfer.otp_attempts_exhausted"]);
  });
});

describe("a receipt the upstream will not cancel, once guesses run out, is closed at the edge and left alone", () => {
  async function exhaustByLostAnswers(id: string) {
    const card = { number: "8600000000000007", expire: "3012" };
    for (let i = 0; i < 3; i++) {
      scriptedUpstream.on("receipt/anonymous/pay", { kind: "status", status: 500 }, { id });
      await expectError(call("receipt/anonymous/pay", { id, card, otp: OTP_OK }), 502, "upstream_error");
    }
    return expectError(call("receipt/anonymous/pay", { id, card, otp: OTP_OK }), 409, "otp_attempts_exhausted");
  }

  /** Alarms until none is set (or only the one that deletes the final record, rule 10), the late reads of a lost call (rule 8) made due first: then nothing else may keep the alarm going. */
  async function alarmsUntilQuiet(id: string): Promise<number> {
    letTimePass(2 * DAY_MS);
    const stub = receiptStub(env, "receipt", id);
    let rounds = 0;
    while (rounds < 10 && (await alarmWithinADay(stub)) && (await runDurableObjectAlarm(stub))) rounds++;
    return rounds;
  }

  it("a QR merchant's receipt: no cancel is sent, and its alarm ends", async () => {
    const receipt = await createReceipt({ merchant_id: 1002 });
    const exhausted = await exhaustByLostAnswers(receipt.id);
    expect(exhausted.message).toMatch(/closed at the gateway/);
    expect(await alarmsUntilQuiet(receipt.id)).toBeLessThan(10);
    expect((await sandboxCalls()).filter((c) => c.id === receipt.id).map((c) => c.path)).not.toContain("receipt/cancel");
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN }), 409, "otp_attempts_exhausted");
  });

  it("a cancel the upstream refuses for good (no access) is sent once, then the receipt stays closed at the edge", async () => {
    const receipt = await authorized();
    scriptedUpstream.on("receipt/cancel", { kind: "status", status: 403, code: "CANCEL_ACCESS_DENIED" }, { id: receipt.id, times: 5 });
    for (let i = 0; i < 2; i++) await expectError(pay(receipt.id, OTP_WRONG), 422, "otp_invalid");
    scriptedUpstream.on("receipt/pay", { kind: "status", status: 500 }, { id: receipt.id });
    await expectError(pay(receipt.id, OTP_WRONG), 502, "upstream_error");
    await expectError(pay(receipt.id, OTP_OK), 409, "otp_attempts_exhausted");
    // The cancel leaves once the lost pay's late reads are done (rule 8), is refused, and is never sent again.
    expect(await alarmsUntilQuiet(receipt.id)).toBeLessThan(10);
    expect(scriptedUpstream.fired().status).toBe(2);
    expect((await storedRecord("receipt", receipt.id)).state).toBe(0);
    const closed = await expectError(pay(receipt.id, OTP_OK), 409, "otp_attempts_exhausted");
    expect(closed.message).toMatch(/closed at the gateway/);
  });
});

describe("an exhaustion cancel that did not go through (rule 2)", () => {
  it("answered busy: the alarm sends it again with no caller, until the upstream shows 21", async () => {
    const receipt = await authorized();
    // Two answers lost before the upstream judged the OTP, then a wrong one: the third failed guess by the
    // gateway's count, the first by the upstream's, so only the gateway's cancel ends the receipt. It is busy.
    scriptedUpstream.on("receipt/pay", { kind: "status", status: 500 }, { id: receipt.id, times: 2 });
    for (let i = 0; i < 2; i++) await expectError(pay(receipt.id, OTP_OK), 502, "upstream_error");
    scriptedUpstream.on("receipt/cancel", { kind: "status", status: 503, code: "BUSY", retryAfter: 1 }, { id: receipt.id });
    await expectError(pay(receipt.id, OTP_WRONG), 409, "otp_attempts_exhausted");
    expect((await sandboxReceipt(receipt.id)).state).toBe(0);

    // The cancel waits for the lost pays' late reads (rule 8), then meets the busy upstream.
    letTimePass(120_000);
    const stub = receiptStub(env, "receipt", receipt.id);
    for (let round = 0; round < 10 && (await sandboxReceipt(receipt.id)).state !== 21; round++) await runDurableObjectAlarm(stub);
    expect((await sandboxReceipt(receipt.id)).state).toBe(21);
    const cancels = (await sandboxCalls()).filter((c) => c.id === receipt.id && c.path === "receipt/cancel");
    expect(cancels.map((c) => c.status)).toEqual([200]);
    expect(scriptedUpstream.fired().status).toBe(3);
    await expectError(pay(receipt.id, OTP_OK), 409, "otp_attempts_exhausted");
  });
});

describe("a cancel or hold-confirm whose answer was lost (rule 8)", () => {
  it("the partner's cancel of a paid receipt: the retry asks the upstream first, and nothing is refunded twice", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await expectStatus(pay(receipt.id), 200);
    scriptedUpstream.on("receipt/cancel", { kind: "lost" }, { id: receipt.id });
    await expectError(call("receipt/cancel", { id: receipt.id }), 502, "upstream_error");
    await expectError(call("receipt/cancel", { id: receipt.id }), 409, "cancel_not_allowed");
    const cancels = (await sandboxCalls()).filter((c) => c.id === receipt.id && c.path === "receipt/cancel");
    expect(cancels.map((c) => c.status)).toEqual([200]);
    expect((await expectStatus(call("receipt/check-id", { id: receipt.id }), 200)).state).toBe(21);
  });

  it("hold-confirm: the retry is told it is confirmed without a second confirm upstream", async () => {
    const receipt = await createReceipt({ merchant_id: 1003, is_hold: true });
    expect((await expectStatus(pay(receipt.id), 200)).state).toBe(5);
    scriptedUpstream.on("receipt/hold-confirm", { kind: "lost" }, { id: receipt.id });
    await expectError(call("receipt/hold-confirm", { id: receipt.id }), 502, "upstream_error");
    await expectError(call("receipt/hold-confirm", { id: receipt.id }), 409, "receipt_already_paid");
    const confirms = (await sandboxCalls()).filter((c) => c.id === receipt.id && c.path === "receipt/hold-confirm");
    expect(confirms.map((c) => c.status)).toEqual([200]);
    expect((await sandboxReceipt(receipt.id)).state).toBe(4);
  });
});

describe("answers the gateway cannot read fail closed (rule 8)", () => {
  it.each([
    ["a state given as a string", '{"id":"ID","state":"4","amount":150000}'],
    ["no state", '{"id":"ID","amount":150000}'],
    ["an unknown state", '{"id":"ID","state":99,"amount":150000}'],
    ["another receipt's id", '{"id":"someone-else","state":0,"amount":150000}'],
    ["not JSON", "<html>oops</html>"],
  ])("a pay answered with %s is an unknown outcome, reconciled: never stored as a state", async (_name, body) => {
    const owner = await userToken(newUser());
    const receipt = await createReceipt({ merchant_id: 1003 }, { token: owner });
    scriptedUpstream.on("receipt/pay", { kind: "body", body: body.replace("ID", receipt.id) });
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN }, { token: owner }), 502, "upstream_error");
    expect(await storedRecord("receipt", receipt.id)).toMatchObject({ state: 0, pending_op: "pay" });
    // The upstream did pay: the user's cancel asks first and is refused; nothing was refunded.
    await expectError(call("receipt/cancel", { id: receipt.id }, { token: owner }), 403, "forbidden");
    expect((await sandboxReceipt(receipt.id)).state).toBe(4);
  });

  it("a check-id answered with a string state changes nothing stored", async () => {
    const owner = await userToken(newUser());
    const receipt = await createReceipt({ merchant_id: 1003 }, { token: owner });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }, { token: owner }), 200);
    scriptedUpstream.on("receipt/check-id", { kind: "body", body: `{"id":"${receipt.id}","state":"0","amount":150000}` });
    await expectError(call("receipt/check-id", { id: receipt.id }, { token: owner }), 502, "upstream_error");
    expect((await storedRecord("receipt", receipt.id)).state).toBe(4);
    await expectError(call("receipt/cancel", { id: receipt.id }, { token: owner }), 403, "forbidden");
  });

  it("a refusal with a code the gateway does not know is 422 upstream_refused, quoting it; nothing was paid, and its OTP counts as a guess (rule 2)", async () => {
    const receipt = await authorized();
    scriptedUpstream.on("receipt/pay", { kind: "status", status: 400, code: "LIMIT_EXCEEDED_FOR_MCC", message: "Daily limit for this category" });
    const error = await expectError(pay(receipt.id, OTP_WRONG), 422, "upstream_refused");
    expect(error.upstream_code).toBe("LIMIT_EXCEEDED_FOR_MCC");
    expect(error.message).toContain("Daily limit for this category");
    expect(error.message).toMatch(/counts as a guess/);
    expect(error.attempts_left).toBe(2);
    expect((await sandboxReceipt(receipt.id)).state).toBe(0);
  });

  it("a refusal the gateway does not know, of a pay without an OTP, counts nothing: the next OTP still has three tries", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    scriptedUpstream.on("receipt/pay", { kind: "status", status: 400, code: "LIMIT_EXCEEDED_FOR_MCC" });
    const error = await expectError(pay(receipt.id, undefined), 422, "upstream_refused");
    expect(error.message).not.toMatch(/guess/);
    expect(error.attempts_left).toBeUndefined();
  });
});

describe("a cancel whose answer was lost is completed by the gateway (rule 8)", () => {
  it("a user's lost cancel is sent again before anything else: a pay in the meantime is refused, never refunded later", async () => {
    const owner = await userToken(newUser());
    const receipt = await createReceipt({ merchant_id: 1003 }, { token: owner });
    // The cancel leaves, the upstream does nothing and never answers: its outcome is unknown.
    scriptedUpstream.on("receipt/cancel", { kind: "timeout", act: false }, { id: receipt.id });
    await expectError(call("receipt/cancel", { id: receipt.id }, { token: owner }), 504, "upstream_timeout");
    // The user pays at once: the gateway first settles the cancel it was asked for.
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN }, { token: owner }), 409, "receipt_cancelled");
    expect((await sandboxReceipt(receipt.id)).state).toBe(21);
    const paths = (await sandboxCalls()).filter((c) => c.id === receipt.id).map((c) => c.path);
    expect(paths).not.toContain("receipt/pay");
    expect(paths.filter((p) => p === "receipt/cancel")).toHaveLength(1);
  });

  it("with nobody calling, the alarm completes it", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    scriptedUpstream.on("receipt/cancel", { kind: "status", status: 500, act: false }, { id: receipt.id });
    await expectError(call("receipt/cancel", { id: receipt.id }), 502, "upstream_error");
    await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
    expect((await sandboxReceipt(receipt.id)).state).toBe(21);
    expect((await expectStatus(call("receipt/check-id", { id: receipt.id }), 200)).state).toBe(21);
  });
});

describe("an upstream that acts after the gateway gave up (rule 8's late upstream)", () => {
  const PAYS_LATE = { token: "tok_sandbox_pays_late" };

  /** A user's receipt whose pay timed out and was reconciled once: the upstream showed 0, and will pay later. */
  async function lostPay(merchant_id: number, otp?: string) {
    const owner = await userToken(newUser());
    const receipt = await createReceipt({ merchant_id }, { token: owner });
    if (otp) await expectStatus(call("receipt/authorize", { id: receipt.id, card: PAYS_LATE }, { token: owner }), 200);
    await expectError(call("receipt/pay", { id: receipt.id, card: PAYS_LATE, ...(otp ? { otp } : {}) }, { token: owner }), 504, "upstream_timeout");
    await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
    expect(await storedRecord("receipt", receipt.id)).toMatchObject({ state: 0, pending_op: null });
    return { owner, receipt };
  }

  it("with nobody calling, the late reads find the payment: stored, and a receipt.paid event; then the alarm ends", async () => {
    const { receipt } = await lostPay(1003);
    const stub = receiptStub(env, "receipt", receipt.id);
    // The first late read comes before the upstream acted: nothing yet, and the record stays suspect.
    letTimePass(16_000);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await storedRecord("receipt", receipt.id)).state).toBe(0);
    await letLatePayHappen(receipt.id);
    letTimePass(2 * DAY_MS);
    await runDurableObjectAlarm(stub);
    expect((await storedRecord("receipt", receipt.id)).state).toBe(4);
    expect(await outboxTypes("receipt", receipt.id)).toEqual(["receipt.created", "receipt.paid"]);
    let rounds = 0;
    while (rounds < 5 && (await alarmWithinADay(stub)) && (await runDurableObjectAlarm(stub))) rounds++;
    expect(rounds).toBeLessThan(5);
  });

  it("a user's cancel asks the upstream first: the late payment is refused 403, never refunded", async () => {
    const { owner, receipt } = await lostPay(1003);
    await letLatePayHappen(receipt.id);
    const before = (await sandboxCalls()).length;
    await expectError(call("receipt/cancel", { id: receipt.id }, { token: owner }), 403, "forbidden");
    expect((await sandboxCalls()).slice(before).map((c) => c.path)).toEqual(["receipt/check-id"]);
    expect((await sandboxReceipt(receipt.id)).state).toBe(4);
    expect(await outboxTypes("receipt", receipt.id)).toEqual(["receipt.created", "receipt.paid"]);
  });

  it("even after the last late read, a user's cancel is decided by the upstream, not the stored copy", async () => {
    const { owner, receipt } = await lostPay(1003);
    // Past every late read, still inside rule 12's window (an unpaid receipt past it is expired by this alarm).
    letTimePass(readConfig(env).expiry.unpaidMs - 60_000);
    await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
    // Later than any read: only the cancel's own look can see it.
    await letLatePayHappen(receipt.id);
    await expectError(call("receipt/cancel", { id: receipt.id }, { token: owner }), 403, "forbidden");
    expect((await sandboxReceipt(receipt.id)).state).toBe(4);
  });

  it("a pay with the OTP: the late payment is found, and the right OTP is no guess", async () => {
    const { receipt } = await lostPay(1001, OTP_OK);
    expect(await storedRecord("receipt", receipt.id)).toMatchObject({ unconfirmed_otps: 1 });
    await letLatePayHappen(receipt.id);
    letTimePass(2 * DAY_MS);
    await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
    expect(await storedRecord("receipt", receipt.id)).toMatchObject({ state: 4, wrong_otps: 0, unconfirmed_otps: 0 });
    await expectError(pay(receipt.id, OTP_OK), 409, "receipt_already_paid");
    expect((await sandboxCalls()).filter((c) => c.path === "receipt/pay" && c.id === receipt.id)).toHaveLength(1);
  });

  it("a third guess whose pay was lost and lands late is never refunded: the exhaustion cancel waits for the late reads, then finds it paid", async () => {
    const receipt = await authorized();
    await expectError(pay(receipt.id, OTP_WRONG), 422, "otp_invalid");
    await expectError(pay(receipt.id, "333333"), 422, "otp_invalid");
    await expectError(pay(receipt.id, OTP_OK, PAYS_LATE.token), 504, "upstream_timeout");
    // The alarm's look is answered 0 (the third guess, unconfirmed, uses them up), and the pay lands just after it.
    const held = scriptedUpstream.hold("receipt/check-id", { id: receipt.id });
    const fired = runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
    await held.arrived;
    await letLatePayHappen(receipt.id);
    held.release();
    await fired;
    expect(await storedRecord("receipt", receipt.id)).toMatchObject({ state: 0, pending_op: null, wrong_otps: 2, unconfirmed_otps: 1 });
    const cancels = async () => (await sandboxCalls()).filter((c) => c.id === receipt.id && c.path === "receipt/cancel");
    expect(await cancels()).toEqual([]);
    // Closed at the edge at once: a further guess never reaches the upstream (it looks first, and finds the late pay).
    await expectError(pay(receipt.id, OTP_OK), 409, "receipt_already_paid");
    expect((await sandboxCalls()).filter((c) => c.id === receipt.id && c.path === "receipt/pay")).toHaveLength(3);

    // The late reads find it paid: the third guess was right, and nothing is ever cancelled.
    letTimePass(2 * DAY_MS);
    await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
    expect(await storedRecord("receipt", receipt.id)).toMatchObject({ state: 4, wrong_otps: 2, unconfirmed_otps: 0 });
    expect((await sandboxReceipt(receipt.id)).state).toBe(4);
    expect(await cancels()).toEqual([]);
    expect(await outboxTypes("receipt", receipt.id)).toEqual(["receipt.created", "receipt.otp_attempts_exhausted", "receipt.paid"]);
  });

  it("a hold-confirm lost before the upstream acted: still held at the first look, the late reads find the confirm the upstream made later; stored, and a receipt.paid event", async () => {
    const receipt = await createReceipt({ merchant_id: 1003, is_hold: true });
    expect((await expectStatus(pay(receipt.id), 200)).state).toBe(5);
    // The confirm is kept at the upstream, not acted on; the gateway sees the connection break.
    scriptedUpstream.on("receipt/hold-confirm", { kind: "defer" }, { id: receipt.id });
    await expectError(call("receipt/hold-confirm", { id: receipt.id }), 502, "upstream_error");
    const stub = receiptStub(env, "receipt", receipt.id);
    await runDurableObjectAlarm(stub);
    expect(await storedRecord("receipt", receipt.id)).toMatchObject({ state: 5, pending_op: null });
    // Then the upstream acts on it, long after the gateway gave up.
    const [kept, ...more] = scriptedUpstream.takeDeferred();
    expect(more).toEqual([]);
    expect(await forwardDeferred(env.UPSTREAM!, kept!)).toBe(200);
    expect((await sandboxReceipt(receipt.id)).state).toBe(4);
    // The first late read (development: 15 s after the call), with nobody calling.
    letTimePass(16_000);
    await runDurableObjectAlarm(stub);
    expect((await storedRecord("receipt", receipt.id)).state).toBe(4);
    expect(await outboxTypes("receipt", receipt.id)).toEqual(["receipt.created", "receipt.held", "receipt.paid"]);
    expect((await sandboxCalls()).filter((c) => c.path === "receipt/hold-confirm" && c.id === receipt.id)).toHaveLength(1);
  });

  it("while the record is suspect, a pay asks the upstream first and is refused as paid, without a second pay going out", async () => {
    const { owner, receipt } = await lostPay(1003);
    await letLatePayHappen(receipt.id);
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN }, { token: owner }), 409, "receipt_already_paid");
    expect((await sandboxCalls()).filter((c) => c.path === "receipt/pay" && c.id === receipt.id)).toHaveLength(1);
    expect(await outboxTypes("receipt", receipt.id)).toEqual(["receipt.created", "receipt.paid"]);
  });
});

describe("a state the upstream may still change (57) is asked about, never refused from a stale copy", () => {
  it("the supplier confirms: the alarm finds 4 with no caller and it becomes a receipt.paid event", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    expect((await expectStatus(pay(receipt.id, undefined, "tok_sandbox_supplier_pending"), 200)).state).toBe(57);
    const stub = receiptStub(env, "receipt", receipt.id);
    await runDurableObjectAlarm(stub);
    expect((await storedRecord("receipt", receipt.id)).state).toBe(57);
    await letSupplierAnswer(receipt.id);
    await runDurableObjectAlarm(stub);
    expect((await storedRecord("receipt", receipt.id)).state).toBe(4);
    expect(await outboxTypes("receipt", receipt.id)).toEqual(["receipt.created", "receipt.awaiting_supplier", "receipt.paid"]);
  });

  it("the supplier refuses: the alarm finds 21 (refunded)", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await expectStatus(pay(receipt.id, undefined, "tok_sandbox_supplier_fails"), 200);
    await letSupplierAnswer(receipt.id);
    await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
    expect((await storedRecord("receipt", receipt.id)).state).toBe(21);
  });

  it("the partner's cancel after the supplier confirmed goes through without anyone calling check-id first", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await expectStatus(pay(receipt.id, undefined, "tok_sandbox_supplier_pending"), 200);
    await expectError(call("receipt/cancel", { id: receipt.id }), 409, "cancel_not_allowed");
    await letSupplierAnswer(receipt.id);
    expect((await expectStatus(call("receipt/cancel", { id: receipt.id }), 200)).state).toBe(21);
  });
});

describe("a create whose answer was lost (rule 8)", () => {
  it("check-tid answers 404 saying so; the identical retry adopts the one receipt the upstream made", async () => {
    const request = receiptRequest({ merchant_id: 1003 });
    scriptedUpstream.on("receipt/create", { kind: "lost" });
    const lost = await call("receipt/create", request);
    expect(lost.status).toBe(502);
    const error = await expectError(call("receipt/check-tid", { tid: request.tid }), 404, "receipt_not_found");
    expect(error.message).toMatch(/did not finish/);
    const adopted = await expectStatus(call("receipt/create", request), 200);
    expect((await expectStatus(call("receipt/check-tid", { tid: request.tid }), 200)).id).toBe(adopted.id);
    const creates = (await sandboxCalls()).filter((c) => c.path === "receipt/create" && c.tid === request.tid);
    expect(creates.map((c) => c.status)).toEqual([200, 409]);
  });

  it("a create whose connection fails before any answer (the fetch itself rejects) is unknown too: check-tid says it did not finish, the retry creates it", async () => {
    const request = receiptRequest({ merchant_id: 1003 });
    // An upstream that cannot be reached at all: no status line, nothing done there.
    const unreachable = { ...env, UPSTREAM: { fetch: () => Promise.reject(new TypeError("Network connection lost.")) } } as unknown as Env;
    const error = await expectError(callSettled(unreachable, "receipt/create", request), 502, "upstream_error");
    expect(error.message).toMatch(/could not be reached/);
    const unknown = await expectError(call("receipt/check-tid", { tid: request.tid }), 404, "receipt_not_found");
    expect(unknown.message).toMatch(/did not finish/);
    const created = await expectStatus(call("receipt/create", request), 200);
    expect((await expectStatus(call("receipt/check-tid", { tid: request.tid }), 200)).id).toBe(created.id);
    expect((await sandboxCalls()).filter((c) => c.path === "receipt/create" && c.tid === request.tid).map((c) => c.status)).toEqual([200]);
  });

  it("a user's create lost the same way is adopted under the user's derived tid", async () => {
    const token = await userToken(newUser());
    const request = receiptRequest({ merchant_id: 1003, tid: newTid("mine") });
    scriptedUpstream.on("receipt/create", { kind: "timeout" });
    await expectError(call("receipt/create", request, { token }), 504, "upstream_timeout");
    const adopted = await expectStatus(call("receipt/create", request, { token }), 200);
    expect(adopted.tid).toBe(request.tid);
    expect((await sandboxReceipt(adopted.id)).tid).not.toBe(request.tid);
  });
});
