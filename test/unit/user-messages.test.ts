// The user_message texts (src/errors/error-codes.ts): every error code and every
// decline reason the gateway can emit has a sentence for the card holder in
// each language, in that language's script, with nothing a developer would
// write: no codes, field names, jargon or long numbers; and none misleads
// about money: where the outcome is unknown, no text says a payment failed.
import { describe, expect, it } from "vitest";
import {
  DECLINE_REASON_NAMES,
  DECLINE_REASONS,
  ERROR_CODE_NAMES,
  ERROR_CODES,
  LANGUAGES,
  type Language,
  userMessage,
} from "../../src/errors/error-codes";

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

/** The codes whose outcome nobody knows yet: the payment may have gone through (the contract's Errors section). */
const UNKNOWN_OUTCOME = ["upstream_error", "upstream_timeout"] as const;

/**
 * Per language: words that say a payment failed, was cancelled or declined
 * (never in an unknown outcome's text), and the phrases it must carry: the
 * payment may have gone through, it is being checked, do not pay again.
 */
const UNKNOWN_OUTCOME_WORDS = {
  en: {
    never: ["fail", "cancel", "declin", "unsuccessful", "reject", "did not go through", "not completed", "error"],
    mayHaveGoneThrough: /may have gone through/,
    checking: /check/,
    doNotPayAgain: /do not pay again/i,
  },
  ru: {
    never: ["не удал", "отмен", "ошибк", "отклон", "неуспеш", "не прош", "не выполн", "не провед"],
    mayHaveGoneThrough: /мог пройти/,
    checking: /провер/,
    doNotPayAgain: /не оплачивайте повторно/i,
  },
  uz: {
    never: ["muvaffaqiyatsiz", "bekor", "rad et", "xato", "oshmadi", "bajarilmadi", "boʻlmadi"],
    mayHaveGoneThrough: /amalga oshgan boʻlishi mumkin/,
    checking: /tekshir/,
    doNotPayAgain: /qayta toʻlamang/i,
  },
  "uz-Cyrl": {
    never: ["муваффақиятсиз", "бекор", "рад эт", "хато", "ошмади", "бажарилмади", "бўлмади"],
    mayHaveGoneThrough: /амалга ошган бўлиши мумкин/,
    checking: /текшир/,
    doNotPayAgain: /қайта тўламанг/i,
  },
} as const satisfies Record<Language, { never: readonly string[]; mayHaveGoneThrough: RegExp; checking: RegExp; doNotPayAgain: RegExp }>;

/** Words that say every guess was wrong: untrue when some were unconfirmed. */
const WRONGLY: Record<Language, readonly string[]> = {
  en: ["wrong", "incorrect", "invalid"],
  ru: ["неверн", "неправильн"],
  uz: ["notoʻgʻri"],
  "uz-Cyrl": ["нотўғри"],
};

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

  it("where the outcome is unknown, says the payment may have gone through, is being checked, and not to pay again; never that it failed or was cancelled", () => {
    for (const code of UNKNOWN_OUTCOME) {
      for (const language of LANGUAGES) {
        const text = ERROR_CODES[code].user_message[language];
        const words = UNKNOWN_OUTCOME_WORDS[language];
        const at = `${code} ${language}: ${text}`;
        for (const word of words.never) expect(text.toLowerCase(), at).not.toContain(word);
        expect(text, at).toMatch(words.mayHaveGoneThrough);
        expect(text, at).toMatch(words.checking);
        expect(text, at).toMatch(words.doNotPayAgain);
      }
    }
  });

  it("the unknown-outcome words are found where they are said, and the forbidden ones where a text says a payment failed", () => {
    // The checks above would pass on texts that say nothing: each pattern is seen to match a sentence that says it.
    const says = {
      en: ["The payment failed.", "It was cancelled.", "Your card was declined."],
      ru: ["Не удалось провести платёж.", "Платёж отменён.", "Произошла ошибка."],
      uz: ["Toʻlov muvaffaqiyatsiz.", "Toʻlov bekor qilindi."],
      "uz-Cyrl": ["Тўлов муваффақиятсиз.", "Тўлов бекор қилинди."],
    } as const;
    for (const language of LANGUAGES) {
      const words = UNKNOWN_OUTCOME_WORDS[language];
      for (const sentence of says[language])
        expect(
          words.never.some((word) => sentence.toLowerCase().includes(word)),
          sentence,
        ).toBe(true);
    }
    expect(ERROR_CODES.receipt_cancelled.user_message.uz).toMatch(/bekor/);
    expect(ERROR_CODES.card_declined.user_message.en.toLowerCase()).toContain("declin");
  });

  it("says money leaves a card, not an account (Uzbek hisob, Russian счёт)", () => {
    for (const { at, text } of TEXTS) expect(text.toLowerCase(), at).not.toMatch(/hisob|ҳисоб|со сч[её]та|с вашего сч[её]та/);
  });

  it("otp_attempts_exhausted and receipt_expired hold for a receipt cancelled upstream and a transfer closed at the gateway; the first for unconfirmed guesses too", () => {
    for (const language of LANGUAGES) {
      const exhausted = ERROR_CODES.otp_attempts_exhausted.user_message[language].toLowerCase();
      for (const word of [...UNKNOWN_OUTCOME_WORDS[language].never, ...WRONGLY[language]])
        expect(exhausted, `${language}: ${exhausted}`).not.toContain(word);
      const expired = ERROR_CODES.receipt_expired.user_message[language].toLowerCase();
      for (const word of UNKNOWN_OUTCOME_WORDS[language].never) expect(expired, `${language}: ${expired}`).not.toContain(word);
    }
  });

  it("tid_conflict speaks of the payment the user knows, not of a step a developer takes (creating it)", () => {
    for (const language of LANGUAGES) {
      const text = ERROR_CODES.tid_conflict.user_message[language].toLowerCase();
      expect(text, `${language}: ${text}`).not.toMatch(/creat|созда|yarat|ярат/);
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
