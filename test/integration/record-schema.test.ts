// The receipt object's storage carries a schema version, and the framework
// that brings an object written by an earlier version to the current one the
// first time it is opened, in one transaction, losing nothing. Version 2
// (rule 12's columns) is migrated from a version-1 object made here, and the
// framework is exercised with a migration of the test's own, as the next
// schema change will use it.
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { receiptStub } from "../../src/receipt-object";
import { CURRENT_SCHEMA_VERSION, describeSchema, migrate, storedVersion } from "../../src/record/schema";
import { call, createReceipt, expectStatus } from "../helpers";

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

  it("an object of schema 1 is brought to 2 (rule 12's columns) as a new object makes it, and a held record's hold counts from its last change", async () => {
    const fresh = await createReceipt({ merchant_id: 1003 });
    const freshSchema = await runInDurableObject(receiptStub(env, "receipt", fresh.id), (_i, state) => describeSchema(state.storage.sql));
    const receipt = await createReceipt({ merchant_id: 1003, is_hold: true });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" } }), 200);
    const stub = receiptStub(env, "receipt", receipt.id);
    // The record as schema 1 stored it: without the columns schema 2 added.
    await runInDurableObject(stub, (_i, state) => {
      state.storage.sql.exec("ALTER TABLE record DROP COLUMN held_at");
      state.storage.sql.exec("ALTER TABLE record DROP COLUMN expiry");
      state.storage.sql.exec("UPDATE record SET schema_version = 1");
    });
    await evictDurableObject(stub);
    expect((await expectStatus(call("receipt/check-id", { id: receipt.id }), 200)).state).toBe(5);
    const after = await runInDurableObject(stub, (_i, state) => ({
      schema: describeSchema(state.storage.sql),
      row: state.storage.sql.exec("SELECT schema_version, held_at = updated_at AS held_since_last_change, expiry FROM record").one(),
    }));
    expect(CURRENT_SCHEMA_VERSION).toBe(2);
    expect(after).toEqual({ schema: freshSchema, row: { schema_version: 2, held_since_last_change: 1, expiry: null } });
  });
});
