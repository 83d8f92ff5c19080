// Rule 11: every write is safe to repeat. A request that repeats an
// Idempotency-Key its caller used for that operation on that record, with the
// same body, gets the first answer again (status, body, headers) with
// `Idempotent-Replayed: true`, and nothing reaches the upstream again. Each
// test asserts what the caller and the upstream (the sandbox's call log and
// its own view of the receipt) observe.
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { readConfig } from "../../src/config/config";
import { receiptStub } from "../../src/record/receipt-object";
import {
  call,
  createReceipt,
  expectError,
  expectStatus,
  letFiscalDataAppear,
  letOtpWaitPass,
  letTimePass,
  newUser,
  OTP_OK,
  OTP_WRONG,
  sandboxCalls,
  sandboxReceipt,
  storagePages,
  transferRequest,
  userToken,
} from "../helpers";
import { moveKeysToTable } from "../support/keys-in-table";
import { storeAnswersAsText, storedKeys } from "../support/keys-stored";
import { scriptedUpstream } from "../support/scripted-upstream";

const TOKEN = { token: "tok_sandbox_ok" };
const key = () => `key-${crypto.randomUUID()}`;
const withKey = (k: string, token?: string) => ({ headers: { "Idempotency-Key": k }, ...(token === undefined ? {} : { token }) });
const evicted = (id: string) => evictDurableObject(receiptStub(env, "receipt", id));
const callsTo = async (path: string, id: string) => (await sandboxCalls()).filter((c) => c.path === path && c.id === id);

/** The answer as the caller sees it: status, body text, the headers rule 11 speaks of. */
async function seen(response: Promise<Response>) {
  const res = await response;
  return { status: res.status, body: await res.text(), replayed: res.headers.get("idempotent-replayed"), retryAfter: res.headers.get("retry-after") };
}

describe("a repeat with the same key and body (rule 11)", () => {
  it("a pay: the first answer again, Idempotent-Replayed: true, and one debit upstream", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    const k = key();
    const first = await seen(call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k)));
    expect(first).toMatchObject({ status: 200, replayed: null });
    const again = await seen(call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k)));
    expect(again).toEqual({ ...first, replayed: "true" });
    expect(await callsTo("receipt/pay", receipt.id)).toHaveLength(1);
    // Without the key, the same pay is a new request: already paid.
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN }), 409, "receipt_already_paid");
  });

  it("a wrong OTP: repeated, it is not a second guess", async () => {
    const receipt = await createReceipt({ merchant_id: 1001 });
    await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 200);
    const k = key();
    const first = await seen(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_WRONG }, withKey(k)));
    expect(first.status).toBe(422);
    expect(JSON.parse(first.body).error.attempts_left).toBe(2);
    for (let i = 0; i < 3; i++)
      expect(await seen(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_WRONG }, withKey(k)))).toEqual({ ...first, replayed: "true" });
    expect((await sandboxReceipt(receipt.id)).otp_attempts).toBe(1);
    expect(await callsTo("receipt/pay", receipt.id)).toHaveLength(1);
    // The right OTP, a new request, still pays.
    expect((await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_OK }), 200)).state).toBe(4);
  });

  it("an authorize: no second SMS, and not refused as too soon", async () => {
    const receipt = await createReceipt({ merchant_id: 1001 });
    const k = key();
    const first = await seen(call("receipt/authorize", { id: receipt.id, card: TOKEN }, withKey(k)));
    expect(first.status).toBe(200);
    expect(await seen(call("receipt/authorize", { id: receipt.id, card: TOKEN }, withKey(k)))).toEqual({ ...first, replayed: "true" });
    expect(await callsTo("receipt/authorize", receipt.id)).toHaveLength(1);
    // A new request without the key is the resend rule 6 governs.
    await expectError(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 429, "otp_resend_too_soon");
  });

  it("a refusal by the rules (already paid) is kept and answered again, as is a cancel, a hold-confirm and an a2c pay", async () => {
    const paid = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/pay", { id: paid.id, card: TOKEN }), 200);
    const k = key();
    const refused = await seen(call("receipt/pay", { id: paid.id, card: TOKEN }, withKey(k)));
    expect(refused.status).toBe(409);
    expect(await seen(call("receipt/pay", { id: paid.id, card: TOKEN }, withKey(k)))).toEqual({ ...refused, replayed: "true" });

    const kc = key();
    const cancelled = await seen(call("receipt/cancel", { id: paid.id }, withKey(kc)));
    expect(cancelled.status).toBe(200);
    expect(await seen(call("receipt/cancel", { id: paid.id }, withKey(kc)))).toEqual({ ...cancelled, replayed: "true" });
    expect(await callsTo("receipt/cancel", paid.id)).toHaveLength(1);

    const held = await createReceipt({ merchant_id: 1003, is_hold: true });
    await expectStatus(call("receipt/pay", { id: held.id, card: TOKEN }), 200);
    const kh = key();
    const confirmed = await seen(call("receipt/hold-confirm", { id: held.id }, withKey(kh)));
    expect(confirmed.status).toBe(200);
    expect(await seen(call("receipt/hold-confirm", { id: held.id }, withKey(kh)))).toEqual({ ...confirmed, replayed: "true" });
    expect(await callsTo("receipt/hold-confirm", held.id)).toHaveLength(1);

    const transfer = await expectStatus(call("a2c/create", transferRequest()), 200);
    const kt = key();
    const transferred = await seen(call("a2c/pay", { id: transfer.receipt_id }, withKey(kt)));
    expect(transferred.status).toBe(200);
    expect(await seen(call("a2c/pay", { id: transfer.receipt_id }, withKey(kt)))).toEqual({ ...transferred, replayed: "true" });
    expect(await callsTo("a2c/pay", transfer.receipt_id)).toHaveLength(1);
  });
});

describe("keys first: a kept answer is replayed whatever else the record is doing (rule 11)", () => {
  it("a keyed pay repeated while the record's own follow-up read is under way gets the kept 200, not operation_in_progress", async () => {
    // Its fiscal data is missing, so the record reads the upstream again on its own (rule 14).
    const receipt = await createReceipt({ merchant_id: 1003 });
    const k = key();
    const card = { token: "tok_sandbox_fiscal_late" };
    const first = await seen(call("receipt/pay", { id: receipt.id, card }, withKey(k)));
    expect(first).toMatchObject({ status: 200, replayed: null });
    letTimePass(readConfig(env).fiscalReads[0]! + 1000);
    const held = scriptedUpstream.hold("receipt/check-id", { id: receipt.id });
    const fired = runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
    await held.arrived;
    try {
      expect(await seen(call("receipt/pay", { id: receipt.id, card }, withKey(k)))).toEqual({ ...first, replayed: "true" });
      // A new request meanwhile still waits its turn.
      await expectError(call("receipt/pay", { id: receipt.id, card }, withKey(key())), 409, "operation_in_progress");
    } finally {
      held.release();
      await fired;
    }
    expect(await callsTo("receipt/pay", receipt.id)).toHaveLength(1);
  });
});

describe("what a key does not replay (rule 11)", () => {
  it("the same key with another body is 409 idempotency_key_reused, and reaches nothing upstream", async () => {
    const receipt = await createReceipt({ merchant_id: 1001 });
    await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 200);
    const k = key();
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_WRONG }, withKey(k)), 422, "otp_invalid");
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_OK }, withKey(k)), 409, "idempotency_key_reused");
    expect(await callsTo("receipt/pay", receipt.id)).toHaveLength(1);
  });

  it("the same key while the first is in flight: 409 operation_in_progress with Retry-After", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    const k = key();
    const held = scriptedUpstream.hold("receipt/pay", { id: receipt.id });
    const first = call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k));
    await held.arrived;
    const during = await seen(call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k)));
    expect(during.status).toBe(409);
    expect(JSON.parse(during.body).error.code).toBe("operation_in_progress");
    expect(Number(during.retryAfter)).toBeGreaterThan(0);
    held.release();
    await expectStatus(first, 200);
    expect(await callsTo("receipt/pay", receipt.id)).toHaveLength(1);
  });

  it("refusals before the gateway acted are not remembered: a corrected request reuses the key", async () => {
    const receipt = await createReceipt({ merchant_id: 1001 });
    await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 200);
    const k = key();
    // 400 otp_required: nothing was done, nothing is kept.
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k)), 400, "otp_required");
    // 429: the resend comes too soon; later, the same key sends it.
    const ka = key();
    await expectError(call("receipt/authorize", { id: receipt.id, card: TOKEN }, withKey(ka)), 429, "otp_resend_too_soon");
    await letOtpWaitPass(receipt.id);
    await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN }, withKey(ka)), 200);
    // The body's field corrected, the first key pays.
    expect((await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_OK }, withKey(k)), 200)).state).toBe(4);
  });

  it("a busy upstream (503, nothing done) is not remembered: the retry with the key goes through", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    const k = key();
    scriptedUpstream.on("receipt/pay", { kind: "status", status: 503, code: "BUSY", retryAfter: 1 }, { id: receipt.id });
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k)), 503, "upstream_unavailable");
    expect((await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k)), 200)).state).toBe(4);
    expect((await callsTo("receipt/pay", receipt.id)).map((c) => c.status)).toEqual([200]);
  });

  it("a key is its caller's own: the owner's key is not the partner's, and another user's is 404 first", async () => {
    const owner = await userToken(newUser());
    const other = await userToken(newUser());
    const receipt = await createReceipt({ merchant_id: 1003 }, { token: owner });
    const k = key();
    await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k, owner)), 200);
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k, other)), 404, "receipt_not_found");
    // The partner's request with the same key is the partner's own: a new request, refused already paid.
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k)), 409, "receipt_already_paid");
    // So in the table of a record the release before keyed: each repeat gets its own caller's answer.
    expect(await moveKeysToTable(receipt.id)).toBe(2);
    const owners = await call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k, owner));
    expect(owners.headers.get("idempotent-replayed")).toBe("true");
    await expectStatus(owners, 200);
    const partners = await call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k));
    expect(partners.headers.get("idempotent-replayed")).toBe("true");
    expect(partners.status).toBe(409);
    expect(((await partners.json()) as { error: { code: string } }).error.code).toBe("receipt_already_paid");
    expect(await callsTo("receipt/pay", receipt.id)).toHaveLength(1);
  });

  it.each([
    ["empty", ""],
    ["too long", "k".repeat(256)],
    ["not printable ASCII", "kéy"],
    ["a control character", "key\tone"],
  ])("a key that is %s is 400 invalid_request, on a create too, and nothing is done", async (_name, bad) => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    const body = await expectError(
      call("receipt/pay", { id: receipt.id, card: TOKEN }, { headers: { "Idempotency-Key": bad } }),
      400,
      "invalid_request",
    );
    expect(body.details[0].path).toBe("Idempotency-Key");
    const create = { tid: `t-${crypto.randomUUID()}`, merchant_id: 1003, amount: 150_000, account: [{ key: "phone", value: "998901234567" }] };
    await expectError(call("receipt/create", create, { headers: { "Idempotency-Key": bad } }), 400, "invalid_request");
    expect(await callsTo("receipt/pay", receipt.id)).toEqual([]);
  });

  it("a create accepts a well-formed key; its tid decides", async () => {
    const k = key();
    const request = { tid: `t-${crypto.randomUUID()}`, merchant_id: 1003, amount: 150_000, account: [{ key: "phone", value: "998901234567" }] };
    const created = await expectStatus(call("receipt/create", request, withKey(k)), 200);
    const again = await call("receipt/create", request, withKey(k));
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(((await again.json()) as { id: string }).id).toBe(created.id);
  });
});

describe("after an unknown outcome (rule 11 with rule 8)", () => {
  it("a pay whose answer was lost: the repeat asks the upstream and answers the payment, never a second call", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    const k = key();
    scriptedUpstream.on("receipt/pay", { kind: "lost" }, { id: receipt.id });
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k)), 502, "upstream_error");
    const repeat = await call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k));
    expect(repeat.headers.get("idempotent-replayed")).toBe("true");
    expect((await expectStatus(repeat, 200)).state).toBe(4);
    expect(await callsTo("receipt/pay", receipt.id)).toHaveLength(1);
    // And again: the same answer, from the key.
    expect((await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k)), 200)).state).toBe(4);
    expect(await callsTo("receipt/pay", receipt.id)).toHaveLength(1);
  });

  it("a pay that timed out before the upstream acted: the repeat answers that nothing was paid, and never pays", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    const k = key();
    scriptedUpstream.on("receipt/pay", { kind: "status", status: 500, act: false }, { id: receipt.id });
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k)), 502, "upstream_error");
    const repeat = await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k)), 502, "upstream_error");
    expect(repeat.message).toMatch(/did not happen/);
    expect((await sandboxReceipt(receipt.id)).state).toBe(0);
    expect(await callsTo("receipt/pay", receipt.id)).toEqual([]);
    // A new key is a new pay.
    expect((await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(key())), 200)).state).toBe(4);
  });

  it("the object killed before the answer: the repeat answers the payment the upstream made; one debit", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    const k = key();
    const held = scriptedUpstream.hold("receipt/pay", { id: receipt.id, act: true });
    const first = call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k));
    await held.arrived;
    await runInDurableObject(receiptStub(env, "receipt", receipt.id), (_i, state) => state.abort("killed before the answer")).catch(() => undefined);
    held.release();
    expect((await first).status).toBeGreaterThanOrEqual(500);
    expect((await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k)), 200)).state).toBe(4);
    await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
    expect((await callsTo("receipt/pay", receipt.id)).map((c) => c.status)).toEqual([200]);
  });
});

describe("keys kept in the record's row, and in the table the release before kept them in (rule 11 across a deploy)", () => {
  it("a pay's answer kept in the row, or in the table of a record the release before keyed: the repeat gets it again and reaches nothing upstream; another body is idempotency_key_reused", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    const k = key();
    const first = await seen(call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k)));
    expect(first).toMatchObject({ status: 200, replayed: null });
    expect(await seen(call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k)))).toEqual({ ...first, replayed: "true" });
    // This code kept the key in the row: moved to the table, as the release before keeps it.
    expect(await moveKeysToTable(receipt.id)).toBe(1);
    expect(await seen(call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k)))).toEqual({ ...first, replayed: "true" });
    await expectError(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_other" } }, withKey(k)), 409, "idempotency_key_reused");
    expect(await callsTo("receipt/pay", receipt.id)).toHaveLength(1);
  });

  it("the object killed mid-pay with its key open in the table: the repeat asks the upstream and answers the payment; one debit", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    const k = key();
    const held = scriptedUpstream.hold("receipt/pay", { id: receipt.id, act: true });
    const first = call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k));
    await held.arrived;
    await runInDurableObject(receiptStub(env, "receipt", receipt.id), (_i, state) => state.abort("killed before the answer")).catch(() => undefined);
    held.release();
    expect((await first).status).toBeGreaterThanOrEqual(500);
    // The key was opened in the note's commit: moved to the table as it stands, with no answer.
    expect(await moveKeysToTable(receipt.id)).toBe(1);
    const repeat = await call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k));
    expect(repeat.headers.get("idempotent-replayed")).toBe("true");
    expect((await expectStatus(repeat, 200)).state).toBe(4);
    expect((await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k)), 200)).state).toBe(4);
    expect((await callsTo("receipt/pay", receipt.id)).map((c) => c.status)).toEqual([200]);
  });

  it("a key opened in the table and answered in the row (a wrong OTP) is answered from the row, not asked of the upstream again", async () => {
    const receipt = await createReceipt({ merchant_id: 1001 });
    await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 200);
    const k = key();
    const first = await seen(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_WRONG }, withKey(k)));
    expect(first.status).toBe(422);
    expect(await moveKeysToTable(receipt.id, { answerInRow: true })).toBe(1);
    expect(await seen(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_WRONG }, withKey(k)))).toEqual({ ...first, replayed: "true" });
    expect((await sandboxReceipt(receipt.id)).otp_attempts).toBe(1);
  });
});

describe("kept answers stored as parts of the row's texts (rule 11)", () => {
  it("a keyed pay's answer is kept as references to the record's texts, and repeated after the record moved on (a cancel, a hold confirmed, its fiscal receipt) it answers the first bytes; the record takes no more pages than one paid without a key", async () => {
    const unkeyed = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/pay", { id: unkeyed.id, card: TOKEN }), 200);
    const receipt = await createReceipt({ merchant_id: 1003 });
    const k = key();
    const first = await seen(call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k)));
    expect(first).toMatchObject({ status: 200, replayed: null });
    const stored = await storedKeys(receipt.id);
    expect(stored.entries.map((entry) => Array.isArray(entry[6]))).toEqual([true]);
    expect(stored.stamp).toBe(9);
    const pages = async (id: string) => (await storagePages(receiptStub(env, "receipt", id))).pages;
    expect(await pages(receipt.id)).toBe(await pages(unkeyed.id));
    await expectStatus(call("receipt/cancel", { id: receipt.id }), 200);
    // Each repeat from storage as it stands, the object restarted: its answer read back from the parts.
    await evicted(receipt.id);
    expect(await seen(call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k)))).toEqual({ ...first, replayed: "true" });

    const held = await createReceipt({ merchant_id: 1003, is_hold: true });
    const kh = key();
    const heldFirst = await seen(call("receipt/pay", { id: held.id, card: TOKEN }, withKey(kh)));
    expect(heldFirst.status).toBe(200);
    await expectStatus(call("receipt/hold-confirm", { id: held.id }), 200);
    await evicted(held.id);
    expect(await seen(call("receipt/pay", { id: held.id, card: TOKEN }, withKey(kh)))).toEqual({ ...heldFirst, replayed: "true" });

    const late = await createReceipt({ merchant_id: 1003 });
    const kl = key();
    const lateFirst = await seen(call("receipt/pay", { id: late.id, card: { token: "tok_sandbox_fiscal_late" } }, withKey(kl)));
    expect(JSON.parse(lateFirst.body).ofd).toMatchObject({ fiscalSign: "" });
    await letFiscalDataAppear(late.id);
    expect((await expectStatus(call("receipt/check-id", { id: late.id }), 200)).ofd.fiscalSign).toMatch(/^\d{12}$/);
    await evicted(late.id);
    const lateAgain = await seen(call("receipt/pay", { id: late.id, card: { token: "tok_sandbox_fiscal_late" } }, withKey(kl)));
    expect(lateAgain).toEqual({ ...lateFirst, replayed: "true" });
    for (const id of [receipt.id, held.id, late.id]) expect(await callsTo("receipt/pay", id)).toHaveLength(1);
  });

  it("a pay's answer the release before stored as text is replayed byte for byte, and written as parts when this code first opens the record", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    const k = key();
    const first = await seen(call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k)));
    expect(await storeAnswersAsText(receipt.id)).toBe(1);
    expect((await storedKeys(receipt.id)).entries.map((entry) => typeof entry[6])).toEqual(["string"]);
    expect(await seen(call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k)))).toEqual({ ...first, replayed: "true" });
    const stored = await storedKeys(receipt.id);
    expect(stored.stamp).toBe(9);
    expect(stored.entries.map((entry) => Array.isArray(entry[6]))).toEqual([true]);
    await expectStatus(call("receipt/cancel", { id: receipt.id }), 200);
    await evicted(receipt.id);
    expect(await seen(call("receipt/pay", { id: receipt.id, card: TOKEN }, withKey(k)))).toEqual({ ...first, replayed: "true" });
  });
});
