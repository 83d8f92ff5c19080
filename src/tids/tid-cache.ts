/**
 * What this data center remembers of completed tids (the Workers Cache API,
 * `caches.default`), so a check-tid or an identical retry of a create that
 * the same data center saw needs no D1 round trip: a D1 statement
 * is a trip to the database's primary, which may be far away.
 *
 * Safe because a completed tid row never changes what it says: its kind, its
 * record and its request's fingerprint are fixed until retention deletes the
 * row (a create whose bookkeeping failed is never remembered: only a
 * completion that succeeded is). Each entry says when its create was
 * answered, and is believed only while the gateway's clock is inside the
 * row's retention window (and, for a replay, the replay window), whatever the
 * cache still holds; the cache keeps it at most a day.
 *
 * A miss (another data center, an evicted entry, a runtime without the Cache
 * API) reads D1 as before: the index stays the truth. The key is a SHA-256 of
 * (owner, tid), so a cache entry names no user; the value holds the keyed
 * fingerprint (src/tids/tid-index.ts), never a request.
 */

import type { KindName } from "../rules/kinds";
import { clock } from "../shared/clock";

export interface RememberedTid {
  kind: KindName;
  receipt_id: string;
  fingerprint: string;
  /** ms, the gateway's clock: when the create was answered (the row's updated_at). */
  answered_at: number;
}

/** The longest the cache keeps an entry (seconds). */
const MAX_AGE_SECONDS = 86_400;

const available = (): boolean => typeof caches !== "undefined" && caches.default !== undefined;

async function keyOf(owner: string, tid: string): Promise<Request> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${owner}\0${tid}`)));
  const hex = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
  return new Request(`https://tid-cache.gateway.internal/v1/${hex}`);
}

/** Remembers a completed tid; never throws (the cache is an optimisation, D1 the truth). */
export async function rememberTid(owner: string, tid: string, entry: RememberedTid, retentionMs: number): Promise<void> {
  if (!available()) return;
  const maxAge = Math.max(1, Math.min(MAX_AGE_SECONDS, Math.floor(retentionMs / 1000)));
  try {
    await caches.default.put(
      await keyOf(owner, tid),
      new Response(JSON.stringify(entry), { headers: { "content-type": "application/json", "cache-control": `max-age=${maxAge}` } }),
    );
  } catch {
    // A cache that refuses is a miss next time.
  }
}

/** A completed tid this data center remembers, still inside its retention window by the gateway's clock; else null. */
export async function recallTid(owner: string, tid: string, retentionMs: number, now = clock.now()): Promise<RememberedTid | null> {
  if (!available()) return null;
  try {
    const hit = await caches.default.match(await keyOf(owner, tid));
    if (!hit) return null;
    const entry = (await hit.json()) as RememberedTid;
    return now - entry.answered_at < retentionMs ? entry : null;
  } catch {
    return null;
  }
}

/** Forgets a tid in this data center (what another data center, or a Worker from before this cache, knows). */
export async function forgetTid(owner: string, tid: string): Promise<void> {
  if (available()) await caches.default.delete(await keyOf(owner, tid));
}
