/**
 * The typed client in client/ (generated from openapi.json), driven against
 * the Worker itself: a receipt created, authorized, paid and checked, and a
 * transfer created, paid and read. Its types are checked by the root `tsc`
 * (strict), so a client that no longer fits the document does not compile.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createGatewayClient, type Receipt, verifyWebhook, WebhookVerificationError } from "../../client/src/index";
import schemaText from "../../client/src/schema.d.ts?raw";
import documentText from "../../openapi.json?raw";
import { parseWebhookSecrets } from "../../src/config-rules";
import { signWebhook } from "../../src/events/signing";
import { newTid, OTP_OK, PARTNER_KEY, transferRequest } from "../helpers";

const client = createGatewayClient({
  baseUrl: "http://gateway.test",
  token: PARTNER_KEY,
  fetch: (request) => exports.default.fetch(request),
});

async function sha256(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

describe("the typed client", () => {
  it("was generated from the committed openapi.json (run npm run client)", async () => {
    expect(schemaText, "client/src/schema.d.ts is out of date: run npm run client").toContain(`(sha256 ${await sha256(documentText)})`);
  });

  it("creates, authorizes, pays and checks a receipt", async () => {
    const tid = newTid("client");
    const created = await client.call("/api/v1/partner/receipt/create", {
      tid,
      amount: 150_000,
      merchant_id: 1001,
      account: [{ key: "phone", value: "998901234567" }],
    });
    if (!created.ok) throw new Error(created.error.code);
    const receipt: Receipt = created.data;
    expect(receipt).toMatchObject({ tid, state: 0, is_verify: true });

    const authorized = await client.call("/api/v1/partner/receipt/authorize", { id: receipt.id, card: { token: "tok_sandbox_ok" } });
    if (!authorized.ok) throw new Error(authorized.error.code);
    expect(authorized.data.sent).toBe(true);

    const paid = await client.call("/api/v1/partner/receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" }, otp: OTP_OK });
    if (!paid.ok) throw new Error(paid.error.code);
    expect(paid.data.state).toBe(4);

    const again = await client.call("/api/v1/partner/receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" }, otp: OTP_OK });
    expect(again.ok).toBe(false);
    if (!again.ok) {
      // The error's code is one of the codes pay documents: a typo here would not compile.
      const code: "receipt_already_paid" | Exclude<typeof again.error.code, "receipt_already_paid"> = again.error.code;
      expect(code).toBe("receipt_already_paid");
      expect(again.error.status).toBe(409);
    }

    const checked = await client.call("/api/v1/partner/receipt/check-id", { id: receipt.id });
    if (!checked.ok) throw new Error(checked.error.code);
    expect(checked.data.state).toBe(4);

    const conflict = await client.call("/api/v1/partner/receipt/create", { tid, amount: 150_001, merchant_id: 1001, account: [] });
    expect(conflict.ok).toBe(false);
    if (!conflict.ok && conflict.error.code === "tid_conflict") expect(conflict.error.request_id).toBe(conflict.response.headers.get("x-request-id"));
    else throw new Error("expected tid_conflict");
  });

  it("creates, pays and reads a transfer", async () => {
    const created = await client.call(
      "/api/v1/partner/a2c/create",
      transferRequest() as { tid: string; amount: number; rate_id: number; receiver_card: string; token: string },
    );
    if (!created.ok) throw new Error(created.error.code);
    const paid = await client.call("/api/v1/partner/a2c/pay", { id: created.data.receipt_id, otp: OTP_OK });
    if (!paid.ok) throw new Error(paid.error.code);
    expect(paid.data.state).toBe(4);
    const read = await client.call("/api/v1/partner/a2c/get-by-id", { id: created.data.receipt_id });
    if (!read.ok) throw new Error(read.error.code);
    expect(read.data).toMatchObject({ receipt_id: created.data.receipt_id, state: 4 });
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
