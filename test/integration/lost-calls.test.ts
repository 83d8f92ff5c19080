// Steps the gateway takes on someone's behalf (rule 8's completion of a lost
// cancel, rule 2's exhaustion cancel) pass the same lifecycle table as the
// request would, for the caller they act for, in the phase the upstream shows
// when they are taken. The sequence that once refunded a paid receipt: a
// user's pay is lost and the first look shows it unpaid; the user cancels and
// the cancel's answer is lost too (a hung connection, or the object killed);
// then the late payment lands upstream. The alarm must not send the user's
// cancel again: the user may not cancel a paid receipt. The partner's twin is
// a refund it asked for, and is completed.
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { readConfig } from "../../src/config/config";
import { receiptStub } from "../../src/record/receipt-object";
import { ownerOf } from "../../src/rules/caller";
import { callGateway, loggedEventTypes } from "../events";
import {
  call,
  createReceipt,
  expectError,
  expectStatus,
  letLatePayHappen,
  letTimePass,
  newUser,
  sandboxCalls,
  sandboxReceipt,
  storedRecord,
  userToken,
} from "../helpers";
import { scriptedUpstream } from "../support/scripted-upstream";

const PAYS_LATE = { token: "tok_sandbox_pays_late" };
const stubOf = (id: string) => receiptStub(env, "receipt", id);

/** A receipt (the user's, or with no token the partner's) whose pay timed out and was reconciled once: the upstream showed 0, and will pay later. */
async function lostPay(token?: string) {
  const receipt = await createReceipt({ merchant_id: 1003 }, token === undefined ? {} : { token });
  await expectError(call("receipt/pay", { id: receipt.id, card: PAYS_LATE }, token === undefined ? {} : { token }), 504, "upstream_timeout");
  await runDurableObjectAlarm(stubOf(receipt.id));
  expect(await storedRecord("receipt", receipt.id)).toMatchObject({ state: 0, pending_op: null });
  expect((await sandboxReceipt(receipt.id)).state).toBe(0);
  return receipt;
}

/** The cancel leaves (the record asks the upstream first: unpaid), and its answer is lost: the upstream never acts on it. */
async function lostCancel(id: string, how: "hung" | "killed", token?: string): Promise<void> {
  if (how === "hung") {
    scriptedUpstream.on("receipt/cancel", { kind: "timeout", act: false }, { id });
    await expectError(call("receipt/cancel", { id }, token === undefined ? {} : { token }), 504, "upstream_timeout");
    return;
  }
  // The object is killed while the cancel is in flight; the upstream never acts on it.
  scriptedUpstream.on("receipt/cancel", { kind: "defer", hang: true }, { id });
  const answer = call("receipt/cancel", { id }, token === undefined ? {} : { token });
  await scriptedUpstream.deferredArrived();
  scriptedUpstream.takeDeferred();
  await runInDurableObject(stubOf(id), (_instance, state) => state.abort("killed mid-cancel")).catch(() => undefined);
  expect((await answer).status).toBeGreaterThanOrEqual(500);
  // The object's next alarm looks at the upstream once the killed call could have ended on its own.
  letTimePass(readConfig(env).upstreamTimeoutMs + 1000);
}

const cancelsSent = async (id: string) => (await sandboxCalls()).filter((c) => c.id === id && c.path === "receipt/cancel");

async function auditOf(id: string): Promise<{ op: string; actor: string; outcome: string }[]> {
  const trail = await expectStatus(callGateway("receipt/audit", { id }), 200);
  return trail.entries.map(({ op, actor, outcome }: { op: string; actor: string; outcome: string }) => ({ op, actor, outcome }));
}

describe("a lost cancel is completed only as its caller may (rule 8)", () => {
  for (const how of ["hung", "killed"] as const) {
    it(`a user's cancel whose answer was lost (${how}), then the late payment: never sent again, the receipt stays paid, the refusal is audited and the partner told it is paid`, async () => {
      const sub = newUser();
      const token = await userToken(sub);
      const receipt = await lostPay(token);
      await lostCancel(receipt.id, how, token);
      // The note names who asked.
      expect(await storedRecord("receipt", receipt.id)).toMatchObject({ pending_op: "cancel", pending_actor: ownerOf({ kind: "user", id: sub }) });

      await letLatePayHappen(receipt.id);
      await runDurableObjectAlarm(stubOf(receipt.id));

      expect((await sandboxReceipt(receipt.id)).state).toBe(4);
      expect(await cancelsSent(receipt.id)).toEqual([]);
      expect(await storedRecord("receipt", receipt.id)).toMatchObject({ state: 4, pending_op: null });
      expect(await auditOf(receipt.id)).toContainEqual({ op: "cancel", actor: `user:${sub}`, outcome: "forbidden" });
      expect(await loggedEventTypes("receipt", receipt.id)).toEqual(["receipt.created", "receipt.paid"]);
      // And the user still cannot.
      await expectError(call("receipt/cancel", { id: receipt.id }, { token }), 403, "forbidden");
      expect((await sandboxReceipt(receipt.id)).state).toBe(4);
    });
  }

  it("the same when the next caller, not the alarm, finds it: the user's pay is told it is paid, nothing refunded", async () => {
    const token = await userToken(newUser());
    const receipt = await lostPay(token);
    await lostCancel(receipt.id, "hung", token);
    await letLatePayHappen(receipt.id);
    await expectError(call("receipt/pay", { id: receipt.id, card: PAYS_LATE }, { token }), 409, "receipt_already_paid");
    expect(await cancelsSent(receipt.id)).toEqual([]);
    expect((await sandboxReceipt(receipt.id)).state).toBe(4);
  });

  for (const how of ["hung", "killed"] as const) {
    it(`the partner's twin (${how}): its lost cancel is a refund it asked for, completed by the alarm`, async () => {
      const receipt = await lostPay();
      await lostCancel(receipt.id, how);
      expect((await storedRecord("receipt", receipt.id)).pending_actor).toMatch(/^partner:/);

      await letLatePayHappen(receipt.id);
      await runDurableObjectAlarm(stubOf(receipt.id));

      expect((await sandboxReceipt(receipt.id)).state).toBe(21);
      expect((await cancelsSent(receipt.id)).map((c) => c.status)).toEqual([200]);
      expect(await loggedEventTypes("receipt", receipt.id)).toEqual(["receipt.created", "receipt.paid", "receipt.cancelled"]);
    });
  }

  it("a note that names no one is decided as a user's: a receipt paid meanwhile is not refunded", async () => {
    const receipt = await lostPay();
    await lostCancel(receipt.id, "hung");
    await runInDurableObject(stubOf(receipt.id), (_instance, state) => state.storage.sql.exec("UPDATE record SET pending_actor = NULL"));
    await evictDurableObject(stubOf(receipt.id));
    await letLatePayHappen(receipt.id);
    // Evicted, the object cannot know the cancel returned: its alarm looks once the cancel could have ended.
    letTimePass(readConfig(env).upstreamTimeoutMs + 1000);
    await runDurableObjectAlarm(stubOf(receipt.id));
    // The note was decided (no longer pending), as a user's: nothing refunded.
    expect(await storedRecord("receipt", receipt.id)).toMatchObject({ state: 4, pending_op: null });
    expect((await sandboxReceipt(receipt.id)).state).toBe(4);
    expect(await cancelsSent(receipt.id)).toEqual([]);
  });

  it("a completion the upstream is too busy for leaves the cancel owed to the user who asked: the alarm completes it later", async () => {
    const sub = newUser();
    const token = await userToken(sub);
    const receipt = await createReceipt({ merchant_id: 1003 }, { token });
    await lostCancel(receipt.id, "hung", token);
    scriptedUpstream.on("receipt/cancel", { kind: "status", status: 503, code: "SERVICE_UNAVAILABLE", retryAfter: 1 }, { id: receipt.id });
    await runDurableObjectAlarm(stubOf(receipt.id));
    expect((await sandboxReceipt(receipt.id)).state).toBe(0);
    expect(await storedRecord("receipt", receipt.id)).toMatchObject({ pending_op: "cancel", pending_actor: ownerOf({ kind: "user", id: sub }) });
    letTimePass(60_000);
    await runDurableObjectAlarm(stubOf(receipt.id));
    expect(await sandboxReceipt(receipt.id)).toMatchObject({ state: 21, cancelled_by: readConfig(env).cancelledBy });
    // The busy answer came from before the upstream (nothing reached it); the completion then went through once.
    expect((await cancelsSent(receipt.id)).map((c) => c.status)).toEqual([200]);
  });

  it("a user's lost cancel of a receipt still unpaid is completed: cancelled once", async () => {
    const token = await userToken(newUser());
    const receipt = await createReceipt({ merchant_id: 1003 }, { token });
    await lostCancel(receipt.id, "hung", token);
    await runDurableObjectAlarm(stubOf(receipt.id));
    expect((await sandboxReceipt(receipt.id)).state).toBe(21);
    expect((await cancelsSent(receipt.id)).map((c) => c.status)).toEqual([200]);
    expect(await loggedEventTypes("receipt", receipt.id)).toEqual(["receipt.created", "receipt.cancelled"]);
  });
});
