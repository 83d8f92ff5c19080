// Rule 14, no paid receipt lacks its fiscal receipt unnoticed: a receipt paid
// (or refunded) while its fiscal data is missing is read again on
// FISCAL_READS's schedule by its record's own alarm until the data shows;
// then it is stored, its event (receipt.fiscalized, receipt.refund_fiscalized)
// reaches the webhook, and fiscal/pending no longer lists it. Driven through
// the Worker with the sandbox's tok_sandbox_fiscal_late (its data appears
// when the test lets it: letFiscalDataAppear) and the scripted upstream; time
// moves with letTimePass, the alarm runs as the runtime runs it.
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readConfig } from "../../src/config/config";
import { retentionPolicy } from "../../src/config/retention-policy";
import { RING_SLOTS } from "../../src/d1/ring";
import { configProblems } from "../../src/http/guard";
import { receiptStub } from "../../src/record/receipt-object";
import { callGateway, consume, letTimePassWithTheCron, queueSpy, type Received, receiver, ringPeriod } from "../events";
import {
  alarmWithinADay,
  call,
  createReceipt,
  DAY_MS,
  eventually,
  expectError,
  expectStatus,
  letFiscalDataAppear,
  letTimePass,
  newUser,
  productionEnv,
  refuseStatements,
  sandboxCalls,
  userToken,
} from "../helpers";
import { scriptedUpstream } from "../support/scripted-upstream";

afterEach(() => vi.restoreAllMocks());

const READS = readConfig(env).fiscalReads;
const LATE = { token: "tok_sandbox_fiscal_late" };
const stubOf = (id: string) => receiptStub(env, "receipt", id);

interface Listed {
  id: string;
  tid: string;
  amount: number;
  state: number;
  since: number;
  reads: number;
}

/** Every receipt fiscal/pending lists, page after page, as the partner reads them. */
async function wholeList(limit = 100): Promise<{ receipts: Listed[]; pages: { receipts: Listed[]; has_more: boolean }[] }> {
  const pages: { receipts: Listed[]; has_more: boolean }[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await expectStatus(callGateway("fiscal/pending", { limit, ...(after === undefined ? {} : { after }) }), 200);
    pages.push(page);
    if (!page.has_more) break;
    after = page.receipts.at(-1).id;
  }
  return { receipts: pages.flatMap((page) => page.receipts), pages };
}

const listed = async (id: string): Promise<Listed | undefined> => (await wholeList()).receipts.find((r) => r.id === id);

/** The receipt's record runs its alarm as the runtime would (what it owes: a read due, its events, its listing). */
const alarm = (id: string) => runDurableObjectAlarm(stubOf(id));

/** The check-id calls the sandbox received for the receipt: the gateway's reads. */
const reads = async (id: string) => (await sandboxCalls()).filter((c) => c.id === id && c.path === "receipt/check-id").length;

/** A receipt of merchant 1003 (no OTP) paid with `card`: the gateway's answer. */
async function paidWith(card: { token: string }, token?: string): Promise<any> {
  const options = token === undefined ? {} : { token };
  const receipt = await createReceipt({ merchant_id: 1003 }, options);
  return expectStatus(call("receipt/pay", { id: receipt.id, card }, options), 200);
}

/** What the partner's webhook receiver gets of the receipt's events, once the queue's messages are consumed. */
async function delivered(queue: ReturnType<typeof queueSpy>, id: string): Promise<any[]> {
  const received: Received[] = receiver();
  await consume(queue.sent.splice(0).map((body) => ({ body })));
  return received.map((d) => JSON.parse(d.body)).filter((event) => event.data.object.id === id);
}

describe("a receipt paid while its fiscal data is missing (tok_sandbox_fiscal_late)", () => {
  it("is listed at once; the scheduled reads find the data when it shows, store it, deliver receipt.fiscalized and unlist it", async () => {
    const queue = queueSpy();
    const paid = await paidWith(LATE);
    expect(paid).toMatchObject({ state: 4, ofd: { fiscalSign: "", qrCodeUrl: "" } });
    await eventually(async () => expect(await listed(paid.id)).toMatchObject({ tid: paid.tid, amount: paid.amount, state: 4, reads: 0 }));
    const { since } = (await listed(paid.id))!;

    // The first read: nothing yet. It stays listed, one read done.
    letTimePass(READS[0]! + 1);
    expect(await alarm(paid.id)).toBe(true);
    expect(await reads(paid.id)).toBe(1);
    expect(await listed(paid.id)).toMatchObject({ state: 4, since, reads: 1 });

    // The operator answers; the next read finds it with no caller.
    await letFiscalDataAppear(paid.id);
    letTimePass(READS[1]! - READS[0]!);
    expect(await alarm(paid.id)).toBe(true);
    expect(await reads(paid.id)).toBe(2);
    const events = await delivered(queue, paid.id);
    expect(events.map((e) => e.type)).toEqual(["receipt.created", "receipt.paid", "receipt.fiscalized"]);
    const fiscalized = events.at(-1);
    expect(fiscalized.data).toMatchObject({ previous_state: 4, object: { id: paid.id, state: 4 } });
    expect(fiscalized.data.object.ofd.fiscalSign).toMatch(/^\d{12}$/);
    expect(fiscalized.data.object.ofd.qrCodeUrl).toContain(fiscalized.data.object.ofd.fiscalSign);
    expect(await listed(paid.id)).toBeUndefined();

    // Nothing is read again: the only alarm left is the record's end (rule 10).
    expect(await alarmWithinADay(stubOf(paid.id))).toBe(false);
    const trail = await expectStatus(callGateway("receipt/audit", { id: paid.id }), 200);
    expect(trail.entries.at(-1)).toMatchObject({ op: "reconcile", actor: "gateway", outcome: "ok", state: 4 });
    expect((await expectStatus(call("receipt/check-id", { id: paid.id }), 200)).ofd.fiscalSign).toBe(fiscalized.data.object.ofd.fiscalSign);
  });

  it("a paid receipt cancelled while its refund's fiscal data is missing is listed again (state 21, a new watch) until receipt.refund_fiscalized", async () => {
    const queue = queueSpy();
    const paid = await paidWith(LATE);
    // The sale's data shows, and a read stores it (here the partner's own check-id).
    await letFiscalDataAppear(paid.id);
    expect((await expectStatus(call("receipt/check-id", { id: paid.id }), 200)).ofd.fiscalSign).toMatch(/^\d{12}$/);
    await alarm(paid.id);
    expect(await listed(paid.id)).toBeUndefined();

    letTimePass(60_000);
    const cancelled = await expectStatus(call("receipt/cancel", { id: paid.id }), 200);
    expect(cancelled).toMatchObject({ state: 21, ofd: { type: "Refund", fiscalSign: "", qrCodeUrl: "" } });
    await eventually(async () => expect(await listed(paid.id)).toMatchObject({ state: 21, reads: 0 }));

    await letFiscalDataAppear(paid.id);
    letTimePass(READS[0]! + 1);
    await alarm(paid.id);
    const events = await delivered(queue, paid.id);
    expect(events.map((e) => e.type)).toEqual([
      "receipt.created",
      "receipt.paid",
      "receipt.fiscalized",
      "receipt.cancelled",
      "receipt.refund_fiscalized",
    ]);
    expect(events.at(-1).data).toMatchObject({ previous_state: 21, object: { state: 21, ofd: { type: "Refund" } } });
    expect(events.at(-1).data.object.ofd.fiscalSign).toMatch(/^\d{12}$/);
    expect(await listed(paid.id)).toBeUndefined();
  });

  it("a receipt fiscalized at once (tok_sandbox_ok) is never listed and is never read again", async () => {
    const paid = await paidWith({ token: "tok_sandbox_ok" });
    expect(paid.ofd.fiscalSign).toMatch(/^\d{12}$/);
    // Once what the pay left owed is done, the only alarm left is the record's end: no read is scheduled.
    await eventually(async () => {
      await alarm(paid.id);
      expect(await alarmWithinADay(stubOf(paid.id))).toBe(false);
    });
    expect(await listed(paid.id)).toBeUndefined();
    letTimePass(READS.at(-1)! + 60_000);
    await alarm(paid.id);
    expect(await reads(paid.id)).toBe(0);
    expect(await listed(paid.id)).toBeUndefined();
  });

  it("after the last scheduled read it stays listed, and its record is kept past RECORD_RETENTION_DAYS; a check-id that finds the data ends both", async () => {
    const paid = await paidWith(LATE);
    for (const [i, offset] of READS.entries()) {
      letTimePass(offset - (READS[i - 1] ?? -1));
      await alarm(paid.id);
    }
    expect(await reads(paid.id)).toBe(READS.length);
    expect(await listed(paid.id)).toMatchObject({ state: 4, reads: READS.length });
    // No more reads are scheduled, and nothing ends the record while its fiscal data is missing, even once the log let its events go.
    expect(await alarmWithinADay(stubOf(paid.id))).toBe(false);
    const { recordRetentionMs, undeliveredEventsMs } = retentionPolicy(env);
    // (The cron all along: the log's ring drops an undelivered event at its slot's first turn past its window.)
    await letTimePassWithTheCron(Math.max(recordRetentionMs, undeliveredEventsMs) + DAY_MS + RING_SLOTS * ringPeriod());
    await alarm(paid.id);
    expect(await reads(paid.id)).toBe(READS.length);
    expect(await listed(paid.id)).toMatchObject({ state: 4, reads: READS.length });
    expect((await expectStatus(callGateway("receipt/audit", { id: paid.id }), 200)).entries.length).toBeGreaterThan(0);

    await letFiscalDataAppear(paid.id);
    expect((await expectStatus(call("receipt/check-id", { id: paid.id }), 200)).ofd.fiscalSign).toMatch(/^\d{12}$/);
    await alarm(paid.id);
    expect(await listed(paid.id)).toBeUndefined();
  });
});

describe("nothing is lost to a crash or a failed list write", () => {
  it("a crash between the read that shows the data and its store: nothing was stored, an alarm stands, and the next read stores it", async () => {
    const queue = queueSpy();
    const paid = await paidWith(LATE);
    await eventually(async () => expect(await listed(paid.id)).toMatchObject({ reads: 0 }));
    await letFiscalDataAppear(paid.id);
    letTimePass(READS[0]! + 1);
    // The read reaches the upstream, which answers with the data; the object dies before the answer is stored.
    const held = scriptedUpstream.hold("receipt/check-id", { id: paid.id, act: true });
    const running = alarm(paid.id).catch(() => undefined);
    await held.arrived;
    const standing = await runInDurableObject(stubOf(paid.id), (_instance, state) => state.storage.getAlarm());
    expect(standing, "an alarm stands for the read under way").not.toBeNull();
    await runInDurableObject(stubOf(paid.id), (_instance, state) => {
      state.abort("crash test");
    }).catch(() => undefined);
    held.release();
    await running;

    expect(await listed(paid.id)).toMatchObject({ state: 4, reads: 0 });
    expect(await delivered(queue, paid.id)).not.toContainEqual(expect.objectContaining({ type: "receipt.fiscalized" }));

    // With no caller, the alarm that stood for the read reads again.
    letTimePass(readConfig(env).upstreamTimeoutMs + 1000);
    expect(await alarm(paid.id)).toBe(true);
    expect((await delivered(queue, paid.id)).map((e) => e.type)).toContain("receipt.fiscalized");
    expect(await listed(paid.id)).toBeUndefined();
  });

  it("a list write that fails is written again by the record's alarm, and the record does not end before it lands", async () => {
    refuseStatements((sql) => sql.includes("fiscal_pending"));
    const paid = await paidWith(LATE);
    await alarm(paid.id);
    vi.restoreAllMocks();
    expect(await listed(paid.id)).toBeUndefined();
    // The alarm comes back for it.
    expect(await alarmWithinADay(stubOf(paid.id))).toBe(true);
    await alarm(paid.id);
    expect(await listed(paid.id)).toMatchObject({ state: 4, reads: 0 });

    // The data shows and is stored while the list refuses its deletion: the record keeps trying, and does not end meanwhile.
    await letFiscalDataAppear(paid.id);
    refuseStatements((sql) => sql.includes("fiscal_pending"));
    expect((await expectStatus(call("receipt/check-id", { id: paid.id }), 200)).ofd.fiscalSign).toMatch(/^\d{12}$/);
    await alarm(paid.id);
    // Past the record's window, and the log's for its events, which nobody delivered.
    const { recordRetentionMs, undeliveredEventsMs } = retentionPolicy(env);
    // (The cron all along: the log's ring drops an undelivered event at its slot's first turn past its window.)
    await letTimePassWithTheCron(Math.max(recordRetentionMs, undeliveredEventsMs) + DAY_MS + RING_SLOTS * ringPeriod());
    expect(await alarm(paid.id)).toBe(true);
    vi.restoreAllMocks();
    expect((await expectStatus(callGateway("receipt/audit", { id: paid.id }), 200)).id).toBe(paid.id);
    expect(await listed(paid.id)).toMatchObject({ state: 4 });
    // Restarted, its alarm writes what it owes the list; only then does the record end.
    await evictDurableObject(stubOf(paid.id));
    expect(await alarm(paid.id)).toBe(true);
    expect(await listed(paid.id)).toBeUndefined();
    expect((await expectStatus(callGateway("receipt/audit", { id: paid.id }), 200)).id).toBe(paid.id);
    expect(await alarm(paid.id)).toBe(true);
    await expectError(callGateway("receipt/audit", { id: paid.id }), 404, "receipt_not_found");
  });
});

describe("POST /api/v1/gateway/fiscal/pending", () => {
  it("pages oldest first with after and limit; a receipt that left the list still marks the place; an unknown one is 400", async () => {
    const receipts: any[] = [];
    for (let i = 0; i < 3; i++) {
      receipts.push(await paidWith(LATE));
      letTimePass(1000);
    }
    for (const receipt of receipts) await alarm(receipt.id);
    const ids = receipts.map((r) => r.id);

    const { receipts: all, pages } = await wholeList(2);
    expect(pages.every((page) => page.receipts.length <= 2)).toBe(true);
    expect(pages.slice(0, -1).every((page) => page.has_more && page.receipts.length === 2)).toBe(true);
    expect(pages.at(-1)!.has_more).toBe(false);
    const order = all.map((r) => [r.since, r.id] as const);
    expect(order).toEqual([...order].sort(([a, x], [b, y]) => a - b || (x < y ? -1 : x > y ? 1 : 0)));
    expect(all.map((r) => r.id).filter((id) => ids.includes(id))).toEqual(ids);

    const pageAfter = async (id: string, limit = 2) => expectStatus(callGateway("fiscal/pending", { after: id, limit }), 200);
    expect((await pageAfter(ids[0])).receipts.map((r: Listed) => r.id).slice(0, 2)).toEqual([ids[1], ids[2]]);
    expect((await expectStatus(callGateway("fiscal/pending", {}), 200)).receipts.length).toBeLessThanOrEqual(20);

    // The second one's data shows and is stored: off the list, yet a page after it starts where it was.
    await letFiscalDataAppear(ids[1]);
    await expectStatus(call("receipt/check-id", { id: ids[1] }), 200);
    await alarm(ids[1]);
    expect(await listed(ids[1])).toBeUndefined();
    expect((await pageAfter(ids[1], 1)).receipts.map((r: Listed) => r.id)).toEqual([ids[2]]);

    const unknown = await expectError(callGateway("fiscal/pending", { after: "no-such-receipt" }), 400, "invalid_request");
    expect(unknown.details).toEqual([{ path: "after", message: expect.any(String) }]);
  });

  it("is the partner's: a user gets 403 forbidden, even for their own fiscal-late receipt", async () => {
    const token = await userToken(newUser());
    await paidWith(LATE, token);
    await expectError(callGateway("fiscal/pending", {}, { token }), 403, "forbidden");
  });

  it("refuses a limit outside 1 to 100, or not an integer, with 400 invalid_request naming it", async () => {
    for (const limit of [0, 101, 1.5, "20", -1]) {
      const error = await expectError(callGateway("fiscal/pending", { limit }), 400, "invalid_request");
      expect(error.details.map((d: { path: string }) => d.path)).toContain("limit");
    }
  });
});

describe("FISCAL_READS", () => {
  it("development reads within 2 minutes; production's default reads 5 minutes, 1 hour and 24 hours after", async () => {
    expect(READS.at(-1)!).toBeLessThanOrEqual(120_000);
    const production = await productionEnv({ FISCAL_READS: undefined });
    expect(configProblems(production)).toEqual([]);
    expect(readConfig(production).fiscalReads).toEqual([300_000, 3_600_000, 86_400_000]);
  });

  it("a value that is no schedule, or a production schedule that misses a window, keeps the gateway from serving (503 service_misconfigured)", async () => {
    for (const value of ["5", "5m 1h 1h", "1h 5m", "5m,1h,24x", "-5m"]) {
      expect(configProblems({ ...env, FISCAL_READS: value } as Env).join(" ")).toContain("FISCAL_READS");
    }
    expect(configProblems({ ...env, FISCAL_READS: "10s, 1.5m, 2d" } as Env)).toEqual([]);
    for (const value of ["1m 1h 24h", "5m 2h 3h", "5m 1h"]) {
      expect(configProblems(await productionEnv({ FISCAL_READS: value })).join(" "), value).toContain("FISCAL_READS");
    }
    expect(configProblems(await productionEnv({ FISCAL_READS: "5m 30m 1h 6h 1d 2d" }))).toEqual([]);
  });
});
