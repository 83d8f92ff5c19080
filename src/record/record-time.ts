/**
 * The sandbox's test clock on one record (src/console/test-clock.ts; never
 * called in production): its own time moved forward, and its alarm run as
 * the runtime would once that time came.
 */
import { clock, inRecordTime } from "../shared/clock";
import type { Alarm } from "./alarm";
import type { RecordRow, RecordStore, Slice } from "./store";
import type { Wake } from "./wake";

/** What a record shows after the sandbox's test clock moved it (advanceTime). */
export interface AdvancedRecord {
  /** The record's own time now. */
  now: number;
  state: number | null;
  /** Rule 10 ended it: nothing is stored any more. */
  ended: boolean;
  /** The types of the events it made meanwhile, oldest first. */
  events: string[];
}

interface Host {
  store: RecordStore;
  time: Slice<"clock_offset">;
  alarm: Alarm;
  wake: Wake;
  /** The record as stored, or null (nothing stored, or stored by a newer release). */
  stored: () => RecordRow | null;
}

/**
 * Moves the record's own time `byMs` forward (stored in its row, so every
 * later call and alarm reads it) and, with `fire`, then runs its alarm; else
 * only sets the alarm where its time now falls. Answers what the record
 * shows afterwards and the events it made meanwhile; null when nothing is
 * stored (never made, or ended by rule 10).
 */
export async function shiftRecordTime({ store, time, alarm, wake, stored }: Host, byMs: number, fire: boolean): Promise<AdvancedRecord | null> {
  const rec = stored();
  if (!rec) return null;
  const before = new Set(store.outbox.eventIds());
  const offset = rec.clock_offset + byMs;
  // No change of the record: every window counts from its last change, in its own time.
  time.later({ clock_offset: offset });
  store.writeUnchanged();
  alarm.moved();
  return inRecordTime(offset, async () => {
    if (fire) await wake.fired();
    else wake.arm({ drainNow: false, replace: true });
    const after = store.current;
    if (!after || !stored()) return { now: clock.now(), state: null, ended: true, events: [] };
    const made = store.outbox.eventIds().filter((id) => !before.has(id));
    const bodies = store.outbox.eventBodies(made);
    const events = made.map((id) => (JSON.parse(bodies[id] ?? "{}") as { type?: string }).type ?? "unknown");
    return { now: clock.now(), state: after.state, ended: false, events };
  });
}
