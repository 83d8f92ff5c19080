#!/usr/bin/env node
/**
 * `npm run trigger -- <event type>`: makes, on a running `npm run dev` (or
 * another development deployment: --url), a receipt or transfer whose life
 * produces an event of that type, through the partner API and the sandbox's
 * test clocks and triggers (docs/testing-your-app.md), and waits until the
 * gateway has delivered it: a webhook receiver (`npm run listen`, or the
 * partner's own at WEBHOOK_URL) can be tested without an app, as with
 * `stripe trigger`. Every type docs/reference.md lists has its recipe here
 * (test/unit/trigger-recipes.test.ts holds the two equal).
 *
 *   npm run trigger                          # the types
 *   npm run trigger -- receipt.fiscalized
 *   npm run trigger -- transfer.expired --url http://127.0.0.1:8787
 *
 * Prints the record's id, the event's id and how its delivery stands; exits 1
 * when the event was not made, or not delivered within --wait seconds (is a
 * receiver listening?).
 */
import { parseArgs } from "node:util";

const PARTNER = { authorization: "Bearer sk_test_local_partner", "content-type": "application/json" };
const TOKEN_OK = { token: "tok_sandbox_ok" };
const WRONG_OTP = "222222";

/** A client of one gateway: the partner API and the sandbox's test clock. */
export function client(origin) {
  const post = async (path, body, accept = [200]) => {
    const res = await fetch(`${origin}${path}`, {
      method: "POST",
      headers: { ...PARTNER, "idempotency-key": crypto.randomUUID() },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (!accept.includes(res.status)) throw new Error(`${path}: ${res.status} ${text.slice(0, 500)}`);
    return text ? JSON.parse(text) : null;
  };
  const tid = (label) => `trigger-${label}-${crypto.randomUUID()}`;
  return {
    api: (path, body, accept) => post(`/api/v1/partner/${path}`, body, accept),
    gateway: (path, body) => post(`/api/v1/gateway/${path}`, body),
    advance: (kind, id, by) => post(`/__sandbox/${kind === "transfer" ? "a2c" : "receipts"}/${id}/advance`, { by }),
    trigger: (id, what) => post(`/__sandbox/receipts/${id}/trigger`, { what }),
    receipt: (overrides = {}) =>
      post("/api/v1/partner/receipt/create", {
        tid: tid("receipt"),
        amount: 150000,
        merchant_id: 1003,
        account: [{ key: "phone", value: "998901234567" }],
        ...overrides,
      }),
    transfer: (amount = 500000) =>
      post("/api/v1/partner/a2c/create", { tid: tid("transfer"), amount, rate_id: 1, receiver_card: "9860000000000018", token: "tok_sandbox_ok" }),
  };
}

/** A receipt paid with `card` (merchant 1003: no OTP). */
async function paid(c, card, overrides = {}) {
  const receipt = await c.receipt(overrides);
  await c.api("receipt/pay", { id: receipt.id, card });
  return receipt;
}

/** A fiscal-late receipt whose sale's fiscal data the gateway has found (its first fiscal read, reached by advancing). */
async function fiscalized(c) {
  const receipt = await paid(c, { token: "tok_sandbox_fiscal_late" });
  await c.trigger(receipt.id, "fiscal_data_appears");
  await c.advance("receipt", receipt.id, "5m");
  return receipt;
}

/** Three wrong OTPs on a receipt that needs one (merchant 1001). */
async function exhaustedReceipt(c) {
  const receipt = await c.receipt({ merchant_id: 1001 });
  await c.api("receipt/authorize", { id: receipt.id, card: TOKEN_OK });
  for (let i = 0; i < 3; i++) await c.api("receipt/pay", { id: receipt.id, card: TOKEN_OK, otp: WRONG_OTP }, [409, 422]);
  return receipt;
}

/** Three wrong OTPs on a transfer that needs one (amount from 1000000 tiyin). */
async function exhaustedTransfer(c) {
  const transfer = await c.transfer(1_000_000);
  for (let i = 0; i < 3; i++) await c.api("a2c/pay", { id: transfer.receipt_id, otp: WRONG_OTP }, [409, 422]);
  return transfer;
}

/** Each event type: the kind of record, and how to make one whose life produces it (answering the record's id). */
export const RECIPES = {
  "receipt.created": { kind: "receipt", make: async (c) => (await c.receipt()).id },
  "receipt.paid": { kind: "receipt", make: async (c) => (await paid(c, TOKEN_OK)).id },
  "receipt.held": { kind: "receipt", make: async (c) => (await paid(c, TOKEN_OK, { is_hold: true })).id },
  "receipt.awaiting_supplier": { kind: "receipt", make: async (c) => (await paid(c, { token: "tok_sandbox_supplier_pending" })).id },
  "receipt.cancelled": {
    kind: "receipt",
    make: async (c) => {
      const receipt = await c.receipt();
      await c.api("receipt/cancel", { id: receipt.id, reason: "npm run trigger" });
      return receipt.id;
    },
  },
  "receipt.otp_attempts_exhausted": { kind: "receipt", make: async (c) => (await exhaustedReceipt(c)).id },
  "receipt.fiscalized": { kind: "receipt", make: async (c) => (await fiscalized(c)).id },
  "receipt.refund_fiscalized": {
    kind: "receipt",
    make: async (c) => {
      const receipt = await fiscalized(c);
      await c.api("receipt/cancel", { id: receipt.id, reason: "npm run trigger" });
      await c.trigger(receipt.id, "refund_fiscal_data_appears");
      await c.advance("receipt", receipt.id, "5m");
      return receipt.id;
    },
  },
  "transfer.created": { kind: "transfer", make: async (c) => (await c.transfer()).receipt_id },
  "transfer.paid": {
    kind: "transfer",
    make: async (c) => {
      const transfer = await c.transfer();
      await c.api("a2c/pay", { id: transfer.receipt_id });
      return transfer.receipt_id;
    },
  },
  "transfer.cancelled": { kind: "transfer", make: async (c) => (await exhaustedTransfer(c)).receipt_id },
  "transfer.otp_attempts_exhausted": { kind: "transfer", make: async (c) => (await exhaustedTransfer(c)).receipt_id },
  "transfer.expired": {
    kind: "transfer",
    make: async (c) => {
      const transfer = await c.transfer();
      await c.advance("transfer", transfer.receipt_id, "25h");
      return transfer.receipt_id;
    },
  },
};

/**
 * Makes a record producing `type` on the gateway at `origin`, and waits up
 * to `waitMs` for that event to be delivered. Answers the record's id, the
 * event (null if it was never made) and whether it was delivered.
 */
export async function triggerEvent(origin, type, waitMs = 30_000) {
  const recipe = RECIPES[type];
  if (!recipe) throw new Error(`no event type ${type}`);
  const c = client(origin);
  const id = await recipe.make(c);
  const deadline = Date.now() + waitMs;
  let event = null;
  for (;;) {
    const { events } = await c.gateway("events/list", { receipt_id: id, limit: 100 });
    event = events.find((e) => e.type === type) ?? null;
    if (event?.delivery.status === "delivered" || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return { id, kind: recipe.kind, event, delivered: event?.delivery.status === "delivered" };
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { url: { type: "string", default: `http://127.0.0.1:${process.env.PORT ?? 8787}` }, wait: { type: "string", default: "30" } },
  });
  const [type] = positionals;
  if (!type) {
    console.log(`usage: npm run trigger -- <event type> [--url ${values.url}]\n\n${Object.keys(RECIPES).join("\n")}`);
    process.exit(0);
  }
  if (!RECIPES[type]) {
    console.error(`npm run trigger: no event type ${JSON.stringify(type)}; the types are:\n${Object.keys(RECIPES).join("\n")}`);
    process.exit(1);
  }
  try {
    const { id, kind, event, delivered } = await triggerEvent(values.url, type, Number(values.wait) * 1000);
    if (!event) {
      console.error(`${kind} ${id}: no ${type} event was made`);
      process.exit(1);
    }
    console.log(`${kind} ${id}: ${type} ${event.id}, delivery ${event.delivery.status} (attempts ${event.delivery.attempts})`);
    if (!delivered) {
      console.error(`not delivered within ${values.wait} s: is a webhook receiver listening (npm run listen)?`);
      process.exit(1);
    }
  } catch (err) {
    console.error(`npm run trigger: ${err instanceof Error ? err.message : String(err)} (is npm run dev running at ${values.url}?)`);
    process.exit(1);
  }
}
