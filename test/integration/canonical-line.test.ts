/**
 * The canonical log line (src/shared/log.ts): a paid payment's requests each
 * write exactly one line, which carries what on-call reads of it (the route,
 * the status, the request id, the upstream call's name, outcome and
 * milliseconds, the record's state change), and no card data.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { receiptStub } from "../../src/record-stub";
import { redact } from "../../src/shared/redact";
import { CARD_OK, call, cardDataIn, createReceipt, expectError, expectStatus, OTP_OK, OTP_WRONG } from "../helpers";
import { printedLines } from "../support/printed-lines";

afterEach(() => vi.restoreAllMocks());

/**
 * A receipt id as a log line shows it: every field passes through `redact`, which masks any run of 12 digits,
 * and one sandbox id in about fifty has such a run among its hex (a log cannot tell it from a card number typed
 * into the id field).
 */
const logged = (id: string): string => redact(id) as string;

describe("the canonical line", () => {
  it("a paid payment logs exactly one line per request, each carrying its upstream call, the pay its state change", async () => {
    const lines = printedLines();
    const receipt = await createReceipt({ merchant_id: 1001 });
    const authorize = await call("receipt/anonymous/authorize", { id: receipt.id, card: CARD_OK });
    await expectStatus(authorize.clone(), 200);
    const pay = await call("receipt/anonymous/pay", { id: receipt.id, card: CARD_OK, otp: OTP_OK });
    expect((await expectStatus(pay.clone(), 200)).state).toBe(4);

    expect(lines.map((line) => [line.event, line.path, line.status])).toEqual([
      ["request", "/api/v1/partner/receipt/create", 200],
      ["request", "/api/v1/partner/receipt/anonymous/authorize", 200],
      ["request", "/api/v1/partner/receipt/anonymous/pay", 200],
    ]);
    const [created, authorized, paid] = lines;
    const ok = { upstream_status: 200, upstream_outcome: "ok", upstream_ms: expect.any(Number) };
    expect(created).toMatchObject({ level: "info", caller: "partner", id: logged(receipt.id), upstream: "receipt/create", ...ok });
    expect(authorized).toMatchObject({
      request_id: authorize.headers.get("x-request-id"),
      id: logged(receipt.id),
      upstream: "receipt/anonymous/authorize",
      ...ok,
    });
    expect(paid).toMatchObject({
      level: "info",
      request_id: pay.headers.get("x-request-id"),
      id: logged(receipt.id),
      upstream: "receipt/anonymous/pay",
      ...ok,
      state_from: 0,
      state_to: 4,
      ms: expect.any(Number),
    });
    // One call each: no list of calls beside the flat fields.
    for (const line of lines) expect(line).not.toHaveProperty("upstream_calls");
    for (const line of lines)
      expect(cardDataIn(JSON.stringify(line), { pans: [CARD_OK.number], otps: [OTP_OK], expiries: [CARD_OK.expire] })).toEqual([]);
  });

  it("a refused pay's line names its error code and the upstream's refusal", async () => {
    const receipt = await createReceipt({ merchant_id: 1001 });
    await expectStatus(call("receipt/anonymous/authorize", { id: receipt.id, card: CARD_OK }), 200);
    const lines = printedLines();
    await expectError(call("receipt/anonymous/pay", { id: receipt.id, card: CARD_OK, otp: OTP_WRONG }), 422, "otp_invalid");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ event: "request", status: 422, code: "otp_invalid", id: logged(receipt.id), upstream_outcome: "OTP_INVALID" });
    expect(lines[0]).toMatchObject({ upstream: "receipt/anonymous/pay", upstream_status: expect.any(Number), upstream_ms: expect.any(Number) });
    expect(lines[0]).not.toHaveProperty("state_to");
  });

  it("a record's alarm with nothing to tell (its events drained, its trail exported) writes no line", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" } }), 200);
    const lines = printedLines();
    const ran = await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
    expect(ran).toBe(true);
    expect(lines).toEqual([]);
  });
});
