/**
 * Rule 10, a record's end: a final record that owes nothing deletes itself
 * (its own alarm) RECORD_RETENTION_DAYS after its last change; after that the
 * partner's operations rebuild it from the upstream, a user's answer 404.
 * Time passes with letTimePass (src/clock.ts); the object's alarm is run as
 * the runtime would run it once its time came.
 */
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { receiptStub } from "../../src/receipt-object";
import { retentionPolicy } from "../../src/retention";
import { callGateway } from "../events";
import {
  call,
  createReceipt,
  DAY_MS,
  dumpStorage,
  expectError,
  expectStatus,
  letTimePass,
  newUser,
  storagePages,
  transferRequest,
  userToken,
} from "../helpers";

const RETENTION_MS = retentionPolicy(env).recordRetentionMs;
const TOKEN = { token: "tok_sandbox_ok" };
const stubOf = (id: string, kind: "receipt" | "transfer" = "receipt") => receiptStub(env, kind, id);
const stored = async (id: string, kind: "receipt" | "transfer" = "receipt") =>
  (await dumpStorage(stubOf(id, kind))).filter((line) => !line.startsWith("__"));

/** A receipt of `user`'s, paid (state 4, final), its events handed on. */
async function paidReceiptOf(token: string): Promise<any> {
  const created = await createReceipt({ merchant_id: 1003 }, { token });
  await expectStatus(call("receipt/pay", { id: created.id, card: TOKEN }, { token }), 200);
  // Whatever the background drain left owed is handed on, as the object's next alarm would.
  await runDurableObjectAlarm(stubOf(created.id));
  return created;
}

describe("a final record deletes itself after RECORD_RETENTION_DAYS", () => {
  it("defaults to 90 days, accepts fractions, and is never shorter than the event log keeps the record's events", () => {
    expect(RETENTION_MS).toBe(90 * DAY_MS);
    const windows = { EVENTS_DELIVERED_RETENTION_DAYS: "0.1", EVENTS_UNDELIVERED_RETENTION_DAYS: "0.2" };
    expect(retentionPolicy({ ...env, ...windows, RECORD_RETENTION_DAYS: "0.25" } as unknown as Env).recordRetentionMs).toBe(DAY_MS / 4);
    // The record gives the bodies of the events the log lists (docs/events.md): it stays while the log may list them.
    expect(retentionPolicy({ ...env, ...windows, RECORD_RETENTION_DAYS: "0.05" } as unknown as Env).recordRetentionMs).toBe(0.2 * DAY_MS);
  });

  it("just inside the window it stays; just outside, its own alarm deletes every stored row, and the user's check-id answers 404", async () => {
    const token = await userToken(newUser());
    const receipt = await paidReceiptOf(token);
    letTimePass(RETENTION_MS - 60_000);
    await runDurableObjectAlarm(stubOf(receipt.id));
    expect(await stored(receipt.id)).not.toEqual([]);
    expect((await expectStatus(call("receipt/check-id", { id: receipt.id }, { token }), 200)).state).toBe(4);

    letTimePass(120_000);
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
    await runDurableObjectAlarm(stubOf(transfer.receipt_id, "transfer"));
    letTimePass(RETENTION_MS + 60_000);
    await runDurableObjectAlarm(stubOf(transfer.receipt_id, "transfer"));
    expect(await stored(transfer.receipt_id, "transfer")).toEqual([]);
    // The partner's get-by-id rebuilds it from the upstream.
    const read = await expectStatus(call("a2c/get-by-id", { id: transfer.receipt_id }), 200);
    expect(read).toMatchObject({ receipt_id: transfer.receipt_id, state: 4 });
    expect(await stored(transfer.receipt_id, "transfer")).not.toEqual([]);
  });
});

describe("space (rule 10: small by design, freed for reuse)", () => {
  it("a record after create-authorize-pay keeps one page of data beside SQLite's and the platform's own (16 KB at most), its logged events kept in the outbox's page; a delete-and-rebuild cycle does not grow it", async () => {
    const receipt = await createReceipt();
    await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 200);
    await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: "111111" }), 200);
    await runDurableObjectAlarm(stubOf(receipt.id));
    const paid = await storagePages(stubOf(receipt.id));
    // The record row (with its audit trail) and the outbox, which keeps its two events once logged (their bodies for events/list).
    expect(paid.tables.filter((name) => !name.startsWith("_cf_"))).toEqual(["record", "outbox"]);
    expect(await stored(receipt.id)).toEqual([
      expect.stringMatching(/^record: /),
      expect.stringMatching(/^outbox: .*receipt\.created.*"logged_at":\d+/),
      expect.stringMatching(/^outbox: .*receipt\.paid.*"logged_at":\d+/),
    ]);
    expect(paid.bytes).toBeLessThanOrEqual(16 * 1024);

    letTimePass(RETENTION_MS + 60_000);
    await runDurableObjectAlarm(stubOf(receipt.id));
    expect((await storagePages(stubOf(receipt.id))).tables.filter((name) => !name.startsWith("_cf_"))).toEqual([]);
    await expectStatus(call("receipt/check-id", { id: receipt.id }), 200);
    await expectStatus(call("receipt/cancel", { id: receipt.id }), 200);
    await runDurableObjectAlarm(stubOf(receipt.id));
    expect((await storagePages(stubOf(receipt.id))).pages).toBeLessThanOrEqual(paid.pages);
  });
});

describe("after its deletion", () => {
  it("the partner's check-id rebuilds it from the upstream (owner: the partner); the user still gets 404", async () => {
    const token = await userToken(newUser());
    const receipt = await paidReceiptOf(token);
    letTimePass(RETENTION_MS + 60_000);
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
    letTimePass(RETENTION_MS + 60_000);
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
