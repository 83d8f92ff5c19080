// The receipt object's outbox (the partner backend hears about every
// payment): every state change the gateway learns of, from a call or from its
// own reconciliation, is one event written in the same storage step, drained
// into the event log, then the queue; a refusal is none.
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SWEEP_SETTINGS } from "../../src/events";
import { EventWithDelivery } from "../../src/events/schemas";
import { receiptStub } from "../../src/record/receipt-object";
import type { KindName } from "../../src/rules/lifecycle";
import { callGateway, consume, fireCron, queueSpy, receiver, unsentEventBodies, unsentEvents } from "../events";
import {
  call,
  createReceipt,
  eventually,
  expectError,
  expectStatus,
  letSupplierAnswer,
  newUser,
  OTP_OK,
  OTP_WRONG,
  PARTNER_KEY,
  transferRequest,
  userToken,
} from "../helpers";

let queue: ReturnType<typeof queueSpy>;
beforeEach(() => {
  queue = queueSpy();
});
afterEach(() => vi.restoreAllMocks());

const TOKEN = { token: "tok_sandbox_ok" };
const gateway = (path: string, body: unknown, token = PARTNER_KEY) => callGateway(path, body, { token });

/** Runs the record's alarm until its outbox is drained (bounded: it never needs more than a few rounds). */
async function drain(kind: KindName, id: string): Promise<void> {
  const stub = receiptStub(env, kind, id);
  for (let round = 0; round < 5; round++) {
    if ((await unsentEvents(kind, id)) === 0) return;
    await runDurableObjectAlarm(stub);
  }
  throw new Error(`the outbox of ${kind} ${id} did not drain`);
}

/** The record's events as the partner lists them, oldest first, once the queue's consumer has logged them. */
async function eventsOf(kind: KindName, id: string): Promise<any[]> {
  await drain(kind, id);
  await queue.deliver(id);
  const page = await expectStatus<any>(gateway("events/list", { receipt_id: id, limit: 100 }), 200);
  return page.events.reverse();
}

const summary = (events: any[]) => events.map((e) => [e.type, e.sequence, e.data.previous_state, e.data.object.state]);

/** What is wrong with a listed event, by the document's schema (none: a generated client's type holds it), and the object it says it carries. */
const shapes = (events: any[]) =>
  events.map((e) => [e.data.object_type, v.safeParse(EventWithDelivery, e).issues?.map((issue) => `${v.getDotPath(issue)}: ${issue.message}`) ?? []]);

describe("each state change is exactly one event", () => {
  it("create, pay (held), hold-confirm, cancel: four events with their previous states and a rising sequence", async () => {
    const receipt = await createReceipt({ merchant_id: 1003, is_hold: true });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }), 200);
    await expectStatus(call("receipt/hold-confirm", { id: receipt.id }), 200);
    await expectStatus(call("receipt/cancel", { id: receipt.id }), 200);
    const events = await eventsOf("receipt", receipt.id);
    expect(summary(events)).toEqual([
      ["receipt.created", 1, null, 0],
      ["receipt.held", 2, 0, 5],
      ["receipt.paid", 3, 5, 4],
      ["receipt.cancelled", 4, 4, 21],
    ]);
    expect(shapes(events)).toEqual(events.map(() => ["receipt", []]));
    for (const event of events) {
      expect(event.id).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(event.data.owner).toBe("partner");
      expect(event.data.object.id).toBe(receipt.id);
      expect(event.data.object.tid).toBe(receipt.tid);
      expect(typeof event.request_id).toBe("string");
    }
  });

  it("a refused operation and a read produce none", async () => {
    const owner = newUser();
    const token = await userToken(owner);
    const receipt = await createReceipt({ merchant_id: 1003 }, { token });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }, { token }), 200);
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN }, { token }), 409, "receipt_already_paid");
    await expectError(call("receipt/cancel", { id: receipt.id }, { token }), 403, "forbidden");
    await expectStatus(call("receipt/check-id", { id: receipt.id }, { token }), 200);
    const events = await eventsOf("receipt", receipt.id);
    expect(summary(events)).toEqual([
      ["receipt.created", 1, null, 0],
      ["receipt.paid", 2, 0, 4],
    ]);
    // A user's receipt names the user as its owner, by sub.
    expect(events.every((e) => e.data.owner === owner)).toBe(true);
  });

  it("three wrong OTPs: otp_attempts_exhausted, then cancelled", async () => {
    const receipt = await createReceipt({ merchant_id: 1001 });
    await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 200);
    for (let i = 0; i < 2; i++) await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_WRONG }), 422, "otp_invalid");
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_WRONG }), 409, "otp_attempts_exhausted");
    expect(summary(await eventsOf("receipt", receipt.id))).toEqual([
      ["receipt.created", 1, null, 0],
      ["receipt.otp_attempts_exhausted", 2, 0, 0],
      ["receipt.cancelled", 3, 0, 21],
    ]);
  });

  it("a transfer: created, paid", async () => {
    const transfer = await expectStatus<any>(call("a2c/create", transferRequest({ amount: 2_000_000 })), 200);
    await expectStatus(call("a2c/pay", { id: transfer.receipt_id, otp: OTP_OK }), 200);
    const events = await eventsOf("transfer", transfer.receipt_id);
    expect(summary(events)).toEqual([
      ["transfer.created", 1, null, 0],
      ["transfer.paid", 2, 0, 4],
    ]);
    expect(shapes(events)).toEqual(events.map(() => ["transfer", []]));
  });

  it("the alarm's own reconciliation produces its event: 57 -> 4 with no caller is receipt.paid", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_supplier_pending" } }), 200);
    await letSupplierAnswer(receipt.id);
    await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
    const events = await eventsOf("receipt", receipt.id);
    expect(summary(events)).toEqual([
      ["receipt.created", 1, null, 0],
      ["receipt.awaiting_supplier", 2, 0, 57],
      ["receipt.paid", 3, 57, 4],
    ]);
    expect(events[2].request_id).toMatch(/^alarm-/);
  });
});

describe("the outbox survives what fails", () => {
  it("the queue refuses the send and the object is aborted: the event is still published once, and logged once", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await drain("receipt", receipt.id);
    queue.refuseOnce(new Error("queue unavailable"));
    await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }), 200);
    const stub = receiptStub(env, "receipt", receipt.id);
    // The object drains at once after the pay, in the background: that first send is refused.
    await eventually(() => expect(queue.pager).toHaveBeenCalledTimes(2));
    expect(await unsentEvents("receipt", receipt.id)).toBe(1);
    await runInDurableObject(stub, (_i, state) => {
      state.abort("crash between the state change and the queue send");
    }).catch(() => undefined);

    // Once the object runs again its alarm sends it; a copy sent twice (a drain that crashed after the send) is logged once.
    await drain("receipt", receipt.id);
    const paid = queue.sent.filter((m) => JSON.parse(m.payload).type === "receipt.paid");
    expect(paid).toHaveLength(1);
    queue.sent.push(paid[0]!);
    const events = await eventsOf("receipt", receipt.id);
    expect(summary(events)).toEqual([
      ["receipt.created", 1, null, 0],
      ["receipt.paid", 2, 0, 4],
    ]);
  });

  it("a drained event is in the event log before any consumer ran; its message lost, the Cron Trigger's sweep sends it to the receiver", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }), 200);
    await drain("receipt", receipt.id);
    // The queue lost both messages: no consumer ever sees them.
    const lost = queue.sent.splice(0).map((m) => m.id);
    expect(lost).toHaveLength(2);

    const logged = await expectStatus<any>(gateway("events/list", { receipt_id: receipt.id }), 200);
    expect(logged.events.map((e: any) => [e.type, e.delivery.status]).reverse()).toEqual([
      ["receipt.created", "pending"],
      ["receipt.paid", "pending"],
    ]);

    // No caller: the cron, once the first attempt is overdue (in development, 30 s), queues them again.
    await fireCron(Date.now() + SWEEP_SETTINGS.development.staleMs + 1);
    expect(queue.sent.map((m) => m.id).sort()).toEqual([...lost].sort());
    const received = receiver();
    await consume(queue.sent.splice(0).map((body) => ({ body })));
    expect(received.map((d) => JSON.parse(d.body).type).sort()).toEqual(["receipt.created", "receipt.paid"]);
    const delivered = await expectStatus<any>(gateway("events/list", { receipt_id: receipt.id, delivery: "delivered" }), 200);
    expect(delivered.events).toHaveLength(2);
  });

  it("a payment never waits for its events: with the queue hanging, the pay is answered and its event waits in the outbox", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await drain("receipt", receipt.id);
    // The queue (and so any webhook behind it) never answers.
    queue.pager.mockImplementation(() => new Promise<never>(() => {}));
    const paid = await expectStatus<any>(call("receipt/pay", { id: receipt.id, card: TOKEN }), 200);
    expect(paid.state).toBe(4);
    await eventually(() => expect(queue.pager).toHaveBeenCalled());
    const unsent = await unsentEventBodies("receipt", receipt.id);
    expect(unsent.map((body) => JSON.parse(body).type)).toEqual(["receipt.paid"]);
  });
});

describe("the audit trail", () => {
  it("lists every operation, its actor, request id, outcome and state, oldest first; partner only", async () => {
    const owner = newUser();
    const token = await userToken(owner);
    const receipt = await createReceipt({ merchant_id: 1003 }, { token });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }, { token, headers: { "x-request-id": "req-pay-1" } }), 200);
    await expectError(call("receipt/cancel", { id: receipt.id }, { token }), 403, "forbidden");

    const trail = await expectStatus<any>(gateway("receipt/audit", { id: receipt.id }), 200);
    expect(trail).toMatchObject({ id: receipt.id, kind: "receipt", owner });
    expect(trail.entries.map((e: any) => [e.op, e.actor, e.outcome, e.state])).toEqual([
      ["create", `user:${owner}`, "ok", 0],
      ["pay", `user:${owner}`, "ok", 4],
      ["cancel", `user:${owner}`, "forbidden", 4],
    ]);
    expect(trail.entries[1].request_id).toBe("req-pay-1");
    expect(trail.entries.every((e: any) => typeof e.at === "number")).toBe(true);

    await expectError(gateway("receipt/audit", { id: receipt.id }, token), 403, "forbidden");
    await expectError(gateway("receipt/audit", { id: "no-such-receipt" }), 404, "receipt_not_found");
    const transfer = await expectStatus<any>(call("a2c/create", transferRequest()), 200);
    const transferTrail = await expectStatus<any>(gateway("receipt/audit", { id: transfer.receipt_id, kind: "transfer" }), 200);
    expect(transferTrail.entries.map((e: any) => e.op)).toEqual(["create"]);
  });
});

describe("the outbox in the record's row: a drain's mark rides the row's next write", () => {
  const typesSent = () => queue.sent.map((m) => JSON.parse(m.payload).type as string);

  it("the created event's mark goes with the authorize's note, no write of its own; after an eviction nothing already logged is sent again", async () => {
    const receipt = await createReceipt({ merchant_id: 1001 });
    await eventually(() => expect(typesSent()).toEqual(["receipt.created"]));
    // Drained, not yet stored as logged: nothing was written for the mark alone.
    await eventually(async () => expect(queue.pager).toHaveBeenCalledTimes(1));
    expect(await unsentEvents("receipt", receipt.id)).toBe(1);
    await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 200);
    expect(await unsentEvents("receipt", receipt.id)).toBe(0);

    await evictDurableObject(receiptStub(env, "receipt", receipt.id));
    await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_OK }), 200);
    await eventually(() => expect(typesSent()).toEqual(["receipt.created", "receipt.paid"]));
    await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
    expect(typesSent()).toEqual(["receipt.created", "receipt.paid"]);
    expect(await unsentEvents("receipt", receipt.id)).toBe(0);
  });

  it("an eviction right after the state change, before its drain ended: the next incarnation drains it, and the log holds it once", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await drain("receipt", receipt.id);
    // The pay's drain never hears back from its pager: the object is evicted with the event owed.
    let called = false;
    queue.callPagerOnce(() => {
      called = true;
      return new Promise<never>(() => {});
    });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }), 200);
    await eventually(() => expect(called).toBe(true));
    expect(await unsentEvents("receipt", receipt.id)).toBe(1);
    await evictDurableObject(receiptStub(env, "receipt", receipt.id));

    await drain("receipt", receipt.id);
    expect(typesSent().filter((type) => type === "receipt.paid")).toHaveLength(1);
    const events = await eventsOf("receipt", receipt.id);
    expect(summary(events)).toEqual([
      ["receipt.created", 1, null, 0],
      ["receipt.paid", 2, 0, 4],
    ]);
  });

  it("a mark the object lost with its incarnation costs one drain again: the event is logged once and, delivered, not queued again", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await drain("receipt", receipt.id);
    await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }), 200);
    await eventually(() => expect(typesSent()).toEqual(["receipt.created", "receipt.paid"]));
    await queue.deliver(receipt.id);
    // Killed before any write took the paid event's mark (if one did, nothing is owed).
    await runInDurableObject(receiptStub(env, "receipt", receipt.id), (_i, state) => state.abort("killed before the mark")).catch(() => undefined);
    await drain("receipt", receipt.id);
    expect(queue.sent).toEqual([]);
    const events = await eventsOf("receipt", receipt.id);
    expect(events.map((e: any) => [e.type, e.delivery.status])).toEqual([
      ["receipt.created", "delivered"],
      ["receipt.paid", "delivered"],
    ]);
  });
});
