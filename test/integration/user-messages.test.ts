// Every error carries user_message, a sentence an app may show its user, in
// the language the request's Accept-Language prefers (uz, uz-Cyrl, ru, en),
// which Content-Language names. expectError (test/helpers.ts) holds every
// error the other tests meet to the table's text in the language named; these
// ask in each language, through the Worker.
import { createExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { DECLINE_REASONS, ERROR_CODES, type Language } from "../../src/errors/error-codes";
import { renderError } from "../../src/errors/errors";
import { negotiateLanguage } from "../../src/errors/language";
import type { GatewayEnv } from "../../src/http/types";
import { call, createReceipt, expectError } from "../helpers";
import { scriptedUpstream } from "../support/scripted-upstream";

/** An Accept-Language as an app in each language might send it, and the language it chooses. */
const ASKED: [header: string, language: Language][] = [
  ["uz-Latn-UZ, ru;q=0.8", "uz"],
  ["uz-Cyrl-UZ, uz;q=0.9, ru;q=0.8", "uz-Cyrl"],
  ["ru-RU, ru;q=0.9, en-US;q=0.8, en;q=0.7", "ru"],
  ["en-US", "en"],
];

const inLanguage = (header: string) => ({ headers: { "accept-language": header } });

/** What an unknown outcome's text says in each language: it may have gone through, and not to pay again. */
const MAY_HAVE_GONE_THROUGH: Record<Language, RegExp> = {
  en: /may have gone through.*do not pay again/is,
  ru: /мог пройти.*не оплачивайте повторно/is,
  uz: /boʻlishi mumkin.*qayta toʻlamang/is,
  "uz-Cyrl": /бўлиши мумкин.*қайта тўламанг/is,
};
/** Words for failed, cancelled or declined, in the four languages. */
const FAILED = /fail|cancel|declin|не удал|отмен|отклон|ошибк|muvaffaqiyatsiz|bekor|муваффақиятсиз|бекор/;

describe("user_message, in the language Accept-Language prefers", () => {
  it.each(ASKED)("receipt_not_found, asked with %j: %s", async (header, language) => {
    const res = await call("receipt/check-id", { id: `missing-${crypto.randomUUID()}` }, inLanguage(header));
    const error = await expectError(res, 404, "receipt_not_found");
    expect(res.headers.get("content-language")).toBe(language);
    expect(error.user_message).toBe(ERROR_CODES.receipt_not_found.user_message[language]);
  });

  it.each(ASKED)("card_declined says why (insufficient funds), asked with %j: %s", async (header, language) => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    const res = call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_insufficient" } }, inLanguage(header));
    const error = await expectError(res, 402, "card_declined");
    expect((await res).headers.get("content-language")).toBe(language);
    expect(error.decline_reason).toBe("insufficient_funds");
    expect(error.user_message).toBe(DECLINE_REASONS.insufficient_funds[language]);
  });

  it("where the outcome is unknown (502 upstream_error, 504 upstream_timeout), every language says the payment may have gone through, is being checked, and not to pay again", async () => {
    const unknown = async (header: string, language: Language) => {
      const lost = await createReceipt({ merchant_id: 1003 });
      scriptedUpstream.on("receipt/pay", { kind: "status", status: 500, act: false }, { id: lost.id });
      const late = await createReceipt({ merchant_id: 1003 });
      const answers = [
        [await call("receipt/pay", { id: lost.id, card: { token: "tok_sandbox_ok" } }, inLanguage(header)), 502, "upstream_error"],
        [await call("receipt/pay", { id: late.id, card: { token: "tok_sandbox_timeout" } }, inLanguage(header)), 504, "upstream_timeout"],
      ] as const;
      for (const [res, status, code] of answers) {
        const error = await expectError(res, status, code);
        expect(res.headers.get("content-language")).toBe(language);
        expect(error.user_message).toBe(ERROR_CODES[code].user_message[language]);
        expect(error.user_message, `${code} ${language}`).toMatch(MAY_HAVE_GONE_THROUGH[language]);
        expect(error.user_message.toLowerCase(), `${code} ${language}`).not.toMatch(FAILED);
      }
    };
    await Promise.all(ASKED.map(([header, language]) => unknown(header, language)));
  });

  it("no header, q=0 for every language it names, or a malformed one: English", async () => {
    for (const header of [undefined, "ru;q=0, uz;q=0", ";;=,q", "de-DE"]) {
      const res = await call("receipt/check-id", { id: "missing" }, header === undefined ? {} : inLanguage(header));
      const error = await expectError(res, 404, "receipt_not_found");
      expect(res.headers.get("content-language"), String(header)).toBe("en");
      expect(error.user_message).toBe(ERROR_CODES.receipt_not_found.user_message.en);
    }
  });
});

describe("every path that answers an error carries user_message", () => {
  it("401 unauthorized, before anything else is looked at", async () => {
    const res = await call("receipt/check-id", { id: "abc" }, { token: null, ...inLanguage("ru") });
    const error = await expectError(res, 401, "unauthorized");
    expect(res.headers.get("content-language")).toBe("ru");
    expect(error.user_message).toBe(ERROR_CODES.unauthorized.user_message.ru);
  });

  it("404 not_found of a path no route has", async () => {
    const res = await exports.default.fetch("http://gateway.test/api/v2/nothing", inLanguage("uz-Cyrl"));
    const error = await expectError(res, 404, "not_found");
    expect(res.headers.get("content-language")).toBe("uz-Cyrl");
    expect(error.user_message).toBe(ERROR_CODES.not_found.user_message["uz-Cyrl"]);
  });

  it("503 service_misconfigured, from the configuration guard in front of everything", async () => {
    const deployment = { ...env, ENVIRONMENT: "production" } as unknown as Env;
    const res = await createApp().fetch(new Request("http://gateway.test/healthz", inLanguage("uz")), deployment, createExecutionContext());
    const error = await expectError(res, 503, "service_misconfigured");
    expect(res.headers.get("content-language")).toBe("uz");
    expect(error.user_message).toBe(ERROR_CODES.service_misconfigured.user_message.uz);
  });

  it("500 internal_error, the catch-all for a bug", async () => {
    const app = new Hono<GatewayEnv>().use(negotiateLanguage).get("/", () => {
      throw new TypeError("a bug");
    });
    app.onError(renderError);
    const res = await app.request("/", inLanguage("ru"));
    expect(res.status).toBe(500);
    expect(res.headers.get("content-language")).toBe("ru");
    expect(((await res.json()) as { error: { user_message: string } }).error.user_message).toBe(ERROR_CODES.internal_error.user_message.ru);
  });

  it("an error kept for an Idempotency-Key is sent again as it was, in the language it was first sent in", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    const key = `declined-${crypto.randomUUID()}`;
    const pay = (header: string) =>
      call(
        "receipt/pay",
        { id: receipt.id, card: { token: "tok_sandbox_insufficient" } },
        { headers: { "Idempotency-Key": key, "accept-language": header } },
      );
    const first = await pay("ru");
    const kept = await first.clone().text();
    await expectError(first, 402, "card_declined");
    expect(first.headers.get("content-language")).toBe("ru");
    const again = await pay("en");
    expect(again.status).toBe(402);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("content-language")).toBe("ru");
    expect(await again.text()).toBe(kept);
  });
});
