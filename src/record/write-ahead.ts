/**
 * Rule 8's write-ahead note: before a call that may change the record
 * upstream leaves, a note of it is durably stored, and the alarm is set for
 * when the call must have ended; the note is cleared in the same step that
 * stores the call's outcome. A note found with no call in flight means the
 * outcome is unknown: only the upstream can say (src/record/reconciler.ts).
 */

import { clock } from "../clock";
import type { Alarm } from "./alarm";
import type { RecordStore } from "./store";

export class WriteAhead {
  readonly #store: RecordStore;
  readonly #storage: DurableObjectStorage;
  readonly #alarm: Alarm;
  readonly #upstreamTimeoutMs: number;

  constructor(store: RecordStore, storage: DurableObjectStorage, alarm: Alarm, upstreamTimeoutMs: number) {
    this.#store = store;
    this.#storage = storage;
    this.#alarm = alarm;
    this.#upstreamTimeoutMs = upstreamTimeoutMs;
  }

  /**
   * Notes the call durably, then sends it. The note is written and flushed
   * before the request leaves (sync(); the output gate would hold the
   * request anyway), so a crash mid-call is reconciled with no caller.
   */
  async around<T>(op: string, withOtp: boolean, requestId: string, call: () => Promise<T>): Promise<T> {
    const now = clock.now();
    this.#store.update({ pending_op: op, pending_otp: withOtp ? 1 : 0, pending_since: now, pending_request_id: requestId });
    this.#alarm.set(now + this.#upstreamTimeoutMs + 1000);
    await this.#storage.sync();
    return call();
  }

  /** The call's outcome is being stored. Inside that change. */
  clear(): void {
    this.#store.update({ pending_op: null, pending_otp: 0, pending_since: 0, pending_request_id: null });
  }
}
