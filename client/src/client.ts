/**
 * The gateway's client: every operation a POST of JSON, answered as a
 * Result (never thrown), with a token asked for on every call, per-call
 * headers, AbortSignal and timeout, and safe retries after no answer, a 5xx,
 * a 503 with Retry-After, tid_in_progress or operation_in_progress, with the
 * same body: a create (the tid makes it idempotent), a read, and a call that
 * moves money, which carries one Idempotency-Key for the whole call (rule 11:
 * a repeat with it is answered from what the first did, never done twice).
 * Only a money move whose last attempt met no answer is `outcome_unknown`.
 */
import { isKnownCode } from "./codes.js";
import type { paths } from "./schema.js";
import type { Answer, ClientError, GatewayError, OperationPath, RequestBody, Result } from "./types.js";

export interface ClientOptions {
  /** Where the gateway answers, e.g. http://127.0.0.1:8787 or https://gateway.partner.example. */
  baseUrl: string;
  /** A partner server key (`sk_...`) or a user's JWT; a function is asked before every request (a JWT that expires is fetched anew). */
  token: string | (() => string | Promise<string>);
  /** Another fetch (a test's Worker, a proxy); the global one by default (browsers, React Native, Node 18+). */
  fetch?: (request: Request) => Promise<Response>;
  /** Headers sent with every call. */
  headers?: Record<string, string>;
  /** Milliseconds an attempt may take before it is abandoned (default 30 000). */
  timeoutMs?: number;
  /** Retries of a create, a read or a money move (default 2); events/resend and users/erase are sent once. */
  retries?: number;
  /** The longest Retry-After (seconds) worth waiting for inside a call (default 30): longer is answered to the caller. */
  maxRetryAfterSeconds?: number;
  /** How to wait between attempts (tests); setTimeout by default. */
  sleep?: (ms: number) => Promise<void>;
}

export interface CallOptions {
  headers?: Record<string, string>;
  signal?: AbortSignal;
  timeoutMs?: number;
  retries?: number;
  /**
   * The Idempotency-Key of a money move (1 to 255 printable ASCII
   * characters, neither the first nor the last a space). By default the client makes one per call
   * (crypto.randomUUID) and sends it on each of that call's retries. Pass
   * your own, stored with the order before the call, to repeat the call
   * safely after the app restarts or after an `outcome_unknown`: the gateway
   * answers what the first one did and never does it twice. One key per
   * logical operation: a new pay needs a new key.
   */
  idempotencyKey?: string;
}

/** Creates (idempotent by tid) and reads: safe to send again with the same body. */
const SAFE = new Set<string>([
  "/api/v1/partner/receipt/create",
  "/api/v1/partner/a2c/create",
  "/api/v1/partner/receipt/check-id",
  "/api/v1/partner/receipt/check-tid",
  "/api/v1/partner/a2c/get-by-id",
  "/api/v1/gateway/receipt/audit",
  "/api/v1/gateway/events/list",
  "/api/v1/gateway/fiscal/pending",
  "/api/v1/gateway/audit/search",
  "/api/v1/gateway/statements/list",
]);

/** The operations whose OpenAPI document takes an Idempotency-Key (the money moves and the creates). */
type KeyedPath = {
  [P in keyof paths]: NonNullable<paths[P]["post"]> extends { parameters: { header?: infer H } }
    ? [NonNullable<H>] extends [never]
      ? never
      : "Idempotency-Key" extends keyof NonNullable<H>
        ? P
        : never
    : never;
}[keyof paths];

/** The money moves: safe to retry only because every attempt of a call carries the call's one Idempotency-Key (rule 11). */
const KEYED = new Set<KeyedPath>([
  "/api/v1/partner/receipt/authorize",
  "/api/v1/partner/receipt/anonymous/authorize",
  "/api/v1/partner/receipt/pay",
  "/api/v1/partner/receipt/anonymous/pay",
  "/api/v1/partner/receipt/hold-confirm",
  "/api/v1/partner/receipt/cancel",
  "/api/v1/partner/a2c/pay",
]);

const isKeyed = (path: string): path is KeyedPath => KEYED.has(path as KeyedPath);

export const isRetriedPath = (path: string): boolean => SAFE.has(path) || isKeyed(path);

type Attempt =
  | { kind: "answer"; response: Response; body: unknown }
  | { kind: "none"; code: "network_error" | "timeout" | "aborted"; message: string };

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A key for one call: a random UUID. Where the platform lacks randomUUID
 * (React Native with only a getRandomValues polyfill) the same from
 * getRandomValues; with no crypto at all, Math.random (pass idempotencyKey
 * there), because a Result never throws.
 */
function newKey(): string {
  const c: Partial<Crypto> | undefined = typeof crypto === "undefined" ? undefined : crypto;
  if (typeof c?.randomUUID === "function") return c.randomUUID();
  const bytes = new Uint8Array(16);
  if (typeof c?.getRandomValues === "function") c.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** An Idempotency-Key the caller put in a call's own headers, whatever its case. */
function keyInHeaders(headers: Record<string, string> | undefined): string | undefined {
  for (const [name, value] of Object.entries(headers ?? {})) if (name.toLowerCase() === "idempotency-key") return value;
  return undefined;
}

function retryAfterOf(response: Response): number | null {
  const value = Number(response.headers.get("retry-after"));
  return Number.isFinite(value) && value > 0 ? value : null;
}

export function createGatewayClient(options: ClientOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? ((request: Request) => fetch(request));
  const sleep = options.sleep ?? defaultSleep;

  async function attempt(path: string, body: unknown, call: CallOptions, key: string | undefined): Promise<Attempt> {
    const token = typeof options.token === "function" ? await options.token() : options.token;
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), call.timeoutMs ?? options.timeoutMs ?? 30_000);
    const onAbort = () => timeout.abort();
    call.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      if (call.signal?.aborted) return { kind: "none", code: "aborted", message: "The call was aborted." };
      const headers = new Headers({
        "content-type": "application/json",
        accept: "application/json",
        ...options.headers,
        ...call.headers,
        authorization: `Bearer ${token}`,
      });
      // The call's one key replaces any other spelling of it, on every attempt alike.
      if (key !== undefined) headers.set("idempotency-key", key);
      const request = new Request(`${baseUrl}${path}`, { method: "POST", headers, body: JSON.stringify(body), signal: timeout.signal });
      const response = await doFetch(request);
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = text === "" ? undefined : JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      return { kind: "answer", response, body: parsed };
    } catch (err) {
      if (call.signal?.aborted) return { kind: "none", code: "aborted", message: "The call was aborted." };
      if (timeout.signal.aborted) return { kind: "none", code: "timeout", message: "The gateway did not answer in time." };
      return { kind: "none", code: "network_error", message: err instanceof Error ? err.message : String(err) };
    } finally {
      clearTimeout(timer);
      call.signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Sends operation `path` with `body`: the answer, or why there is none, as a Result. */
  async function call<P extends OperationPath>(path: P, body: RequestBody<P>, call: CallOptions = {}): Promise<Result<P>> {
    const safe = SAFE.has(path);
    const keyed = isKeyed(path);
    const given = call.idempotencyKey ?? keyInHeaders(call.headers);
    // Made once, when the call starts: every retry of it is the same request to the gateway, so it is done at most once.
    const key = keyed ? (given ?? newKey()) : given;
    const tries = 1 + (safe || keyed ? Math.max(0, call.retries ?? options.retries ?? 2) : 0);
    const maxWait = options.maxRetryAfterSeconds ?? 30;
    const meta = (attempts: number) => ({ attempts, idempotencyKey: key ?? null });
    for (let attempts = 1; ; attempts++) {
      const sent = await attempt(path, body, call, key);
      const last = attempts >= tries;
      if (sent.kind === "none") {
        if (sent.code !== "aborted" && !last) {
          await sleep(250 * 2 ** (attempts - 1));
          continue;
        }
        const error: ClientError =
          safe || sent.code === "aborted"
            ? { code: sent.code, message: sent.message, status: null, retryAfter: null }
            : {
                code: "outcome_unknown",
                cause: sent.code,
                message: keyed
                  ? `${sent.message} It may or may not have happened: call again with the same idempotencyKey (the result's: the gateway answers what happened, never twice), or read the receipt (check-id or a2c/get-by-id).`
                  : `${sent.message} It may or may not have happened: read the receipt (check-id or a2c/get-by-id) before trying again.`,
                status: null,
                retryAfter: null,
              };
        return { ok: false, error, requestId: null, response: null, ...meta(attempts) };
      }
      const { response } = sent;
      const requestId = response.headers.get("x-request-id");
      const retryAfter = retryAfterOf(response);
      // A replay is the answer the gateway kept for this key or tid: asking again gets it again.
      const replayed = response.headers.get("idempotent-replayed") === "true";
      if (response.ok) {
        if (sent.body === undefined) return invalid(response, requestId, meta(attempts), safe, keyed);
        return { ok: true, data: sent.body as Answer<P>, status: response.status, replayed, requestId, response, ...meta(attempts) };
      }
      const envelope = (sent.body as { error?: { code?: unknown } } | undefined)?.error;
      if (!envelope || typeof envelope.code !== "string") {
        if ((safe || keyed) && !last && response.status >= 500) {
          await sleep(250 * 2 ** (attempts - 1));
          continue;
        }
        return invalid(response, requestId, meta(attempts), safe, keyed);
      }
      const inProgress = envelope.code === "tid_in_progress" || envelope.code === "operation_in_progress";
      const again =
        (safe || keyed) &&
        !last &&
        !replayed &&
        (response.status === 503
          ? retryAfter !== null && retryAfter <= maxWait
          : response.status >= 500 || (inProgress && (retryAfter ?? 1) <= maxWait));
      if (again) {
        await sleep(retryAfter !== null ? retryAfter * 1000 : 250 * 2 ** (attempts - 1));
        continue;
      }
      const answered = { ...envelope, status: response.status, retryAfter };
      // A code newer than this client is one `unknown_error`, so a switch over the codes it knows stays exhaustive.
      const error = (isKnownCode(envelope.code)
        ? answered
        : { ...answered, code: "unknown_error", gatewayCode: envelope.code }) as unknown as GatewayError<P>;
      return { ok: false, error, requestId, response, ...meta(attempts) };
    }
  }

  function invalid(
    response: Response,
    requestId: string | null,
    meta: { attempts: number; idempotencyKey: string | null },
    safe: boolean,
    keyed: boolean,
  ) {
    const message = `HTTP ${response.status} without the gateway's JSON answer (a proxy in between?).`;
    const error: ClientError = safe
      ? { code: "invalid_response", message, status: response.status, retryAfter: null }
      : {
          code: "outcome_unknown",
          cause: "invalid_response",
          message: keyed
            ? `${message} Call again with the same idempotencyKey (the result's), or read the receipt, before anything else.`
            : `${message} Read the receipt before trying again.`,
          status: response.status,
          retryAfter: null,
        };
    return { ok: false as const, error, requestId, response, ...meta };
  }

  const op =
    <P extends OperationPath>(path: P) =>
    (body: RequestBody<P>, options?: CallOptions) =>
      call(path, body, options);

  return {
    call,
    receipts: {
      create: op("/api/v1/partner/receipt/create"),
      authorize: op("/api/v1/partner/receipt/authorize"),
      authorizeAnonymous: op("/api/v1/partner/receipt/anonymous/authorize"),
      pay: op("/api/v1/partner/receipt/pay"),
      payAnonymous: op("/api/v1/partner/receipt/anonymous/pay"),
      confirmHold: op("/api/v1/partner/receipt/hold-confirm"),
      cancel: op("/api/v1/partner/receipt/cancel"),
      get: op("/api/v1/partner/receipt/check-id"),
      getByTid: op("/api/v1/partner/receipt/check-tid"),
      audit: op("/api/v1/gateway/receipt/audit"),
    },
    transfers: {
      create: op("/api/v1/partner/a2c/create"),
      pay: op("/api/v1/partner/a2c/pay"),
      get: op("/api/v1/partner/a2c/get-by-id"),
    },
    events: {
      list: op("/api/v1/gateway/events/list"),
      resend: op("/api/v1/gateway/events/resend"),
    },
    fiscal: {
      pending: op("/api/v1/gateway/fiscal/pending"),
    },
    audit: {
      search: op("/api/v1/gateway/audit/search"),
    },
    statements: {
      list: op("/api/v1/gateway/statements/list"),
      rebuild: op("/api/v1/gateway/statements/rebuild"),
    },
  };
}

export type GatewayClient = ReturnType<typeof createGatewayClient>;
