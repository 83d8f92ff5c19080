// An event's body as a record's row keeps it (src/record/event-texts.ts):
// parts of the row's body and answer where it repeats them, given back byte
// for byte whatever the texts hold.
import fc from "fast-check";
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

/**
 * The encoder as the first release of these parts wrote it: every GRAM of the
 * texts indexed up front. What a record stores must not change with how the
 * places are found (a row written by one release is re-encoded by the next),
 * so the parts are held to its.
 */
function indexedEncoder(texts: SharedTexts): (body: string) => unknown[] {
  const GRAM = 16;
  const places = new Map<string, [number, number][]>();
  for (const [n, text] of texts.entries()) {
    if (text === null) continue;
    for (let at = 0; at + GRAM <= text.length; at++) {
      const list = places.get(text.slice(at, at + GRAM));
      if (!list) places.set(text.slice(at, at + GRAM), [[n, at]]);
      else if (list.length < 8) list.push([n, at]);
    }
  }
  return (body) => {
    const parts: unknown[] = [];
    let literal = 0;
    let i = 0;
    while (i + GRAM <= body.length) {
      let best: [number, number, number] | null = null;
      for (const [n, at] of places.get(body.slice(i, i + GRAM)) ?? []) {
        const text = texts[n] as string;
        let length = 0;
        while (i + length < body.length && at + length < text.length && body[i + length] === text[at + length]) length++;
        if (!best || length > best[2]) best = [n, at, length];
      }
      if (!best || best[2] < 24) {
        i++;
        continue;
      }
      const [n, at, length] = best;
      if (i > literal) parts.push(body.slice(literal, i));
      parts.push(at === 0 && length === (texts[n] as string).length ? n : [n, at, at + length]);
      i += length;
      literal = i;
    }
    if (literal < body.length) parts.push(body.slice(literal));
    return parts.some((part) => typeof part !== "string") && decodeBody(parts as Parameters<typeof decodeBody>[0], texts) === body ? parts : [body];
  };
}

describe("the places of a run, searched for when asked", () => {
  it("give the parts an index of every GRAM gave, for bodies made of the texts' pieces and of text of their own", () => {
    const piece = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('"price":50000,"count":1,', "é🧾\u2028", "x".repeat(30)));
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 12 }),
        fc.array(piece, { maxLength: 12 }),
        fc.array(fc.tuple(fc.nat(1), fc.nat(), fc.nat(), fc.string({ maxLength: 20 })), { maxLength: 8 }),
        fc.boolean(),
        (a, b, cuts, withAnswer) => {
          const texts: SharedTexts = [withAnswer ? a.join("") : null, b.join("")];
          // A body of slices of the texts (repeats and overlaps included) between text of its own.
          const body = cuts
            .map(([n, x, y, own]) => {
              const text = texts[n] ?? "";
              const from = text.length ? x % text.length : 0;
              return own + text.slice(from, from + (y % 200));
            })
            .join("");
          const parts = bodyEncoder(texts)(body);
          expect(parts).toEqual(indexedEncoder(texts)(body));
          expect(decodeBody(parts, texts)).toBe(body);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a body that is one of the texts whole (a kept answer, the record's body as it was sent) is one reference to it", () => {
    const answer = JSON.stringify(receiptObject("rcpt-w", 0));
    const body = JSON.stringify(receiptObject("rcpt-w", 4));
    expect(bodyEncoder([answer, body])(body)).toEqual([1]);
    expect(bodyEncoder([answer, body])(answer)).toEqual([0]);
    expect(decodeBody([1], [answer, body])).toBe(body);
  });

  it("a real row's events: the same parts as the index of every GRAM gave", () => {
    const answer = JSON.stringify(receiptObject("rcpt-f", 0));
    const body = JSON.stringify({ ...receiptObject("rcpt-f", 4), description: "Оплата 🧾 é".repeat(3) });
    for (const event of [eventOf(JSON.parse(answer), 1), eventOf(JSON.parse(body), 2)]) {
      expect(bodyEncoder([answer, body])(event)).toEqual(indexedEncoder([answer, body])(event));
    }
  });
});
