/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com/), with
 * WebCrypto: `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`,
 * keyed with the bytes a `whsec_<base64>` secret encodes. WEBHOOK_SECRET may
 * hold several secrets, space-separated, while one is rotated: every delivery
 * is then signed with each, and a receiver that knows either accepts it.
 */

export const WEBHOOK_SECRET_PREFIX = "whsec_";
/** The Standard Webhooks spec asks for 24 to 64 random bytes; fewer are refused. */
export const MIN_SECRET_BYTES = 24;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function decodeBase64(text: string): Uint8Array | null {
  if (!BASE64.test(text)) return null;
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

function encodeBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export interface WebhookSecrets {
  /** The decoded key of each well-formed secret, in the order configured. */
  keys: Uint8Array[];
  /** One sentence per malformed entry; never the entry itself. */
  problems: string[];
}

/** Reads WEBHOOK_SECRET: one or more `whsec_<base64>` secrets, space-separated. */
export function parseWebhookSecrets(value: string | undefined): WebhookSecrets {
  const keys: Uint8Array[] = [];
  const problems: string[] = [];
  const entries = (value ?? "").split(/\s+/).filter(Boolean);
  entries.forEach((entry, i) => {
    const name = entries.length > 1 ? `WEBHOOK_SECRET entry ${i + 1}` : "WEBHOOK_SECRET";
    const key = entry.startsWith(WEBHOOK_SECRET_PREFIX) ? decodeBase64(entry.slice(WEBHOOK_SECRET_PREFIX.length)) : null;
    if (!key) problems.push(`${name} is not of the form whsec_<base64>.`);
    else if (key.length < MIN_SECRET_BYTES) problems.push(`${name} encodes fewer than ${MIN_SECRET_BYTES} bytes; use 24 to 64 random bytes.`);
    else keys.push(key);
  });
  return { keys, problems };
}

const cryptoKeys = new WeakMap<Uint8Array, Promise<CryptoKey>>();

function hmacKey(key: Uint8Array): Promise<CryptoKey> {
  let cryptoKey = cryptoKeys.get(key);
  if (!cryptoKey) {
    cryptoKey = crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    cryptoKeys.set(key, cryptoKey);
  }
  return cryptoKey;
}

/**
 * The `webhook-signature` header for one delivery: `v1,<signature>` per key,
 * space-separated. `timestamp` is in seconds, as sent in `webhook-timestamp`.
 */
export async function signWebhook(keys: readonly Uint8Array[], id: string, timestamp: number, body: string): Promise<string> {
  if (keys.length === 0) throw new Error("No webhook secret to sign with.");
  const content = new TextEncoder().encode(`${id}.${timestamp}.${body}`);
  const signatures = await Promise.all(
    keys.map(async (key) => `v1,${encodeBase64(new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(key), content)))}`),
  );
  return signatures.join(" ");
}
