import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { isValidExpiry, passesLuhn } from "../../src/api/schemas";
import { API, call, createReceipt, expectError, newTid, PARTNER_KEY, OPERATION_PATHS as paths, receiptRequest, sandboxCalls } from "../helpers";

const now = new Date();
const yyMM = (date: Date) => `${String(date.getUTCFullYear() % 100).padStart(2, "0")}${String(date.getUTCMonth() + 1).padStart(2, "0")}`;
const lastMonth = yyMM(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)));
const thisMonth = yyMM(now);

const card = { number: "8600000000000007", expire: "3012" };
const validCreate = { tid: "v-1", amount: 150_000, merchant_id: 1001, account: [{ key: "phone", value: "998901234567" }] };
const validTransfer = { tid: "v-2", amount: 500_000, rate_id: 1, receiver_card: "9860000000000018", token: "tok_sandbox_ok" };

/** [path, body, the detail path that must be named] — each refused with 400 invalid_request. */
const INVALID: [string, unknown, string][] = [
  ["receipt/create", { ...validCreate, tid: undefined }, "tid"],
  ["receipt/create", { ...validCreate, tid: "has space" }, "tid"],
  ["receipt/create", { ...validCreate, tid: "x".repeat(65) }, "tid"],
  ["receipt/create", { ...validCreate, amount: 0 }, "amount"],
  ["receipt/create", { ...validCreate, amount: -100 }, "amount"],
  ["receipt/create", { ...validCreate, amount: 1.5 }, "amount"],
  ["receipt/create", { ...validCreate, amount: "150000" }, "amount"],
  ["receipt/create", { ...validCreate, amount: 2 ** 53 }, "amount"],
  ["receipt/create", { ...validCreate, merchant_id: undefined }, "merchant_id"],
  ["receipt/create", { ...validCreate, account: "phone" }, "account"],
  ["receipt/create", { ...validCreate, account: [{ value: "x" }] }, "account.0.key"],
  ["receipt/create", { ...validCreate, currency: 840 }, "currency"],
  ["receipt/create", { ...validCreate, is_hold: "yes" }, "is_hold"],
  ["receipt/create", { ...validCreate, description: "d".repeat(257) }, "description"],
  ["receipt/create", [], ""],
  ["receipt/create", [validCreate], ""],
  ["receipt/create", null, ""],
  ["receipt/authorize", { id: "abc" }, "card"],
  ["receipt/authorize", { id: "abc", card: { token: "" } }, "card.token"],
  ["receipt/authorize", { id: "a/b", card: { token: "tok_sandbox_ok" } }, "id"],
  ["receipt/anonymous/authorize", { id: "abc", card: { ...card, number: "860000000000007" } }, "card.number"],
  ["receipt/anonymous/authorize", { id: "abc", card: { ...card, number: "8600000000000008" } }, "card.number"],
  ["receipt/anonymous/authorize", { id: "abc", card: { ...card, number: "8600 0000 0000 0007" } }, "card.number"],
  ["receipt/anonymous/authorize", { id: "abc", card: { ...card, number: 8600000000000007 } }, "card.number"],
  ["receipt/anonymous/authorize", { id: "abc", card: { ...card, expire: lastMonth } }, "card.expire"],
  ["receipt/anonymous/authorize", { id: "abc", card: { ...card, expire: "3013" } }, "card.expire"],
  ["receipt/anonymous/authorize", { id: "abc", card: { ...card, expire: "3000" } }, "card.expire"],
  ["receipt/anonymous/authorize", { id: "abc", card: { ...card, expire: "12/30" } }, "card.expire"],
  ["receipt/pay", { id: "abc", card: { token: "tok_sandbox_ok" }, otp: "12" }, "otp"],
  ["receipt/pay", { id: "abc", card: { token: "tok_sandbox_ok" }, otp: "12ab56" }, "otp"],
  ["receipt/pay", { id: "abc", card: { token: "tok_sandbox_ok" }, otp: 111111 }, "otp"],
  ["receipt/anonymous/pay", { id: "abc", card }, "otp"],
  ["receipt/anonymous/pay", { id: "abc", card, otp: "123456789" }, "otp"],
  ["receipt/hold-confirm", {}, "id"],
  ["receipt/cancel", { id: "abc", reason: "r".repeat(257) }, "reason"],
  ["receipt/check-id", { id: 42 }, "id"],
  ["receipt/check-tid", { tid: "" }, "tid"],
  ["a2c/create", { ...validTransfer, receiver_card: "9860000000000019" }, "receiver_card"],
  ["a2c/create", { ...validTransfer, tid: undefined }, "tid"],
  ["a2c/create", { ...validTransfer, tId: "other" }, "tId"],
  ["a2c/create", { ...validTransfer, rate_id: 0 }, "rate_id"],
  ["a2c/create", { ...validTransfer, token: "tok with space" }, "token"],
  ["a2c/pay", { id: "abc", otp: "1234567890" }, "otp"],
  ["a2c/get-by-id", { id: ["abc"] }, "id"],
];

describe("input refused at the edge", () => {
  it.each(INVALID)("%s %j is invalid_request naming %s, and nothing reaches the upstream", async (path, body, detailPath) => {
    const before = (await sandboxCalls()).length;
    const error = await expectError(call(path, body), 400, "invalid_request");
    expect(error.details.map((d: { path: string }) => d.path)).toContain(detailPath);
    expect((await sandboxCalls()).length).toBe(before);
  });

  it("says a tid is ASCII: a Cyrillic one is told so", async () => {
    const error = await expectError(call("receipt/create", { ...receiptRequest(), tid: "заказ-1" }), 400, "invalid_request");
    expect(error.details).toEqual([{ path: "tid", message: expect.stringContaining("ASCII characters: letters A-Z or a-z") }]);
  });

  it("never echoes a card number, expiry or OTP in an error", async () => {
    const secrets = ["8600000000000008", "4111111111111", "30133", "9876543", "tok with space"];
    const bodies = [
      { id: "abc", card: { number: secrets[0], expire: "3012" }, otp: "111111" },
      { id: "abc", card: { number: Number(secrets[1]), expire: Number(secrets[2]) }, otp: Number(secrets[3]) },
      { id: "abc", card: { token: secrets[4] }, otp: "9876543210123" },
    ];
    for (const body of bodies) {
      for (const path of ["receipt/anonymous/pay", "receipt/pay"]) {
        const text = await (await call(path, body)).text();
        for (const secret of [...secrets, "9876543210123"]) expect(text).not.toContain(secret);
      }
    }
  });

  it("every operation's body is a JSON object: an array, string, number, boolean or null is invalid_request naming the body, and changes nothing", async () => {
    const GATEWAY = "http://gateway.test/api/v1/gateway";
    const urls = [...paths.map((p) => `${API}/${p}`), ...["receipt/audit", "events/list", "events/resend"].map((p) => `${GATEWAY}/${p}`)];
    const tid = newTid();
    const notObjects: [unknown, string][] = [
      [[{ ...validCreate, tid }], "an array"],
      [[], "an array"],
      ["{}", "a string"],
      [42, "a number"],
      [true, "a boolean"],
      [null, "null"],
    ];
    const before = (await sandboxCalls()).length;
    for (const url of urls) {
      for (const [body, kind] of notObjects) {
        const res = await exports.default.fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${PARTNER_KEY}` },
          body: JSON.stringify(body),
        });
        const error = await expectError(res, 400, "invalid_request");
        expect(error.details, `${url} ${JSON.stringify(body)}`).toEqual([{ path: "", message: `the body must be a JSON object, not ${kind}` }]);
      }
    }
    expect((await sandboxCalls()).length).toBe(before);
    // The create sent inside an array created nothing: its tid is unknown.
    await expectError(call("receipt/check-tid", { tid }), 404, "receipt_not_found");
  });

  it("a body that is not JSON is invalid_json, saying where it stops being JSON and never quoting it", async () => {
    await expectError(call("receipt/create", undefined, { raw: "{not json" }), 400, "invalid_json");
    const empty = await expectError(call("receipt/create", undefined, { raw: "" }), 400, "invalid_json");
    expect(empty.message).toBe("The request body is not valid JSON: it is empty.");
    const comma = await expectError(call("receipt/pay", undefined, { raw: '{"id": "abc",\n "otp": "987654",}' }), 400, "invalid_json");
    expect(comma.message).toBe("The request body is not valid JSON at line 2, column 18.");
    const cut = await expectError(call("receipt/pay", undefined, { raw: '{"id": "abc", "otp": "9876' }), 400, "invalid_json");
    expect(cut.message).not.toContain("9876");
  });

  it("a body that is not declared JSON is 415 unsupported_media_type", async () => {
    await expectError(call("receipt/create", validCreate, { headers: { "content-type": "text/plain" } }), 415, "unsupported_media_type");
    await expectError(
      call("receipt/create", validCreate, { headers: { "content-type": "application/x-www-form-urlencoded" } }),
      415,
      "unsupported_media_type",
    );
  });

  it("a body over 16 KiB is 413 payload_too_large, whatever Content-Length claims", async () => {
    const big = { ...validCreate, tid: newTid(), description: "x".repeat(17 * 1024) };
    await expectError(call("receipt/create", big), 413, "payload_too_large");
    const before = (await sandboxCalls()).length;
    const stream = new Blob([JSON.stringify(big)]).stream();
    const res = await exports.default.fetch(`${API}/receipt/create`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${PARTNER_KEY}` },
      body: stream,
    });
    await expectError(res, 413, "payload_too_large");
    expect((await sandboxCalls()).length).toBe(before);
  });

  it("an unknown path is 404 not_found; a GET of an operation is 405 (test/integration/errors.test.ts)", async () => {
    await expectError(call("receipt/unknown", {}), 404, "not_found");
    await expectError(exports.default.fetch(`${API}/receipt/create`), 405, "method_not_allowed");
    await expectError(exports.default.fetch("http://gateway.test/nothing-here"), 404, "not_found");
  });

  it("a refused pay changes nothing: the receipt is still payable and its OTP count untouched", async () => {
    const receipt = await createReceipt({ merchant_id: 1001 });
    expect((await call("receipt/authorize", { id: receipt.id, card: { token: "tok_sandbox_ok" } })).status).toBe(200);
    await expectError(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" }, otp: "1" }), 400, "invalid_request");
    const paid = await call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" }, otp: "111111" });
    expect(paid.status).toBe(200);
  });
});

describe("request ids", () => {
  it("every response carries X-Request-Id, and a caller's own id is kept", async () => {
    const ok = await exports.default.fetch("http://gateway.test/healthz");
    expect(ok.headers.get("x-request-id")).toMatch(/^[\w-]+$/);
    const refused = await call("receipt/create", {}, { headers: { "x-request-id": "app-req-42" } });
    expect(refused.headers.get("x-request-id")).toBe("app-req-42");
    expect(((await refused.json()) as any).error.request_id).toBe("app-req-42");
  });
});

describe("no input makes the gateway answer 500", () => {
  // A small deterministic generator of hostile JSON values.
  let seed = 7;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const pick = <T>(items: T[]): T => items[Math.floor(rand() * items.length)]!;
  const atoms = [null, true, 0, -1, 1e308, 2 ** 53, "", "0", "8600000000000007", "x".repeat(300), "💳", {}, [], "__proto__"];
  const value = (depth: number): unknown => {
    if (depth > 2 || rand() < 0.5) return pick(atoms);
    if (rand() < 0.5) return Array.from({ length: Math.floor(rand() * 3) }, () => value(depth + 1));
    const keys = ["id", "tid", "tId", "amount", "card", "otp", "token", "number", "expire", "account", "is_hold", "constructor"];
    return Object.fromEntries(Array.from({ length: Math.floor(rand() * 5) }, () => [pick(keys), value(depth + 1)]));
  };

  it("fuzzed bodies on every path answer 4xx with the envelope", async () => {
    for (let i = 0; i < 120; i++) {
      const path = paths[i % paths.length]!;
      const res = await call(path, value(0));
      expect(res.status, `${path}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${path}`).toBeLessThan(500);
      expect(((await res.json()) as any).error.code).toBeTruthy();
    }
  });
});

describe("field rules", () => {
  it("Luhn", () => {
    expect(passesLuhn("8600000000000007")).toBe(true);
    expect(passesLuhn("9860000000000018")).toBe(true);
    expect(passesLuhn("8600000000000008")).toBe(false);
  });

  it("expiry: a real month, this month or later", () => {
    expect(isValidExpiry(thisMonth)).toBe(true);
    expect(isValidExpiry(lastMonth)).toBe(false);
    expect(isValidExpiry("9912")).toBe(true);
    expect(isValidExpiry("3000")).toBe(false);
    expect(isValidExpiry("3013")).toBe(false);
  });
});
