/**
 * Rule 10, a record's end: a final record that owes nothing deletes itself
 * (its own alarm) RECORD_RETENTION_DAYS after its last change; after that the
 * partner's operations rebuild it from the upstream, a user's answer 404.
 * Time passes with letTimePass (src/shared/clock.ts); the object's alarm is run as
 * the runtime would run it once its time came.
 */
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { readConfig } from "../../src/config/config";
import { retentionPolicy } from "../../src/config/retention-policy";
import { RING_SLOTS } from "../../src/d1/ring";
import { END_RECHECK_MS } from "../../src/record/end";
import { storedEvents } from "../../src/record/outbox-rows";
import { receiptStub } from "../../src/record/receipt-object";
import { clock } from "../../src/shared/clock";
import { callGateway, consume, fireCron, letTimePassWithTheCron, queueSpy, receiver, ringPeriod, unsentEvents } from "../events";
import {
  call,
  createReceipt,
  DAY_MS,
  dumpStorage,
  expectError,
  expectStatus,
  letTimePass,
  newUser,
  OTP_OK,
  OTP_WRONG,
  refuseStatements,
  sandboxCalls,
  sandboxReceipt,
  sandboxTransfer,
  storagePages,
  storedRecord,
  transferRequest,
  userToken,
} from "../helpers";
import { scriptedUpstream } from "../support/scripted-upstream";

const RETENTION_MS = retentionPolicy(env).recordRetentionMs;
const TOKEN = { token: "tok_sandbox_ok" };
const stubOf = (id: string, kind: "receipt" | "transfer" = "receipt") => receiptStub(env, kind, id);
const stored = async (id: string, kind: "receipt" | "transfer" = "receipt") =>
  (await dumpStorage(stubOf(id, kind))).filter((line) => !line.startsWith("__"));

/** Every message the gateway sends to the events queue, for a test to deliver (tests consume the queue themselves). */
let queue: ReturnType<typeof queueSpy>;
beforeEach(() => {
  queue = queueSpy();
});
afterEach(() => vi.restoreAllMocks());

/**
 * The record's events handed on (its alarm drains its outbox) and delivered,
 * the receiver answering 204: the log prunes a delivered event
 * EVENTS_DELIVERED_RETENTION_DAYS after its creation, inside the record's
 * window, so its end waits for nothing.
 */
async function delivered(id: string, kind: "receipt" | "transfer" = "receipt"): Promise<void> {
  await runDurableObjectAlarm(stubOf(id, kind));
  await queue.deliver(id);
}

/**
 * The cron's retention run at the clock's now: it prunes the event log's rows
 * past their windows. A record is deleted only once the log holds none of its
 * events, so it comes first.
 */
const pruneTheLog = () => fireCron(clock.now());

/** Time passes beyond the record's window, and the cron prunes the log: the record's alarm may then delete it. */
async function pastTheWindow(): Promise<void> {
  await letTimePassWithTheCron(RETENTION_MS + 60_000);
}

/** A receipt of `user`'s, paid (state 4, final), its events handed on and delivered. */
async function paidReceiptOf(token: string): Promise<any> {
  const created = await createReceipt({ merchant_id: 1003 }, { token });
  await expectStatus(call("receipt/pay", { id: created.id, card: TOKEN }, { token }), 200);
  await delivered(created.id);
  return created;
}

describe("a final record deletes itself after RECORD_RETENTION_DAYS", () => {
  it("defaults to 30 days, and accepts fractions", () => {
    expect(RETENTION_MS).toBe(30 * DAY_MS);
    expect(retentionPolicy({ ...env, RECORD_RETENTION_DAYS: undefined } as unknown as Env).recordRetentionMs).toBe(30 * DAY_MS);
    const windows = { EVENTS_DELIVERED_RETENTION_DAYS: "0.1", EVENTS_UNDELIVERED_RETENTION_DAYS: "0.2" };
    expect(retentionPolicy({ ...env, ...windows, RECORD_RETENTION_DAYS: "0.25" } as unknown as Env).recordRetentionMs).toBe(DAY_MS / 4);
    // Shorter than the log keeps events: a record whose events the log still lists waits for them (tested below).
    expect(retentionPolicy({ ...env, ...windows, RECORD_RETENTION_DAYS: "0.05" } as unknown as Env).recordRetentionMs).toBe(0.05 * DAY_MS);
  });

  it("just inside the window it stays; just outside, its own alarm deletes every stored row, and the user's check-id answers 404", async () => {
    const token = await userToken(newUser());
    const receipt = await paidReceiptOf(token);
    // The cron's retention meanwhile: the log's ring drops the slot of its delivered events.
    await letTimePassWithTheCron(RETENTION_MS - 60_000);
    await runDurableObjectAlarm(stubOf(receipt.id));
    expect(await stored(receipt.id)).not.toEqual([]);
    expect((await expectStatus(call("receipt/check-id", { id: receipt.id }, { token }), 200)).state).toBe(4);

    letTimePass(120_000);
    await pruneTheLog();
    expect(await runDurableObjectAlarm(stubOf(receipt.id))).toBe(true);
    expect(await stored(receipt.id)).toEqual([]);
    // Nothing left to come back for.
    expect(await runDurableObjectAlarm(stubOf(receipt.id))).toBe(false);
    await expectError(call("receipt/check-id", { id: receipt.id }, { token }), 404, "receipt_not_found");
    await expectError(call("receipt/cancel", { id: receipt.id }, { token }), 404, "receipt_not_found");
  });

  it("a record that is not final (held, unpaid) is kept however long", async () => {
    const held = await createReceipt({ merchant_id: 1003, is_hold: true });
    await expectStatus(call("receipt/pay", { id: held.id, card: TOKEN }), 200);
    const unpaid = await createReceipt({ merchant_id: 1003 });
    await runDurableObjectAlarm(stubOf(held.id));
    await runDurableObjectAlarm(stubOf(unpaid.id));
    letTimePass(2 * RETENTION_MS);
    await runDurableObjectAlarm(stubOf(held.id));
    await runDurableObjectAlarm(stubOf(unpaid.id));
    expect(await stored(held.id)).not.toEqual([]);
    expect(await stored(unpaid.id)).not.toEqual([]);
  });

  it("a transfer paid is deleted too", async () => {
    const transfer = await expectStatus(call("a2c/create", transferRequest()), 200);
    await expectStatus(call("a2c/pay", { id: transfer.receipt_id }), 200);
    await delivered(transfer.receipt_id, "transfer");
    await pastTheWindow();
    await runDurableObjectAlarm(stubOf(transfer.receipt_id, "transfer"));
    expect(await stored(transfer.receipt_id, "transfer")).toEqual([]);
    // The partner's get-by-id rebuilds it from the upstream.
    const read = await expectStatus(call("a2c/get-by-id", { id: transfer.receipt_id }), 200);
    expect(read).toMatchObject({ receipt_id: transfer.receipt_id, state: 4 });
    expect(await stored(transfer.receipt_id, "transfer")).not.toEqual([]);
  });
});

describe("space (rule 10: small by design, freed for reuse)", () => {
  it("a record after create-authorize-pay, and after a refund, is one table, one row: its audit trail and its logged events in it, their bodies whole as sent; 12 KB (SQLite's schema page, the record's page, the platform's own) at every step, the row never spilling into a page of its own; a delete-and-rebuild cycle does not grow it", async () => {
    const receipt = await createReceipt();
    const sizes = [(await storagePages(stubOf(receipt.id))).bytes];
    await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 200);
    sizes.push((await storagePages(stubOf(receipt.id))).bytes);
    await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: "111111" }), 200);
    await runDurableObjectAlarm(stubOf(receipt.id));
    const paid = await storagePages(stubOf(receipt.id));
    sizes.push(paid.bytes);
    // The record row, with its audit trail and its two events, kept once logged (their bodies for events/list).
    expect(paid.tables).toEqual(["record", "_cf_METADATA"]);
    const rows = await stored(receipt.id);
    expect(rows).toEqual([expect.stringMatching(/^record: .*"events_logged":2/)]);
    const row = JSON.parse(rows[0]!.slice("record: ".length));
    const events = storedEvents(row);
    expect(events.map(([, body]) => JSON.parse(body).type)).toEqual(["receipt.created", "receipt.paid"]);
    // Each body is the one events/list gives, byte for byte; the receipt in it is not stored a second time.
    const listed = ((await expectStatus(callGateway("events/list", { receipt_id: receipt.id }), 200)).events as any[]).toReversed();
    expect(events.map(([, body]) => JSON.parse(body))).toEqual(listed.map(({ delivery: _delivery, ...event }) => event));
    expect(JSON.parse(events[1]![1]).data.object).toEqual(JSON.parse(row.body));
    expect(row.events).not.toContain(JSON.stringify(row.body).slice(1, -1));
    expect(row.events).not.toContain(JSON.stringify(row.answer).slice(1, -1));

    // A refund: its event's receipt is the body again, the paid event's is kept as what differs from it.
    await expectStatus(call("receipt/cancel", { id: receipt.id }), 200);
    await runDurableObjectAlarm(stubOf(receipt.id));
    sizes.push((await storagePages(stubOf(receipt.id))).bytes);
    expect(sizes).toEqual([12 * 1024, 12 * 1024, 12 * 1024, 12 * 1024]);

    await queue.deliver(receipt.id);
    await pastTheWindow();
    await runDurableObjectAlarm(stubOf(receipt.id));
    expect((await storagePages(stubOf(receipt.id))).tables.filter((name) => !name.startsWith("_cf_"))).toEqual([]);
    // The partner's check-id rebuilds it (refunded) from the upstream.
    expect((await expectStatus(call("receipt/check-id", { id: receipt.id }), 200)).state).toBe(21);
    await runDurableObjectAlarm(stubOf(receipt.id));
    expect((await storagePages(stubOf(receipt.id))).pages).toBeLessThanOrEqual(paid.pages);
  });
});

describe("after its deletion", () => {
  it("the partner's check-id rebuilds it from the upstream (owner: the partner); the user still gets 404", async () => {
    const token = await userToken(newUser());
    const receipt = await paidReceiptOf(token);
    await pastTheWindow();
    await runDurableObjectAlarm(stubOf(receipt.id));
    expect(await stored(receipt.id)).toEqual([]);

    const read = await expectStatus(call("receipt/check-id", { id: receipt.id }), 200);
    expect(read).toMatchObject({ id: receipt.id, state: 4, amount: receipt.amount });
    const audit = await expectStatus(callGateway("receipt/audit", { id: receipt.id }), 200);
    expect(audit.owner).toBe("partner");
    expect(audit.entries.map((entry: { op: string; actor: string }) => [entry.op, entry.actor])).toEqual([["rebuild", "partner"]]);
    await expectError(call("receipt/check-id", { id: receipt.id }, { token }), 404, "receipt_not_found");
  });

  it("the partner's cancel rebuilds it and refunds; its event's sequence is above any the deleted record used", async () => {
    const receipt = await paidReceiptOf(await userToken(newUser()));
    const before = await expectStatus(callGateway("events/list", { receipt_id: receipt.id }), 200);
    const highest = Math.max(...before.events.map((event: { sequence: number }) => event.sequence));
    await pastTheWindow();
    await runDurableObjectAlarm(stubOf(receipt.id));
    expect(await stored(receipt.id)).toEqual([]);

    const cancelled = await expectStatus(call("receipt/cancel", { id: receipt.id }), 200);
    expect(cancelled.state).toBe(21);
    await runDurableObjectAlarm(stubOf(receipt.id));
    const after = await expectStatus(callGateway("events/list", { receipt_id: receipt.id }), 200);
    const news = after.events.filter((event: { type: string }) => event.type === "receipt.cancelled");
    expect(news).toHaveLength(1);
    expect(news[0].sequence).toBeGreaterThan(highest);
    // No `created`: the rebuild is no create, and the deleted record's events went with it (their bodies were its own).
    expect(after.events.filter((event: { type: string }) => event.type === "receipt.created")).toHaveLength(0);
  });

  it("a receipt the upstream created too recently to have been deleted is not rebuilt: 404, as for one nobody knows", async () => {
    // The object holds nothing, the upstream holds a receipt created a moment ago (as while a create's record is not written yet).
    const receipt = await createReceipt({ merchant_id: 1003 });
    await runInDurableObject(stubOf(receipt.id), async (_instance, state) => {
      await state.storage.deleteAlarm();
      await state.storage.deleteAll();
    });
    await evictDurableObject(stubOf(receipt.id));
    await expectError(call("receipt/check-id", { id: receipt.id }), 404, "receipt_not_found");
    expect(await stored(receipt.id)).toEqual([]);
    await expectError(call("receipt/check-id", { id: "01JZZZZZZZZZZZZZZZZZZZZZZZ" }), 404, "receipt_not_found");
  });
});

describe("a record outlives every event the log lists for it (rule 10)", () => {
  it("events undelivered at the record's deletion time: the record stays while the log lists them, with their bodies; once retention has pruned them, the record goes", async () => {
    // The log keeps an undelivered event longer (90 days, the default) than a final record's window (30).
    const undeliveredMs = retentionPolicy(env).undeliveredEventsMs;
    expect(undeliveredMs).toBeGreaterThan(RETENTION_MS);
    const receipt = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }), 200);
    await runDurableObjectAlarm(stubOf(receipt.id));
    // The receiver answers 500 to every delivery: both events stay undelivered.
    receiver(() => new Response("down", { status: 500 }));
    await consume(queue.sent.map((body) => ({ body })));
    const listed = async () =>
      (await expectStatus(callGateway("events/list", { receipt_id: receipt.id }), 200)).events as {
        id: string;
        type: string;
        delivery: { status: string };
      }[];
    expect((await listed()).map((event) => [event.type, event.delivery.status])).toEqual([
      ["receipt.paid", "pending"],
      ["receipt.created", "pending"],
    ]);

    // Past the record's window, with the cron run: the log still lists them, and the record does not delete itself from under it.
    await letTimePassWithTheCron(RETENTION_MS + 60_000);
    await runDurableObjectAlarm(stubOf(receipt.id));
    expect(await stored(receipt.id)).not.toEqual([]);
    // Past the log's window, before the cron's next retention run: still listed, so still kept, and asking again later.
    letTimePass(undeliveredMs - RETENTION_MS);
    await runDurableObjectAlarm(stubOf(receipt.id));
    expect(await stored(receipt.id)).not.toEqual([]);
    const still = await listed();
    expect(still.map((event) => event.type)).toEqual(["receipt.paid", "receipt.created"]);
    expect(await expectStatus(callGateway("events/resend", { id: still[0]!.id }), 200)).toMatchObject({ id: still[0]!.id, type: "receipt.paid" });

    // Retention prunes them, at the next turn of the log's ring that drops their slot; the record, asking again, goes.
    await letTimePassWithTheCron(RING_SLOTS * ringPeriod());
    expect(await listed()).toEqual([]);
    letTimePass(END_RECHECK_MS);
    expect(await runDurableObjectAlarm(stubOf(receipt.id))).toBe(true);
    expect(await stored(receipt.id)).toEqual([]);
  });

  it("a record that changed while it asked the log is not deleted: the refund the partner made meanwhile stays with its record", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }), 200);
    await delivered(receipt.id);
    await pastTheWindow();
    // The log's answer to the record waits until the test lets it through (flags polled, no promise crosses contexts).
    const gate = { asked: false, released: false };
    // Every database of the deployment's list: the record's events are in the one its id hashes to.
    for (const db of [env.DB, env.DB_TID_1]) {
      const prepare = db.prepare.bind(db);
      vi.spyOn(db, "prepare").mockImplementation((sql: string) => {
        const statement = prepare(sql);
        // The record's question: does the log hold any of the event ids it keeps?
        if (!sql.startsWith("SELECT 1 AS found FROM")) return statement;
        return Object.assign(Object.create(statement), {
          bind: (...values: unknown[]) => {
            const bound = statement.bind(...values);
            return Object.assign(Object.create(bound), {
              // The log answers at once (none of the record's events), and the answer reaches the record late.
              first: async () => {
                const answer = await bound.first();
                gate.asked = true;
                while (!gate.released) await scheduler.wait(5);
                return answer;
              },
            });
          },
        });
      });
    }
    const alarm = runDurableObjectAlarm(stubOf(receipt.id));
    while (!gate.asked) await scheduler.wait(5);
    // Meanwhile the partner refunds it: the record changes (21, a new event to deliver).
    expect((await expectStatus(call("receipt/cancel", { id: receipt.id }), 200)).state).toBe(21);
    gate.released = true;
    await alarm;
    vi.restoreAllMocks();
    // Still the record the create made (not one rebuilt from the upstream), with its refund.
    const trail = await expectStatus(callGateway("receipt/audit", { id: receipt.id }), 200);
    expect(trail.entries.map((entry: { op: string }) => entry.op)).toEqual(["create", "pay", "cancel"]);
    expect((await storedRecord("receipt", receipt.id)).state).toBe(21);
  });
});

describe("a final record's end waits for what it owes (rule 10)", () => {
  /** The record's audit trail, as the partner reads it: 404 once the record is deleted. */
  const trail = async (id: string) => (await expectStatus(callGateway("receipt/audit", { id }), 200)).entries as { op: string; actor: string }[];

  it("its late reads (rule 8) still owed: it outlives its window until they are done, then ends a window later", async () => {
    const token = await userToken(newUser());
    const receipt = await createReceipt({ merchant_id: 1003 }, { token });
    // The pay's answer is lost after the payment service paid: its outcome is unknown, so the record is suspect of a late change.
    scriptedUpstream.on("receipt/pay", { kind: "lost" }, { id: receipt.id });
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN }, { token }), 502, "upstream_error");
    // The next look finds it paid: final, with its late reads owed.
    expect((await expectStatus(call("receipt/check-id", { id: receipt.id }, { token }), 200)).state).toBe(4);
    expect((await storedRecord("receipt", receipt.id)).suspect_since).not.toBe(0);
    await delivered(receipt.id);
    // The payment service answers none of the reads until long after the record's window.
    scriptedUpstream.on("receipt/check-id", { kind: "status", status: 503, retryAfter: 1 }, { id: receipt.id, times: 1_000 });

    await pastTheWindow();
    await runDurableObjectAlarm(stubOf(receipt.id));
    expect(await stored(receipt.id)).not.toEqual([]);
    expect((await trail(receipt.id)).map((entry) => entry.op)).toContain("pay");

    // It answers again: the late reads are done (the gateway's look, in the trail), and nothing more is owed.
    scriptedUpstream.reset();
    await runDurableObjectAlarm(stubOf(receipt.id));
    expect((await trail(receipt.id)).at(-1)).toMatchObject({ op: "reconcile", actor: "gateway" });
    expect((await storedRecord("receipt", receipt.id)).suspect_since).toBe(0);
    await pastTheWindow();
    await runDurableObjectAlarm(stubOf(receipt.id));
    expect(await stored(receipt.id)).toEqual([]);
  });

  it("its events never reached the event log: it outlives its window with them, and hands them on once the log takes them", async () => {
    const token = await userToken(newUser());
    // The event log refuses every event: the record's events wait in its outbox. (Logging names its columns; the
    // ring's copy of a slot, which the cron's turns still run, does not.)
    refuseStatements((sql) => /INSERT INTO events(_\d)? \(id, record_id/.test(sql));
    const receipt = await createReceipt({ merchant_id: 1003 }, { token });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }, { token }), 200);
    await runDurableObjectAlarm(stubOf(receipt.id));
    expect(await unsentEvents("receipt", receipt.id)).toBe(2);

    await pastTheWindow();
    await runDurableObjectAlarm(stubOf(receipt.id));
    expect(await stored(receipt.id)).not.toEqual([]);
    expect(await unsentEvents("receipt", receipt.id)).toBe(2);

    // The log takes them: the record hands both on and the partner receives them, their bodies kept.
    vi.restoreAllMocks();
    queue = queueSpy();
    const received = receiver();
    await runDurableObjectAlarm(stubOf(receipt.id));
    await consume(queue.sent.map((body) => ({ body })));
    expect(received.map((delivery) => JSON.parse(delivery.body).type)).toEqual(["receipt.created", "receipt.paid"]);
    const listed = await expectStatus(callGateway("events/list", { receipt_id: receipt.id }), 200);
    expect(listed.events.map((event: { delivery: { status: string } }) => event.delivery.status)).toEqual(["delivered", "delivered"]);

    // Then it ends, once the log has let them go.
    // The log's ring drops their slot within two of its periods after their window.
    await letTimePassWithTheCron(retentionPolicy(env).deliveredEventsMs + 2 * ringPeriod() + END_RECHECK_MS);
    expect(await runDurableObjectAlarm(stubOf(receipt.id))).toBe(true);
    expect(await stored(receipt.id)).toEqual([]);
  });
});

describe("a transfer closed at the edge is final (rules 2 and 10)", () => {
  it("three failed guesses with the upstream still at 0: closed at the gateway, then deleted after its window like any final record", async () => {
    const transfer = await expectStatus(call("a2c/create", transferRequest({ amount: 2_000_000 })), 200);
    const id = transfer.receipt_id as string;
    // Two answers lost before the upstream judged the OTP (unconfirmed guesses), then one wrong: the upstream counted one.
    scriptedUpstream.on("a2c/pay", { kind: "status", status: 500, act: false }, { id, times: 2 });
    for (let i = 0; i < 2; i++) await expectError(call("a2c/pay", { id, otp: OTP_WRONG }), 502, "upstream_error");
    const exhausted = await expectError(call("a2c/pay", { id, otp: OTP_WRONG }), 409, "otp_attempts_exhausted");
    expect(exhausted.message).toMatch(/closed at the gateway/);
    expect((await sandboxTransfer(id)).state).toBe(0);
    // The lost answers' late reads (rule 8) all done in one look: nothing else is owed from here on.
    letTimePass(2 * DAY_MS);
    await runDurableObjectAlarm(stubOf(id, "transfer"));
    expect(await storedRecord("transfer", id)).toMatchObject({ state: 0, pending_op: null, suspect_since: 0 });
    await queue.deliver(id);

    await letTimePassWithTheCron(RETENTION_MS - 60_000);
    await runDurableObjectAlarm(stubOf(id, "transfer"));
    expect(await stored(id, "transfer")).not.toEqual([]);
    await expectError(call("a2c/pay", { id, otp: OTP_OK }), 409, "otp_attempts_exhausted");

    letTimePass(120_000);
    await pruneTheLog();
    expect(await runDurableObjectAlarm(stubOf(id, "transfer"))).toBe(true);
    expect(await stored(id, "transfer")).toEqual([]);
    expect(await runDurableObjectAlarm(stubOf(id, "transfer"))).toBe(false);
  });
});

describe("what the gateway ended stays ended across the record's end (rules 2, 10 and 12)", () => {
  /** The record's events delivered, its window passed and the log pruned: its own alarm deletes it. */
  async function deleted(id: string, kind: "receipt" | "transfer" = "transfer"): Promise<void> {
    await queue.deliver(id);
    await letTimePassWithTheCron(RETENTION_MS + 60_000);
    expect(await runDurableObjectAlarm(stubOf(id, kind))).toBe(true);
    expect(await stored(id, kind)).toEqual([]);
  }

  const callsTo = async (path: string, id: string) => (await sandboxCalls()).filter((c) => c.id === id && c.path === path);
  const otpsSent = (id: string) => callsTo("a2c/pay", id);

  it("a transfer closed by three lost answers the upstream never judged, deleted, then read by the partner: rebuilt closed, and the right OTP never reaches the upstream", async () => {
    const transfer = await expectStatus(call("a2c/create", transferRequest({ amount: 1_500_000 })), 200);
    const id = transfer.receipt_id as string;
    scriptedUpstream.on("a2c/pay", { kind: "status", status: 500, act: false }, { id, times: 3 });
    for (let i = 0; i < 3; i++) await expectError(call("a2c/pay", { id, otp: OTP_WRONG }), 502, "upstream_error");
    // The lost answers' late reads (rule 8) all done in one look: nothing is owed, and the upstream judged no OTP at all.
    letTimePass(2 * DAY_MS);
    await runDurableObjectAlarm(stubOf(id, "transfer"));
    expect((await expectError(call("a2c/pay", { id, otp: OTP_OK }), 409, "otp_attempts_exhausted")).message).toMatch(/closed at the gateway/);
    expect(await otpsSent(id)).toEqual([]);
    await deleted(id);

    // The partner's read rebuilds it from the upstream, which still shows it unpaid: only a record the gateway closed is deleted unpaid.
    expect(await expectStatus(call("a2c/get-by-id", { id }), 200)).toMatchObject({ receipt_id: id, state: 0 });
    await expectError(call("a2c/pay", { id, otp: OTP_OK }), 409, "receipt_expired");
    expect(await otpsSent(id)).toEqual([]);
    expect((await sandboxTransfer(id)).state).toBe(0);
    // Closed and owing nothing, it is final again: it ends a window later, and comes back closed as often as it is read.
    await deleted(id);
    expect((await expectStatus(call("a2c/get-by-id", { id }), 200)).state).toBe(0);
    await expectError(call("a2c/pay", { id, otp: OTP_OK }), 409, "receipt_expired");
    expect(await otpsSent(id)).toEqual([]);
  });

  it("an abandoned transfer the expiry closed (rule 12), deleted, then read by the partner: rebuilt closed, never paid", async () => {
    const transfer = await expectStatus(call("a2c/create", transferRequest({ amount: 1_600_000 })), 200);
    const id = transfer.receipt_id as string;
    letTimePass(readConfig(env).expiry.unpaidMs + 1000);
    await runDurableObjectAlarm(stubOf(id, "transfer"));
    await expectError(call("a2c/pay", { id, otp: OTP_OK }), 409, "receipt_expired");
    await deleted(id);

    expect((await expectStatus(call("a2c/get-by-id", { id }), 200)).state).toBe(0);
    await expectError(call("a2c/pay", { id, otp: OTP_OK }), 409, "receipt_expired");
    expect(await otpsSent(id)).toEqual([]);
    expect((await sandboxTransfer(id)).state).toBe(0);
    // The rebuild sends nothing new: the deleted record announced its end.
    await runDurableObjectAlarm(stubOf(id, "transfer"));
    const listed = await expectStatus(callGateway("events/list", { receipt_id: id }), 200);
    expect(listed.events).toEqual([]);
  });

  it("a held receipt whose expiry cancel the upstream refused for good (no cancel access), deleted, then read by the partner: rebuilt closed, never asked to cancel again", async () => {
    scriptedUpstream.vars({ SANDBOX_CANCEL_ACCESS: "false" });
    const receipt = await createReceipt({ merchant_id: 1003, is_hold: true });
    expect((await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }), 200)).state).toBe(5);
    letTimePass(readConfig(env).expiry.heldMs + 1000);
    await runDurableObjectAlarm(stubOf(receipt.id));
    expect((await callsTo("receipt/cancel", receipt.id)).map((c) => c.status)).toEqual([403]);
    await expectError(call("receipt/hold-confirm", { id: receipt.id }), 409, "receipt_expired");
    await deleted(receipt.id, "receipt");

    expect((await expectStatus(call("receipt/check-id", { id: receipt.id }), 200)).state).toBe(5);
    await expectError(call("receipt/hold-confirm", { id: receipt.id }), 409, "receipt_expired");
    // Its alarm owes nothing: no second cancel, no event; it ends a window later like any record closed at the edge.
    letTimePass(readConfig(env).expiry.heldMs + 1000);
    await runDurableObjectAlarm(stubOf(receipt.id));
    expect((await callsTo("receipt/cancel", receipt.id)).map((c) => c.status)).toEqual([403]);
    expect(await callsTo("receipt/hold-confirm", receipt.id)).toEqual([]);
    expect((await sandboxReceipt(receipt.id)).state).toBe(5);
    expect((await expectStatus(callGateway("events/list", { receipt_id: receipt.id }), 200)).events).toEqual([]);
  });
});
