// A scripted upstream for tests (never in the dev or production bundle): the
// UPSTREAM binding of the test configuration points here (vitest.config.ts).
// By default every request passes straight through to the sandbox's own HTTP
// face (src/sandbox/routes.ts), so it behaves exactly as SandboxUpstream. A
// test scripts faults on the next requests to a path: answer late, lose the
// connection, never answer, answer an error or a broken body, or hold the
// answer until the test releases it, each after the sandbox acted or not; or
// keep the request and lose the connection, for the test to send it on to the
// sandbox later (an upstream that acts after the gateway gave up).
//
// A lost connection is an answer that breaks while it is read, never an
// exception thrown out of this entrypoint. A thrown one rejected the caller's
// fetch, and the runtime also reported every one as uncaught ("Uncaught (in
// promise)"); once, under load, vitest counted one as an unhandled rejection
// and failed the run. A broken answer fails only its reader, who handles it
// (the gateway's client does); with no reader left, nothing fails at all. (A
// connection that fails before any answer, the caller's fetch rejecting, is
// scripted by test/integration/faults.test.ts with an UPSTREAM of its own.)
//
// The rules live in this module. That works because the tests, the gateway's
// Durable Objects and this entrypoint all run in the one runner isolate and
// import this module through the one vitest module runner (proved by
// test/integration/scripted-upstream.test.ts). Call scriptedUpstream.reset() in afterEach.
//
// The test and a request held here run in different I/O contexts (the test in
// the runner's Durable Object, the request in this entrypoint's invocation).
// A promise resolved in one context runs its continuations in that context,
// where the other side's I/O fails ("Cannot perform I/O on behalf of a
// different Durable Object"). So no promise crosses between them: each side
// polls plain flags with timers of its own (POLL_MS).
import { WorkerEntrypoint } from "cloudflare:workers";
import { routes } from "../../src/sandbox/routes";

export type Fault =
  | { kind: "pass" }
  /** Forward to the sandbox (it acts at once), answer its real response after ms. */
  | { kind: "late"; ms: number }
  /** Forward to the sandbox (it acts), then the connection breaks: the status line arrives, reading the body fails. */
  | { kind: "lost" }
  /** Act (default true), then never answer until the caller gives up (or reset()). */
  | { kind: "timeout"; act?: boolean }
  /** Answer `status` with the wire error envelope (+ Retry-After if retryAfter); act first only if act (default false). */
  | { kind: "status"; status: number; code?: string; message?: string; retryAfter?: number; act?: boolean }
  /** Answer this raw text, status default 200; act first unless act is false. */
  | { kind: "body"; body: string; status?: number; act?: boolean }
  /**
   * Do not forward: keep the request (scriptedUpstream.takeDeferred) so the
   * test can send it to the sandbox later (forwardDeferred), as an upstream
   * that acts long after the caller gave up. The caller meanwhile sees the
   * connection break as "lost" does, or with hang no answer until it times out.
   */
  | { kind: "defer"; hang?: boolean };

/** A request a "defer" fault kept: everything needed to send it again, as it was. */
export interface DeferredRequest {
  url: string;
  method: string;
  headers: [string, string][];
  body: string | undefined;
  /** The path after /api/v1/partner/ and the x-request-id it carried. */
  path: string;
  requestId: string | null;
}

/**
 * A request held by hold(). Through the gateway, release it within the
 * gateway's UPSTREAM_TIMEOUT_MS (2000 in tests), or the gateway has given up.
 */
export interface Held {
  /** Resolves once the request has reached the upstream and (if act) the sandbox has acted; also on reset(). */
  arrived: Promise<void>;
  /** Lets the held answer go (the real one, if anyone still listens). Harmless to call twice or before arrival. */
  release(): void;
}

type HoldState = { arrived: boolean; released: boolean };
type HoldAction = { kind: "hold"; act: boolean; state: HoldState };
type Rule = { path: string; id?: string; remaining: number; action: Fault | HoldAction };

const PARTNER_PREFIX = "/api/v1/partner/";
/** Nothing waits longer than this, so a forgotten hold cannot outlive a test run. */
const LONGEST_WAIT_MS = 5 * 60_000;
const POLL_MS = 5;

const rules: Rule[] = [];
/** Vars the sandbox sees instead of the runner's (e.g. SANDBOX_CANCEL_ACCESS), until reset(). */
let varOverrides: Record<string, string> = {};
let firedCounts: Record<string, number> = {};
/** The paths of the requests a rule took, in order, with the kind of fault. */
let firedLog: { path: string; kind: string }[] = [];
/** Requests kept by "defer" faults; not cleared by reset(): the test forwards or drops them. */
let deferred: DeferredRequest[] = [];
/** Bumped by reset(): every wait begun before it ends. */
let generation = 0;

/**
 * Waits, in the caller's own I/O context, until `done()` holds, reset() is
 * called, or the longest wait has passed.
 */
async function until(done: () => boolean): Promise<void> {
  const started = Date.now();
  const since = generation;
  while (!done() && generation === since && Date.now() - started < LONGEST_WAIT_MS) await scheduler.wait(POLL_MS);
}

function take(path: string, id: string | undefined): Rule | undefined {
  const index = rules.findIndex((rule) => rule.path === path && (rule.id === undefined || rule.id === id));
  if (index < 0) return undefined;
  const rule = rules[index]!;
  rule.remaining -= 1;
  if (rule.remaining <= 0) rules.splice(index, 1);
  return rule;
}

function idOf(body: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed === "object" && parsed !== null && typeof (parsed as { id?: unknown }).id === "string") {
      return (parsed as { id: string }).id;
    }
  } catch {
    // Not JSON: matches only rules without an id.
  }
  return undefined;
}

const DEFAULT_CODES: Record<number, string> = {
  400: "VALIDATION_ERROR",
  401: "UNAUTHORIZED",
  404: "NOT_FOUND",
  429: "RATE_LIMITED",
  500: "INTERNAL_ERROR",
  502: "BAD_GATEWAY",
  503: "BUSY",
  504: "GATEWAY_TIMEOUT",
};

function echoHeaders(request: Request, extra: Record<string, string> = {}): Headers {
  const headers = new Headers({ "content-type": "application/json", ...extra });
  const requestId = request.headers.get("x-request-id");
  if (requestId) headers.set("x-request-id", requestId);
  return headers;
}

/** The wire error envelope (docs/upstream-wire.md). */
function scriptedError(request: Request, status: number, code?: string, message?: string, retryAfter?: number): Response {
  const envelope = {
    error: { code: code ?? DEFAULT_CODES[status] ?? `HTTP_${status}`, message: message ?? "Scripted upstream fault" },
  };
  const extra: Record<string, string> = retryAfter === undefined ? {} : { "retry-after": String(retryAfter) };
  return new Response(JSON.stringify(envelope), { status, headers: echoHeaders(request, extra) });
}

/**
 * An answer whose connection breaks after its status line: reading its body
 * fails with `reason`. Nothing rejects unless someone reads it.
 */
function brokenAnswer(request: Request, reason: string): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.error(new Error(reason));
    },
  });
  return new Response(body, { status: 200, headers: echoHeaders(request) });
}

export class ScriptedUpstream extends WorkerEntrypoint<Env> {
  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (rules.length === 0 || !url.pathname.startsWith(PARTNER_PREFIX)) return this.sandbox(request);

    // The body is read once here, so it is replayed to the sandbox from text.
    const text = await request.text();
    const rule = take(url.pathname.slice(PARTNER_PREFIX.length), idOf(text));
    const body = request.method === "GET" || request.method === "HEAD" ? undefined : text;
    const forward = () => this.sandbox(new Request(request.url, { method: request.method, headers: request.headers, body }));
    if (!rule) return forward();
    const { action } = rule;
    firedCounts[action.kind] = (firedCounts[action.kind] ?? 0) + 1;
    firedLog.push({ path: rule.path, kind: action.kind });

    switch (action.kind) {
      case "pass":
        return forward();
      case "late": {
        const answer = await forward();
        await scheduler.wait(action.ms);
        return answer;
      }
      case "lost":
        await forward();
        return brokenAnswer(request, "scripted upstream: connection lost after the sandbox acted");
      case "timeout": {
        const answer = action.act === false ? undefined : await forward();
        // Only reset() (or the longest wait) ends this; the caller has given up long before.
        await until(() => false);
        return answer ?? scriptedError(request, 504, "GATEWAY_TIMEOUT");
      }
      case "status":
        if (action.act) await forward();
        return scriptedError(request, action.status, action.code, action.message, action.retryAfter);
      case "body":
        if (action.act !== false) await forward();
        return new Response(action.body, { status: action.status ?? 200, headers: echoHeaders(request) });
      case "defer":
        deferred.push({
          url: request.url,
          method: request.method,
          headers: [...request.headers],
          body,
          path: rule.path,
          requestId: request.headers.get("x-request-id"),
        });
        if (action.hang) {
          await until(() => false);
          return scriptedError(request, 504, "GATEWAY_TIMEOUT");
        }
        return brokenAnswer(request, "scripted upstream: connection lost before the upstream acted (deferred)");
      case "hold": {
        const { state } = action;
        if (!action.act) {
          state.arrived = true;
          await until(() => state.released);
          return forward();
        }
        const answer = await forward();
        state.arrived = true;
        await until(() => state.released);
        return answer;
      }
    }
  }

  private sandbox(request: Request): Promise<Response> {
    return Promise.resolve(routes.fetch(request, { ...this.env, ...varOverrides }, this.ctx));
  }
}

export const scriptedUpstream = {
  /**
   * The next `times` (default 1) requests to `path` (e.g. "receipt/pay": the
   * part after /api/v1/partner/), optionally only those whose JSON body has
   * `id` === id, get `fault`. Rules are consumed in the order added.
   */
  on(path: string, fault: Fault, options: { id?: string; times?: number } = {}): void {
    rules.push({ path, id: options.id, remaining: options.times ?? 1, action: fault });
  },

  /**
   * The next matching request acts (if act, default true) and its answer is
   * then held until release(). With act false the sandbox acts only at
   * release(). `arrived` resolves once the request has reached the upstream
   * (and, with act, the sandbox has acted).
   */
  hold(path: string, options: { id?: string; act?: boolean } = {}): Held {
    const state: HoldState = { arrived: false, released: false };
    rules.push({ path, id: options.id, remaining: 1, action: { kind: "hold", act: options.act ?? true, state } });
    return {
      // Polled in the context of whoever called hold(); also ends on reset().
      arrived: until(() => state.arrived),
      release: () => {
        state.released = true;
      },
    };
  },

  /**
   * Forget every rule and every count, and end every wait: held requests
   * send their real answer, timed-out ones theirs (or a 504 if they never
   * acted), to whoever still listens.
   */
  reset(): void {
    rules.length = 0;
    varOverrides = {};
    firedCounts = {};
    firedLog = [];
    generation += 1;
  },

  /**
   * The sandbox reads these vars instead of the configuration's, for every
   * request until reset(): a sandbox setting for one test only (the sandbox
   * reads SANDBOX_OTP_TTL_MS and SANDBOX_CANCEL_ACCESS per request).
   */
  vars(overrides: Record<string, string>): void {
    varOverrides = { ...varOverrides, ...overrides };
  },

  /** How many requests each fault kind ("late", "hold", ...) affected since the last reset(). */
  fired(): Record<string, number> {
    return { ...firedCounts };
  },

  /** Which paths the rules hit since the last reset(), in order, and with which kind of fault. */
  firedOn(): { path: string; kind: string }[] {
    return firedLog.map((hit) => ({ ...hit }));
  },

  /** Resolves once a "defer" fault has kept a request not yet taken (or on reset()). */
  deferredArrived(): Promise<void> {
    return until(() => deferred.length > 0);
  },

  /** The requests "defer" faults kept since the last call, oldest first (they are forgotten here). */
  takeDeferred(): DeferredRequest[] {
    const taken = deferred;
    deferred = [];
    return taken;
  },
};

/**
 * Sends a kept request on to the sandbox now, as the upstream acting late
 * on it would: through `upstream` (the UPSTREAM binding, with no rule set it
 * passes straight through). Answers the sandbox's status.
 */
export async function forwardDeferred(upstream: Fetcher, request: DeferredRequest): Promise<number> {
  const res = await upstream.fetch(new Request(request.url, { method: request.method, headers: request.headers, body: request.body }));
  await res.body?.cancel();
  return res.status;
}
