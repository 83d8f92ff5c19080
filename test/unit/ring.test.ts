// The ring's arithmetic: a slot is emptied only when every row it took is
// past its window, and never while it takes rows.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RING_SLOTS, slotAt, slotPeriodMs, slotToEmpty } from "../../src/d1/ring";

describe("a table kept as a ring of slots", () => {
  it("empties, at any time, a slot none of whose rows is still within the window", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 400 * 86_400_000 }), fc.integer({ min: 2 ** 40, max: 2 ** 45 }), (windowMs, now) => {
        const period = slotPeriodMs(windowMs);
        const emptied = slotToEmpty(now, period);
        // Times are after 2004 (a slot of a time before 1970 would be negative). The latest time before `now` a
        // row went to the emptied slot: the end of its last period before now.
        const current = Math.floor(now / period);
        const lastPeriod = current + 1 - RING_SLOTS;
        const youngest = (lastPeriod + 1) * period - 1;
        expect(slotAt(youngest, period)).toBe(emptied);
        expect(youngest + windowMs).toBeLessThan(now + 1);
        // And it is not the slot written now.
        expect(emptied).not.toBe(slotAt(now, period));
      }),
    );
  });

  it("writes each period to the next slot, round the ring", () => {
    const period = slotPeriodMs(7 * 86_400_000);
    expect(period).toBe(Math.ceil((7 * 86_400_000) / (RING_SLOTS - 2)));
    const slots = Array.from({ length: RING_SLOTS + 1 }, (_, i) => slotAt(i * period, period));
    expect(slots).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 0]);
    expect(slotToEmpty(RING_SLOTS * period - 1, period)).toBe(0);
  });
});
