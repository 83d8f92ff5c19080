/**
 * Card data never stored, never logged: run payments and transfers of every
 * outcome, then read everything the deployment keeps (every Durable Object's
 * SQL, every D1 row) and everything it printed, and look for the raw values.
 */
import { listDurableObjectIds, runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { receiptStub } from "../../src/record/receipt-object";
import { queueSpy } from "../events";
import { call, cardDataIn, createReceipt, dumpD1, dumpStorage, expectError, expectStatus, newTid, receiptRequest } from "../helpers";
import { scriptedUpstream } from "../support/scripted-upstream";

const PANS = ["8600000000000007", "9860000000000018", "8600000000000015", "8600000000000098"];
const EXPIRY = "2907";
const TOKENS = ["tok_sandbox_ok", "tok_sandbox_insufficient", "tok_sandbox_timeout", "tok_sandbox_error"];
const OTPS = ["111111", "987123", "456012", "730945"];

const logged: string[] = [];
/** Every event the gateway queued, as sent. */
const queuedPayloads: string[] = [];

/** Every text cell of every table of a Durable Object's SQLite storage. */
const dumpObject = (ns: DurableObjectNamespace, id: DurableObjectId) => dumpStorage(ns.get(id));

/** Raw values found in a text, ignoring the masked forms (first 6, last 4) that are allowed. */
const rawValuesIn = (text: string) => cardDataIn(text, { pans: PANS, otps: OTPS, expiries: [EXPIRY] });

describe("card data is never stored or logged", () => {
  beforeAll(async () => {
    const queue = queueSpy();
    for (const method of ["log", "info", "warn", "error", "debug"] as const) {
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        logged.push(args.map(String).join(" "));
      });
    }

    const card = (number: string) => ({ number, expire: EXPIRY });
    // Anonymous payments: approved, declined, wrong OTPs until cancelled.
    const approved = await createReceipt({ merchant_id: 1003 });
    await call("receipt/anonymous/authorize", { id: approved.id, card: card(PANS[0]!) });
    await call("receipt/anonymous/pay", { id: approved.id, card: card(PANS[0]!), otp: OTPS[0] });

    const declined = await createReceipt({ merchant_id: 1003 });
    await call("receipt/anonymous/authorize", { id: declined.id, card: card(PANS[2]!) });
    await call("receipt/anonymous/pay", { id: declined.id, card: card(PANS[2]!), otp: OTPS[0] });

    const guessed = await createReceipt({ merchant_id: 1001 });
    await call("receipt/anonymous/authorize", { id: guessed.id, card: card(PANS[1]!) });
    for (const otp of OTPS.slice(1)) await call("receipt/anonymous/pay", { id: guessed.id, card: card(PANS[1]!), otp });

    // Token payments: approved, declined, upstream error.
    for (const token of [TOKENS[0], TOKENS[1], TOKENS[3]]) {
      const receipt = await createReceipt({ merchant_id: 1003 });
      await call("receipt/pay", { id: receipt.id, card: { token } });
    }

    // Transfers: paid, declined receiver, wrong OTPs until cancelled, and a replayed create.
    const transfer = { amount: 500_000, rate_id: 1, token: TOKENS[0] };
    const paid = (await (await call("a2c/create", { ...transfer, tid: newTid(), receiver_card: PANS[1] })).json()) as any;
    await call("a2c/pay", { id: paid.receipt_id });
    const replayTid = newTid();
    await call("a2c/create", { ...transfer, tid: replayTid, receiver_card: PANS[1] });
    await call("a2c/create", { ...transfer, tid: replayTid, receiver_card: PANS[1] });
    await call("a2c/create", { ...transfer, tid: replayTid, receiver_card: PANS[0] }); // conflict
    const refused = (await (await call("a2c/create", { ...transfer, tid: newTid(), receiver_card: PANS[3] })).json()) as any;
    await call("a2c/pay", { id: refused.receipt_id });
    const big = (await (await call("a2c/create", { ...transfer, amount: 2_000_000, tid: newTid(), receiver_card: PANS[1] })).json()) as any;
    for (const otp of OTPS.slice(1)) await call("a2c/pay", { id: big.receipt_id, otp });

    // Refusals at the edge that carry card data.
    await call("receipt/anonymous/pay", { id: approved.id, card: { number: "8600000000000008", expire: EXPIRY }, otp: OTPS[1] });
    await call("a2c/create", { ...transfer, tid: newTid(), receiver_card: "8600000000000008" });

    // Every record's outbox drained into the log and the queue, and the consumer delivered every event.
    for (const id of await listDurableObjectIds(env.RECEIPTS)) await runDurableObjectAlarm(env.RECEIPTS.get(id));
    queuedPayloads.push(...queue.sent.map((m) => m.payload));
    await queue.deliver();
  });

  afterAll(() => {
    vi.restoreAllMocks();
  });

  it("the search finds an OTP or expiry stored or logged as a value, and not inside numbers or identifiers", () => {
    for (const value of [EXPIRY, OTPS[3]!]) {
      for (const text of [`{"expire":"${value}"}`, `otp=${value}`, `{"otp":${value}}`, value]) expect(rawValuesIn(text)).toEqual([value]);
      for (const text of [
        `"request_id":"7dd${value}e-b689"`,
        `1795${value}407931`,
        `evt_01M81C${value}VCM`,
        `"upstream_tid":"7ebfbc49-${value.slice(0, 4)}-8a11"`,
      ])
        expect(rawValuesIn(text)).toEqual([]);
    }
  });

  it("the scenarios ran and printed log lines", () => {
    expect(logged.length).toBeGreaterThan(10);
  });

  it("no log line carries a raw card number, expiry, token or OTP", () => {
    for (const line of logged) expect(rawValuesIn(line), line).toEqual([]);
  });

  it("no gateway Durable Object stores one", async () => {
    const ids = await listDurableObjectIds(env.RECEIPTS);
    expect(ids.length).toBeGreaterThan(5);
    for (const id of ids) {
      for (const row of await dumpObject(env.RECEIPTS, id)) expect(rawValuesIn(row), row).toEqual([]);
    }
  });

  it("the sandbox's own storage keeps none either", async () => {
    for (const id of await listDurableObjectIds(env.SANDBOX!)) {
      const rows = await dumpObject(env.SANDBOX!, id);
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect(rawValuesIn(row), row).toEqual([]);
    }
  });

  it("no event carries one, as queued and delivered", () => {
    expect(queuedPayloads.length).toBeGreaterThan(10);
    for (const payload of queuedPayloads) expect(rawValuesIn(payload), payload).toEqual([]);
  });

  it("no D1 row stores one", async () => {
    const rows = await dumpD1();
    expect(rows.some((row) => /^tid_index(_\d)?:/.test(row))).toBe(true);
    expect(rows.filter((row) => /^events(_\d)?:/.test(row)).length, "the events were logged and scanned").toBeGreaterThan(10);
    for (const row of rows) expect(rawValuesIn(row), row).toEqual([]);
  });

  it("the masked form is what is kept", async () => {
    const rows = (await Promise.all((await listDurableObjectIds(env.RECEIPTS)).map((id) => dumpObject(env.RECEIPTS, id)))).flat();
    expect(rows.some((row) => row.includes("986000******0018"))).toBe(true);
  });
});

describe("card data the upstream sends back", () => {
  it("a refusal the gateway does not know, whose message carries a card number, reaches the caller masked", async () => {
    // The sandbox masks its own messages; a scripted upstream says what a real one might.
    scriptedUpstream.on("receipt/create", {
      kind: "status",
      status: 400,
      code: "ISSUER_BLOCKED",
      message: `Card ${PANS[0]} is blocked by its issuer`,
    });
    const res = await call("receipt/create", receiptRequest({ merchant_id: 1003 }));
    const text = await res.clone().text();
    const error = await expectError(res, 422, "upstream_refused");
    expect(error.upstream_code).toBe("ISSUER_BLOCKED");
    expect(error.message).toContain("860000******0007 is blocked by its issuer");
    expect(rawValuesIn(text)).toEqual([]);
  });

  it("a refusal whose code carries a card number is answered masked: in upstream_code and in the message", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    scriptedUpstream.on(
      "receipt/pay",
      { kind: "status", status: 400, code: `CARD_${PANS[0]}_BLOCKED`, message: `card ${PANS[0]} blocked` },
      { id: receipt.id },
    );
    const res = await call("receipt/pay", { id: receipt.id, card: { token: TOKENS[0] } });
    const text = await res.text();
    expect(res.status).toBe(422);
    expect(JSON.parse(text).error.upstream_code).toBe("CARD_860000******0007_BLOCKED");
    expect(rawValuesIn(text), text).toEqual([]);
  });

  it("a full card number in a transfer's sender or receiver masked_pan, whole or with spaces, is answered and stored masked", async () => {
    const created = (await (
      await call("a2c/create", { tid: newTid(), amount: 500_000, rate_id: 1, receiver_card: PANS[1], token: TOKENS[0] })
    ).json()) as any;
    const upstream = {
      ...created,
      sender: { ...created.sender, masked_pan: PANS[0] },
      receiver: { ...created.receiver, masked_pan: "9860 0000 0000 0018" },
    };
    scriptedUpstream.on("a2c/get-by-id", { kind: "body", body: JSON.stringify(upstream) }, { id: created.receipt_id });
    const res = await call("a2c/get-by-id", { id: created.receipt_id });
    const text = await res.clone().text();
    const read = (await res.json()) as any;
    expect(res.status, text).toBe(200);
    expect(read.sender.masked_pan).toBe("860000******0007");
    expect(read.receiver.masked_pan).toBe("986000******0018");
    const stored = (await dumpStorage(receiptStub(env, "transfer", created.receipt_id))).join("\n");
    for (const kept of [text, stored]) {
      expect(rawValuesIn(kept)).toEqual([]);
      expect(kept).not.toContain("9860 0000 0000 0018");
    }
  });

  it("a full card number in a receipt's card_number, written with dashes, is answered masked", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    const upstream = { ...receipt, card_number: "8600-0000-0000-0007" };
    scriptedUpstream.on("receipt/check-id", { kind: "body", body: JSON.stringify(upstream) }, { id: receipt.id });
    const read = await expectStatus(call("receipt/check-id", { id: receipt.id }), 200);
    expect(read.card_number).toBe("860000******0007");
    expect((await dumpStorage(receiptStub(env, "receipt", receipt.id))).join("\n")).not.toContain("8600-0000-0000-0007");
  });

  it("a refusal whose code carries a card number, met by the alarm with nobody calling, is logged masked", async () => {
    const lines: string[] = [];
    for (const method of ["log", "warn", "error"] as const) {
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        lines.push(args.map(String).join(" "));
      });
    }
    const receipt = await createReceipt({ merchant_id: 1003 });
    // A pay whose outcome is unknown (a 500 before the upstream acted): the record's alarm looks at the upstream...
    scriptedUpstream.on("receipt/pay", { kind: "status", status: 500, act: false }, { id: receipt.id });
    await expectError(call("receipt/pay", { id: receipt.id, card: { token: TOKENS[0] } }), 502, "upstream_error");
    // ...and its look is refused in a code that echoes a card number (a proxy's free text, say).
    scriptedUpstream.on("receipt/check-id", { kind: "status", status: 400, code: `CARD_${PANS[0]}_BLOCKED` }, { id: receipt.id });
    await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
    vi.restoreAllMocks();

    // The alarm's canonical line (its upstream call's outcome) and the fault's own line.
    const refused = lines.filter((line) => line.includes("CARD_"));
    expect(refused.map((line) => JSON.parse(line).event).sort()).toEqual(["alarm", "reconcile_failed"]);
    for (const line of refused) {
      expect(line).toContain("CARD_860000******0007_BLOCKED");
      expect(rawValuesIn(line), line).toEqual([]);
    }
  });
});
