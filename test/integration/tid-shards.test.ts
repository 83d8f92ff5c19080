/**
 * The tid index spread over several D1 databases (src/d1/shards.ts), as the
 * tests' [env.dev] configures it: TID_INDEX_SHARDS = "DB DB_TID_1". Each tid's
 * row is read from each binding directly, so a test fails if a row lands in
 * the wrong database or in both; each shard replays, conflicts and answers
 * check-tid; retention, the console and the guard cover every shard. The
 * event log is spread over the same databases by record id.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import { d1Bindings } from "../../src/config/config-rules";
import { DAY_MS, retentionPolicy } from "../../src/config/retention-policy";
import { latestRecords, recordView } from "../../src/console/data";
import { runRetention } from "../../src/cron/retention";
import { eventShardIndex, jumpHash, tidShardIndex, tidShards } from "../../src/d1/shards";
import { findEvent, newestEvents } from "../../src/events";
import { EVENT_TABLES } from "../../src/events/log-database";
import { forgetTid } from "../../src/tids/tid-cache";
import { findTid, type TidRow } from "../../src/tids/tid-index";
import { callGateway, consume, DEAD_LETTER_QUEUE, lifecycle, logRows, messageOf, publishKept, receiver, ringDropAt } from "../events";
import { call, expectError, expectStatus, newTid, newUser, receiptRequest, sandboxCalls, transferRequest, userToken } from "../helpers";

const PARTNER = "partner:partner";
const BINDINGS = ["DB", "DB_TID_1"] as const;
const databases = () => [env.DB, env.DB_TID_1];

/** A new tid whose (owner, tid) row belongs in shard `shard` of the two. */
async function tidIn(shard: number, owner: string, label = "shard"): Promise<string> {
  for (;;) {
    const tid = newTid(`${label}${shard}`);
    if ((await tidShardIndex(2, owner, tid)) === shard) return tid;
  }
}

/** (owner, tid)'s row in each database, read from each binding directly. */
const rowsIn = (owner: string, tid: string) => Promise.all(databases().map((db): Promise<TidRow | null> => findTid(db, owner, tid)));

/** An event's row in each database, read from each binding directly. */
const eventIn = (id: string) => Promise.all(databases().map((db) => findEvent(db, id)));

const createCalls = async (tid: string) => (await sandboxCalls()).filter((c) => c.path === "receipt/create" && c.tid === tid).length;

/** Sets an event's delivery status in `db`, in whichever table of the log holds it. */
const setStatus = (db: D1Database, id: string, status: number) =>
  db.batch(EVENT_TABLES.map((table) => db.prepare(`UPDATE ${table} SET status = ?2 WHERE id = ?1`).bind(id, status)));

describe("two shards", () => {
  it("runs the tests with DB and DB_TID_1, two databases", () => {
    expect(tidShards(env).map((shard) => shard.binding)).toEqual(BINDINGS);
    expect(env.DB_TID_1).not.toBe(env.DB);
  });

  for (const shard of [0, 1]) {
    it(`a partner's receipt whose tid hashes to ${BINDINGS[shard]} lives there only, replays, conflicts and answers check-tid`, async () => {
      const request = receiptRequest({ tid: await tidIn(shard, PARTNER) });
      const created = await expectStatus(call("receipt/create", request), 200);

      const rows = await rowsIn(PARTNER, request.tid);
      expect(rows[shard]).toMatchObject({ status: "completed", receipt_id: created.id, upstream_tid: request.tid });
      expect(rows[1 - shard]).toBeNull();

      const replay = await call("receipt/create", request);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(await expectStatus(replay, 200)).toEqual(created);
      await expectError(call("receipt/create", { ...request, amount: request.amount + 1 }), 409, "tid_conflict");
      expect(await createCalls(request.tid)).toBe(1);
      expect((await expectStatus(call("receipt/check-tid", { tid: request.tid }), 200)).id).toBe(created.id);
      // Still one row, in the same database.
      expect((await rowsIn(PARTNER, request.tid)).map((row) => row !== null)).toEqual([shard === 0, shard === 1]);
    });
  }

  it("a user's transfer in DB_TID_1 replays, and its tid is no receipt for check-tid", async () => {
    const user = newUser();
    const token = await userToken(user);
    const request = transferRequest({ tid: await tidIn(1, `user:${user}`, "a2c") });
    const created = await expectStatus(call("a2c/create", request, { token }), 200);
    const [inDb, inShard] = await rowsIn(`user:${user}`, request.tid);
    expect(inDb).toBeNull();
    expect(inShard).toMatchObject({ kind: "transfer", receipt_id: created.receipt_id });
    const replay = await call("a2c/create", request, { token });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    await expectError(call("receipt/check-tid", { tid: request.tid }, { token }), 404, "receipt_not_found");
  });

  it("the same tid from the partner and from a user, in different shards: two receipts, each found in its own space (rule 9)", async () => {
    const user = newUser();
    const token = await userToken(user);
    // A tid whose partner row and user row sit in different databases.
    let tid: string;
    do tid = newTid("both");
    while ((await tidShardIndex(2, PARTNER, tid)) === (await tidShardIndex(2, `user:${user}`, tid)));
    const partnerShard = await tidShardIndex(2, PARTNER, tid);

    const mine = await expectStatus(call("receipt/create", receiptRequest({ tid })), 200);
    const theirs = await expectStatus(call("receipt/create", receiptRequest({ tid, amount: 200_000 }), { token }), 200);
    expect(theirs.id).not.toBe(mine.id);
    expect(theirs.tid).toBe(tid);
    expect((await rowsIn(PARTNER, tid))[partnerShard]).toMatchObject({ receipt_id: mine.id });
    expect((await rowsIn(`user:${user}`, tid))[1 - partnerShard]).toMatchObject({ receipt_id: theirs.id });

    expect((await expectStatus(call("receipt/check-tid", { tid }), 200)).id).toBe(mine.id);
    expect((await expectStatus(call("receipt/check-tid", { tid }, { token }), 200)).id).toBe(theirs.id);
    expect((await expectStatus(call("receipt/check-tid", { tid, user }), 200)).id).toBe(theirs.id);
    // The user's identical retry replays from the user's shard; the partner's changed body conflicts in the partner's.
    expect(
      (await call("receipt/create", { ...receiptRequest({ tid, amount: 200_000 }), description: "Mobile top-up" }, { token })).headers.get(
        "idempotent-replayed",
      ),
    ).toBe("true");
    await expectError(call("receipt/create", receiptRequest({ tid, amount: 200_000 })), 409, "tid_conflict");
  });
});

describe("retention, per shard", () => {
  /** Completed rows answered at `at` + i, written straight into one database. */
  const seed = (db: D1Database, prefix: string, count: number, at: number) =>
    db
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?2)
         INSERT INTO tid_index (owner, tid, upstream_tid, kind, status, fingerprint, claim_token, receipt_id, created_at, updated_at)
         SELECT 'partner:partner', ?1 || i, NULL, 0, 1, randomblob(16), NULL, 'rcpt-' || i, ?3, ?3 + i FROM n`,
      )
      .bind(prefix, count, at)
      .run();
  const count = async (db: D1Database, prefix: string, where = "1") =>
    (await db.prepare(`SELECT COUNT(*) AS n FROM tid_index WHERE tid LIKE ?1 || '%' AND ${where}`).bind(prefix).first<{ n: number }>())!.n;

  it("deletes in every shard, each with its own bound per run", async () => {
    const prefix = newTid("retain-");
    // Later than every row the tests before made: retention walks each database in the order its rows were claimed.
    const epoch = Date.UTC(2100, 0, 1);
    // The walk past the rows the tests before made (their windows are over by then), so a bound of 1 meets these.
    await runRetention(env, epoch);
    for (const db of databases()) await seed(db, prefix, 3, epoch);
    const policy = { ...retentionPolicy(env), batchSize: 1, rounds: 1 };
    // Just inside the newest row's retention window it stays, in each database; the older two go.
    const deleteAt = epoch + 3 + policy.tidRetentionMs;

    const log = vi.spyOn(console, "log");
    const first = await runRetention(env, deleteAt, policy);
    // A bound of 1 per step: 1 in each database, 2 in all.
    expect(first).toMatchObject({ tids_deleted: 2, backlog: true, tid_shards: { DB: { deleted: 1 }, DB_TID_1: { deleted: 1 } } });
    for (const db of databases()) expect(await count(db, prefix)).toBe(2);
    expect(log.mock.calls.map(([line]) => JSON.parse(String(line))).find((line) => line.event === "retention_run")).toMatchObject({
      tid_shards: { DB: { deleted: 1 }, DB_TID_1: { deleted: 1 } },
    });
    log.mockRestore();

    const deleted = await runRetention(env, deleteAt, { ...policy, batchSize: 10 });
    expect(deleted.tid_shards).toEqual({ DB: { deleted: 1 }, DB_TID_1: { deleted: 1 } });
    for (const db of databases()) expect(await count(db, prefix)).toBe(1);
    await runRetention(env, deleteAt + 1, { ...policy, batchSize: 10 });
    for (const db of databases()) expect(await count(db, prefix)).toBe(0);
  });

  it("a failing shard is named and the run throws, after the other shard and the events were done", async () => {
    const prefix = newTid("failing-");
    const epoch = Date.UTC(2004, 0, 1);
    await seed(env.DB, prefix, 2, epoch);
    const broken = {
      prepare: () => ({ bind: () => ({ run: () => Promise.reject(new Error("D1_ERROR: shard down")) }) }),
      batch: () => Promise.reject(new Error("D1_ERROR: shard down")),
    };
    const deployment = { ...env, DB_TID_1: broken } as unknown as Env;
    await expect(runRetention(deployment, epoch + DAY_MS * 400)).rejects.toThrow(/tids_deleted:DB_TID_1.*tid_fences_deleted:DB_TID_1/);
    expect(await count(env.DB, prefix)).toBe(0);
  });
});

describe("the sandbox console", () => {
  it("lists the records of both shards, merged newest first", async () => {
    const future = Date.UTC(2100, 0, 1);
    const tids = await Promise.all([0, 1, 0, 1].map((shard, i) => tidIn(shard, PARTNER, `console${i}-`)));
    // Pending claims at future + 1 .. + 4, alternating DB and DB_TID_1: newer than anything else in this file.
    for (const [i, tid] of tids.entries()) {
      await databases()
        [i % 2]!.prepare(
          `INSERT INTO tid_index (owner, tid, upstream_tid, kind, status, fingerprint, claim_token, created_at, updated_at)
           VALUES ('partner:partner', ?1, NULL, 0, 0, randomblob(16), 'c', ?2, ?2)`,
        )
        .bind(tid, future + i + 1)
        .run();
    }
    const latest = await latestRecords(env, 3);
    expect(latest.map((record) => record.tid)).toEqual([tids[3], tids[2], tids[1]]);
    for (const db of databases()) await db.prepare("DELETE FROM tid_index WHERE created_at >= ?1").bind(future).run();
  });

  it("shows a record whose row is in DB_TID_1 with its tid", async () => {
    const request = receiptRequest({ tid: await tidIn(1, PARTNER) });
    const created = await expectStatus(call("receipt/create", request), 200);
    expect((await latestRecords(env)).find((record) => record.id === created.id)).toMatchObject({ tid: request.tid, state: 0 });
    expect(await recordView(env, "receipt", created.id)).toMatchObject({ tid: request.tid, id: created.id });
  });
});

describe("the misconfiguration guard", () => {
  const health = (vars: Record<string, unknown>) =>
    createApp().fetch(new Request("http://gateway.test/healthz"), { ...env, ...vars } as unknown as Env, createExecutionContext());

  it("accepts the list separated by commas or spaces, and no list at all (DB alone)", async () => {
    await expectStatus(health({ TID_INDEX_SHARDS: "DB, DB_TID_1" }), 200);
    await expectStatus(health({ TID_INDEX_SHARDS: "" }), 200);
    await expectStatus(health({ TID_INDEX_SHARDS: undefined }), 200);
    expect(tidShards({ ...env, TID_INDEX_SHARDS: undefined } as unknown as Env).map((shard) => shard.binding)).toEqual(["DB"]);
  });

  it("refuses a binding that is missing, one that is no D1 database, and a duplicate", async () => {
    const refusals: [string, string][] = [
      ["DB DB_TID_9", "TID_INDEX_SHARDS names DB_TID_9, which is not a D1 database binding of this deployment"],
      ["DB RECEIPTS", "TID_INDEX_SHARDS names RECEIPTS, which is not a D1 database binding of this deployment"],
      ["DB DB_TID_1 DB", "TID_INDEX_SHARDS names DB twice"],
    ];
    for (const [list, problem] of refusals) {
      const error = await expectError(health({ TID_INDEX_SHARDS: list }), 503, "service_misconfigured");
      expect(error.message).toContain(problem);
    }
    // Nothing reaches a shard: a create is refused before its claim.
    const request = receiptRequest();
    const deployment = { ...env, TID_INDEX_SHARDS: "DB DB_TID_9" } as unknown as Env;
    const res = await createApp().fetch(
      new Request("http://gateway.test/api/v1/partner/receipt/create", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer sk_test_local_partner" },
        body: JSON.stringify(request),
      }),
      deployment,
      createExecutionContext(),
    );
    await expectError(res, 503, "service_misconfigured");
    expect(await rowsIn(PARTNER, request.tid)).toEqual([null, null]);
  });
});

describe("one database, the production default", () => {
  it("keeps every tid row and every event in DB, whatever the hash would say", async () => {
    const single = { ...env, TID_INDEX_SHARDS: "DB" } as unknown as Env;
    const create = (body: unknown) =>
      createApp().fetch(
        new Request("http://gateway.test/api/v1/partner/receipt/create", {
          method: "POST",
          headers: { "content-type": "application/json", authorization: "Bearer sk_test_local_partner" },
          body: JSON.stringify(body),
        }),
        single,
        createExecutionContext(),
      );
    // A tid that two databases would put in DB_TID_1.
    const request = receiptRequest({ tid: await tidIn(1, PARTNER) });
    const created = await expectStatus(create(request), 200);
    expect((await rowsIn(PARTNER, request.tid)).map((row) => row?.receipt_id ?? null)).toEqual([created.id, null]);
    expect((await create(request)).headers.get("idempotent-replayed")).toBe("true");

    const [event] = lifecycle(created.id, ["receipt.created"]);
    await publishKept([event!], single);
    receiver();
    await consume([{ body: messageOf(event!) }], { env: single });
    expect(await findEvent(env.DB, event!.id)).toMatchObject({
      delivery_status: "delivered",
    });
    expect(await logRows(env.DB_TID_1, "id", "id = ?1", event!.id)).toEqual([]);
  });
});

describe("appending a database to a live list (TID_INDEX_SHARDS_PREVIOUS)", () => {
  const before = { ...env, TID_INDEX_SHARDS: "DB", TID_INDEX_SHARDS_PREVIOUS: "" } as unknown as Env;
  const during = { ...env, TID_INDEX_SHARDS: "DB DB_TID_1", TID_INDEX_SHARDS_PREVIOUS: "DB" } as unknown as Env;
  const after = { ...env, TID_INDEX_SHARDS: "DB DB_TID_1", TID_INDEX_SHARDS_PREVIOUS: "" } as unknown as Env;
  const at = (deployment: Env, path: string, body: unknown) =>
    createApp().fetch(
      new Request(`http://gateway.test/api/v1/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer sk_test_local_partner" },
        body: JSON.stringify(body),
      }),
      deployment,
      createExecutionContext(),
    );

  it("a tid claimed before stays where it was and answers as before; a new one goes to its new database", async () => {
    // Both tids belong in DB_TID_1 once the list has two databases.
    const old = receiptRequest({ tid: await tidIn(1, PARTNER, "old") });
    const created = await expectStatus(at(before, "partner/receipt/create", old), 200);
    expect((await rowsIn(PARTNER, old.tid)).map((row) => row !== null)).toEqual([true, false]);

    const replay = await at(during, "partner/receipt/create", old);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await expectStatus(replay, 200)).toEqual(created);
    await expectError(at(during, "partner/receipt/create", { ...old, amount: old.amount + 1 }), 409, "tid_conflict");
    expect((await expectStatus(at(during, "partner/receipt/check-tid", { tid: old.tid }), 200)).id).toBe(created.id);
    expect((await rowsIn(PARTNER, old.tid)).map((row) => row !== null)).toEqual([true, false]);
    expect(await createCalls(old.tid)).toBe(1);

    const fresh = receiptRequest({ tid: await tidIn(1, PARTNER, "new") });
    const made = await expectStatus(at(during, "partner/receipt/create", fresh), 200);
    expect((await rowsIn(PARTNER, fresh.tid)).map((row) => row?.receipt_id ?? null)).toEqual([null, made.id]);

    // Dropping the previous list too early: the old row is not found (by a data center that has not seen
    // the tid: src/tids/tid-cache.ts), the create reaches the payment service, whose own tid uniqueness refuses
    // it (the backstop); nothing is created twice.
    await forgetTid(PARTNER, old.tid);
    await expectError(at(after, "partner/receipt/create", old), 409, "tid_conflict");
    expect(await createCalls(old.tid)).toBe(2);
    expect((await rowsIn(PARTNER, old.tid)).map((row) => row !== null)).toEqual([true, false]);
  });

  it("a record's events logged before and after are listed together, once each, and resent from where they are", async () => {
    let recordId: string;
    do recordId = `rcpt-${crypto.randomUUID()}`;
    while ((await eventShardIndex(2, recordId)) !== 1);
    const [created, paid] = lifecycle(recordId, ["receipt.created", "receipt.paid"]);
    await publishKept([created!], before);
    await publishKept([paid!], during);
    expect((await eventIn(created!.id)).map((row) => row !== null)).toEqual([true, false]);
    expect((await eventIn(paid!.id)).map((row) => row !== null)).toEqual([false, true]);

    // Its record drains it again after the change (the queue had refused the first drain's send): a second
    // copy, in the new database, which the consumer then marks.
    await publishKept([created!], during);
    expect((await eventIn(created!.id)).map((row) => row !== null)).toEqual([true, true]);
    receiver();
    await consume([{ body: messageOf(created!) }], { env: during });
    const listed = await expectStatus<any>(at(during, "gateway/events/list", { receipt_id: recordId }), 200);
    expect(listed.events.map((e: { id: string; delivery: { status: string } }) => [e.id, e.delivery.status])).toEqual([
      [paid!.id, "pending"],
      [created!.id, "delivered"],
    ]);
    const byType = await expectStatus<any>(at(during, "gateway/events/list", { type: "receipt.created", limit: 100 }), 200);
    expect(byType.events.filter((e: { id: string }) => e.id === created!.id)).toHaveLength(1);

    expect((await expectStatus<any>(at(during, "gateway/events/resend", { id: created!.id }), 200)).id).toBe(created!.id);
    // The copy in the record's database now is the one resent.
    expect((await eventIn(created!.id)).map((row) => row?.delivery_status)).toEqual(["pending", "pending"]);
  });

  it("the message of an event logged before is delivered after, and marked where its event is: no copy is made, even once the earlier list is dropped", async () => {
    let recordId: string;
    do recordId = `rcpt-${crypto.randomUUID()}`;
    while ((await eventShardIndex(2, recordId)) !== 1);
    const [created] = lifecycle(recordId, ["receipt.created"]);
    await publishKept([created!], before);
    const received = receiver();
    const result = await consume([{ body: messageOf(created!) }], { env: during });
    expect(result.explicitAcks).toHaveLength(1);
    expect(received).toHaveLength(1);
    expect((await eventIn(created!.id)).map((row) => row?.delivery_status ?? null)).toEqual(["delivered", null]);

    // The earlier list dropped too early: the row is still found (every database is asked) and marked there.
    const [paid] = lifecycle(recordId, ["receipt.paid"]);
    await publishKept([paid!], before);
    await consume([{ body: messageOf(paid!) }], { env: after });
    expect(received).toHaveLength(2);
    expect((await eventIn(paid!.id)).map((row) => row?.delivery_status ?? null)).toEqual(["delivered", null]);
  });

  it("a record's newest event is the newer of its two databases' (the sandbox console's list reads it)", async () => {
    let recordId: string;
    do recordId = `rcpt-${crypto.randomUUID()}`;
    while ((await eventShardIndex(2, recordId)) !== 1);
    const [created, paid] = lifecycle(recordId, ["receipt.created", "receipt.paid"]);
    // A rolling deploy: the new list logs the create in DB_TID_1, a Worker still on the old list the pay in DB.
    await publishKept([created!], during);
    await publishKept([paid!], before);
    expect((await eventIn(paid!.id)).map((row) => row !== null)).toEqual([true, false]);
    expect((await newestEvents(during, [{ kind: "receipt", id: recordId }])).map((row) => row.id)).toEqual([paid!.id]);
  });

  it("the guard and the deploy check hold the previous list to the same rules", async () => {
    const error = await expectError(
      createApp().fetch(
        new Request("http://gateway.test/healthz"),
        { ...env, TID_INDEX_SHARDS_PREVIOUS: "DB_OLD" } as unknown as Env,
        createExecutionContext(),
      ),
      503,
      "service_misconfigured",
    );
    expect(error.message).toContain("TID_INDEX_SHARDS_PREVIOUS names DB_OLD, which is not a D1 database binding of this deployment");
    expect(d1Bindings({ TID_INDEX_SHARDS: "DB DB_TID_1", TID_INDEX_SHARDS_PREVIOUS: "DB DB_OLD" })).toEqual(["DB", "DB_TID_1", "DB_OLD"]);
  });
});

describe("the shard of a tid", () => {
  it("spreads tids evenly, and appending a database moves rows only to the new one", async () => {
    const keys = Array.from({ length: 2000 }, (_, i) => BigInt.asUintN(64, BigInt(i) * 0x9e3779b97f4a7c15n));
    const counts = [0, 0, 0, 0];
    for (const key of keys) {
      const three = jumpHash(key, 3);
      const four = jumpHash(key, 4);
      counts[four]!++;
      // Nothing moves between the existing three.
      expect(four === three || four === 3).toBe(true);
    }
    for (const n of counts) expect(n).toBeGreaterThan(400);
    // One database: no hashing, every row in it.
    expect(await tidShardIndex(1, PARTNER, "anything")).toBe(0);
  });
});

describe("the event log over the same databases, by record id", () => {
  /** A new record id whose events belong in shard `shard` of the two. */
  async function recordIn(shard: number): Promise<string> {
    for (;;) {
      const id = `rcpt-${crypto.randomUUID()}`;
      if ((await eventShardIndex(2, id)) === shard) return id;
    }
  }
  const list = (body: Record<string, unknown>) => expectStatus<any>(callGateway("events/list", body), 200);

  it("logs a record's events in its record's database only, and lists them from there", async () => {
    const records = [await recordIn(0), await recordIn(1)];
    const events = records.map((id) => lifecycle(id, ["receipt.created", "receipt.paid"]));
    await publishKept(events.flat());
    for (const [shard, recordEvents] of events.entries()) {
      for (const event of recordEvents) {
        const rows = await eventIn(event.id);
        expect(rows[shard]).toMatchObject({ record_id: records[shard], delivery_status: "pending" });
        expect(rows[1 - shard]).toBeNull();
      }
      const page = await list({ receipt_id: records[shard] });
      expect(page.events.map((e: { id: string }) => e.id)).toEqual(recordEvents.map((e) => e.id).reverse());
    }
  });

  it("lists by type across both databases, merged newest first, with the limit, has_more and after", async () => {
    const records = [await recordIn(0), await recordIn(1)];
    // Four events of one type, alternating databases, ids increasing: newest last.
    const events = [0, 1, 0, 1].map(
      (shard, i) => lifecycle(records[shard]!, ["receipt.created", "receipt.created", "receipt.created", "receipt.awaiting_supplier"])[i]!,
    );
    for (const event of events) await publishKept([{ ...event, type: "receipt.awaiting_supplier" }]);
    const newestFirst = events.map((e) => e.id).reverse();
    const mine = (page: { events: { id: string }[] }) => page.events.map((e) => e.id).filter((id) => newestFirst.includes(id));

    const first = await list({ type: "receipt.awaiting_supplier", limit: 3 });
    expect(first.events).toHaveLength(3);
    expect(mine(first)).toEqual(newestFirst.slice(0, 3));
    expect(first.has_more).toBe(true);
    const second = await list({ type: "receipt.awaiting_supplier", limit: 3, after: newestFirst[2] });
    expect(mine(second)).toEqual(newestFirst.slice(3));
  });

  it("resends an event of either database by its id alone", async () => {
    for (const shard of [0, 1]) {
      const [event] = lifecycle(await recordIn(shard), ["receipt.created"]);
      await publishKept([event!]);
      await setStatus(databases()[shard]!, event!.id, 2);
      expect((await expectStatus<any>(callGateway("events/resend", { id: event!.id }), 200)).id).toBe(event!.id);
      expect((await eventIn(event!.id))[shard]).toMatchObject({ delivery_status: "pending" });
    }
    await expectError(callGateway("events/resend", { id: "evt_01ARZ3NDEKTSV4RRFFQ69G5FAV" }), 404, "not_found");
  });

  it("the consumer marks each event of a batch in its record's database; the dead-letter queue marks each failed there", async () => {
    const events = [...lifecycle(await recordIn(0), ["receipt.created"]), ...lifecycle(await recordIn(1), ["receipt.created"])];
    await publishKept(events);
    receiver();
    const delivered = await consume(events.map((event) => ({ body: messageOf(event) })));
    expect(delivered.explicitAcks).toHaveLength(2);
    for (const [shard, event] of events.entries()) {
      const rows = await eventIn(event.id);
      expect(rows[shard]).toMatchObject({ delivery_status: "delivered", attempts: 1 });
      expect(rows[1 - shard]).toBeNull();
    }

    const lost = [...lifecycle(await recordIn(0), ["receipt.paid"]), ...lifecycle(await recordIn(1), ["receipt.paid"])];
    await publishKept(lost);
    await consume(
      lost.map((event) => ({ body: messageOf(event) })),
      { queue: DEAD_LETTER_QUEUE },
    );
    for (const [shard, event] of lost.entries()) expect((await eventIn(event.id))[shard]).toMatchObject({ delivery_status: "failed" });
  });

  it("retention prunes delivered events in both databases", async () => {
    const events = [...lifecycle(await recordIn(0), ["receipt.created"]), ...lifecycle(await recordIn(1), ["receipt.created"])];
    await publishKept(events);
    for (const [shard, event] of events.entries()) await setStatus(databases()[shard]!, event.id, 1);
    // The cron's turn of the ring that drops their slot, in each database (logged now, into the slot written now).
    const report = await runRetention(env, ringDropAt(Math.max(...events.map((e) => e.created))));
    expect(report.event_slots_emptied).toBeGreaterThanOrEqual(2);
    for (const event of events) expect(await eventIn(event.id)).toEqual([null, null]);
  });
});
