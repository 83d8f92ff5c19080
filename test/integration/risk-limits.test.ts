/**
 * Rule 13: card testing and SMS pumping stopped at the edge. Each card
 * number is counted across all receipts and users (10 an hour), the distinct
 * cards of one user (5 a day), the OTP sends of one user (20 a day) and of
 * one card (10 a day); past a limit the call is 429 risk_limited with
 * Retry-After, before the upstream is called, in the record's audit trail,
 * and nothing else changes. The partner is exempt; a refused or invalid call
 * counts nothing. The limits here are wrangler.toml's defaults.
 */
import { createExecutionContext, listDurableObjectIds, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import { type MetricPoint, observeMetrics } from "../../src/metrics";
import { cardFingerprint } from "../../src/risk/fingerprint";
import { callGateway, loggedEventTypes } from "../events";
import {
  API,
  call,
  cardDataIn,
  createReceipt,
  DAY_MS,
  dumpStorage,
  expectError,
  expectStatus,
  letTimePass,
  newTid,
  newUser,
  OTP_OK,
  sandboxCalls,
  sandboxReceipt,
  userToken,
} from "../helpers";

const HOUR_MS = 3_600_000;
const EXPIRE = "3012";

/** A counter object's storage as text: its tables' rows and its KV entries (where its one value, the log, is kept). */
async function dumpCounters(stub: DurableObjectStub): Promise<string[]> {
  const kv = await runInDurableObject(stub, (_o, state) => [...state.storage.kv.list()].map(([key, value]) => `kv ${key}: ${JSON.stringify(value)}`));
  return [...(await dumpStorage(stub)), ...kv];
}

/** A 16-digit number that passes the Luhn check and no other test uses: a card nobody has counted yet. */
function freshCardNumber(): string {
  const digits = `8600${String(crypto.getRandomValues(new Uint32Array(2)).join(""))
    .padEnd(11, "7")
    .slice(0, 11)}`;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return `${digits}${(10 - (sum % 10)) % 10}`;
}

/** A user with a token, and an unpaid merchant-1003 receipt of theirs per call of `receipt()`. */
async function aUser() {
  const sub = newUser("risk");
  const token = await userToken(sub);
  return { sub, token, receipt: () => createReceipt({ merchant_id: 1003 }, { token }) };
}

const anonymousPay = (id: string, number: string, token: string | undefined) =>
  call("receipt/anonymous/pay", { id, card: { number, expire: EXPIRE }, otp: OTP_OK }, token === undefined ? {} : { token });

/** The pays and authorizes of receipt `id` that reached the upstream. */
const upstreamMovesFor = async (id: string) => (await sandboxCalls()).filter((c) => c.id === id && /pay|authorize/.test(c.path));

async function expectRiskLimited(response: Promise<Response>, rule: string, windowSeconds: number) {
  const res = await response;
  const error = await expectError(res.clone(), 429, "risk_limited");
  expect(error.rule).toBe(rule);
  const retryAfter = Number(res.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
  return { error, retryAfter, text: await res.text() };
}

/** n users each pay one receipt of their own with `number` (each a use of it that reaches the upstream). */
async function usesByUsers(number: string, n: number) {
  for (let i = 0; i < n; i++) {
    const user = await aUser();
    const res = await anonymousPay((await user.receipt()).id, number, user.token);
    expect(res.status, await res.text()).not.toBe(429);
  }
}

let warned: string[] = [];
beforeEach(() => {
  warned = [];
  vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => {
    warned.push(args.map(String).join(" "));
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe("a card number is used at most 10 times an hour, across users and receipts", () => {
  it("the 11th use across 11 users is refused with risk_limited and never reaches the upstream; the refusal is audited and changes nothing else", async () => {
    const number = freshCardNumber();
    await usesByUsers(number, 10);

    const eleventh = await aUser();
    const receipt = await eleventh.receipt();
    const before = await sandboxReceipt(receipt.id);
    const points: MetricPoint[] = [];
    const stop = observeMetrics((point) => points.push(point));
    const refused = await expectRiskLimited(anonymousPay(receipt.id, number, eleventh.token), "card_uses_per_hour", 3600);
    stop();
    expect(refused.retryAfter).toBeGreaterThan(3500);
    // The on-call's card-testing metric: the limit and whose counter, one data point, never the card or the user.
    expect(points).toEqual([{ indexes: ["risk_refused"], blobs: ["risk_refused", "card_uses_per_hour", "card"], doubles: [1, 0, 0] }]);

    expect(await upstreamMovesFor(receipt.id)).toEqual([]);
    expect(await sandboxReceipt(receipt.id)).toEqual(before);
    const audit = await expectStatus<any>(callGateway("receipt/audit", { id: receipt.id }), 200);
    expect(audit.entries.at(-1)).toMatchObject({ op: "pay", outcome: "risk_limited:card_uses_per_hour", state: 0 });
    expect(await loggedEventTypes("receipt", receipt.id)).toEqual(["receipt.created"]);
    // A line a partner can alert on, with the rule, the subject and a fingerprint's prefix: never the number.
    const line = warned.find((l) => l.includes('"event":"risk_limited"'));
    expect(line).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({ rule: "card_uses_per_hour", subject: "card", fingerprint: expect.stringMatching(/^[0-9a-f]{12}$/) });
    for (const text of [line!, refused.text]) expect(cardDataIn(text, { pans: [number], otps: [], expiries: [] })).toEqual([]);
  });

  it("a2c/create's receiver_card counts as a use of the number", async () => {
    const number = freshCardNumber();
    await usesByUsers(number, 9);
    const user = await aUser();
    const transfer = { amount: 500_000, rate_id: 1, token: "tok_sandbox_ok", receiver_card: number };
    await expectStatus(call("a2c/create", { ...transfer, tid: newTid() }, { token: user.token }), 200);
    const calls = (await sandboxCalls()).length;
    await expectRiskLimited(call("a2c/create", { ...transfer, tid: newTid() }, { token: user.token }), "card_uses_per_hour", 3600);
    expect((await sandboxCalls()).length).toBe(calls);
  });

  it("the window ends an hour after each use, and refused calls did not extend it", async () => {
    const number = freshCardNumber();
    await usesByUsers(number, 10);
    letTimePass(HOUR_MS / 2);
    // Ten refused calls half an hour in: had they counted, the card would stay blocked past the first hour.
    for (const late of [await aUser(), await aUser()]) {
      for (let i = 0; i < 5; i++) {
        const refused = await expectRiskLimited(anonymousPay((await late.receipt()).id, number, late.token), "card_uses_per_hour", 3600);
        expect(refused.retryAfter).toBeLessThanOrEqual(1800);
      }
    }
    letTimePass(HOUR_MS / 2);
    const after = await aUser();
    const res = await anonymousPay((await after.receipt()).id, number, after.token);
    expect(res.status, await res.text()).not.toBe(429);
  });

  it("50 uses at once let exactly 10 through to the upstream", async () => {
    const number = freshCardNumber();
    const users = await Promise.all(Array.from({ length: 50 }, () => aUser()));
    const receipts = await Promise.all(users.map((u) => u.receipt()));
    const answers = await Promise.all(receipts.map((r, i) => anonymousPay(r.id, number, users[i]!.token)));
    const bodies = await Promise.all(answers.map((a) => a.json<any>()));
    expect(bodies.filter((b) => b.error?.code === "risk_limited")).toHaveLength(40);
    const ids = new Set(receipts.map((r) => r.id));
    expect((await sandboxCalls()).filter((c) => c.id !== null && ids.has(c.id) && c.path.includes("anonymous/pay"))).toHaveLength(10);
  });

  it("requests refused as invalid (400), not found (404) or by the receipt's state (409) count nothing", async () => {
    const number = freshCardNumber();
    const user = await aUser();
    const stranger = await aUser();
    const paid = await user.receipt();
    await expectStatus(call("receipt/pay", { id: paid.id, card: { token: "tok_sandbox_ok" } }, { token: user.token }), 200);
    for (let i = 0; i < 4; i++) {
      const receipt = await user.receipt();
      await expectError(
        call("receipt/anonymous/pay", { id: receipt.id, card: { number, expire: EXPIRE }, otp: "1" }, { token: user.token }),
        400,
        "invalid_request",
      );
      // A field the card does not define: refused before anything counts, though the number is valid.
      await expectError(
        call("receipt/anonymous/pay", { id: receipt.id, card: { number, expire: EXPIRE, cvv: "123" }, otp: OTP_OK }, { token: user.token }),
        400,
        "invalid_request",
      );
      await expectError(anonymousPay(receipt.id, number, stranger.token), 404, "receipt_not_found");
      await expectError(anonymousPay(paid.id, number, user.token), 409, "receipt_already_paid");
    }
    await usesByUsers(number, 10);
    const last = await aUser();
    await expectRiskLimited(anonymousPay((await last.receipt()).id, number, last.token), "card_uses_per_hour", 3600);
  });

  it("the partner backend is exempt", async () => {
    const number = freshCardNumber();
    for (let i = 0; i < 12; i++) {
      const receipt = await createReceipt({ merchant_id: 1003 });
      const res = await anonymousPay(receipt.id, number, undefined);
      expect(res.status, await res.text()).not.toBe(429);
    }
  });
});

describe("a user uses at most 5 distinct card numbers a day", () => {
  it("the 6th distinct card is refused before the upstream; a card already used that day is still allowed", async () => {
    const user = await aUser();
    const cards = Array.from({ length: 6 }, freshCardNumber);
    for (const number of cards.slice(0, 5)) {
      const res = await anonymousPay((await user.receipt()).id, number, user.token);
      expect(res.status, await res.text()).not.toBe(429);
    }
    const receipt = await user.receipt();
    const refused = await expectRiskLimited(anonymousPay(receipt.id, cards[5]!, user.token), "user_cards_per_day", 86_400);
    expect(refused.retryAfter).toBeGreaterThan(86_000);
    expect(await upstreamMovesFor(receipt.id)).toEqual([]);
    // A card the user already used is no new card.
    expect((await anonymousPay(receipt.id, cards[0]!, user.token)).status).not.toBe(429);
    // A day later the first cards have left the window.
    letTimePass(DAY_MS);
    expect((await anonymousPay((await user.receipt()).id, cards[5]!, user.token)).status).not.toBe(429);
  });
});

describe("OTP sends: at most 20 per user and 10 per card a day", () => {
  /** A merchant-1001 receipt of the user's, authorized once with `card`. */
  const authorize = async (token: string, card: unknown) => {
    const receipt = await createReceipt({ merchant_id: 1001 }, { token });
    return { receipt, res: await call(`receipt/${"number" in (card as object) ? "anonymous/" : ""}authorize`, { id: receipt.id, card }, { token }) };
  };

  it("the 21st send for one user is refused and sends nothing", async () => {
    // One user, a receipt per send, four cards (so that no card reaches its own limit of 10).
    const token = await userToken(newUser("sms"));
    const tokens = Array.from({ length: 4 }, (_, i) => `tok_probe_${crypto.randomUUID().slice(0, 8)}_${i}`);
    let sends = 0;
    for (const card of tokens) {
      for (let i = 0; i < 5; i++) {
        const { res } = await authorizeWithinRateLimit(token, { token: card });
        expect(res.status, await res.text()).not.toBe(429);
        sends++;
      }
    }
    expect(sends).toBe(20);
    const { receipt, res } = await authorizeWithinRateLimit(token, { token: "tok_sandbox_ok" });
    await expectRiskLimited(Promise.resolve(res), "user_otp_sends_per_day", 86_400);
    expect(await upstreamMovesFor(receipt.id)).toEqual([]);
  });

  it("the 11th send to one card (a token here, its fingerprint) across users is refused", async () => {
    const card = { token: `tok_probe_${crypto.randomUUID().slice(0, 8)}` };
    for (let i = 0; i < 10; i++) {
      const { res } = await authorize(await userToken(newUser("sms")), card);
      expect(res.status, await res.text()).not.toBe(429);
    }
    const { receipt, res } = await authorize(await userToken(newUser("sms")), card);
    await expectRiskLimited(Promise.resolve(res), "card_otp_sends_per_day", 86_400);
    expect(await upstreamMovesFor(receipt.id)).toEqual([]);
  });

  /**
   * As authorize, through the app with a Workers rate limit that lets every
   * call through: it allows a user 5 authorizes a minute of real time, and
   * rule 13's daily counts are what is tested here (the counting happens in
   * the receipt's object, with the deployment's own RISK binding).
   */
  async function authorizeWithinRateLimit(token: string, card: unknown) {
    const receipt = await createReceipt({ merchant_id: 1001 }, { token });
    const unlimited = { limit: async () => ({ success: true }) };
    const deployment = { ...env, LIMIT_AUTHORIZE_PER_USER: unlimited, LIMIT_AUTHORIZE_PER_IP: unlimited } as Env;
    const res = await createApp().fetch(
      new Request(`${API}/receipt/authorize`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ id: receipt.id, card }),
      }),
      deployment,
      createExecutionContext(),
    );
    return { receipt, res };
  }
});

describe("what rule 13 keeps", () => {
  it("no card number or token in any counter; a subject's rows end with their window and its object then deletes itself", async () => {
    const number = freshCardNumber();
    const user = await aUser();
    await anonymousPay((await user.receipt()).id, number, user.token);
    const ids = await listDurableObjectIds(env.RISK);
    const rows = (await Promise.all(ids.map((id) => dumpCounters(env.RISK.get(id))))).flat();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(cardDataIn(row, { pans: [number, "8600000000000007"], otps: [], expiries: [] }), row).toEqual([]);
      expect(row).not.toContain("tok_");
    }

    const subjects = [
      env.RISK.get(env.RISK.idFromName(`card:${await cardFingerprint(env.CARD_FINGERPRINT_SECRET, { number })}`)),
      env.RISK.get(env.RISK.idFromName(`user:${user.sub}`)),
    ];
    for (const subject of subjects) expect(await dumpCounters(subject)).toHaveLength(1);
    letTimePass(DAY_MS + 1);
    for (const subject of subjects) {
      expect(await runDurableObjectAlarm(subject)).toBe(true);
      expect(await dumpCounters(subject)).toEqual([]);
      const tables = await runInDurableObject(subject, (_o, state) =>
        state.storage.sql
          .exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'")
          .toArray(),
      );
      expect(tables).toEqual([]);
    }
  });
});
