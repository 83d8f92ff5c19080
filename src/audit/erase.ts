/**
 * Erasure (rule 10) in the audit trail: the batches whose filter may hold a
 * user's personal values (`p:<sub>`: a record's create entry with its
 * account values) are rewritten by their writers with those values masked,
 * each rewrite recorded in its chain (src/audit/writer.ts). The erasure
 * cron (src/cron/erasure.ts) runs this once the user's records are erased, in
 * bounded steps: every writer is flushed first (an entry exported before
 * the records were erased is then in R2), then the days the trail holds are
 * walked newest first, a listing per step, and each matching batch is
 * rewritten. Where it stands is a cursor the erasure request keeps.
 */
import { log } from "../shared/log";
import { HEAD_KEY, HEADS_PREFIX, parseBatchKey } from "./batch";
import { fromBase64, mayHold } from "./bloom";
import { auditChains } from "./entries";

/** How long the writers mask an erased user's values in what they are sent: any export on its way has landed by then. */
const FORGET_MS = 86_400_000;

/** R2 listings one run may make, and batch rewrites. */
export const ERASE_LISTS_PER_RUN = 150;
export const ERASE_REWRITES_PER_RUN = 25;

interface AuditCursor {
  /** The days left to walk, newest first (`YYYY-MM-DD`); null before the walk began. */
  days: string[] | null;
  /** Where the listing of days[0] stands. */
  list?: string;
}

/**
 * The writers an erasure reaches: the AUDIT_CHAINS configured, and every chain whose head is in R2 (a writer a
 * smaller AUDIT_CHAINS no longer names still holds what it was sent until its flush, and its batches are rewritten
 * by it): so AUDIT_CHAINS may shrink as well as grow.
 */
async function writersOf(env: Env): Promise<string[]> {
  const chains = new Set(Array.from({ length: auditChains(env) }, (_, i) => `w${i}`));
  const listed = await env.AUDIT.list({ prefix: HEADS_PREFIX });
  for (const object of listed.objects) {
    const head = HEAD_KEY.exec(object.key);
    if (head) chains.add(head[1]!);
  }
  return [...chains];
}

/**
 * One bounded step of a user's erasure in the trail. `cursor` is what the
 * previous step left (undefined at first); answers the next cursor, or
 * true once every batch is done.
 */
export async function eraseInAudit(
  env: Env,
  user: string,
  cursor: string | undefined,
  budget = { lists: ERASE_LISTS_PER_RUN, rewrites: ERASE_REWRITES_PER_RUN },
): Promise<string | true> {
  const state: AuditCursor = cursor ? (JSON.parse(cursor) as AuditCursor) : { days: null };
  let lists = 0;
  let rewrites = 0;
  if (state.days === null) {
    // Every writer masks the user's values in what it is sent from now on (an export already on its way), then
    // writes what it holds, so the walk below meets every entry kept before.
    const chains = await writersOf(env);
    lists++;
    for (const chain of chains) await env.AUDIT_WRITER.get(env.AUDIT_WRITER.idFromName(chain)).forget(user, Date.now() + FORGET_MS);
    for (const chain of chains) await env.AUDIT_WRITER.get(env.AUDIT_WRITER.idFromName(chain)).flush();
    const days: string[] = [];
    let listCursor: string | undefined;
    do {
      const listed = await env.AUDIT.list({ prefix: "audit/", delimiter: "/", cursor: listCursor });
      lists++;
      for (const prefix of listed.delimitedPrefixes) if (/^audit\/\d{4}-\d{2}-\d{2}\/$/.test(prefix)) days.push(prefix.slice(6, 16));
      listCursor = listed.truncated ? listed.cursor : undefined;
    } while (listCursor);
    state.days = days.sort().reverse();
  }
  const key = `p:${user}`;
  while (state.days.length > 0) {
    if (lists >= budget.lists || rewrites >= budget.rewrites) return JSON.stringify(state);
    const listed = await env.AUDIT.list({ prefix: `audit/${state.days[0]}/`, cursor: state.list, include: ["customMetadata"] });
    lists++;
    for (const object of listed.objects) {
      // Out of budget mid-page: the page is listed again next run (a rewrite done is not done twice: nothing left to mask).
      if (rewrites >= budget.rewrites) return JSON.stringify(state);
      const bloom = object.customMetadata?.bloom;
      const place = parseBatchKey(object.key);
      if (!place || (bloom !== undefined && !mayHold(fromBase64(bloom), key))) continue;
      if (await env.AUDIT_WRITER.get(env.AUDIT_WRITER.idFromName(place.chain)).rewrite(object.key, user)) rewrites++;
    }
    if (listed.truncated) state.list = listed.cursor;
    else {
      state.days.shift();
      delete state.list;
    }
  }
  if (rewrites > 0) log("info", "audit_erasure_run", { batches_rewritten: rewrites });
  return true;
}
