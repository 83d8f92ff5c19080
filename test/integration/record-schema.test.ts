// The receipt object's storage carries a schema version, and the framework
// that brings an object written by an earlier version to the current one the
// first time it is opened, in one transaction, losing nothing. A version-1
// object made here is brought through every step (rule 12's columns, then the
// outbox moved into the row), schema 3's move is tried on an object stored as
// before it, and the framework is exercised with a migration of the test's
// own, as the next schema change will use it.
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { receiptStub } from "../../src/receipt-object";
import { storedEvents } from "../../src/record/outbox-rows";
import { CURRENT_SCHEMA_VERSION, describeSchema, migrate, storedVersion } from "../../src/record/schema";
import { callGateway, loggedEventTypes, queueSpy, unsentEvents } from "../events";
import { alarmWithinADay, call, createReceipt, expectError, expectStatus, letFiscalDataAppear, receiptRequest, sandboxCalls } from "../helpers";

afterEach(() => vi.restoreAllMocks());

/** Rule 14's columns (schema 5): an object stored by an earlier gateway lacks them. */
function dropFiscalColumns(sql: SqlStorage): void {
  for (const column of ["fiscal", "fiscal_since", "fiscal_reads", "fiscal_listed"]) sql.exec(`ALTER TABLE record DROP COLUMN ${column}`);
}

describe("the receipt object's storage schema", () => {
  it("a new object is created at the current version", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    const version = await runInDurableObject(
      receiptStub(env, "receipt", receipt.id),
      (_i, state) => state.storage.sql.exec("SELECT schema_version FROM record").one().schema_version,
    );
    expect(version).toBe(CURRENT_SCHEMA_VERSION);
  });

  it("the migration framework brings an object of the version before to the next, in one step, keeping its record; a newer one is refused", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" } }), 200);
    const next = CURRENT_SCHEMA_VERSION + 1;
    const migrations = { [next]: ["ALTER TABLE record ADD COLUMN note_for_the_next_version TEXT NOT NULL DEFAULT 'kept'"] };
    const stub = receiptStub(env, "receipt", receipt.id);
    const after = await runInDurableObject(stub, (_i, state) => {
      const from = storedVersion(state.storage.sql);
      const to = migrate(state.storage, false, from, migrations, next);
      const row = state.storage.sql.exec("SELECT state, schema_version, note_for_the_next_version FROM record").one();
      return { from, to, row, stored: storedVersion(state.storage.sql) };
    });
    expect(after).toEqual({
      from: CURRENT_SCHEMA_VERSION,
      to: next,
      row: { state: 4, schema_version: next, note_for_the_next_version: "kept" },
      stored: next,
    });
    // This gateway does not read a schema newer than its own.
    await expect(runInDurableObject(stub, (_i, state) => migrate(state.storage, false))).rejects.toThrow(/newer than this gateway/);
  });

  it("a migration that fails leaves the object as it was (one transaction)", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    const next = CURRENT_SCHEMA_VERSION + 1;
    const broken = { [next]: ["ALTER TABLE record ADD COLUMN half_done TEXT", "ALTER TABLE no_such_table ADD COLUMN x TEXT"] };
    const stub = receiptStub(env, "receipt", receipt.id);
    const schemaBefore = await runInDurableObject(stub, (_i, state) => describeSchema(state.storage.sql));
    await expect(runInDurableObject(stub, (_i, state) => migrate(state.storage, false, CURRENT_SCHEMA_VERSION, broken, next))).rejects.toThrow();
    expect(await runInDurableObject(stub, (_i, state) => describeSchema(state.storage.sql))).toEqual(schemaBefore);
    expect((await expectStatus(call("receipt/check-id", { id: receipt.id }), 200)).state).toBe(0);
  });

  it("a create's record repeated on its object after a restart (a retry adopting it) changes nothing", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" } }), 200);
    // A new object makes its schema without looking first; one that already holds a record must find it.
    const stub = receiptStub(env, "receipt", receipt.id);
    await evictDurableObject(stub);
    await stub.init({
      kind: "receipt",
      body: receipt,
      tid: receipt.tid,
      upstreamTid: receipt.tid,
      owner: "partner:partner",
      isHold: false,
      qrMerchant: false,
      requestId: "retry",
    });
    expect((await expectStatus(call("receipt/check-id", { id: receipt.id }), 200)).state).toBe(4);
    const audit = (await stub.auditTrail())!.entries.map(({ op, outcome }) => ({ op, outcome }));
    expect(audit).toEqual([
      { op: "create", outcome: "ok" },
      { op: "pay", outcome: "ok" },
    ]);
  });

  it("an object of schema 1 is brought to the current one (rule 12's columns, its outbox in the row) as a new object makes it, and a held record's hold counts from its last change", async () => {
    const fresh = await createReceipt({ merchant_id: 1003 });
    const freshSchema = await runInDurableObject(receiptStub(env, "receipt", fresh.id), (_i, state) => describeSchema(state.storage.sql));
    const receipt = await createReceipt({ merchant_id: 1003, is_hold: true });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" } }), 200);
    const stub = receiptStub(env, "receipt", receipt.id);
    // The record as schema 1 stored it: without the columns schema 2 added.
    await runInDurableObject(stub, (_i, state) => {
      const sql = state.storage.sql;
      dropFiscalColumns(sql);
      sql.exec("ALTER TABLE record DROP COLUMN held_at");
      sql.exec("ALTER TABLE record DROP COLUMN expiry");
      // Its events in the outbox table schema 1 kept them in, each body whole.
      const events = storedEvents(sql.exec<{ events: string; body: string; answer: string | null }>("SELECT events, body, answer FROM record").one());
      sql.exec(
        "CREATE TABLE outbox (seq INTEGER PRIMARY KEY, event_id TEXT NOT NULL, body TEXT NOT NULL, created_at INTEGER NOT NULL, logged_at INTEGER)",
      );
      for (const [i, [id, body]] of events.entries()) sql.exec("INSERT INTO outbox VALUES (?, ?, ?, 1, 2)", i + 1, id, body);
      sql.exec("ALTER TABLE record DROP COLUMN events");
      sql.exec("ALTER TABLE record DROP COLUMN events_logged");
      sql.exec("UPDATE record SET schema_version = 1");
    });
    await evictDurableObject(stub);
    expect((await expectStatus(call("receipt/check-id", { id: receipt.id }), 200)).state).toBe(5);
    const after = await runInDurableObject(stub, (_i, state) => ({
      schema: describeSchema(state.storage.sql),
      row: state.storage.sql.exec("SELECT schema_version, held_at = updated_at AS held_since_last_change, expiry FROM record").one(),
    }));
    expect(after).toEqual({ schema: freshSchema, row: { schema_version: CURRENT_SCHEMA_VERSION, held_since_last_change: 1, expiry: null } });
  });
});

describe("schema 3: the outbox moves into the record's row", () => {
  it("an object written with the outbox table (one event logged, one owed) is migrated on its first open: one table as a new object's, every event kept in order, the owed one still delivered", async () => {
    const queue = queueSpy();
    const receipt = await createReceipt({ merchant_id: 1003 });
    const stub = receiptStub(env, "receipt", receipt.id);
    await runDurableObjectAlarm(stub);
    expect(await unsentEvents("receipt", receipt.id)).toBe(0);
    // The pay's event is not handed on: the queue refuses it.
    queue.spy.mockRejectedValueOnce(new Error("queue unavailable"));
    await expectStatus(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" } }), 200);
    await vi.waitFor(() => expect(queue.spy).toHaveBeenCalledTimes(2));
    const fresh = await runInDurableObject(stub, (_i, state) => describeSchema(state.storage.sql));
    // The same object as a gateway before schema 3 stored it: its events as rows of the outbox table.
    const bodies = await runInDurableObject(stub, (_i, state) => {
      const sql = state.storage.sql;
      const events = storedEvents(sql.exec<{ events: string; body: string; answer: string | null }>("SELECT events, body, answer FROM record").one());
      sql.exec(
        "CREATE TABLE outbox (seq INTEGER PRIMARY KEY, event_id TEXT NOT NULL, body TEXT NOT NULL, created_at INTEGER NOT NULL, logged_at INTEGER)",
      );
      // Inserted newest first: the migration keeps their order by seq, not by insertion.
      for (const [i, [id, body]] of [...events.entries()].reverse()) {
        sql.exec("INSERT INTO outbox (seq, event_id, body, created_at, logged_at) VALUES (?, ?, ?, 1, ?)", i + 1, id, body, i === 0 ? 2 : null);
      }
      sql.exec("ALTER TABLE record DROP COLUMN events");
      sql.exec("ALTER TABLE record DROP COLUMN events_logged");
      dropFiscalColumns(sql);
      sql.exec("UPDATE record SET schema_version = 2");
      return events;
    });
    expect(bodies.map(([, body]) => JSON.parse(body).type)).toEqual(["receipt.created", "receipt.paid"]);
    await evictDurableObject(stub);

    // Its first open migrates it, and its alarm drains what is owed.
    expect((await expectStatus(call("receipt/check-id", { id: receipt.id }), 200)).state).toBe(4);
    await vi.waitFor(() => expect(queue.sent.map((m) => JSON.parse(m.payload).type)).toContain("receipt.paid"));
    const after = await runInDurableObject(stub, (_i, state) => ({
      schema: describeSchema(state.storage.sql),
      version: storedVersion(state.storage.sql),
      events: storedEvents(
        state.storage.sql.exec<{ events: string; body: string; answer: string | null }>("SELECT events, body, answer FROM record").one(),
      ),
    }));
    expect(after).toEqual({ schema: fresh, version: CURRENT_SCHEMA_VERSION, events: bodies });
    expect(await loggedEventTypes("receipt", receipt.id)).toEqual(["receipt.created", "receipt.paid"]);
    expect(queue.sent.filter((m) => JSON.parse(m.payload).type === "receipt.created")).toHaveLength(1);
  });
});

describe("schema 4: events' bodies kept as parts of the row's texts", () => {
  it("an object written with every event's body whole (schema 3, its row spilling into an overflow page) is migrated on its first open: the bodies byte for byte as before, each receipt in them a reference to the row's body or answer, the row back in the table's page", async () => {
    const queue = queueSpy();
    const receipt = await createReceipt({ merchant_id: 1001 });
    const stub = receiptStub(env, "receipt", receipt.id);
    await expectStatus(call("receipt/authorize", { id: receipt.id, card: { token: "tok_sandbox_ok" } }), 200);
    // The pay's event is not handed on: the queue refuses it.
    queue.spy.mockRejectedValueOnce(new Error("queue unavailable"));
    await expectStatus(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" }, otp: "111111" }), 200);
    const fresh = await runInDurableObject(stub, (_i, state) => describeSchema(state.storage.sql));
    // The same object as schema 3 stored it: [event_id, body] pairs, each body whole.
    const before = await runInDurableObject(stub, (_i, state) => {
      const sql = state.storage.sql;
      const events = storedEvents(sql.exec<{ events: string; body: string; answer: string | null }>("SELECT events, body, answer FROM record").one());
      sql.exec("UPDATE record SET events = ?, schema_version = 3", JSON.stringify(events));
      dropFiscalColumns(sql);
      return { events, bytes: sql.databaseSize };
    });
    expect(before.events.map(([, body]) => JSON.parse(body).type)).toEqual(["receipt.created", "receipt.paid"]);
    expect(before.bytes).toBe(16 * 1024);
    await evictDurableObject(stub);

    // Its first open migrates it, and its alarm drains what is owed.
    expect((await expectStatus(call("receipt/check-id", { id: receipt.id }), 200)).state).toBe(4);
    const after = await runInDurableObject(stub, (_i, state) => {
      const row = state.storage.sql.exec<{ events: string; body: string; answer: string | null }>("SELECT events, body, answer FROM record").one();
      return { schema: describeSchema(state.storage.sql), version: storedVersion(state.storage.sql), row, bytes: state.storage.sql.databaseSize };
    });
    expect(after.schema).toEqual(fresh);
    expect(after.version).toBe(CURRENT_SCHEMA_VERSION);
    expect(storedEvents(after.row)).toEqual(before.events);
    // The created event's receipt is the create's answer; the paid one's, the body.
    expect((JSON.parse(after.row.events) as unknown[][]).map((event) => event.filter((part) => typeof part === "number"))).toEqual([[0], [1]]);
    expect(after.bytes).toBe(12 * 1024);
    await runDurableObjectAlarm(stub);
    expect(queue.sent.map((m) => m.payload)).toContain(before.events[1]![1]);
    expect(await loggedEventTypes("receipt", receipt.id)).toEqual(["receipt.created", "receipt.paid"]);
  });
});

describe("a record a newer release stored, met after a rollback", () => {
  /** The record as a release one schema ahead of this one would leave it; `back` stands for that release serving again. */
  async function storedByNewerRelease(id: string, version = CURRENT_SCHEMA_VERSION + 1): Promise<void> {
    const stub = receiptStub(env, "receipt", id);
    await runInDurableObject(stub, (_i, state) => {
      state.storage.sql.exec("UPDATE record SET schema_version = ?", version);
    });
    await evictDurableObject(stub);
  }

  it("is refused by every operation with 503 not_ready and Retry-After, nothing sent upstream, never 500; served as it was once a release that reads it is back", async () => {
    const request = receiptRequest({ merchant_id: 1003 });
    const receipt = await expectStatus(call("receipt/create", request), 200);
    expect(await loggedEventTypes("receipt", receipt.id)).toEqual(["receipt.created"]);
    await storedByNewerRelease(receipt.id);
    const upstreamBefore = (await sandboxCalls()).length;

    const refusals = [
      call("receipt/check-id", { id: receipt.id }),
      call("receipt/create", request),
      call("receipt/check-tid", { tid: request.tid }),
      call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" } }),
      call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" } }, { headers: { "Idempotency-Key": "rollback-pay-1" } }),
      call("receipt/cancel", { id: receipt.id }),
      callGateway("events/list", { receipt_id: receipt.id }),
      callGateway("receipt/audit", { id: receipt.id }),
    ];
    for (const refusal of refusals) {
      const res = await refusal;
      const error = await expectError(res, 503, "not_ready");
      expect(error.message).toMatch(/stored by a newer release of the gateway/);
      expect(res.headers.get("retry-after")).toBe("60");
    }
    expect((await sandboxCalls()).slice(upstreamBefore).filter((c) => c.id === receipt.id || c.tid === request.tid)).toEqual([]);

    await storedByNewerRelease(receipt.id, CURRENT_SCHEMA_VERSION);
    expect((await expectStatus(call("receipt/check-id", { id: receipt.id }), 200)).state).toBe(0);
    const replay = await call("receipt/create", request);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect((await expectStatus(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" } }), 200)).state).toBe(4);
    expect(await loggedEventTypes("receipt", receipt.id)).toEqual(["receipt.created", "receipt.paid"]);
  });

  it("its alarm leaves it as it is and comes back, so the event it owes is sent once a release that reads it is back", async () => {
    const queue = queueSpy();
    queue.spy.mockRejectedValueOnce(new Error("queue unavailable"));
    const receipt = await createReceipt({ merchant_id: 1003 });
    await vi.waitFor(() => expect(queue.spy).toHaveBeenCalledTimes(1));
    const stub = receiptStub(env, "receipt", receipt.id);
    await storedByNewerRelease(receipt.id);

    await runDurableObjectAlarm(stub);
    expect(queue.sent).toEqual([]);
    expect(await alarmWithinADay(stub)).toBe(true);

    await storedByNewerRelease(receipt.id, CURRENT_SCHEMA_VERSION);
    await runDurableObjectAlarm(stub);
    expect(queue.sent.map((m) => JSON.parse(m.payload).type)).toEqual(["receipt.created"]);
  });
});

describe("schema 5: rule 14's watch of a receipt whose fiscal data is missing", () => {
  it("a receipt stored before it (schema 4) is put in its fiscal phase on its first open: paid with its fiscal sign missing, watched and listed; paid with it, or unpaid, not", async () => {
    const late = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/pay", { id: late.id, card: { token: "tok_sandbox_fiscal_late" } }), 200);
    const fiscalized = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/pay", { id: fiscalized.id, card: { token: "tok_sandbox_ok" } }), 200);
    const unpaid = await createReceipt({ merchant_id: 1003 });
    const ids = [late.id, fiscalized.id, unpaid.id];
    for (const id of ids) await runDurableObjectAlarm(receiptStub(env, "receipt", id));
    const fresh = await runInDurableObject(receiptStub(env, "receipt", unpaid.id), (_i, state) => describeSchema(state.storage.sql));
    // As schema 4 stored them, and the list as it was before rule 14: without them.
    for (const id of ids) {
      await runInDurableObject(receiptStub(env, "receipt", id), (_i, state) => {
        dropFiscalColumns(state.storage.sql);
        state.storage.sql.exec("UPDATE record SET schema_version = 4");
      });
      await evictDurableObject(receiptStub(env, "receipt", id));
    }
    await env.DB.prepare("DELETE FROM fiscal_pending WHERE id = ?1").bind(late.id).run();

    const opened = async (id: string) => {
      await expectStatus(call("receipt/check-id", { id }), 200);
      await vi.waitFor(async () => expect(await runDurableObjectAlarm(receiptStub(env, "receipt", id))).toBe(true));
      return runInDurableObject(receiptStub(env, "receipt", id), (_i, state) => ({
        schema: describeSchema(state.storage.sql),
        version: storedVersion(state.storage.sql),
        row: state.storage.sql.exec("SELECT fiscal, fiscal_since = updated_at AS since_last_change, fiscal_reads FROM record").one(),
      }));
    };
    const listedIds = async () => ((await env.DB.prepare("SELECT id FROM fiscal_pending").all<{ id: string }>()).results ?? []).map((row) => row.id);

    const migrated = await opened(late.id);
    expect(migrated).toMatchObject({ schema: fresh, version: CURRENT_SCHEMA_VERSION, row: { fiscal: "sale_pending", fiscal_reads: 0 } });
    expect(await listedIds()).toContain(late.id);
    expect((await opened(fiscalized.id)).row).toMatchObject({ fiscal: "sale" });
    expect((await opened(unpaid.id)).row).toMatchObject({ fiscal: null });
    expect(await listedIds()).not.toContain(fiscalized.id);
    expect(await listedIds()).not.toContain(unpaid.id);

    // Its watch goes on as any other: the data shows, a read stores it, the list lets it go.
    await letFiscalDataAppear(late.id);
    await expectStatus(call("receipt/check-id", { id: late.id }), 200);
    await runDurableObjectAlarm(receiptStub(env, "receipt", late.id));
    await vi.waitFor(async () => expect(await listedIds()).not.toContain(late.id));
  });
});
