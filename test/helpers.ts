/** Calls through the gateway's HTTP surface, as a mobile app or the partner backend would. */
import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { SignJWT } from "jose";
import { expect, vi } from "vitest";
import { createApp } from "../src/app";
import { retentionPolicy } from "../src/config/retention-policy";
import { tidShards } from "../src/d1/shards";
import { type ErrorCode, LANGUAGES, type Language, userMessage } from "../src/errors/error-codes";
import { receiptStub } from "../src/record/receipt-object";
import { advanceClock, clock } from "../src/shared/clock";
import { findTid, readIndexFor, type TidRow } from "../src/tids/tid-index";

export const API = "http://gateway.test/api/v1/partner";

/** Every partner operation of the contract, as a path under API. */
export const OPERATION_PATHS = [
  "receipt/create",
  "receipt/authorize",
  "receipt/anonymous/authorize",
  "receipt/pay",
  "receipt/anonymous/pay",
  "receipt/hold-confirm",
  "receipt/cancel",
  "receipt/check-id",
  "receipt/check-tid",
  "a2c/create",
  "a2c/pay",
  "a2c/get-by-id",
];

export interface CallOptions {
  /** Sent as `Authorization: Bearer <token>`; null sends no Authorization header. */
  token?: string | null;
  headers?: Record<string, string>;
  /** A raw body instead of JSON.stringify(body). */
  raw?: string;
}

export const PARTNER_KEY = "sk_test_local_partner";

/** The fields of the upstream's reduced receipt (anonymous pay's answer, docs/upstream-wire.md), sorted. */
export const REDUCED_RECEIPT_KEYS = [
  "account",
  "amount",
  "commission",
  "create_date",
  "currency",
  "description",
  "error",
  "id",
  "init_amount",
  "merchant",
  "ofd",
  "pay_date",
  "state",
  "tid",
  "type",
];

export const call = (path: string, body: unknown, options: CallOptions = {}): Promise<Response> => callAt(API, path, body, options);

/** A POST of JSON to `base`/`path`, by default with the partner's key. */
export function callAt(base: string, path: string, body: unknown, options: CallOptions = {}): Promise<Response> {
  const token = options.token === undefined ? PARTNER_KEY : options.token;
  return exports.default.fetch(`${base}/${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...options.headers,
    },
    body: options.raw ?? JSON.stringify(body),
  });
}

/** Calls and parses the JSON answer, asserting the status. */
export async function expectStatus<T = any>(response: Response | Promise<Response>, status: number): Promise<T> {
  const res = await response;
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return JSON.parse(text) as T;
}

/**
 * Asserts an error answer: status, code, and the envelope every error
 * shares, its user_message the table's text in the language Content-Language
 * names.
 */
export async function expectError(response: Response | Promise<Response>, status: number, code: string): Promise<any> {
  const res = await response;
  const body = await expectStatus<any>(res, status);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe("string");
  expect(body.error.request_id).toBe(res.headers.get("x-request-id"));
  const language = res.headers.get("content-language");
  expect(LANGUAGES, `Content-Language of ${code}`).toContain(language);
  expect(body.error.user_message).toBe(userMessage(code as ErrorCode, language as Language, body.error.decline_reason));
  return body.error;
}

export const newTid = (label = "t") => `${label}-${crypto.randomUUID()}`;

export interface ReceiptOverrides {
  tid?: string;
  amount?: number;
  merchant_id?: number;
  account?: { key: string; value: string }[];
  is_hold?: boolean;
  description?: string;
}

export const receiptRequest = (overrides: ReceiptOverrides = {}) => ({
  tid: newTid("receipt"),
  amount: 150_000,
  merchant_id: 1001,
  account: [{ key: "phone", value: "998901234567" }],
  description: "Mobile top-up",
  ...overrides,
});

export async function createReceipt(overrides: ReceiptOverrides = {}, options: CallOptions = {}): Promise<any> {
  return expectStatus(call("receipt/create", receiptRequest(overrides), options), 200);
}

export const OTP_OK = "111111";
export const OTP_WRONG = "222222";

/** The sandbox's own record of a receipt (local development only). */
export async function sandboxReceipt(id: string): Promise<any> {
  return expectStatus(exports.default.fetch(`http://gateway.test/__sandbox/receipts/${id}`), 200);
}

export async function sandboxTransfer(id: string): Promise<any> {
  return expectStatus(exports.default.fetch(`http://gateway.test/__sandbox/a2c/${id}`), 200);
}

export interface SandboxCall {
  seq: number;
  path: string;
  tid: string | null;
  id: string | null;
  status: number;
  code: string | null;
}

/** Every call the sandbox received, oldest first: the proof that a refusal cost nothing upstream. */
export async function sandboxCalls(): Promise<SandboxCall[]> {
  return expectStatus(exports.default.fetch("http://gateway.test/__sandbox/calls"), 200);
}

/** A user nobody else in the suite is: limits and ownership never leak between tests. */
export const newUser = (label = "user") => `${label}-${crypto.randomUUID()}`;

export interface UserTokenOptions {
  /** HS256 secret; the deployment's JWT_SECRET unless given. */
  secret?: string;
  /** Seconds from now until `exp`; negative for a token that has expired. Default one hour. */
  expiresIn?: number;
  /** Extra claims (iss, aud, ...). */
  claims?: Record<string, unknown>;
}

/** A user's development JWT, as `npm run token -- <sub>` makes it: HS256, `sub`, `exp`. */
export function userToken(sub: string, options: UserTokenOptions = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ ...options.claims })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(sub)
    .setIssuedAt(now)
    .setExpirationTime(now + (options.expiresIn ?? 3600))
    .sign(new TextEncoder().encode(options.secret ?? env.JWT_SECRET));
}

export const CARD_OK = { number: "8600000000000007", expire: "3012" };

export const transferRequest = (overrides: Record<string, unknown> = {}) => ({
  tid: newTid("a2c"),
  amount: 500_000,
  rate_id: 1,
  receiver_card: "9860000000000018",
  token: "tok_sandbox_ok",
  ...overrides,
});

/** How long the sandbox's OTP stays right after a send, and its resend wait (wrangler.toml [vars]). */
export const SANDBOX_OTP_TTL_MS = Number(env.SANDBOX_OTP_TTL_MS ?? 300_000);
const SANDBOX_OTP_WAIT_MS = Number(env.SANDBOX_OTP_WAIT_MS ?? 60_000);

const sandboxStub = () => env.SANDBOX!.get(env.SANDBOX!.idFromName("sandbox"));

/**
 * As if a receipt's OTP `wait` had just passed: time passes for the gateway
 * (letTimePass), and the sandbox, which enforces its own, has the send moved
 * into the past. In the sandbox it lands just past the wait however often this is
 * called, so the OTP sent stays right (the wait is shorter than its lifetime).
 */
export async function letOtpWaitPass(id: string): Promise<void> {
  // The gateway keeps the wait the sandbox answered (SANDBOX_OTP_WAIT_MS).
  letTimePass(SANDBOX_OTP_WAIT_MS + 1);
  await runInDurableObject(sandboxStub(), (_instance, state) => {
    state.storage.sql.exec("UPDATE receipts SET otp_sent_ms = MIN(otp_sent_ms, ?) WHERE id = ?", Date.now() - SANDBOX_OTP_WAIT_MS - 1, id);
  });
}

/** Moves the sandbox's last OTP send for a receipt `ms` into the past; a receipt never authorized stays so. */
export async function ageSandboxOtp(id: string, ms: number): Promise<void> {
  await runInDurableObject(sandboxStub(), (_instance, state) => {
    state.storage.sql.exec("UPDATE receipts SET otp_sent_ms = otp_sent_ms - ? WHERE id = ?", ms, id);
  });
}

/**
 * As if `ms` had passed since a receipt's last OTP send: for the gateway
 * (letTimePass) and in the sandbox.
 */
export async function letTimePassSinceOtp(id: string, ms: number): Promise<void> {
  letTimePass(ms);
  await ageSandboxOtp(id, ms);
}

/** As if the receipt's OTP had just outlived SANDBOX_OTP_TTL_MS: the sandbox now refuses it as OTP_EXPIRED. */
export const letOtpExpire = (id: string) => letTimePassSinceOtp(id, SANDBOX_OTP_TTL_MS);

/**
 * Moves the sandbox supplier's deadline for a receipt left in 57
 * (tok_sandbox_supplier_pending / tok_sandbox_supplier_fails) into the past,
 * as if SANDBOX_SUPPLIER_DELAY_MS had passed: the sandbox applies the
 * supplier's answer the next time anything reads the receipt.
 */
export async function letSupplierAnswer(id: string): Promise<void> {
  await runInDurableObject(sandboxStub(), (_instance, state) => {
    state.storage.sql.exec("UPDATE receipts SET supplier_due_ms = ? WHERE id = ? AND supplier_due_ms IS NOT NULL", Date.now() - 1, id);
  });
}

/** A day, for letTimePass. */
export const DAY_MS = 86_400_000;

/**
 * Time passes by `ms` for the gateway (src/shared/clock.ts): its objects' schedules
 * (late reads, reconciliation, OTP resend waits) see it at once, as if the
 * test had waited. The sandbox upstream keeps the wall clock. Reset after
 * every test (test/setup.ts).
 */
export const letTimePass = (ms: number): void => advanceClock(ms);

/**
 * Moves the deadline of a tok_sandbox_pays_late pay of a receipt or transfer
 * into the past, as if SANDBOX_LATE_MS had passed since the pay: the sandbox
 * pays it the next time anything reads it.
 */
export async function letLatePayHappen(id: string): Promise<void> {
  await runInDurableObject(sandboxStub(), (_instance, state) => {
    for (const table of ["receipts", "transfers"]) {
      state.storage.sql.exec(`UPDATE ${table} SET late_pay_due_ms = ? WHERE id = ? AND late_pay_due_ms IS NOT NULL`, Date.now() - 1, id);
    }
  });
}

/**
 * Moves the deadline of a tok_sandbox_fiscal_late receipt's missing fiscal
 * data (its sale's, or its refund's) into the past, as if
 * SANDBOX_FISCAL_DELAY_MS had passed: the sandbox shows the fiscal sign and
 * QR address the next time anything reads the receipt.
 */
export async function letFiscalDataAppear(id: string): Promise<void> {
  await runInDurableObject(sandboxStub(), (_instance, state) => {
    state.storage.sql.exec("UPDATE receipts SET fiscal_due_ms = ? WHERE id = ? AND fiscal_due_ms IS NOT NULL", Date.now() - 1, id);
  });
}

/**
 * Whether the object's alarm is due within a day (the gateway's clock): work
 * owed (reconciliation, late reads, the outbox). The one alarm further away
 * is the one that deletes a final record (rule 10).
 */
export async function alarmWithinADay(stub: DurableObjectStub): Promise<boolean> {
  const at = await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm());
  return at !== null && at - clock.now() <= DAY_MS;
}

/**
 * Watches the alarms a Durable Object's current incarnation sets from now on
 * (each `setAlarm()` is a row written): `set()` the times it asked for, in
 * order, or null once that incarnation is gone (an eviction forgets the
 * watch); `at()` the alarm storage holds.
 */
export async function watchAlarms(stub: DurableObjectStub): Promise<{ set: () => Promise<number[] | null>; at: () => Promise<number | null> }> {
  type Watched = DurableObjectStorage & { alarmsSet?: number[] };
  await runInDurableObject(stub, (_instance, state) => {
    const storage = state.storage as Watched;
    storage.alarmsSet = [];
    const setAlarm = storage.setAlarm.bind(storage);
    storage.setAlarm = (...args: Parameters<DurableObjectStorage["setAlarm"]>) => {
      storage.alarmsSet!.push(Number(args[0]));
      return setAlarm(...args);
    };
  });
  return {
    set: () => runInDurableObject(stub, (_i, state) => ((state.storage as Watched).alarmsSet ? [...(state.storage as Watched).alarmsSet!] : null)),
    at: () => runInDurableObject(stub, (_i, state) => state.storage.getAlarm()),
  };
}

/** What a record's Durable Object has stored: its state, write-ahead note and counters (never card data). */
export async function storedRecord(kind: "receipt" | "transfer", id: string) {
  return runInDurableObject(receiptStub(env, kind, id), (_instance, state) =>
    state.storage.sql
      .exec<{
        state: number;
        pending_op: string | null;
        pending_otp: number;
        pending_actor: string | null;
        wrong_otps: number;
        unconfirmed_otps: number;
        otp_sends: number;
        suspect_since: number;
      }>("SELECT state, pending_op, pending_otp, pending_actor, wrong_otps, unconfirmed_otps, otp_sends, suspect_since FROM record")
      .one(),
  );
}

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export const PRODUCTION_WEBHOOK_URL = "https://hooks.partner.test/payments-gateway";
export const PRODUCTION_WEBHOOK_SECRET = `whsec_${btoa("a-production-webhook-secret-32b")}`;

/** A production deployment with nothing wrong in it: no sandbox, no development value. */
export async function productionEnv(overrides: Record<string, unknown> = {}): Promise<Env> {
  return {
    ...env,
    ENVIRONMENT: "production",
    PARTNER_KEY_HASHES: await sha256Hex("sk_live_partner_key_of_production"),
    JWT_SECRET: undefined,
    JWKS_URL: "https://idp.test/.well-known/jwks.json",
    JWT_ISSUER: "https://idp.test/",
    JWT_AUDIENCE: "payments-gateway",
    UPSTREAM: undefined,
    SANDBOX: undefined,
    UPSTREAM_BASE_URL: "https://partner-api.test",
    UPSTREAM_API_KEY: "live-upstream-credential",
    TID_SECRET: "a-random-tid-secret-of-this-deployment-only",
    CARD_FINGERPRINT_SECRET: "a-random-card-fingerprint-secret-of-this-deployment",
    WEBHOOK_URL: PRODUCTION_WEBHOOK_URL,
    WEBHOOK_SECRET: PRODUCTION_WEBHOOK_SECRET,
    // Production's schedule (wrangler.toml [env.production.vars]), not development's reads within 2 minutes.
    FISCAL_READS: "5m 1h 24h",
    // The back office behind Cloudflare Access; never the development sign-in.
    ACCESS_TEAM_DOMAIN: "partner.cloudflareaccess.com",
    ACCESS_AUD: "a-production-access-application-aud-tag",
    STAFF_ROLES: '{"operator": ["oncall@partner.test"]}',
    ACCESS_DEV_SECRET: undefined,
    ...overrides,
  } as unknown as Env;
}

/** The D1 database holding (owner, tid)'s tid-index row, picked as the gateway picks it (src/d1/shards.ts). */
export const tidDb = (owner: string, tid: string): Promise<D1Database> => readIndexFor(env, owner, tid);

/** (owner, tid)'s tid-index row, read from its shard. */
export const tidRow = async (owner: string, tid: string): Promise<TidRow | null> =>
  findTid(await tidDb(owner, tid), owner, tid, retentionPolicy(env).tidRetentionMs);

/** Every row of every table of a Durable Object's SQLite storage, one line each, prefixed with `label` and the table. */
export async function dumpStorage(stub: DurableObjectStub, label = ""): Promise<string[]> {
  return runInDurableObject(stub, (_instance, state) => {
    const tables = state.storage.sql
      .exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'")
      .toArray()
      .map((row) => String(row.name));
    return tables.flatMap((table) =>
      state.storage.sql
        .exec(`SELECT * FROM "${table}"`)
        .toArray()
        .map((row) => `${label}${table}: ${JSON.stringify(row)}`),
    );
  });
}

/**
 * The SQLite pages a record object's storage takes (4 KiB each), as the
 * platform bills them: every table and index, its own metadata included
 * (the local runtime's __miniflare_do_name, when present, is not counted).
 */
export async function storagePages(stub: DurableObjectStub): Promise<{ bytes: number; pages: number; tables: string[] }> {
  return runInDurableObject(stub, (_instance, state) => {
    const sql = state.storage.sql;
    const objects = sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE rootpage > 0")
      .toArray()
      .map((row) => row.name);
    const local = objects.includes("__miniflare_do_name") ? 4096 : 0;
    const bytes = sql.databaseSize - local;
    return { bytes, pages: bytes / 4096, tables: objects.filter((name) => name !== "__miniflare_do_name") };
  });
}

/** Every row of every table of every D1 database (DB and the tid index's shards). */
export async function dumpD1(): Promise<string[]> {
  const rows: string[] = [];
  for (const db of new Set([env.DB, ...tidShards(env).map((shard) => shard.db)])) {
    const tables = await db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_%'")
      .all<{ name: string }>();
    for (const { name } of tables.results) {
      const { results } = await db.prepare(`SELECT * FROM "${name}"`).all();
      rows.push(...results.map((row) => `${name}: ${JSON.stringify(row)}`));
    }
  }
  return rows;
}

/** The raw card data a text contains (masked card numbers are allowed). */
export function cardDataIn(text: string, values: { pans: readonly string[]; otps: readonly string[]; expiries: readonly string[] }): string[] {
  const found: string[] = [];
  for (const pan of values.pans) if (text.includes(pan)) found.push(pan);
  if (text.includes("tok_sandbox_")) found.push("tok_sandbox_");
  // An OTP or an expiry is a few digits: look for it as a value, not inside longer
  // numbers (a timestamp) or random identifiers (a request id "7dd2907e-..." or a
  // UUID's group "...-3012-..." is no expiry).
  const asValue = (digits: string) => new RegExp(`(^|[^0-9A-Za-z_-])${digits}([^0-9A-Za-z_-]|$)`).test(text);
  for (const otp of values.otps) if (asValue(otp)) found.push(otp);
  for (const expire of values.expiries) if (asValue(expire)) found.push(expire);
  return found;
}

/**
 * From now on (until vi.restoreAllMocks) every D1 statement whose SQL `refuses` fails, in every database of the
 * tests' deployment, as a database that cannot be reached would; the others go through.
 */
export function refuseStatements(refuses: (sql: string) => boolean): void {
  for (const db of [env.DB, env.DB_TID_1]) {
    const prepare = db.prepare.bind(db);
    vi.spyOn(db, "prepare").mockImplementation((sql: string) => {
      if (refuses(sql)) throw new Error("D1_ERROR: unavailable");
      return prepare(sql);
    });
  }
}

/**
 * A partner call through the app with `deployment` as its env, and what it left running after its answer
 * (waitUntil: a create's tid completion, what the data center remembers), so the next call sees it done.
 */
export async function callSettled(deployment: Env, path: string, body: unknown): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await createApp().fetch(
    new Request(`${API}/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${PARTNER_KEY}` },
      body: JSON.stringify(body),
    }),
    deployment,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return response;
}

/**
 * vi.waitFor with a bound a busy machine never reaches: what the gateway does after its answer (a queue send, an
 * export) is awaited until it shows, and 1 s (vi.waitFor's own default) is not enough on a loaded CI runner.
 */
export const eventually = <T>(check: () => T | Promise<T>): Promise<T> => vi.waitFor(check, { timeout: 30_000, interval: 20 });
