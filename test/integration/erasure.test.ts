/**
 * Rule 10, erasure: `POST /api/v1/gateway/users/erase` (partner only, 202),
 * carried out by the Cron Trigger; afterwards none of the user's phone
 * numbers or account values is in any store (the tid index, the event log,
 * the records, the answers kept for Idempotency-Keys), ids, amounts, states
 * and times stay, a repeat of a kept answer shows the values erased, and
 * later events and answers carry them erased.
 */
import { evictDurableObject, runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DAY_MS } from "../../src/config/retention-policy";
import { requestErasure, runErasures } from "../../src/cron/erasure";
import { runRetention } from "../../src/cron/retention";
import { receiptStub } from "../../src/record/receipt-object";
import { clock } from "../../src/shared/clock";
import { ERASURE_REQUESTS_KEPT_DAYS } from "../../src/stores";
import { TID_SLOTS, TID_TABLES } from "../../src/tids/tid-index";
import { callGateway, consume, fireCron, queueSpy, receiver, unsentEvents } from "../events";
import {
  call,
  createReceipt,
  dumpD1,
  dumpStorage,
  expectError,
  expectStatus,
  letTimePass,
  newUser,
  receiptRequest,
  refuseStatements,
  sandboxCalls,
  tidDb,
  transferRequest,
  userToken,
} from "../helpers";
import { moveKeysToTable } from "../support/keys-in-table";
import { scriptedUpstream } from "../support/scripted-upstream";

afterEach(() => vi.restoreAllMocks());

const TOKEN = { token: "tok_sandbox_ok" };
/** A phone number no other test uses, so a scan of every store finds only this test's. */
const newPhone = () => `99890${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`;

async function everyStore(ids: { receipts: string[]; transfers: string[] }): Promise<string> {
  const lines = [...(await dumpD1())];
  for (const id of ids.receipts) lines.push(...(await dumpStorage(receiptStub(env, "receipt", id), `receipt ${id} `)));
  for (const id of ids.transfers) lines.push(...(await dumpStorage(receiptStub(env, "transfer", id), `transfer ${id} `)));
  return lines.join("\n");
}

/** The partner asks for `sub`'s erasure, and the Cron Trigger runs once. */
async function erase(sub: string): Promise<void> {
  await expectStatus(callGateway("users/erase", { user: sub }), 202);
  await fireCron(clock.now());
}

/** A phone number as erased: its first and last two digits. */
const erased = (phone: string) => `${phone.slice(0, 2)}********${phone.slice(-2)}`;

describe("POST /api/v1/gateway/users/erase", () => {
  it("is the partner's: a user gets 403; a bad body 400", async () => {
    const sub = newUser();
    await expectError(callGateway("users/erase", { user: sub }, { token: await userToken(sub) }), 403, "forbidden");
    await expectError(callGateway("users/erase", { user: "" }), 400, "invalid_request");
    await expectError(callGateway("users/erase", {}), 400, "invalid_request");
  });

  it("within a cron run, no phone number or account value of the user's receipts and transfers is left in any store; the partner's are kept", async () => {
    const sub = newUser();
    const token = await userToken(sub);
    const phone = newPhone();
    const account = `acct-${crypto.randomUUID()}`;
    const paid = await createReceipt(
      {
        merchant_id: 1003,
        account: [
          { key: "phone", value: phone },
          { key: "contract", value: account },
        ],
      },
      { token },
    );
    await expectStatus(call("receipt/pay", { id: paid.id, card: TOKEN }, { token }), 200);
    const open = await createReceipt({ merchant_id: 1003, account: [{ key: "phone", value: phone }] }, { token });
    const transfer = await expectStatus(call("a2c/create", transferRequest(), { token }), 200);
    const partnerPhone = newPhone();
    const partners = await createReceipt({ merchant_id: 1003, account: [{ key: "phone", value: partnerPhone }] });
    for (const id of [paid.id, open.id, partners.id]) await runDurableObjectAlarm(receiptStub(env, "receipt", id));
    await runDurableObjectAlarm(receiptStub(env, "transfer", transfer.receipt_id));
    const ids = { receipts: [paid.id, open.id, partners.id], transfers: [transfer.receipt_id] };
    const before = await everyStore(ids);
    expect(before).toContain(phone);
    expect(before).toContain(account);
    const transferPhones = [transfer.sender.phone, transfer.receiver.phone].filter((p: string | null) => p !== null) as string[];

    const accepted = await expectStatus(callGateway("users/erase", { user: sub }), 202);
    expect(accepted).toEqual({ user: sub, accepted_at: expect.any(Number) });
    await fireCron(clock.now());

    const after = await everyStore(ids);
    expect(after).not.toContain(phone);
    expect(after).not.toContain(account);
    // The transfer's phones (masked by the payment service, and shared by other tests' transfers): gone from its record and its events.
    const transferStored = (await dumpStorage(receiptStub(env, "transfer", transfer.receipt_id))).join("\n");
    const transferEvents = JSON.stringify((await expectStatus(callGateway("events/list", { receipt_id: transfer.receipt_id }), 200)).events);
    expect(transferPhones.length).toBeGreaterThan(0);
    for (const value of transferPhones) {
      expect(transferStored).not.toContain(value);
      expect(transferEvents).not.toContain(value);
    }
    // The partner's own receipt is not the user's.
    expect(after).toContain(partnerPhone);

    // Ids, amounts, states and times stay; the values show erased.
    const read = await expectStatus(call("receipt/check-id", { id: paid.id }), 200);
    expect(read).toMatchObject({ id: paid.id, amount: paid.amount, state: 4, create_date: paid.create_date });
    expect(read.account).toEqual([
      { key: "phone", value: `${phone.slice(0, 2)}********${phone.slice(-2)}` },
      { key: "contract", value: expect.stringMatching(/^ac\*+\w\w$/) },
    ]);

    // A later event carries the values erased, though the upstream still answers them.
    await expectStatus(call("receipt/cancel", { id: paid.id }), 200);
    await runDurableObjectAlarm(receiptStub(env, "receipt", paid.id));
    const { events } = await expectStatus(callGateway("events/list", { receipt_id: paid.id }), 200);
    const cancelled = events.find((event: { type: string }) => event.type === "receipt.cancelled");
    expect(cancelled.data.object.account[0].value).not.toBe(phone);
    expect(cancelled.data.object.amount).toBe(paid.amount);
    expect(await everyStore(ids)).not.toContain(phone);
  });

  it("is carried out in bounded runs that go on where the last stopped, until every record is erased", async () => {
    const sub = newUser();
    const token = await userToken(sub);
    const phone = newPhone();
    const receipts: { id: string }[] = [];
    for (let i = 0; i < 3; i++) receipts.push(await createReceipt({ merchant_id: 1003, account: [{ key: "phone", value: phone }] }, { token }));
    await expectStatus(callGateway("users/erase", { user: sub }), 202);
    const stillHolding = async () => {
      const held = [];
      for (const receipt of receipts) if ((await dumpStorage(receiptStub(env, "receipt", receipt.id))).join().includes(phone)) held.push(receipt.id);
      return held.length;
    };
    expect((await runErasures(env, clock.now(), 1)).records).toBe(1);
    expect(await stillHolding()).toBe(2);
    expect((await runErasures(env, clock.now(), 1)).records).toBe(1);
    expect((await runErasures(env, clock.now(), 5)).done).toBeGreaterThanOrEqual(1);
    expect(await stillHolding()).toBe(0);
    // Done: nothing more to do for it.
    expect((await runErasures(env, clock.now(), 5)).records).toBe(0);
  });
});

describe("the erasure across the tid index's tables (tid_index and its ring of slots)", () => {
  /** Moves (owner, tid)'s row from whichever table holds it to `table`, as another period, or the release before, would have written it. */
  async function moveRow(owner: string, tid: string, table: string): Promise<void> {
    const db = await tidDb(owner, tid);
    const columns = "owner, tid, upstream_tid, kind, status, fingerprint, claim_token, receipt_id, created_at, updated_at";
    const batch = [];
    for (const from of TID_TABLES)
      if (from !== table)
        batch.push(
          db.prepare(`INSERT INTO ${table} (${columns}) SELECT ${columns} FROM ${from} WHERE owner = ?1 AND tid = ?2`).bind(owner, tid),
          db.prepare(`DELETE FROM ${from} WHERE owner = ?1 AND tid = ?2`).bind(owner, tid),
        );
    await db.batch(batch);
    expect(await db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE owner = ?1 AND tid = ?2`).bind(owner, tid).first("n")).toBe(1);
  }

  it("finds a user's records whose rows sit in tid_index (the release before the ring wrote it) and in several slots, one a run, until every one is erased", async () => {
    const sub = newUser();
    const owner = `user:${sub}`;
    const token = await userToken(sub);
    const phone = newPhone();
    const made: { id: string; tid: string }[] = [];
    for (let i = 0; i < 4; i++) made.push(await createReceipt({ merchant_id: 1003, account: [{ key: "phone", value: phone }] }, { token }));
    // One in the old table, two in slots other than the one written now, one where its claim put it.
    await moveRow(owner, made[0]!.tid, "tid_index");
    await moveRow(owner, made[1]!.tid, TID_SLOTS[0]!);
    await moveRow(owner, made[2]!.tid, TID_SLOTS[TID_SLOTS.length - 1]!);

    await expectStatus(callGateway("users/erase", { user: sub }), 202);
    // One record a run: the walk's cursor goes on across the tables, in tid order, leaving none behind.
    for (let run = 0; run < made.length; run++) expect((await runErasures(env, clock.now(), 1)).records).toBe(1);
    expect((await runErasures(env, clock.now(), 5)).done).toBeGreaterThanOrEqual(1);
    for (const receipt of made) {
      const read = (await expectStatus(call("receipt/check-id", { id: receipt.id }, { token }), 200)) as { account: { value: string }[] };
      expect(read.account.map((entry) => entry.value)).toEqual([erased(phone)]);
    }
    expect(await everyStore({ receipts: made.map((r) => r.id), transfers: [] })).not.toContain(phone);
  });
});

describe("the erasure requests (rule 10: every stored byte has an end)", () => {
  /** The request as the runbook looks it up (docs/production.md): its row in the first database, or null. */
  const requestOf = (sub: string) =>
    env.DB.prepare("SELECT user, done_at FROM erasures WHERE user = ?1").bind(sub).first<{ done_at: number | null }>();

  it("a done request is kept for a restore of the database to put back, then retention deletes it; one still open is kept", async () => {
    const done = newUser();
    await erase(done);
    expect(await requestOf(done)).toMatchObject({ done_at: expect.any(Number) });
    const open = newUser();
    await requestErasure(env, open, clock.now());

    letTimePass(ERASURE_REQUESTS_KEPT_DAYS * DAY_MS - 60_000);
    await runRetention(env, clock.now());
    expect(await requestOf(done)).not.toBeNull();
    letTimePass(120_000);
    const report = await runRetention(env, clock.now());
    expect(report.erasures_deleted).toBeGreaterThanOrEqual(1);
    expect(await requestOf(done)).toBeNull();
    expect(await requestOf(open)).toMatchObject({ done_at: null });
  });
});

describe("every place an event body or an answer lives is erased", () => {
  it("events still owed by the outbox when the erasure runs (not in the event log yet) are handed on erased", async () => {
    const sub = newUser();
    const token = await userToken(sub);
    const phone = newPhone();
    // The event log refuses the object's drains: the receipt's events wait in its outbox.
    refuseStatements((sql) => sql.includes("INSERT INTO events"));
    const receipt = await createReceipt({ merchant_id: 1003, account: [{ key: "phone", value: phone }] }, { token });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }, { token }), 200);
    const stub = receiptStub(env, "receipt", receipt.id);
    const owed = () => unsentEvents("receipt", receipt.id);
    expect(await owed()).toBe(2);

    await erase(sub);
    expect(await owed()).toBe(2);
    expect((await dumpStorage(stub)).join("\n")).not.toContain(phone);

    // The event log is back: the object's alarm hands the owed events on, to the queue and then the receiver.
    vi.restoreAllMocks();
    const queue = queueSpy();
    await runDurableObjectAlarm(stub);
    expect(await owed()).toBe(0);
    const queued = queue.sent.filter((m) => JSON.parse(m.payload).data.object.id === receipt.id);
    expect(queued.map((m) => JSON.parse(m.payload).type)).toEqual(["receipt.created", "receipt.paid"]);
    for (const message of queued) {
      expect(message.payload).not.toContain(phone);
      expect(JSON.parse(message.payload).data.object.account).toEqual([{ key: "phone", value: erased(phone) }]);
    }
    const received = receiver();
    await consume(queued.map((body) => ({ body })));
    expect(received).toHaveLength(2);
    for (const delivery of received) expect(delivery.body).not.toContain(phone);
    const { events } = await expectStatus(callGateway("events/list", { receipt_id: receipt.id }), 200);
    expect(events).toHaveLength(2);
    expect(JSON.stringify(events)).not.toContain(phone);
  });
});

describe("the answers kept for Idempotency-Keys (rules 10 and 11)", () => {
  const withKey = (key: string, token: string) => ({ token, headers: { "Idempotency-Key": key } });
  const receiptOf = (phone: string, token: string) => createReceipt({ merchant_id: 1003, account: [{ key: "phone", value: phone }] }, { token });

  it("a pay repeated with its key after the erasure replays the answer with the values erased; answers kept after it are built from the erased record", async () => {
    const sub = newUser();
    const token = await userToken(sub);
    const phone = newPhone();
    const create = receiptRequest({ merchant_id: 1003, account: [{ key: "phone", value: phone }] });
    const paid = await expectStatus(call("receipt/create", create, { token }), 200);
    const later = await receiptOf(phone, token);
    const lost = await receiptOf(phone, token);
    const key = `e-1-${crypto.randomUUID()}`;
    const first = await call("receipt/pay", { id: paid.id, card: TOKEN }, withKey(key, token));
    expect(first.status).toBe(200);
    const firstText = await first.text();
    expect(firstText).toContain(phone);
    // A pay whose answer is lost after the payment service acted: its key waits for the outcome.
    const lostKey = `e-2-${crypto.randomUUID()}`;
    scriptedUpstream.on("receipt/pay", { kind: "lost" }, { id: lost.id });
    await expectError(call("receipt/pay", { id: lost.id, card: TOKEN }, withKey(lostKey, token)), 502, "upstream_error");

    await erase(sub);

    // The kept answer, repeated (read back from storage): the first answer's bytes with the values erased, and nothing
    // reaches the payment service again.
    await evictDurableObject(receiptStub(env, "receipt", paid.id));
    const repeat = await call("receipt/pay", { id: paid.id, card: TOKEN }, withKey(key, token));
    expect(repeat.headers.get("idempotent-replayed")).toBe("true");
    const repeatText = await repeat.clone().text();
    expect(repeatText).toBe(firstText.replaceAll(phone, erased(phone)));
    const replayed = await expectStatus(repeat, 200);
    expect(replayed).toMatchObject({ id: paid.id, amount: paid.amount, state: 4 });
    expect(replayed.account).toEqual([{ key: "phone", value: erased(phone) }]);
    // So is the create's answer, kept for its tid.
    const recreated = await call("receipt/create", create, { token });
    expect(recreated.headers.get("idempotent-replayed")).toBe("true");
    expect(await expectStatus(recreated, 200)).toMatchObject({ id: paid.id, account: [{ key: "phone", value: erased(phone) }] });
    // A pay after the erasure: its answer, and the one its key keeps, are built from the erased record.
    const laterKey = `e-3-${crypto.randomUUID()}`;
    const afterwards = await expectStatus(call("receipt/pay", { id: later.id, card: TOKEN }, withKey(laterKey, token)), 200);
    expect(afterwards).toMatchObject({ id: later.id, state: 4, account: [{ key: "phone", value: erased(phone) }] });
    const again = await call("receipt/pay", { id: later.id, card: TOKEN }, withKey(laterKey, token));
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.text()).not.toContain(phone);
    // The repeat of the pay whose answer was lost asks the payment service, and answers from the erased record.
    const settled = await expectStatus(call("receipt/pay", { id: lost.id, card: TOKEN }, withKey(lostKey, token)), 200);
    expect(settled).toMatchObject({ id: lost.id, state: 4, account: [{ key: "phone", value: erased(phone) }] });
    expect((await sandboxCalls()).filter((c) => c.path === "receipt/pay" && [paid.id, lost.id].includes(c.id ?? ""))).toHaveLength(2);

    // No store holds the phone, the kept answers in the records' rows included.
    for (const id of [paid.id, later.id, lost.id]) await runDurableObjectAlarm(receiptStub(env, "receipt", id));
    const stored = await everyStore({ receipts: [paid.id, later.id, lost.id], transfers: [] });
    for (const k of [key, laterKey, lostKey]) expect(stored).toContain(k);
    expect(stored).not.toContain(phone);
  });

  it("an answer kept in the record's own table (a record the release before keyed) is erased too", async () => {
    const sub = newUser();
    const token = await userToken(sub);
    const phone = newPhone();
    const paid = await receiptOf(phone, token);
    const key = `e-4-${crypto.randomUUID()}`;
    const first = await call("receipt/pay", { id: paid.id, card: TOKEN }, withKey(key, token));
    expect(await first.text()).toContain(phone);
    expect(await moveKeysToTable(paid.id)).toBe(1);

    await erase(sub);

    const repeat = await call("receipt/pay", { id: paid.id, card: TOKEN }, withKey(key, token));
    expect(repeat.headers.get("idempotent-replayed")).toBe("true");
    expect(await expectStatus(repeat, 200)).toMatchObject({ id: paid.id, state: 4, account: [{ key: "phone", value: erased(phone) }] });
    await runDurableObjectAlarm(receiptStub(env, "receipt", paid.id));
    const stored = await everyStore({ receipts: [paid.id], transfers: [] });
    expect(stored).toContain("idempotency: ");
    expect(stored).toContain(key);
    expect(stored).not.toContain(phone);
  });
});
