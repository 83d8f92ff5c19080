/**
 * A replay is answered by the record's object (the tid row
 * keeps no answer), a create answers after one D1 round trip and its tid row
 * is completed after the answer (by the request, or owed by the record's
 * object and completed by its alarm), and the rows and answers written
 * before migrations/0008 keep working.
 */
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { receiptStub } from "../../src/receipt-object";
import { forgetTid } from "../../src/tid-cache";
import { call, expectError, expectStatus, receiptRequest, refuseStatements, tidDb, tidRow } from "../helpers";

const PARTNER = "partner:partner";

afterEach(() => vi.restoreAllMocks());

/** The record as one made before schema 7 is: no answer of its own (its next incarnation reads the row again). */
async function forgetAnswer(id: string): Promise<void> {
  const stub = receiptStub(env, "receipt", id);
  await runInDurableObject(stub, (_i, state) => state.storage.sql.exec("UPDATE record SET answer = NULL"));
  await evictDurableObject(stub);
}

describe("a replay", () => {
  it("is the create's answer exactly as it was given, though the record has moved on since", async () => {
    const request = receiptRequest({ merchant_id: 1003 });
    const created = await expectStatus(call("receipt/create", request), 200);
    expect((await expectStatus(call("receipt/pay", { id: created.id, card: { token: "tok_sandbox_ok" } }), 200)).state).toBe(4);

    const retry = await call("receipt/create", request);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await expectStatus(retry, 200)).toEqual(created);
  });

  it("of a create answered before migration 0008 comes from the legacy table while the record keeps no answer", async () => {
    const request = receiptRequest();
    const created = await expectStatus(call("receipt/create", request), 200);
    // As a record made before schema 7 is: no answer of its own; its answer kept in tid_answers_legacy by 0008.
    await forgetAnswer(created.id);
    // ...and one no data center remembers (src/tid-cache.ts came with it).
    await forgetTid(PARTNER, request.tid);
    const legacy = { ...created, description: "as answered before" };
    await (await tidDb(PARTNER, request.tid))
      .prepare("INSERT INTO tid_answers_legacy (owner, tid, response, answered_at) VALUES (?1, ?2, ?3, ?4)")
      .bind(PARTNER, request.tid, JSON.stringify(legacy), Date.now())
      .run();

    const retry = await call("receipt/create", request);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await expectStatus(retry, 200)).toEqual(legacy);
  });

  it("with no answer kept anywhere names the receipt instead (409), never a 500", async () => {
    const request = receiptRequest();
    const created = await expectStatus(call("receipt/create", request), 200);
    await forgetAnswer(created.id);
    const error = await expectError(call("receipt/create", request), 409, "tid_conflict");
    expect(error.message).toContain(created.id);
  });
});

describe("the completion of the tid row, after the answer", () => {
  it("when the request's own completion fails, the record's alarm completes it; until then a retry and check-tid are tid_in_progress", async () => {
    // D1 refuses the request's completion (the UPDATE that completes a row).
    refuseStatements((sql) => sql.startsWith("UPDATE tid_index SET status = 1"));
    const request = receiptRequest();
    const created = await expectStatus(call("receipt/create", request), 200);
    expect(await tidRow(PARTNER, request.tid)).toMatchObject({ status: "pending", receipt_id: null });
    const retry = await call("receipt/create", request);
    await expectError(retry.clone(), 409, "tid_in_progress");
    expect(Number(retry.headers.get("retry-after"))).toBeGreaterThan(0);
    await expectError(call("receipt/check-tid", { tid: request.tid }), 409, "tid_in_progress");
    vi.restoreAllMocks();

    // The record owes it: its alarm completes the row, with the time of the answer.
    const stub = receiptStub(env, "receipt", created.id);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const row = await tidRow(PARTNER, request.tid);
    expect(row).toMatchObject({ status: "completed", receipt_id: created.id, claim_token: null });
    expect(row!.updated_at).toBeLessThanOrEqual(Date.now());
    const replay = await call("receipt/create", request);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await expectStatus(replay, 200)).toEqual(created);
    expect((await expectStatus(call("receipt/check-tid", { tid: request.tid }), 200)).id).toBe(created.id);
    // And then forgets it: the next alarm has nothing to complete.
    expect(await runInDurableObject(stub, (_i, state) => state.storage.sql.exec("SELECT owed_completion FROM record").one())).toEqual({
      owed_completion: null,
    });
  });
});

describe("migration 0008", () => {
  it("copies every row of the earlier index, slim, and moves the answers kept into tid_answers_legacy", async () => {
    // The migrations up to 0007 in a scratch SQLite (a Durable Object's), rows as 0007's gateway wrote them, then 0008.
    const migrations = env.TEST_MIGRATIONS;
    const scratch = receiptStub(env, "receipt", `migration-${crypto.randomUUID()}`);
    const result = await runInDurableObject(scratch, (_i, state) => {
      const sql = state.storage.sql;
      const run = (name: string) => {
        for (const query of migrations.find((m) => m.name.startsWith(name))!.queries) sql.exec(query);
      };
      for (const name of ["0001", "0002", "0003", "0004", "0005", "0006", "0007"]) run(name);
      const fp = "ab".repeat(32);
      const derived = "0a1b2c3d-4e5f-8a6b-9c7d-0e1f2a3b4c5d";
      const insert = `INSERT INTO tid_index (owner, tid, upstream_tid, kind, fingerprint, status, claim_token, receipt_id, response, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
      sql.exec(insert, "partner:partner", "p-1", "p-1", "receipt", fp, "completed", "tok", "r-1", '{"id":"r-1"}', 10, 20);
      sql.exec(insert, "user:u", "u-1", derived, "transfer", fp, "completed", "", "r-2", null, 11, 21);
      sql.exec(insert, "partner:partner", "p-2", "p-2", "receipt", fp, "pending", "tok-2", null, null, 12, 22);
      sql.exec(insert, "partner:partner", "p-3", "p-3", "receipt", fp, "pending", "moved", null, null, 13, Number.MAX_SAFE_INTEGER);
      run("0008");
      return {
        rows: sql
          .exec(
            "SELECT owner, tid, CASE WHEN upstream_tid IS NULL THEN NULL ELSE lower(hex(upstream_tid)) END AS up, kind, status, lower(hex(fingerprint)) AS fp, claim_token, receipt_id, created_at, updated_at FROM tid_index ORDER BY created_at",
          )
          .toArray(),
        legacy: sql.exec("SELECT owner, tid, response, answered_at FROM tid_answers_legacy").toArray(),
      };
    });
    const fp = "ab".repeat(16);
    expect(result.rows).toEqual([
      {
        owner: "partner:partner",
        tid: "p-1",
        up: null,
        kind: 0,
        status: 1,
        fp,
        claim_token: null,
        receipt_id: "r-1",
        created_at: 10,
        updated_at: 20,
      },
      {
        owner: "user:u",
        tid: "u-1",
        up: "0a1b2c3d4e5f8a6b9c7d0e1f2a3b4c5d",
        kind: 1,
        status: 1,
        fp,
        claim_token: null,
        receipt_id: "r-2",
        created_at: 11,
        updated_at: 21,
      },
      {
        owner: "partner:partner",
        tid: "p-2",
        up: null,
        kind: 0,
        status: 0,
        fp,
        claim_token: "tok-2",
        receipt_id: null,
        created_at: 12,
        updated_at: 22,
      },
      {
        owner: "partner:partner",
        tid: "p-3",
        up: null,
        kind: 0,
        status: 0,
        fp,
        claim_token: "moved",
        receipt_id: null,
        created_at: 13,
        updated_at: Number.MAX_SAFE_INTEGER,
      },
    ]);
    expect(result.legacy).toEqual([{ owner: "partner:partner", tid: "p-1", response: '{"id":"r-1"}', answered_at: 20 }]);
  });
});
