// The receipt object's storage carries a schema version, and the framework
// that brings an object written by an earlier version to the current one the
// first time it is opened, in one transaction, losing nothing. A version-1
// object made here is brought through every step (rule 12's columns, then the
// outbox moved into the row), schema 3's move is tried on an object stored as
// before it, and the framework is exercised with migrations of the test's
// own, as the next schema change will use it. A row is stamped with the
// oldest schema that reads it, so the release before this one (the committed
// test/releases/previous/) serves what this one stores: what that release
// writes meanwhile is read right when this one opens it again.
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { storedEvents } from "../../src/record/outbox-rows";
import { receiptStub } from "../../src/record/receipt-object";
import { CURRENT_SCHEMA_VERSION, describeSchema, MIGRATIONS, migrate, OLDEST_READER_VERSION, storedVersion } from "../../src/record/schema";
import type { KindName } from "../../src/rules/kinds";
import { type FiscalPhase, fiscalEventOf, fiscalPhaseOf, isFiscalPending } from "../../src/rules/lifecycle";
import type { UpstreamState } from "../../src/upstream/calls";
import { callGateway, loggedEventTypes, queueSpy, unsentEvents } from "../events";
import {
  alarmWithinADay,
  call,
  createReceipt,
  eventually,
  expectError,
  expectStatus,
  letFiscalDataAppear,
  receiptRequest,
  sandboxCalls,
} from "../helpers";
import previousRelease from "../releases/previous/meta.json";
import { storedKeys } from "../support/keys-stored";

afterEach(() => vi.restoreAllMocks());

/**
 * The stamp of every release before this code's (schema 4's: 8d5a94c's, and 030096c's, which read schema 8 but
 * stamped 4): a row it stored or last changed is migrated from there on its first open, so every migration above
 * it still runs again on such a row and must be an expansion.
 */
const STAMP_BEFORE = 4;

/** Rule 14's columns (schema 5), the mark of this layout's writes (schema 7) and rule 11's keys in the row (schema 8): an object stored by an earlier gateway lacks them. */
function dropFiscalColumns(sql: SqlStorage): void {
  for (const column of ["fiscal", "fiscal_since", "fiscal_reads", "fiscal_listed", "written_at", "keys"])
    sql.exec(`ALTER TABLE record DROP COLUMN ${column}`);
}

describe("the receipt object's storage schema", () => {
  it("a new object is created at the current layout, stamped with the oldest schema that reads it: one the release before reads", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    const stored = await runInDurableObject(receiptStub(env, "receipt", receipt.id), (_i, state) => ({
      version: state.storage.sql.exec("SELECT schema_version FROM record").one().schema_version,
      schema: describeSchema(state.storage.sql),
    }));
    expect(stored.version).toBe(OLDEST_READER_VERSION);
    expect(stored.version).toBeLessThanOrEqual(previousRelease.record_schema_version);
    expect(stored.schema.record).toContain("fiscal TEXT");
  });

  it("the migration framework brings an object to a next version in one step, keeping its record: an expansion keeps the stamp the release before reads, an incompatible change stamps its own, which this gateway refuses", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" } }), 200);
    const next = CURRENT_SCHEMA_VERSION + 1;
    const migrations = { ...MIGRATIONS, [next]: ["ALTER TABLE record ADD COLUMN note_for_the_next_version TEXT NOT NULL DEFAULT 'kept'"] };
    const stub = receiptStub(env, "receipt", receipt.id);
    const moved = (stamp: number) =>
      runInDurableObject(stub, (_i, state) => {
        const from = storedVersion(state.storage.sql);
        const to = migrate(state.storage, false, from, migrations, next, stamp);
        const row = state.storage.sql.exec("SELECT state, schema_version, note_for_the_next_version FROM record").one();
        return { from, to, row, stored: storedVersion(state.storage.sql) };
      });
    // An expansion: the column added once, the stamp kept, and run again (the next open) it changes nothing.
    const expected = {
      from: OLDEST_READER_VERSION,
      to: next,
      row: { state: 4, schema_version: OLDEST_READER_VERSION, note_for_the_next_version: "kept" },
      stored: OLDEST_READER_VERSION,
    };
    expect(await moved(OLDEST_READER_VERSION)).toEqual(expected);
    expect(await moved(OLDEST_READER_VERSION)).toEqual(expected);
    // An incompatible change stamps its own version: this gateway does not read a schema newer than its own.
    expect((await moved(next)).stored).toBe(next);
    await expect(runInDurableObject(stub, (_i, state) => migrate(state.storage, false))).rejects.toThrow(/newer than this gateway/);
  });

  it("a migration that fails leaves the object as it was (one transaction)", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    const next = CURRENT_SCHEMA_VERSION + 1;
    const broken = { [next]: ["ALTER TABLE record ADD COLUMN half_done TEXT", "ALTER TABLE no_such_table ADD COLUMN x TEXT"] };
    const stub = receiptStub(env, "receipt", receipt.id);
    const schemaBefore = await runInDurableObject(stub, (_i, state) => describeSchema(state.storage.sql));
    await expect(
      runInDurableObject(stub, (_i, state) => migrate(state.storage, false, CURRENT_SCHEMA_VERSION, broken, next, next)),
    ).rejects.toThrow();
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
    expect(after).toEqual({ schema: freshSchema, row: { schema_version: OLDEST_READER_VERSION, held_since_last_change: 1, expiry: null } });
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
    queue.refuseOnce(new Error("queue unavailable"));
    await expectStatus(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" } }), 200);
    await eventually(() => expect(queue.pager).toHaveBeenCalledTimes(2));
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
    await eventually(() => expect(queue.sent.map((m) => JSON.parse(m.payload).type)).toContain("receipt.paid"));
    const after = await runInDurableObject(stub, (_i, state) => ({
      schema: describeSchema(state.storage.sql),
      version: storedVersion(state.storage.sql),
      events: storedEvents(
        state.storage.sql.exec<{ events: string; body: string; answer: string | null }>("SELECT events, body, answer FROM record").one(),
      ),
    }));
    expect(after).toEqual({ schema: fresh, version: OLDEST_READER_VERSION, events: bodies });
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
    queue.refuseOnce(new Error("queue unavailable"));
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
    expect(after.version).toBe(OLDEST_READER_VERSION);
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
    queue.refuseOnce(new Error("queue unavailable"));
    const receipt = await createReceipt({ merchant_id: 1003 });
    await eventually(() => expect(queue.pager).toHaveBeenCalledTimes(1));
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
      await eventually(async () => expect(await runDurableObjectAlarm(receiptStub(env, "receipt", id))).toBe(true));
      return runInDurableObject(receiptStub(env, "receipt", id), (_i, state) => ({
        schema: describeSchema(state.storage.sql),
        version: storedVersion(state.storage.sql),
        row: state.storage.sql.exec("SELECT fiscal, fiscal_since = updated_at AS since_last_change, fiscal_reads FROM record").one(),
      }));
    };
    const listedIds = async () => ((await env.DB.prepare("SELECT id FROM fiscal_pending").all<{ id: string }>()).results ?? []).map((row) => row.id);

    const migrated = await opened(late.id);
    expect(migrated).toMatchObject({ schema: fresh, version: OLDEST_READER_VERSION, row: { fiscal: "sale_pending", fiscal_reads: 0 } });
    expect(await listedIds()).toContain(late.id);
    expect((await opened(fiscalized.id)).row).toMatchObject({ fiscal: "sale" });
    expect((await opened(unpaid.id)).row).toMatchObject({ fiscal: null });
    expect(await listedIds()).not.toContain(fiscalized.id);
    expect(await listedIds()).not.toContain(unpaid.id);

    // Its watch goes on as any other: the data shows, a read stores it, the list lets it go.
    await letFiscalDataAppear(late.id);
    await expectStatus(call("receipt/check-id", { id: late.id }), 200);
    await runDurableObjectAlarm(receiptStub(env, "receipt", late.id));
    await eventually(async () => expect(await listedIds()).not.toContain(late.id));
  });
});

describe("expand, then contract: the release before serves what this one stores, and what it writes meanwhile is read right", () => {
  /** The fiscal columns as they stood, put back: the previous release changes a receipt and leaves them alone. */
  type FiscalColumns = { fiscal: string | null; fiscal_since: number; fiscal_reads: number; fiscal_listed: number };
  const fiscalColumns = (id: string) =>
    runInDurableObject(receiptStub(env, "receipt", id), (_i, state) =>
      state.storage.sql
        .exec<FiscalColumns & { updated_at: number }>("SELECT fiscal, fiscal_since, fiscal_reads, fiscal_listed, updated_at FROM record")
        .one(),
    );
  async function writtenByThePreviousRelease(id: string, before: FiscalColumns): Promise<void> {
    const stub = receiptStub(env, "receipt", id);
    await runInDurableObject(stub, (_i, state) => {
      // Schema 4's release (8d5a94c), on a row stamped as it reads it (one a later release stored before this code's):
      // its change moves updated_at, as every change of that release does, and leaves written_at (unknown to it) behind.
      state.storage.sql.exec(
        `UPDATE record SET fiscal = ?, fiscal_since = ?, fiscal_reads = ?, fiscal_listed = ?, updated_at = updated_at + 1, schema_version = ${STAMP_BEFORE}`,
        before.fiscal,
        before.fiscal_since,
        before.fiscal_reads,
        before.fiscal_listed,
      );
    });
    // Nor does it write the fiscal list.
    await env.DB.prepare("DELETE FROM fiscal_pending WHERE id = ?1").bind(id).run();
    await evictDurableObject(stub);
  }
  const listing = (id: string) => env.DB.prepare("SELECT state, since, reads FROM fiscal_pending WHERE id = ?1").bind(id).first();
  /** The record opened without a look at the upstream (events/list by its id), then its alarm. */
  async function openedAndWoken(id: string): Promise<void> {
    await expectStatus(callGateway("events/list", { receipt_id: id }), 200);
    expect(await runDurableObjectAlarm(receiptStub(env, "receipt", id))).toBe(true);
  }

  it("a receipt the previous release paid (its fiscal data missing) after this code had expanded its row is put in its fiscal phase at the next open: watched from its payment, and listed", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    const created = await fiscalColumns(receipt.id);
    expect(created).toMatchObject({ fiscal: null, fiscal_listed: 1 });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_fiscal_late" } }), 200);
    await writtenByThePreviousRelease(receipt.id, created);

    await openedAndWoken(receipt.id);
    const after = await fiscalColumns(receipt.id);
    expect(after).toMatchObject({ fiscal: "sale_pending", fiscal_since: after.updated_at, fiscal_reads: 0 });
    expect(await listing(receipt.id)).toEqual({ state: 4, since: after.updated_at, reads: 0 });
    expect(await loggedEventTypes("receipt", receipt.id)).toEqual(["receipt.created", "receipt.paid"]);

    // The watch goes on as any other: the data shows, a read stores it with its event, the list lets it go.
    await letFiscalDataAppear(receipt.id);
    await expectStatus(call("receipt/check-id", { id: receipt.id }), 200);
    await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
    await eventually(async () => expect(await listing(receipt.id)).toBeNull());
    expect(await loggedEventTypes("receipt", receipt.id)).toEqual(["receipt.created", "receipt.paid", "receipt.fiscalized"]);
  });

  it("a fiscalized receipt the previous release refunded (the refund's fiscal data missing) is put in its refund's watch at the next open, and listed as cancelled", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_fiscal_late" } }), 200);
    await letFiscalDataAppear(receipt.id);
    await expectStatus(call("receipt/check-id", { id: receipt.id }), 200);
    await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
    await eventually(async () => expect(await listing(receipt.id)).toBeNull());
    const sold = await fiscalColumns(receipt.id);
    expect(sold.fiscal).toBe("sale");
    await expectStatus(call("receipt/cancel", { id: receipt.id }), 200);
    await writtenByThePreviousRelease(receipt.id, sold);

    await openedAndWoken(receipt.id);
    const after = await fiscalColumns(receipt.id);
    expect(after).toMatchObject({ fiscal: "refund_pending", fiscal_since: after.updated_at, fiscal_reads: 0 });
    expect(await listing(receipt.id)).toEqual({ state: 21, since: after.updated_at, reads: 0 });
  });

  it("a record whose keys are in its row is stamped 8: schema 4's release, which reads keys from a table only, refuses it rather than serve it with its keys lost", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await expectStatus(
      call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" } }, { headers: { "Idempotency-Key": `key-${crypto.randomUUID()}` } }),
      200,
    );
    const stored = await runInDurableObject(receiptStub(env, "receipt", receipt.id), (_i, state) => ({
      version: storedVersion(state.storage.sql),
      keys: state.storage.sql.exec<{ keys: string | null }>("SELECT keys FROM record").one().keys,
    }));
    expect(stored.keys).not.toBeNull();
    expect(stored.version).toBeGreaterThan(STAMP_BEFORE);
    expect(stored.version).toBeLessThanOrEqual(previousRelease.record_schema_version);
  });

  it("a record whose kept answers are parts of its row's texts is stamped 9: schema 8's release, which reads an answer as text only, refuses it rather than replay its parts", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await expectStatus(
      call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" } }, { headers: { "Idempotency-Key": `key-${crypto.randomUUID()}` } }),
      200,
    );
    const stored = await storedKeys(receipt.id);
    expect(stored.entries.map((entry) => Array.isArray(entry[6]))).toEqual([true]);
    expect(stored.stamp).toBeGreaterThan(8);
    expect(stored.stamp).toBeLessThanOrEqual(previousRelease.record_schema_version);
  });

  it("a row schema 7's code wrote (its written_at agrees, no keys column) is brought to this layout on its first open, and a keyed pay on it is kept and replayed", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    const stub = receiptStub(env, "receipt", receipt.id);
    await runInDurableObject(stub, (_i, state) => {
      state.storage.sql.exec("ALTER TABLE record DROP COLUMN keys");
      state.storage.sql.exec("UPDATE record SET schema_version = ?", STAMP_BEFORE);
      expect(state.storage.sql.exec("SELECT written_at = updated_at AS agrees FROM record").one().agrees).toBe(1);
    });
    await evictDurableObject(stub);
    const k = `key-${crypto.randomUUID()}`;
    const pay = () => call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" } }, { headers: { "Idempotency-Key": k } });
    const first = await expectStatus(pay(), 200);
    const again = await pay();
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await expectStatus(again, 200)).toEqual(first);
    const schema = await runInDurableObject(stub, (_i, state) => describeSchema(state.storage.sql));
    expect(schema.record).toContain("keys TEXT");
  });

  it("opening a record again runs the expansion again and changes nothing: no column added twice, no watch restarted", async () => {
    const pending = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/pay", { id: pending.id, card: { token: "tok_sandbox_fiscal_late" } }), 200);
    // A watch under way: begun before the row's last change, two of its reads done. Restarted, it would begin again.
    await runInDurableObject(receiptStub(env, "receipt", pending.id), (_i, state) => {
      state.storage.sql.exec("UPDATE record SET fiscal_since = fiscal_since - 60000, fiscal_reads = 2");
    });
    await evictDurableObject(receiptStub(env, "receipt", pending.id));
    const transfer = await expectStatus(
      call("a2c/create", {
        tid: `t-${crypto.randomUUID()}`,
        amount: 500_000,
        rate_id: 1,
        receiver_card: "9860000000000018",
        token: "tok_sandbox_ok",
      }),
      200,
    );
    for (const [kind, id] of [
      ["receipt", pending.id],
      ["transfer", transfer.receipt_id],
    ] as const) {
      const stub = receiptStub(env, kind, id);
      await runDurableObjectAlarm(stub);
      const runs = await runInDurableObject(stub, (_i, state) => {
        const sql = state.storage.sql;
        const snapshot = () => ({ schema: describeSchema(sql), row: sql.exec("SELECT * FROM record").one(), version: storedVersion(sql) });
        const before = snapshot();
        migrate(state.storage, false, STAMP_BEFORE);
        const once = snapshot();
        migrate(state.storage, false, STAMP_BEFORE);
        const twice = snapshot();
        // Nor is the row written: each derivation run again changes no row.
        let written = 0;
        for (const statement of MIGRATIONS[CURRENT_SCHEMA_VERSION]!.filter((s) => /^\s*UPDATE\b/i.test(s))) {
          const cursor = sql.exec(statement);
          cursor.toArray();
          written += cursor.rowsWritten;
        }
        return { before, once, twice, written };
      });
      expect(runs.once).toEqual(runs.before);
      expect(runs.twice).toEqual(runs.before);
      expect(runs.written).toBe(0);
      expect(runs.before.version).toBe(OLDEST_READER_VERSION);
      // Through the object as well: evicted, opened, and its row as it was.
      await evictDurableObject(stub);
      await expectStatus(callGateway("events/list", { receipt_id: id }), 200);
      expect(await runInDurableObject(stub, (_i, state) => state.storage.sql.exec("SELECT * FROM record").one())).toEqual(runs.before.row);
    }
    expect(await fiscalColumns(pending.id)).toMatchObject({ fiscal: "sale_pending", fiscal_reads: 2 });
  });

  it("every migration above schema 4's stamp (run again on rows the releases before stored) is an expansion: it adds columns (nullable or with a default) and derives into them, and leaves every column the release before reads as it was", async () => {
    for (let version = STAMP_BEFORE + 1; version <= CURRENT_SCHEMA_VERSION; version++) {
      for (const statement of MIGRATIONS[version]!) {
        const adds = /^\s*ALTER\s+TABLE\s+record\s+ADD\s+COLUMN\s+\w+\s+(.*)$/is.exec(statement);
        if (adds) expect(/\bNOT\s+NULL\b/i.test(adds[1]!) && !/\bDEFAULT\b/i.test(adds[1]!), statement).toBe(false);
        else expect(statement, "only ADD COLUMN and UPDATE").toMatch(/^\s*UPDATE\s+record\s+SET\b/i);
        expect(statement).not.toMatch(/\b(DROP|RENAME|DELETE|INSERT|CREATE)\b/i);
      }
    }
    // On records in every phase stored as the release before stores them: its columns unchanged by the migrations above.
    const paidLate = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/pay", { id: paidLate.id, card: { token: "tok_sandbox_fiscal_late" } }), 200);
    const paid = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/pay", { id: paid.id, card: { token: "tok_sandbox_ok" } }), 200);
    await expectStatus(call("receipt/cancel", { id: paid.id }), 200);
    const created = await createReceipt({ merchant_id: 1003, is_hold: true });
    for (const id of [paidLate.id, paid.id, created.id]) {
      const added = await runInDurableObject(receiptStub(env, "receipt", id), (_i, state) => {
        const sql = state.storage.sql;
        dropFiscalColumns(sql);
        const before = sql.exec("SELECT * FROM record").one();
        migrate(state.storage, false, STAMP_BEFORE);
        const after = sql.exec("SELECT * FROM record").one();
        return { before, after };
      });
      expect(added.after).toMatchObject(added.before);
      expect(Object.keys(added.after).filter((column) => !(column in added.before))).toEqual([
        "fiscal",
        "fiscal_since",
        "fiscal_reads",
        "fiscal_listed",
        "written_at",
        "keys",
      ]);
      // Marked as this code's once brought up: the next open need not run the expansions again.
      expect(added.after.written_at).toBe(added.after.updated_at);
    }
  });

  it("the fiscal phase derived in SQL is lifecycle's fiscalPhaseOf from the phase stored, as the recorder applies it; a pending phase whose data the row shows waits for this code's next look (its event)", async () => {
    const pending = (phase: FiscalPhase | null) => isFiscalPending(phase);
    // Every combination: what each of the fiscal sign and QR address may be (missing, empty, blank as JavaScript
    // trims it, filled, not text), the ofd's type, what else an ofd may be; each kind, state and stored phase.
    const texts = [undefined, "", " \t\u00a0\u3000", "sign-1", 5];
    const ofds: unknown[] = [undefined, null, [], "ofd"];
    for (const fiscalSign of texts)
      for (const qrCodeUrl of texts) for (const type of [undefined, "Sale", "Refund"]) ofds.push({ fiscalSign, qrCodeUrl, type });
    const phases: (FiscalPhase | null)[] = [null, "sale_pending", "sale", "refund_pending", "refund"];
    const derivations = MIGRATIONS[5]!.filter((statement) => /^\s*UPDATE\b/i.test(statement));
    // A scratch object: never a record's.
    const wrong = await runInDurableObject(receiptStub(env, "receipt", `scratch-${crypto.randomUUID()}`), async (_i, state) => {
      const sql = state.storage.sql;
      sql.exec(
        "CREATE TABLE record (kind TEXT NOT NULL, state INTEGER NOT NULL, body TEXT NOT NULL, fiscal TEXT, fiscal_since INTEGER NOT NULL, fiscal_reads INTEGER NOT NULL, fiscal_listed INTEGER NOT NULL, updated_at INTEGER NOT NULL)",
      );
      const found: unknown[] = [];
      for (const kind of ["receipt", "transfer"] as KindName[])
        for (const upstreamState of [0, 4, 5, 21, 57] as UpstreamState[])
          for (const ofd of ofds)
            for (const fiscal of phases)
              for (const fiscal_listed of [0, 1]) {
                const stored = { fiscal, fiscal_since: 1_000, fiscal_reads: 2, fiscal_listed };
                const updatedAt = 7_000;
                const body = JSON.stringify({ id: "r", state: upstreamState, ...(ofd === undefined ? {} : { ofd }) });
                sql.exec("DELETE FROM record");
                sql.exec("INSERT INTO record VALUES (?, ?, ?, ?, ?, ?, ?, ?)", kind, upstreamState, body, fiscal, 1_000, 2, fiscal_listed, updatedAt);
                for (const statement of derivations) sql.exec(statement);
                const got = sql.exec("SELECT fiscal, fiscal_since, fiscal_reads, fiscal_listed FROM record").one();
                const after = fiscalPhaseOf({ kind, state: upstreamState, ofd, before: fiscal });
                // A transfer's row is never touched (the payment service does not fiscalize transfers).
                const expected =
                  kind !== "receipt" || after === fiscal || fiscalEventOf(kind, fiscal, after) !== null
                    ? stored
                    : {
                        fiscal: after,
                        fiscal_since: pending(after) ? updatedAt : stored.fiscal_since,
                        fiscal_reads: pending(after) ? 0 : stored.fiscal_reads,
                        fiscal_listed: pending(after) || pending(fiscal) ? 0 : fiscal_listed,
                      };
                if (JSON.stringify(got) !== JSON.stringify(expected)) found.push({ kind, state: upstreamState, body, stored, got, expected });
              }
      await state.storage.deleteAll();
      return found;
    });
    expect(wrong.slice(0, 3)).toEqual([]);
  });
});
