/**
 * Events queued a page at a time (src/events/pager.ts): through the Worker, a
 * record's drain hands its logged events to its pager, which sends one queue
 * message per page; the consumer delivers them to the receiver. What the
 * queue gets (its pages), what the receiver gets, and what the log says; a
 * pager that fails or loses its page, and the sweep behind it.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RETRY_SCHEDULES, SWEEP_SETTINGS } from "../../src/events";
import { EventPager, PAGE_BYTES, PAGE_EVENTS, PAGE_WAIT_MS, pagedBytes, pagerName } from "../../src/events/pager";
import type { EventMessage, EventPage, GatewayEvent } from "../../src/events/types";
import { callGateway, consume, DEAD_LETTER_QUEUE, eventRow, fireCron, receiver } from "../events";
import { call, createReceipt, eventually, expectStatus } from "../helpers";

afterEach(() => {
  vi.restoreAllMocks();
});

const TOKEN = { token: "tok_sandbox_ok" };

/** Every page the pagers send to the events queue (they still go on to the queue nobody consumes in tests). */
function pageSpy(prefix?: string) {
  const pages: EventPage[] = [];
  const realSend = env.EVENTS.send.bind(env.EVENTS);
  const spy = vi.spyOn(env.EVENTS, "send").mockImplementation(async (body, options) => {
    // Only the test's own pages, when it names their events' prefix: other tests' drains may still be sending.
    if (prefix === undefined || (body as EventPage).page.some((m) => m.id.startsWith(prefix))) pages.push(body as EventPage);
    return realSend(body, options);
  });
  // Messages of one event (the fallback's, the sweep's), which the drains no longer send.
  const singles: EventMessage[] = [];
  const realSendBatch = env.EVENTS.sendBatch.bind(env.EVENTS);
  const batchSpy = vi.spyOn(env.EVENTS, "sendBatch").mockImplementation(async (batch, options) => {
    for (const message of batch) singles.push(message.body as EventMessage);
    return realSendBatch(batch, options);
  });
  return { pages, singles, spy, batchSpy, events: () => pages.flatMap((p) => p.page) };
}

/** The deployment's pager (EVENT_PAGERS is 1 in development). */
const pager = () => env.EVENT_PAGER.get(env.EVENT_PAGER.idFromName(pagerName("any", 1)));
/** A pager of the test's own, which no drain reaches. */
const ownPager = () => env.EVENT_PAGER.get(env.EVENT_PAGER.idFromName(`test:${crypto.randomUUID()}`));
const typeOf = (message: EventMessage) => (JSON.parse(message.payload) as GatewayEvent).type;
const ids = (messages: readonly EventMessage[]) => messages.map((m) => m.id);

/** A receipt created and paid through the Worker: its events created and paid (receipt.paid). */
async function paidReceipt() {
  const receipt = await createReceipt({ merchant_id: 1003 });
  await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }), 200);
  return receipt;
}

describe("a record's drain", () => {
  it("hands its events to its pager, which queues them as pages; each event is delivered once and marked delivered", async () => {
    const queue = pageSpy();
    const received = receiver();
    const receipts = [await paidReceipt(), await paidReceipt()];
    const mine = () => queue.events().filter((m) => receipts.some((r) => m.payload.includes(r.id)));

    // Within a page's wait: the drains send nothing of one event.
    await eventually(() =>
      expect(
        mine()
          .map(typeOf)
          .filter((t) => t === "receipt.paid"),
      ).toHaveLength(2),
    );
    expect(queue.singles.filter((m) => receipts.some((r) => m.payload.includes(r.id)))).toEqual([]);
    expect(queue.pages.length).toBeLessThan(mine().length);

    await consume(queue.pages.map((body) => ({ body })));

    const delivered = received.map((d) => d.headers["webhook-id"]);
    expect(new Set(delivered).size).toBe(delivered.length);
    expect([...delivered].sort()).toEqual(ids(queue.events()).sort());
    for (const id of ids(mine())) expect((await eventRow(id))!.delivery_status).toBe("delivered");
  });

  it("whose pager fails sends its events itself, one message each, as before pagers", async () => {
    const queue = pageSpy();
    // Every pager's stub refuses the call, as an unreachable or overloaded object does.
    vi.spyOn(env.EVENT_PAGER, "get").mockReturnValue({
      add: () => Promise.reject(new Error("pager unavailable")),
    } as unknown as DurableObjectStub<EventPager>);
    const receipt = await paidReceipt();

    await eventually(() => expect(queue.singles.filter((m) => m.payload.includes(receipt.id)).map(typeOf)).toContain("receipt.paid"));
    expect(queue.events().filter((m) => m.payload.includes(receipt.id))).toEqual([]);
  });
});

describe("a pager", () => {
  it("sends a page at PAGE_EVENTS events, at once", async () => {
    const queue = pageSpy("evt_count_");
    const messages = Array.from({ length: PAGE_EVENTS + 1 }, (_, i) => ({ id: `evt_count_${i}`, payload: "{}" }));
    await ownPager().add(messages);
    expect(queue.pages.map((p) => ids(p.page))).toEqual([ids(messages.slice(0, PAGE_EVENTS))]);
    // The one left waits for more, and goes PAGE_WAIT_MS after it came.
    await eventually(() => expect(queue.pages).toHaveLength(2));
    expect(ids(queue.pages[1]!.page)).toEqual([messages[PAGE_EVENTS]!.id]);
  });

  it("sends a page before PAGE_BYTES: an event that would take it past starts the next one", async () => {
    const queue = pageSpy("evt_bytes_");
    const payload = JSON.stringify({ blob: "x".repeat(14_000) });
    const messages = Array.from({ length: 5 }, (_, i) => ({ id: `evt_bytes_${i}`, payload }));
    expect(pagedBytes(messages[0]!) * 4).toBeLessThanOrEqual(PAGE_BYTES);
    expect(pagedBytes(messages[0]!) * 5).toBeGreaterThan(PAGE_BYTES);
    await ownPager().add(messages);
    // Four fit; the fifth waits for its own page.
    expect(queue.pages.map((p) => p.page.length)).toEqual([4]);
    expect(new TextEncoder().encode(JSON.stringify(queue.pages[0])).length).toBeLessThan(64_000);
    await eventually(() => expect(queue.pages.map((p) => p.page.length)).toEqual([4, 1]));
  });

  it("sends what it has PAGE_WAIT_MS after the page's first event, in one message", async () => {
    const queue = pageSpy("evt_wait_");
    const started = Date.now();
    const stub = ownPager();
    await stub.add([{ id: "evt_wait_1", payload: "{}" }]);
    await stub.add([{ id: "evt_wait_2", payload: "{}" }]);
    expect(queue.pages).toEqual([]);
    await eventually(() => expect(queue.pages.map((p) => ids(p.page))).toEqual([["evt_wait_1", "evt_wait_2"]]));
    expect(Date.now() - started).toBeGreaterThanOrEqual(PAGE_WAIT_MS - 50);
  });
});

describe("at least once through a pager", () => {
  it("a pager that loses its page (evicted before the send): the sweep sends every event again, and each is delivered", async () => {
    const queue = pageSpy();
    // The page is lost: the object is gone before its timer fires.
    queue.spy.mockImplementation(async () => ({}) as QueueSendResponse);
    const received = receiver();
    const before = Date.now();
    const handed: EventMessage[] = [];
    const realAdd = EventPager.prototype.add;
    vi.spyOn(EventPager.prototype, "add").mockImplementation(async function (this: EventPager, messages) {
      await realAdd.call(this, messages);
      handed.push(...messages);
    });
    const receipt = await paidReceipt();
    // Once the pager has the drain's events, it is evicted before its page's timer.
    await eventually(() => expect(handed.filter((m) => m.payload.includes(receipt.id)).map(typeOf)).toContain("receipt.paid"));
    await runInDurableObject(pager(), (_instance, state) => state.abort("evicted with its page")).catch(() => undefined);

    // Its events are in the log, pending, their first attempt due when they were logged.
    const lost = await eventually(async () => {
      const found = (await callGatewayList(receipt.id)).filter((e) => e.delivery.status === "pending");
      expect(found.map((e) => e.type)).toContain("receipt.paid");
      return found;
    });
    await fireCron(before + SWEEP_SETTINGS.development.staleMs - 1);
    expect(queue.singles.filter((m) => m.payload.includes(receipt.id))).toEqual([]);
    await fireCron(Date.now() + SWEEP_SETTINGS.development.staleMs + 1);
    const again = queue.singles.filter((m) => m.payload.includes(receipt.id));
    expect(ids(again).sort()).toEqual(lost.map((e) => e.id).sort());

    await consume(again.map((body) => ({ body })));
    expect(received.map((d) => d.headers["webhook-id"]).sort()).toEqual(lost.map((e) => e.id).sort());
    for (const event of lost) expect((await eventRow(event.id))!.delivery_status).toBe("delivered");
  });

  it("a receiver that fails one event of a page: only that one is retried, within development's 15 s for three retries; it lands in failed, and resend delivers it", async () => {
    const queue = pageSpy();
    const receipt = await paidReceipt();
    await eventually(() =>
      expect(
        queue
          .events()
          .filter((m) => m.payload.includes(receipt.id))
          .map(typeOf),
      ).toContain("receipt.paid"),
    );
    const pages = queue.pages.filter((p) => p.page.some((m) => m.payload.includes(receipt.id)));
    const events = pages.flatMap((p) => p.page).filter((m) => m.payload.includes(receipt.id));
    const refused = events.find((m) => typeOf(m) === "receipt.paid")!.id;
    let down = true;
    const received = receiver((d) => new Response(null, { status: down && d.headers["webhook-id"] === refused ? 503 : 204 }));

    const delays: number[] = [];
    const schedule = RETRY_SCHEDULES.development;
    for (let attempts = 1; attempts <= schedule.length + 1; attempts++) {
      const result = await consume(pages.map((body) => ({ body, attempts })));
      if (result.retryDelays[0] !== undefined) delays.push(result.retryDelays[0]);
    }
    expect(delays.slice(0, 3).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(15);
    // Every event but the refused one once; the refused one at each attempt.
    const posted = received.map((d) => d.headers["webhook-id"]);
    for (const m of events) expect(posted.filter((id) => id === m.id)).toHaveLength(m.id === refused ? schedule.length + 1 : 1);
    // The schedule spent, the queue moves the page to the dead-letter queue: the refused event is failed.
    await consume(
      pages.map((body) => ({ body })),
      { queue: DEAD_LETTER_QUEUE },
    );
    expect((await eventRow(refused))!.delivery_status).toBe("failed");
    expect(schedule.reduce((a, b) => a + b, 0)).toBeLessThan(180);

    down = false;
    await expectStatus(callGateway("events/resend", { id: refused }), 200);
    const resent = queue.singles.filter((m) => m.id === refused);
    expect(resent).toHaveLength(1);
    await consume(resent.map((body) => ({ body })));
    expect((await eventRow(refused))!.delivery_status).toBe("delivered");
  });
});

async function callGatewayList(receiptId: string): Promise<(GatewayEvent & { delivery: { status: string } })[]> {
  return (await expectStatus<any>(callGateway("events/list", { receipt_id: receiptId }), 200)).events;
}
