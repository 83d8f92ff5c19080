/**
 * Which part of a record's object owns which columns of its row: every part
 * owns its columns alone (its slice), and a column claimed by two parts is a
 * wiring error, refused when the parts are made.
 */
import type { RecordFields, Slice } from "./row";

/** How a slice writes the row (the store's): through the change in hand. */
export interface SliceWriter {
  update(fields: RecordFields): void;
  later(fields: RecordFields): void;
}

export class Slices {
  readonly #writer: SliceWriter;
  readonly #owners = new Map<string, string>();

  constructor(writer: SliceWriter) {
    this.#writer = writer;
  }

  /** The writer of one part's columns; it refuses any other column. */
  slice<K extends keyof RecordFields>(part: string, columns: readonly K[]): Slice<K> {
    for (const column of columns) {
      const owner = this.#owners.get(column);
      if (owner !== undefined && owner !== part) throw new Error(`record column ${column} belongs to ${owner}, not ${part}`);
      this.#owners.set(column, part);
    }
    const mine = new Set<string>(columns);
    const own = (fields: RecordFields) => {
      for (const key of Object.keys(fields)) if (!mine.has(key)) throw new Error(`${part} may not write ${key}`);
      return fields;
    };
    return {
      update: (fields) => this.#writer.update(own(fields)),
      later: (fields) => this.#writer.later(own(fields)),
    };
  }

  /** Which part owns each column (for the test that every mutable column has exactly one). */
  get owners(): ReadonlyMap<string, string> {
    return this.#owners;
  }
}
