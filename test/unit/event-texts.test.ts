// An event's body as a record's row keeps it (src/record/event-texts.ts):
// parts of the row's body and answer where it repeats them, given back byte
// for byte whatever the texts hold.
import { describe, expect, it } from "vitest";
import { eventPayload } from "../../src/record/event";
import { bodyEncoder, decodeBody, type SharedTexts } from "../../src/record/event-texts";
import { receiptObject } from "../events";

const eventOf = (object: unknown, sequence = 1) =>
  eventPayload({
    type: "receipt.paid",
    sequence,
    requestId: "req-1",
    objectJson: JSON.stringify(object),
    owner: "partner:p",
    previousState: 0,
    at: 1_800_000_000_000,
  }).payload;

const roundTrip = (body: string, texts: SharedTexts) => {
  const parts = bodyEncoder(texts)(body);
  // What the row stores is JSON text: the parts come back from it.
  return { parts, back: decodeBody(JSON.parse(JSON.stringify(parts)), texts) };
};

describe("an event's body kept as parts of the row's texts", () => {
  it("an event whose receipt is the row's body keeps only its envelope, and a reference", () => {
    const body = JSON.stringify(receiptObject("rcpt-a", 4));
    const event = eventOf(JSON.parse(body));
    const { parts, back } = roundTrip(event, [null, body]);
    expect(back).toBe(event);
    expect(parts).toContain(1);
    expect(JSON.stringify(parts).length).toBeLessThan(event.length - body.length + 100);
  });

  it("an older event whose receipt differs from the body in a few fields keeps those, and slices of the body", () => {
    const paid = receiptObject("rcpt-b", 4);
    const refunded = JSON.stringify({ ...paid, state: 21, cancel_date: paid.pay_date + 1 });
    const event = eventOf(paid);
    const { parts, back } = roundTrip(event, [null, refunded]);
    expect(back).toBe(event);
    expect(JSON.stringify(parts).length).toBeLessThan(event.length / 2);
  });

  it("the created event refers to the create's answer once the body has moved on", () => {
    const answer = JSON.stringify(receiptObject("rcpt-c", 0));
    const body = JSON.stringify({ ...receiptObject("rcpt-c", 4), ofd: { id: "x".repeat(40), items: [1, 2, 3] } });
    const event = eventOf(JSON.parse(answer));
    const { parts, back } = roundTrip(event, [answer, body]);
    expect(back).toBe(event);
    expect(parts).toContain(0);
  });

  it("text beyond ASCII (accents, emoji split anywhere, escapes) comes back exactly", () => {
    const object = { ...receiptObject("rcpt-d", 4), description: 'Top-up ✓ 🧾 "quoted" \\ \u2028 é'.repeat(4) };
    const body = JSON.stringify({ ...object, state: 21 });
    for (const event of [eventOf(object), eventOf({ ...object, description: `🧾${object.description.slice(1)}` })]) {
      expect(roundTrip(event, [null, body]).back).toBe(event);
    }
  });

  it("a body that shares nothing, or rows with no answer or short texts, keep the body as it is", () => {
    const event = eventOf({ anything: "else" });
    expect(roundTrip(event, [null, "{}"]).parts).toEqual([event]);
    expect(roundTrip(event, [null, JSON.stringify(receiptObject("rcpt-e", 4))]).parts).toEqual([event]);
  });

  it("a body stored as it is (schema 3's) is one part; a reference to a text the row does not hold is refused", () => {
    expect(decodeBody(['{"id":1}'], [null, "{}"])).toBe('{"id":1}');
    expect(() => decodeBody([0], [null, "{}"])).toThrow(/does not hold/);
  });
});
