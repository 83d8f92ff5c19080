// Normalization of the upstream's answers, called directly: one spelling out,
// and nothing the gateway cannot read ever becomes a state (rule 8).
import { describe, expect, it } from "vitest";
import { normalizeAuthorize, normalizeReceipt, normalizeReducedReceipt, normalizeTransfer } from "../../src/upstream/normalize";

const receipt = {
  tid: "t-1",
  id: "r-1",
  state: 4,
  create_date: 1_795_000_000_000,
  pay_date: 1_795_000_100,
  cancel_date: 0,
  error: null,
  type: 1,
  description: null,
  merchant: { merchant_id: 1001, merchant_name: "Sandbox Mobile" },
  account: [],
  ofd: null,
  amount: 150_000,
  init_amount: 0,
  currency: 860,
  comission: 12,
  is_verify: true,
  rrn: "123",
  card_number: "8600490000000011",
};

const transfer = {
  tId: "t-2",
  receipt_id: "01J0000000000000000000000",
  state: 0,
  created_date: 1_795_000_000_000,
  sender: { masked_pan: "860049******0011", token: "tok_sandbox_ok", amount: 1, currency: 860, commission: 0, phone: null },
  receiver: { masked_pan: "986000******0018", amount: 1, currency: 860, commission: 0, phone: null },
  is_verify: false,
};

describe("normalization", () => {
  it("answers one spelling: commission, tid, milliseconds, masked card numbers, no sender token", () => {
    const r = normalizeReceipt(receipt)!;
    expect(r).toMatchObject({ commission: 12, pay_date: 1_795_000_100_000, card_number: "860049******0011" });
    expect(r).not.toHaveProperty("comission");
    const t = normalizeTransfer(transfer)!;
    expect(t.tid).toBe("t-2");
    expect(t.sender).not.toHaveProperty("token");
  });

  it.each([
    ["a state given as a string", { state: "4" }],
    ["a state that is not an integer", { state: 4.5 }],
    ["a state the gateway does not know", { state: 99 }],
    ["no state at all", { state: undefined }],
    ["no id", { id: undefined }],
    ["an empty id", { id: "" }],
    ["an amount that is not an integer", { amount: "150000" }],
  ])("fails closed on a receipt with %s", (_name, change) => {
    expect(normalizeReceipt({ ...receipt, ...change })).toBeUndefined();
    expect(normalizeReducedReceipt({ ...receipt, ...change })).toBeUndefined();
  });

  it.each([
    ["a state given as a string", { state: "0" }],
    ["no receipt_id", { receipt_id: undefined }],
    ["a null state", { state: null }],
  ])("fails closed on a transfer with %s", (_name, change) => {
    expect(normalizeTransfer({ ...transfer, ...change })).toBeUndefined();
  });

  it.each([null, [], "text", 42, [receipt]])("fails closed on a body of the wrong shape: %j", (body) => {
    expect(normalizeReceipt(body)).toBeUndefined();
    expect(normalizeTransfer(body)).toBeUndefined();
    expect(normalizeAuthorize(body, "r-1")).toBeUndefined();
  });

  it("an authorize answer without its wait is unreadable", () => {
    expect(normalizeAuthorize({ phone: "+998", wait: 60000 }, "r-1")).toEqual({ id: "r-1", sent: true, phone: "+998", wait: 60000 });
    expect(normalizeAuthorize({ phone: "+998" }, "r-1")).toBeUndefined();
    expect(normalizeAuthorize({ phone: "+998", wait: "60000" }, "r-1")).toBeUndefined();
  });
});
