// Rule 8's write-ahead note and the record's one alarm, at production's pace
// and windows (UPSTREAM_TIMEOUT_MS 10 s, AUDIT_FLUSH_SECONDS 60, set for this
// file's objects): a receipt authorized 15 s after its creation and paid
// 10 s after that. Cloudflare bills each `setAlarm()` as a row written, so a
// note rides an alarm already due within rule 8's minute instead of setting
// its own; a crash right after such a note is still reconciled by that
// alarm, within the minute. The record's alarms fire when due, as the
// runtime fires them (the clock stands an hour ahead of the wall, so none
// fires on its own).
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { receiptStub } from "../../src/record/receipt-object";
import { clock, freezeClock } from "../../src/shared/clock";
import { leaseMs } from "../../src/tids/tid-index";
import { callGateway, queueSpy, unsentEvents } from "../events";
import {
  call,
  createReceipt,
  DAY_MS,
  eventually,
  expectError,
  expectStatus,
  letTimePass,
  OTP_OK,
  receiptRequest,
  refuseStatements,
  sandboxReceipt,
  storedRecord,
  tidRow,
  watchAlarms,
} from "../helpers";
import { scriptedUpstream } from "../support/scripted-upstream";

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
const TOKEN = { token: "tok_sandbox_ok" };
/** Production's windows (wrangler.toml [env.production.vars]) that decide when a payment's alarms are due. */
const PRODUCTION = { UPSTREAM_TIMEOUT_MS: "10000", AUDIT_FLUSH_SECONDS: "60" };
const settings = env as unknown as Record<string, string | undefined>;
const saved = Object.fromEntries(Object.keys(PRODUCTION).map((key) => [key, settings[key]]));

beforeEach(() => {
  // Objects started from now on read these (a record reads its windows as its object starts), and so does the Worker.
  Object.assign(settings, PRODUCTION);
  letTimePass(HOUR_MS);
  freezeClock();
});
afterEach(() => {
  Object.assign(settings, saved);
  vi.restoreAllMocks();
});

const stub = (id: string) => receiptStub(env, "receipt", id);
const alarmOf = (id: string) => runInDurableObject(stub(id), (_instance, state) => state.storage.getAlarm());

/** Time passes to `until`; every alarm due by then fires when due, as the runtime fires it (a few at most: an alarm that keeps coming back is a failure, not a hang). */
async function passTo(id: string, until: number): Promise<void> {
  let fired = 0;
  for (let at = await alarmOf(id); at !== null && at <= until; at = await alarmOf(id)) {
    if (++fired > 20) throw new Error(`the alarm of ${id} keeps coming back at ${at}`);
    letTimePass(Math.max(0, at - clock.now()));
    await runDurableObjectAlarm(stub(id));
  }
  letTimePass(until - clock.now());
}

/**
 * A payment at production's pace: created, authorized 15 s later, and paid
 * `paidAt` after the create (25 s: 10 s after the authorize; or never:
 * abandoned), then left until its end is its only alarm. The alarms its
 * object set, in seconds from the create.
 */
async function trace(paidAt: number | null): Promise<{
  id: string;
  alarms: number[];
  before: { authorize: number | null; pay: number | null };
  after: { authorize: number | null; pay: number | null };
}> {
  const t0 = clock.now();
  const receipt = await createReceipt({ merchant_id: 1001 });
  // The create's own alarm is set before the test can watch the object: what storage holds after it.
  const created = await alarmOf(receipt.id);
  expect(created).not.toBeNull();
  const watch = await watchAlarms(stub(receipt.id));
  await passTo(receipt.id, t0 + 15_000);
  const before = { authorize: await alarmOf(receipt.id), pay: null as number | null };
  await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 200);
  const after = { authorize: await alarmOf(receipt.id), pay: null as number | null };
  if (paidAt !== null) {
    await passTo(receipt.id, t0 + paidAt);
    before.pay = await alarmOf(receipt.id);
    await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_OK }), 200);
    after.pay = await alarmOf(receipt.id);
  }
  // Until the record's end (rule 10, RECORD_RETENTION_DAYS) is all that is left: past rule 12's expiry for an abandoned one.
  await passTo(receipt.id, t0 + 2 * DAY_MS);
  const seconds = (at: number) => Math.round((at - t0) / 1000);
  return { id: receipt.id, alarms: [created!, ...((await watch.set()) ?? [])].map(seconds), before, after };
}

/** The upstream holds the record's next `path` call after acting on it; the note and the alarm storage holds meanwhile; then the object crashes mid-call. */
async function crashMidCall(id: string, path: string, body: unknown): Promise<{ notedAt: number; alarm: number | null }> {
  const held = scriptedUpstream.hold(path, { id, act: true });
  const answer = call(path, body);
  try {
    await held.arrived;
    const noted = await runInDurableObject(stub(id), async (_instance, state) => ({
      notedAt: state.storage.sql.exec<{ pending_since: number }>("SELECT pending_since FROM record").one().pending_since,
      alarm: await state.storage.getAlarm(),
    }));
    await runInDurableObject(stub(id), (_instance, state) => state.abort("crash mid-call")).catch(() => undefined);
    return noted;
  } finally {
    held.release();
    await answer.catch(() => undefined);
  }
}

describe("a payment's alarms at production's pace", () => {
  it("paid: the authorize and the pay ride the create's alarm (30 s: the trail's export, and its backstops' latest), which then sets the end", async () => {
    const { id, alarms, before, after } = await trace(25_000);
    expect((await sandboxReceipt(id)).state).toBe(4);
    // Neither the authorize at 15 s nor the pay at 25 s writes an alarm: the create's, at 30 s, stands for their notes.
    expect(after.authorize).toBe(before.authorize);
    expect(after.pay).toBe(before.pay);
    expect(alarms).toEqual([30, 30 * 86_400 + 25]);
  });

  it("abandoned: the authorize rides the create's alarm; the expiry a day later, its cancel's note, and the end", async () => {
    const { id, alarms, before, after } = await trace(null);
    expect((await sandboxReceipt(id)).state).toBe(21);
    expect(after.authorize).toBe(before.authorize);
    expect(alarms).toEqual([30, 86_400, 86_411, 31 * 86_400]);
  });

  it("paid 40 s after the create, once its alarm fired and set the expiry: the pay sets its note's, which sets the end", async () => {
    const { id, alarms } = await trace(40_000);
    expect((await sandboxReceipt(id)).state).toBe(4);
    expect(alarms).toEqual([30, 86_400, 51, 30 * 86_400 + 40]);
  });
});

describe("a note rides an alarm due within rule 8's minute (45 s at a 10 s timeout)", () => {
  it("an authorize 5 s after its create: its note rides the create's alarm, past the call's own deadline; a crash right after it is reconciled by that alarm, within the minute", async () => {
    const t0 = clock.now();
    const receipt = await createReceipt({ merchant_id: 1001 });
    const created = await alarmOf(receipt.id);
    letTimePass(5_000);
    const { notedAt, alarm } = await crashMidCall(receipt.id, "receipt/authorize", { id: receipt.id, card: TOKEN });
    // Due after the call's deadline (5 + 11 s), yet within the minute: the note set none of its own.
    expect(alarm).toBe(created);
    expect(alarm! - notedAt).toBeGreaterThan(Number(PRODUCTION.UPSTREAM_TIMEOUT_MS) + 1000);
    expect(alarm! - notedAt).toBeLessThanOrEqual(45_000);
    expect((await storedRecord("receipt", receipt.id)).pending_op).toBe("authorize");

    // The alarm fires when due, no caller asks: the note is settled from what the upstream shows.
    await passTo(receipt.id, t0 + 31_000);
    expect(clock.now() - notedAt).toBeLessThan(MINUTE_MS);
    expect((await storedRecord("receipt", receipt.id)).pending_op).toBeNull();
    expect(await alarmOf(receipt.id)).not.toBeNull();
    await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_OK }), 200);
  });

  it.each([
    [40_000, "rides it"],
    [50_000, "sets its own, at the call's deadline"],
  ])("an alarm an earlier incarnation left %i ms ahead: the note %s", async (ahead, _what) => {
    const receipt = await createReceipt({ merchant_id: 1001 });
    // The create's alarm has fired (its backstops done); an earlier incarnation left one `ahead` from now.
    await passTo(receipt.id, clock.now() + 31_000);
    const left = clock.now() + ahead;
    await runInDurableObject(stub(receipt.id), (_instance, state) => state.storage.setAlarm(left));
    await evictDurableObject(stub(receipt.id));
    const { notedAt, alarm } = await crashMidCall(receipt.id, "receipt/authorize", { id: receipt.id, card: TOKEN });
    expect(alarm).toBe(ahead <= 45_000 ? left : notedAt + Number(PRODUCTION.UPSTREAM_TIMEOUT_MS) + 1000);
    // Either way the crash is reconciled within the minute, by the alarm alone.
    await passTo(receipt.id, notedAt + 46_000);
    expect((await storedRecord("receipt", receipt.id)).pending_op).toBeNull();
  });
});

describe("the create's alarm backs up what its create leaves undone", () => {
  it("the object stops right after the answer, its drain and the request's tid completion undone: the 30 s alarm completes the row, and logs and sends the created event once", async () => {
    const queue = queueSpy();
    // The request's completion fails (its invocation gone), and the object's drain never hears back from the queue.
    let refusing = true;
    refuseStatements((sql) => refusing && /^UPDATE tid_index(_\d)? SET status = 1/.test(sql));
    queue.pager.mockImplementationOnce(() => new Promise<never>(() => {}));
    const t0 = clock.now();
    const request = receiptRequest({ merchant_id: 1001 });
    const created = await expectStatus(call("receipt/create", request), 200);
    await eventually(() => expect(queue.pager).toHaveBeenCalledTimes(1));
    await runInDurableObject(stub(created.id), (_instance, state) => state.abort("stopped right after the answer")).catch(() => undefined);
    refusing = false;
    expect(await tidRow("partner:partner", request.tid)).toMatchObject({ status: "pending", receipt_id: null });
    expect(await unsentEvents("receipt", created.id)).toBe(1);
    await expectError(call("receipt/check-tid", { tid: request.tid }), 409, "tid_in_progress");

    // One alarm backs both up, within the claim's lease after the answer.
    const alarm = await alarmOf(created.id);
    expect(alarm! - t0).toBe(30_000);
    expect(alarm! - t0).toBeLessThanOrEqual(leaseMs(Number(PRODUCTION.UPSTREAM_TIMEOUT_MS)));
    await passTo(created.id, alarm!);
    expect(await tidRow("partner:partner", request.tid)).toMatchObject({ status: "completed", receipt_id: created.id, claim_token: null });
    expect((await expectStatus(call("receipt/check-tid", { tid: request.tid }), 200)).id).toBe(created.id);
    expect(await unsentEvents("receipt", created.id)).toBe(0);
    expect(queue.sent.map((m) => JSON.parse(m.payload).type)).toEqual(["receipt.created"]);
    await queue.deliver(created.id);
    const page = await expectStatus<any>(callGateway("events/list", { receipt_id: created.id, limit: 100 }), 200);
    expect(page.events.map((e: any) => [e.type, e.delivery.status])).toEqual([["receipt.created", "delivered"]]);
  });

  it("a takeover's init owes only its claim's completion: its alarm comes a lease after the answer, when a retry could take the claim over again", async () => {
    // D1 refuses every completion until the lease is over: the request's, and the create's alarm's at 30 s.
    let refusing = true;
    refuseStatements((sql) => refusing && /^UPDATE tid_index(_\d)? SET status = 1/.test(sql));
    const t0 = clock.now();
    const request = receiptRequest({ merchant_id: 1001 });
    const created = await expectStatus(call("receipt/create", request), 200);
    await passTo(created.id, t0 + 31_000);
    expect(await tidRow("partner:partner", request.tid)).toMatchObject({ status: "pending" });
    refusing = false;
    // A new incarnation (no failure remembered) meets the identical retry, which takes the expired claim over and adopts the record.
    await evictDurableObject(stub(created.id));
    const t1 = clock.now();
    expect(await expectStatus(call("receipt/create", request), 200)).toMatchObject({ id: created.id });
    const lease = leaseMs(Number(PRODUCTION.UPSTREAM_TIMEOUT_MS));
    const alarm = await alarmOf(created.id);
    expect(alarm! - t1).toBe(lease);
    await passTo(created.id, alarm!);
    expect(await tidRow("partner:partner", request.tid)).toMatchObject({ status: "completed", receipt_id: created.id, claim_token: null });
    expect((await expectStatus(call("receipt/check-tid", { tid: request.tid }), 200)).id).toBe(created.id);
  });
});
