// Rule 12, every flow ends: a receipt still unpaid RECEIPT_EXPIRY_HOURS after
// its creation, and a held one not confirmed within HOLD_EXPIRY_DAYS, are
// read from the upstream and, if still so, cancelled there by the gateway; a
// transfer still unpaid is closed at the edge. Driven through the Worker, with
// the gateway's clock let forward and the record's own alarm run as the
// runtime would run it.
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { readConfig } from "../../src/config/config";
import { retentionPolicy } from "../../src/config/retention-policy";
import { configProblems } from "../../src/http/guard";
import { receiptStub } from "../../src/record/receipt-object";
import { clock } from "../../src/shared/clock";
import { callGateway, loggedEventTypes } from "../events";
import {
  call,
  createReceipt,
  expectError,
  expectStatus,
  letLatePayHappen,
  letTimePass,
  newUser,
  OTP_OK,
  sandboxCalls,
  sandboxReceipt,
  sandboxTransfer,
  storedRecord,
  transferRequest,
  userToken,
} from "../helpers";
import { scriptedUpstream } from "../support/scripted-upstream";

const { unpaidMs, heldMs } = readConfig(env).expiry;
const HOUR_MS = 3_600_000;
const TOKEN = { token: "tok_sandbox_ok" };

type Kind = "receipt" | "transfer";

/** The record's alarm, as the runtime fires it. */
const alarm = (kind: Kind, id: string) => runDurableObjectAlarm(receiptStub(env, kind, id));

/** The record's events as the partner receives them, in order (the outbox drained into the log first). */
async function eventsOf(kind: Kind, id: string): Promise<{ type: string; data: Record<string, any> }[]> {
  await loggedEventTypes(kind, id);
  const { events } = await expectStatus(callGateway("events/list", { receipt_id: id, limit: 100 }), 200);
  return (events as { type: string; sequence: number; data: Record<string, any> }[]).sort((a, b) => a.sequence - b.sequence);
}

/** The upstream calls of this path made for this record, as [status, code]. */
const callsTo = async (path: string, id: string) =>
  (await sandboxCalls()).filter((c) => c.id === id && c.path === path).map((c) => [c.status, c.code ?? null]);

/** The record's audit entries the gateway made on its own for rule 12. */
async function expiryAudit(kind: Kind, id: string) {
  const trail = await expectStatus(callGateway("receipt/audit", { id, kind }), 200);
  return (trail.entries as { op: string; actor: string; outcome: string }[]).filter((e) => e.op === "expire");
}

describe("an unpaid receipt expires RECEIPT_EXPIRY_HOURS after its creation", () => {
  it("its own alarm cancels it upstream as the gateway: receipt.cancelled with reason expired, every operation 409 receipt_expired, reads 200", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    letTimePass(unpaidMs - HOUR_MS);
    await alarm("receipt", receipt.id);
    expect((await sandboxReceipt(receipt.id)).state).toBe(0);

    letTimePass(HOUR_MS + 1000);
    await alarm("receipt", receipt.id);
    expect(await sandboxReceipt(receipt.id)).toMatchObject({ state: 21, cancelled_by: readConfig(env).cancelledBy });
    expect(await callsTo("receipt/cancel", receipt.id)).toEqual([[200, null]]);
    const cancelled = (await eventsOf("receipt", receipt.id)).filter((e) => e.type === "receipt.cancelled");
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]!.data).toMatchObject({ reason: "expired", previous_state: 0, object: { id: receipt.id, state: 21 } });
    expect(cancelled[0]!.data.closed_at_edge).toBeUndefined();
    expect(await expiryAudit("receipt", receipt.id)).toEqual([
      { op: "expire", actor: "gateway", outcome: "ended", at: expect.any(Number), request_id: expect.any(String), state: 21 },
    ]);

    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN }), 409, "receipt_expired");
    await expectError(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 409, "receipt_expired");
    await expectError(
      call("receipt/anonymous/authorize", { id: receipt.id, card: { number: "8600000000000007", expire: "3012" } }),
      409,
      "receipt_expired",
    );
    await expectError(call("receipt/cancel", { id: receipt.id }), 409, "receipt_expired");
    await expectError(call("receipt/hold-confirm", { id: receipt.id }), 409, "receipt_not_held");
    expect((await expectStatus(call("receipt/check-id", { id: receipt.id }), 200)).state).toBe(21);
    // Nothing but the one cancel reached the upstream.
    expect(await callsTo("receipt/pay", receipt.id)).toEqual([]);
    expect(await callsTo("receipt/cancel", receipt.id)).toHaveLength(1);
  });

  it("the row is never stored cancelled without the gateway's entries: the cancel's outcome, its expire and its reconcile entry are one write", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    const stub = receiptStub(env, "receipt", receipt.id);
    // Each write of the row as storage then holds it: its state and the ops of its trail.
    await runInDurableObject(stub, (_i, state) => {
      const sql = state.storage.sql as SqlStorage & { stored?: { state: number; ops: string[] }[] };
      sql.stored = [];
      const exec = sql.exec.bind(sql);
      sql.exec = ((query: string, ...bindings: SqlStorageValue[]) => {
        const cursor = exec(query, ...bindings);
        if (/^\s*UPDATE record\b/i.test(query)) {
          const row = exec<{ state: number; audit: string }>("SELECT state, audit FROM record").one();
          sql.stored!.push({ state: row.state, ops: (JSON.parse(row.audit) as unknown[][]).map((t) => String(t[1])) });
        }
        return cursor;
      }) as typeof sql.exec;
    });
    letTimePass(unpaidMs + 1000);
    await alarm("receipt", receipt.id);
    const stored = await runInDurableObject(
      stub,
      (_i, state) => (state.storage.sql as SqlStorage & { stored?: { state: number; ops: string[] }[] }).stored!,
    );
    const firstCancelled = stored.find((row) => row.state === 21);
    expect(firstCancelled?.ops.slice(-2)).toEqual(["expire", "reconcile"]);
    expect((await expectStatus(callGateway("receipt/audit", { id: receipt.id }), 200)).entries.slice(-2)).toMatchObject([
      { op: "expire", actor: "gateway", outcome: "ended", state: 21 },
      { op: "reconcile", actor: "gateway", outcome: "ok", state: 21 },
    ]);
  });

  it("an operation arriving after the deadline, before the alarm, runs the expiry first and answers from it", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    letTimePass(unpaidMs + 1000);
    const refused = await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN }), 409, "receipt_expired");
    expect(refused.message).toMatch(/expired/);
    expect(await callsTo("receipt/pay", receipt.id)).toEqual([]);
    expect((await sandboxReceipt(receipt.id)).state).toBe(21);
    expect((await eventsOf("receipt", receipt.id)).map((e) => [e.type, e.data.reason ?? null])).toEqual([
      ["receipt.created", null],
      ["receipt.cancelled", "expired"],
    ]);
    // The alarm later finds nothing more to do: still one cancel.
    await alarm("receipt", receipt.id);
    expect(await callsTo("receipt/cancel", receipt.id)).toHaveLength(1);
  });

  it("a read after the deadline runs it too, and shows the record ended", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    letTimePass(unpaidMs + 1000);
    expect((await expectStatus(call("receipt/check-id", { id: receipt.id }), 200)).state).toBe(21);
    expect(await callsTo("receipt/cancel", receipt.id)).toHaveLength(1);
  });

  it("a late pay that landed upstream while the record still shows 0 ends it paid, with receipt.paid and no cancel", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await expectError(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_pays_late" } }), 504, "upstream_timeout");
    // Reconciled: the upstream shows it unpaid, so the record does too.
    letTimePass(5000);
    await alarm("receipt", receipt.id);
    expect(await storedRecord("receipt", receipt.id)).toMatchObject({ state: 0, pending_op: null });
    // Its late reads (rule 8) all show 0: nothing is suspect any more when the pay lands, and only the expiry's own look finds it.
    letTimePass(120_000);
    await alarm("receipt", receipt.id);
    expect(await storedRecord("receipt", receipt.id)).toMatchObject({ state: 0, suspect_since: 0 });

    await letLatePayHappen(receipt.id);
    letTimePass(unpaidMs);
    await alarm("receipt", receipt.id);
    expect((await sandboxReceipt(receipt.id)).state).toBe(4);
    expect(await callsTo("receipt/cancel", receipt.id)).toEqual([]);
    const types = (await eventsOf("receipt", receipt.id)).map((e) => e.type);
    expect(types).toContain("receipt.paid");
    expect(types).not.toContain("receipt.cancelled");
    expect((await expectStatus(call("receipt/check-id", { id: receipt.id }), 200)).state).toBe(4);
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN }), 409, "receipt_already_paid");
  });

  it("a receipt cancelled meanwhile is stored as cancelled, with no second cancel and no expiry reason", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/cancel", { id: receipt.id }), 200);
    letTimePass(unpaidMs + 1000);
    await alarm("receipt", receipt.id);
    expect(await callsTo("receipt/cancel", receipt.id)).toHaveLength(1);
    const cancelled = (await eventsOf("receipt", receipt.id)).filter((e) => e.type === "receipt.cancelled");
    expect(cancelled.map((e) => e.data.reason ?? null)).toEqual([null]);
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN }), 409, "receipt_cancelled");
  });

  it("a lost answer to the expiry's cancel is completed by reconciliation, with exactly one cancel call", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    scriptedUpstream.on("receipt/cancel", { kind: "lost" });
    letTimePass(unpaidMs + 1000);
    await alarm("receipt", receipt.id);
    expect(await storedRecord("receipt", receipt.id)).toMatchObject({ state: 0, pending_op: "cancel", pending_actor: "gateway" });
    // Until it is reconciled, an operation asks the upstream first, and calls nothing else.
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN }), 409, "receipt_expired");
    expect(await storedRecord("receipt", receipt.id)).toMatchObject({ state: 21, pending_op: null });
    letTimePass(60_000);
    await alarm("receipt", receipt.id);
    expect(await callsTo("receipt/cancel", receipt.id)).toHaveLength(1);
    expect(await callsTo("receipt/pay", receipt.id)).toEqual([]);
    const cancelled = (await eventsOf("receipt", receipt.id)).filter((e) => e.type === "receipt.cancelled");
    expect(cancelled.map((e) => e.data.reason)).toEqual(["expired"]);
  });

  it("a lost answer reconciled by the alarm alone", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    scriptedUpstream.on("receipt/cancel", { kind: "lost" });
    letTimePass(unpaidMs + 1000);
    await alarm("receipt", receipt.id);
    letTimePass(60_000);
    await alarm("receipt", receipt.id);
    expect(await storedRecord("receipt", receipt.id)).toMatchObject({ state: 21, pending_op: null });
    expect(await callsTo("receipt/cancel", receipt.id)).toHaveLength(1);
    expect((await eventsOf("receipt", receipt.id)).filter((e) => e.type === "receipt.cancelled").map((e) => e.data.reason)).toEqual(["expired"]);
  });

  it("a busy upstream decides nothing: the alarm tries again with backoff", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    scriptedUpstream.on("receipt/cancel", { kind: "status", status: 503, code: "SERVICE_UNAVAILABLE", retryAfter: 1 });
    letTimePass(unpaidMs + 1000);
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN }), 503, "upstream_unavailable");
    expect(await storedRecord("receipt", receipt.id)).toMatchObject({ state: 0, pending_op: null });
    expect((await sandboxReceipt(receipt.id)).state).toBe(0);
    const at = await runInDurableObject(receiptStub(env, "receipt", receipt.id), (_i, state) => state.storage.getAlarm());
    expect(at).not.toBeNull();
    expect(at! - clock.now()).toBeLessThanOrEqual(60_000);
    letTimePass(60_000);
    await alarm("receipt", receipt.id);
    expect((await sandboxReceipt(receipt.id)).state).toBe(21);
    // The busy answer came from before the upstream (nothing reached it); the one cancel then went through.
    expect(await callsTo("receipt/cancel", receipt.id)).toEqual([[200, null]]);
  });
});

describe("the expiry follows rule 8: it waits for a pay that may yet land, and its own cancel is noted, suspect and read late", () => {
  const PAYS_LATE = { token: "tok_sandbox_pays_late" };
  const reads = async (id: string) => (await callsTo("receipt/check-id", id)).length;

  it("a late pay landing right after the expiry's look is never refunded: the expiry waits for the late reads, then finds it paid", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    letTimePass(unpaidMs - 10_000);
    await expectError(call("receipt/pay", { id: receipt.id, card: PAYS_LATE }), 504, "upstream_timeout");
    letTimePass(11_000);
    // The alarm's look is answered 0, and the pay lands just after it.
    const held = scriptedUpstream.hold("receipt/check-id", { id: receipt.id });
    const fired = alarm("receipt", receipt.id);
    await held.arrived;
    await letLatePayHappen(receipt.id);
    held.release();
    await fired;
    expect(await storedRecord("receipt", receipt.id)).toMatchObject({ state: 0, pending_op: null });
    expect(await callsTo("receipt/cancel", receipt.id)).toEqual([]);

    // The late reads find it paid; nothing is ever cancelled.
    letTimePass(120_000);
    await alarm("receipt", receipt.id);
    expect((await sandboxReceipt(receipt.id)).state).toBe(4);
    expect(await callsTo("receipt/cancel", receipt.id)).toEqual([]);
    const types = (await eventsOf("receipt", receipt.id)).map((e) => e.type);
    expect(types).toEqual(["receipt.created", "receipt.paid"]);
    letTimePass(unpaidMs);
    await alarm("receipt", receipt.id);
    expect(await callsTo("receipt/cancel", receipt.id)).toEqual([]);
  });

  it("a lost expiry cancel is noted as a cancel by the gateway, stays suspect once reconciled, and is read again late", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    scriptedUpstream.on("receipt/cancel", { kind: "lost" });
    letTimePass(unpaidMs + 1000);
    await alarm("receipt", receipt.id);
    expect(await storedRecord("receipt", receipt.id)).toMatchObject({ pending_op: "cancel", pending_actor: "gateway" });
    letTimePass(5000);
    await alarm("receipt", receipt.id);
    const reconciled = await storedRecord("receipt", receipt.id);
    expect(reconciled).toMatchObject({ state: 21, pending_op: null });
    expect(reconciled.suspect_since).not.toBe(0);
    // The late reads follow on their schedule, with no caller.
    const before = await reads(receipt.id);
    letTimePass(20_000);
    await alarm("receipt", receipt.id);
    expect(await reads(receipt.id)).toBe(before + 1);
    letTimePass(120_000);
    await alarm("receipt", receipt.id);
    expect((await storedRecord("receipt", receipt.id)).suspect_since).toBe(0);
    expect(await callsTo("receipt/cancel", receipt.id)).toHaveLength(1);
    expect((await eventsOf("receipt", receipt.id)).filter((e) => e.type === "receipt.cancelled").map((e) => e.data.reason)).toEqual(["expired"]);
  });

  it("a lost expiry cancel noted by an earlier release under its own name is read late the same way", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    scriptedUpstream.on("receipt/cancel", { kind: "lost" });
    letTimePass(unpaidMs + 1000);
    await alarm("receipt", receipt.id);
    const stub = receiptStub(env, "receipt", receipt.id);
    await runInDurableObject(stub, (_i, state) => state.storage.sql.exec("UPDATE record SET pending_op = 'expiry-cancel'"));
    await evictDurableObject(stub);
    letTimePass(5000);
    await alarm("receipt", receipt.id);
    const reconciled = await storedRecord("receipt", receipt.id);
    expect(reconciled).toMatchObject({ state: 21, pending_op: null });
    expect(reconciled.suspect_since).not.toBe(0);
  });

  it("a lost expiry cancel that never reached the upstream is sent again by the gateway, as the gateway, for the same expiry", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    scriptedUpstream.on("receipt/cancel", { kind: "defer" });
    letTimePass(unpaidMs + 1000);
    await alarm("receipt", receipt.id);
    scriptedUpstream.takeDeferred();
    letTimePass(5000);
    await alarm("receipt", receipt.id);
    expect(await sandboxReceipt(receipt.id)).toMatchObject({ state: 21, cancelled_by: readConfig(env).cancelledBy });
    expect(await callsTo("receipt/cancel", receipt.id)).toEqual([[200, null]]);
    expect((await eventsOf("receipt", receipt.id)).filter((e) => e.type === "receipt.cancelled").map((e) => e.data.reason)).toEqual(["expired"]);
  });

  it("after a lost expiry cancel a receipt seen held (a late pay) is released later as hold_expired, never closed as expired", async () => {
    const receipt = await createReceipt({ merchant_id: 1003, is_hold: true });
    await expectError(call("receipt/pay", { id: receipt.id, card: PAYS_LATE }), 504, "upstream_timeout");
    letTimePass(5000);
    await alarm("receipt", receipt.id);
    // The expiry acts once the pay's late reads are done; its cancel never reaches the upstream.
    scriptedUpstream.on("receipt/cancel", { kind: "defer" });
    letTimePass(unpaidMs);
    await alarm("receipt", receipt.id);
    scriptedUpstream.takeDeferred();
    expect(await storedRecord("receipt", receipt.id)).toMatchObject({ pending_op: "cancel", pending_actor: "gateway" });
    // The late pay lands before the gateway looks again: held.
    await letLatePayHappen(receipt.id);
    letTimePass(5000);
    await alarm("receipt", receipt.id);
    expect(await storedRecord("receipt", receipt.id)).toMatchObject({ state: 5, pending_op: null });
    expect(await callsTo("receipt/cancel", receipt.id)).toEqual([]);
    expect((await eventsOf("receipt", receipt.id)).map((e) => e.type)).toEqual(["receipt.created", "receipt.held"]);
    // The hold is the partner's to confirm within its own window; unconfirmed, the gateway releases it.
    letTimePass(heldMs + 1000);
    await alarm("receipt", receipt.id);
    expect(await sandboxReceipt(receipt.id)).toMatchObject({ state: 21 });
    const cancelled = (await eventsOf("receipt", receipt.id)).filter((e) => e.type === "receipt.cancelled");
    expect(cancelled.map((e) => e.data)).toMatchObject([{ reason: "hold_expired", previous_state: 5 }]);
    expect(cancelled[0]!.data.closed_at_edge).toBeUndefined();
  });

  describe("a partner without cancel access", () => {
    beforeEach(() => scriptedUpstream.vars({ SANDBOX_CANCEL_ACCESS: "false" }));

    it("a receipt closed at the edge by its expiry, then paid late and refunded by the partner: the refund is not announced as an expiry", async () => {
      const receipt = await createReceipt({ merchant_id: 1003 });
      await expectError(call("receipt/pay", { id: receipt.id, card: PAYS_LATE }), 504, "upstream_timeout");
      letTimePass(5000);
      await alarm("receipt", receipt.id);
      letTimePass(unpaidMs);
      await alarm("receipt", receipt.id);
      expect((await eventsOf("receipt", receipt.id)).map((e) => [e.type, e.data.reason ?? null])).toEqual([
        ["receipt.created", null],
        ["receipt.cancelled", "expired"],
      ]);
      await letLatePayHappen(receipt.id);
      expect((await expectStatus(call("receipt/check-id", { id: receipt.id }), 200)).state).toBe(4);
      scriptedUpstream.vars({ SANDBOX_CANCEL_ACCESS: "true" });
      expect((await expectStatus(call("receipt/cancel", { id: receipt.id }), 200)).state).toBe(21);
      const refund = (await eventsOf("receipt", receipt.id)).filter((e) => e.type === "receipt.cancelled" && e.data.previous_state === 4);
      expect(refund).toHaveLength(1);
      expect(refund[0]!.data.reason).toBeUndefined();
    });
  });
});

describe("where the upstream refuses the expiry's cancel, the record is closed at the edge and the event says so", () => {
  it("a QR merchant's receipt (the table refuses its cancel): no cancel call, receipt.cancelled closed_at_edge with the upstream's state 0", async () => {
    const receipt = await createReceipt({ merchant_id: 1002 });
    letTimePass(unpaidMs + 1000);
    await alarm("receipt", receipt.id);
    expect(await callsTo("receipt/cancel", receipt.id)).toEqual([]);
    const cancelled = (await eventsOf("receipt", receipt.id)).filter((e) => e.type === "receipt.cancelled");
    expect(cancelled.map((e) => e.data)).toMatchObject([{ reason: "expired", closed_at_edge: true, previous_state: 0, object: { state: 0 } }]);
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN }), 409, "receipt_expired");
    expect((await expectStatus(call("receipt/check-id", { id: receipt.id }), 200)).state).toBe(0);
    expect(await expiryAudit("receipt", receipt.id)).toMatchObject([{ actor: "gateway", outcome: "edge" }]);
  });

  describe("a partner without cancel access", () => {
    beforeEach(() => scriptedUpstream.vars({ SANDBOX_CANCEL_ACCESS: "false" }));

    it("the one cancel is refused for good: closed at the edge, never asked again", async () => {
      const receipt = await createReceipt({ merchant_id: 1003 });
      letTimePass(unpaidMs + 1000);
      await alarm("receipt", receipt.id);
      expect(await callsTo("receipt/cancel", receipt.id)).toEqual([[403, "CANCEL_ACCESS_DENIED"]]);
      const cancelled = (await eventsOf("receipt", receipt.id)).filter((e) => e.type === "receipt.cancelled");
      expect(cancelled.map((e) => e.data)).toMatchObject([{ reason: "expired", closed_at_edge: true, object: { state: 0 } }]);
      const refused = await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN }), 409, "receipt_expired");
      expect(refused.message).toMatch(/closed at the gateway/);
      letTimePass(unpaidMs);
      await alarm("receipt", receipt.id);
      expect(await callsTo("receipt/cancel", receipt.id)).toHaveLength(1);
    });
  });
});

describe("a held receipt not confirmed within HOLD_EXPIRY_DAYS of becoming held", () => {
  async function heldReceipt() {
    const receipt = await createReceipt({ merchant_id: 1003, is_hold: true });
    expect((await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }), 200)).state).toBe(5);
    return receipt;
  }

  it("is cancelled as the gateway (the hold released), reason hold_expired; hold-confirm then answers receipt_expired", async () => {
    const receipt = await heldReceipt();
    // The unpaid window does not apply to a hold.
    letTimePass(unpaidMs + HOUR_MS);
    await alarm("receipt", receipt.id);
    expect((await sandboxReceipt(receipt.id)).state).toBe(5);

    letTimePass(heldMs - unpaidMs);
    await alarm("receipt", receipt.id);
    expect(await sandboxReceipt(receipt.id)).toMatchObject({ state: 21, cancelled_by: readConfig(env).cancelledBy });
    const cancelled = (await eventsOf("receipt", receipt.id)).filter((e) => e.type === "receipt.cancelled");
    expect(cancelled.map((e) => e.data)).toMatchObject([{ reason: "hold_expired", previous_state: 5, object: { state: 21 } }]);
    await expectError(call("receipt/hold-confirm", { id: receipt.id }), 409, "receipt_expired");
    await expectError(call("receipt/cancel", { id: receipt.id }), 409, "receipt_expired");
    expect(await callsTo("receipt/hold-confirm", receipt.id)).toEqual([]);
  });

  it("counts its window from when it was held, not from its creation", async () => {
    const receipt = await createReceipt({ merchant_id: 1003, is_hold: true });
    // Held late in its unpaid window.
    const late = unpaidMs - HOUR_MS;
    letTimePass(late);
    expect((await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }), 200)).state).toBe(5);
    // Past HOLD_EXPIRY_DAYS from its creation, not from its hold: still held.
    letTimePass(heldMs - late + HOUR_MS);
    await alarm("receipt", receipt.id);
    expect((await sandboxReceipt(receipt.id)).state).toBe(5);
    expect(await callsTo("receipt/cancel", receipt.id)).toEqual([]);
    await expectStatus(call("receipt/check-id", { id: receipt.id }), 200);
    expect(await callsTo("receipt/cancel", receipt.id)).toEqual([]);
    // Past it from the hold: released.
    letTimePass(late);
    await alarm("receipt", receipt.id);
    expect((await sandboxReceipt(receipt.id)).state).toBe(21);
    const cancelled = (await eventsOf("receipt", receipt.id)).filter((e) => e.type === "receipt.cancelled");
    expect(cancelled.map((e) => e.data)).toMatchObject([{ reason: "hold_expired", previous_state: 5 }]);
  });

  it("one confirmed before its window is not cancelled", async () => {
    const receipt = await heldReceipt();
    letTimePass(heldMs - HOUR_MS);
    expect((await expectStatus(call("receipt/hold-confirm", { id: receipt.id }), 200)).state).toBe(4);
    letTimePass(2 * HOUR_MS);
    await alarm("receipt", receipt.id);
    expect((await sandboxReceipt(receipt.id)).state).toBe(4);
    expect(await callsTo("receipt/cancel", receipt.id)).toEqual([]);
  });
});

describe("a transfer still unpaid after RECEIPT_EXPIRY_HOURS", () => {
  it("is closed at the edge with transfer.expired, answers receipt_expired, and then ends by rule 10", async () => {
    const transfer = await expectStatus(call("a2c/create", transferRequest()), 200);
    const id = transfer.receipt_id as string;
    letTimePass(unpaidMs + 1000);
    await alarm("transfer", id);
    const expired = (await eventsOf("transfer", id)).filter((e) => e.type === "transfer.expired");
    expect(expired.map((e) => e.data)).toMatchObject([{ reason: "expired", closed_at_edge: true, object: { receipt_id: id, state: 0 } }]);
    await expectError(call("a2c/pay", { id, otp: OTP_OK }), 409, "receipt_expired");
    expect((await expectStatus(call("a2c/get-by-id", { id }), 200)).state).toBe(0);
    expect((await sandboxTransfer(id)).state).toBe(0);
    expect(await expiryAudit("transfer", id)).toMatchObject([{ actor: "gateway", outcome: "edge" }]);
    // The refused pay's audit entry goes by the alarm held for it (rule 15); then, final and owing nothing,
    // its only alarm left is its end, RECORD_RETENTION_DAYS on.
    await alarm("transfer", id);
    const at = await runInDurableObject(receiptStub(env, "transfer", id), (_i, state) => state.storage.getAlarm());
    expect(at! - clock.now()).toBeGreaterThan(retentionPolicy(env).recordRetentionMs - HOUR_MS);
  });

  it("one paid in time does not expire", async () => {
    const transfer = await expectStatus(call("a2c/create", transferRequest()), 200);
    const id = transfer.receipt_id as string;
    await expectStatus(call("a2c/pay", { id }), 200);
    letTimePass(unpaidMs + 1000);
    await alarm("transfer", id);
    expect((await eventsOf("transfer", id)).map((e) => e.type)).not.toContain("transfer.expired");
  });
});

describe("the partner's and a user's view", () => {
  it("a user's expired receipt: their pay and cancel answer receipt_expired, their read shows 21; the partner's audit names the gateway", async () => {
    const sub = newUser();
    const token = await userToken(sub);
    const receipt = await createReceipt({ merchant_id: 1003 }, { token });
    letTimePass(unpaidMs + 1000);
    await expectError(call("receipt/cancel", { id: receipt.id }, { token }), 409, "receipt_expired");
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN }, { token }), 409, "receipt_expired");
    expect((await expectStatus(call("receipt/check-id", { id: receipt.id }, { token }), 200)).state).toBe(21);
    expect((await expectStatus(call("receipt/check-tid", { tid: receipt.tid }, { token }), 200)).state).toBe(21);
    const cancelled = (await eventsOf("receipt", receipt.id)).filter((e) => e.type === "receipt.cancelled");
    expect(cancelled.map((e) => e.data)).toMatchObject([{ reason: "expired", owner: sub }]);
    expect(await expiryAudit("receipt", receipt.id)).toMatchObject([{ actor: "gateway", outcome: "ended" }]);
    // The partner's view is the same.
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN }), 409, "receipt_expired");
    expect(await callsTo("receipt/cancel", receipt.id)).toHaveLength(1);
  });
});

describe("the windows are configuration", () => {
  it("accept fractions, default to 24 hours and 7 days, and an unreadable one is a problem the guard refuses to serve with", () => {
    const windows = (vars: Record<string, string>) => readConfig({ ...env, ...vars } as Env).expiry;
    expect(windows({ RECEIPT_EXPIRY_HOURS: "0.5", HOLD_EXPIRY_DAYS: "1.5" })).toEqual({ unpaidMs: HOUR_MS / 2, heldMs: 36 * HOUR_MS });
    expect(windows({ RECEIPT_EXPIRY_HOURS: "", HOLD_EXPIRY_DAYS: "" })).toEqual({ unpaidMs: 24 * HOUR_MS, heldMs: 7 * 24 * HOUR_MS });
    expect(configProblems({ ...env, RECEIPT_EXPIRY_HOURS: "0.5" } as Env)).toEqual([]);
    expect(configProblems({ ...env, RECEIPT_EXPIRY_HOURS: "soon", HOLD_EXPIRY_DAYS: "-1" } as Env)).toEqual([
      "RECEIPT_EXPIRY_HOURS is not a positive number (fractions are accepted).",
      "HOLD_EXPIRY_DAYS is not a positive number (fractions are accepted).",
    ]);
  });
});
