/**
 * A card's keyed fingerprint: HMAC-SHA-256 of its number (or of its token)
 * under CARD_FINGERPRINT_SECRET, a secret of its own. Keyed, so a stored or
 * logged fingerprint cannot be turned back into a number by hashing all the
 * numbers of a BIN range (a 16-digit number has only ~10^9 candidates once
 * its BIN and check digit are known); its own secret, so rotating the tid
 * secret or the upstream credential changes no counter.
 *
 * One card, one fingerprint, however its number is written: the number is
 * fingerprinted as its digits alone (a space, a dash or any other separator
 * dropped) without leading zeros. The request schema admits 16 to 19 digits
 * and nothing else, so separators never get this far today; leading zeros do
 * (zeros in front keep the Luhn check and fit in 19 digits), and no issuer's
 * number starts with 0, so "0008600000000000007" is 8600000000000007 written
 * longer, not another card to count afresh. A number written plainly keeps
 * the fingerprint it always had, so no counter restarts.
 */
import { hex, hmac } from "../shared/keyed-hash";

export type CardReference = { number: string } | { token: string };

/** A card number as rule 13 counts it: its digits, no leading zeros. */
export const canonicalNumber = (number: string): string => number.replace(/\D/g, "").replace(/^0+(?=\d)/, "");

/** Hex HMAC of the card's number or token; a number and a token never share a fingerprint. */
export async function cardFingerprint(secret: string, card: CardReference): Promise<string> {
  const message = "number" in card ? `number\0${canonicalNumber(card.number)}` : `token\0${card.token}`;
  return hex(await hmac(secret, message));
}

/**
 * What a card's counter keeps of a user who used it (rule 13's distinct users
 * of a card): a keyed hash of the user's `sub`, 128 bits, so a card's object
 * names no user; a user's own object is named by the user.
 */
export async function userKey(secret: string, sub: string): Promise<string> {
  return hex(await hmac(secret, `user\0${sub}`)).slice(0, 32);
}

/** What a log line may show of a fingerprint: enough to group alerts, too little to match across deployments. */
export const fingerprintPrefix = (fingerprint: string): string => fingerprint.slice(0, 12);
