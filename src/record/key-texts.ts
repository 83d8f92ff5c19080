/**
 * How a record's row keeps rule 11's kept answers (its `keys` column:
 * src/record/keys.ts KeyEntry) without repeating what the row holds already.
 * A keyed pay's answer is mostly the record's body as it was then: kept as
 * text, it spills a paid record's row out of its table's page into an
 * overflow page (4 KB, for as long as the record is kept). Kept as parts of
 * the row's texts (the create's answer and the record's body, as the events'
 * bodies are: src/record/event-texts.ts, whose encoder this uses), it fits.
 *
 * An answer is stored as its text, or as a list of parts, given back byte for
 * byte as first sent and never parsed again (the encoder keeps the text when
 * its parts would not give it back). The parts hold only against the row's
 * texts as written with them, so the store writes the column again whenever
 * the keys, the body or the answer change (src/record/store.ts), and holds the
 * keys whole in its copy.
 *
 * Schema 9, in two releases (src/record/schema.ts): the first read an answer
 * in either form and wrote text, which the release before it reads; this one
 * writes the parts, and stamps the row 9, which that first release reads and
 * schema 8's refuses.
 */
import { bodyEncoder, decodeBody, type Part, type SharedTexts } from "./event-texts";

/** The row's texts a kept answer may refer to, by number: the ones its events refer to. */
type RowTexts = { answer: string | null; body: string };

const textsOf = (row: RowTexts): SharedTexts => [row.answer, row.body];

/**
 * The `keys` column with every answer whole, as this code holds it: stored
 * as text (by a release before this one, or where parts would not help), or
 * as parts of the row's texts. The store reads the column through this, and
 * keeps the copy whole; a column with no parts in it is given back as it is.
 */
export function keysFromColumn(column: string | null | undefined, row: RowTexts): string | null {
  if (!column) return column ?? null;
  const entries = JSON.parse(column) as unknown[][];
  if (!entries.some((entry) => Array.isArray(entry[6]))) return column;
  const texts = textsOf(row);
  const whole = (answer: unknown) => (Array.isArray(answer) ? decodeBody(answer as Part[], texts) : answer);
  return JSON.stringify(entries.map((entry) => entry.map((field, i) => (i === 6 ? whole(field) : field))));
}

/**
 * The `keys` column as this code stores it, for the row's keys held whole:
 * each answer as parts of the row's texts where it repeats them, as text
 * where it shares nothing with them (a refusal's error) or its parts would
 * not give it back. Schema 9's first release (the one before this) reads
 * both; the store writes the column again whenever the keys, the body or the
 * answer change, so the parts always refer to the texts written with them.
 */
export function keysColumn(keys: string | null | undefined, row: RowTexts): string | null {
  if (!keys) return keys ?? null;
  const entries = JSON.parse(keys) as unknown[][];
  let encode: ((body: string) => Part[]) | undefined;
  const stored = (answer: unknown): unknown => {
    if (typeof answer !== "string") return answer;
    encode ??= bodyEncoder(textsOf(row));
    const parts = encode(answer);
    return parts.length === 1 && typeof parts[0] === "string" ? answer : parts;
  };
  return JSON.stringify(entries.map((entry) => entry.map((field, i) => (i === 6 ? stored(field) : field))));
}
