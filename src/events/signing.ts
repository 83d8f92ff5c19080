/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com/), with
 * WebCrypto: `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`,
 * keyed with the bytes a `whsec_<base64>` secret encodes (WEBHOOK_SECRET,
 * read by src/config/config-lists.ts's parseWebhookSecrets). WEBHOOK_SECRET may
 * hold several secrets, space-separated, while one is rotated: every delivery
 * is then signed with each, and a receiver that knows either accepts it.
 */

function encodeBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
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
