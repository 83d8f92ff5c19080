// Which language a request's Accept-Language chooses for user_message
// (src/errors/language.ts), through the middleware as the app mounts it.
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { LANGUAGES, type Language } from "../../src/errors/error-codes";
import { negotiateLanguage } from "../../src/errors/language";

const app = new Hono<{ Variables: { language: Language } }>().use(negotiateLanguage).get("/", (c) => c.text(c.var.language));

async function chosen(header: string | undefined): Promise<string> {
  const res = await app.request("/", header === undefined ? {} : { headers: { "accept-language": header } });
  expect(res.status).toBe(200);
  expect(res.headers.get("set-cookie"), "nothing is remembered for the caller").toBeNull();
  return res.text();
}

const CASES: [header: string | undefined, language: Language][] = [
  // No header, an empty one, nothing supported: English.
  [undefined, "en"],
  ["", "en"],
  ["   ", "en"],
  ["de", "en"],
  ["de-DE, fr;q=0.8", "en"],
  // Each language, with its script and region subtags, in any case.
  ["uz", "uz"],
  ["uz-Latn", "uz"],
  ["uz-UZ", "uz"],
  ["uz-Latn-UZ", "uz"],
  ["UZ-LATN-uz", "uz"],
  ["uz-Cyrl", "uz-Cyrl"],
  ["uz-Cyrl-UZ", "uz-Cyrl"],
  ["uz-cyrl-uz", "uz-Cyrl"],
  ["ru", "ru"],
  ["ru-RU", "ru"],
  ["RU-ru", "ru"],
  ["en", "en"],
  ["en-US", "en"],
  // A language this gateway does not speak is passed over for the next that it does.
  ["de-DE, ru;q=0.9, en;q=0.8", "ru"],
  ["uzb, uz-Cyrl;q=0.5", "uz-Cyrl"],
  // Quality values, not the order, decide; ties keep the header's order.
  ["en;q=0.5, ru;q=0.9, uz;q=0.7", "ru"],
  ["ru;q=0.3, uz-Cyrl-UZ;q=0.8", "uz-Cyrl"],
  ["ru, uz", "ru"],
  ["uz;q=0.5, ru;q=0.5", "uz"],
  // q=0 is "not acceptable".
  ["ru;q=0, uz", "uz"],
  ["uz-Cyrl;q=0, uz-Latn;q=0.1", "uz"],
  ["ru;q=0", "en"],
  ["ru;q=0.000", "en"],
  // `*` is any language: the default, English, at its own quality.
  ["*", "en"],
  ["*, ru;q=0.5", "en"],
  ["ru, *;q=0.5", "ru"],
  ["*;q=0, ru;q=0.2", "ru"],
  // Malformed headers choose what they can: a quality that is no number counts as 1.
  [";;;,,,", "en"],
  ["ru;q=abc", "ru"],
  ["ru;q=", "ru"],
  ["=;q=1", "en"],
  ['"uz"', "en"],
  ["uz-Cyrl;q=0.8;;x, ru;q=0.5", "uz-Cyrl"],
  ["\u00e9\u00ff", "en"],
  ["x".repeat(8000), "en"],
];

/** Headers no grammar allows: whatever they choose, it is a language of the gateway's, and the request goes on. */
const GARBAGE = [
  'ru;q="0.5',
  'uz;q="\\',
  "q=0.5",
  ";q=0",
  "uz;q=-1, ru;q=2",
  "uz-;q=1",
  "-",
  ",uz-Cyrl,",
  "uz-Cyrl;q=1e-9",
  "\t\t",
  "*;*;*",
  "ru;q=NaN",
];

describe("Accept-Language negotiation", () => {
  it.each(CASES)("%j chooses %s", async (header, language) => {
    expect(await chosen(header)).toBe(language);
  });

  it.each(GARBAGE)("%j chooses one of the gateway's languages", async (header) => {
    expect(LANGUAGES).toContain(await chosen(header));
  });
});
