import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { readConfig } from "../../src/config/config";
import { receiptStub } from "../../src/record/receipt-object";
import { clock, freezeClock } from "../../src/shared/clock";
import { callGateway, loggedEventTypes } from "../events";
import {
  CARD_OK,
  call,
  createReceipt,
  expectError,
  expectStatus,
  letOtpExpire,
  letOtpWaitPass,
  letTimePass,
  letTimePassSinceOtp,
  newUser,
  OTP_OK,
  OTP_WRONG,
  SANDBOX_OTP_TTL_MS,
  sandboxCalls,
  sandboxReceipt,
  storedRecord,
  transferRequest,
  userToken,
} from "../helpers";
import { forwardDeferred, scriptedUpstream } from "../support/scripted-upstream";

const TOKEN = { token: "tok_sandbox_ok" };
const payWith = (id: string, otp: string) => call("receipt/pay", { id, card: TOKEN, otp });

/** A receipt of merchant 1001 (is_verify) whose OTP authorize has sent. */
async function authorizedReceipt(): Promise<any> {
  const receipt = await createReceipt({ merchant_id: 1001 });
  await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 200);
  return receipt;
}

describe("the three-wrong-OTPs rule", () => {
  it("the third wrong OTP cancels the receipt, and the sandbox received exactly 3 OTPs", async () => {
    const receipt = await createReceipt({ merchant_id: 1001 });
    await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 200);

    const first = await expectError(payWith(receipt.id, OTP_WRONG), 422, "otp_invalid");
    expect(first.attempts_left).toBe(2);
    const second = await expectError(payWith(receipt.id, "333333"), 422, "otp_invalid");
    expect(second.attempts_left).toBe(1);
    const third = await expectError(payWith(receipt.id, "444444"), 409, "otp_attempts_exhausted");
    expect(third.message).toBe(
      "Three wrong OTPs: the receipt is closed and takes no further code; the gateway cancels it with the payment service. Create a new receipt.",
    );
    const upstream = await sandboxReceipt(receipt.id);
    expect(upstream.state).toBe(21);
    expect(upstream.otp_attempts).toBe(3);
    const checked = await expectStatus(call("receipt/check-id", { id: receipt.id }), 200);
    expect(checked.state).toBe(21);

    // Even the right OTP is refused now, without reaching the upstream.
    await expectError(payWith(receipt.id, OTP_OK), 409, "otp_attempts_exhausted");
    expect((await sandboxReceipt(receipt.id)).otp_attempts).toBe(3);

    // The partner learns why the gateway cancelled it: the cancel's event says rule 2's reason.
    const listed = (await (await callGateway("events/list", { receipt_id: receipt.id })).json()) as {
      events: { type: string; data: { reason?: string } }[];
    };
    const reasons = Object.fromEntries(listed.events.map((event) => [event.type, event.data.reason ?? null]));
    expect(reasons).toEqual({ "receipt.created": null, "receipt.otp_attempts_exhausted": null, "receipt.cancelled": "otp_attempts_exhausted" });
  });

  it("a third failed guess only the gateway counted: the receipt is closed at once, and cancelled upstream once the lost pays' late reads are done", async () => {
    const receipt = await authorizedReceipt();
    // Two pays fail before the upstream judged their OTPs (it answered 500): the gateway counts them as guesses...
    scriptedUpstream.on("receipt/pay", { kind: "status", status: 500 }, { id: receipt.id, times: 2 });
    for (let i = 0; i < 2; i++) await expectError(payWith(receipt.id, OTP_OK), 502, "upstream_error");
    // ...so a wrong OTP, the first the upstream judges, is the third: the gateway cancels the receipt itself.
    const exhausted = await expectError(payWith(receipt.id, OTP_WRONG), 409, "otp_attempts_exhausted");
    // Not "cancelled": the cancel waits for the late reads, and the words hold before and after it.
    expect(exhausted.message).toMatch(/1 wrong, 2 whose answer was lost.*: the receipt is closed and takes no further code; the gateway cancels it/);
    await expectError(payWith(receipt.id, OTP_OK), 409, "otp_attempts_exhausted");
    // A lost pay may yet land: the cancel waits for the late reads (rule 8), then the alarm sends it with no caller.
    expect(await sandboxReceipt(receipt.id)).toMatchObject({ state: 0, wrong_otp_attempts: 1 });
    letTimePass(120_000);
    await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
    expect(await sandboxReceipt(receipt.id)).toMatchObject({ state: 21, wrong_otp_attempts: 1 });
    const cancels = (await sandboxCalls()).filter((c) => c.id === receipt.id && c.path === "receipt/cancel");
    expect(cancels.map((c) => c.status)).toEqual([200]);
  });

  it("when the upstream says the guesses are used up, the receipt is closed and cancelled: no further OTP reaches it", async () => {
    const receipt = await authorizedReceipt();
    expect((await expectError(payWith(receipt.id, OTP_WRONG), 422, "otp_invalid")).attempts_left).toBe(2);
    // The upstream counted guesses the gateway never saw (say, sent around it): it refuses the next as the last.
    scriptedUpstream.on("receipt/pay", { kind: "status", status: 400, code: "OTP_ATTEMPTS_EXCEEDED" }, { id: receipt.id });
    await expectError(payWith(receipt.id, "333333"), 409, "otp_attempts_exhausted");
    await expectError(payWith(receipt.id, OTP_OK), 409, "otp_attempts_exhausted");
    const pays = (await sandboxCalls()).filter((c) => c.id === receipt.id && c.path === "receipt/pay");
    expect(pays).toHaveLength(1);
    expect((await sandboxReceipt(receipt.id)).state).toBe(21);
  });

  it("a right OTP after two wrong ones still pays", async () => {
    const receipt = await authorizedReceipt();
    await expectError(payWith(receipt.id, OTP_WRONG), 422, "otp_invalid");
    await expectError(payWith(receipt.id, OTP_WRONG), 422, "otp_invalid");
    const paid = await expectStatus(payWith(receipt.id, OTP_OK), 200);
    expect(paid.state).toBe(4);
  });

  it("20 concurrent wrong OTPs on a fresh receipt: at most 3 reach the sandbox", async () => {
    const receipt = await authorizedReceipt();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => payWith(receipt.id, String(500000 + i))));
    const codes = await Promise.all(answers.map(async (res) => ({ status: res.status, code: ((await res.json()) as any).error.code })));
    for (const { status, code } of codes) {
      expect([
        [422, "otp_invalid"],
        [409, "operation_in_progress"],
        [409, "otp_attempts_exhausted"],
      ]).toContainEqual([status, code]);
    }
    expect(codes.filter((c) => c.code === "operation_in_progress").length).toBeGreaterThan(0);
    expect((await sandboxReceipt(receipt.id)).otp_attempts).toBeLessThanOrEqual(3);
  });

  it("however many waves of concurrent guesses arrive, exactly 3 reach the sandbox and the receipt ends cancelled", async () => {
    const receipt = await authorizedReceipt();
    let exhausted = false;
    for (let wave = 0; wave < 10 && !exhausted; wave++) {
      const answers = await Promise.all(Array.from({ length: 20 }, () => payWith(receipt.id, OTP_WRONG)));
      const bodies = await Promise.all(answers.map((res) => res.json() as Promise<any>));
      exhausted = bodies.some((body) => body.error?.code === "otp_attempts_exhausted");
    }
    expect(exhausted).toBe(true);
    const upstream = await sandboxReceipt(receipt.id);
    expect(upstream.otp_attempts).toBe(3);
    expect(upstream.state).toBe(21);
  });

  it("a pay whose answer is lost counts as a guess: the cap holds even when answers never come", async () => {
    const receipt = await authorizedReceipt();
    await expectError(payWith(receipt.id, OTP_WRONG), 422, "otp_invalid");
    await expectError(payWith(receipt.id, OTP_WRONG), 422, "otp_invalid");
    // The third OTP goes out with a card whose pay the upstream never answers in time. Its
    // fate is unknown and the receipt stays unpaid, so it counts as the third wrong one.
    await expectError(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_timeout" }, otp: OTP_OK }), 504, "upstream_timeout");
    // The next look at the receipt reconciles: still unpaid, so that was the third guess; no guess reaches the upstream now.
    expect((await expectStatus(call("receipt/check-id", { id: receipt.id }), 200)).state).toBe(0);
    await expectError(payWith(receipt.id, OTP_OK), 409, "otp_attempts_exhausted");
    // Once the late reads are done (rule 8) and nothing landed, the gateway cancels it.
    letTimePass(120_000);
    await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
    await expectError(call("receipt/cancel", { id: receipt.id }), 409, "cancel_not_allowed");
    expect(await sandboxReceipt(receipt.id)).toMatchObject({ otp_attempts: 3, state: 21 });
  });

  it("a third guess whose answer was unreadable, on an object evicted before the alarm: the alarm due first waits for that call, the next cancels", async () => {
    // The alarm is judged against the last pay's deadline (UPSTREAM_TIMEOUT_MS, 2 s here): a busy machine's seconds must not pass for it.
    freezeClock();
    const receipt = await authorizedReceipt();
    // A new stub each time: one held across the crash stays broken.
    const stub = () => receiptStub(env, "receipt", receipt.id);
    const alarmAt = () => runInDurableObject(stub(), (_instance, state) => state.storage.getAlarm());
    const calls = async () => (await sandboxCalls()).filter((c) => c.id === receipt.id).map((c) => `${c.path} ${c.status}`);
    // 1: a wrong OTP.
    expect((await expectError(payWith(receipt.id, OTP_WRONG), 422, "otp_invalid")).attempts_left).toBe(2);
    // 2: the right OTP, with a card the upstream answers 5xx; the object crashes before the call reaches the upstream.
    scriptedUpstream.on("receipt/pay", { kind: "defer", hang: true }, { id: receipt.id });
    const lost = call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_error" }, otp: OTP_OK });
    await scriptedUpstream.deferredArrived();
    const [late] = scriptedUpstream.takeDeferred();
    await runInDurableObject(stub(), (_instance, state) => state.abort("crash before the upstream acts")).catch(() => undefined);
    expect((await lost).status).toBeGreaterThanOrEqual(500);
    // The next requests come a moment later (time stands still here but for letTimePass).
    letTimePass(100);
    // A check whose read fails leaves that note; a wrong OTP asks the upstream first (unpaid: the lost OTP is the second
    // guess), then is judged wrong upstream, whose answer is unreadable: its note stays, its OTP an unconfirmed guess to come.
    scriptedUpstream.on("receipt/check-id", { kind: "status", status: 500, act: false }, { id: receipt.id });
    await expectError(call("receipt/check-id", { id: receipt.id }), 502, "upstream_error");
    scriptedUpstream.on("receipt/pay", { kind: "body", body: "<html>oops</html>" }, { id: receipt.id });
    await expectError(payWith(receipt.id, "333333"), 502, "upstream_error");
    expect(await sandboxReceipt(receipt.id)).toMatchObject({ state: 0, wrong_otp_attempts: 2 });
    expect(await storedRecord("receipt", receipt.id)).toMatchObject({ pending_op: "pay", pending_otp: 1, wrong_otps: 1, unconfirmed_otps: 1 });
    // The lost pay reaches the upstream now: 5xx, nothing paid.
    expect(await forwardDeferred(env.UPSTREAM!, late!)).toBe(500);

    // The alarm set for the lost pay is due before the last pay could have ended, and stays: early enough.
    const { upstreamTimeoutMs } = readConfig(env);
    const since = await runInDurableObject(
      stub(),
      (_instance, state) => state.storage.sql.exec<{ at: number }>("SELECT pending_since AS at FROM record").one().at,
    );
    const first = (await alarmAt())!;
    expect(first).toBeLessThan(since + upstreamTimeoutMs + 1000);
    // Evicted, the object cannot know the last pay returned: that alarm looks at nothing, and sets the next for when it must have.
    await evictDurableObject(stub());
    letTimePass(first - clock.now());
    const before = await calls();
    await runDurableObjectAlarm(stub());
    expect(await calls()).toEqual(before);
    const next = (await alarmAt())!;
    expect(next).toBeGreaterThanOrEqual(since + upstreamTimeoutMs + 1000);
    expect(next - clock.now()).toBeLessThanOrEqual(60_000);
    // That one counts the third guess (rule 2), within a minute of the fault (rule 8); the cancel waits for its late reads.
    letTimePass(next - clock.now());
    await runDurableObjectAlarm(stub());
    expect(await calls()).toEqual([...before, "receipt/check-id 200"]);
    letTimePass(120_000);
    await runDurableObjectAlarm(stub());
    expect(await calls()).toEqual([...before, "receipt/check-id 200", "receipt/check-id 200", "receipt/cancel 200"]);
    expect(await sandboxReceipt(receipt.id)).toMatchObject({ state: 21, cancelled_by: readConfig(env).cancelledBy });
    expect(await storedRecord("receipt", receipt.id)).toMatchObject({ state: 21, pending_op: null, wrong_otps: 1, unconfirmed_otps: 2 });
    expect(await loggedEventTypes("receipt", receipt.id)).toEqual(["receipt.created", "receipt.otp_attempts_exhausted", "receipt.cancelled"]);
    await expectError(payWith(receipt.id, OTP_OK), 409, "otp_attempts_exhausted");
  });

  it("keeps an audit trail of each operation and its outcome, with no OTP in it", async () => {
    const receipt = await authorizedReceipt();
    await expectError(payWith(receipt.id, OTP_WRONG), 422, "otp_invalid");
    await expectStatus(payWith(receipt.id, OTP_OK), 200);
    const rows = (await receiptStub(env, "receipt", receipt.id).auditTrail())!.entries.map(({ op, outcome, state }) => ({ op, outcome, state }));
    expect(rows).toEqual([
      { op: "create", outcome: "ok", state: 0 },
      { op: "authorize", outcome: "ok", state: 0 },
      { op: "pay", outcome: "otp_invalid", state: 0 },
      { op: "pay", outcome: "ok", state: 4 },
    ]);
  });
});

describe("OTP resend (authorize)", () => {
  const authorize = (id: string) => call("receipt/authorize", { id, card: TOKEN });

  it("refuses a resend before wait has passed, with Retry-After, without reaching the upstream", async () => {
    const receipt = await createReceipt({ merchant_id: 1001 });
    const sent = await expectStatus(authorize(receipt.id), 200);
    const res = await authorize(receipt.id);
    await expectError(res.clone(), 429, "otp_resend_too_soon");
    const retryAfter = Number(res.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil(sent.wait / 1000));
  });

  it("allows a resend once wait has passed, and at most 5 OTPs per receipt", async () => {
    const receipt = await createReceipt({ merchant_id: 1001 });
    for (let i = 0; i < 5; i++) {
      await expectStatus(authorize(receipt.id), 200);
      await letOtpWaitPass(receipt.id);
    }
    const res = await authorize(receipt.id);
    await expectError(res.clone(), 429, "rate_limited");
    expect(res.headers.get("retry-after")).toBeTruthy();
  });

  it("refuses authorize on a paid receipt", async () => {
    const receipt = await authorizedReceipt();
    await expectStatus(payWith(receipt.id, OTP_OK), 200);
    await expectError(authorize(receipt.id), 409, "receipt_already_paid");
  });
});

describe("the OTP's lifetime: only after authorize sent it, and for SANDBOX_OTP_TTL_MS after the last send", () => {
  const CARD = CARD_OK;
  const noGuess = { wrong_otps: 0, unconfirmed_otps: 0 };

  it("an OTP for a receipt never authorized is 409 otp_expired and no guess: after three, authorize and a wrong OTP still has 2 attempts left", async () => {
    const receipt = await createReceipt({ merchant_id: 1001 });
    const first = await expectError(payWith(receipt.id, OTP_OK), 409, "otp_expired");
    expect(first.message).toMatch(/authorize/);
    expect(first.upstream_code).toBe("OTP_EXPIRED");
    // The anonymous pay and a wrong OTP are refused the same way, unjudged.
    await expectError(call("receipt/anonymous/pay", { id: receipt.id, card: CARD, otp: OTP_OK }), 409, "otp_expired");
    await expectError(payWith(receipt.id, OTP_WRONG), 409, "otp_expired");
    expect(await storedRecord("receipt", receipt.id)).toMatchObject({ state: 0, pending_op: null, ...noGuess });
    expect(await sandboxReceipt(receipt.id)).toMatchObject({ state: 0, wrong_otp_attempts: 0, expired_otp_attempts: 3 });
    expect((await expectStatus(call("receipt/check-id", { id: receipt.id }), 200)).state).toBe(0);

    await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 200);
    expect((await expectError(payWith(receipt.id, OTP_WRONG), 422, "otp_invalid")).attempts_left).toBe(2);
    expect((await expectStatus(payWith(receipt.id, OTP_OK), 200)).state).toBe(4);
  });

  it("the same for a user's app, and for the pay of a hold receipt", async () => {
    const token = await userToken(newUser());
    const receipt = await createReceipt({ merchant_id: 1001, is_hold: true }, { token });
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_OK }, { token }), 409, "otp_expired");
    await expectStatus(call("receipt/anonymous/authorize", { id: receipt.id, card: CARD }, { token }), 200);
    expect((await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_OK }, { token }), 200)).state).toBe(5);
  });

  it("right until the lifetime ends, otp_expired (no guess) after it, and an authorize again renews it", async () => {
    const inside = await authorizedReceipt();
    await letTimePassSinceOtp(inside.id, SANDBOX_OTP_TTL_MS - 30_000);
    expect((await expectStatus(payWith(inside.id, OTP_OK), 200)).state).toBe(4);

    const receipt = await authorizedReceipt();
    await expectError(payWith(receipt.id, OTP_WRONG), 422, "otp_invalid");
    await letOtpExpire(receipt.id);
    await expectError(payWith(receipt.id, OTP_OK), 409, "otp_expired");
    await expectError(call("receipt/anonymous/pay", { id: receipt.id, card: CARD, otp: OTP_WRONG }), 409, "otp_expired");
    expect(await storedRecord("receipt", receipt.id)).toMatchObject({ state: 0, wrong_otps: 1, unconfirmed_otps: 0 });
    expect(await sandboxReceipt(receipt.id)).toMatchObject({ state: 0, wrong_otp_attempts: 1, expired_otp_attempts: 2 });

    await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 200);
    expect((await expectError(payWith(receipt.id, OTP_WRONG), 422, "otp_invalid")).attempts_left).toBe(1);
    expect((await expectStatus(payWith(receipt.id, OTP_OK), 200)).state).toBe(4);
  });

  it("leaves transfers alone: the OTP of a transfer is right with no send step, whatever the lifetime", async () => {
    scriptedUpstream.vars({ SANDBOX_OTP_TTL_MS: "0" });
    const transfer = await expectStatus(call("a2c/create", transferRequest({ amount: 2_000_000 })), 200);
    expect(transfer.is_verify).toBe(true);
    expect((await expectStatus(call("a2c/pay", { id: transfer.receipt_id, otp: OTP_OK }), 200)).state).toBe(4);
    const pays = (await sandboxCalls()).filter((c) => c.id === transfer.receipt_id && c.path === "a2c/pay");
    expect(pays.map((c) => [c.status, c.code])).toEqual([[200, null]]);
  });
});
