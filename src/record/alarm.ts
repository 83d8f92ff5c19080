import { clock } from "../shared/clock";

/**
 * The record object's one alarm, with what this incarnation knows of it, so
 * that an alarm already set early enough is left alone: moving it would cost
 * a storage write for nothing (Cloudflare bills each `setAlarm()` as a row
 * written). An incarnation starts knowing the alarm an earlier one left
 * (`found`), so a cold operation does not set again one already due in time.
 */
export class Alarm {
  readonly #storage: DurableObjectStorage;
  /** The alarm this incarnation set (null: none; undefined: not set since it started). */
  #at: number | null | undefined = undefined;
  /** The alarm storage held when this incarnation started, by the deployment's time (undefined: not read, or no longer true). */
  #found: number | null | undefined = undefined;

  constructor(storage: DurableObjectStorage) {
    this.#storage = storage;
  }

  /** What storage holds as this incarnation starts (read before its first call). */
  found(at: number | null): void {
    if (this.#at === undefined) this.#found = at;
  }

  /** The alarm has fired, or storage was deleted with it: none is set until the next set(). */
  fired(): void {
    this.#at = null;
    this.#found = undefined;
  }

  /** The record's own time moved (the sandbox's test clock): the alarm set is set again, where its time now falls. */
  moved(): void {
    this.#at = undefined;
    this.#found = undefined;
  }

  /** The alarm as this incarnation knows it, in the record's own time (undefined: not known). */
  #known(): number | null | undefined {
    if (this.#at !== undefined) return this.#at;
    // `found` is the deployment's time; the record's own time is that plus its offset (src/shared/clock.ts).
    return typeof this.#found === "number" ? this.#found + clock.recordOffset() : this.#found;
  }

  /** An alarm is known to be set between now and `latest`. */
  setWithin(now: number, latest: number): boolean {
    const at = this.#known();
    return typeof at === "number" && at >= now && at <= latest;
  }

  set(at: number | null): void {
    if (at === this.#known()) {
      this.#at = at;
      return;
    }
    if (at === null) {
      // Not set by this incarnation: an alarm left over would fire and find nothing to do; not worth a write.
      if (this.#at === undefined) return;
      this.#storage.deleteAlarm();
    } else {
      // `at` is the record's own time (src/shared/clock.ts); the runtime fires by the deployment's.
      this.#storage.setAlarm(at - clock.recordOffset());
    }
    this.#at = at;
  }
}
