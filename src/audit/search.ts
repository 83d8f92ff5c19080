/**
 * `POST /api/v1/gateway/audit/search` (rule 15): the entries of one receipt
 * (or transfer), user or staff member between `from` and `to`, oldest first,
 * from R2. Hour by hour: one listing of the hour's batches (with their
 * metadata), then only the batches whose times overlap and whose filter may
 * hold the key are read. A page lists at most MAX_LISTS hours and reads at
 * most MAX_READS batches, then answers what it found with `next`, where the
 * next page starts (`after`): bounded per request whatever the volume
 * (docs/design.md). An entry exported twice (its record stopped before its
 * mark was written) is given once.
 */

import { hourOf, hourPrefix, hourStart, nextHour, parseBatch } from "./batch";
import { fromBase64, mayHold } from "./bloom";
import type { AuditLine } from "./entries";

export const MAX_LISTS = 48;
export const MAX_READS = 24;
/** The widest search: 31 days. */
export const MAX_SPAN_MS = 31 * 86_400_000;

export interface AuditQuery {
  receipt_id?: string;
  user?: string;
  staff?: string;
  from: number;
  to: number;
  after?: string;
  limit: number;
}

export interface AuditPage {
  entries: AuditLine[];
  has_more: boolean;
  /** Where the next page starts: send it as `after`. Absent on the last page. */
  next?: string;
}

interface Position {
  hour: string;
  at: number | null;
  id: string | null;
}

const encode = (position: Position): string => [position.hour, position.at ?? "", position.id ?? ""].join("|");

/** A page's `next`, read back; null when it is not one. */
export function decodeAfter(after: string): Position | null {
  const [hour, at, ...rest] = after.split("|");
  const id = rest.join("|");
  if (!hour || !/^\d{4}-\d{2}-\d{2}T\d{2}$/.test(hour) || Number.isNaN(hourStart(hour))) return null;
  if (at === "" && id === "") return { hour, at: null, id: null };
  if (!at || !/^\d{1,15}$/.test(at) || id === "") return null;
  return { hour, at: Number(at), id };
}

const byTime = (a: AuditLine, b: AuditLine) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export async function searchAudit(bucket: R2Bucket, query: AuditQuery): Promise<AuditPage> {
  const [key, matches]: [string, (line: AuditLine) => boolean] =
    query.receipt_id !== undefined
      ? [`r:${query.receipt_id}`, (line) => line.receipt_id === query.receipt_id]
      : query.user !== undefined
        ? [`u:${query.user}`, (line) => line.user === query.user]
        : [`s:${query.staff!.toLowerCase()}`, (line) => line.staff === query.staff!.toLowerCase()];
  const start = query.after ? decodeAfter(query.after) : null;
  let hour = start?.hour ?? hourOf(query.from);
  let position: Position | null = start?.at != null ? start : null;
  const last = hourOf(query.to);
  const found: AuditLine[] = [];
  let lists = 0;
  let reads = 0;
  while (hour <= last) {
    if (lists >= MAX_LISTS || reads >= MAX_READS) return { entries: found, has_more: true, next: encode(position ?? { hour, at: null, id: null }) };
    const candidates: string[] = [];
    let cursor: string | undefined;
    do {
      const listed = await bucket.list({ prefix: hourPrefix(hour), cursor, include: ["customMetadata"] });
      lists++;
      for (const object of listed.objects) {
        const meta = object.customMetadata ?? {};
        const from = Number(meta.from ?? 0);
        const to = Number(meta.to ?? Number.MAX_SAFE_INTEGER);
        // A rewrite's record holds no entries (from = to = 0).
        if (to === 0 && from === 0) continue;
        if (to < query.from || from > query.to) continue;
        if (meta.bloom !== undefined && !mayHold(fromBase64(meta.bloom), key)) continue;
        candidates.push(object.key);
      }
      cursor = listed.truncated ? listed.cursor : undefined;
    } while (cursor);
    // An hour is read whole or not at all on a page (its entries come oldest first across its batches).
    if (reads > 0 && reads + candidates.length > MAX_READS)
      return { entries: found, has_more: true, next: encode(position ?? { hour, at: null, id: null }) };
    const lines = new Map<string, AuditLine>();
    for (const name of candidates) {
      const object = await bucket.get(name);
      reads++;
      if (!object) continue;
      for (const line of parseBatch(await object.text()).entries) {
        if (line && typeof line === "object" && matches(line) && line.at >= query.from && line.at <= query.to) lines.set(line.id, line);
      }
    }
    const ordered = [...lines.values()]
      .sort(byTime)
      .filter((line) => !position || position.at === null || byTime(line, { at: position.at, id: position.id! } as AuditLine) > 0);
    for (let i = 0; i < ordered.length; i++) {
      found.push(ordered[i]!);
      if (found.length === query.limit) {
        const more = i + 1 < ordered.length || hour < last;
        return more
          ? { entries: found, has_more: true, next: encode({ hour, at: ordered[i]!.at, id: ordered[i]!.id }) }
          : { entries: found, has_more: false };
      }
    }
    hour = nextHour(hour);
    position = null;
  }
  return { entries: found, has_more: false };
}
