// A program that uses the package by its name, as a partner's app does:
// typechecked against the packed, installed client under nodenext, node16 and bundler resolution (scripts/client-pack-check.mjs).
import { type ClientError, createGatewayClient, type GatewayError } from "payments-gateway-client";

const client = createGatewayClient({ baseUrl: "http://127.0.0.1:8787", token: async () => "sk_test_local_partner" });

export async function flow(): Promise<string> {
  const created = await client.transfers.create({ tid: "t-1", amount: 150_000, rate_id: 1, receiver_card: "9860000000000018", token: "tok_sandbox_ok" });
  // @ts-expect-error a2c/create's body is typed: tid, amount, rate_id, receiver_card and token are required
  await client.transfers.create({ totally: "wrong" });
  // @ts-expect-error currency is the number 860, not a string
  await client.receipts.create({ tid: "r-1", amount: 1, merchant_id: 1001, account: [], currency: "860" });
  if (!created.ok) return describe(created.error);
  // The key the app keeps with the order: repeating the pay with it, even after a restart, never pays twice.
  const paid = await client.transfers.pay({ id: created.data.receipt_id, otp: "111111" }, { idempotencyKey: "order-1-pay-1" });
  if (paid.ok) return `state ${paid.data.state}${paid.replayed ? " (replayed)" : ""}`;
  const key: string | null = paid.idempotencyKey;
  if (paid.error.code === "outcome_unknown" && key !== null) return `repeat with ${key}`;
  return describe(paid.error);
}

function describe(error: GatewayError<"/api/v1/partner/a2c/pay"> | GatewayError<"/api/v1/partner/a2c/create"> | ClientError): string {
  switch (error.code) {
    case "otp_invalid":
      // Narrowed: attempts_left is a number, not number | undefined.
      return `wrong OTP, ${error.attempts_left.toFixed(0)} left`;
    case "outcome_unknown":
      return `read the transfer: ${error.cause}`;
    default:
      return error.code;
  }
}
