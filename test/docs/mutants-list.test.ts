/**
 * `npm run test:mutants` (scripts/mutants.mjs) takes minutes, so it is not part
 * of `npm test`; this is: every mutation's line must still be in its file
 * exactly once, so a refactor that moves a money rule's line fails here at
 * once instead of leaving the mutation list testing nothing.
 */
import { describe, expect, it } from "vitest";
import { MUTANTS } from "../../scripts/mutants.list.mjs";

const sources = import.meta.glob("../../src/**/*.ts", { query: "?raw", import: "default", eager: true }) as Record<string, string>;

describe("the mutation list of npm run test:mutants", () => {
  it("names at least twenty mutations, each of a line found exactly once in its file", () => {
    expect(MUTANTS.length).toBeGreaterThanOrEqual(20);
    const stale = MUTANTS.flatMap((m) => {
      const text = sources[`../../${m.file}`];
      if (text === undefined) return [`${m.name}: no file ${m.file}`];
      const count = text.split(m.find).length - 1;
      if (count !== 1) return [`${m.name}: found ${count} times in ${m.file}`];
      return m.find === m.replace ? [`${m.name}: changes nothing`] : [];
    });
    expect(stale).toEqual([]);
  });
});
