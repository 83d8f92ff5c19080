/**
 * The audit trail in R2 for the tests (rule 15): every writer flushed at
 * once (as its alarm would a moment later), a search through the gateway,
 * and the batches as R2 holds them.
 */
import { env } from "cloudflare:workers";
import { vi } from "vitest";
import { auditChains } from "../src/audit/entries";
import { receiptStub } from "../src/record/receipt-object";
import { callGateway } from "./events";
import { expectStatus } from "./helpers";

/** Every writer's waiting entries, written to R2 now. */
export async function flushAudit(): Promise<void> {
  for (let i = 0; i < auditChains(env); i++) await env.AUDIT_WRITER.get(env.AUDIT_WRITER.idFromName(`w${i}`)).flush();
}

const HOUR_MS = 3_600_000;

/** audit/search's first page, an hour either side of now unless said. */
export async function searchTrail(query: Record<string, unknown>): Promise<any> {
  const now = Date.now();
  return expectStatus(callGateway("audit/search", { from: now - HOUR_MS, to: now + HOUR_MS, limit: 100, ...query }), 200);
}

/**
 * The entries audit/search gives once `count` of them are in R2: records
 * send their trail with their next alarm (held up to half of
 * AUDIT_FLUSH_SECONDS), so each record is asked to send it now and the
 * writers are flushed until they are.
 */
export async function trailOnceIn(query: Record<string, unknown>, count: number): Promise<any[]> {
  let entries: any[] = [];
  await vi.waitFor(
    async () => {
      // The record's own export (with its next alarm), now.
      if (typeof query.receipt_id === "string")
        for (const kind of ["receipt", "transfer"] as const) await receiptStub(env, kind, query.receipt_id).exportAudit();
      await flushAudit();
      // Every page: a page may end early, with has_more, where its reads ran out.
      entries = [];
      let page = await searchTrail(query);
      entries.push(...page.entries);
      while (page.has_more) {
        page = await searchTrail({ ...query, after: page.next });
        entries.push(...page.entries);
      }
      if (entries.length < count) throw new Error(`${entries.length} of ${count} entries in R2 so far`);
    },
    // A bound a loaded machine never reaches: each round exports, flushes every writer and searches.
    { timeout: 60_000, interval: 50 },
  );
  return entries;
}

/** Every object under audit/, by key, with its text. */
export async function auditObjects(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let cursor: string | undefined;
  do {
    const listed = await env.AUDIT.list({ prefix: "audit/", cursor });
    for (const object of listed.objects) out.set(object.key, await (await env.AUDIT.get(object.key))!.text());
    cursor = listed.truncated ? listed.cursor : undefined;
  } while (cursor);
  return out;
}

/** The audit bucket as verifyAudit reads it (the script reads the local state or R2's S3 API the same way). */
export const bucketReader = (bucket: R2Bucket = env.AUDIT) => ({
  async keys(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let cursor: string | undefined;
    do {
      const listed = await bucket.list({ prefix, cursor });
      keys.push(...listed.objects.map((object) => object.key));
      cursor = listed.truncated ? listed.cursor : undefined;
    } while (cursor);
    return keys;
  },
  async get(key: string): Promise<Uint8Array | null> {
    const object = await bucket.get(key);
    return object ? new Uint8Array(await object.arrayBuffer()) : null;
  },
});

/** Empties the audit bucket (the writers keep their heads: their next batches start a chain whose older ones ended, as after retention). */
export async function emptyAuditBucket(): Promise<void> {
  const keys = await bucketReader().keys("audit/");
  for (let i = 0; i < keys.length; i += 500) await env.AUDIT.delete(keys.slice(i, i + 500));
}
