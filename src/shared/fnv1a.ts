/**
 * A 32-bit FNV-1a hash of a string: where a key goes when many places share
 * the work (an audit writer's chain, a rule 13 counter's shard), the Bloom
 * filter's two base hashes, and which statement lines are checked. A place
 * chosen by it names a stored object, so its values never change.
 */
export function fnv1a(text: string, seed = 0x811c9dc5): number {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}
