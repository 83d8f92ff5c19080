/**
 * Rule 13: card testing and SMS pumping stopped at the edge, and nobody can
 * lock another person's card out. Counted per user: their uses of each card
 * number as the payer's (5 an hour, 10 a day), their distinct payer cards
 * (5 a day) and receiver cards (20 a day), their OTP sends (20 a day) and
 * OTP sends to each card (5 a day); per card: its distinct users (3 a day),
 * where a user the card already admitted is never refused. Past a limit the
 * call is 429 risk_limited with Retry-After from the caller's own window,
 * before the upstream is called, in the record's audit trail, and nothing
 * else changes. The partner is exempt; a refused call counts nothing more,
 * and a request refused before the gateway acts counts nothing at all. The
 * limits here are wrangler.toml's defaults unless a test names its own.
 */
import { createExecutionContext, listDurableObjectIds, runDurableObjectAlarm, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import { DEFAULT_RISK_LIMITS, parseRiskLimits } from "../../src/config/risk-limits";
import { type MetricPoint, observeMetrics } from "../../src/metrics/metrics";
import { admitRisk } from "../../src/risk/check";
import { cardFingerprint, userKey } from "../../src/risk/fingerprint";
import type { Counter } from "../../src/risk/judge";
import { CHUNK, chunkOf, shardOf } from "../../src/risk/risk-object";
import { clock } from "../../src/shared/clock";
import { callGateway, loggedEventTypes } from "../events";
import {
  API,
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
  transferRequest,
  userToken,
} from "../helpers";

const HOUR_MS = 3_600_000;
const EXPIRE = "3012";

/** The deployment with Workers rate limits that let every call through: rule 13's counts are what is tested (rule 6's are limits.test.ts's). */
const unlimited = { limit: async () => ({ success: true }) };
const DEPLOYMENT = {
  ...env,
  LIMIT_AUTHORIZE_PER_USER: unlimited,
  LIMIT_AUTHORIZE_PER_IP: unlimited,
  LIMIT_PAY_PER_USER: unlimited,
  LIMIT_PAY_PER_IP: unlimited,
} as Env;

/** A user's (or, with no token, the partner's) call through the app with `deployment` as its env, and what it left to run after its answer. */
async function send(path: string, body: unknown, token: string | undefined, options: { deployment?: Env; headers?: Record<string, string> } = {}) {
  const ctx = createExecutionContext();
  const res = await createApp().fetch(
    new Request(`${API}/${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${token ?? "sk_test_local_partner"}`,
        ...options.headers,
      },
      body: JSON.stringify(body),
    }),
    options.deployment ?? DEPLOYMENT,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

/** A subject's parts of its shard's chunks, by day (`c:<chunk>:<day>`); none when the shard holds nothing of it. */
const partsIn = (shard: DurableObjectStub, subject: string) =>
  runInDurableObject(shard, (_o, state) =>
    [...state.storage.kv.list<Record<string, unknown>>({ prefix: chunkOf(subject) })].flatMap(([key, chunk]) =>
      Object.hasOwn(chunk, subject) ? [[key, chunk[subject]] as const] : [],
    ),
  );

/** The subjects a shard holds a part of, in any chunk, sorted. */
const subjectsIn = (shard: DurableObjectStub) =>
  runInDurableObject(shard, (_o, state) =>
    [...new Set([...state.storage.kv.list<Record<string, unknown>>({ prefix: CHUNK })].flatMap(([, chunk]) => Object.keys(chunk)))].sort(),
  );

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

/** A user with a token, and an unpaid receipt of theirs per call of `receipt()` (merchant 1003; 1001 sends OTPs). */
async function aUser() {
  const sub = newUser("risk");
  const token = await userToken(sub);
  return { sub, token, receipt: (merchant_id = 1003) => createReceipt({ merchant_id }, { token }) };
}
type User = Awaited<ReturnType<typeof aUser>>;

/** The user pays a receipt of their own (a new one unless `id`) with card number `number`. */
async function pay(user: User, number: string, options: { id?: string; headers?: Record<string, string> } = {}) {
  const id = options.id ?? (await user.receipt()).id;
  return send("receipt/anonymous/pay", { id, card: { number, expire: EXPIRE }, otp: OTP_OK }, user.token, { headers: options.headers });
}

/** The user asks for an OTP for a new receipt of their own (merchant 1001) with `card`: a number (anonymous) or a token. */
async function authorize(user: User, card: { number: string } | { token: string }) {
  const { id } = await user.receipt(1001);
  const res =
    "number" in card
      ? await send("receipt/anonymous/authorize", { id, card: { number: card.number, expire: EXPIRE } }, user.token)
      : await send("receipt/authorize", { id, card }, user.token);
  return { id, res };
}

/** The pays and authorizes of receipt `id` that reached the upstream. */
const upstreamMovesFor = async (id: string) => (await sandboxCalls()).filter((c) => c.id === id && /pay|authorize/.test(c.path));

async function expectAdmitted(response: Response | Promise<Response>) {
  const res = await response;
  const text = await res.text();
  expect(res.status, text).not.toBe(429);
  expect(res.status, text).toBeLessThan(500);
}

async function expectRiskLimited(response: Response | Promise<Response>, rule: string, windowSeconds: number) {
  const res = await response;
  const error = await expectError(res.clone(), 429, "risk_limited");
  expect(error.rule).toBe(rule);
  const retryAfter = Number(res.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
  return { error, retryAfter, text: await res.text() };
}

let warned: string[] = [];
let errors: string[] = [];
beforeEach(() => {
  warned = [];
  errors = [];
  vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => {
    warned.push(args.map(String).join(" "));
  });
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
    errors.push(args.map(String).join(" "));
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe("one user's uses of one card number: 5 an hour, 10 a day", () => {
  it("the 6th use within the hour is refused before the upstream, audited, and changes nothing else; other users still use the card", async () => {
    const number = freshCardNumber();
    const user = await aUser();
    for (let i = 0; i < 5; i++) await expectAdmitted(pay(user, number));

    const receipt = await user.receipt();
    const before = await sandboxReceipt(receipt.id);
    const points: MetricPoint[] = [];
    const stop = observeMetrics((point) => points.push(point));
    const refused = await expectRiskLimited(pay(user, number, { id: receipt.id }), "user_card_uses_per_hour", 3600);
    stop();
    expect(refused.retryAfter).toBeGreaterThan(3500);
    // The on-call's card-testing metric: the limit and whose counter, one data point, never the card or the user.
    expect(points).toEqual([{ indexes: ["risk_refused"], blobs: ["risk_refused", "user_card_uses_per_hour", "user"], doubles: [1, 0, 0] }]);

    expect(await upstreamMovesFor(receipt.id)).toEqual([]);
    expect(await sandboxReceipt(receipt.id)).toEqual(before);
    const audit = await expectStatus<any>(callGateway("receipt/audit", { id: receipt.id }), 200);
    expect(audit.entries.at(-1)).toMatchObject({ op: "pay", outcome: "risk_limited:user_card_uses_per_hour", state: 0 });
    expect(await loggedEventTypes("receipt", receipt.id)).toEqual(["receipt.created"]);
    // The request's line, at warn, a partner can alert on: the rule, the subject and a fingerprint's prefix, never the number.
    const line = warned.find((l) => l.includes('"risk_limited":{'));
    expect(line).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({
      level: "warn",
      event: "request",
      status: 429,
      code: "risk_limited",
      risk_limited: { rule: "user_card_uses_per_hour", subject: "user", fingerprint: expect.stringMatching(/^[0-9a-f]{12}$/) },
    });
    for (const text of [line!, refused.text]) expect(cardDataIn(text, { pans: [number], otps: [], expiries: [] })).toEqual([]);

    // The card is not locked: another user pays with it.
    await expectAdmitted(pay(await aUser(), number));
  });

  it("Retry-After counts from the caller's own uses, never from another user's; refused calls do not extend the window", async () => {
    const number = freshCardNumber();
    // Another user used the card 40 minutes before the caller's first use: the card's own first use.
    await expectAdmitted(pay(await aUser(), number));
    letTimePass(40 * 60_000);
    const user = await aUser();
    for (let i = 0; i < 5; i++) await expectAdmitted(pay(user, number));
    const refused = await expectRiskLimited(pay(user, number), "user_card_uses_per_hour", 3600);
    // From the other user's use it would be 20 minutes; the caller's own first use leaves in an hour.
    expect(refused.retryAfter).toBeGreaterThan(3500);

    letTimePass(HOUR_MS / 2);
    for (let i = 0; i < 5; i++) {
      const again = await expectRiskLimited(pay(user, number), "user_card_uses_per_hour", 3600);
      expect(again.retryAfter).toBeLessThanOrEqual(1800);
    }
    // An hour after the caller's first uses: had the refused calls counted, the card would stay refused.
    letTimePass(HOUR_MS / 2);
    await expectAdmitted(pay(user, number));
  });

  it("the 11th use in a day is refused by the day's limit, Retry-After from the user's own first use", async () => {
    const number = freshCardNumber();
    const user = await aUser();
    for (let i = 0; i < 5; i++) await expectAdmitted(pay(user, number));
    letTimePass(HOUR_MS);
    for (let i = 0; i < 5; i++) await expectAdmitted(pay(user, number));
    letTimePass(HOUR_MS);
    const refused = await expectRiskLimited(pay(user, number), "user_card_uses_per_day", 86_400);
    // The first use leaves the day 22 hours from now.
    expect(refused.retryAfter).toBeGreaterThan(22 * 3600 - 60);
    expect(refused.retryAfter).toBeLessThanOrEqual(22 * 3600);
    await expectAdmitted(pay(await aUser(), number));
  });

  it("12 uses at once by one user let exactly 5 through to the upstream", async () => {
    const number = freshCardNumber();
    const user = await aUser();
    const receipts = await Promise.all(Array.from({ length: 12 }, () => user.receipt()));
    const answers = await Promise.all(receipts.map((r) => pay(user, number, { id: r.id })));
    const bodies = await Promise.all(answers.map((a) => a.json<any>()));
    expect(bodies.filter((b) => b.error?.code === "risk_limited")).toHaveLength(7);
    const ids = new Set(receipts.map((r) => r.id));
    expect((await sandboxCalls()).filter((c) => c.id !== null && ids.has(c.id) && c.path.includes("anonymous/pay"))).toHaveLength(5);
  });

  it("the partner backend is exempt", async () => {
    const number = freshCardNumber();
    for (let i = 0; i < 12; i++) {
      const receipt = await createReceipt({ merchant_id: 1003 });
      await expectAdmitted(send("receipt/anonymous/pay", { id: receipt.id, card: { number, expire: EXPIRE }, otp: OTP_OK }, undefined));
    }
  });
});

describe("a card's users: at most 3 a day, and a user the card already admitted is never refused", () => {
  it("a 4th user is refused with the whole window as Retry-After; the first three are never refused, however many others try", async () => {
    const number = freshCardNumber();
    const [a, b, c] = [await aUser(), await aUser(), await aUser()];
    await expectAdmitted(pay(a, number));
    letTimePass(2 * HOUR_MS);
    await expectAdmitted(pay(b, number));
    await expectAdmitted(pay(c, number));
    letTimePass(5 * HOUR_MS);

    const points: MetricPoint[] = [];
    const stop = observeMetrics((point) => points.push(point));
    for (let i = 0; i < 6; i++) {
      const stranger = await aUser();
      const receipt = await stranger.receipt();
      const refused = await expectRiskLimited(pay(stranger, number, { id: receipt.id }), "card_users_per_day", 86_400);
      // The whole day: when the card's users came (7 and 5 hours ago) is theirs, not the stranger's to learn.
      expect(refused.retryAfter).toBe(86_400);
      expect(await upstreamMovesFor(receipt.id)).toEqual([]);
    }
    stop();
    expect(points.filter((point) => point.indexes[0] === "risk_refused").map((point) => point.blobs)).toEqual(
      Array.from({ length: 6 }, () => ["risk_refused", "card_users_per_day", "card"]),
    );

    // The card's own users go on paying with it.
    for (const user of [a, b, c]) await expectAdmitted(pay(user, number));
    // A day after its users' last uses, the card takes a new user.
    letTimePass(DAY_MS);
    await expectAdmitted(pay(await aUser(), number));
  });

  it("the card's refusal takes back what the user's own counter wrote for the call: the refused card is not one of the user's cards", async () => {
    const full = freshCardNumber();
    for (let i = 0; i < 3; i++) await expectAdmitted(pay(await aUser(), full));
    const user = await aUser();
    for (let i = 0; i < 4; i++) await expectAdmitted(pay(user, freshCardNumber()));
    await expectRiskLimited(pay(user, full), "card_users_per_day", 86_400);
    // Had the refused card stayed counted, this fifth card would be the sixth.
    await expectAdmitted(pay(user, freshCardNumber()));
    await expectRiskLimited(pay(user, freshCardNumber()), "user_payer_cards_per_day", 86_400);
  });
});

describe("a user's distinct payer cards: 5 a day", () => {
  it("the 6th distinct card is refused before the upstream; a card already used that day is still allowed", async () => {
    const user = await aUser();
    const cards = Array.from({ length: 6 }, freshCardNumber);
    for (const number of cards.slice(0, 5)) await expectAdmitted(pay(user, number));
    const receipt = await user.receipt();
    const refused = await expectRiskLimited(pay(user, cards[5]!, { id: receipt.id }), "user_payer_cards_per_day", 86_400);
    expect(refused.retryAfter).toBeGreaterThan(86_000);
    expect(await upstreamMovesFor(receipt.id)).toEqual([]);
    // A card the user already used is no new card.
    await expectAdmitted(pay(user, cards[0]!, { id: receipt.id }));
    // A day later the first cards have left the window.
    letTimePass(DAY_MS);
    await expectAdmitted(pay(user, cards[5]!));
  });
});

describe("nobody can use up a stranger's card", () => {
  it("a2c/create refused for its Idempotency-Key counts nothing: the card's owner still pays with it, the caller still creates", async () => {
    const number = freshCardNumber();
    const owner = await aUser();
    await expectAdmitted(pay(owner, number));

    const mallory = await aUser();
    const transfer = { amount: 500_000, rate_id: 1, token: "tok_sandbox_ok", receiver_card: number };
    const upstreamBefore = (await sandboxCalls()).length;
    // Eleven to the owner's card, then twenty to cards of her own: past every limit, had they counted.
    const receivers = [...Array.from({ length: 11 }, () => number), ...Array.from({ length: 20 }, freshCardNumber)];
    for (const receiver_card of receivers) {
      const error = await expectError(
        send("a2c/create", { ...transfer, receiver_card, tid: newTid() }, mallory.token, { headers: { "Idempotency-Key": "k".repeat(256) } }),
        400,
        "invalid_request",
      );
      expect(error.details).toEqual([expect.objectContaining({ path: "Idempotency-Key" })]);
    }
    expect((await sandboxCalls()).length).toBe(upstreamBefore);

    await expectAdmitted(pay(owner, number));
    // Her first receiver card today, as far as rule 13 knows.
    const own = { ...transfer, receiver_card: freshCardNumber(), tid: newTid() };
    await expectStatus(send("a2c/create", own, mallory.token, { headers: { "Idempotency-Key": "k" } }), 200);
  });

  it("other users' OTP sends to a card never use up its owner's", async () => {
    const number = freshCardNumber();
    const owner = await aUser();
    const first = await authorize(owner, { number });
    await expectAdmitted(first.res);
    // Two strangers ask for OTPs to the owner's card, five each: eleven sends to the card in all.
    const strangers = [await aUser(), await aUser()];
    for (const stranger of strangers) for (let i = 0; i < 5; i++) await expectAdmitted((await authorize(stranger, { number })).res);
    // The owner's next OTP is still sent.
    await expectAdmitted((await authorize(owner, { number })).res);
    // Each stranger is refused on their own count.
    for (const stranger of strangers) {
      const { id, res } = await authorize(stranger, { number });
      await expectRiskLimited(res, "user_card_otp_sends_per_day", 86_400);
      expect(await upstreamMovesFor(id)).toEqual([]);
    }
  });
});

describe("OTP sends: 20 a day per user, 5 a day per user and card", () => {
  it("the 21st send for one user is refused and sends nothing", async () => {
    const user = await aUser();
    // Four cards (tokens here), five sends each: no card reaches its own limit.
    for (let card = 0; card < 4; card++) {
      const token = `tok_probe_${crypto.randomUUID().slice(0, 8)}_${card}`;
      for (let i = 0; i < 5; i++) await expectAdmitted((await authorize(user, { token })).res);
    }
    const { id, res } = await authorize(user, { token: "tok_sandbox_ok" });
    await expectRiskLimited(res, "user_otp_sends_per_day", 86_400);
    expect(await upstreamMovesFor(id)).toEqual([]);
  });

  it("the 6th send to one card (a token, by its fingerprint) for one user is refused; the token is no card number's use", async () => {
    const user = await aUser();
    const card = { token: `tok_probe_${crypto.randomUUID().slice(0, 8)}` };
    for (let i = 0; i < 5; i++) await expectAdmitted((await authorize(user, card)).res);
    const { id, res } = await authorize(user, card);
    await expectRiskLimited(res, "user_card_otp_sends_per_day", 86_400);
    expect(await upstreamMovesFor(id)).toEqual([]);
    // Another user asks for an OTP to the same token.
    await expectAdmitted((await authorize(await aUser(), card)).res);
  });
});

describe("a2c/create: a user's distinct receiver cards, 20 a day, which count toward nothing else", () => {
  it("the 21st distinct receiver is refused before the upstream and frees its tid; a receiver already counted is allowed", async () => {
    const user = await aUser();
    const receivers = Array.from({ length: 21 }, freshCardNumber);
    const create = (receiver_card: string, tid = newTid()) => send("a2c/create", transferRequest({ tid, receiver_card }), user.token);
    for (const receiver of receivers.slice(0, 20)) await expectStatus(create(receiver), 200);
    const calls = (await sandboxCalls()).length;
    const tid = newTid();
    const refused = await expectRiskLimited(create(receivers[20]!, tid), "user_receiver_cards_per_day", 86_400);
    expect(refused.retryAfter).toBeGreaterThan(86_000);
    expect((await sandboxCalls()).length).toBe(calls);
    // The refused create's tid is free, for a create to a receiver already counted.
    await expectStatus(create(receivers[0]!, tid), 200);
  });

  it("receiver cards count toward no payer limit: many users send to one card, which still pays", async () => {
    const number = freshCardNumber();
    for (let i = 0; i < 5; i++) {
      const sender = await aUser();
      await expectStatus(send("a2c/create", transferRequest({ receiver_card: number }), sender.token), 200);
    }
    // Five senders, yet the card has no user as the payer's: three users pay with it.
    for (let i = 0; i < 3; i++) await expectAdmitted(pay(await aUser(), number));
    // A user's receivers are not their payer cards.
    const user = await aUser();
    for (let i = 0; i < 6; i++) await expectStatus(send("a2c/create", transferRequest({ receiver_card: freshCardNumber() }), user.token), 200);
    for (let i = 0; i < 5; i++) await expectAdmitted(pay(user, freshCardNumber()));
  });

  it("a replayed create and a tid conflict count nothing", async () => {
    const deployment = { ...DEPLOYMENT, RISK_LIMITS: '{"user_receiver_cards_per_day": 2}' } as Env;
    const user = await aUser();
    const create = (body: Record<string, unknown>) => send("a2c/create", body, user.token, { deployment });
    const first = transferRequest({ receiver_card: freshCardNumber() });
    await expectStatus(create(first), 200);
    for (let i = 0; i < 3; i++) {
      const replay = await create(first);
      await expectStatus(replay.clone(), 200);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      await expectError(create({ ...first, receiver_card: freshCardNumber() }), 409, "tid_conflict");
    }
    // Had the conflicts counted, this second receiver would be the fifth.
    await expectStatus(create(transferRequest({ receiver_card: freshCardNumber() })), 200);
    await expectRiskLimited(create(transferRequest({ receiver_card: freshCardNumber() })), "user_receiver_cards_per_day", 86_400);
  });
});

describe("a request refused before the gateway acts counts nothing", () => {
  it("its body, its Idempotency-Key, the caller's rights, the receipt's state, a reused key or a replay: the user then has all 5 uses", async () => {
    const number = freshCardNumber();
    const user = await aUser();
    const stranger = await aUser();
    const paid = await user.receipt();
    await expectStatus(send("receipt/pay", { id: paid.id, card: { token: "tok_sandbox_ok" } }, user.token), 200);
    // One keyed use, then its replays (no use), and the key reused for another body (no use).
    const keyed = await user.receipt();
    await expectAdmitted(pay(user, number, { id: keyed.id, headers: { "Idempotency-Key": "k-1" } }));
    for (let i = 0; i < 6; i++) {
      const receipt = await user.receipt();
      const body = { id: receipt.id, card: { number, expire: EXPIRE }, otp: OTP_OK };
      await expectError(send("receipt/anonymous/pay", { ...body, otp: "1" }, user.token), 400, "invalid_request");
      // A field the card does not define: refused before anything counts, though the number is valid.
      await expectError(send("receipt/anonymous/pay", { ...body, card: { ...body.card, cvv: "123" } }, user.token), 400, "invalid_request");
      await expectError(send("receipt/anonymous/pay", body, user.token, { headers: { "Idempotency-Key": "k".repeat(256) } }), 400, "invalid_request");
      await expectError(pay(stranger, number, { id: receipt.id }), 404, "receipt_not_found");
      await expectError(pay(user, number, { id: paid.id }), 409, "receipt_already_paid");
      const replay = await pay(user, number, { id: keyed.id, headers: { "Idempotency-Key": "k-1" } });
      expect(replay.headers.get("idempotent-replayed"), await replay.text()).toBe("true");
      await expectError(
        send("receipt/anonymous/pay", { ...body, id: keyed.id, otp: "333333" }, user.token, { headers: { "Idempotency-Key": "k-1" } }),
        409,
        "idempotency_key_reused",
      );
    }
    for (let i = 0; i < 4; i++) await expectAdmitted(pay(user, number));
    await expectRiskLimited(pay(user, number), "user_card_uses_per_hour", 3600);
  });

  it("a call refused by the rate limit counts nothing", async () => {
    const number = freshCardNumber();
    const user = await aUser();
    const refusing = { limit: async () => ({ success: false }) };
    const deployment = { ...DEPLOYMENT, LIMIT_PAY_PER_USER: refusing } as Env;
    for (let i = 0; i < 6; i++) {
      const { id } = await user.receipt();
      const res = await send("receipt/anonymous/pay", { id, card: { number, expire: EXPIRE }, otp: OTP_OK }, user.token, { deployment });
      await expectError(res, 429, "rate_limited");
    }
    for (let i = 0; i < 5; i++) await expectAdmitted(pay(user, number));
  });
});

describe("one card, one fingerprint, however its number is written", () => {
  it("leading zeros, spaces and dashes fingerprint as the number itself; a token and another number do not", async () => {
    const secret = env.CARD_FINGERPRINT_SECRET;
    const plain = await cardFingerprint(secret, { number: "8600000000000007" });
    for (const written of ["0008600000000000007", "08600000000000007", "8600 0000 0000 0007", "8600-0000-0000-0007", " 8600000000000007 "]) {
      expect(await cardFingerprint(secret, { number: written }), written).toBe(plain);
    }
    expect(await cardFingerprint(secret, { number: "9860000000000018" })).not.toBe(plain);
    expect(await cardFingerprint(secret, { token: "8600000000000007" })).not.toBe(plain);
  });

  it("the number written with leading zeros is the same card's 6th use; written with spaces it is refused as invalid and counts nothing", async () => {
    const number = freshCardNumber();
    const user = await aUser();
    await expectError(pay(user, number.replace(/(\d{4})(?=\d)/g, "$1 ")), 400, "invalid_request");
    for (let i = 0; i < 5; i++) await expectAdmitted(pay(user, number));
    await expectRiskLimited(pay(user, number.padStart(19, "0")), "user_card_uses_per_hour", 3600);
  });
});

describe("a takeback never undoes another call's count", () => {
  it("two calls count one card at once; the first is taken back; the card stays counted by the second", async () => {
    const subject = `user:${newUser("race")}`;
    const user = env.RISK.get(env.RISK.idFromName(shardOf(subject)));
    const payerCards = (ref: string): Counter[] => [{ rule: "user_payer_cards_per_day", limit: 2, windowMs: DAY_MS, keepMs: DAY_MS, ref }];
    const [refusedElsewhere, admitted] = await Promise.all([
      user.count(subject, payerCards("card-x"), "call-a"),
      user.count(subject, payerCards("card-x"), "call-b"),
    ]);
    expect(refusedElsewhere.ok && admitted.ok).toBe(true);
    // Call A was refused by the card's counter: its own entries are taken back while call B goes on.
    await user.takeBack(subject, refusedElsewhere.ok ? refusedElsewhere.taken : []);
    // Card X is still one of the user's two: Y is the second, Z a third.
    expect((await user.count(subject, payerCards("card-y"), "call-c")).ok).toBe(true);
    expect(await user.count(subject, payerCards("card-z"), "call-d")).toMatchObject({ ok: false, rule: "user_payer_cards_per_day" });
  });
});

describe("a counter that cannot answer", () => {
  /** The RISK binding with every subject's counter (or those whose name starts with `failing`) throwing, as an overloaded or unreachable object does. */
  const failingRisk = (failing = "") =>
    ({
      idFromName: (name: string) => env.RISK.idFromName(name),
      get: (id: DurableObjectId) => {
        const shard = env.RISK.get(id);
        const down = () => Promise.reject(new Error("Durable Object is overloaded"));
        return {
          count: (subject: string, ...rest: [Counter[], string]) => (subject.startsWith(failing) ? down() : shard.count(subject, ...rest)),
          takeBack: (subject: string, taken: Parameters<typeof shard.takeBack>[1]) =>
            subject.startsWith(failing) ? down() : shard.takeBack(subject, taken),
        };
      },
    }) as unknown as Env["RISK"];

  it("a user's counter that fails is replaced by the isolate's own: the limit still holds, loudly", async () => {
    const deployment = { ...DEPLOYMENT, RISK: failingRisk(), RISK_LIMITS: '{"user_receiver_cards_per_day": 2}' } as Env;
    const user = await aUser();
    const create = () => send("a2c/create", transferRequest({ receiver_card: freshCardNumber() }), user.token, { deployment });
    await expectStatus(create(), 200);
    await expectStatus(create(), 200);
    await expectRiskLimited(create(), "user_receiver_cards_per_day", 86_400);
    const line = errors.find((l) => l.includes('"event":"risk_unavailable"'));
    expect(line && JSON.parse(line)).toMatchObject({ subject: "user", fallback: "isolate" });
  });

  it("a card's counter that fails is replaced by the isolate's own: its users are still counted, its earlier users still admitted", async () => {
    const deployment = { ...env, RISK: failingRisk("card:") } as Env;
    const number = freshCardNumber();
    const users = await Promise.all(Array.from({ length: 4 }, () => aUser()));
    const caller = (user: User) => ({ kind: "user" as const, id: user.sub });
    const use = (user: User) => admitRisk(deployment, caller(user), { card: { number } }, "test");
    for (const user of users.slice(0, 3)) expect(await use(user)).toBeNull();
    expect(await use(users[3]!)).toMatchObject({ code: "risk_limited", rule: "card_users_per_day", retry_after: 86_400 });
    expect(await use(users[0]!)).toBeNull();
  });
});

describe("RISK_LIMITS", () => {
  it("names the limits, each a positive integer or off; a limit the previous release counted is refused with what replaced it", async () => {
    expect(parseRiskLimits('{"user_card_uses_per_hour": 3, "card_users_per_day": "off"}')).toEqual({
      limits: { ...DEFAULT_RISK_LIMITS, user_card_uses_per_hour: 3, card_users_per_day: null },
      problem: null,
    });
    expect(parseRiskLimits('{"card_uses_per_hour": 10}').problem).toMatch(
      /card_uses_per_hour, a limit no longer counted: set user_card_uses_per_hour/,
    );
    const deployment = { ...DEPLOYMENT, RISK_LIMITS: '{"card_otp_sends_per_day": 10}' } as Env;
    const error = await expectError(send("a2c/create", transferRequest(), (await aUser()).token, { deployment }), 503, "service_misconfigured");
    expect(error.message).toContain("user_card_otp_sends_per_day");
  });
});

describe("what rule 13 keeps", () => {
  /** A subject's log in its shard, and the shard. */
  const inShard = (subject: string) => {
    const shard = env.RISK.get(env.RISK.idFromName(shardOf(subject)));
    return { shard, log: async () => ((await partsIn(shard, subject)).length > 0 ? Object.fromEntries(await partsIn(shard, subject)) : undefined) };
  };

  it("a subject's shard is the same in every release: it names the object that holds its counts", () => {
    // A change of the hash would move every card and user to another shard at a deploy, their counts left behind.
    expect([shardOf("card:abc"), shardOf("user:alice")]).toEqual(["shard:113", "shard:16"]);
  });

  it("a shard's sweep deletes only the subjects whose uses have all ended: another subject of the shard keeps its count", async () => {
    // Two users whose counters fall to the same shard.
    const first = `user:${newUser("sweep")}`;
    let second = `user:${newUser("sweep")}`;
    while (shardOf(second) !== shardOf(first) || chunkOf(second) === chunkOf(first)) second = `user:${newUser("sweep")}`;
    const shard = env.RISK.get(env.RISK.idFromName(shardOf(first)));
    const sends = (limit: number): Counter[] => [{ rule: "user_otp_sends_per_day", limit, windowMs: DAY_MS, keepMs: DAY_MS, ref: "card" }];
    expect((await shard.count(first, sends(1), "a")).ok).toBe(true);
    letTimePass(12 * HOUR_MS);
    expect((await shard.count(second, sends(1), "b")).ok).toBe(true);
    letTimePass(12 * HOUR_MS + HOUR_MS);
    expect(await runDurableObjectAlarm(shard)).toBe(true);
    expect(await subjectsIn(shard)).toContain(second);
    expect(await subjectsIn(shard)).not.toContain(first);
    expect(await shard.count(second, sends(1), "c")).toMatchObject({ ok: false, rule: "user_otp_sends_per_day" });
    expect((await shard.count(first, sends(1), "d")).ok).toBe(true);
  });

  /** Two subjects of one shard whose parts share its chunks (the same chunk, each day). */
  const twoInOneChunk = () => {
    const first = `user:${newUser("chunk")}`;
    let second = `user:${newUser("chunk")}`;
    while (shardOf(second) !== shardOf(first) || chunkOf(second) !== chunkOf(first)) second = `user:${newUser("chunk")}`;
    return { first, second, shard: env.RISK.get(env.RISK.idFromName(shardOf(first))) };
  };
  const sends = (limit: number): Counter[] => [{ rule: "user_otp_sends_per_day", limit, windowMs: DAY_MS, keepMs: DAY_MS, ref: "card" }];
  const uses = (perHour: number, perDay: number): Counter[] => [
    { rule: "user_card_uses_per_hour", limit: perHour, windowMs: HOUR_MS, keepMs: DAY_MS, ref: "card" },
    { rule: "user_card_uses_per_day", limit: perDay, windowMs: DAY_MS, keepMs: DAY_MS, ref: "card" },
  ];
  /** Moves the clock to `ms` before the next midnight (UTC, where a chunk's day starts). */
  const toBeforeMidnight = (ms: number) => letTimePass(DAY_MS - (clock.now() % DAY_MS) - ms);

  it("windows that span midnight count the uses on both sides: a use at 23:59 and one at 00:01 are both counted, in two days' chunks", async () => {
    const subject = `user:${newUser("midnight")}`;
    const shard = env.RISK.get(env.RISK.idFromName(shardOf(subject)));
    toBeforeMidnight(60_000);
    expect((await shard.count(subject, uses(2, 3), "a")).ok).toBe(true);
    letTimePass(2 * 60_000);
    expect((await shard.count(subject, uses(2, 3), "b")).ok).toBe(true);
    expect((await partsIn(shard, subject)).map(([key]) => key)).toHaveLength(2);
    // The hour's window holds both: the 3rd use is refused until the 23:59 use leaves it, an hour after it was made.
    const refused = await shard.count(subject, uses(2, 3), "c");
    expect(refused).toMatchObject({ ok: false, rule: "user_card_uses_per_hour" });
    expect(refused.ok ? 0 : refused.retryAfterMs).toBeGreaterThan(HOUR_MS - 3 * 60_000);
    expect(refused.ok ? 0 : refused.retryAfterMs).toBeLessThanOrEqual(HOUR_MS - 2 * 60_000);
    letTimePass(HOUR_MS - 2 * 60_000);
    expect((await shard.count(subject, uses(2, 3), "d")).ok).toBe(true);
    // The day's window holds all three, the one before midnight too, until a day after it.
    letTimePass(HOUR_MS);
    expect(await shard.count(subject, uses(5, 3), "e")).toMatchObject({ ok: false, rule: "user_card_uses_per_day" });
    letTimePass(DAY_MS - 2 * HOUR_MS);
    expect((await shard.count(subject, uses(5, 3), "f")).ok).toBe(true);
  });

  it("a receiver card used again the next day moves its end on: it is still counted a day after its second use, past midnight", async () => {
    const subject = `user:${newUser("midnight")}`;
    const shard = env.RISK.get(env.RISK.idFromName(shardOf(subject)));
    const receivers = (ref: string): Counter[] => [{ rule: "user_receiver_cards_per_day", limit: 1, windowMs: DAY_MS, keepMs: DAY_MS, ref }];
    toBeforeMidnight(60_000);
    expect((await shard.count(subject, receivers("card-x"), "a")).ok).toBe(true);
    letTimePass(20 * HOUR_MS);
    expect((await shard.count(subject, receivers("card-x"), "b")).ok).toBe(true);
    letTimePass(10 * HOUR_MS);
    expect(await shard.count(subject, receivers("card-y"), "c")).toMatchObject({ ok: false, rule: "user_receiver_cards_per_day" });
  });

  it("a call counted just before midnight and refused elsewhere is taken back after it, from the day before's chunk", async () => {
    const subject = `user:${newUser("midnight")}`;
    const shard = env.RISK.get(env.RISK.idFromName(shardOf(subject)));
    toBeforeMidnight(1000);
    const counted = await shard.count(subject, sends(2), "a");
    expect(counted.ok).toBe(true);
    // Another call of the user's, after midnight, counted in today's chunk before the takeback arrives.
    letTimePass(2000);
    expect((await shard.count(subject, sends(2), "b")).ok).toBe(true);
    await shard.takeBack(subject, counted.ok ? counted.taken : []);
    expect(await partsIn(shard, subject)).toHaveLength(1);
    expect((await shard.count(subject, sends(2), "c")).ok).toBe(true);
    expect(await shard.count(subject, sends(2), "d")).toMatchObject({ ok: false, rule: "user_otp_sends_per_day" });
  });

  it("a shard's sweep ends a day's chunk as a whole, one key for all its subjects, once every use it holds has ended; a subject's ended part counts nothing meanwhile", async () => {
    const { first, second, shard } = twoInOneChunk();
    // Both used early in one day: one chunk of that day holds both.
    toBeforeMidnight(-60_000);
    expect((await shard.count(first, sends(1), "a")).ok).toBe(true);
    letTimePass(2 * HOUR_MS);
    expect((await shard.count(second, sends(1), "b")).ok).toBe(true);
    const day = await runInDurableObject(shard, (_o, state) => [...state.storage.kv.list({ prefix: chunkOf(first) })].map(([key]) => key));
    expect(day).toHaveLength(1);
    expect(await subjectsIn(shard)).toEqual(expect.arrayContaining([first, second]));
    // The first's use has ended, the second's has not: the chunk stays, and the first counts afresh.
    letTimePass(DAY_MS - HOUR_MS);
    await runDurableObjectAlarm(shard);
    expect(await runInDurableObject(shard, (_o, state) => state.storage.kv.get(day[0]!))).toBeDefined();
    expect((await shard.count(first, sends(1), "c")).ok).toBe(true);
    expect(await shard.count(second, sends(1), "d")).toMatchObject({ ok: false, rule: "user_otp_sends_per_day" });
    // Once the second's has ended too, the sweep deletes the whole day's chunk; the first's use of today stays, in today's.
    letTimePass(2 * HOUR_MS);
    expect(await runDurableObjectAlarm(shard)).toBe(true);
    expect(await runInDurableObject(shard, (_o, state) => state.storage.kv.get(day[0]!))).toBeUndefined();
    expect((await partsIn(shard, first)).map(([key]) => key)).not.toContain(day[0]);
    expect(await partsIn(shard, first)).toHaveLength(1);
    expect(await shard.count(first, sends(1), "e")).toMatchObject({ ok: false, rule: "user_otp_sends_per_day" });
  });

  it("no card number, token or user in a card's counter; a subject's entries end with their window and its shard's sweep deletes them, then the shard itself", async () => {
    const number = freshCardNumber();
    const user = await aUser();
    await expectAdmitted(pay(user, number));
    const ids = await listDurableObjectIds(env.RISK);
    const rows = (await Promise.all(ids.map((id) => dumpCounters(env.RISK.get(id))))).flat();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(cardDataIn(row, { pans: [number, "8600000000000007"], otps: [], expiries: [] }), row).toEqual([]);
      expect(row).not.toContain("tok_");
    }

    const fingerprint = await cardFingerprint(env.CARD_FINGERPRINT_SECRET, { number });
    const card = inShard(`card:${fingerprint}`);
    const userLog = inShard(`user:${user.sub}`);
    expect(JSON.stringify(await card.log())).not.toContain(user.sub);
    expect(JSON.stringify(await card.log())).toContain(await userKey(env.CARD_FINGERPRINT_SECRET, user.sub));
    expect(await userLog.log()).toBeDefined();
    // Counted in shards only: a subject's own object (the layout of the release before 030096c) stores nothing.
    for (const own of [`card:${fingerprint}`, `user:${user.sub}`]) expect(await dumpCounters(env.RISK.get(env.RISK.idFromName(own)))).toEqual([]);
    for (const { shard } of [card, userLog]) {
      // Its alarm: after the use's day, within the hour that lets a shard's subjects end together.
      const alarm = await runInDurableObject(shard, (_o, state) => state.storage.getAlarm());
      expect(alarm).toBeGreaterThan(clock.now() + DAY_MS - 60_000);
      expect(alarm).toBeLessThanOrEqual(clock.now() + DAY_MS + HOUR_MS);
    }
    letTimePass(DAY_MS + HOUR_MS);
    // Its chunks deleted, nothing is left of the shards.
    for (const { shard, log } of [card, userLog]) {
      await runDurableObjectAlarm(shard);
      expect(await log()).toBeUndefined();
      expect(await dumpCounters(shard)).toEqual([]);
      const tables = await runInDurableObject(shard, (_o, state) =>
        state.storage.sql
          .exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'")
          .toArray(),
      );
      expect(tables).toEqual([]);
    }
  });
});

/** The previous release's RiskObject, from its bundle (test/releases/previous/worker.js, plain JavaScript). */
interface PreviousRiskObject {
  alarm(): Promise<void>;
}
const previousRelease = () =>
  import("../releases/previous/worker.js" as string) as Promise<{ RiskObject: new (state: DurableObjectState, env: Env) => PreviousRiskObject }>;

describe("the releases before this one's counts", () => {
  it("a user's distinct cards and OTP sends the release before 030096c counted, which 030096c carried into the user's chunk under that release's keys, are counted", async () => {
    const user = await aUser();
    const subject = `user:${user.sub}`;
    const shard = env.RISK.get(env.RISK.idFromName(shardOf(subject)));
    const until = clock.now() + DAY_MS - 60_000;
    const cards = await Promise.all(Array.from({ length: 5 }, () => cardFingerprint(env.CARD_FINGERPRINT_SECRET, { number: freshCardNumber() })));
    // Per rule, its uses' ends (a user's cards by fingerprint), in today's chunk.
    await runInDurableObject(shard, (_o, state) =>
      state.storage.kv.put(`${chunkOf(subject)}${Math.floor(clock.now() / DAY_MS)}`, {
        [subject]: {
          user_cards_per_day: Object.fromEntries(cards.map((fingerprint) => [fingerprint, until])),
          user_otp_sends_per_day: Array.from({ length: 19 }, () => until),
        },
      }),
    );
    await expectRiskLimited(pay(user, freshCardNumber()), "user_payer_cards_per_day", 86_400);
    await expectAdmitted((await authorize(user, { token: "tok_sandbox_ok" })).res);
    await expectRiskLimited((await authorize(user, { token: "tok_sandbox_ok" })).res, "user_otp_sends_per_day", 86_400);
  });

  it("a rollback runs the previous release's alarm on a shard: it keeps the shard's chunks, and this release counts on when it serves again", async () => {
    const number = freshCardNumber();
    const user = await aUser();
    for (let i = 0; i < 5; i++) await expectAdmitted(pay(user, number));
    const subject = `user:${user.sub}`;
    const shard = env.RISK.get(env.RISK.idFromName(shardOf(subject)));
    const written = await partsIn(shard, subject);
    expect(written).not.toEqual([]);
    // The previous release's class on the shard's storage: its alarm deletes an object only for what its RISK_LOG holds.
    const { RiskObject: Previous } = await previousRelease();
    const previousLeft = await runInDurableObject(shard, async (_o, state) => {
      await new Previous(state, env).alarm();
    }).then(() => partsIn(shard, subject));
    expect(previousLeft).toEqual(written);
    // This release still counts what it wrote.
    await expectRiskLimited(pay(user, number), "user_card_uses_per_hour", 3600);
  });
});
