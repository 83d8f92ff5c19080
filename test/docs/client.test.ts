/**
 * The typed client in client/ (generated from openapi.json), driven against
 * the Worker itself: the whole flow through its resource methods, its typed
 * errors, and what it does when the network or the gateway fails (a create
 * is retried with the same tid and body and shows `replayed`; a money move is
 * retried with the one Idempotency-Key of its call, so it happens once, and
 * is `outcome_unknown` only when its last attempt met no answer). Its types
 * are checked by the root `tsc` (strict) and, built, under each module
 * resolution (client's typecheck).
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createGatewayClient, type GatewayClient, type Receipt, verifyWebhook, WebhookVerificationError } from "../../client/src/index";
import schemaText from "../../client/src/schema.ts?raw";
import documentText from "../../openapi.json?raw";
import { parseWebhookSecrets } from "../../src/config/config-lists";
import { signWebhook } from "../../src/events/signing";
import { loggedEventTypes } from "../events";
import { call, newTid, OTP_OK, OTP_WRONG, PARTNER_KEY, sandboxCalls, transferRequest } from "../helpers";
import { scriptedUpstream } from "../support/scripted-upstream";

const worker = (request: Request) => exports.default.fetch(request);
const noWait = async () => {};
const client = createGatewayClient({ baseUrl: "http://gateway.test", token: PARTNER_KEY, fetch: worker, sleep: noWait });

async function sha256(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

const receiptBody = (tid = newTid("client"), merchant_id = 1001) => ({
  tid,
  amount: 150_000,
  merchant_id,
  account: [{ key: "phone", value: "998901234567" }],
});

/** A fetch to the Worker that notes each request's Idempotency-Key and the status answered (null: no answer). */
function spied(inner: (request: Request) => Promise<Response> = worker) {
  const sent: { key: string | null; status: number | null }[] = [];
  const fetch = async (request: Request) => {
    const seen = { key: request.headers.get("idempotency-key"), status: null as number | null };
    sent.push(seen);
    const response = await inner(request);
    seen.status = response.status;
    return response;
  };
  return { fetch, sent };
}

const paysUpstream = async (id: string) => (await sandboxCalls()).filter((c) => c.path === "receipt/pay" && c.id === id);

/** A receipt of merchant 1003 (no OTP), created through the client. */
async function payableReceipt(): Promise<Receipt> {
  const created = await client.receipts.create(receiptBody(undefined, 1003));
  if (!created.ok) throw new Error(created.error.code);
  return created.data;
}

/** A fetch that fails the first `failures` requests of `path` as `how`, after (or instead of) reaching the gateway. */
function flaky(path: string, failures: number, how: "lost-before" | "lost-after" | "502-html") {
  const seen: string[] = [];
  let left = failures;
  const fetch = async (request: Request) => {
    seen.push(await request.clone().text());
    if (!request.url.endsWith(path) || left <= 0) return worker(request);
    left--;
    if (how === "lost-before") throw new TypeError("Network request failed");
    if (how === "502-html") return new Response("<html>Bad gateway</html>", { status: 502, headers: { "content-type": "text/html" } });
    await worker(request);
    throw new TypeError("Network request failed");
  };
  return { fetch, seen };
}

describe("the typed client", () => {
  it("was generated from the committed openapi.json (run npm run client)", async () => {
    expect(schemaText, "client/src/schema.ts is out of date: run npm run client").toContain(`(sha256 ${await sha256(documentText)})`);
  });

  it("creates, authorizes, pays and reads a receipt through its resource methods, with a token asked for on every call", async () => {
    let asked = 0;
    const counting = createGatewayClient({
      baseUrl: "http://gateway.test/",
      token: async () => {
        asked++;
        return PARTNER_KEY;
      },
      fetch: worker,
    });
    const created = await counting.receipts.create(receiptBody());
    if (!created.ok) throw new Error(created.error.code);
    const receipt: Receipt = created.data;
    expect(receipt).toMatchObject({ state: 0, is_verify: true });
    expect(created.replayed).toBe(false);
    expect(created.requestId).toBe(created.response?.headers.get("x-request-id"));

    const authorized = await counting.receipts.authorize(
      { id: receipt.id, card: { token: "tok_sandbox_ok" } },
      { headers: { "x-request-id": "client-test-1" } },
    );
    if (!authorized.ok) throw new Error(authorized.error.code);
    expect(authorized.data.sent).toBe(true);
    expect(authorized.requestId).toBe("client-test-1");

    const wrong = await counting.receipts.pay({ id: receipt.id, card: { token: "tok_sandbox_ok" }, otp: OTP_WRONG });
    if (wrong.ok || wrong.error.code !== "otp_invalid") throw new Error("expected otp_invalid");
    const left: number = wrong.error.attempts_left;
    expect(left).toBe(2);
    expect(wrong.error.status).toBe(422);

    const paid = await counting.receipts.pay({ id: receipt.id, card: { token: "tok_sandbox_ok" }, otp: OTP_OK });
    if (!paid.ok) throw new Error(paid.error.code);
    expect(paid.data.state).toBe(4);
    const read = await counting.receipts.get({ id: receipt.id });
    expect(read.ok && read.data.state).toBe(4);
    expect(asked).toBe(5);

    const again = await counting.receipts.pay({ id: receipt.id, card: { token: "tok_sandbox_ok" }, otp: OTP_OK });
    if (again.ok) throw new Error("paid twice");
    // The error's code is one of the codes pay documents (or the client's own): a typo here would not compile.
    const code: "receipt_already_paid" | Exclude<typeof again.error.code, "receipt_already_paid"> = again.error.code;
    expect(code).toBe("receipt_already_paid");
  });

  it("creates, pays and reads a transfer", async () => {
    const created = await client.transfers.create(
      transferRequest() as { tid: string; amount: number; rate_id: number; receiver_card: string; token: string },
    );
    if (!created.ok) throw new Error(created.error.code);
    const paid = await client.transfers.pay({ id: created.data.receipt_id, otp: OTP_OK });
    expect(paid.ok && paid.data.state).toBe(4);
    const read = await client.transfers.get({ id: created.data.receipt_id });
    expect(read.ok && read.data).toMatchObject({ receipt_id: created.data.receipt_id, state: 4 });
  });

  it("refuses a wrong body at compile time", () => {
    const wrong = (c: GatewayClient) =>
      // @ts-expect-error a2c/create's body is typed: tid, amount, rate_id, receiver_card and token are required
      c.call("/api/v1/partner/a2c/create", { totally: "wrong" });
    expect(typeof wrong).toBe("function");
  });

  it("retries a create whose answer was lost with the same tid and body, and shows it replayed", async () => {
    const body = receiptBody();
    const lost = flaky("/receipt/create", 1, "lost-after");
    const retrying = createGatewayClient({ baseUrl: "http://gateway.test", token: PARTNER_KEY, fetch: lost.fetch, sleep: noWait });
    const created = await retrying.receipts.create(body);
    if (!created.ok) throw new Error(created.error.code);
    expect(created).toMatchObject({ replayed: true, attempts: 2 });
    expect(lost.seen).toEqual([JSON.stringify(body), JSON.stringify(body)]);
    const creates = (await sandboxCalls()).filter((c) => c.path.endsWith("receipt/create") && c.tid === body.tid);
    expect(creates).toHaveLength(1);
  });

  it("retries a create after a 5xx without the gateway's answer, and gives up as a result, never a throw", async () => {
    const proxy = flaky("/receipt/create", 1, "502-html");
    const created = await createGatewayClient({
      baseUrl: "http://gateway.test",
      token: PARTNER_KEY,
      fetch: proxy.fetch,
      sleep: noWait,
    }).receipts.create(receiptBody());
    expect(created.ok && created.attempts).toBe(2);
    const down = flaky("/receipt/create", 10, "lost-before");
    const failed = await createGatewayClient({
      baseUrl: "http://gateway.test",
      token: PARTNER_KEY,
      fetch: down.fetch,
      sleep: noWait,
      retries: 2,
    }).receipts.create(receiptBody());
    expect(failed).toMatchObject({ ok: false, attempts: 3, error: { code: "network_error" } });
  });

  it.each([
    ["the gateway's connection to the upstream", "upstream"],
    ["the app's connection to the gateway", "app"],
  ] as const)(
    "retries a pay whose answer was lost after the upstream paid (%s), with the same key: one debit, one receipt.paid, state 4",
    async (_name, where) => {
      const created = await client.receipts.create(receiptBody());
      if (!created.ok) throw new Error(created.error.code);
      const { id } = created.data;
      await client.receipts.authorize({ id, card: { token: "tok_sandbox_ok" } });
      // upstream: the sandbox pays, then its connection to the gateway breaks (the gateway answers 502 upstream_error).
      // app: the gateway answers the payment, then the app's connection breaks before it arrives.
      if (where === "upstream") scriptedUpstream.on("receipt/pay", { kind: "lost" }, { id });
      const spy = spied(where === "app" ? flaky("/receipt/pay", 1, "lost-after").fetch : worker);
      const paying = createGatewayClient({ baseUrl: "http://gateway.test", token: PARTNER_KEY, fetch: spy.fetch, sleep: noWait });

      const paid = await paying.receipts.pay({ id, card: { token: "tok_sandbox_ok" }, otp: OTP_OK });

      if (!paid.ok) throw new Error(`expected the payment, got ${paid.error.code}`);
      const state: number = paid.data.state;
      expect(state).toBe(4);
      expect(paid).toMatchObject({ replayed: true, attempts: 2 });
      expect(spy.sent.map((s) => s.status)).toEqual(where === "upstream" ? [502, 200] : [null, 200]);
      const [first, second] = spy.sent.map((s) => s.key);
      expect(first).toMatch(/^[0-9a-f-]{36}$/);
      expect(second).toBe(first);
      expect(paid.idempotencyKey).toBe(first);
      expect(await paysUpstream(id)).toHaveLength(1);
      expect((await loggedEventTypes("receipt", id)).filter((type) => type === "receipt.paid")).toHaveLength(1);
    },
  );

  it("retries a pay that met a busy upstream (503 with Retry-After) after the wait, and it pays", async () => {
    const { id } = await payableReceipt();
    scriptedUpstream.on("receipt/pay", { kind: "status", status: 503, code: "BUSY", retryAfter: 2 }, { id });
    const waits: number[] = [];
    const spy = spied();
    const paying = createGatewayClient({
      baseUrl: "http://gateway.test",
      token: PARTNER_KEY,
      fetch: spy.fetch,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    const paid = await paying.receipts.pay({ id, card: { token: "tok_sandbox_ok" } });
    if (!paid.ok) throw new Error(paid.error.code);
    expect(paid).toMatchObject({ replayed: false, attempts: 2, data: { state: 4 } });
    expect(spy.sent.map((s) => s.status)).toEqual([503, 200]);
    expect(new Set(spy.sent.map((s) => s.key)).size).toBe(1);
    expect(waits).toEqual([2000]);
    expect((await paysUpstream(id)).map((c) => c.status)).toEqual([200]);
  });

  it("retries a pay answered operation_in_progress (its key's first request still in flight) and gets that request's answer", async () => {
    const { id } = await payableReceipt();
    const key = `order-${crypto.randomUUID()}`;
    const held = scriptedUpstream.hold("receipt/pay", { id });
    const first = call("receipt/pay", { id, card: { token: "tok_sandbox_ok" } }, { headers: { "Idempotency-Key": key } });
    await held.arrived;
    const spy = spied();
    const paying = createGatewayClient({
      baseUrl: "http://gateway.test",
      token: PARTNER_KEY,
      fetch: spy.fetch,
      // The wait the gateway asked for: meanwhile the first request's answer arrives.
      sleep: async () => {
        held.release();
        await first;
      },
    });
    const paid = await paying.receipts.pay({ id, card: { token: "tok_sandbox_ok" } }, { idempotencyKey: key });
    expect(paid).toMatchObject({ ok: true, replayed: true, attempts: 2, idempotencyKey: key, data: { state: 4 } });
    expect(spy.sent.map((s) => [s.status, s.key])).toEqual([
      [409, key],
      [200, key],
    ]);
    expect(await paysUpstream(id)).toHaveLength(1);
  });

  it("is outcome_unknown only when every attempt met no answer; the same idempotencyKey later (an app restart) answers what happened, once", async () => {
    const { id } = await payableReceipt();
    const down = flaky("/receipt/pay", 3, "lost-after");
    const lost = await createGatewayClient({ baseUrl: "http://gateway.test", token: PARTNER_KEY, fetch: down.fetch, sleep: noWait }).receipts.pay({
      id,
      card: { token: "tok_sandbox_ok" },
    });
    if (lost.ok || lost.error.code !== "outcome_unknown") throw new Error("expected outcome_unknown");
    expect(lost).toMatchObject({ attempts: 3, requestId: null, error: { cause: "network_error", status: null } });
    expect(lost.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);

    // A new client, as after a restart, with the key the app kept.
    const again = await client.receipts.pay({ id, card: { token: "tok_sandbox_ok" } }, { idempotencyKey: lost.idempotencyKey! });
    expect(again).toMatchObject({ ok: true, replayed: true, attempts: 1, data: { state: 4 } });
    expect(await paysUpstream(id)).toHaveLength(1);
    // A new call without the key is a new pay: refused, already paid.
    const fresh = await client.receipts.pay({ id, card: { token: "tok_sandbox_ok" } });
    expect(fresh).toMatchObject({ ok: false, error: { code: "receipt_already_paid" } });
    expect(fresh.idempotencyKey).not.toBe(lost.idempotencyKey);
  });

  it("answers a code it does not know (a newer gateway's) as unknown_error, one case of its error union", async () => {
    const newer = async () =>
      Response.json(
        { error: { code: "card_frozen", message: "The card is frozen.", request_id: "req-newer" } },
        { status: 422, headers: { "x-request-id": "req-newer" } },
      );
    const paying = createGatewayClient({ baseUrl: "http://gateway.test", token: PARTNER_KEY, fetch: newer, sleep: noWait });
    const paid = await paying.receipts.pay({ id: "r-1", card: { token: "tok_sandbox_ok" } });
    if (paid.ok) throw new Error("expected an error");
    expect(paid.error).toMatchObject({ code: "unknown_error", gatewayCode: "card_frozen", status: 422, message: "The card is frozen." });
    // `unknown_error` is a case of the union (a case it lacks would not compile), and narrows to what it carries.
    const shown = (error: typeof paid.error): string => {
      switch (error.code) {
        case "unknown_error":
          return `HTTP ${error.status}: ${error.gatewayCode}`;
        case "otp_invalid":
          return `${error.attempts_left} left`;
        default:
          return error.code;
      }
    };
    expect(shown(paid.error)).toBe("HTTP 422: card_frozen");
    // A code it knows stays itself.
    const missing = await client.receipts.get({ id: "rcpt-that-does-not-exist" });
    expect(missing).toMatchObject({ ok: false, error: { code: "receipt_not_found" } });
  });

  it("answers an abort and a timeout as results", async () => {
    const aborted = await client.receipts.get({ id: "x" }, { signal: AbortSignal.abort() });
    expect(aborted).toMatchObject({ ok: false, attempts: 1, error: { code: "aborted" } });
    const never = (request: Request) =>
      new Promise<Response>((_resolve, reject) => request.signal.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))));
    const slow = createGatewayClient({ baseUrl: "http://gateway.test", token: PARTNER_KEY, fetch: never, sleep: noWait, retries: 0 });
    expect(await slow.receipts.get({ id: "x" }, { timeoutMs: 5 })).toMatchObject({ ok: false, error: { code: "timeout" } });
    expect(await slow.receipts.pay({ id: "x", card: { token: "t" } }, { timeoutMs: 5 })).toMatchObject({
      ok: false,
      error: { code: "outcome_unknown", cause: "timeout" },
    });
  });

  it("verifies a webhook the gateway signed, and refuses a tampered one", async () => {
    const secret = "whsec_bG9jYWwtZGV2LXdlYmhvb2stc2VjcmV0";
    const body = JSON.stringify({ id: "evt_01JDQ3ZK6Y8N4W5X2V7T9R1M0B", type: "receipt.paid", created: 1, sequence: 2, request_id: "r", data: {} });
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = await signWebhook(parseWebhookSecrets(secret).keys, "evt_01JDQ3ZK6Y8N4W5X2V7T9R1M0B", timestamp, body);
    const headers = { "webhook-id": "evt_01JDQ3ZK6Y8N4W5X2V7T9R1M0B", "webhook-timestamp": String(timestamp), "webhook-signature": signature };
    const event = await verifyWebhook(secret, headers, body);
    expect(event.type).toBe("receipt.paid");
    await expect(verifyWebhook(secret, headers, body.replace("paid", "held"))).rejects.toBeInstanceOf(WebhookVerificationError);
    await expect(verifyWebhook(secret, headers, body, { now: Date.now() + 3_600_000 })).rejects.toBeInstanceOf(WebhookVerificationError);
  });
});
