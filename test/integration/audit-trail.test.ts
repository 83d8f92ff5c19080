/**
 * Rule 15, the audit trail in R2, through the Worker: a record's trail
 * reaches R2 and audit/search gives the same entries receipt/audit shows,
 * also after the record's end; every call to the gateway's own operations
 * and every staff action is an entry; no entry holds card data, a key or a
 * token; searches are refused outside their rules.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { parseBatch } from "../../src/audit/batch";
import { chainFor } from "../../src/audit/entries";
import { auditStaff } from "../../src/audit/staff";
import { retentionPolicy } from "../../src/config/retention-policy";
import { RING_SLOTS } from "../../src/d1/ring";
import { receiptStub } from "../../src/record/receipt-object";
import { redact } from "../../src/shared/redact";
import { auditObjects, flushAudit, searchTrail, trailOnceIn } from "../audit";
import { callGateway, letTimePassWithTheCron, ringPeriod } from "../events";
import {
  CARD_OK,
  call,
  cardDataIn,
  createReceipt,
  dumpStorage,
  expectError,
  expectStatus,
  newUser,
  OTP_OK,
  OTP_WRONG,
  PARTNER_KEY,
  transferRequest,
  userToken,
} from "../helpers";

const TOKEN = { token: "tok_sandbox_ok" };
const DAY_MS = 86_400_000;
/** The fields a record's own trail shows, as receipt/audit answers them. */
const trailFields = ({ at, op, actor, request_id, outcome, state }: any) => ({ at, op, actor, request_id, outcome, state });

describe("a record's trail in R2", () => {
  it("audit/search gives the entries receipt/audit shows, oldest first, and still gives them after the record's end", async () => {
    const user = newUser();
    const token = await userToken(user);
    const receipt = await createReceipt({ account: [{ key: "phone", value: "998901234567" }] }, { token });
    await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN }, { token }), 200);
    await expectError(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_WRONG }, { token }), 422, "otp_invalid");
    await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_OK }, { token }), 200);
    const trail = await expectStatus(callGateway("receipt/audit", { id: receipt.id }), 200);
    expect(trail.entries.map((e: any) => e.op)).toEqual(["create", "authorize", "pay", "pay"]);

    const found = await trailOnceIn({ receipt_id: receipt.id }, trail.entries.length);
    const fromRecord = found.filter((entry) => entry.source === "record");
    expect(fromRecord.map(trailFields)).toEqual(trail.entries);
    expect(fromRecord.every((entry) => entry.receipt_id === receipt.id && entry.kind === "receipt" && entry.user === user)).toBe(true);
    // What the payment was for, kept with the create; a phone number's twelve digits masked, as every run of
    // twelve digits or more is in every entry (src/shared/redact.ts).
    expect(fromRecord[0].detail).toMatchObject({
      tid: receipt.tid,
      amount: receipt.amount,
      merchant_id: 1001,
      account: [{ key: "phone", value: "************" }],
    });
    // The gateway's own call (receipt/audit) naming the receipt is in the trail too.
    const calls = (await searchTrail({ receipt_id: receipt.id })).entries.filter((entry: any) => entry.source === "gateway");
    expect(calls).toContainEqual(expect.objectContaining({ op: "receipt/audit", actor: "partner", outcome: "ok", receipt_id: receipt.id }));

    // The record ends (rule 10): its events leave the log (nothing delivers them here: they are pruned with
    // the undelivered ones), then its own alarm deletes it.
    await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
    const policy = retentionPolicy(env);
    // (The cron all along: the log's ring drops an undelivered event at its slot's first turn past its window.)
    await letTimePassWithTheCron(Math.max(policy.recordRetentionMs, policy.undeliveredEventsMs) + 60_000 + RING_SLOTS * ringPeriod());
    await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
    expect(await dumpStorage(receiptStub(env, "receipt", receipt.id))).toEqual([]);
    await expectError(callGateway("receipt/audit", { id: receipt.id }), 404, "receipt_not_found");

    const after = (await searchTrail({ receipt_id: receipt.id })).entries.filter((entry: any) => entry.source === "record");
    expect(after.map(trailFields)).toEqual(trail.entries);
    // By user, the same entries.
    const byUser = (await searchTrail({ user })).entries.filter((entry: any) => entry.source === "record");
    expect(byUser.map(trailFields)).toEqual(trail.entries);
  });

  it("a transfer's trail too, and an entry exported twice (its mark lost) is given once", async () => {
    const transfer = await expectStatus(call("a2c/create", transferRequest()), 200);
    await expectStatus(call("a2c/pay", { id: transfer.receipt_id }), 200);
    const trail = await expectStatus(callGateway("receipt/audit", { id: transfer.receipt_id, kind: "transfer" }), 200);
    const found = await trailOnceIn({ receipt_id: transfer.receipt_id }, trail.entries.length);
    const fromRecord = found.filter((e) => e.source === "record");
    expect(fromRecord.map(trailFields)).toEqual(trail.entries);
    // A record stopped before its mark was written sends the same entries again: the same ids, given once.
    const chain = chainFor(env, `transfer:${transfer.receipt_id}`);
    await env.AUDIT_WRITER.get(env.AUDIT_WRITER.idFromName(chain)).append(chain, fromRecord);
    await flushAudit();
    const again = (await searchTrail({ receipt_id: transfer.receipt_id })).entries.filter((e: any) => e.source === "record");
    expect(again).toEqual(fromRecord);
  });
});

describe("the gateway's own calls and the back office", () => {
  it("every call to /api/v1/gateway/... is an entry: operation, caller, request id, outcome; refused ones too", async () => {
    const user = newUser();
    await expectStatus(callGateway("users/erase", { user }), 202);
    await expectError(callGateway("events/list", { receipt_id: "x".repeat(24), limit: 0 }), 400, "invalid_request");
    const token = await userToken(user);
    await expectError(callGateway("users/erase", { user }, { token }), 403, "forbidden");
    const entries = await trailOnceIn({ user }, 1);
    expect(entries).toContainEqual(expect.objectContaining({ source: "gateway", op: "users/erase", actor: "partner", outcome: "ok", user }));
    await flushAudit();
    const all = [...(await auditObjects()).values()].join("\n");
    expect(all).toContain('"op":"events/list","actor":"partner"');
    expect(all).toContain('"outcome":"invalid_request"');
    expect(all).toContain(`"actor":"user:${user}","request_id"`);
    expect(all).toContain('"outcome":"forbidden"');
  });

  it("auditStaff's entries are found by staff, and by the receipt they name", async () => {
    const email = `${newUser("support")}@partner.test`;
    const receipt = await createReceipt();
    await auditStaff(env, {
      email,
      role: "support",
      action: "view_receipt",
      target: receipt.id,
      outcome: "ok",
      request_id: crypto.randomUUID(),
      receipt_id: receipt.id,
    });
    await flushAudit();
    const byStaff = (await searchTrail({ staff: email })).entries;
    expect(byStaff).toEqual([
      // The target is what the staff member asked for, written as typed text is: masked where it holds twelve digits in a row.
      expect.objectContaining({ source: "staff", op: "view_receipt", actor: `staff:${email}`, role: "support", target: redact(receipt.id) }),
    ]);
    expect((await searchTrail({ receipt_id: receipt.id })).entries).toContainEqual(expect.objectContaining({ source: "staff", staff: email }));
  });

  it("two entries alike but for their time, 10 s apart to the millisecond, are both kept: an id's time is never masked into another's", async () => {
    // An entry's id names its time; redact masks every run of twelve digits or more, and audit/search keeps one
    // entry per id, so a time written in decimal made these two one.
    const email = `${newUser("support")}@partner.test`;
    const request_id = crypto.randomUUID();
    const at = Date.now() - 60_000;
    for (const when of [at, at + 10_000])
      await auditStaff(env, { email, role: "support", action: "view_receipt", target: "r-1", outcome: "ok", request_id, at: when });
    await flushAudit();
    const entries = (await searchTrail({ staff: email })).entries;
    expect(entries.map((entry: any) => entry.at)).toEqual([at, at + 10_000]);
    expect(entries.map((entry: any) => entry.id)).toEqual([`s:${request_id}:${at}:view_receipt`, `s:${request_id}:${at + 10_000}:view_receipt`]);
  });

  it("a record whose id holds twelve digits in a row is found by it: the ids an entry names are written whole", async () => {
    // One receipt id in twenty (24 hex characters) is so; masked, search by receipt_id would never find its entries.
    const receipt_id = "0d875641353992c521c955b1";
    const email = `${newUser("support")}@partner.test`;
    await auditStaff(env, {
      email,
      role: "support",
      action: "view_receipt",
      target: receipt_id,
      outcome: "ok",
      request_id: crypto.randomUUID(),
      receipt_id,
    });
    await flushAudit();
    expect((await searchTrail({ receipt_id })).entries).toEqual([expect.objectContaining({ receipt_id, staff: email })]);
  });
});

describe("no entry holds card data, a key or a token", () => {
  it("after flows by token, by card number, with OTPs, transfers, users' JWTs and the partner's key", async () => {
    const token = await userToken(newUser());
    const byNumber = await createReceipt({ merchant_id: 1003 }, { token });
    await expectStatus(call("receipt/anonymous/authorize", { id: byNumber.id, card: CARD_OK }, { token }), 200);
    await expectStatus(call("receipt/anonymous/pay", { id: byNumber.id, card: CARD_OK, otp: OTP_OK }, { token }), 200);
    const byToken = await createReceipt();
    await expectStatus(call("receipt/authorize", { id: byToken.id, card: TOKEN }), 200);
    await expectError(call("receipt/pay", { id: byToken.id, card: TOKEN, otp: OTP_WRONG }), 422, "otp_invalid");
    await expectStatus(call("receipt/pay", { id: byToken.id, card: TOKEN, otp: OTP_OK }), 200);
    const transfer = await expectStatus(call("a2c/create", transferRequest({ amount: 1_500_000 })), 200);
    await expectError(call("a2c/pay", { id: transfer.receipt_id, otp: OTP_WRONG }), 422, "otp_invalid");
    await expectStatus(call("a2c/pay", { id: transfer.receipt_id, otp: OTP_OK }), 200);
    await callGateway("receipt/audit", { id: byToken.id });
    await trailOnceIn({ receipt_id: transfer.receipt_id }, 3);
    await trailOnceIn({ receipt_id: byNumber.id }, 3);
    await flushAudit();
    const text = [...(await auditObjects()).values()].join("\n");
    expect(cardDataIn(text, { pans: [CARD_OK.number, "9860000000000018"], otps: [OTP_OK, OTP_WRONG], expiries: [CARD_OK.expire] })).toEqual([]);
    expect(text).not.toContain(PARTNER_KEY);
    expect(text).not.toContain(token);
    expect(text).not.toMatch(/eyJ[\w-]+\.[\w-]+/);
    // Every object is a batch with its header, or a chain's head.
    for (const [key, batch] of await auditObjects()) expect(key.startsWith("audit/heads/") || parseBatch(batch).header !== null, key).toBe(true);
  });
});

describe("audit/search refuses what it cannot answer", () => {
  it("one of receipt_id, user, staff; to after from, at most 31 days; after only a page's next; partner only", async () => {
    const now = Date.now();
    await expectError(callGateway("audit/search", { from: now, to: now }), 400, "invalid_request");
    await expectError(callGateway("audit/search", { user: "a", staff: "b@c.d", from: now, to: now }), 400, "invalid_request");
    await expectError(callGateway("audit/search", { user: "a", from: now, to: now - 1 }), 400, "invalid_request");
    await expectError(callGateway("audit/search", { user: "a", from: now, to: now + 31 * DAY_MS + 1 }), 400, "invalid_request");
    await expectStatus(callGateway("audit/search", { user: "a", from: now, to: now + 31 * DAY_MS }), 200);
    await expectError(callGateway("audit/search", { user: "a", from: now, to: now, after: "nonsense" }), 400, "invalid_request");
    await expectError(callGateway("audit/search", { user: "a", from: now, to: now }, { token: await userToken("a") }), 403, "forbidden");
  });
});
