/**
 * What a data center remembers of completed tids (src/tids/tid-cache.ts): a
 * check-tid or an identical retry of a create this data center answered
 * needs no D1 round trip, and the memory is believed only while
 * the row it stands for exists (its retention window, by the gateway's clock).
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { retentionPolicy } from "../../src/config/retention-policy";
import { runRetention } from "../../src/cron/retention";
import { clock } from "../../src/shared/clock";
import { callSettled, expectError, expectStatus, letTimePass, receiptRequest, refuseStatements, tidRow } from "../helpers";

const PARTNER = "partner:partner";

/** A partner call through the app, and what it left running after its answer (the completion, the memory). */
const partner = (path: string, body: unknown) => callSettled(env, path, body);

/** From now on every statement on the tid index fails, in every database: what is answered did not read it. */
const tidIndexUnreachable = () => refuseStatements((sql) => sql.includes("tid_index"));

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a tid this data center has seen", () => {
  it("an identical retry is replayed, another body refused, and check-tid answered, without reading the tid index", async () => {
    const request = receiptRequest();
    const created = await expectStatus(partner("receipt/create", request), 200);
    expect(await tidRow(PARTNER, request.tid)).toMatchObject({ status: "completed", receipt_id: created.id });

    tidIndexUnreachable();
    const replay = await partner("receipt/create", request);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await expectStatus(replay, 200)).toEqual(created);
    const conflict = await expectError(partner("receipt/create", { ...request, amount: request.amount + 1 }), 409, "tid_conflict");
    expect(conflict.message).toContain(created.id);
    expect((await expectStatus(partner("receipt/check-tid", { tid: request.tid }), 200)).id).toBe(created.id);
  });

  it("is not believed once the row's retention window has passed: check-tid reads the index, which retention emptied", async () => {
    const request = receiptRequest();
    await expectStatus(partner("receipt/create", request), 200);
    letTimePass(retentionPolicy(env).tidRetentionMs + 1);
    await runRetention(env, clock.now());
    expect(await tidRow(PARTNER, request.tid)).toBeNull();
    await expectError(partner("receipt/check-tid", { tid: request.tid }), 404, "receipt_not_found");
  });

  it("a create whose completion failed is not remembered: the retry meets the pending claim (tid_in_progress)", async () => {
    refuseStatements((sql) => /^UPDATE tid_index(_\d)? SET status = 1/.test(sql));
    const request = receiptRequest();
    await expectStatus(partner("receipt/create", request), 200);
    await expectError(partner("receipt/create", request), 409, "tid_in_progress");
    await expectError(partner("receipt/check-tid", { tid: request.tid }), 409, "tid_in_progress");
  });
});
