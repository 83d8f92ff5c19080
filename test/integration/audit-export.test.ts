/**
 * Rule 15, a record's part, through the Worker: a record holds its trail's
 * entries for its next alarm, so the entries of a payment's operations that
 * follow each other go to its writer in one export; an operation no other
 * follows is still in R2 within AUDIT_FLUSH_SECONDS (the record's alarm
 * within half of it, the writer's flush within it of the entry's time); a
 * record stopped between its export and its mark sends the entries again,
 * and R2 holds each once.
 *
 * Each test first moves the clock an hour ahead of the wall and stops it
 * there: the record's alarms then fall an hour ahead of the runtime's time,
 * so none fires on its own and the test runs each, as the runtime would once
 * its time came.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { parseBatch } from "../../src/audit/batch";
import { chainFor, flushMs } from "../../src/audit/entries";
import { verifyAudit } from "../../src/audit/verify";
import { receiptStub } from "../../src/record/receipt-object";
import { clock, freezeClock } from "../../src/shared/clock";
import { auditObjects, bucketReader, flushAudit } from "../audit";
import { callGateway } from "../events";
import { call, createReceipt, expectStatus, letTimePass, OTP_OK } from "../helpers";

const HOUR_MS = 3_600_000;
const TOKEN = { token: "tok_sandbox_ok" };

beforeEach(() => {
  letTimePass(HOUR_MS);
  freezeClock();
});

const record = (id: string) => receiptStub(env, "receipt", id);
const writerOf = (id: string) => {
  const chain = chainFor(env, `receipt:${id}`);
  return env.AUDIT_WRITER.get(env.AUDIT_WRITER.idFromName(chain));
};

/** The runtime stops the record's object (what it holds in memory is lost, its storage kept). */
async function stop(id: string): Promise<void> {
  await runInDurableObject(record(id), (_instance, state) => state.abort("stopped by the test")).catch(() => undefined);
}

/** The record's entries audit/search gives, around the (moved) clock. */
async function inR2(id: string): Promise<any[]> {
  const now = clock.now();
  const page = await expectStatus(callGateway("audit/search", { receipt_id: id, from: now - HOUR_MS, to: now + HOUR_MS, limit: 100 }), 200);
  return page.entries.filter((entry: any) => entry.source === "record");
}

/** How many times R2's batches hold each of the record's entries, by id. */
async function copiesInR2(id: string): Promise<Map<string, number>> {
  const copies = new Map<string, number>();
  for (const text of (await auditObjects()).values())
    for (const entry of parseBatch(text).entries)
      if (entry.source === "record" && entry.receipt_id === id) copies.set(entry.id, (copies.get(entry.id) ?? 0) + 1);
  return copies;
}

/** The writer's flush, by its own alarm (or done already, if it fired on its own). */
async function writerFlushes(id: string): Promise<void> {
  const writer = writerOf(id);
  const at = await runInDurableObject(writer, (_instance, state) => state.storage.getAlarm());
  // Within AUDIT_FLUSH_SECONDS of what it was sent (its entries are no older than the record's hold).
  if (at !== null) expect(at).toBeLessThanOrEqual(Date.now() + flushMs(env));
  await runDurableObjectAlarm(writer);
}

describe("a record's entries reach R2 by its alarm (rule 15)", () => {
  it("an operation no other follows: its entry is held for the record's alarm, due within half of AUDIT_FLUSH_SECONDS, which sends it; the writer's own alarm puts it", async () => {
    const receipt = await createReceipt();
    await flushAudit();
    expect(await inR2(receipt.id)).toEqual([]);
    // The record's hold and the writer's flush together stay within AUDIT_FLUSH_SECONDS of the entry.
    const { wakeIn } = (await record(receipt.id).clockState())!;
    expect(wakeIn).not.toBeNull();
    expect(wakeIn!).toBeLessThanOrEqual(flushMs(env) / 2);
    expect(await runDurableObjectAlarm(record(receipt.id))).toBe(true);
    await writerFlushes(receipt.id);
    expect((await inR2(receipt.id)).map((entry) => entry.op)).toEqual(["create"]);

    // A later operation alone: held again, and sent by an alarm set for it.
    letTimePass(10 * 60_000);
    await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 200);
    await flushAudit();
    expect((await inR2(receipt.id)).map((entry) => entry.op)).toEqual(["create"]);
    const after = (await record(receipt.id).clockState())!;
    expect(after.wakeIn!).toBeLessThanOrEqual(flushMs(env) / 2);
    expect(await runDurableObjectAlarm(record(receipt.id))).toBe(true);
    await writerFlushes(receipt.id);
    expect((await inR2(receipt.id)).map((entry) => entry.op)).toEqual(["create", "authorize"]);
    // Nothing owed: the mark rode the alarm's write of the row, so a new incarnation sends nothing again.
    await stop(receipt.id);
    expect(await record(receipt.id).exportAudit()).toBe(true);
    await flushAudit();
    expect([...(await copiesInR2(receipt.id)).values()]).toEqual([1, 1]);
  });

  it("a whole payment's entries (create, authorize, pay) go to the writer in one export, by the record's one alarm", async () => {
    const receipt = await createReceipt();
    await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 200);
    await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN, otp: OTP_OK }), 200);
    await flushAudit();
    expect(await inR2(receipt.id)).toEqual([]);
    expect(await runDurableObjectAlarm(record(receipt.id))).toBe(true);
    await writerFlushes(receipt.id);
    expect((await inR2(receipt.id)).map((entry) => entry.op)).toEqual(["create", "authorize", "pay"]);
    const trail = await expectStatus(callGateway("receipt/audit", { id: receipt.id }), 200);
    expect(trail.entries).toHaveLength(3);
  });

  it("a record stopped between its export and its mark sends its entries again: none lost, R2 holds each once, audit:verify passes", async () => {
    const receipt = await createReceipt();
    await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN }), 200);
    // Sent to the writer (durable there); the mark waits for the row's next write, and the object stops first.
    expect(await record(receipt.id).exportAudit()).toBe(true);
    await stop(receipt.id);
    // The writer puts them meanwhile; the new incarnation finds them unmarked and sends them again by its alarm.
    await flushAudit();
    expect(await runDurableObjectAlarm(record(receipt.id))).toBe(true);
    await writerFlushes(receipt.id);
    await flushAudit();
    expect((await inR2(receipt.id)).map((entry) => entry.op)).toEqual(["create", "authorize"]);
    expect([...(await copiesInR2(receipt.id)).values()]).toEqual([1, 1]);
    expect((await verifyAudit(bucketReader())).problems).toEqual([]);
  });
});
