/**
 * A card's keyed fingerprint: HMAC-SHA-256 of its number (or of its token)
 * under CARD_FINGERPRINT_SECRET, a secret of its own. Keyed, so a stored or
 * logged fingerprint cannot be turned back into a number by hashing all the
 * numbers of a BIN range (a 16-digit number has only ~10^9 candidates once
 * its BIN and check digit are known); its own secret, so rotating the tid
 * secret or the upstream credential changes no counter.
 */
const keys = new Map<string, Promise<CryptoKey>>();

function keyOf(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    keys.set(secret, key);
  }
  return key;
}

export type CardReference = { number: string } | { token: string };

/** Hex HMAC of the card's number or token; a number and a token never share a fingerprint. */
export async function cardFingerprint(secret: string, card: CardReference): Promise<string> {
  const message = "number" in card ? `number\0${card.number}` : `token\0${card.token}`;
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await keyOf(secret), new TextEncoder().encode(message)));
  return Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** What a log line may show of a fingerprint: enough to group alerts, too little to match across deployments. */
export const fingerprintPrefix = (fingerprint: string): string => fingerprint.slice(0, 12);
