/**
 * The Standard Webhooks verification of the events the gateway POSTs to the
 * partner's backend (server side: it needs the secret).
 */
import type { Event } from "./types.js";

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
