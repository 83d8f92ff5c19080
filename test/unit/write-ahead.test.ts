// Rule 8's window for the alarm a write-ahead note rides: within the minute
// of a crash right after the note, less the look's own read and the alarm's
// delay; never before the noted call could have ended.
import { describe, expect, it } from "vitest";
import { noteLookBy } from "../../src/record/write-ahead";

describe("the alarm a note may ride", () => {
  it("at production's 10 s timeout: due within 45 s of the note", () => {
    expect(noteLookBy(0, 10_000)).toBe(45_000);
  });

  it("a call that may run longer: never before it could have ended, whatever the minute leaves", () => {
    expect(noteLookBy(0, 30_000)).toBe(31_000);
  });
});
