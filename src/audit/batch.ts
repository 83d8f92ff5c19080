/**
 * A batch of the audit trail as R2 holds it (docs/design.md): NDJSON, a
 * header line naming its chain, its place in it and the SHA-256 of the
 * batch before it, then its entries oldest first; its key
 * `audit/<YYYY-MM-DD>/<HH>/<chain>-<seq>.ndjson` (UTC, the hour of every
 * entry in it); its metadata the times it covers and its filter. A rewrite
 * (an erasure's) is a batch of the chain with no entries, naming the batch
 * it rewrote and both its hashes.
 */

import { bloomOf, toBase64 } from "./bloom";
import { type AuditLine, filterKeys } from "./entries";

export const AUDIT_PREFIX = "audit/";
export const HEADS_PREFIX = "audit/heads/";
/** The `prev` of a chain's first batch. */
export const GENESIS = "0".repeat(64);
const HOUR_MS = 3_600_000;

export interface Rewrite {
  key: string;
  seq: number;
  old: string;
  new: string;
  reason: "erasure";
  /** SHA-256 of the user's sub: which erasure, never the sub itself. */
  user_hash: string;
}

export interface BatchHeader {
  chain: string;
  seq: number;
  prev: string;
  /** The UTC hour of its entries, `YYYY-MM-DDTHH`. */
  hour: string;
  count: number;
  written_at: number;
  rewrite?: Rewrite;
}

export interface Head {
  chain: string;
  seq: number;
  hash: string;
  key: string;
}

/** `YYYY-MM-DDTHH` of a time, in UTC. */
export const hourOf = (at: number): string => new Date(at).toISOString().slice(0, 13);

/** The first millisecond of an hour named `YYYY-MM-DDTHH`. */
export const hourStart = (hour: string): number => Date.parse(`${hour}:00:00.000Z`);

export const nextHour = (hour: string): string => hourOf(hourStart(hour) + HOUR_MS);

/** The listing prefix of one hour's batches. */
export const hourPrefix = (hour: string): string => `${AUDIT_PREFIX}${hour.slice(0, 10)}/${hour.slice(11, 13)}/`;

export const batchKey = (hour: string, chain: string, seq: number): string => `${hourPrefix(hour)}${chain}-${String(seq).padStart(10, "0")}.ndjson`;

export const headKey = (chain: string): string => `${HEADS_PREFIX}${chain}.json`;
/** A chain's head's key, its chain in the first group. */
export const HEAD_KEY = /^audit\/heads\/(w\d+)\.json$/;

/** What a batch key names, or null for a key that is no batch's. */
export function parseBatchKey(key: string): { hour: string; chain: string; seq: number } | null {
  const match = /^audit\/(\d{4}-\d{2}-\d{2})\/(\d{2})\/(w\d+)-(\d{10})\.ndjson$/.exec(key);
  return match ? { hour: `${match[1]}T${match[2]}`, chain: match[3]!, seq: Number(match[4]) } : null;
}

export function formatBatch(header: BatchHeader, entries: readonly AuditLine[]): string {
  return `${[JSON.stringify({ batch: header }), ...entries.map((entry) => JSON.stringify(entry))].join("\n")}\n`;
}

export function parseBatch(text: string): { header: BatchHeader | null; entries: AuditLine[] } {
  const lines = text.split("\n").filter((line) => line !== "");
  let header: BatchHeader | null = null;
  const entries: AuditLine[] = [];
  lines.forEach((line, i) => {
    try {
      const value = JSON.parse(line);
      if (i === 0 && value && typeof value === "object" && "batch" in value) header = value.batch as BatchHeader;
      else entries.push(value as AuditLine);
    } catch {
      // A line that is no JSON is no entry (verification names the batch: its hash changed).
    }
  });
  return { header, entries };
}

export async function sha256Hex(text: string | Uint8Array): Promise<string> {
  const bytes = typeof text === "string" ? new TextEncoder().encode(text) : text;
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A batch's R2 custom metadata: the times it covers and its filter. */
export function batchMetadata(entries: readonly AuditLine[]): Record<string, string> {
  const times = entries.map((entry) => entry.at);
  return {
    from: String(times.length ? Math.min(...times) : 0),
    to: String(times.length ? Math.max(...times) : 0),
    bloom: toBase64(bloomOf(entries.flatMap(filterKeys))),
  };
}
