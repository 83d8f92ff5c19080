/**
 * How a record's row keeps its events' bodies without repeating what the row
 * holds already. An event's body is the record's body spliced into a small
 * envelope (src/record/event.ts): the last event's object is the row's
 * `body`, the `created` event's is the create's `answer`, and an older
 * event's object differs from the body now in a few fields (its state, its
 * dates). Kept whole, a paid receipt's row is ~5 KB and spills into an
 * overflow page of its own; kept as references to those texts, ~3 KB, in the
 * table's one page.
 *
 * A stored body is a list of parts, concatenated in order: a string is text
 * as it is; a number is the whole of one of the row's texts (0: `answer`,
 * 1: `body`); [text, start, end] is a slice of one. Nothing is parsed or
 * serialized again: an event is given back byte for byte as it was signed
 * and sent, and an encoding that would not give it back is never stored (the
 * text is kept as it is instead). A body stored before schema 4 (one string)
 * is a body of one part. The references hold only while the row's body and
 * answer are written through the store, which encodes the events again with
 * every write of either (src/record/store.ts); a write of those columns
 * around it would leave them pointing at other text.
 */

/** The row's texts an event may refer to, by number: the create's answer (null when none is kept) and the record's body now. */
export type SharedTexts = readonly [answer: string | null, body: string];

export type Part = string | number | [text: number, start: number, end: number];

/** A run of this many characters is where a body and a shared text are found to agree. */
const GRAM = 16;
/** A shared run shorter than this costs more as a reference ([1,1144,1282]) than as text. */
const MIN_RUN = 24;
/** Places of one run in the shared texts tried, at most (a run that repeats in them, such as a name). */
const MAX_PLACES = 8;

/** The body these parts make with these texts. */
export function decodeBody(parts: readonly Part[], texts: SharedTexts): string {
  let body = "";
  for (const part of parts) {
    if (typeof part === "string") body += part;
    else if (typeof part === "number") body += textOf(texts, part);
    else body += textOf(texts, part[0]).slice(part[1], part[2]);
  }
  return body;
}

function textOf(texts: SharedTexts, n: number): string {
  const text = texts[n];
  if (typeof text !== "string") throw new Error(`an event refers to the row's text ${n}, which it does not hold`);
  return text;
}

/**
 * The encoder of bodies against these texts: each body as text of its own
 * between the longest runs it shares with them, left to right (each run
 * found by its first GRAM characters). A body that shares nothing is kept as
 * it is; so is one whose parts would not give it back exactly: what is
 * stored is what was signed.
 */
export function bodyEncoder(texts: SharedTexts): (body: string) => Part[] {
  // The places a run may start at are searched for in the texts when a body asks (indexOf, native), not indexed
  // up front: an index of every GRAM at every offset of both texts was a few thousand strings and map entries
  // per write, most never asked for. The places are the index's would-be list: text by text, left to right,
  // overlapping ones included, the first MAX_PLACES; so the parts, and the stored bytes, are the same.
  const placesOf = (gram: string): [number, number][] => {
    const places: [number, number][] = [];
    for (const [n, text] of texts.entries()) {
      if (text === null) continue;
      for (let at = text.indexOf(gram); at >= 0 && places.length < MAX_PLACES; at = text.indexOf(gram, at + 1)) places.push([n, at]);
      if (places.length >= MAX_PLACES) break;
    }
    return places;
  };
  // Most of a body's places start no run at all (its envelope, the fields that changed): a filter of every gram the
  // texts hold answers those without a search. It can only say "maybe" wrongly, never "no", so every place that holds a
  // run is still searched as above, and the parts are the same.
  const grams = gramFilter(texts);
  return (body) => {
    const parts: Part[] = [];
    let literal = 0;
    let i = 0;
    let hash = body.length >= GRAM ? gramHash(body, 0) : 0;
    let hashAt = 0;
    while (i + GRAM <= body.length) {
      if (hashAt !== i) {
        hash = gramHash(body, i);
        hashAt = i;
      }
      if (!grams.mayHold(hash)) {
        if (i + GRAM < body.length) hash = rollHash(hash, body.charCodeAt(i), body.charCodeAt(i + GRAM));
        i++;
        hashAt = i;
        continue;
      }
      let best: [n: number, at: number, length: number] | null = null;
      for (const [n, at] of placesOf(body.slice(i, i + GRAM))) {
        const length = agreeing(body, i, texts[n] as string, at);
        if (!best || length > best[2]) best = [n, at, length];
      }
      if (!best || best[2] < MIN_RUN) {
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
    // One reference alone is a body that is one of the texts whole (a kept answer: src/record/keys.ts).
    return parts.some((part) => typeof part !== "string") && decodeBody(parts, texts) === body ? parts : [body];
  };
}

/** The multiplier of the grams' rolling hash, and its GRAM-1th power (what the character leaving a gram weighed). */
const BASE = 0x01000193;
const BASE_TOP = (() => {
  let power = 1;
  for (let k = 1; k < GRAM; k++) power = Math.imul(power, BASE);
  return power;
})();

/** The hash of text's GRAM characters (UTF-16 code units, as indexOf compares them) from `at` on. */
function gramHash(text: string, at: number): number {
  let hash = 0;
  for (let k = at; k < at + GRAM; k++) hash = (Math.imul(hash, BASE) + text.charCodeAt(k)) | 0;
  return hash;
}

/** The hash of the gram one character on: `leaving` out at its start, `entering` in at its end. */
function rollHash(hash: number, leaving: number, entering: number): number {
  return (Math.imul((hash - Math.imul(leaving, BASE_TOP)) | 0, BASE) + entering) | 0;
}

/** Bits of the filter: a few thousand grams at most, so few false "maybe"s. */
const FILTER_BITS = 1 << 16;

/** Which grams the texts may hold: one bit per hash, set for every gram at every offset of each text. */
function gramFilter(texts: SharedTexts): { mayHold(hash: number): boolean } {
  const bits = new Uint32Array(FILTER_BITS / 32);
  const slot = (hash: number) => (Math.imul(hash, 0x9e3779b1) >>> 16) & (FILTER_BITS - 1);
  for (const text of texts) {
    if (text === null || text.length < GRAM) continue;
    let hash = gramHash(text, 0);
    for (let at = 0; ; at++) {
      const s = slot(hash);
      bits[s >>> 5] = (bits[s >>> 5] ?? 0) | (1 << (s & 31));
      if (at + GRAM >= text.length) break;
      hash = rollHash(hash, text.charCodeAt(at), text.charCodeAt(at + GRAM));
    }
  }
  return {
    mayHold(hash) {
      const s = slot(hash);
      return ((bits[s >>> 5] ?? 0) & (1 << (s & 31))) !== 0;
    },
  };
}

/** How many characters agree, from body[i] and text[j] on. */
function agreeing(body: string, i: number, text: string, j: number): number {
  let n = 0;
  while (i + n < body.length && j + n < text.length && body[i + n] === text[j + n]) n++;
  return n;
}
