/**
 * Rule 15's writers: an append is durable before its answer, and the rows it
 * costs are billed one by one (docs/capacity.md). Appends share a waiting
 * row, so a flush of many appends deletes few rows; no entry is lost to a
 * flush that an append meets halfway.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { parseBatch, parseBatchKey } from "../../src/audit/batch";
import { flushMs } from "../../src/audit/entries";
import { eraseInAudit } from "../../src/audit/erase";
import { type AuditWriter, ROW_ENTRIES } from "../../src/audit/writer";
import { bucketReader, emptyAuditBucket } from "../audit";

afterEach(emptyAuditBucket);

/** A chain of its own per test (w9000 and up), so no other test's writer or batches meet it. */
let next = 9000;
function writer() {
  const chain = `w${next++}`;
  return { chain, stub: env.AUDIT_WRITER.get(env.AUDIT_WRITER.idFromName(chain)) };
}

const line = (n: number) => ({
  id: `g:rows-${crypto.randomUUID()}:${n}`,
  at: Date.now() + n,
  source: "gateway" as const,
  op: "events/list",
  actor: "partner",
  request_id: crypto.randomUUID(),
  outcome: "ok",
});

/** The rows waiting in a writer's storage. */
const waitingRows = (stub: ReturnType<typeof writer>["stub"]) =>
  runInDurableObject(stub, (_instance, state) => state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM pending").one().n);

/** Every entry id the chain's batches in R2 hold, in their order. */
async function idsInR2(chain: string): Promise<string[]> {
  const reader = bucketReader();
  const keys = (await reader.keys("audit/")).filter((key) => parseBatchKey(key)?.chain === chain).sort();
  const ids: string[] = [];
  for (const key of keys) ids.push(...parseBatch(new TextDecoder().decode((await reader.get(key))!)).entries.map((e) => e.id));
  return ids;
}

describe("a writer's rows", () => {
  it("appends share one waiting row until it holds ROW_ENTRIES entries; the flush puts every entry, in order", async () => {
    const { chain, stub } = writer();
    const lines = Array.from({ length: ROW_ENTRIES + 1 }, (_, i) => line(i));
    for (const l of lines.slice(0, 10)) await stub.append(chain, [l]);
    expect(await waitingRows(stub)).toBe(1);
    // The layout of a row each append had: any release of the writer reads it.
    const stored = await runInDurableObject(
      stub,
      (_instance, state) => state.storage.sql.exec<{ entries: string }>("SELECT entries FROM pending").one().entries,
    );
    expect(stored).toBe(JSON.stringify({ chain, entries: lines.slice(0, 10) }));
    for (const l of lines.slice(10)) await stub.append(chain, [l]);
    expect(await waitingRows(stub)).toBe(2);
    await stub.flush();
    expect(await waitingRows(stub)).toBe(0);
    expect(await idsInR2(chain)).toEqual(lines.map((l) => l.id));
  });

  it("an entry sent again (a record stopped before its mark) while the writer holds it, or after the flush that put it, is in R2 once", async () => {
    const { chain, stub } = writer();
    const [first, second] = [line(0), line(1)];
    await stub.append(chain, [first]);
    await stub.append(chain, [first, second]);
    await stub.flush();
    await stub.append(chain, [second]);
    await stub.flush();
    expect(await idsInR2(chain)).toEqual([first.id, second.id]);
  });

  it("flushes within AUDIT_FLUSH_SECONDS of its oldest entry's time, not of its arrival: a record held it up to half of that", async () => {
    const { chain, stub } = writer();
    const held = { ...line(0), at: Date.now() - flushMs(env) / 2 };
    await stub.append(chain, [held]);
    const at = await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm());
    // (Or fired already, and the batch is in R2.)
    expect(at ?? 0).toBeLessThanOrEqual(held.at + flushMs(env));
  });

  it("a record's appends (grouped) that come within GROUP_MS of each other share one row write; each answers once it is durable", async () => {
    const { chain, stub } = writer();
    // More than a row takes when each is written alone: one write, so one row.
    const lines = Array.from({ length: ROW_ENTRIES + 8 }, (_, i) => line(i));
    // Called in the object itself, all at once: as appends that arrive within GROUP_MS.
    await runInDurableObject(stub, (writer: AuditWriter) => Promise.all(lines.map((l) => writer.append(chain, [l], { group: true }))));
    expect(await waitingRows(stub)).toBe(1);
    // Sent again while its first append still waits for the write: answered with it, kept once.
    const [a, b] = [line(100), line(101)];
    await runInDurableObject(stub, (writer: AuditWriter) =>
      Promise.all([writer.append(chain, [a], { group: true }), writer.append(chain, [a, b], { group: true })]),
    );
    await stub.flush();
    expect(await idsInR2(chain)).toEqual([...lines, a, b].map((l) => l.id));
  });

  it("an append that comes while a flush puts its batches is kept for the next flush, not deleted with the rows flushed", async () => {
    const { chain, stub } = writer();
    const [first, meanwhile] = [line(0), line(1)];
    await stub.append(chain, [first]);
    await Promise.all([stub.flush(), stub.append(chain, [meanwhile])]);
    await stub.flush();
    expect((await idsInR2(chain)).sort()).toEqual([first.id, meanwhile.id].sort());
  });
});

describe("an erased user's entries that arrive after the eraser began (rule 10)", () => {
  /** A user's create entry, as a record exports it, with the account value given. */
  const created = (user: string, account: string) => ({
    ...line(0),
    id: `r:${crypto.randomUUID()}:1:0`,
    source: "record" as const,
    op: "create",
    actor: `user:${user}`,
    user,
    receipt_id: crypto.randomUUID(),
    detail: { tid: "t-1", amount: 150000, merchant_id: 1003, account: [{ key: "contract", value: account }] },
  });

  it("are kept masked: an export on its way while the user's records were erased lands with the values masked", async () => {
    const { chain, stub } = writer();
    const user = `user-${crypto.randomUUID()}`;
    const other = created("someone-else", "KEEP-other-0001");
    await stub.forget(user, Date.now() + 60_000);
    await stub.append(chain, [created(user, "ERASE-me-00001"), other]);
    await stub.flush();
    const text = (await bucketTexts(chain)).join("\n");
    expect(text).not.toContain("ERASE-me-00001");
    expect(text).toContain("ER**********01");
    // Only that user's: another user's values stay as they are.
    expect(text).toContain("KEEP-other-0001");
  });

  it("are kept masked when the eraser begins while a record's append waits for its grouped write, and its flush puts them", async () => {
    const { chain, stub } = writer();
    const user = `user-${crypto.randomUUID()}`;
    const entry = created(user, "ERASE-me-00002");
    // In the object itself, in one go: the append queued, then the eraser's forget and flush before its write.
    await runInDurableObject(stub, async (writer: AuditWriter) => {
      const appended = writer.append(chain, [entry], { group: true });
      await writer.forget(user, Date.now() + 60_000);
      await writer.flush();
      await appended;
    });
    const text = [...(await bucketTexts(chain))].join("\n");
    expect(text).toContain(entry.id);
    expect(text).not.toContain("ERASE-me-00002");
  });

  it("reach a writer a smaller AUDIT_CHAINS no longer names: the erasure finds it by its head in R2, masks what it holds and flushes it", async () => {
    const { chain, stub } = writer();
    const user = `user-${crypto.randomUUID()}`;
    // The chain wrote a batch once (its head is in R2), then AUDIT_CHAINS shrank below it while it held the user's entry.
    await stub.append(chain, [line(0)]);
    await stub.flush();
    const entry = created(user, "ERASE-me-00003");
    await stub.append(chain, [entry]);
    expect(await bucketTexts(chain)).not.toContainEqual(expect.stringContaining(entry.id));

    let cursor: string | true | undefined;
    do cursor = await eraseInAudit({ ...env, AUDIT_CHAINS: "1" } as Env, user, cursor as string | undefined);
    while (cursor !== true);
    const text = (await bucketTexts(chain)).join("\n");
    expect(text).toContain(entry.id);
    expect(text).not.toContain("ERASE-me-00003");
  });
});

/** The texts of the chain's batches in R2. */
async function bucketTexts(chain: string): Promise<string[]> {
  const keys = (await bucketReader().keys("audit/")).filter((key) => parseBatchKey(key)?.chain === chain);
  return Promise.all(keys.map(async (key) => (await env.AUDIT.get(key))!.text()));
}
