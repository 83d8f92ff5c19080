import { clock } from "../shared/clock";

/**
 * The record object's one alarm, with what this incarnation knows of it, so
 * that an alarm already set early enough is left alone: moving it would cost
 * a storage write for nothing.
 */
export class Alarm {
  readonly #storage: DurableObjectStorage;
  /** The alarm this incarnation set (null: none; undefined: not known since it started). */
  #at: number | null | undefined = undefined;

  constructor(storage: DurableObjectStorage) {
    this.#storage = storage;
  }

  /** The alarm has fired, or storage was deleted with it: none is set until the next set(). */
  fired(): void {
    this.#at = null;
  }

  /** The record's own time moved (the sandbox's test clock): the alarm set is set again, where its time now falls. */
  moved(): void {
    this.#at = undefined;
  }

  /** An alarm is known to be set between now and `latest`. */
  setWithin(now: number, latest: number): boolean {
    return typeof this.#at === "number" && this.#at >= now && this.#at <= latest;
  }

  set(at: number | null): void {
    if (at === this.#at) return;
    if (at === null) {
      // Unknown since this incarnation started: an alarm left over would fire and find nothing to do; not worth a write.
      if (this.#at === undefined) return;
      this.#storage.deleteAlarm();
    } else {
      // `at` is the record's own time (src/shared/clock.ts); the runtime fires by the deployment's.
      this.#storage.setAlarm(at - clock.recordOffset());
    }
    this.#at = at;
  }
}
