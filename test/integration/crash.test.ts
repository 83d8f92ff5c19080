// Rule 8 under crashes: for each state-changing call, the receipt's Durable
// Object is aborted while the call is in flight (the upstream has acted, its
// answer is held back). Then: the write-ahead note was durable, the alarm
// settles the record with no caller, nothing is debited twice, and a user
// cannot cancel what got paid. Eviction between the steps of the OTP flow
// changes nothing. A crash right after the queue accepted an event loses it
// nowhere, even if the queue's copy dies with it.
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readConfig } from "../../src/config/config";
import { type EventMessage, SWEEP_SETTINGS } from "../../src/events";
import { receiptStub } from "../../src/record/receipt-object";
import { noteLookBy } from "../../src/record/write-ahead";
import type { KindName } from "../../src/rules/lifecycle";
import { callGateway, consume, fireCron, queueSpy, receiver, unsentEvents } from "../events";
import {
  call,
  createReceipt,
  eventually,
  expectError,
  expectStatus,
  letOtpWaitPass,
  letTimePass,
  newUser,
  OTP_OK,
  OTP_WRONG,
  sandboxCalls,
  sandboxReceipt,
  sandboxTransfer,
  storedRecord,
  transferRequest,
  userToken,
} from "../helpers";
import { scriptedUpstream } from "../support/scripted-upstream";

afterEach(() => vi.restoreAllMocks());

const TOKEN = { token: "tok_sandbox_ok" };

/** The runtime kills the object (in-memory state lost, storage kept). */
async function crash(kind: KindName, id: string): Promise<void> {
  await runInDurableObject(receiptStub(env, kind, id), (_instance, state) => {
    state.abort("crash test");
  }).catch(() => undefined);
}

/**
 * Sends `path` with `body`, holds the upstream's answer after it acted,
 * crashes the object mid-call, and returns what the caller got. Before the
 * crash: the call was noted, and the object has an alarm due within rule
 * 8's minute (src/record/write-ahead.ts lookBy: one set for something else
 * is kept; firing before the call could have ended, it sets the next for
 * the note).
 */
async function crashMidCall(kind: KindName, id: string, path: string, body: unknown, token?: string): Promise<Response> {
  // Whatever else the object owed is done first (its alarm has run): the alarm left is the note's own.
  await runDurableObjectAlarm(receiptStub(env, kind, id));
  const held = scriptedUpstream.hold(path, { id, act: true });
  const answer = call(path, body, token === undefined ? {} : { token });
  try {
    await held.arrived;
    const noted = await runInDurableObject(receiptStub(env, kind, id), async (_instance, state) => ({
      ...state.storage.sql.exec<{ pending_op: string | null; pending_since: number }>("SELECT pending_op, pending_since FROM record").one(),
      alarm: await state.storage.getAlarm(),
    }));
    expect(noted.pending_op, "the call was noted before it left").not.toBeNull();
    expect(noted.alarm, "an alarm is due within rule 8's minute of the note").not.toBeNull();
    expect(noted.alarm!, "an alarm is due within rule 8's minute of the note").toBeLessThanOrEqual(
      noteLookBy(noted.pending_since, readConfig(env).upstreamTimeoutMs),
    );
    await crash(kind, id);
  } catch (err) {
    // The call is not left running past the test: its answer is waited for, then the failure reported.
    held.release();
    await answer.catch(() => undefined);
    throw err;
  }
  held.release();
  return answer;
}

/**
 * Runs the object's alarm once the noted call could have ended (the alarm
 * looks no earlier: before then it only sets the next) and returns the
 * settled record.
 */
async function settleByAlarm(kind: KindName, id: string) {
  letTimePass(readConfig(env).upstreamTimeoutMs + 1000);
  await runDurableObjectAlarm(receiptStub(env, kind, id));
  const settled = await storedRecord(kind, id);
  expect(settled.pending_op, "the alarm settled the record").toBeNull();
  return settled;
}

const upstreamCalls = async (path: string, id: string) => (await sandboxCalls()).filter((c) => c.path === path && c.id === id);

describe("a crash while a call is in flight (rule 8)", () => {
  it("pay without an OTP: the caller is told to look, the alarm finds it paid, no second debit, the user cannot cancel", async () => {
    const owner = await userToken(newUser());
    const receipt = await createReceipt({ merchant_id: 1003 }, { token: owner });
    const res = await crashMidCall("receipt", receipt.id, "receipt/pay", { id: receipt.id, card: TOKEN }, owner);
    await expectError(res, 502, "upstream_error");

    expect((await settleByAlarm("receipt", receipt.id)).state).toBe(4);
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN }, { token: owner }), 409, "receipt_already_paid");
    await expectError(call("receipt/cancel", { id: receipt.id }, { token: owner }), 403, "forbidden");
    const pays = await upstreamCalls("receipt/pay", receipt.id);
    expect(pays.map((c) => c.status)).toEqual([200]);
    expect((await sandboxReceipt(receipt.id)).state).toBe(4);
  });

  it("pay with the right OTP: settled as paid, and the OTP is no guess", async () => {
    const receipt = await createReceipt({ merchant_id: 1001 });
    await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 200);
    await expectError(crashMidCall("receipt", receipt.id, "receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_OK }), 502, "upstream_error");
    expect(await settleByAlarm("receipt", receipt.id)).toMatchObject({ state: 4, wrong_otps: 0, unconfirmed_otps: 0 });
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_OK }), 409, "receipt_already_paid");
    expect(await upstreamCalls("receipt/pay", receipt.id)).toHaveLength(1);
  });

  it("pay with a wrong OTP: unpaid, so it counts as an unconfirmed guess; two more end the receipt, said so", async () => {
    const receipt = await createReceipt({ merchant_id: 1001 });
    await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 200);
    await crashMidCall("receipt", receipt.id, "receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_WRONG });
    expect(await settleByAlarm("receipt", receipt.id)).toMatchObject({ state: 0, wrong_otps: 0, unconfirmed_otps: 1 });

    expect((await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_WRONG }), 422, "otp_invalid")).attempts_left).toBe(1);
    const exhausted = await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_WRONG }), 409, "otp_attempts_exhausted");
    expect(exhausted.message).toMatch(/1 wrong, 1 whose answer was lost|2 wrong, 1 whose answer was lost/);
    expect(await sandboxReceipt(receipt.id)).toMatchObject({ state: 21, otp_attempts: 3 });
  });

  it("pay of a hold receipt with the right OTP after two wrong ones: settled as held, no guess, so it is not cancelled and the hold is confirmed", async () => {
    const receipt = await createReceipt({ merchant_id: 1001, is_hold: true });
    await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 200);
    for (let i = 0; i < 2; i++) await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_WRONG }), 422, "otp_invalid");
    await expectError(crashMidCall("receipt", receipt.id, "receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_OK }), 502, "upstream_error");
    expect((await settleByAlarm("receipt", receipt.id)).state).toBe(5);
    expect((await expectStatus(call("receipt/hold-confirm", { id: receipt.id }), 200)).state).toBe(4);
    expect(await upstreamCalls("receipt/cancel", receipt.id)).toHaveLength(0);
    expect((await sandboxReceipt(receipt.id)).state).toBe(4);
  });

  it("authorize: the alarm settles it and the send counts against the limits", async () => {
    const receipt = await createReceipt({ merchant_id: 1001 });
    await crashMidCall("receipt", receipt.id, "receipt/authorize", { id: receipt.id, card: TOKEN });
    expect(await settleByAlarm("receipt", receipt.id)).toMatchObject({ state: 0, otp_sends: 1 });
    // An SMS may have gone out: the resend wait applies.
    await expectError(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 429, "otp_resend_too_soon");
  });

  it("hold-confirm: settled as paid, confirmed once", async () => {
    const receipt = await createReceipt({ merchant_id: 1003, is_hold: true });
    expect((await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }), 200)).state).toBe(5);
    await crashMidCall("receipt", receipt.id, "receipt/hold-confirm", { id: receipt.id });
    expect((await settleByAlarm("receipt", receipt.id)).state).toBe(4);
    await expectError(call("receipt/hold-confirm", { id: receipt.id }), 409, "receipt_already_paid");
    expect(await upstreamCalls("receipt/hold-confirm", receipt.id)).toHaveLength(1);
  });

  it("cancel of a paid receipt: settled as cancelled, refunded once", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }), 200);
    await crashMidCall("receipt", receipt.id, "receipt/cancel", { id: receipt.id });
    expect((await settleByAlarm("receipt", receipt.id)).state).toBe(21);
    await expectError(call("receipt/cancel", { id: receipt.id }), 409, "cancel_not_allowed");
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN }), 409, "receipt_cancelled");
    expect((await upstreamCalls("receipt/cancel", receipt.id)).map((c) => c.status)).toEqual([200]);
  });

  it("a2c pay: settled as paid, sent once", async () => {
    const transfer = await expectStatus(call("a2c/create", transferRequest()), 200);
    const id = transfer.receipt_id;
    await crashMidCall("transfer", id, "a2c/pay", { id });
    expect((await settleByAlarm("transfer", id)).state).toBe(4);
    await expectError(call("a2c/pay", { id }), 409, "receipt_already_paid");
    expect((await upstreamCalls("a2c/pay", id)).map((c) => c.status)).toEqual([200]);
    expect((await sandboxTransfer(id)).state).toBe(4);
  });

  it("the alarm needs no caller: an operation arriving after the crash asks the upstream first", async () => {
    const owner = await userToken(newUser());
    const receipt = await createReceipt({ merchant_id: 1003 }, { token: owner });
    await crashMidCall("receipt", receipt.id, "receipt/pay", { id: receipt.id, card: TOKEN }, owner);
    // No alarm run: the user's cancel itself finds out the receipt is paid.
    await expectError(call("receipt/cancel", { id: receipt.id }, { token: owner }), 403, "forbidden");
    expect(await upstreamCalls("receipt/cancel", receipt.id)).toHaveLength(0);
    expect((await storedRecord("receipt", receipt.id)).state).toBe(4);
  });
});

describe("eviction between every step of the OTP flow changes nothing", () => {
  it("counts, resend waits and the paid state survive evictions", async () => {
    const receipt = await createReceipt({ merchant_id: 1001 });
    const stub = receiptStub(env, "receipt", receipt.id);
    const evict = () => evictDurableObject(stub);

    await evict();
    await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 200);
    await evict();
    await expectError(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 429, "otp_resend_too_soon");
    await evict();
    expect((await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_WRONG }), 422, "otp_invalid")).attempts_left).toBe(2);
    await evict();
    expect((await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_WRONG }), 422, "otp_invalid")).attempts_left).toBe(1);
    await evict();
    await letOtpWaitPass(receipt.id);
    await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 200);
    await evict();
    expect((await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_OK }), 200)).state).toBe(4);
    await evict();
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_OK }), 409, "receipt_already_paid");
    expect(await sandboxReceipt(receipt.id)).toMatchObject({ state: 4, otp_attempts: 3, wrong_otp_attempts: 2 });
    expect(await storedRecord("receipt", receipt.id)).toMatchObject({ state: 4, wrong_otps: 2, unconfirmed_otps: 0, otp_sends: 2, pending_op: null });
  });
});

describe("a crash right after the queue accepted an event", () => {
  /** What the receipt's outbox still owes (how far the drain got before the crash). */
  const unsent = (id: string) => unsentEvents("receipt", id);

  // The queue accepted receipt.paid, then the runtime died, before the object's storage marked the
  // event sent or after: either way the queue's copy dies with the process (the local queue
  // lives in memory). With no caller, the object's alarm and the Cron
  // Trigger's sweep get it to the receiver.
  for (const moment of ["before the outbox row is marked sent", "after the outbox row is marked sent"] as const) {
    it(`${moment}: the receiver still gets receipt.paid, and events/list says delivered`, async () => {
      const receipt = await createReceipt({ merchant_id: 1003 });
      const stub = receiptStub(env, "receipt", receipt.id);
      await runDurableObjectAlarm(stub);
      expect(await unsent(receipt.id)).toBe(0);

      const queue = queueSpy();
      // A flag, not a promise: a promise the object resolves would resume the test in the object's context.
      let accepted = false;
      queue.callPagerOnce(async (messages, pass) => {
        await pass(messages);
        accepted = true;
        // The object never hears back: the crash comes first.
        if (moment === "before the outbox row is marked sent") return new Promise<never>(() => {});
      });
      await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }), 200);
      await eventually(() => expect(accepted).toBe(true));
      // The drain's mark waits for the row's next write, or the alarm: here the alarm writes it.
      if (moment === "after the outbox row is marked sent") {
        await eventually(async () => {
          await runDurableObjectAlarm(stub);
          expect(await unsent(receipt.id)).toBe(0);
        });
      } else expect(await unsent(receipt.id)).toBe(1);
      await evictDurableObject(stub);
      const lost = queue.sent.splice(0);
      expect(lost.map((m) => JSON.parse(m.payload).type)).toEqual(["receipt.paid"]);

      // No caller: the object's alarm runs when it is due, and so does the cron.
      await runDurableObjectAlarm(stub);
      await fireCron(Date.now() + SWEEP_SETTINGS.development.staleMs + 1);
      const received = receiver();
      await consume(queue.sent.splice(0).map((body: EventMessage) => ({ body })));
      expect(
        received
          .map((d) => JSON.parse(d.body))
          .filter((e) => e.data.object.id === receipt.id)
          .map((e) => e.type),
      ).toContain("receipt.paid");
      const events = await expectStatus<any>(callGateway("events/list", { receipt_id: receipt.id, type: "receipt.paid" }), 200);
      expect(events.events.map((e: any) => e.delivery.status)).toEqual(["delivered"]);
    });
  }
});
