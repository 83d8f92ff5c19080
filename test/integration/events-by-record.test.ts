/**
 * events/list by receipt_id through the Worker, for records the gateway made:
 * the event log keeps no index by record (migrations/0003_events_without_record_index.sql),
 * so the list asks the record which events it keeps and reads those from the
 * log. What a caller sees is what the index gave: every logged event of the
 * record, newest first, with its delivery, paged by `after` and `limit`, and
 * none for a record that keeps none (one that never existed, or one deleted
 * by rule 10, whose events the log no longer holds).
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { retentionPolicy } from "../../src/config/retention-policy";
import { receiptStub } from "../../src/record/receipt-object";
import { callGateway, letTimePassWithTheCron, queueSpy } from "../events";
import { call, createReceipt, expectError, expectStatus, newUser, transferRequest, userToken } from "../helpers";

const TOKEN = { token: "tok_sandbox_ok" };
const RETENTION_MS = retentionPolicy(env).recordRetentionMs;

interface Listed {
  events: { id: string; type: string; data: { owner: string }; delivery: { status: string } }[];
  has_more: boolean;
}

const list = (body: Record<string, unknown>) => expectStatus<Listed>(callGateway("events/list", body), 200);
const typesOf = (page: Listed) => page.events.map((event) => event.type);
const statusesOf = (page: Listed) => page.events.map((event) => [event.type, event.delivery.status]);

/** Whatever the record's outbox still owes is handed on, as its alarm would. */
const handedOn = (kind: "receipt" | "transfer", id: string) => runDurableObjectAlarm(receiptStub(env, kind, id));

/** Every page of a record's events, `limit` at a time, following `after`: the ids, and has_more of each page. */
async function pages(recordId: string, limit: number, filters: Record<string, unknown> = {}): Promise<{ ids: string[]; more: boolean[] }> {
  const ids: string[] = [];
  const more: boolean[] = [];
  let after: string | undefined;
  // More pages than a record has events would be a list that never ends.
  while (more.length <= 10) {
    const page = await list({ receipt_id: recordId, limit, ...filters, ...(after ? { after } : {}) });
    ids.push(...page.events.map((event) => event.id));
    more.push(page.has_more);
    if (!page.has_more) return { ids, more };
    after = page.events.at(-1)!.id;
  }
  throw new Error(`the pages of ${recordId} do not end: ${ids.join(", ")}`);
}

afterEach(() => {
  vi.restoreAllMocks();
});

/** Every statement any database of the log is asked from now on (until vi.restoreAllMocks). */
function statementsAsked(): string[] {
  const asked: string[] = [];
  for (const db of [env.DB, env.DB_TID_1]) {
    const prepare = db.prepare.bind(db);
    vi.spyOn(db, "prepare").mockImplementation((sql: string) => {
      asked.push(sql);
      return prepare(sql);
    });
  }
  return asked;
}

describe("events/list by receipt_id, read through the ids the record keeps", () => {
  it("a receipt: its events newest first, pending until delivered, then delivered; paged with after and limit, filters as before", async () => {
    const queue = queueSpy();
    const receipt = await createReceipt({ merchant_id: 1003, is_hold: true });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }), 200);
    await expectStatus(call("receipt/cancel", { id: receipt.id }), 200);
    await handedOn("receipt", receipt.id);

    const before = await list({ receipt_id: receipt.id });
    expect(statusesOf(before)).toEqual([
      ["receipt.cancelled", "pending"],
      ["receipt.held", "pending"],
      ["receipt.created", "pending"],
    ]);
    expect(before.has_more).toBe(false);
    const all = before.events.map((event) => event.id);
    expect((await pages(receipt.id, 1)).ids).toEqual(all);
    expect(await pages(receipt.id, 2)).toEqual({ ids: all, more: [true, false] });
    expect(await pages(receipt.id, 3)).toEqual({ ids: all, more: [false] });

    await queue.deliver(receipt.id);
    const after = await list({ receipt_id: receipt.id });
    expect(statusesOf(after)).toEqual([
      ["receipt.cancelled", "delivered"],
      ["receipt.held", "delivered"],
      ["receipt.created", "delivered"],
    ]);
    expect(await pages(receipt.id, 1, { delivery: "delivered" })).toEqual({ ids: all, more: [true, true, false] });
    expect((await list({ receipt_id: receipt.id, delivery: "pending" })).events).toEqual([]);
    expect(typesOf(await list({ receipt_id: receipt.id, type: "receipt.held" }))).toEqual(["receipt.held"]);
    expect(typesOf(await list({ receipt_id: receipt.id, after: all[0] }))).toEqual(["receipt.held", "receipt.created"]);
    expect(await list({ receipt_id: receipt.id, after: all[2] })).toEqual({ events: [], has_more: false });
  });

  it("a transfer, by its receipt_id: its own events, before and after delivery, page by page", async () => {
    const queue = queueSpy();
    const transfer = await expectStatus(call("a2c/create", transferRequest()), 200);
    const id = transfer.receipt_id as string;
    await expectStatus(call("a2c/pay", { id }), 200);
    await handedOn("transfer", id);

    const before = await list({ receipt_id: id });
    expect(statusesOf(before)).toEqual([
      ["transfer.paid", "pending"],
      ["transfer.created", "pending"],
    ]);
    const all = before.events.map((event) => event.id);
    expect(await pages(id, 1)).toEqual({ ids: all, more: [true, false] });

    await queue.deliver(id);
    expect(statusesOf(await list({ receipt_id: id }))).toEqual([
      ["transfer.paid", "delivered"],
      ["transfer.created", "delivered"],
    ]);
    expect(await pages(id, 1, { type: "transfer.paid" })).toEqual({ ids: [all[0]], more: [false] });
  });

  it("a record that keeps no event (none ever made by that id) lists none, and the log is not asked", async () => {
    const asked = statementsAsked();
    expect(await list({ receipt_id: `rcpt-${crypto.randomUUID()}` })).toEqual({ events: [], has_more: false });
    expect(await list({ receipt_id: `rcpt-${crypto.randomUUID()}`, delivery: "failed", limit: 1 })).toEqual({ events: [], has_more: false });
    vi.restoreAllMocks();
    expect(asked.filter((sql) => sql.includes("FROM events"))).toEqual([]);
  });

  it("a user's receipt: the partner lists its events (the user as owner); no user may list them, its owner or another", async () => {
    const owner = newUser();
    const token = await userToken(owner);
    const receipt = await createReceipt({ merchant_id: 1003 }, { token });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }, { token }), 200);
    await handedOn("receipt", receipt.id);

    const listed = await list({ receipt_id: receipt.id });
    expect(typesOf(listed)).toEqual(["receipt.paid", "receipt.created"]);
    expect(listed.events.map((event) => event.data.owner)).toEqual([owner, owner]);
    for (const caller of [token, await userToken(newUser())]) {
      await expectError(callGateway("events/list", { receipt_id: receipt.id }, { token: caller }), 403, "forbidden");
    }
  });

  it("a record deleted by rule 10 lists none, as the log holds none of its events; rebuilt, it lists only what it made since", async () => {
    const queue = queueSpy();
    const receipt = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }), 200);
    await handedOn("receipt", receipt.id);
    await queue.deliver(receipt.id);
    expect(typesOf(await list({ receipt_id: receipt.id }))).toEqual(["receipt.paid", "receipt.created"]);

    // Past its window: retention prunes its events, then its own alarm deletes it.
    await letTimePassWithTheCron(RETENTION_MS + 60_000);
    expect(await handedOn("receipt", receipt.id)).toBe(true);
    expect(await list({ receipt_id: receipt.id })).toEqual({ events: [], has_more: false });

    // The partner's check-id rebuilds it from the upstream, with no event; its refund is its first.
    expect((await expectStatus(call("receipt/check-id", { id: receipt.id }), 200)).state).toBe(4);
    expect(await list({ receipt_id: receipt.id })).toEqual({ events: [], has_more: false });
    expect((await expectStatus(call("receipt/cancel", { id: receipt.id }), 200)).state).toBe(21);
    await handedOn("receipt", receipt.id);
    expect(statusesOf(await list({ receipt_id: receipt.id }))).toEqual([["receipt.cancelled", "pending"]]);
  });
});
