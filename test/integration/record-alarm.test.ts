// The record's one alarm across incarnations: Cloudflare bills each
// `setAlarm()` as a row written, so an operation on a cold object (its
// incarnation evicted since the last call: a minute or two idle, a deploy)
// leaves alone an alarm an earlier incarnation set early enough, as a warm
// one does.
import { evictDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { receiptStub } from "../../src/record/receipt-object";
import { call, createReceipt, expectStatus, watchAlarms } from "../helpers";

/** Counts the alarm writes of the object's current incarnation from now on (-1: the watch was lost), and what its alarm stands at. */
async function watchAlarmWrites(id: string): Promise<{ writes: () => Promise<number>; at: () => Promise<number | null> }> {
  const watch = await watchAlarms(receiptStub(env, "receipt", id));
  return { writes: async () => (await watch.set())?.length ?? -1, at: watch.at };
}

describe("a cold record object and its alarm", () => {
  it("an authorize on an evicted object writes no more alarms than on a warm one, and its alarm stands where the warm one's does", async () => {
    const warm = await createReceipt({ merchant_id: 1003 });
    const cold = await createReceipt({ merchant_id: 1003 });
    await evictDurableObject(receiptStub(env, "receipt", cold.id));

    const warmWatch = await watchAlarmWrites(warm.id);
    const coldWatch = await watchAlarmWrites(cold.id);
    const before = { warm: await warmWatch.at(), cold: await coldWatch.at() };
    expect(before.cold).not.toBeNull();

    await expectStatus(call("receipt/authorize", { id: warm.id, card: { token: "tok_sandbox_ok" } }), 200);
    await expectStatus(call("receipt/authorize", { id: cold.id, card: { token: "tok_sandbox_ok" } }), 200);

    const writes = { warm: await warmWatch.writes(), cold: await coldWatch.writes() };
    expect(writes.cold).toBeGreaterThanOrEqual(0);
    expect(writes.cold).toBe(writes.warm);
    // Nothing is left unarmed: the cold record's alarm is set, due no later than it was before the authorize.
    const after = await coldWatch.at();
    expect(after).not.toBeNull();
    expect(after!).toBeLessThanOrEqual(Math.max(before.cold!, Date.now() + 60_000));
  });
});
