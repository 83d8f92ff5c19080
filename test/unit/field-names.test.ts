// The field an unknown one was probably meant to be, as a refusal names it:
// the suggestion and the distance it stands on, called directly.
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { CreateReceiptRequest, NumberCard, TokenCard } from "../../src/api/schemas";
import { editDistance, MAX_DETAILS, suggestion, unknownFields } from "../../src/http/http";

describe("editDistance: optimal string alignment", () => {
  it.each([
    ["hold", "hold", 0],
    ["hodl", "hold", 1],
    ["otpp", "otp", 1],
    ["merchnatid", "merchantid", 1],
    ["lable", "label", 1],
    ["", "otp", 3],
    ["ca", "abc", 3],
    ["kitten", "sitting", 3],
  ])("%s to %s is %i", (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
    expect(editDistance(b, a)).toBe(distance);
  });
});

describe("suggestion", () => {
  const create = ["tid", "amount", "merchant_id", "account", "description", "is_hold", "currency"];
  const pay = ["id", "card", "otp"];

  it.each([
    ["is_hodl", create, "is_hold"],
    ["isHold", create, "is_hold"],
    ["IS-HOLD", create, "is_hold"],
    ["merchnat_id", create, "merchant_id"],
    ["amout", create, "amount"],
    ["descripton", create, "description"],
    ["tId", create, "tid"],
    ["otpp", pay, "otp"],
    ["otp_code", pay, "otp"],
    ["token", pay, "card.token"],
    ["receipt_id", pay, "id"],
    ["lable", ["key", "value", "label"], "label"],
  ])("%s among %j is %s", (name, known, right) => {
    expect(suggestion(name, known)).toBe(right);
  });

  it.each([
    ["cvv", ["number", "expire"]],
    ["cvv", ["token"]],
    ["note", create],
    ["client_version", create],
    // Two edits from a name of 4 characters or fewer is too far: `ab` is not `id`, `opt1` is not `otp`.
    ["ab", pay],
    ["opt1", pay],
    // Three edits from a longer one is too far.
    ["amt", create],
    ["8600000000000007", pay],
  ])("%s among %j has none", (name, known) => {
    expect(suggestion(name, known)).toBeUndefined();
  });

  it("prefers the nearest field, and the same name in another case over any other", () => {
    expect(suggestion("descriptin", ["descriptor", "description"])).toBe("description");
    expect(suggestion("Type", ["types", "type"])).toBe("type");
  });
});

describe("unknownFields", () => {
  it("names every field a request's objects do not define, at every depth, masking a key that is a card number", () => {
    const body = {
      tid: "t-1",
      is_hodl: true,
      "8600000000000007": "x",
      account: [
        { key: "phone", value: "1" },
        { key: "phone", value: "1", lable: "Phone" },
      ],
    };
    expect(unknownFields(CreateReceiptRequest, body).map(({ path, message }) => ({ path, message }))).toEqual([
      { path: "is_hodl", message: "unknown field is_hodl: did you mean is_hold?" },
      { path: "860000******0007", message: "unknown field 860000******0007" },
      { path: "account.1.lable", message: "unknown field account.1.lable: did you mean account.1.label?" },
    ]);
  });

  it("in a union of objects, a field is unknown only if no option knows it", () => {
    const Card = v.strictObject({ id: v.string(), card: v.union([TokenCard, NumberCard]) });
    const paths = (card: unknown) => unknownFields(Card, { id: "r", card }).map(({ path, message }) => `${path}: ${message}`);
    expect(paths({ token: "t" })).toEqual([]);
    expect(paths({ number: "8600000000000007", expire: "3012" })).toEqual([]);
    expect(paths({ number: "8600000000000007", expire: "3012", cvv: "123" })).toEqual(["card.cvv: unknown field card.cvv"]);
    expect(paths({ tokn: "t" })).toEqual(["card.tokn: unknown field card.tokn: did you mean card.token?"]);
  });

  it("names none where an object takes other fields (an answer's shape), and stops past MAX_DETAILS", () => {
    expect(unknownFields(v.looseObject({ id: v.string() }), { id: "r", extra: 1 })).toEqual([]);
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`extra_${i}`, i]));
    expect(unknownFields(CreateReceiptRequest, many)).toHaveLength(MAX_DETAILS + 1);
  });
});
