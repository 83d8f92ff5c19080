/** Errors people can act on: 405 with Allow, 401 with a challenge, plain words, near-miss field names, at most 20 details. */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  API,
  call,
  callAt,
  createReceipt,
  expectError,
  expectStatus,
  newTid,
  newUser,
  OPERATION_PATHS,
  PARTNER_KEY,
  receiptRequest,
  sandboxCalls,
  userToken,
} from "../helpers";

const GATEWAY = "http://gateway.test/api/v1/gateway";
const validTransfer = () => ({ tid: newTid("a2c"), amount: 500_000, rate_id: 1, receiver_card: "9860000000000018", token: "tok_sandbox_ok" });
const paths = (errors: { details: { path: string }[] }) => errors.details.map((d) => d.path);
const messageAt = (errors: { details: { path: string; message: string }[] }, path: string) => errors.details.find((d) => d.path === path)?.message;

describe("405 method_not_allowed", () => {
  it("every partner and gateway operation asked with another method answers 405 with Allow: POST, before authentication", async () => {
    const urls = [...OPERATION_PATHS.map((p) => `${API}/${p}`), ...["receipt/audit", "events/list", "events/resend"].map((p) => `${GATEWAY}/${p}`)];
    for (const url of urls) {
      for (const method of ["GET", "PUT", "DELETE", "PATCH"]) {
        const res = await exports.default.fetch(url, { method });
        const error = await expectError(res, 405, "method_not_allowed");
        expect(res.headers.get("allow"), `${method} ${url}`).toBe("POST");
        expect(error.message).toContain("POST");
      }
    }
  });

  it("/healthz and /readyz asked with another method than GET or HEAD answer 405 with Allow: GET, HEAD", async () => {
    for (const path of ["/healthz", "/readyz"]) {
      for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"]) {
        const res = await exports.default.fetch(`http://gateway.test${path}`, { method });
        const error = await expectError(res, 405, "method_not_allowed");
        expect(res.headers.get("allow"), `${method} ${path}`).toBe("GET, HEAD");
        expect(error.message).toContain("GET");
      }
      for (const method of ["GET", "HEAD"]) {
        const res = await exports.default.fetch(`http://gateway.test${path}`, { method });
        expect(res.status, `${method} ${path}`).toBe(200);
        await res.body?.cancel();
      }
    }
  });

  it("a path that is no operation stays 404 not_found, whatever the method", async () => {
    for (const method of ["GET", "POST"]) {
      const res = await exports.default.fetch(`${API}/receipt/nothing`, {
        method,
        headers: { authorization: `Bearer ${PARTNER_KEY}`, "content-type": "application/json" },
        body: method === "POST" ? "{}" : undefined,
      });
      await expectError(res, 404, "not_found");
      expect(res.headers.get("allow")).toBeNull();
    }
  });
});

describe("401 unauthorized carries WWW-Authenticate", () => {
  it("no credential: the bare Bearer challenge", async () => {
    const res = await call("receipt/check-id", { id: "abc" }, { token: null });
    await expectError(res, 401, "unauthorized");
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="payments-gateway"');
  });

  it('a credential that is refused: error="invalid_token"', async () => {
    const expired = await userToken(newUser(), { expiresIn: -3600 });
    for (const token of ["sk_wrong_key", "not-a-jwt", expired]) {
      const res = await call("receipt/check-id", { id: "abc" }, { token });
      await expectError(res, 401, "unauthorized");
      expect(res.headers.get("www-authenticate"), token.slice(0, 12)).toBe('Bearer realm="payments-gateway", error="invalid_token"');
    }
  });

  it("other errors carry no challenge", async () => {
    const res = await call("receipt/check-id", { id: 1 });
    await expectError(res, 400, "invalid_request");
    expect(res.headers.get("www-authenticate")).toBeNull();
  });
});

describe("a field an operation does not define is refused, naming the one it was probably meant to be", () => {
  it('{"is_hodl": true} creates nothing (no receipt the next pay debits at once), reaches no upstream, and the tid stays free', async () => {
    const before = (await sandboxCalls()).length;
    const body = receiptRequest({ merchant_id: 1003 });
    const error = await expectError(call("receipt/create", { ...body, is_hodl: true }), 400, "invalid_request");
    expect(error.details).toEqual([{ path: "is_hodl", message: "unknown field is_hodl: did you mean is_hold?" }]);
    expect((await sandboxCalls()).length).toBe(before);
    await expectError(call("receipt/check-tid", { tid: body.tid }), 404, "receipt_not_found");
  });

  it("an OTP sent as `otpp` is refused before the pay: nothing is debited, and the OTP sent as `otp` pays", async () => {
    const receipt = await createReceipt({ merchant_id: 1001 });
    const card = { token: "tok_sandbox_ok" };
    await expectStatus(call("receipt/authorize", { id: receipt.id, card }), 200);
    const before = (await sandboxCalls()).length;
    const error = await expectError(call("receipt/pay", { id: receipt.id, card, otpp: "111111" }), 400, "invalid_request");
    expect(error.details).toEqual([{ path: "otpp", message: "unknown field otpp: did you mean otp?" }]);
    expect((await sandboxCalls()).length).toBe(before);
    expect((await expectStatus(call("receipt/pay", { id: receipt.id, card, otp: "111111" }), 200)).state).toBe(4);
  });

  it("a cvv inside the card is named with no suggestion, and neither it nor the card is echoed", async () => {
    const before = (await sandboxCalls()).length;
    const card = { number: "8600000000000007", expire: "3012", cvv: "7391" };
    const res = await call("receipt/anonymous/authorize", { id: "abc", card }, { headers: { "x-request-id": "req-cvv" } });
    const text = await res.clone().text();
    const error = await expectError(res, 400, "invalid_request");
    expect(error.details).toEqual([{ path: "card.cvv", message: "unknown field card.cvv" }]);
    for (const secret of ["7391", "8600000000000007", "3012"]) expect(text).not.toContain(secret);
    expect((await sandboxCalls()).length).toBe(before);
  });

  it("a key that is itself a card number is masked where it is named", async () => {
    const res = await call("receipt/create", { ...receiptRequest(), "8600000000000007": "x" });
    const text = await res.clone().text();
    const error = await expectError(res, 400, "invalid_request");
    expect(error.details).toEqual([{ path: "860000******0007", message: "unknown field 860000******0007" }]);
    expect(text).not.toContain("8600000000000007");
  });

  it("a key that is a card number written with spaces (or dashes, or dots) is masked where it is named", async () => {
    for (const written of ["8600 0000 0000 0007", "8600-0000-0000-0007", "8600.0000.0000.0007"]) {
      const before = (await sandboxCalls()).length;
      const card = { number: "8600000000000007", expire: "3012", [written]: "1" };
      const res = await call("receipt/anonymous/authorize", { id: "abc", card });
      const text = await res.clone().text();
      const error = await expectError(res, 400, "invalid_request");
      expect(error.details, written).toEqual([{ path: "card.860000******0007", message: "unknown field card.860000******0007" }]);
      expect(text).not.toContain(written);
      expect(text.replace(/\D/g, "")).not.toContain("8600000000000007");
      expect((await sandboxCalls()).length).toBe(before);
    }
  });

  it("an unknown filter of events/list is refused, not dropped (which would list every event)", async () => {
    const error = await expectError(callAt(GATEWAY, "events/list", { recipt_id: "abc", status: "failed" }), 400, "invalid_request");
    expect(error.details).toEqual([
      { path: "recipt_id", message: "unknown field recipt_id: did you mean receipt_id?" },
      { path: "status", message: "unknown field status" },
    ]);
  });

  it("every operation, the partner's and the gateway's own, refuses a field it does not define", async () => {
    const before = (await sandboxCalls()).length;
    const urls = [
      ...OPERATION_PATHS.map((p) => `${API}/${p}`),
      ...["receipt/audit", "events/list", "events/resend", "users/erase"].map((p) => `${GATEWAY}/${p}`),
    ];
    for (const url of urls) {
      const res = await exports.default.fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${PARTNER_KEY}` },
        body: JSON.stringify({ unexpected: true }),
      });
      const error = await expectError(res, 400, "invalid_request");
      expect(error.details, url).toContainEqual({ path: "unexpected", message: "unknown field unexpected" });
    }
    expect((await sandboxCalls()).length).toBe(before);
  });

  it('{"isHold": true} creates nothing (no receipt without a hold) and reaches no upstream', async () => {
    const before = (await sandboxCalls()).length;
    const { is_hold: _, ...body } = receiptRequest();
    const error = await expectError(call("receipt/create", { ...body, isHold: true }), 400, "invalid_request");
    expect(error.details).toContainEqual({ path: "isHold", message: "unknown field isHold: did you mean is_hold?" });
    expect((await sandboxCalls()).length).toBe(before);
    // The tid was not taken: the corrected request creates the held receipt.
    const res = await call("receipt/create", { ...body, is_hold: true });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { tid: string }).tid).toBe(body.tid);
  });

  it.each([
    ["receipt/create", { ...receiptRequest(), merchantId: 1001 }, "merchantId", "merchant_id"],
    ["receipt/create", { ...receiptRequest(), IS_HOLD: true }, "IS_HOLD", "is_hold"],
    ["receipt/create", { ...receiptRequest(), tId: "x-1" }, "tId", "tid"],
    ["receipt/check-tid", { tid: "x-1", tId: "x-1" }, "tId", "tid"],
    ["receipt/check-id", { receiptId: "abc" }, "receiptId", "id"],
    ["receipt/check-id", { receipt_id: "abc" }, "receipt_id", "id"],
    ["a2c/get-by-id", { receipt_id: "abc" }, "receipt_id", "id"],
    ["receipt/authorize", { id: "abc", card: { Token: "tok_sandbox_ok" } }, "card.Token", "card.token"],
    ["receipt/create", { ...receiptRequest(), account: [{ key: "phone", Value: "1" }] }, "account.0.Value", "account.0.value"],
    ["receipt/create", { ...receiptRequest(), account: [{ key: "phone", value: "1", lable: "Phone" }] }, "account.0.lable", "account.0.label"],
    ["receipt/create", { ...receiptRequest(), merchnat_id: 1001 }, "merchnat_id", "merchant_id"],
    ["receipt/cancel", { id: "abc", cancelled_by: "me" }, "cancelled_by", "cancelledBy"],
    ["a2c/create", { ...validTransfer(), receiverCard: "9860000000000018" }, "receiverCard", "receiver_card"],
    ["receipt/pay", { id: "abc", card: { token: "tok_sandbox_ok" }, otp_code: "111111" }, "otp_code", "otp"],
    ["a2c/pay", { id: "abc", code: "111111" }, "code", "otp"],
    ["receipt/authorize", { id: "abc", card_token: "tok_sandbox_ok" }, "card_token", "card.token"],
    ["receipt/pay", { id: "abc", token: "tok_sandbox_ok" }, "token", "card.token"],
  ])("%s with %j names %s -> %s", async (path, body, wrong, right) => {
    const before = (await sandboxCalls()).length;
    const error = await expectError(call(path, body), 400, "invalid_request");
    expect(messageAt(error, wrong)).toBe(`unknown field ${wrong}: did you mean ${right}?`);
    expect((await sandboxCalls()).length).toBe(before);
  });

  it("a2c/create keeps tId as an alias of tid, though the document names tid only", async () => {
    const { tid, ...body } = validTransfer();
    const res = await call("a2c/create", { ...body, tId: tid });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(((await res.json()) as { tid: string }).tid).toBe(tid);
    // The same tid both ways is the same create: replayed.
    const again = await call("a2c/create", { ...body, tid, tId: tid });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    // Two different tids: refused, naming the documented field.
    const both = await expectError(call("a2c/create", { ...body, tid, tId: `${tid}-other` }), 400, "invalid_request");
    expect(both.details).toEqual([{ path: "tId", message: "unknown field tId: did you mean tid?" }]);
  });

  it("tid_conflict names the caller's own receipt that holds the tid, and how to read it", async () => {
    const receipt = await createReceipt();
    const error = await expectError(call("receipt/create", { ...receiptRequest({ tid: receipt.tid }), amount: 150_001 }), 409, "tid_conflict");
    expect(error.message).toBe(
      `This tid already created receipt ${receipt.id} with another body: read it with check-id or check-tid, or create with a new tid.`,
    );
  });

  it("a trailing slash is named as the only thing wrong", async () => {
    const error = await expectError(call("receipt/create/", receiptRequest()), 404, "not_found");
    expect(error.message).toBe("No such path: the operation is /api/v1/partner/receipt/create, without the trailing slash.");
  });

  it("any other unknown field is refused too, with no suggestion when nothing is close, inside an account entry as well", async () => {
    const body = receiptRequest();
    const error = await expectError(
      call("receipt/create", { ...body, note: "x", account: [{ key: "phone", value: "1", colour: "red" }] }),
      400,
      "invalid_request",
    );
    expect(error.details).toEqual([
      { path: "account.0.colour", message: "unknown field account.0.colour" },
      { path: "note", message: "unknown field note" },
    ]);
    await expectError(call("receipt/check-tid", { tid: body.tid }), 404, "receipt_not_found");
  });
});

describe("validation messages in plain words", () => {
  it("a missing field is required; a wrong type says what was expected and what came, never the value", async () => {
    const { merchant_id: _, ...body } = receiptRequest();
    const error = await expectError(call("receipt/create", { ...body, amount: "150000", is_hold: "yes" }), 400, "invalid_request");
    expect(messageAt(error, "merchant_id")).toBe("merchant_id is required");
    expect(messageAt(error, "amount")).toBe("amount must be a number");
    expect(messageAt(error, "is_hold")).toBe("is_hold must be a boolean");
    for (const detail of error.details) expect(detail.message).not.toMatch(/expected "|invalid type|150000|yes/);
  });

  it("an integer, a missing nested field, a non-object body", async () => {
    const fraction = await expectError(call("receipt/create", { ...receiptRequest(), amount: 1.5 }), 400, "invalid_request");
    expect(messageAt(fraction, "amount")).toBe("amount must be an integer number of tiyin");
    const nested = await expectError(call("receipt/authorize", { id: "abc", card: {} }), 400, "invalid_request");
    expect(messageAt(nested, "card.token")).toBe("card.token is required");
    const noCard = await expectError(call("receipt/authorize", { id: "abc", card: "tok" }), 400, "invalid_request");
    expect(messageAt(noCard, "card")).toBe("card must be an object, not a string");
    const string = await expectError(call("receipt/check-id", "abc"), 400, "invalid_request");
    expect(messageAt(string, "")).toBe("the body must be a JSON object, not a string");
    const text = await expectError(call("receipt/cancel", { id: "abc", reason: "r".repeat(300) }), 400, "invalid_request");
    expect(messageAt(text, "reason")).toBe("reason must be at most 256 characters");
  });

  it("card numbers, expiries and OTPs of the wrong type are not echoed", async () => {
    const res = await call("receipt/anonymous/pay", { id: "abc", card: { number: 8600000000000007, expire: 3012 }, otp: 987654 });
    const text = await res.text();
    expect(res.status).toBe(400);
    for (const secret of ["8600000000000007", "3012", "987654"]) expect(text).not.toContain(secret);
    const error = JSON.parse(text).error;
    expect(messageAt(error, "card.number")).toBe("card.number must be a string, not a number");
  });
});

describe("at most 20 details", () => {
  it("a body with thousands of problems lists 20 and says how many there were", async () => {
    const account = Array.from({ length: 1000 }, () => ({}));
    const body = JSON.stringify({ ...receiptRequest(), account });
    expect(body.length).toBeLessThan(16 * 1024);
    const error = await expectError(call("receipt/create", null, { raw: body }), 400, "invalid_request");
    expect(error.details).toHaveLength(20);
    expect(error.message).toMatch(/more than 20 problems/);
  });

  it("many near misses are capped too", async () => {
    const card = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`Token${"_".repeat(i)}`, "x"]));
    const error = await expectError(call("receipt/authorize", { id: "abc", card }), 400, "invalid_request");
    expect(error.details.length).toBeLessThanOrEqual(20);
    expect(paths(error)[0]).toMatch(/^card\.Token/);
  });
});

describe("the reference pages", () => {
  it("GET / points to /docs and /openapi.json; GET /docs is the offline Scalar page", async () => {
    const home = await exports.default.fetch("http://gateway.test/");
    expect(home.status).toBe(200);
    const homeText = await home.text();
    expect(homeText).toContain('href="/docs"');
    expect(homeText).toContain('href="/openapi.json"');
    const docs = await exports.default.fetch("http://gateway.test/docs");
    expect(docs.status).toBe(200);
    const html = await docs.text();
    expect(html).toContain('src="/vendor/scalar-api-reference.js"');
    expect(html).not.toMatch(/src="https?:|href="https?:/);
    expect(html).toContain('"withDefaultFonts": false');
    expect(html).toContain('"telemetry": false');
  });
});
