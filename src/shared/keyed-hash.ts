/**
 * HMAC-SHA-256 under a deployment secret, with each secret's key imported
 * once per isolate: what every keyed fingerprint of the gateway is made of
 * (a create's request and a user's upstream tid, src/tids/tid-index.ts; a card,
 * src/risk/fingerprint.ts). Keyed, so that nothing stored or logged can be
 * turned back into a card number by hashing every number of a BIN range.
 */
const hmacKeys = new Map<string, Promise<CryptoKey>>();

export async function hmac(key: string, message: string): Promise<Uint8Array> {
  let cryptoKey = hmacKeys.get(key);
  if (!cryptoKey) {
    cryptoKey = crypto.subtle.importKey("raw", new TextEncoder().encode(key || "unkeyed"), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    hmacKeys.set(key, cryptoKey);
  }
  return new Uint8Array(await crypto.subtle.sign("HMAC", await cryptoKey, new TextEncoder().encode(message)));
}

export const hex = (bytes: Uint8Array): string => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
