/**
 * Erasing a user's personal data (rule 10): `POST /api/v1/gateway/users/erase`
 * records a request (table `erasures`, in the first database);
 * the Cron Trigger (every minute) carries it out in bounded steps:
 *
 * - the user's records are found through their tid-index rows (owner
 *   `user:<sub>`, the index's primary key prefix), in every database;
 * - each record's Durable Object erases every store src/stores.ts says the
 *   record erases: its body, the create's answer it keeps for replays, its
 *   outbox (the bodies of its events, logged or not: the event log keeps
 *   none), the answers it keeps for Idempotency-Keys, and every body and
 *   answer it stores later (src/record/erase.ts);
 * - erased means every `account` value and every `phone` starred but their
 *   first and last two characters (src/shared/redact.ts erasePersonal); ids,
 *   amounts, states and times stay;
 * - then every store src/stores.ts says the cron erases itself, each by its
 *   eraser in CRON_ERASERS (a map typed by that list);
 * - a done request is kept ERASURE_REQUESTS_KEPT_DAYS, for a restore of the
 *   database to put back, then deleted by retention (deleteDoneErasures).
 *   (the audit trail in R2, rule 15: src/audit/erase.ts, its own bounded
 *   step a run, where it stands kept with the request's progress);
 * At most ERASE_RECORDS_PER_RUN records and ERASE_QUERIES_PER_RUN D1 queries
 * a run (a record costs one object call, each page of a database's rows one
 * query), so a run stays inside a Worker's limits whatever a user holds and
 * however many databases there are; 50 a minute is 72,000 a day, well inside
 * the contract's 24 hours (in development, one run: within a minute).
 * Erasing is idempotent, so a run cut short repeats nothing harmful.
 *
 * Not found this way: a record whose tid row retention already deleted
 * (TID_RETENTION_DAYS after its create) while the record itself is kept
 * (RECORD_RETENTION_DAYS after its last change); with the default windows
 * (90 and 30 days) that is a record changed more than 60 days after its
 * create (a refund), and it is deleted within its window anyway.
 */

import { eraseInAudit } from "../audit/erase";
import { allShards } from "../d1/shards";
import { receiptStub } from "../record-stub";
import { log } from "../shared/log";
import { implementations, type StoreErasedBy, storesErasedBy } from "../stores";
import { type OwnedRow, ownerRowsAfter } from "../tids/tid-index";

/** Records erased per cron run, across all requests. */
export const ERASE_RECORDS_PER_RUN = 50;
/** Requests looked at per run. */
const REQUESTS_PER_RUN = 10;
/**
 * D1 queries a run may make (of the 1,000 an invocation may, which the
 * cron's other steps share): each page of a database's tid rows costs one (a
 * record costs none: its object holds every copy). With hundreds of
 * databases a request takes several runs.
 */
export const ERASE_QUERIES_PER_RUN = 200;

/**
 * Where a request stands in each database: the last tid done, or true when that database is done; and, under
 * `store:<name>`, where each store the cron erases itself stands (begun once every database is done).
 */
type Progress = Record<string, string | true>;

/**
 * A store the cron erases itself (src/stores.ts, `erasure: { by: "cron" }`):
 * erases what it holds of `user`, within a run's bounds, from where the last
 * run left it (`cursor`, undefined at first), and answers true when it is
 * done, else where to go on (the request stays open until every one is).
 * Idempotent.
 */
type CronEraser = (env: Env, user: string, now: number, cursor: string | undefined) => Promise<true | string>;

/**
 * The eraser of each store the cron erases itself, typed by src/stores.ts's
 * list: the audit trail's batches (rule 15).
 */
const CRON_ERASERS: Readonly<Record<StoreErasedBy<"cron">, CronEraser>> = {
  audit_batches: (env, user, _now, cursor) => eraseInAudit(env, user, cursor),
};

/** Records (or renews) a request to erase `user`'s personal data. */
export async function requestErasure(env: Env, user: string, now: number): Promise<{ user: string; accepted_at: number }> {
  await env.DB.prepare(
    `INSERT INTO erasures (user, requested_at, cursor, done_at) VALUES (?1, ?2, NULL, NULL)
     ON CONFLICT (user) DO UPDATE SET requested_at = excluded.requested_at, cursor = NULL, done_at = NULL`,
  )
    .bind(user, now)
    .run();
  // The sub is not logged: the request itself is the only place it is kept.
  log("info", "erasure_requested", { at: now });
  return { user, accepted_at: now };
}

/** Erases one record: its object holds every copy (its body, its answer, its events' bodies); from then on nothing it hands on carries the values. */
async function eraseRecord(env: Env, row: OwnedRow) {
  if (row.receipt_id !== null) await receiptStub(env, row.kind, row.receipt_id).erase();
}

/** One cron run: carries the open requests on, oldest first, within ERASE_RECORDS_PER_RUN records. */
export async function runErasures(env: Env, now: number, budget = ERASE_RECORDS_PER_RUN): Promise<{ records: number; done: number }> {
  const { results: open } = await env.DB.prepare("SELECT user, cursor FROM erasures WHERE done_at IS NULL ORDER BY requested_at LIMIT ?1")
    .bind(REQUESTS_PER_RUN)
    .all<{ user: string; cursor: string | null }>();
  let records = 0;
  let done = 0;
  let queries = 1;
  const spent = () => records >= budget || queries >= ERASE_QUERIES_PER_RUN;
  for (const request of open) {
    if (spent()) break;
    const progress: Progress = request.cursor ? (JSON.parse(request.cursor) as Progress) : {};
    const owner = `user:${request.user}`;
    for (const { binding, db } of allShards(env)) {
      while (progress[binding] !== true && !spent()) {
        const after = typeof progress[binding] === "string" ? (progress[binding] as string) : "";
        const limit = budget - records;
        const rows = await ownerRowsAfter(db, owner, after, limit);
        for (const row of rows) await eraseRecord(env, row);
        records += rows.length;
        queries++;
        progress[binding] = rows.length < limit ? true : rows[rows.length - 1]!.tid;
      }
    }
    let finished = allShards(env).every(({ binding }) => progress[binding] === true);
    if (finished) {
      for (const store of storesErasedBy("cron")) {
        const key = `store:${store.name}`;
        if (progress[key] === true) continue;
        const [erase] = implementations([store], CRON_ERASERS);
        const at = progress[key];
        progress[key] = await erase!(env, request.user, now, typeof at === "string" ? at : undefined);
        finished = progress[key] === true && finished;
      }
    }
    if (finished) done++;
    queries++;
    await env.DB.prepare("UPDATE erasures SET cursor = ?1, done_at = ?2 WHERE user = ?3 AND requested_at <= ?4")
      .bind(JSON.stringify(progress), finished ? now : null, request.user, now)
      .run();
  }
  if (open.length > 0) log("info", "erasure_run", { now, records, requests_done: done, requests_open: open.length - done });
  return { records, done };
}

/**
 * Deletes up to `limit` done requests made before `before` (retention's
 * step: src/cron/retention.ts). The table holds the requests of about a month, so
 * the scan is short; a request still open is never deleted.
 */
export async function deleteDoneErasures(db: D1Database, before: number, limit: number): Promise<number> {
  const { meta } = await db
    .prepare("DELETE FROM erasures WHERE user IN (SELECT user FROM erasures WHERE done_at IS NOT NULL AND requested_at < ?1 LIMIT ?2)")
    .bind(before, limit)
    .run();
  return meta.changes;
}
