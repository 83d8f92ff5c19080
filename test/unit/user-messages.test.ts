// The user_message texts (src/error-codes.ts): every error code and every
// decline reason the gateway can emit has a sentence for the card holder in
// each language, in that language's script, with nothing a developer would
// write: no codes, field names, jargon or long numbers.
import { describe, expect, it } from "vitest";
import { DECLINE_REASON_NAMES, DECLINE_REASONS, ERROR_CODE_NAMES, ERROR_CODES, LANGUAGES, userMessage } from "../../src/error-codes";

const sources = import.meta.glob("../../src/**/*.ts", { query: "?raw", import: "default", eager: true }) as Record<string, string>;

/** Every text, named by where it lives. */
const TEXTS = [
  ...ERROR_CODE_NAMES.flatMap((code) =>
    LANGUAGES.map((language) => ({ at: `${code} ${language}`, language, text: ERROR_CODES[code].user_message[language] })),
  ),
  ...DECLINE_REASON_NAMES.flatMap((reason) =>
    LANGUAGES.map((language) => ({ at: `decline_reason ${reason} ${language}`, language, text: DECLINE_REASONS[reason][language] })),
  ),
];

const LATIN = /[A-Za-z]/;
const CYRILLIC = /[\u0400-\u04FF]/;
/** The Latin a Cyrillic text may carry: the name of the message the code comes in. */
const withoutSms = (text: string) => text.replace(/\bSMS/g, "");

describe("user_message texts", () => {
  it("every error code and every decline reason has a sentence in every language", () => {
    expect(TEXTS.length).toBe((ERROR_CODE_NAMES.length + DECLINE_REASON_NAMES.length) * LANGUAGES.length);
    for (const { at, text } of TEXTS) {
      expect(typeof text, at).toBe("string");
      expect(text.trim().length, at).toBeGreaterThan(20);
      expect(text, at).toBe(text.trim());
      expect(text, at).toMatch(/[.!]$/);
    }
  });

  it("every decline_reason the source emits has its texts", () => {
    const emitted = new Set(Object.values(sources).flatMap((source) => [...source.matchAll(/decline_reason: "([a-z_]+)"/g)].map((m) => m[1]!)));
    expect(emitted.size).toBeGreaterThanOrEqual(3);
    for (const reason of emitted) expect(DECLINE_REASON_NAMES, reason).toContain(reason);
  });

  it("no text carries a run of digits, a code, a field name or a developer's word", () => {
    for (const { at, text } of TEXTS) {
      expect(text, at).not.toMatch(/\d{4,}/);
      expect(text, at).not.toMatch(/\b(tid|json|upstream|http|otp|api|token)\b/i);
      // Codes and field names are snake_case (and a single word one, such as `declined`, is the plain word).
      expect(text, at).not.toMatch(/[_`{}<>]/);
    }
  });

  it("each text is written in its language's script", () => {
    for (const { at, language, text } of TEXTS) {
      if (language === "en") expect(text, at).toMatch(/^[\x20-\x7E]+$/);
      if (language === "uz") expect(text, at).not.toMatch(CYRILLIC);
      if (language === "uz-Cyrl" || language === "ru") expect(withoutSms(text), at).not.toMatch(LATIN);
      // Letters of one of the two Cyrillic alphabets that the other has not: a Russian text in the Uzbek column, or the reverse.
      // Uzbek hardly says a sentence without ў, қ, ғ or ҳ.
      if (language === "uz-Cyrl") expect(text, at).toMatch(/[ўқғҳЎҚҒҲ]/);
      if (language === "uz-Cyrl") expect(text, at).not.toMatch(/[щыЩЫ]/);
      if (language === "ru") expect(text, at).not.toMatch(/[ўқғҳЎҚҒҲ]/);
    }
  });

  it("Uzbek in Latin script spells oʻ and gʻ with U+02BB and the tutuq belgisi with U+02BC, never another apostrophe", () => {
    for (const { at, language, text } of TEXTS) {
      if (language !== "uz") continue;
      expect(text, at).not.toMatch(/['`‘’]/);
      expect(text.replace(/[oOgG]\u02BB/g, ""), at).not.toContain("\u02BB");
      expect(text, at).not.toMatch(/[oOgG]\u02BC/);
    }
  });

  it("card_declined says why by its decline_reason, and keeps its own text for a reason it does not know", () => {
    for (const language of LANGUAGES) {
      for (const reason of DECLINE_REASON_NAMES) expect(userMessage("card_declined", language, reason)).toBe(DECLINE_REASONS[reason][language]);
      expect(userMessage("card_declined", language, "stolen_card")).toBe(ERROR_CODES.card_declined.user_message[language]);
      expect(userMessage("card_declined", language)).toBe(ERROR_CODES.card_declined.user_message[language]);
      // A decline reason on another code does not change that code's text.
      expect(userMessage("upstream_error", language, "insufficient_funds")).toBe(ERROR_CODES.upstream_error.user_message[language]);
    }
  });
});
