/**
 * Growing the tid index while Workers on earlier lists still run (a rolling
 * deploy, src/tids/tid-index.ts's claimIndexFor): a tid is claimed in one database
 * whatever list each Worker has, so the payment service gets one create per
 * tid and an identical retry is never told tid_conflict; and a row claimed
 * before the list grew twice is still found. What is observed: each
 * gateway's answers, the sandbox's create calls, and each database's rows.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { retentionPolicy } from "../../src/config/retention-policy";
import { slotAt, slotPeriodMs } from "../../src/d1/ring";
import { tidShardIndex } from "../../src/d1/shards";
import { clock } from "../../src/shared/clock";
import { forgetTid } from "../../src/tids/tid-cache";
import { TID_SLOTS, TID_TABLES, type TidRow } from "../../src/tids/tid-index";
import { callSettled, expectStatus, letTimePass, newTid, receiptRequest, sandboxCalls } from "../helpers";

const PARTNER = "partner:partner";

/** One list, as deployed before; grown once; grown twice (each Worker knowing every earlier list still in use). */
const one = { ...env, TID_INDEX_SHARDS: "DB", TID_INDEX_SHARDS_PREVIOUS: "" } as unknown as Env;
const two = { ...env, TID_INDEX_SHARDS: "DB DB_TID_1", TID_INDEX_SHARDS_PREVIOUS: "DB" } as unknown as Env;
const three = { ...env, TID_INDEX_SHARDS: "DB DB_TID_1 DB_TID_2", TID_INDEX_SHARDS_PREVIOUS: "DB DB_TID_1; DB" } as unknown as Env;

/** A create on `deployment`, and what it left running after its answer (the tid row's completion). */
const create = (deployment: Env, body: unknown) => callSettled(deployment, "receipt/create", body);

/** A new partner tid placed in database `places[n]` of the list of n + 1 databases, for each n. */
async function tidPlaced(places: number[]): Promise<string> {
  for (;;) {
    const tid = newTid("grow");
    const at = await Promise.all(places.map((_, n) => tidShardIndex(n + 1, PARTNER, tid)));
    if (at.every((place, n) => place === places[n])) return tid;
  }
}

/** The tid's rows that are claims (not fences), by database. */
async function claimsOf(tid: string): Promise<string[]> {
  const found: string[] = [];
  for (const binding of ["DB", "DB_TID_1", "DB_TID_2"] as const) {
    for (const table of TID_TABLES) {
      const row = await env[binding].prepare(`SELECT * FROM ${table} WHERE owner = ?1 AND tid = ?2`).bind(PARTNER, tid).first<TidRow>();
      if (row && row.claim_token !== "moved") found.push(binding);
    }
  }
  return found;
}

const createCalls = async (tid: string) => (await sandboxCalls()).filter((c) => c.path === "receipt/create" && c.tid === tid).length;

/** An answer's status and, for an error, its code. */
async function outcome(response: Response): Promise<{ status: number; code?: string; id?: string }> {
  const body = (await response.json()) as { id?: string; error?: { code: string } };
  return body.error ? { status: response.status, code: body.error.code } : { status: response.status, id: body.id };
}

/** The next request comes from another data center, which has not seen the tid (src/tids/tid-cache.ts): it reads D1. */
const elsewhere = (tid: string) => forgetTid("partner:partner", tid);

describe("growing the list while Workers on the earlier list still run", () => {
  it("a create on the grown list, then the same create on a Worker still on the earlier list: one create upstream, the late one is told to retry", async () => {
    const request = receiptRequest({ tid: await tidPlaced([0, 1]) });
    const made = await expectStatus(create(two, request), 200);
    expect(await claimsOf(request.tid)).toEqual(["DB_TID_1"]);

    // The Worker on the earlier list, in another data center (which has not seen the tid: src/tids/tid-cache.ts),
    // looks only in DB: the fence there stops it before the payment service.
    await elsewhere(request.tid);
    expect(await outcome(await create(one, request))).toEqual({ status: 409, code: "tid_in_progress" });
    expect(await createCalls(request.tid)).toBe(1);
    expect(await claimsOf(request.tid)).toEqual(["DB_TID_1"]);

    // Once every Worker has the grown list, the retry is a replay.
    const replay = await create(two, request);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await expectStatus(replay, 200)).toEqual(made);
  });

  it("creates racing on the earlier and the grown list: each tid claimed once, created upstream once, never tid_conflict", async () => {
    const requests = await Promise.all(Array.from({ length: 8 }, async () => receiptRequest({ tid: await tidPlaced([0, 1]) })));
    const answers = await Promise.all(requests.flatMap((request) => [create(one, request), create(two, request)].map(async (r) => outcome(await r))));
    for (const [i, request] of requests.entries()) {
      const pair = answers.slice(2 * i, 2 * i + 2);
      expect(pair.map((a) => a.code)).not.toContain("tid_conflict");
      expect(pair.filter((a) => a.status === 200)).not.toHaveLength(0);
      expect(new Set(pair.flatMap((a) => (a.id ? [a.id] : []))).size).toBe(1);
      expect(await createCalls(request.tid)).toBe(1);
      expect(await claimsOf(request.tid)).toHaveLength(1);
    }
  });

  it("grown twice: a tid claimed on the first list is found (replayed) on the third, and no Worker on any list claims it again", async () => {
    // DB on one database, DB_TID_1 on two, DB_TID_2 on three: its place moved at each growth.
    const request = receiptRequest({ tid: await tidPlaced([0, 1, 2]) });
    const made = await expectStatus(create(one, request), 200);

    await elsewhere(request.tid);
    const replay = await create(three, request);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await expectStatus(replay, 200)).toEqual(made);
    await elsewhere(request.tid);
    expect(await expectStatus(create(two, request), 200)).toEqual(made);
    expect(await createCalls(request.tid)).toBe(1);
    expect(await claimsOf(request.tid)).toEqual(["DB"]);

    // A new tid on the third list fences both earlier places: neither earlier list's Worker creates it again.
    const fresh = receiptRequest({ tid: await tidPlaced([0, 1, 2]) });
    await expectStatus(create(three, fresh), 200);
    await elsewhere(fresh.tid);
    expect(await outcome(await create(one, fresh))).toEqual({ status: 409, code: "tid_in_progress" });
    await elsewhere(fresh.tid);
    expect(await outcome(await create(two, fresh))).toEqual({ status: 409, code: "tid_in_progress" });
    expect(await createCalls(fresh.tid)).toBe(1);
    expect(await claimsOf(fresh.tid)).toEqual(["DB_TID_2"]);
  });
});

describe("growing the list across the tid index's ring of slots", () => {
  it("a tid claimed on the earlier list in the ring's last slot, met on the grown list a period later (the first slot): found where it is, fenced nowhere, and no Worker creates it again", async () => {
    const period = slotPeriodMs(retentionPolicy(env).tidRetentionMs);
    // The start of the next period that writes the last slot: the claim goes there, a fence would go to slot 0,
    // which every read of the index meets before it.
    let at = (Math.floor(clock.now() / period) + 1) * period + 1000;
    while (slotAt(at, period) !== TID_SLOTS.length - 1) at += period;
    letTimePass(at - clock.now());

    const request = receiptRequest({ tid: await tidPlaced([0, 1]) });
    const made = (await expectStatus(create(one, request), 200)) as { id: string };
    expect(await claimsOf(request.tid)).toEqual(["DB"]);

    // A period on (past TID_REPLAY_DAYS, well within TID_RETENTION_DAYS): the repeat is tid_conflict naming the
    // receipt, on either list, and check-tid finds it, never a second create upstream.
    letTimePass(period);
    expect(slotAt(clock.now(), period)).toBe(0);
    for (const deployment of [two, one, two]) {
      await elsewhere(request.tid);
      const repeat = await create(deployment, request);
      expect(repeat.status).toBe(409);
      const { error } = (await repeat.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe("tid_conflict");
      expect(error.message).toContain(made.id);
      await elsewhere(request.tid);
      expect(await expectStatus(callSettled(deployment, "receipt/check-tid", { tid: request.tid }), 200)).toMatchObject({ id: made.id });
    }
    expect(await createCalls(request.tid)).toBe(1);
    expect(await claimsOf(request.tid)).toEqual(["DB"]);
  });
});
