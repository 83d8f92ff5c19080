// src/shared/redact.ts, called directly: what the gateway echoes (a field name, a
// message) and logs carries no card number, however the number is written.
// Any run of 12 or more digits is masked, with spaces, dashes, dots and the
// like allowed between them; ordinary field paths, dates and UUIDs are left
// as they are.
import { describe, expect, it } from "vitest";
import { maskDigitRuns, redact } from "../../src/shared/redact";

describe("maskDigitRuns", () => {
  it.each([
    ["8600000000000007", "860000******0007"],
    ["8600 0000 0000 0007", "860000******0007"],
    ["8600-0000-0000-0007", "860000******0007"],
    ["8600.0000.0000.0007", "860000******0007"],
    ["8600_0000_0000_0007", "860000******0007"],
    ["8600/0000/0000/0007", "860000******0007"],
    ["8600,0000,0000,0007", "860000******0007"],
    ["8600 - 0000 - 0000 - 0007", "860000******0007"],
    ["8600\u00A00000\u00A00000\u00A00007", "860000******0007"],
    ["8600\u20130000\u20130000\u20130007", "860000******0007"],
    ["8600\u200B0000\u200B0000\u200B0007", "860000******0007"],
    ["8 6 0 0 0 0 0 0 0 0 0 0 0 0 0 7", "860000******0007"],
    ["4111 1111 1111 1111 111", "411111*********1111"],
  ])("masks %j as %j", (text, masked) => {
    expect(maskDigitRuns(text)).toBe(masked);
  });

  it("masks a run of exactly 12 digits whole, and leaves 11 alone", () => {
    expect(maskDigitRuns("8600 0000 0000")).toBe("************");
    expect(maskDigitRuns("860000000000")).toBe("************");
    expect(maskDigitRuns("8600 0000 000")).toBe("8600 0000 000");
  });

  it("masks a card number inside a field path or a sentence, and each of two", () => {
    expect(maskDigitRuns("card.8600 0000 0000 0007")).toBe("card.860000******0007");
    expect(maskDigitRuns("unknown field card.8600-0000-0000-0007: did you mean card.number?")).toBe(
      "unknown field card.860000******0007: did you mean card.number?",
    );
    expect(maskDigitRuns("from 8600 0000 0000 0007 to 9860-0000-0000-0018")).toBe("from 860000******0007 to 986000******0018");
  });

  it.each([
    "account.0.value",
    "account.12.value",
    "card.number",
    "merchant_id",
    "2026-11-28T10:00:00.000Z",
    "2026-11-28 10:00:00",
    "order-1795327687",
    "+998 90 *** ** 67",
    "860000******0007",
    "123e4567-e89b-12d3-a456-426614174000",
    "12345678-1234-1234-1234-123456789012",
    "request 88f9c22b-9d39-475e-9d38-771234567890 failed",
  ])("leaves %j as it is", (text) => {
    expect(maskDigitRuns(text)).toBe(text);
  });
});

describe("redact", () => {
  it("masks separated card numbers in values and in keys, at any depth", () => {
    expect(redact({ path: "card.8600 0000 0000 0007", nested: { list: ["9860-0000-0000-0018"] }, "8600 0000 0000 0007": "1" })).toEqual({
      path: "card.860000******0007",
      nested: { list: ["986000******0018"] },
      "860000******0007": "1",
    });
  });

  it("still finds a JWT whose parts hold long digit runs, and a bearer credential", () => {
    const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwMTIzNDU2In0.123456789012345678901234567890";
    expect(redact(`token ${jwt} expired`)).toBe("token [redacted-jwt] expired");
    expect(redact("Bearer 1234567890123456")).toBe("Bearer [redacted]");
  });
});
