/**
 * A thin typed client for the payments edge gateway: every operation is a
 * POST of JSON, typed from openapi.json (schema.d.ts, `npm run client`), and
 * every answer is either `{ ok: true, data }` or `{ ok: false, error }` whose
 * `error.code` is one of the codes that operation documents. Also: the
 * Standard Webhooks verification of the events the gateway POSTs.
 */
import createClient from "openapi-fetch";
import type { components, paths } from "./schema";

export type { components, paths };
export type Receipt = components["schemas"]["Receipt"];
export type ReducedReceipt = components["schemas"]["ReducedReceipt"];
export type TransferReceipt = components["schemas"]["TransferReceipt"];
export type AuthorizeResult = components["schemas"]["AuthorizeResult"];
export type Event = components["schemas"]["Event"];

type Op<P extends keyof paths> = NonNullable<paths[P]["post"]>;

/** The paths that are operations (POST). */
export type OperationPath = { [P in keyof paths]: [NonNullable<paths[P]["post"]>] extends [never] ? never : P }[keyof paths];

export type RequestBody<P extends OperationPath> = Op<P> extends { requestBody: { content: { "application/json": infer B } } } ? B : never;

export type Answer<P extends OperationPath> = Op<P>["responses"] extends { 200: { content: { "application/json": infer B } } } ? B : never;

type ErrorBodies<R> = { [S in keyof R]: S extends 200 ? never : R[S] extends { content: { "application/json": infer B } } ? B : never }[keyof R];

/**
 * An error answer of operation P: the envelope's `error`, with `code`
 * narrowed to what P documents for that status (a union discriminated by `code`).
 */
export type GatewayError<P extends OperationPath = OperationPath> =
  ErrorBodies<Op<P>["responses"]> extends infer B ? (B extends { error?: infer E } ? NonNullable<E> & { status: number } : never) : never;

export type Result<P extends OperationPath> =
  | { ok: true; data: Answer<P>; response: Response }
  | { ok: false; error: GatewayError<P>; response: Response };

export interface ClientOptions {
  /** e.g. http://127.0.0.1:8787 */
  baseUrl: string;
  /** A partner server key (`sk_...`) or a user's JWT. */
  token: string;
  /** Another fetch (a test's Worker, a proxy); the global one by default. */
  fetch?: (request: Request) => Promise<Response>;
}

export function createGatewayClient(options: ClientOptions) {
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { authorization: `Bearer ${options.token}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  // openapi-fetch types each literal path; this one signature covers them all.
  const post = client.POST as unknown as (
    path: string,
    init: { body: unknown },
  ) => Promise<{ data?: unknown; error?: { error?: Record<string, unknown> }; response: Response }>;

  return {
    /** The underlying openapi-fetch client, for anything this one does not cover. */
    raw: client,
    async call<P extends OperationPath>(path: P, body: RequestBody<P>): Promise<Result<P>> {
      const { data, error, response } = await post(path, { body });
      if (response.ok) return { ok: true, data: data as Answer<P>, response };
      const envelope = error?.error ?? { code: "invalid_response", message: `HTTP ${response.status} without the error envelope` };
      return { ok: false, error: { ...envelope, status: response.status } as unknown as GatewayError<P>, response };
    },
  };
}

export type GatewayClient = ReturnType<typeof createGatewayClient>;

// ---------------------------------------------------------------------------
// Webhooks

export class WebhookVerificationError extends Error {
  override name = "WebhookVerificationError";
}

export interface VerifyOptions {
  /** How far `webhook-timestamp` may be from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** Now, in milliseconds (tests). */
  now?: number;
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function header(headers: Headers | Record<string, string | undefined>, name: string): string {
  const value = headers instanceof Headers ? headers.get(name) : (headers[name] ?? headers[name.toLowerCase()]);
  if (!value) throw new WebhookVerificationError(`Missing ${name} header.`);
  return value;
}

/**
 * Verifies one delivery as Standard Webhooks do and answers its Event:
 * `webhook-signature` must hold a `v1,` HMAC-SHA256 of
 * "<webhook-id>.<webhook-timestamp>.<body>" under one of `secrets`
 * (`whsec_<base64>`; several during a rotation), and the timestamp must be
 * recent. `body` is the raw request body, exactly as received.
 */
export async function verifyWebhook(
  secrets: string | readonly string[],
  headers: Headers | Record<string, string | undefined>,
  body: string,
  options: VerifyOptions = {},
): Promise<Event> {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature").split(" ");
  const seconds = Number(timestamp);
  const now = (options.now ?? Date.now()) / 1000;
  if (!/^\d+$/.test(timestamp) || Math.abs(now - seconds) > (options.toleranceSeconds ?? 300)) {
    throw new WebhookVerificationError("webhook-timestamp is missing or too far from now.");
  }
  const content = new TextEncoder().encode(`${id}.${timestamp}.${body}`);
  for (const secret of typeof secrets === "string" ? secrets.split(/\s+/).filter(Boolean) : secrets) {
    if (!secret.startsWith("whsec_")) throw new WebhookVerificationError("A secret is not of the form whsec_<base64>.");
    const key = await crypto.subtle.importKey("raw", fromBase64(secret.slice(6)), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
    for (const signature of signatures) {
      if (!signature.startsWith("v1,")) continue;
      let expected: Uint8Array<ArrayBuffer>;
      try {
        expected = fromBase64(signature.slice(3));
      } catch {
        continue;
      }
      // crypto.subtle.verify compares in constant time.
      if (await crypto.subtle.verify("HMAC", key, expected, content)) {
        const event = JSON.parse(body) as Event;
        if (event.id !== id) throw new WebhookVerificationError("webhook-id is not the event's id.");
        return event;
      }
    }
  }
  throw new WebhookVerificationError("No signature matches any secret.");
}
