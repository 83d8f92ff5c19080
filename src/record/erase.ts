/**
 * Rule 10's erasure of one record: every store the record's object keeps
 * that src/stores.ts says the record erases (its row's body and create's
 * answer, its outbox's event bodies, the answers kept for Idempotency-Keys),
 * each by the part that owns it. The map is typed by the list, so a store
 * added there to be erased by the record has no build until its eraser is
 * here. One change: all of it lands, or none. Used by the object's erase and
 * by a restore that brings back a record from before its erasure.
 */
import { implementations, type StoreErasedBy, storesErasedBy } from "../stores";
import type { RecordParts } from "./parts";

export function eraseRecord(parts: Pick<RecordParts, "store" | "recorder" | "outbox" | "keys">): void {
  const erasers: Record<StoreErasedBy<"record">, () => void> = {
    record: () => parts.recorder.erase(),
    record_events: () => parts.outbox.erase(),
    idempotency_keys: () => parts.keys.erase(),
  };
  parts.store.change(() => {
    for (const erase of implementations(storesErasedBy("record"), erasers)) erase();
  });
}
