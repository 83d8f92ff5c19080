/**
 * Retention (src/cron/retention.ts): the tid index's replay window (decided when a
 * retry comes, by the row's own time) and deletion, the event log's windows,
 * and the bounds of one run. Each window
 * is tested just inside and just outside, by giving the run its clock: the
 * Cron Trigger's scheduledTime (exports.default.scheduled, as the runtime
 * fires it) or `now` (the functions called directly).
 */
import { createExecutionContext, createScheduledController, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { ulid } from "ulid";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DAY_MS, RETENTION_DEFAULTS, retentionPolicy } from "../../src/config/retention-policy";
import { runRetention } from "../../src/cron/retention";
import { tidShards } from "../../src/d1/shards";
import { markPendingAgain, recordDeadLettered, recordDeliveries, recordEvents } from "../../src/events/log-database";
import production from "../../src/index";
import { clock } from "../../src/shared/clock";
import { claimTid, deleteLateTids, expireTid, findTid, fingerprint, pruneTids, upstreamTidFor } from "../../src/tids/tid-index";
import { eventDb, eventRow, makeEvent, newRecordId } from "../events";
import { call, expectError, expectStatus, letTimePass, newTid, newUser, receiptRequest, sandboxCalls, tidDb, tidRow, userToken } from "../helpers";

const PARTNER = "partner:partner";
const policy = retentionPolicy(env);

/** The loopback's type declares fetch only; the runtime serves scheduled() on it too. */
type ScheduledLoopback = { scheduled(options: { scheduledTime: Date; cron: string }): Promise<unknown> };

/**
 * Fires the Worker's Cron Trigger as the runtime does, at `at`: scheduled() of
 * the Worker's default export, with `at` as the controller's scheduledTime.
 * (The plugin's loopback answers no FetcherScheduledResult, so each test
 * checks the run by what it did.)
 */
async function cron(at: number): Promise<void> {
  // The cron fires at the time it is: the gateway's clock is there too (what a data center remembers
  // of a tid, src/tids/tid-cache.ts, is believed by that clock).
  letTimeReach(at);
  await (exports.default as unknown as ScheduledLoopback).scheduled({ scheduledTime: new Date(at), cron: "* * * * *" });
}

const createCalls = async (tid: string) => (await sandboxCalls()).filter((c) => c.path === "receipt/create" && c.tid === tid);

/** When the create of (owner, tid) was answered: the clock every window of its row counts from. */
async function answeredAt(owner: string, tid: string): Promise<number> {
  const row = await tidRow(owner, tid);
  expect(row?.status).toBe("completed");
  return row!.updated_at;
}

/** How many receipts the sandbox (the upstream) holds under an upstream tid. */
async function upstreamReceiptsWithTid(upstreamTid: string): Promise<number> {
  return runInDurableObject(
    env.SANDBOX!.get(env.SANDBOX!.idFromName("sandbox")),
    (_instance, state) => state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM receipts WHERE tid = ?", upstreamTid).one().n,
  );
}

afterEach(() => vi.restoreAllMocks());

describe("the policy", () => {
  it("defaults: replay 7 days, tid rows 90, delivered events 7, undelivered 90, final records 30; 1000 rows x 5 rounds per run", () => {
    expect(RETENTION_DEFAULTS).toMatchObject({
      replayDays: 7,
      tidRetentionDays: 90,
      deliveredEventsDays: 7,
      undeliveredEventsDays: 90,
      recordRetentionDays: 30,
    });
    // wrangler.toml sets the same values, local and production.
    expect(policy).toEqual({
      replayMs: 7 * DAY_MS,
      tidRetentionMs: 90 * DAY_MS,
      deliveredEventsMs: 7 * DAY_MS,
      undeliveredEventsMs: 90 * DAY_MS,
      recordRetentionMs: 30 * DAY_MS,
      batchSize: 1000,
      rounds: 5,
    });
  });

  it("an unreadable value takes its default; a retention shorter than the window it follows is raised to it", () => {
    const configured = (vars: Record<string, string>) => retentionPolicy({ ...env, ...vars } as unknown as Env);
    expect(configured({ TID_REPLAY_DAYS: "seven", RETENTION_BATCH_SIZE: "-3", RETENTION_ROUNDS: "" })).toMatchObject({
      replayMs: 7 * DAY_MS,
      batchSize: 1000,
      rounds: 5,
    });
    expect(configured({ TID_REPLAY_DAYS: "14", TID_RETENTION_DAYS: "3" }).tidRetentionMs).toBe(14 * DAY_MS);
    expect(configured({ EVENTS_DELIVERED_RETENTION_DAYS: "60", EVENTS_UNDELIVERED_RETENTION_DAYS: "10" }).undeliveredEventsMs).toBe(60 * DAY_MS);
    expect(configured({ TID_REPLAY_DAYS: "0.5" }).replayMs).toBe(DAY_MS / 2);
  });
});

/** The gateway's clock moved to `at` (never backwards). */
const letTimeReach = (at: number) => letTimePass(Math.max(0, at - clock.now()));

describe("the replay window (the gateway's clock, by the row's time)", () => {
  it("inside it an identical retry is replayed by the record; just outside, the retry names the receipt instead", async () => {
    const request = receiptRequest();
    const created = await expectStatus(call("receipt/create", request), 200);
    const answered = await answeredAt(PARTNER, request.tid);
    const row = await tidRow(PARTNER, request.tid);
    // The row keeps no answer: what identifies the tid and its receipt, the claim token gone once completed.
    expect(row).toMatchObject({ status: "completed", claim_token: null, receipt_id: created.id, kind: "receipt", upstream_tid: request.tid });
    expect(row!.fingerprint).toMatch(/^[0-9a-f]{32}$/);

    // A second inside the window (the clock moves on while the request runs).
    letTimeReach(answered + policy.replayMs - 1000);
    const inside = await call("receipt/create", request);
    expect(inside.headers.get("idempotent-replayed")).toBe("true");
    expect(await expectStatus(inside, 200)).toEqual(created);

    letTimeReach(answered + policy.replayMs + 1);
    expect(await tidRow(PARTNER, request.tid)).toEqual(row);

    const identical = await call("receipt/create", request);
    expect(identical.headers.get("idempotent-replayed")).toBeNull();
    const error = await expectError(identical, 409, "tid_conflict");
    expect(error.message).toContain(created.id);
    expect(error.message).toMatch(/no longer kept.*check-id or check-tid/);
    // Another body with the tid is a conflict that names the caller's own receipt (check-tid answers it to them anyway).
    const other = await expectError(call("receipt/create", { ...request, amount: request.amount + 1 }), 409, "tid_conflict");
    expect(other.message).toContain(`${created.id} with another body`);

    // check-tid keeps working past the replay window.
    expect((await expectStatus(call("receipt/check-tid", { tid: request.tid }), 200)).id).toBe(created.id);
    expect(await createCalls(request.tid)).toHaveLength(1);
  });

  it("a transfer's tid past the window points at a2c/get-by-id", async () => {
    const tid = newTid("a2c");
    const transfer = { tid, amount: 500_000, rate_id: 1, receiver_card: "9860000000000018", token: "tok_sandbox_ok" };
    const created = await expectStatus(call("a2c/create", transfer), 200);
    letTimeReach((await answeredAt(PARTNER, tid)) + policy.replayMs + 1);
    const error = await expectError(call("a2c/create", transfer), 409, "tid_conflict");
    expect(error.message).toContain(created.receipt_id);
    expect(error.message).toContain("a2c/get-by-id");
    expect(error.message).not.toContain("9860000000000018");
  });
});

describe("the retention window (the Cron Trigger)", () => {
  it("just inside it the row still blocks; just outside it is deleted and the upstream's TID_DUPLICATE answers tid_conflict", async () => {
    const request = receiptRequest();
    const created = await expectStatus(call("receipt/create", request), 200);
    const answered = await answeredAt(PARTNER, request.tid);

    // Past the replay window by the gateway's clock, inside the retention window: the retry is refused, not replayed.
    letTimeReach(answered + policy.replayMs + 1);
    await expectError(call("receipt/create", request), 409, "tid_conflict");
    await expectError(call("receipt/create", { ...request, amount: request.amount + 1 }), 409, "tid_conflict");
    expect(await createCalls(request.tid)).toHaveLength(1);

    await cron(answered + policy.tidRetentionMs);
    // Read at the run's instant: the gateway's clock runs on, and a read past the window finds nothing.
    const kept = await findTid(await tidDb(PARTNER, request.tid), PARTNER, request.tid, policy.tidRetentionMs, answered + policy.tidRetentionMs);
    expect(kept).toMatchObject({ status: "completed", receipt_id: created.id });

    await cron(answered + policy.tidRetentionMs + 1);
    expect(await tidRow(PARTNER, request.tid)).toBeNull();
    await expectError(call("receipt/check-tid", { tid: request.tid }), 404, "receipt_not_found");

    // The same request again now reaches the upstream, which refuses the tid: a conflict, never
    // a 5xx, never the old receipt adopted as if this create had made it.
    const error = await expectError(call("receipt/create", request), 409, "tid_conflict");
    expect(error.upstream_code).toBe("TID_DUPLICATE");
    expect(error.message).not.toContain(created.id);
    const calls = await createCalls(request.tid);
    expect(calls.map((c) => [c.status, c.code])).toEqual([
      [200, null],
      [409, "TID_DUPLICATE"],
    ]);
    expect(await upstreamReceiptsWithTid(request.tid)).toBe(1);
    // The refused create freed its claim: no pending row, and the next try is the same conflict, not tid_in_progress.
    expect(await tidRow(PARTNER, request.tid)).toBeNull();
    await expectError(call("receipt/create", { ...request, amount: request.amount + 1 }), 409, "tid_conflict");
    expect(await createCalls(request.tid)).toHaveLength(3);
    expect(await upstreamReceiptsWithTid(request.tid)).toBe(1);
  });

  it("a user's deleted tid: the derived upstream tid is refused upstream, the user gets tid_conflict and no receipt", async () => {
    const user = newUser();
    const token = await userToken(user);
    const request = receiptRequest();
    const owner = `user:${user}`;
    await expectStatus(call("receipt/create", request, { token }), 200);
    const upstreamTid = await upstreamTidFor(env.TID_SECRET, owner, request.tid);

    await cron((await answeredAt(owner, request.tid)) + policy.tidRetentionMs + 1);
    expect(await tidRow(owner, request.tid)).toBeNull();

    await expectError(call("receipt/create", request, { token }), 409, "tid_conflict");
    expect(await upstreamReceiptsWithTid(upstreamTid)).toBe(1);
    expect(await tidRow(owner, request.tid)).toBeNull();
  });
});

async function claimRequest(tid: string) {
  return {
    owner: PARTNER,
    tid,
    upstreamTid: tid,
    kind: "receipt" as const,
    fingerprint: await fingerprint(env.TID_SECRET, { kind: "receipt", request: { tid } }),
    leaseMs: 30_000,
  };
}

describe("the production entry", () => {
  it("runs retention on its scheduled() with the controller's scheduledTime as the clock", async () => {
    const prefix = newTid("production-");
    const epoch = Date.UTC(2006, 0, 1);
    await seedCompleted(prefix, 2, epoch);
    const fire = async (at: number) => {
      const ctx = createExecutionContext();
      await production.scheduled(createScheduledController({ scheduledTime: at, cron: "* * * * *" }), env, ctx);
      await waitOnExecutionContext(ctx);
    };
    // Rows answered at epoch + 1 and epoch + 2: at epoch + retention + 1 both are inside the window.
    await fire(epoch + policy.tidRetentionMs + 1);
    expect(await countSeeded(prefix)).toBe(2);
    await fire(epoch + policy.tidRetentionMs + 2);
    expect(await countSeeded(prefix)).toBe(1);
  });
});

describe("pending claims", () => {
  it("are never deleted, however old: their lease decides", async () => {
    const now = Date.now();
    const old = newTid("pending-old");
    const abandoned = newTid("pending-unknown");
    const a = await claimTid(await tidDb(PARTNER, old), await claimRequest(old), now - 400 * DAY_MS);
    const b = await claimTid(await tidDb(PARTNER, abandoned), await claimRequest(abandoned), now - 400 * DAY_MS);
    if (a.kind !== "claimed" || b.kind !== "claimed") throw new Error("not claimed");
    // An outcome known to be unknown: pending, lease over at once (updated_at 0).
    await expireTid(await tidDb(PARTNER, abandoned), { owner: PARTNER, tid: abandoned, token: b.token });
    const before = [await tidRow(PARTNER, old), await tidRow(PARTNER, abandoned)];

    await cron(now);
    await runRetention(env, now + 1000 * DAY_MS);
    for (const { db } of tidShards(env)) {
      expect((await pruneTids(db, 0, 100, now + 1000 * DAY_MS)).removed).toBe(0);
      expect(await deleteLateTids(db, 0, 100, now + 1000 * DAY_MS)).toBe(0);
    }

    expect([await tidRow(PARTNER, old), await tidRow(PARTNER, abandoned)]).toEqual(before);
    expect(before.map((row) => row?.status)).toEqual(["pending", "pending"]);
  });
});

/**
 * Completed rows answered at `at` (an epoch of the test's own, long before
 * any other test's rows), written straight into the index in one statement.
 */
async function seedCompleted(prefix: string, count: number, at: number): Promise<void> {
  await env.DB.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?2)
     INSERT INTO tid_index (owner, tid, upstream_tid, kind, status, fingerprint, claim_token, receipt_id, created_at, updated_at)
     SELECT 'partner:partner', ?1 || i, NULL, 0, 1, randomblob(16), NULL, 'rcpt-' || i, ?3, ?3 + i FROM n`,
  )
    .bind(prefix, count, at)
    .run();
}

async function countSeeded(prefix: string, where = "1"): Promise<number> {
  const row = await env.DB.prepare(`SELECT COUNT(*) AS n FROM tid_index WHERE tid LIKE ?1 || '%' AND ${where}`).bind(prefix).first<{ n: number }>();
  return row!.n;
}

describe("bounded batches", () => {
  it("one cron run deletes at most batch x rounds rows (5000) of a step; the next run continues", async () => {
    const prefix = newTid("bulk-");
    const epoch = Date.UTC(2001, 0, 1);
    await seedCompleted(prefix, 5003, epoch);
    const due = epoch + 5003 + policy.tidRetentionMs + 1;

    await cron(due);
    // 5000 deleted, oldest first; the 3 newest wait for the next run.
    expect(await countSeeded(prefix)).toBe(3);
    expect(await countSeeded(prefix, `updated_at > ${epoch + 5000}`)).toBe(3);
    await cron(due);
    expect(await countSeeded(prefix)).toBe(0);
  });

  it("called directly: each statement takes at most its limit, oldest first, and a run reports its backlog", async () => {
    const prefix = newTid("batch-");
    const epoch = Date.UTC(2002, 0, 1);
    await seedCompleted(prefix, 7, epoch);
    // Rows answered at epoch + 1 .. epoch + 7; just inside the retention window of the newest row, it alone stays.
    const deleteAt = epoch + 7 + policy.tidRetentionMs;
    expect(await pruneTids(env.DB, policy.tidRetentionMs, 3, deleteAt)).toEqual({ removed: 3, more: true });
    expect(await countSeeded(prefix)).toBe(4);
    expect(await countSeeded(prefix, "tid IN (?1 || 1, ?1 || 2, ?1 || 3)")).toBe(0);

    const small = { ...policy, batchSize: 2, rounds: 1 };
    const log = vi.spyOn(console, "log");
    const first = await runRetention(env, deleteAt, small);
    expect(first).toMatchObject({ tids_deleted: 2, backlog: true });
    const second = await runRetention(env, deleteAt, small);
    expect(second).toMatchObject({ tids_deleted: 1, backlog: false });
    expect(await countSeeded(prefix)).toBe(1);

    // One structured line per run, with the counts.
    const lines = log.mock.calls.map(([line]) => JSON.parse(String(line))).filter((line) => line.event === "retention_run");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ level: "info", now: deleteAt, tids_deleted: 2, backlog: true, bound_per_step: 2 });
  });

  it("uses the indexes made for it: each batch is a range scan, never a scan of the table", async () => {
    // The tid index's statements as the steps run them, each planned instead of run.
    const plans: string[] = [];
    const planning = new Proxy(env.DB, {
      get(target, key) {
        if (key === "prepare")
          return (sql: string) => {
            const statement = { sql, values: [] as unknown[], bind: (...values: unknown[]) => Object.assign(statement, { values }) };
            return statement;
          };
        if (key === "batch")
          return async (statements: { sql: string; values: unknown[] }[]) => {
            for (const { sql, values } of statements) {
              const { results } = await target
                .prepare(`EXPLAIN QUERY PLAN ${sql}`)
                .bind(...values)
                .all<{ detail: string }>();
              plans.push(results.map((r) => r.detail).join(" | "));
            }
            return statements.map(() => ({ results: [{ n: 0 }], meta: { changes: 0 } }));
          };
        return Reflect.get(target, key);
      },
    }) as D1Database;
    await pruneTids(planning, policy.tidRetentionMs, 10, Date.now());
    await deleteLateTids(planning, policy.tidRetentionMs, 10, Date.now());
    // The walk reads the rows after its cursor by rowid, and the table's last rowid; the late rows by tid_index_late.
    expect(plans[0]).toContain("SEARCH tid_index USING INTEGER PRIMARY KEY (rowid>?)");
    expect(plans[1]).toMatch(/^SEARCH tid_index USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)/);
    expect(plans[2]).toMatch(/^SEARCH tid_index USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)/);
    expect(plans[4]).toMatch(/USING (COVERING )?INDEX tid_index_late \(updated_at<\?\)/);
    expect(plans).toHaveLength(6);
    for (const line of plans) expect(line).not.toMatch(/SCAN tid_index/);
    const events = (
      await env.DB.prepare("EXPLAIN QUERY PLAN SELECT id FROM events WHERE watched = 1 AND status = ?1 AND id < ?2 ORDER BY id LIMIT ?3")
        .bind(1, "evt_", 10)
        .all<{ detail: string }>()
    ).results
      .map((r) => r.detail)
      .join(" | ");
    expect(events).toMatch(/USING (COVERING )?INDEX events_watched \(status=\? AND id<\?\)/);
  });
});

describe("a failing step", () => {
  it("does not stop the others; the run logs an error line and throws, so the cron invocation shows as failed", async () => {
    const epoch = Date.UTC(2005, 0, 1);
    const prefix = newTid("failing-");
    await seedCompleted(prefix, 2, epoch);
    // A database whose event log cannot be written: every statement on `events` fails.
    const db = new Proxy(env.DB, {
      get(target, key) {
        if (key === "prepare") {
          return (sql: string) => {
            if (sql.includes("FROM events")) throw new Error("D1_ERROR: no such table: events");
            return target.prepare(sql);
          };
        }
        const value = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const error = vi.spyOn(console, "error");
    await expect(runRetention({ ...env, DB: db } as Env, epoch + policy.tidRetentionMs + 10)).rejects.toThrow(/events_delivered_pruned/);
    expect(await countSeeded(prefix)).toBe(0);
    const line = JSON.parse(String(error.mock.calls.at(-1)?.[0]));
    expect(line).toMatchObject({ level: "error", event: "retention_run" });
    // The seeded two, and any older row an earlier test left.
    expect(line.tids_deleted).toBeGreaterThanOrEqual(2);
    expect(line.failed_steps).toEqual([
      "events_delivered_pruned:DB",
      "events_watched_delivered_pruned:DB",
      "events_failed_pruned:DB",
      "events_pending_pruned:DB",
      "event_slots_emptied:DB",
    ]);
  });
});

describe("the event log", () => {
  /** Events created at `at` (an epoch of the test's own), logged as publishEvents logs them. */
  async function logEventsAt(at: number, count: number) {
    const events = Array.from({ length: count }, () => ({ ...makeEvent(newRecordId()), id: `evt_${ulid(at)}`, created: at }));
    await recordEvents(env.DB, events);
    return events.map((event) => event.id);
  }
  const exists = async (ids: string[]) => Promise.all(ids.map(async (id) => (await eventRow(id)) !== null));

  it("delivered events go after their window; failed and unsettled ones are kept for the longer one", async () => {
    const epoch = Date.UTC(2003, 0, 1);
    const [delivered, failed, pending] = [await logEventsAt(epoch, 2), await logEventsAt(epoch, 2), await logEventsAt(epoch, 1)];
    for (const id of delivered) await recordDeliveries(await eventDb(id), [{ id, status: 204, at: epoch + 1000 }]);
    await recordDeadLettered(env.DB, failed);

    await cron(epoch + policy.deliveredEventsMs);
    expect(await exists([...delivered, ...failed, ...pending])).toEqual([true, true, true, true, true]);

    await cron(epoch + policy.deliveredEventsMs + 1);
    expect(await exists(delivered)).toEqual([false, false]);
    expect(await exists([...failed, ...pending])).toEqual([true, true, true]);
    expect((await eventRow(failed[0]!))?.delivery_status).toBe("failed");

    await cron(epoch + policy.undeliveredEventsMs);
    expect(await exists([...failed, ...pending])).toEqual([true, true, true]);
    await cron(epoch + policy.undeliveredEventsMs + 1);
    expect(await exists([...failed, ...pending])).toEqual([false, false, false]);
  });

  it("an event resent and not yet delivered again is not pruned as delivered", async () => {
    const epoch = Date.UTC(2004, 0, 1);
    const [id] = await logEventsAt(epoch, 1);
    await recordDeliveries(await eventDb(id!), [{ id: id!, status: 200, at: epoch + 1 }]);
    await markPendingAgain(await eventDb(id!), id!);
    await runRetention(env, epoch + policy.deliveredEventsMs + 1);
    expect(await exists([id!])).toEqual([true]);
  });
});

/** A completed row of the partner's, claimed at `created` and answered at `updated`, written straight into the index (or a pending claim). */
async function seedRow(tid: string, created: number, updated: number, status: 0 | 1 = 1): Promise<void> {
  await env.DB.prepare(
    `INSERT INTO tid_index (owner, tid, upstream_tid, kind, status, fingerprint, claim_token, receipt_id, created_at, updated_at)
     VALUES ('partner:partner', ?1, NULL, 0, ?2, randomblob(16), ?3, ?4, ?5, ?6)`,
  )
    .bind(tid, status, status === 1 ? null : "token", status === 1 ? `rcpt-${tid}` : null, created, updated)
    .run();
}

/** Whether the first database (where seedRow writes) still holds each of these tids. */
const stored = async (tids: string[]) =>
  Promise.all(tids.map(async (tid) => (await env.DB.prepare("SELECT 1 FROM tid_index WHERE tid = ?1").bind(tid).first()) !== null));

/**
 * Retention's walk of the tid index by rowid (src/tids/tid-index.ts pruneTids): rows are claimed in time
 * order, so each test's rows are claimed after every earlier test's, at epochs of their own later than any.
 */
describe("the walk by rowid", () => {
  it("passes a row answered long after its claim (a takeover), which is deleted when its own window ends, not before", async () => {
    const epoch = Date.UTC(2100, 0, 1);
    const late = newTid("late-");
    await seedRow(late, epoch, epoch + 2 * DAY_MS);
    const after = [newTid("after-late-"), newTid("after-late-")];
    for (const [i, tid] of after.entries()) await seedRow(tid, epoch + 1 + i, epoch + 100 + i);

    // The rows claimed after it are due: the walk does not wait for the late one.
    await cron(epoch + policy.tidRetentionMs + 1000);
    expect(await stored([late, ...after])).toEqual([true, false, false]);
    await cron(epoch + 2 * DAY_MS + policy.tidRetentionMs);
    expect(await stored([late])).toEqual([true]);
    await cron(epoch + 2 * DAY_MS + policy.tidRetentionMs + 1);
    expect(await stored([late])).toEqual([false]);
  });

  it("passes a pending claim, which, completed long after, is deleted when its window ends", async () => {
    const epoch = Date.UTC(2101, 0, 1);
    const tid = newTid("passed-pending-");
    await seedRow(tid, epoch, epoch, 0);
    const passedAt = epoch + policy.tidRetentionMs + 10;
    await cron(passedAt);
    expect(await stored([tid])).toEqual([true]);
    // A takeover answered now: its window counts from now.
    await env.DB.prepare("UPDATE tid_index SET status = 1, claim_token = NULL, receipt_id = 'rcpt-x', updated_at = ?2 WHERE tid = ?1")
      .bind(tid, passedAt + 20)
      .run();
    await cron(passedAt + 20 + policy.tidRetentionMs);
    expect(await stored([tid])).toEqual([true]);
    await cron(passedAt + 20 + policy.tidRetentionMs + 1);
    expect(await stored([tid])).toEqual([false]);
  });

  it("waits at a row answered within the hour of its claim until it is due, so that none is passed and kept", async () => {
    const epoch = Date.UTC(2102, 0, 1);
    const slow = newTid("slow-");
    const next = newTid("next-");
    // Answered 30 minutes after its claim (the record's alarm completing it): in no index but the table's.
    await seedRow(slow, epoch, epoch + 30 * 60_000);
    await seedRow(next, epoch + 1, epoch + 2);
    await cron(epoch + 2 + policy.tidRetentionMs + 1);
    expect(await stored([slow])).toEqual([true]);
    await cron(epoch + 30 * 60_000 + policy.tidRetentionMs + 1);
    expect(await stored([slow, next])).toEqual([false, false]);
  });

  it("writes its cursor when it moves, and nothing at all in a run with nothing to pass or delete", async () => {
    const epoch = Date.UTC(2104, 0, 1);
    const tids = [newTid("cursor-"), newTid("cursor-")];
    for (const [i, tid] of tids.entries()) await seedRow(tid, epoch + i, epoch + i + 1);
    let written = 0;
    const metered = new Proxy(env.DB, {
      get(target, key) {
        if (key === "batch")
          return async (statements: D1PreparedStatement[]) => {
            const results = await target.batch(statements);
            for (const result of results) written += result.meta.rows_written ?? 0;
            return results;
          };
        const value = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const at = epoch + 10 + policy.tidRetentionMs;
    // The two rows deleted and the cursor moved over them, and back to the table's last row (these were the last).
    expect(await pruneTids(metered, policy.tidRetentionMs, 100, at)).toEqual({ removed: 2, more: false });
    expect(written).toBe(4);
    // Then the cursor settles; then nothing.
    await pruneTids(metered, policy.tidRetentionMs, 100, at);
    written = 0;
    expect(await pruneTids(metered, policy.tidRetentionMs, 100, at)).toEqual({ removed: 0, more: false });
    expect(written).toBe(0);
  });

  it("reaches a row given a rowid again after the table's last rows were deleted", async () => {
    const epoch = Date.UTC(2103, 0, 1);
    const first = [newTid("last-"), newTid("last-")];
    for (const [i, tid] of first.entries()) await seedRow(tid, epoch + i, epoch + i + 1);
    await cron(epoch + 10 + policy.tidRetentionMs);
    expect(await stored(first)).toEqual([false, false]);
    // SQLite gives the next row the largest rowid left plus one: one the walk has passed already.
    const again = newTid("again-");
    await seedRow(again, epoch + 20, epoch + 21);
    await cron(epoch + 30 + policy.tidRetentionMs);
    expect(await stored([again])).toEqual([false]);
  });
});
