// Normalization of the upstream's answers, called directly: one spelling out,
// and nothing the gateway cannot read ever becomes a state (rule 8).
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { Receipt, ReducedReceipt, TransferReceipt } from "../../src/api/schemas";
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

  it("answers a merchant's fields and a transfer's fiscal data in the shapes the document gives them", () => {
    const issues = (schema: v.GenericSchema, body: unknown) => v.safeParse(schema, body).issues?.map((issue) => v.getDotPath(issue)) ?? [];
    const field = { name: "phone", required: true, options: [{ value: 1 }] };
    const listed = normalizeReceipt({ ...receipt, merchant: { ...receipt.merchant, fields: [field, "text", null, [field]] } })!;
    // Entries are passed on whole, and only objects: the document promises a list of objects.
    expect(listed.merchant.fields).toEqual([field]);
    expect(issues(Receipt, listed)).toEqual([]);
    const odd = { ...receipt, merchant: { ...receipt.merchant, fields: "phone" } };
    expect(normalizeReceipt(odd)!.merchant).not.toHaveProperty("fields");
    expect(issues(Receipt, normalizeReceipt(odd))).toEqual([]);
    expect(normalizeReducedReceipt(odd)!.merchant.fields).toEqual([]);
    expect(issues(ReducedReceipt, normalizeReducedReceipt(odd))).toEqual([]);

    const ofd = { url: "https://ofd.example/check?t=1", terminal_id: "EZ000000000312", fiscal_sign: "123456789012", extra: { kept: true } };
    const fiscal = normalizeTransfer({ ...transfer, ofd })!;
    expect(fiscal.ofd).toEqual(ofd);
    expect(issues(TransferReceipt, fiscal)).toEqual([]);
    expect(issues(TransferReceipt, { ...fiscal, ofd: { ...ofd, url: 7 } })).toEqual(["ofd.url"]);
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
