/**
 * Rule 15: nobody changes the audit trail unseen. verifyAudit (what `npm run
 * audit:verify` runs over the local state or a deployment's bucket) walks
 * every chain: a batch altered, removed, or put out of order is named; an
 * erasure's rewrite is recorded in the chain and is not tampering, and
 * leaves no raw value in any batch.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { parseBatchKey } from "../../src/audit/batch";
import { verifyAudit } from "../../src/audit/verify";
import { clock } from "../../src/shared/clock";
import { auditObjects, bucketReader, emptyAuditBucket, flushAudit, searchTrail, trailOnceIn } from "../audit";
import { callGateway, fireCron } from "../events";
import { call, createReceipt, expectStatus, newUser, userToken } from "../helpers";

afterEach(emptyAuditBucket);

const line = (n: number) => ({
  id: `g:verify-${crypto.randomUUID()}:${n}`,
  at: Date.now() + n,
  source: "gateway" as const,
  op: "events/list",
  actor: "partner",
  request_id: crypto.randomUUID(),
  outcome: "ok",
});

/** `count` batches in chain w0, one flush each. */
async function batchesInW0(count: number): Promise<string[]> {
  const writer = env.AUDIT_WRITER.get(env.AUDIT_WRITER.idFromName("w0"));
  for (let i = 0; i < count; i++) {
    await writer.append("w0", [line(i)]);
    await writer.flush();
  }
  return (await bucketReader().keys("audit/")).filter((key) => parseBatchKey(key)?.chain === "w0");
}

describe("audit:verify", () => {
  it("passes on the trail as the gateway wrote it", async () => {
    const receipt = await createReceipt();
    await expectStatus(call("receipt/authorize", { id: receipt.id, card: { token: "tok_sandbox_ok" } }), 200);
    await trailOnceIn({ receipt_id: receipt.id }, 2);
    await batchesInW0(3);
    const report = await verifyAudit(bucketReader());
    expect(report.problems).toEqual([]);
    expect(report.chains.map((chain) => chain.chain)).toContain("w0");
    expect(report.entries).toBeGreaterThanOrEqual(5);
  });

  it("names a batch altered, and another removed; each alone", async () => {
    const keys = await batchesInW0(4);
    const [, second, third] = keys;
    const text = await (await env.AUDIT.get(second!))!.text();
    await env.AUDIT.put(second!, text.replace('"outcome":"ok"', '"outcome":"forbidden"'));
    let report = await verifyAudit(bucketReader());
    expect(report.problems).toEqual([expect.objectContaining({ kind: "altered", key: second })]);

    await env.AUDIT.put(second!, text);
    await env.AUDIT.delete(third!);
    report = await verifyAudit(bucketReader());
    expect(report.problems).toEqual([expect.objectContaining({ kind: "missing", chain: "w0", seq: parseBatchKey(third!)!.seq })]);
  });

  it("names the newest batch removed (the chain's head names it), and two batches swapped", async () => {
    const keys = await batchesInW0(3);
    const last = keys.at(-1)!;
    const lastText = await (await env.AUDIT.get(last))!.text();
    await env.AUDIT.delete(last);
    expect((await verifyAudit(bucketReader())).problems).toEqual([expect.objectContaining({ kind: "missing", seq: parseBatchKey(last)!.seq })]);
    await env.AUDIT.put(last, lastText);

    const [a, b] = [keys[0]!, keys[1]!];
    const [textA, textB] = [await (await env.AUDIT.get(a))!.text(), await (await env.AUDIT.get(b))!.text()];
    await env.AUDIT.put(a, textB);
    await env.AUDIT.put(b, textA);
    const kinds = (await verifyAudit(bucketReader())).problems.map((problem) => problem.kind);
    expect(kinds).toContain("out_of_order");
    expect(kinds).not.toContain("missing");
  });

  it("passes on a trail a writer flushes while it is read: a batch and the head naming it land between the reader's steps", async () => {
    await batchesInW0(2);
    const writer = env.AUDIT_WRITER.get(env.AUDIT_WRITER.idFromName("w0"));
    const plain = bucketReader();
    let flushed = 0;
    const flushOne = async () => {
      await writer.append("w0", [line(100 + flushed)]);
      await writer.flush();
      flushed++;
    };
    // When the verifier opens w0's head, the writer flushes a batch (and moves its head) just before the read and
    // another just after it, as a busy trail does: the listing may show batches the head read does not name yet.
    const busy = {
      keys: plain.keys,
      async get(key: string) {
        if (!key.endsWith("/w0.json") || flushed > 0) return plain.get(key);
        await flushOne();
        const head = await plain.get(key);
        await flushOne();
        return head;
      },
    };
    const report = await verifyAudit(busy);
    expect(flushed).toBe(2);
    expect(report.problems).toEqual([]);
    const w0 = report.chains.find((chain) => chain.chain === "w0")!;
    expect(w0.batches).toBe(w0.last - w0.first + 1);
    expect(w0.batches).toBeGreaterThanOrEqual(4);
  });
});

describe("erasure in the audit trail (rule 10)", () => {
  it("leaves no raw account value of the user in any batch, records each rewrite in its chain, and audit:verify still passes", async () => {
    const user = newUser();
    const token = await userToken(user);
    // An account value the trail keeps as it is (a phone number's twelve digits are masked in every entry from
    // the start, as every run of twelve digits or more is: src/shared/redact.ts), so that its erasure shows.
    const phone = `L${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`;
    const receipts = [];
    for (let i = 0; i < 3; i++) receipts.push(await createReceipt({ account: [{ key: "account", value: phone }] }, { token }));
    // Someone else's receipt with the same value keeps it: only the user's values are erased.
    const other = await createReceipt({ account: [{ key: "account", value: phone }] });
    for (const receipt of [...receipts, other]) await trailOnceIn({ receipt_id: receipt.id }, 1);
    await flushAudit();
    expect([...(await auditObjects()).values()].join("\n")).toContain(phone);

    await expectStatus(callGateway("users/erase", { user }), 202);
    for (let run = 0; run < 5; run++) await fireCron(clock.now());
    const objects = await auditObjects();
    const holding = [...objects].filter(([, text]) => text.includes(phone)).map(([key]) => key);
    // Only the other owner's create entry keeps the number.
    for (const key of holding) {
      const raw = objects
        .get(key)!
        .split("\n")
        .filter((l) => l.includes(phone));
      expect(
        raw.every((l) => !l.includes(`"user":"${user}"`)),
        key,
      ).toBe(true);
    }
    const erased = (await trailOnceIn({ user }, 3)).filter((entry) => entry.op === "create");
    expect(erased.map((entry) => entry.detail.account[0].value)).toEqual(
      receipts.map(() => `${phone.slice(0, 2)}${"*".repeat(phone.length - 4)}${phone.slice(-2)}`),
    );

    const report = await verifyAudit(bucketReader());
    expect(report.problems).toEqual([]);
    expect(report.rewritten.length).toBeGreaterThan(0);
  });

  it("reaches a user whose sub holds twelve digits in a row (a numeric id): the user an entry names is written whole", async () => {
    // Masked as a digit run, the sub would name nobody: search by user and the eraser (which looks for the
    // user's own sub) would miss every entry of theirs. A random UUID sub is so one time in 175.
    const user = `${1_000_000 + Math.floor(Math.random() * 9_000_000)}${String(Math.floor(Math.random() * 1e8)).padStart(8, "0")}`;
    const token = await userToken(user);
    const value = `contract-${crypto.randomUUID()}`;
    const receipt = await createReceipt({ account: [{ key: "contract", value }] }, { token });
    await trailOnceIn({ receipt_id: receipt.id }, 1);
    await flushAudit();
    expect((await searchTrail({ user })).entries.map((entry: { user?: string }) => entry.user)).toEqual([user]);

    await expectStatus(callGateway("users/erase", { user }), 202);
    for (let run = 0; run < 5; run++) await fireCron(clock.now());
    const holding = [...(await auditObjects())].filter(([, text]) => text.includes(value)).map(([key]) => key);
    expect(holding).toEqual([]);
    expect((await verifyAudit(bucketReader())).problems).toEqual([]);
  });
});
