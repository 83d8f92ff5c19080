/**
 * The filter a batch's R2 metadata carries (docs/design.md, "Key layout"):
 * which receipts, users and staff members it may hold, so a search reads
 * only the batches that can match. 5,376 bytes (R2 allows 8,192 of metadata,
 * and base64 takes 7,168 of them) and 7 hashes: about 1% false positives at
 * 4,000 keys, the most a batch of 2,000 entries holds. No false negatives.
 */
import { fnv1a } from "../shared/fnv1a";

export const BLOOM_BYTES = 5376;
const BITS = BLOOM_BYTES * 8;
const HASHES = 7;

/** The bit positions of a key (double hashing of two FNV-1a hashes). */
function positions(key: string): number[] {
  const a = fnv1a(key);
  const b = fnv1a(key, 0x9747b28c) | 1;
  return Array.from({ length: HASHES }, (_, i) => (a + Math.imul(i, b)) >>> 0).map((h) => h % BITS);
}

export function bloomOf(keys: Iterable<string>): Uint8Array {
  const bits = new Uint8Array(BLOOM_BYTES);
  for (const key of keys) for (const bit of positions(key)) bits[bit >> 3]! |= 1 << (bit & 7);
  return bits;
}

export function mayHold(bits: Uint8Array, key: string): boolean {
  if (bits.length !== BLOOM_BYTES) return true;
  return positions(key).every((bit) => (bits[bit >> 3]! & (1 << (bit & 7))) !== 0);
}

export function toBase64(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
}

export function fromBase64(text: string): Uint8Array {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    // Unreadable: a filter that may hold anything, so nothing is skipped.
    return new Uint8Array(0);
  }
}
