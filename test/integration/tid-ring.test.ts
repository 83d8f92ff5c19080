/**
 * The tid index's ring of slots (src/tids/tid-index.ts, src/d1/ring.ts): a
 * row is found, refused, completed, released and expired in whichever slot
 * holds it; the cron empties a slot whole, moving first the rows still
 * within their window, and the drop writes no row. What a caller sees is
 * checked through the Worker (create, check-tid, the Cron Trigger).
 */
import { env, exports } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { retentionPolicy } from "../../src/config/retention-policy";
import { slotAt, slotPeriodMs, slotToEmpty } from "../../src/d1/ring";
import { clock } from "../../src/shared/clock";
import { forgetTid } from "../../src/tids/tid-cache";
import {
  claimTid,
  completeTid,
  expireTid,
  FENCE_TOKEN,
  fingerprint,
  ownerRowsAfter,
  releaseTid,
  TID_SLOTS,
  TID_TABLES,
  tidSlotEmptying,
} from "../../src/tids/tid-index";
import { call, expectError, expectStatus, letTimePass, newTid, receiptRequest, sandboxCalls, tidDb } from "../helpers";

const PARTNER = "partner:partner";
const policy = retentionPolicy(env);
const W = policy.tidRetentionMs;
const P = slotPeriodMs(W);

type ScheduledLoopback = { scheduled(options: { scheduledTime: Date; cron: string }): Promise<unknown> };
const letTimeReach = (at: number) => letTimePass(Math.max(0, at - clock.now()));

/** The Cron Trigger at `at`, as the runtime fires it; the gateway's clock is there too. */
async function cron(at: number): Promise<void> {
  letTimeReach(at);
  await (exports.default as unknown as ScheduledLoopback).scheduled({ scheduledTime: new Date(at), cron: "* * * * *" });
}

/** The tables of (owner, tid)'s database that hold a row of it. */
async function whereIs(owner: string, tid: string): Promise<string[]> {
  const db = await tidDb(owner, tid);
  const found: string[] = [];
  for (const table of TID_TABLES)
    if (await db.prepare(`SELECT 1 FROM ${table} WHERE owner = ?1 AND tid = ?2`).bind(owner, tid).first()) found.push(table);
  return found;
}

/** A row put straight into a table of (owner, tid)'s database, as the code writes one. */
async function putRow(
  table: string,
  tid: string,
  row: { status: 0 | 1; claim_token: string | null; receipt_id: string | null; created_at: number; updated_at: number },
): Promise<void> {
  const db = await tidDb(PARTNER, tid);
  await db
    .prepare(
      `INSERT INTO ${table} (owner, tid, upstream_tid, kind, status, fingerprint, claim_token, receipt_id, created_at, updated_at)
       VALUES (?1, ?2, NULL, 0, ?3, randomblob(16), ?4, ?5, ?6, ?7)`,
    )
    .bind(PARTNER, tid, row.status, row.claim_token, row.receipt_id, row.created_at, row.updated_at)
    .run();
}

const createCalls = async (tid: string) => (await sandboxCalls()).filter((c) => c.path === "receipt/create" && c.tid === tid);

/** A time a little after now at which the cron empties slot `victim`'s turn: the start of the period before the one writing there. */
function timeEmptying(victim: number): number {
  let at = (Math.floor(clock.now() / P) + 1) * P + 1000;
  while (slotToEmpty(at, P) !== victim) at += P;
  return at;
}

afterEach(() => vi.restoreAllMocks());

describe("the tid index's ring of slots", () => {
  it("a tid claimed in one slot is refused when repeated after the ring has moved on, and check-tid finds it", async () => {
    // From a period that writes to the last slot, one create a period: five slots, none of them the one written at the end.
    let start = (Math.floor(clock.now() / P) + 1) * P + 1000;
    while (slotAt(start, P) !== TID_SLOTS.length - 1) start += P;
    letTimeReach(start);
    const created: { request: ReturnType<typeof receiptRequest>; id: string; slot: number }[] = [];
    for (let i = 0; i < 5; i++) {
      const request = receiptRequest();
      const { id } = await expectStatus(call("receipt/create", request), 200);
      created.push({ request, id, slot: slotAt(clock.now(), P) });
      letTimePass(P);
    }
    for (const { request, id, slot } of created) {
      // Another data center: nothing remembered there (src/tids/tid-cache.ts), the tid index answers.
      await forgetTid(PARTNER, request.tid);
      expect(await whereIs(PARTNER, request.tid), request.tid).toEqual([TID_SLOTS[slot]]);
      expect(slot).not.toBe(slotAt(clock.now(), P));
      await expectError(call("receipt/create", { ...request, amount: request.amount + 1 }), 409, "tid_conflict");
      expect((await expectStatus(call("receipt/check-tid", { tid: request.tid }), 200)).id).toBe(id);
    }
    // Nothing but the first creates reached the upstream.
    for (const { request } of created) expect(await createCalls(request.tid)).toHaveLength(1);
  });

  it("a claim racing the emptying of its slot never loses its row: written just before the batch, it is moved, and completed where it is", async () => {
    const at = timeEmptying(2);
    // A Worker whose clock is already in the next period claims in the slot the cron is about to empty.
    const ahead = (Math.floor(at / P) + 1) * P + 10;
    expect(slotAt(ahead, P)).toBe(2);
    const request = receiptRequest();
    const db = await tidDb(PARTNER, request.tid);
    const claim = await claimTid(
      db,
      {
        owner: PARTNER,
        tid: request.tid,
        upstreamTid: request.tid,
        kind: "receipt",
        fingerprint: await fingerprint(env.TID_SECRET, request),
        leaseMs: 60_000,
        windowMs: W,
      },
      ahead,
    );
    expect(claim.kind).toBe("claimed");
    expect(await whereIs(PARTNER, request.tid)).toEqual([TID_SLOTS[2]]);

    await cron(at);
    expect(await whereIs(PARTNER, request.tid)).toEqual([TID_SLOTS[slotAt(at, P)]]);
    const token = claim.kind === "claimed" ? claim.token : "";
    expect(await completeTid(db, { owner: PARTNER, tid: request.tid, token }, "rcpt-raced", ahead + 1000)).toBe(true);
    await expectError(call("receipt/create", { ...request, amount: request.amount + 1 }), 409, "tid_conflict");
  });

  it("the emptying of a slot moves the rows still within their window (answered late, a fence, a pending claim): each still refuses its tid; a row past it goes", async () => {
    const at = timeEmptying(3);
    const victim = TID_SLOTS[3]!;
    const current = TID_SLOTS[slotAt(at, P)]!;
    // Rows the victim took RING_SLOTS - 1 periods before: one answered late (inside the window), a fence and a
    // pending claim (within theirs), and one answered past the window.
    const took = at - 7 * P;
    const late = newTid("late");
    const fence = newTid("fence");
    const pending = newTid("pending");
    const past = newTid("past");
    await putRow(victim, late, { status: 1, claim_token: null, receipt_id: "rcpt-late", created_at: took, updated_at: at - 86_400_000 });
    await putRow(victim, fence, {
      status: 0,
      claim_token: FENCE_TOKEN,
      receipt_id: null,
      created_at: at - 5 * P,
      updated_at: Number.MAX_SAFE_INTEGER,
    });
    await putRow(victim, pending, { status: 0, claim_token: "a-claim", receipt_id: null, created_at: took, updated_at: took });
    await putRow(victim, past, { status: 1, claim_token: null, receipt_id: "rcpt-past", created_at: took, updated_at: at - W - 1 });

    await cron(at);

    for (const tid of [late, fence, pending]) expect(await whereIs(PARTNER, tid), tid).toEqual([current]);
    expect(await whereIs(PARTNER, past)).toEqual([]);
    // Each kept row still holds its tid: another request with it is refused, and nothing goes upstream.
    for (const tid of [late, fence, pending]) {
      await expectError(call("receipt/create", receiptRequest({ tid })), 409, "tid_conflict");
      expect(await createCalls(tid), tid).toHaveLength(0);
    }
    // The tid past its window is forgotten: its create goes upstream.
    await expectStatus(call("receipt/create", receiptRequest({ tid: past })), 200);
  });

  it("a row past its window blocks no claim while its slot is not yet emptied, and check-tid does not find it", async () => {
    const request = receiptRequest();
    const answered = clock.now();
    await putRow(TID_SLOTS[slotAt(answered, P)]!, request.tid, {
      status: 1,
      claim_token: null,
      receipt_id: "rcpt-forgotten",
      created_at: answered,
      updated_at: answered,
    });
    await expectError(call("receipt/create", receiptRequest({ tid: request.tid })), 409, "tid_conflict");

    letTimeReach(answered + W + 1);
    await expectError(call("receipt/check-tid", { tid: request.tid }), 404, "receipt_not_found");
    const created = await expectStatus(call("receipt/create", request), 200);
    expect((await expectStatus(call("receipt/check-tid", { tid: request.tid }), 200)).id).toBe(created.id);
  });

  it("the drop writes no row, and the next rows take the dropped slot's pages", async () => {
    const db = env.DB;
    const victim = TID_SLOTS[5]!;
    const other = TID_SLOTS[6]!;
    const fill = (table: string) =>
      db.batch(
        Array.from({ length: 400 }, (_, i) =>
          db
            .prepare(
              `INSERT INTO ${table} (owner, tid, upstream_tid, kind, status, fingerprint, claim_token, receipt_id, created_at, updated_at)
               VALUES ('partner:pages', ?1, NULL, 0, 1, randomblob(16), NULL, ?2, 1, 1)`,
            )
            .bind(`pages-${i}-${"x".repeat(100)}`, `rcpt-${"y".repeat(60)}-${i}`),
        ),
      );
    // D1 answers each statement with the database's size after it (meta.size_after).
    const sizeAfter = (results: D1Result[]) => results[results.length - 1]!.meta.size_after as number;
    try {
      const filled = sizeAfter(await fill(victim));
      const results = await db.batch(tidSlotEmptying(db, victim, TID_SLOTS[4]!, clock.now() - W));
      // Nothing was within its window (answered in 1970): nothing moved, and the drop wrote nothing.
      expect(results[0]!.meta.rows_written).toBe(0);
      expect(results[1]!.meta.rows_written).toBe(0);
      expect(await db.prepare(`SELECT COUNT(*) AS n FROM ${victim}`).first<{ n: number }>()).toEqual({ n: 0 });
      // As many rows again, in another slot: the dropped slot's free pages take them, the database does not grow.
      expect(sizeAfter(await fill(other))).toBeLessThanOrEqual(filled + 2 * 4096);
    } finally {
      await db.prepare(`DELETE FROM ${other} WHERE owner = 'partner:pages'`).run();
    }
  });

  it("a claim is completed, released and expired in whichever table holds it", async () => {
    const leaseMs = 60_000;
    for (const table of [TID_SLOTS[0]!, TID_SLOTS[7]!, "tid_index"]) {
      const claimOf = async () => {
        const request = receiptRequest();
        const db = await tidDb(PARTNER, request.tid);
        const req = { owner: PARTNER, tid: request.tid, upstreamTid: request.tid, kind: "receipt" as const, leaseMs, windowMs: W };
        const claim = await claimTid(db, { ...req, fingerprint: await fingerprint(env.TID_SECRET, request) });
        expect(claim.kind).toBe("claimed");
        const token = claim.kind === "claimed" ? claim.token : "";
        // Where the cron's emptying would have moved it.
        for (const from of TID_TABLES.filter((t) => t !== table)) {
          await db.batch([
            db
              .prepare(
                `INSERT INTO ${table} SELECT owner, tid, upstream_tid, kind, status, fingerprint, claim_token, receipt_id, created_at, updated_at FROM ${from} WHERE owner = ?1 AND tid = ?2`,
              )
              .bind(PARTNER, request.tid),
            db.prepare(`DELETE FROM ${from} WHERE owner = ?1 AND tid = ?2`).bind(PARTNER, request.tid),
          ]);
        }
        expect(await whereIs(PARTNER, request.tid)).toEqual([table]);
        await expectError(call("receipt/check-tid", { tid: request.tid }), 409, "tid_in_progress");
        return { request, db, held: { owner: PARTNER, tid: request.tid, token } };
      };

      const released = await claimOf();
      await releaseTid(released.db, released.held);
      expect(await whereIs(PARTNER, released.request.tid), table).toEqual([]);
      await expectError(call("receipt/check-tid", { tid: released.request.tid }), 404, "receipt_not_found");

      const expired = await claimOf();
      await expireTid(expired.db, expired.held);
      const error = await expectError(call("receipt/check-tid", { tid: expired.request.tid }), 404, "receipt_not_found");
      expect(error.message, table).toContain("did not finish");

      const completed = await claimOf();
      expect(await completeTid(completed.db, completed.held, "rcpt-done"), table).toBe(true);
      await expectError(call("receipt/create", { ...completed.request, amount: completed.request.amount + 1 }), 409, "tid_conflict");
    }
  });
});

describe("the erasure's walk over a user's rows, every table of the index", () => {
  it("reads about its limit from each table, merged in tid order, never the user's whole history", async () => {
    const db = env.DB;
    const owner = `user:walk-${crypto.randomUUID()}`;
    const tables = ["tid_index", TID_SLOTS[2]!, TID_SLOTS[6]!];
    await db.batch(
      tables.flatMap((table, t) =>
        Array.from({ length: 150 }, (_, i) =>
          db
            .prepare(
              `INSERT INTO ${table} (owner, tid, upstream_tid, kind, status, fingerprint, claim_token, receipt_id, created_at, updated_at)
               VALUES (?1, ?2, NULL, 0, 1, randomblob(16), NULL, ?3, 1, 1)`,
            )
            .bind(owner, `w-${String(i).padStart(4, "0")}-${t}`, `rcpt-${t}-${i}`),
        ),
      ),
    );
    let sql = "";
    const prepare = db.prepare.bind(db);
    vi.spyOn(db, "prepare").mockImplementation((text: string) => {
      if (text.includes("tid > ?2")) sql = text;
      return prepare(text);
    });
    try {
      const rows = await ownerRowsAfter(db, owner, "w-0010", 5);
      expect(rows.map((row) => row.tid)).toEqual(["w-0010-0", "w-0010-1", "w-0010-2", "w-0011-0", "w-0011-1"]);
      vi.restoreAllMocks();
      const { results: plan } = await db.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(owner, "w-0010", 5).all<{ detail: string }>();
      const details = plan.map((line) => line.detail).join("\n");
      expect(details).toContain("MERGE (UNION ALL)");
      expect(details).not.toMatch(/SCAN tid_index/);
      const read = await db.prepare(sql).bind(owner, "w-0010", 5).all();
      // 450 rows after the cursor; the statement reads a few from each of the nine tables.
      expect(read.meta.rows_read).toBeLessThan(60);
    } finally {
      vi.restoreAllMocks();
      for (const table of tables) await db.prepare(`DELETE FROM ${table} WHERE owner = ?1`).bind(owner).run();
    }
  });
});
