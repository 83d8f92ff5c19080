/**
 * Rule 10, "what retention removes frees its space for reuse", for
 * the tid index: a database filled with tid rows, emptied by retention past
 * TID_RETENTION_DAYS (the slot that took them dropped whole: src/d1/ring.ts)
 * and filled again as much does not grow. Measured as D1
 * reports it, in pages (`meta.size_after`: the database file, free pages
 * included), never after a VACUUM.
 *
 * The rows are claimed and completed by the functions a create runs
 * (src/tids/tid-index.ts), half the partner's and half users' (with a derived
 * upstream tid), in DB_TID_2, a database of its own; retention runs as the
 * cron runs it, with a retention window of a fraction of a day, and the
 * gateway's clock moved past it.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { retentionPolicy } from "../../src/config/retention-policy";
import { runRetention } from "../../src/cron/retention";
import { RING_SLOTS, slotPeriodMs } from "../../src/d1/ring";
import { clock } from "../../src/shared/clock";
import { claimTid, completeTid, fingerprint, TID_TABLES, upstreamTidFor } from "../../src/tids/tid-index";
import { letTimePass } from "../helpers";

const ROWS = 400;
/** TID_RETENTION_DAYS of this deployment: 0.001 day (86.4 s); the replay window below it. */
const deployment = { ...env, TID_REPLAY_DAYS: "0.0005", TID_RETENTION_DAYS: "0.001" } as Env;
const policy = retentionPolicy(deployment);
const shard = { binding: "DB_TID_2", db: env.DB_TID_2 };

/** The database's size as D1 reports it after a statement (meta.size_after): its pages, free ones included. */
async function databaseBytes(db: D1Database): Promise<number> {
  const { meta } = await db.prepare("SELECT 1").run();
  expect(meta.size_after).toBeGreaterThan(0);
  return meta.size_after;
}

/** `count` creates' rows, claimed and completed as a create does, at the gateway's clock. */
async function fill(label: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const owner = i % 2 === 0 ? "partner:partner" : `user:space-${i % 50}-${crypto.randomUUID()}`;
    const tid = `${label}-${crypto.randomUUID()}`;
    const claim = await claimTid(shard.db, {
      owner,
      tid,
      upstreamTid: await upstreamTidFor(env.TID_SECRET, owner, tid),
      kind: "receipt",
      fingerprint: await fingerprint(env.TID_SECRET, { kind: "receipt", request: { tid, amount: 150_000 } }),
      leaseMs: 30_000,
      windowMs: policy.tidRetentionMs,
    });
    if (claim.kind !== "claimed") throw new Error(`not claimed: ${claim.kind}`);
    await completeTid(shard.db, { owner, tid, token: claim.token }, crypto.randomUUID());
  }
}

/** Retention runs (as the cron does, on DB_TID_2) until nothing more is due; then the tid rows left, in every table. */
async function retainAll(): Promise<number> {
  for (;;) {
    const report = await runRetention(deployment, clock.now(), policy, [shard]);
    if (!report.backlog) break;
  }
  let left = 0;
  for (const table of TID_TABLES) left += (await shard.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).first<{ n: number }>())!.n;
  return left;
}

describe("the tid index's space (rule 10)", () => {
  it("rows deleted by retention past TID_RETENTION_DAYS free their pages: as many rows again do not grow the database", async () => {
    const empty = await databaseBytes(shard.db);
    await fill("first", ROWS);
    const full = await databaseBytes(shard.db);
    // Filling takes pages: a few hundred bytes a row.
    expect(full - empty).toBeGreaterThan(ROWS * 100);

    // Just inside the window nothing goes; past it, once the cron empties the slot that took them, every row does.
    // (The fill may have crossed into the next period's slot: each is emptied at its turn, one a period.)
    const period = slotPeriodMs(policy.tidRetentionMs);
    expect(await retainAll()).toBe(ROWS);
    letTimePass(policy.tidRetentionMs + 1);
    let left = ROWS;
    for (let turn = 0; turn < RING_SLOTS && left > 0; turn++, letTimePass(period)) left = await retainAll();
    expect(left).toBe(0);

    await fill("second", ROWS);
    const refilled = await databaseBytes(shard.db);
    // The second fill lives in the first's freed pages: the database is no bigger (a page or two of another shape at most).
    expect(refilled - full).toBeLessThanOrEqual(2 * 4096);
    console.log(JSON.stringify({ event: "tid_space", rows: ROWS, empty, full, refilled }));
  });
});
