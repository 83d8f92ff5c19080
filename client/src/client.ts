/**
 * The gateway's client: every operation a POST of JSON, answered as a
 * Result (never thrown), with a token asked for on every call, per-call
 * headers, AbortSignal and timeout, and safe retries: a create (the tid makes
 * it idempotent) and a read are retried after no answer, a 5xx, a 503 with
 * Retry-After or tid_in_progress, with the same body; a call that moves money
 * is never retried, and no answer to it is `outcome_unknown`.
 */
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
  /** Retries of a create or a read (default 2); calls that move money are never retried. */
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
]);

export const isRetriedPath = (path: string): boolean => SAFE.has(path);

type Attempt =
  | { kind: "answer"; response: Response; body: unknown }
  | { kind: "none"; code: "network_error" | "timeout" | "aborted"; message: string };

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function retryAfterOf(response: Response): number | null {
  const value = Number(response.headers.get("retry-after"));
  return Number.isFinite(value) && value > 0 ? value : null;
}

export function createGatewayClient(options: ClientOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? ((request: Request) => fetch(request));
  const sleep = options.sleep ?? defaultSleep;

  async function attempt(path: string, body: unknown, call: CallOptions): Promise<Attempt> {
    const token = typeof options.token === "function" ? await options.token() : options.token;
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), call.timeoutMs ?? options.timeoutMs ?? 30_000);
    const onAbort = () => timeout.abort();
    call.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      if (call.signal?.aborted) return { kind: "none", code: "aborted", message: "The call was aborted." };
      const request = new Request(`${baseUrl}${path}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          ...options.headers,
          ...call.headers,
          authorization: `Bearer ${token}`,
        },
        body: JSON.stringify(body),
        signal: timeout.signal,
      });
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
    const tries = 1 + (safe ? Math.max(0, call.retries ?? options.retries ?? 2) : 0);
    const maxWait = options.maxRetryAfterSeconds ?? 30;
    for (let attempts = 1; ; attempts++) {
      const sent = await attempt(path, body, call);
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
                message: `${sent.message} It may or may not have happened: read the receipt (check-id or a2c/get-by-id) before trying again.`,
                status: null,
                retryAfter: null,
              };
        return { ok: false, error, requestId: null, attempts, response: null };
      }
      const { response } = sent;
      const requestId = response.headers.get("x-request-id");
      const retryAfter = retryAfterOf(response);
      if (response.ok) {
        if (sent.body === undefined) return invalid(response, requestId, attempts, safe);
        return {
          ok: true,
          data: sent.body as Answer<P>,
          status: response.status,
          replayed: response.headers.get("idempotent-replayed") === "true",
          requestId,
          attempts,
          response,
        };
      }
      const envelope = (sent.body as { error?: { code?: unknown } } | undefined)?.error;
      if (!envelope || typeof envelope.code !== "string") {
        if (safe && !last && response.status >= 500) {
          await sleep(250 * 2 ** (attempts - 1));
          continue;
        }
        return invalid(response, requestId, attempts, safe);
      }
      const again =
        safe &&
        !last &&
        (response.status === 503
          ? retryAfter !== null && retryAfter <= maxWait
          : response.status >= 500 || (envelope.code === "tid_in_progress" && (retryAfter ?? 1) <= maxWait));
      if (again) {
        await sleep(retryAfter !== null ? retryAfter * 1000 : 250 * 2 ** (attempts - 1));
        continue;
      }
      const error = { ...envelope, status: response.status, retryAfter } as unknown as GatewayError<P>;
      return { ok: false, error, requestId, attempts, response };
    }
  }

  function invalid(response: Response, requestId: string | null, attempts: number, safe: boolean) {
    const message = `HTTP ${response.status} without the gateway's JSON answer (a proxy in between?).`;
    const error: ClientError = safe
      ? { code: "invalid_response", message, status: response.status, retryAfter: null }
      : {
          code: "outcome_unknown",
          cause: "invalid_response",
          message: `${message} Read the receipt before trying again.`,
          status: response.status,
          retryAfter: null,
        };
    return { ok: false as const, error, requestId, attempts, response };
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
  };
}

export type GatewayClient = ReturnType<typeof createGatewayClient>;
