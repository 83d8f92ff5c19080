/**
 * Which language an error's `user_message` speaks: the one the request's
 * Accept-Language prefers among LANGUAGES (src/errors/error-codes.ts), English when
 * none is acceptable or the header is absent or malformed.
 *
 * Hono's language detector does the work: it orders the ranges by their
 * quality values (stably, so ties keep the header's order), skips q=0,
 * compares case-insensitively, and falls back from a longer tag to the
 * longest supported prefix (uz-Cyrl-UZ to uz-Cyrl, uz-Latn-UZ and uz-UZ to
 * uz, ru-RU to ru); it never throws on a malformed header. It is held to the
 * header alone: no query parameter, no cookie, and nothing set on the
 * response. `*` matches any language, so it is read as the default, English,
 * at its own quality: `*, ru;q=0.5` prefers English over Russian.
 */
import type { MiddlewareHandler } from "hono";
import { languageDetector } from "hono/language";
import { LANGUAGES, type Language } from "./error-codes";

export type { Language };

/** Sets `language` for the request, for renderError and what it hands a record's object. */
export const negotiateLanguage: MiddlewareHandler<{ Variables: { language: Language } }> = languageDetector({
  supportedLanguages: [...LANGUAGES],
  fallbackLanguage: "en",
  order: ["header"],
  caches: false,
  ignoreCase: true,
  convertDetectedLanguage: (range) => (range === "*" ? "en" : range),
});

/** The request's language; English where the middleware did not run. */
export const languageOf = (language: string | undefined): Language =>
  (LANGUAGES as readonly string[]).includes(language ?? "") ? (language as Language) : "en";
