/**
 * A card's keyed fingerprint: HMAC-SHA-256 of its number (or of its token)
 * under CARD_FINGERPRINT_SECRET, a secret of its own. Keyed, so a stored or
 * logged fingerprint cannot be turned back into a number by hashing all the
 * numbers of a BIN range (a 16-digit number has only ~10^9 candidates once
 * its BIN and check digit are known); its own secret, so rotating the tid
 * secret or the upstream credential changes no counter.
 */
import { hex, hmac } from "../keyed-hash";

export type CardReference = { number: string } | { token: string };

/** Hex HMAC of the card's number or token; a number and a token never share a fingerprint. */
export async function cardFingerprint(secret: string, card: CardReference): Promise<string> {
  const message = "number" in card ? `number\0${card.number}` : `token\0${card.token}`;
  return hex(await hmac(secret, message));
}

/** What a log line may show of a fingerprint: enough to group alerts, too little to match across deployments. */
export const fingerprintPrefix = (fingerprint: string): string => fingerprint.slice(0, 12);
