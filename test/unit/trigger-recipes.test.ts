// `npm run trigger` (scripts/trigger.mjs) has a recipe for every event type
// the reference lists, and for nothing else; each kind as the type names it.
import { describe, expect, it } from "vitest";
import { RECIPES } from "../../scripts/trigger.mjs";
import { EVENT_TYPE_NAMES, kindOfEvent } from "../../src/events/types";

describe("npm run trigger", () => {
  it("makes every event type, each on a record of its kind", () => {
    expect(Object.keys(RECIPES).sort()).toEqual([...EVENT_TYPE_NAMES].sort());
    for (const type of EVENT_TYPE_NAMES) expect(RECIPES[type]!.kind, type).toBe(kindOfEvent(type));
  });
});
