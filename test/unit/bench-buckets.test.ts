/**
 * The CPU table of `npm run bench` gives every file of src/ to a bucket
 * (bench/lib/buckets.mjs) by rules that name files and folders, so a file
 * that moves keeps its bucket. The bench itself never stops over a file no
 * rule names (its CPU shows as "other gateway code", with the file's name);
 * this test names such a file in review instead, long before a run.
 */
import { describe, expect, it } from "vitest";
import { BUCKETS, bucketOfPackage, bucketOfPath, OTHER, RULES, STUB_CALL } from "../../bench/lib/buckets.mjs";

const texts = import.meta.glob("../../src/**/*.ts", { query: "?raw", import: "default", eager: true }) as Record<string, string>;
const sources = Object.keys(texts).map((path) => path.replace("../../", ""));
const keys = new Set(BUCKETS.map((b) => b.key));

describe("the bench's CPU buckets", () => {
  it("give every file of src/ a bucket of the table by a rule, none to the default", () => {
    expect(sources.length).toBeGreaterThan(50);
    const unnamed = sources.filter((path) => bucketOfPath(path) === OTHER);
    expect(unnamed, "add a rule for each of these to RULES in bench/lib/buckets.mjs").toEqual([]);
    for (const rule of RULES) expect(keys, `rule for ${rule.bucket}`).toContain(rule.bucket);
  });

  it("keep a file's bucket when it moves into a folder of its own, or its folder moves", () => {
    const moved = sources.flatMap((path) => {
      const rest = path.replace(/^src\//, "");
      const before = bucketOfPath(path);
      // A loose file put in a folder no rule names, and a whole folder put under another.
      const after = rest.includes("/") ? [`src/parts/${rest}`] : [`src/edge/${rest}`, `src/parts/edge/${rest}`];
      return after.filter((to) => bucketOfPath(to) !== before).map((to) => `${path} (${before}) -> ${to} (${bucketOfPath(to)})`);
    });
    expect(moved).toEqual([]);
  });

  it("tell a file by its folder where names repeat, and by its name alone at the top", () => {
    expect(bucketOfPath("src/record/store.ts")).toBe("storage");
    expect(bucketOfPath("src/sandbox/store.ts")).toBe("sandbox");
    expect(bucketOfPath("src/events/log.ts")).toBe("d1");
    expect(bucketOfPath("src/shared/log.ts")).toBe("logging");
    expect(bucketOfPath("src/events/index.ts")).toBe("queue");
    expect(bucketOfPath("src/index.ts")).toBe("routing");
    expect(bucketOfPath("src/risk/new-counter.ts")).toBe("record");
    expect(bucketOfPath("src/upstream/new-call.ts")).toBe("upstream");
    // The create's steps, and its new object's start, are the create's, not the routing's of the folder that holds them.
    expect(bucketOfPath("src/operations/creation.ts")).toBe("create");
    expect(bucketOfPath("src/operations/receipts.ts")).toBe("routing");
  });

  it("give the receipt's Durable Object call its own bucket on the line of every operation that makes it", () => {
    // Each operation's handler line that calls the record object's method of that name: pay, authorize, check...
    const calls = Object.entries(texts)
      .filter(([path]) => bucketOfPath(path) === "routing")
      .flatMap(([, text]) => text.split("\n"))
      .filter((line) => /\.(pay|authorize|check|cancel|holdConfirm|auditTrail)\(/.test(line) && /=>|receiptStub/.test(line));
    expect(calls.length).toBeGreaterThanOrEqual(6);
    expect(calls.filter((line) => !STUB_CALL.test(line))).toEqual([]);
    expect(STUB_CALL.test("  const body = await c.req.json();")).toBe(false);
  });

  it("count a file no rule names, and a package no rule names, where the table shows them", () => {
    expect(bucketOfPath("src/a-file-nobody-named.ts")).toBe(OTHER);
    expect(keys).toContain(OTHER);
    expect(bucketOfPackage("jose")).toBe("auth");
    expect(bucketOfPackage("hono")).toBe("routing");
  });
});
