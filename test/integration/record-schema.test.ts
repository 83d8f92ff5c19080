// The receipt object's storage carries a schema version: an object written by
// the first gateway (schema 1, flags for an unknown outcome) is migrated the
// first time the new gateway opens it, and nothing it stored is lost.
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { receiptStub } from "../../src/receipt-object";
import { CURRENT_SCHEMA_VERSION, describeSchema } from "../../src/record/schema";
import { call, createReceipt, expectStatus, sandboxCalls, sandboxReceipt } from "../helpers";

/** Rewrites a fresh object's storage into what the first gateway left: schema 1, an unknown outcome flagged. */
async function asWrittenBySchema1(id: string, flags: { otp_in_flight: number; needs_reconcile: number }) {
  await runInDurableObject(receiptStub(env, "receipt", id), (_instance, state) => {
    const sql = state.storage.sql;
    // The first gateway set no alarms.
    state.storage.deleteAlarm();
    const row = sql.exec("SELECT * FROM record").one() as Record<string, SqlStorageValue>;
    for (const table of ["record", "outbox"]) sql.exec(`DROP TABLE ${table}`);
    sql.exec(`CREATE TABLE record (
      singleton INTEGER PRIMARY KEY CHECK (singleton = 1), kind TEXT NOT NULL, id TEXT NOT NULL, tid TEXT NOT NULL,
      owner TEXT NOT NULL, is_hold INTEGER NOT NULL, qr_merchant INTEGER NOT NULL, is_verify INTEGER NOT NULL,
      state INTEGER NOT NULL, body TEXT NOT NULL, otp_failures INTEGER NOT NULL DEFAULT 0,
      otp_in_flight INTEGER NOT NULL DEFAULT 0, needs_reconcile INTEGER NOT NULL DEFAULT 0,
      otp_sends INTEGER NOT NULL DEFAULT 0, last_otp_sent_at INTEGER NOT NULL DEFAULT 0,
      resend_wait_ms INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)`);
    sql.exec(`CREATE TABLE audit (seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, op TEXT NOT NULL,
      actor TEXT NOT NULL, request_id TEXT NOT NULL, outcome TEXT NOT NULL, state INTEGER, detail TEXT)`);
    sql.exec(
      `INSERT INTO record (singleton, kind, id, tid, owner, is_hold, qr_merchant, is_verify, state, body, otp_failures,
         otp_in_flight, needs_reconcile, created_at, updated_at) VALUES (1, 'receipt', ?, ?, ?, 0, 0, ?, 0, ?, 1, ?, ?, ?, ?)`,
      row.id!,
      row.tid!,
      row.owner!,
      row.is_verify!,
      row.body!,
      flags.otp_in_flight,
      flags.needs_reconcile,
      row.created_at!,
      row.created_at!,
    );
    sql.exec("INSERT INTO audit (at, op, actor, request_id, outcome, state) VALUES (1, 'create', 'partner:partner', 'old', 'ok', 0)");
  });
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

  it("an object of schema 1 whose last pay had an unknown outcome is migrated, reconciled and keeps its history", async () => {
    const receipt = await createReceipt({ merchant_id: 1001 });
    // The first gateway sent a right OTP, the upstream paid, and the answer was lost: it flagged both.
    await expectStatus(call("receipt/authorize", { id: receipt.id, card: { token: "tok_sandbox_ok" } }), 200);
    await expectStatus(
      env.UPSTREAM!.fetch("https://sandbox.upstream.invalid/api/v1/partner/receipt/pay", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${env.UPSTREAM_API_KEY}` },
        body: JSON.stringify({ id: receipt.id, card: { token: "tok_sandbox_ok" }, otp: "111111" }),
      }),
      200,
    );
    await asWrittenBySchema1(receipt.id, { otp_in_flight: 1, needs_reconcile: 1 });

    // The new gateway's first touch migrates; the alarm reconciles with no caller.
    const stub = receiptStub(env, "receipt", receipt.id);
    await evictDurableObject(stub);
    await stub.auditTrail();
    await runInDurableObject(stub, (_i, state) => state.storage.setAlarm(Date.now()));
    expect(await runDurableObjectAlarm(stub)).toBe(true);

    const stored = await runInDurableObject(stub, (_i, state) => ({
      row: state.storage.sql.exec("SELECT state, wrong_otps, unconfirmed_otps, pending_op, upstream_tid, tid FROM record").one(),
      version: state.storage.sql.exec("SELECT schema_version FROM record").one().schema_version,
      tables: state.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('audit', 'meta')").toArray(),
    }));
    const audit = (await stub.auditTrail())!.entries.map(({ op, request_id }) => ({ op, request_id }));
    expect(stored.version).toBe(CURRENT_SCHEMA_VERSION);
    // Paid upstream: the OTP in flight was accepted, the one wrong OTP of schema 1 is kept as wrong.
    expect(stored.row).toMatchObject({ state: 4, wrong_otps: 1, unconfirmed_otps: 0, pending_op: null, upstream_tid: receipt.tid });
    expect(audit[0]).toEqual({ op: "create", request_id: "old" });
    // Schema 6 keeps the audit trail in the row and the version with it: the old tables are gone.
    expect(stored.tables).toEqual([]);
    // The migrations arrive at exactly the schema a new object is created with.
    const fresh = await createReceipt({ merchant_id: 1003 });
    const schemaOf = (id: string) => runInDurableObject(receiptStub(env, "receipt", id), (_i, state) => describeSchema(state.storage.sql));
    expect(await schemaOf(receipt.id)).toEqual(await schemaOf(fresh.id));
    expect((await sandboxReceipt(receipt.id)).state).toBe(4);
    // A user's cancel of the paid receipt is refused.
    expect((await expectStatus(call("receipt/check-id", { id: receipt.id }), 200)).state).toBe(4);
  });
  it("an object of schema 6 (before the kept answer and the kept events) wakes, is migrated and answers as before", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" } }), 200);
    const stub = receiptStub(env, "receipt", receipt.id);
    // What the gateway before record schema 7 left: no answer, no owed completion, an outbox without logged_at.
    await runInDurableObject(stub, (_i, state) => {
      const sql = state.storage.sql;
      sql.exec("ALTER TABLE record DROP COLUMN answer");
      sql.exec("ALTER TABLE record DROP COLUMN owed_completion");
      sql.exec("ALTER TABLE outbox DROP COLUMN logged_at");
      sql.exec("ALTER TABLE record DROP COLUMN pending_actor");
      sql.exec("UPDATE record SET schema_version = 6");
    });
    await evictDurableObject(stub);

    // Woken by an operation: its first read of the row cannot be the current one's, and the migration takes over.
    expect((await expectStatus(call("receipt/check-id", { id: receipt.id }), 200)).state).toBe(4);
    const version = await runInDurableObject(stub, (_i, state) => state.storage.sql.exec("SELECT schema_version FROM record").one().schema_version);
    expect(version).toBe(CURRENT_SCHEMA_VERSION);
    const fresh = await createReceipt({ merchant_id: 1003 });
    const schemaOf = (id: string) => runInDurableObject(receiptStub(env, "receipt", id), (_i, state) => describeSchema(state.storage.sql));
    expect(await schemaOf(receipt.id)).toEqual(await schemaOf(fresh.id));
  });

  it("an object of schema 7 with a lost cancel (its note names no one) wakes, is migrated, and the cancel is decided as a user's: a receipt paid meanwhile is not refunded", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    // Paid upstream; the object still shows it unpaid, with a cancel noted whose answer was lost, as the gateway before schema 8 wrote it.
    await expectStatus(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" } }), 200);
    const stub = receiptStub(env, "receipt", receipt.id);
    await runDurableObjectAlarm(stub);
    await runInDurableObject(stub, (_i, state) => {
      const sql = state.storage.sql;
      sql.exec("ALTER TABLE record DROP COLUMN pending_actor");
      sql.exec(
        "UPDATE record SET schema_version = 7, state = 0, pending_op = 'cancel', pending_since = ?, pending_request_id = 'old'",
        Date.now() - 60_000,
      );
    });
    await evictDurableObject(stub);
    await runInDurableObject(stub, (_i, state) => state.storage.setAlarm(Date.now()));
    expect(await runDurableObjectAlarm(stub)).toBe(true);

    const stored = await runInDurableObject(stub, (_i, state) =>
      state.storage.sql.exec("SELECT state, pending_op, schema_version FROM record").one(),
    );
    expect(stored).toEqual({ state: 4, pending_op: null, schema_version: CURRENT_SCHEMA_VERSION });
    expect((await sandboxReceipt(receipt.id)).state).toBe(4);
    expect((await sandboxCalls()).filter((c) => c.id === receipt.id && c.path === "receipt/cancel")).toEqual([]);
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
});
