/**
 * A replay is answered by the record's object (the tid row keeps no answer),
 * a create answers after one D1 round trip, and its tid row is completed
 * after the answer (by the request, or owed by the record's object and
 * completed by its alarm).
 */
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { storedEvents } from "../../src/record/outbox-rows";
import { receiptStub } from "../../src/record/receipt-object";
import { call, expectError, expectStatus, receiptRequest, refuseStatements, tidRow } from "../helpers";

const PARTNER = "partner:partner";

afterEach(() => vi.restoreAllMocks());

/** The record as one made before schema 7 is: no answer of its own (its next incarnation reads the row again). */
async function forgetAnswer(id: string): Promise<void> {
  const stub = receiptStub(env, "receipt", id);
  // As a record that never kept one stores it: no event's body refers to an answer, each is kept whole.
  await runInDurableObject(stub, (_i, state) => {
    const sql = state.storage.sql;
    const events = storedEvents(sql.exec<{ events: string; body: string; answer: string | null }>("SELECT events, body, answer FROM record").one());
    sql.exec("UPDATE record SET answer = NULL, events = ?", JSON.stringify(events));
  });
  await evictDurableObject(stub);
}

describe("a replay", () => {
  it("is the create's answer exactly as it was given, though the record has moved on since", async () => {
    const request = receiptRequest({ merchant_id: 1003 });
    const created = await expectStatus(call("receipt/create", request), 200);
    expect((await expectStatus(call("receipt/pay", { id: created.id, card: { token: "tok_sandbox_ok" } }), 200)).state).toBe(4);

    const retry = await call("receipt/create", request);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await expectStatus(retry, 200)).toEqual(created);
  });

  it("with no answer kept anywhere names the receipt instead (409), never a 500", async () => {
    const request = receiptRequest();
    const created = await expectStatus(call("receipt/create", request), 200);
    await forgetAnswer(created.id);
    const error = await expectError(call("receipt/create", request), 409, "tid_conflict");
    expect(error.message).toContain(created.id);
  });
});

describe("the completion of the tid row, after the answer", () => {
  it("when the request's own completion fails, the record's alarm completes it; until then a retry and check-tid are tid_in_progress", async () => {
    // D1 refuses the request's completion (the UPDATE that completes a row).
    refuseStatements((sql) => /^UPDATE tid_index(_\d)? SET status = 1/.test(sql));
    const request = receiptRequest();
    const created = await expectStatus(call("receipt/create", request), 200);
    expect(await tidRow(PARTNER, request.tid)).toMatchObject({ status: "pending", receipt_id: null });
    const retry = await call("receipt/create", request);
    await expectError(retry.clone(), 409, "tid_in_progress");
    expect(Number(retry.headers.get("retry-after"))).toBeGreaterThan(0);
    await expectError(call("receipt/check-tid", { tid: request.tid }), 409, "tid_in_progress");
    vi.restoreAllMocks();

    // The record owes it: its alarm completes the row, with the time of the answer.
    const stub = receiptStub(env, "receipt", created.id);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const row = await tidRow(PARTNER, request.tid);
    expect(row).toMatchObject({ status: "completed", receipt_id: created.id, claim_token: null });
    expect(row!.updated_at).toBeLessThanOrEqual(Date.now());
    const replay = await call("receipt/create", request);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await expectStatus(replay, 200)).toEqual(created);
    expect((await expectStatus(call("receipt/check-tid", { tid: request.tid }), 200)).id).toBe(created.id);
    // And then forgets it: the next alarm has nothing to complete.
    expect(await runInDurableObject(stub, (_i, state) => state.storage.sql.exec("SELECT owed_completion FROM record").one())).toEqual({
      owed_completion: null,
    });
  });
});
