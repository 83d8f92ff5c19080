// A partner without access to cancel (the seed: such partners cancel through
// the payment service's support, with the receipt id and the reason): the
// sandbox's SANDBOX_CANCEL_ACCESS=false, through the gateway.
import { beforeEach, describe, expect, it } from "vitest";
import { loggedEventTypes } from "../events";
import { call, createReceipt, expectError, expectStatus, newUser, sandboxCalls, sandboxReceipt, storedRecord, userToken } from "../helpers";
import { scriptedUpstream } from "../support/scripted-upstream";

const TOKEN = { token: "tok_sandbox_ok" };
const REASON = "customer changed their mind";

const outboxTypes = (id: string): Promise<string[]> => loggedEventTypes("receipt", id);

/** 403 forbidden with the support instruction naming this receipt; the caller's free-text reason is not echoed. */
async function expectNoAccess(response: Promise<Response>, id: string): Promise<void> {
  const error = await expectError(response, 403, "forbidden");
  expect(error.upstream_code).toBe("CANCEL_ACCESS_DENIED");
  expect(error.message).toContain(id);
  expect(error.message).toMatch(/support/);
  expect(error.message).toMatch(/reason/);
  expect(error.message).not.toContain(REASON);
}

describe("SANDBOX_CANCEL_ACCESS=false: every cancel is 403 forbidden, and the receipt is unchanged upstream", () => {
  beforeEach(() => scriptedUpstream.vars({ SANDBOX_CANCEL_ACCESS: "false" }));

  it("the partner's cancel of an unpaid and of a paid receipt", async () => {
    const unpaid = await createReceipt({ merchant_id: 1003 });
    await expectNoAccess(call("receipt/cancel", { id: unpaid.id, reason: REASON, cancelledBy: "partner-app" }), unpaid.id);
    expect(await sandboxReceipt(unpaid.id)).toMatchObject({ state: 0, cancel_reason: null, cancelled_by: null });

    const paid = await createReceipt({ merchant_id: 1003 });
    expect((await expectStatus(call("receipt/pay", { id: paid.id, card: TOKEN }), 200)).state).toBe(4);
    await expectNoAccess(call("receipt/cancel", { id: paid.id, reason: REASON }), paid.id);
    expect(await sandboxReceipt(paid.id)).toMatchObject({ state: 4, ofd: { type: "Sale" } });

    for (const receipt of [unpaid, paid]) {
      // Nothing in flight, nothing to reconcile, no cancelled event: the refusal is final and changed nothing.
      expect(await storedRecord("receipt", receipt.id)).toMatchObject({ pending_op: null });
      expect(await outboxTypes(receipt.id)).not.toContain("receipt.cancelled");
      const cancels = (await sandboxCalls()).filter((c) => c.id === receipt.id && c.path === "receipt/cancel");
      expect(cancels.map((c) => [c.status, c.code])).toEqual([[403, "CANCEL_ACCESS_DENIED"]]);
    }
    expect((await expectStatus(call("receipt/check-id", { id: paid.id }), 200)).state).toBe(4);
  });

  it("a user's cancel of their own unpaid receipt; it stays payable", async () => {
    const token = await userToken(newUser());
    const receipt = await createReceipt({ merchant_id: 1003 }, { token });
    await expectNoAccess(call("receipt/cancel", { id: receipt.id, reason: REASON }, { token }), receipt.id);
    expect((await sandboxReceipt(receipt.id)).state).toBe(0);
    expect((await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }, { token }), 200)).state).toBe(4);
  });

  it("with access (the default), the same cancel goes through", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await expectNoAccess(call("receipt/cancel", { id: receipt.id }), receipt.id);
    scriptedUpstream.vars({ SANDBOX_CANCEL_ACCESS: "true" });
    expect((await expectStatus(call("receipt/cancel", { id: receipt.id }), 200)).state).toBe(21);
    expect((await sandboxReceipt(receipt.id)).state).toBe(21);
  });
});
