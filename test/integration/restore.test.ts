/**
 * The operator's point-in-time restore of a record (src/operations/restore.ts,
 * src/record/restore.ts; docs/production.md, "Backups and restore").
 *
 * The path exists only while RESTORE_KEY_HASH is set, and answers only the
 * restore key. workerd, locally, has no point-in-time recovery: its storage
 * answers getBookmarkForTime and onNextSessionRestoreBookmark with "This
 * Durable Object's storage back-end does not implement point-in-time
 * recovery.", so here the restore is refused with 503 not_ready naming that,
 * and nothing is scheduled. What the restarted object does with a restored
 * storage (step 2) is tested on a record whose row is put back by hand to an
 * earlier copy of itself, as the platform's restore would leave it.
 */
import { createExecutionContext, runDurableObjectAlarm, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import { RESTORE_PATH } from "../../src/operations/restore";
import { type RestoreNote, receiptStub } from "../../src/record/receipt-object";
import type { RecordRow } from "../../src/record/store";
import { clock } from "../../src/shared/clock";
import { callGateway, fireCron } from "../events";
import {
  call,
  createReceipt,
  DAY_MS,
  dumpStorage,
  expectError,
  expectStatus,
  letOtpWaitPass,
  letTimePass,
  newUser,
  PARTNER_KEY,
  sandboxCalls,
  sha256Hex,
  userToken,
} from "../helpers";

afterEach(() => vi.restoreAllMocks());

const RESTORE_KEY = "rk_test_restore_key_of_this_test_only";
const TOKEN = { token: "tok_sandbox_ok" };

/** The deployment with the restore switched on: RESTORE_KEY_HASH set to the digest of `key`. */
async function switchedOn(digest?: string): Promise<Env> {
  return { ...env, RESTORE_KEY_HASH: digest ?? (await sha256Hex(RESTORE_KEY)) } as Env;
}

/** POSTs a restore request to `deployment`, with the restore key unless told otherwise. */
async function restore(deployment: Env, body: unknown, key: string | null = RESTORE_KEY): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await createApp().fetch(
    new Request(`http://gateway.test${RESTORE_PATH}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(key === null ? {} : { authorization: `Bearer ${key}` }) },
      body: JSON.stringify(body),
    }),
    deployment,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return response;
}

const anHourAgo = () => new Date(clock.now() - 3_600_000).toISOString();

/** The record's row as stored: what a restore to this moment brings back. */
const snapshot = (id: string) =>
  runInDurableObject(receiptStub(env, "receipt", id), (_instance, state) => state.storage.sql.exec("SELECT * FROM record").one());

/**
 * The platform's restore, by hand: the row put back as `row` was, and the
 * object restarted, so its next call opens that storage.
 */
async function rewind(id: string, row: Record<string, SqlStorageValue>): Promise<void> {
  await runInDurableObject(receiptStub(env, "receipt", id), (_instance, state) => {
    const columns = Object.keys(row);
    state.storage.transactionSync(() => {
      state.storage.sql.exec("DELETE FROM record");
      state.storage.sql.exec(`INSERT INTO record (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`, ...Object.values(row));
    });
  });
  await receiptStub(env, "receipt", id)
    .restart("test: restored")
    .catch(() => undefined);
}

/** Step 1's note as the route hands it to step 2: what the record counted just before the restore. */
async function noteFor(id: string): Promise<RestoreNote> {
  const row = (await snapshot(id)) as unknown as RecordRow;
  return {
    at: clock.now() - 60_000,
    requestId: `restore-${crypto.randomUUID()}`,
    bookmark: "bookmark-at-that-time",
    undoBookmark: "bookmark-before-the-restore",
    carry: {
      event_seq: row.event_seq,
      erased: row.erased,
      state: row.state,
      wrong_otps: row.wrong_otps,
      unconfirmed_otps: row.unconfirmed_otps,
      otp_sends: row.otp_sends,
      last_otp_sent_at: row.last_otp_sent_at,
      edge_closed: row.edge_closed,
    },
  };
}

const auditOf = async (id: string) =>
  (await expectStatus(callGateway("receipt/audit", { id }), 200)).entries as { op: string; actor: string; request_id: string }[];

describe("the restore path", () => {
  it("does not exist without RESTORE_KEY_HASH: answered as any unknown path, whatever the credential", async () => {
    const receipt = await createReceipt();
    const asked = await restore(env, { kind: "receipt", id: receipt.id, at: anHourAgo() }, PARTNER_KEY);
    const unknown = await exports.default.fetch("http://gateway.test/api/v1/operator/no-such-path", { method: "POST" });
    const [a, b] = [await expectError(asked, 404, "not_found"), await expectError(unknown, 404, "not_found")];
    expect(a.message).toBe(b.message);
  });

  it("answers only the restore key: none, the partner's server key or another key is 401", async () => {
    const deployment = await switchedOn();
    const receipt = await createReceipt();
    const body = { kind: "receipt", id: receipt.id, at: anHourAgo() };
    await expectError(restore(deployment, body, null), 401, "unauthorized");
    await expectError(restore(deployment, body, PARTNER_KEY), 401, "unauthorized");
    await expectError(restore(deployment, body, "rk_another_key"), 401, "unauthorized");
  });

  it("with a RESTORE_KEY_HASH that is no digest, is 503 service_misconfigured naming it (the rest of the gateway serves on)", async () => {
    const deployment = await switchedOn("not-a-digest");
    const res = await expectError(restore(deployment, { kind: "receipt", id: "x", at: anHourAgo() }), 503, "service_misconfigured");
    expect(res.message).toContain("RESTORE_KEY_HASH");
    await expectStatus(createApp().fetch(new Request("http://gateway.test/healthz"), deployment, createExecutionContext()), 200);
  });

  it("refuses a time in the future or older than the 30 days of point-in-time recovery, naming at", async () => {
    const deployment = await switchedOn();
    const receipt = await createReceipt();
    for (const at of [new Date(clock.now() + 60_000).toISOString(), new Date(clock.now() - 31 * DAY_MS).toISOString(), "yesterday"]) {
      const refused = await expectError(restore(deployment, { kind: "receipt", id: receipt.id, at }), 400, "invalid_request");
      expect(refused.details.map((d: { path: string }) => d.path)).toEqual(["at"]);
    }
    await expectError(restore(deployment, { id: receipt.id, at: anHourAgo() }), 400, "invalid_request");
    // A misspelt dry_run must not restore for real: refused as every operation refuses a field it does not define.
    const misspelt = await expectError(
      restore(deployment, { kind: "receipt", id: receipt.id, at: anHourAgo(), dryrun: true }),
      400,
      "invalid_request",
    );
    expect(misspelt.details).toEqual([{ path: "dryrun", message: "unknown field dryrun: did you mean dry_run?" }]);
  });

  it("refuses a time before the record was created: restored there, it would hold nothing", async () => {
    const deployment = await switchedOn();
    const receipt = await createReceipt({ merchant_id: 1003 });
    const refused = await expectError(restore(deployment, { kind: "receipt", id: receipt.id, at: anHourAgo() }), 400, "invalid_request");
    expect(refused.message).toContain("before this receipt was created");
    expect(refused.details.map((d: { path: string }) => d.path)).toEqual(["at"]);
  });

  it("where the runtime has no point-in-time recovery (workerd locally), is 503 not_ready saying so, and leaves the record as it was", async () => {
    const deployment = await switchedOn();
    const receipt = await createReceipt({ merchant_id: 1003 });
    letTimePass(2 * 3_600_000);
    for (const dry_run of [true, false]) {
      const refused = await expectError(restore(deployment, { kind: "receipt", id: receipt.id, at: anHourAgo(), dry_run }), 503, "not_ready");
      expect(refused.message).toContain("Point-in-time recovery of this Durable Object is not available");
      expect(refused.message).toContain("does not implement point-in-time recovery");
      expect(refused.message).toContain("nothing was scheduled");
    }
    // Not frozen, not restarted into anything: it pays, and its trail has no restore.
    await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }), 200);
    expect((await auditOf(receipt.id)).map((e) => e.op)).not.toContain("restore");
  });
});

describe("a record restarted into its restored storage (step 2)", () => {
  it("numbers its next event above every event sent before the restore, reads the upstream and emits the change it was restored away from, and audits the restore", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    const created = await snapshot(receipt.id);
    await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }), 200);
    await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
    const note = await noteFor(receipt.id);
    expect(note.carry).toMatchObject({ state: 4, event_seq: 2 });

    await rewind(receipt.id, created);
    const settled = await receiptStub(env, "receipt", receipt.id).restoreSettle(note);
    expect(settled).toEqual({ present: true, state: 4, sequence: 3, upstream: "ok" });

    await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
    const listed = await expectStatus(callGateway("events/list", { receipt_id: receipt.id }), 200);
    const events = (listed.events as { type: string; sequence: number }[]).map((e) => [e.type, e.sequence]);
    // The paid event sent before the restore was sequence 2: the one emitted again is 3, so a receiver applies it.
    expect(events).toEqual([
      ["receipt.paid", 3],
      ["receipt.created", 1],
    ]);
    const restoreEntry = (await auditOf(receipt.id)).find((e) => e.op === "restore");
    expect(restoreEntry).toMatchObject({ actor: "operator", request_id: note.requestId });
  });

  it("keeps the OTPs sent since the time restored to (rule 6): the sixth send is still refused, and reaches nothing upstream", async () => {
    const receipt = await createReceipt({ merchant_id: 1001 });
    await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 200);
    const afterOne = await snapshot(receipt.id);
    for (let i = 0; i < 4; i++) {
      await letOtpWaitPass(receipt.id);
      await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 200);
    }
    const note = await noteFor(receipt.id);
    await rewind(receipt.id, afterOne);
    await receiptStub(env, "receipt", receipt.id).restoreSettle(note);

    await letOtpWaitPass(receipt.id);
    const before = await sandboxCalls();
    await expectError(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 429, "rate_limited");
    expect(await sandboxCalls()).toEqual(before);
  });

  it("erases again what an erasure since the time restored to had erased (rule 10)", async () => {
    const sub = newUser();
    const token = await userToken(sub);
    const phone = `99890${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`;
    const receipt = await createReceipt({ merchant_id: 1003, account: [{ key: "phone", value: phone }] }, { token });
    await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
    const beforeErasure = await snapshot(receipt.id);
    await expectStatus(callGateway("users/erase", { user: sub }), 202);
    await fireCron(clock.now());
    const note = await noteFor(receipt.id);
    expect(note.carry?.erased).toBe(1);

    await rewind(receipt.id, beforeErasure);
    expect((await dumpStorage(receiptStub(env, "receipt", receipt.id))).join("\n")).toContain(phone);
    await receiptStub(env, "receipt", receipt.id).restoreSettle(note);
    expect((await dumpStorage(receiptStub(env, "receipt", receipt.id))).join("\n")).not.toContain(phone);
  });

  it("a keyed pay repeated after a restore to before the record's cancel answers the first answer's bytes", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    const key = { headers: { "Idempotency-Key": `key-${crypto.randomUUID()}` } };
    const first = await call("receipt/pay", { id: receipt.id, card: TOKEN }, key);
    const firstText = await first.text();
    expect(first.status).toBe(200);
    const paid = await snapshot(receipt.id);
    await expectStatus(call("receipt/cancel", { id: receipt.id }), 200);
    const note = await noteFor(receipt.id);

    await rewind(receipt.id, paid);
    await receiptStub(env, "receipt", receipt.id).restoreSettle(note);
    const repeat = await call("receipt/pay", { id: receipt.id, card: TOKEN }, key);
    expect(repeat.headers.get("idempotent-replayed")).toBe("true");
    expect(await repeat.text()).toBe(firstText);
    expect((await sandboxCalls()).filter((c) => c.path === "receipt/pay" && c.id === receipt.id)).toHaveLength(1);
  });

  it("answers present: false for an object restored to before its record was created", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    const note = await noteFor(receipt.id);
    await runInDurableObject(receiptStub(env, "receipt", receipt.id), (_instance, state) => state.storage.sql.exec("DELETE FROM record"));
    await receiptStub(env, "receipt", receipt.id)
      .restart("test: restored to before its creation")
      .catch(() => undefined);
    expect(await receiptStub(env, "receipt", receipt.id).restoreSettle(note)).toEqual({
      present: false,
      state: null,
      sequence: null,
      upstream: null,
    });
  });
});
