/**
 * The gateway's one structured logger: a JSON line per log event, every
 * field passed through `redact` first (src/shared/redact.ts), so no card number,
 * OTP, token, key or JWT reaches a log line.
 *
 * The canonical line: each invocation (a request, a record's alarm, a queue
 * batch, a cron run) writes one line when it ends, carrying what it did: the
 * request's route, status and error code, the upstream calls' names,
 * outcomes and milliseconds, the record's state change, rule 13's refusals,
 * and every info event logged meanwhile, under its own name. An event at
 * `warn` or `error` is a fault on-call needs at once: it keeps a line of its
 * own, written when it happens, and the canonical line names it in `faults`
 * and takes its level. Workers Logs bills each line's bytes plus ~600 B of
 * its own enrichment, and each line costs the request path CPU: one line an
 * invocation instead of one an event.
 *
 * Sampled successes: a line that tells nothing on-call must see (a success,
 * quick, no refusal, no look at the upstream the gateway made on its own; a
 * record's routine end, rule 10's deletion, is one) is written with
 * probability LOG_SUCCESS_SAMPLE and then says `sample`, how many lines it
 * stands for (1 / LOG_SUCCESS_SAMPLE; 1 in development, where every line is
 * written). A line without `sample` is always written: see `remarkable`. The
 * draw is a hash of the request id, so a request's lines in the Worker and in
 * its objects are kept or dropped together; a line without a request id
 * (an alarm, a queue batch) draws on its own. Counts of successes come from
 * Analytics Engine, or from lines weighed by `sample` (docs/alerts.md).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { fnv1a } from "./fnv1a";
import { redact } from "./redact";

export type LogLevel = "debug" | "info" | "warn" | "error";

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** One upstream call as the canonical line carries it. */
export interface UpstreamCallNote {
  path: string;
  status?: number;
  /** `ok`, the upstream's code, or `timeout`, `network_error`, `unreadable`. */
  outcome: string;
  ms: number;
}

/** What a line gathered that another invocation's line takes over (a record's call, answered to the request that made it). */
export interface LineNotes {
  level: LogLevel;
  fields: Record<string, unknown>;
  upstream: UpstreamCallNote[];
  faults: string[];
  /** The gateway acted on its own (a look at the upstream: rule 8's reconciliation, a late or fiscal read, rule 12's expiry): the line is always written. */
  keep?: boolean;
}

/** An invocation this slow (its `ms`, or its upstream calls' together) is always written: the tail on-call looks at. */
export const SLOW_LINE_MS = 1_000;

/** The draw of a line without a request id (a test replaces it to see either side). */
export const lineSampling = { draw: (): number => Math.random() };

/** Where a request id falls in [0, 1): the same for every line of the request, wherever it is written. */
export const requestDraw = (requestId: string): number => fnv1a(requestId) / 2 ** 32;

/** Whether a line drawn at `draw` is kept at LOG_SUCCESS_SAMPLE `rate`. */
export const keptAt = (draw: number, rate: number): boolean => draw < rate;

/** The canonical line of one invocation, gathered while it runs. */
export class LogLine {
  #level: LogLevel = "info";
  readonly #event: string;
  readonly #fields: Record<string, unknown>;
  readonly #upstream: UpstreamCallNote[] = [];
  readonly #faults: string[] = [];
  #closed = false;
  /** Whether anything was logged into the line since it opened. */
  #noted = false;
  readonly #quiet: boolean;
  /** LOG_SUCCESS_SAMPLE: the share of unremarkable lines written; null: never sampled (the cron's line). */
  readonly #sample: number | null;
  /** The gateway acted on its own: written whatever else it tells. */
  #keep = false;

  /**
   * `quiet`: the line is written only if something was logged into it (a record's alarm that only drained its
   * outbox or exported its trail has nothing to tell, and wrote no line before the canonical line either).
   * `sample`: LOG_SUCCESS_SAMPLE, the share of unremarkable lines written, drawn on the line's `request_id` if it
   * has one; without it the line is never sampled (the cron's: a run a minute, each one on-call may need).
   */
  constructor(event: string, fields: Record<string, unknown> = {}, { quiet = false, sample }: { quiet?: boolean; sample?: number } = {}) {
    this.#event = event;
    this.#fields = { ...fields };
    this.#quiet = quiet;
    this.#sample = sample ?? null;
  }

  get open(): boolean {
    return !this.#closed;
  }

  /** Sets fields of the line itself (its status, its record); `news`: they are something to tell (a state change), which a quiet line is written for. */
  set(fields: Record<string, unknown>, news = false): void {
    if (news) this.#noted = true;
    Object.assign(this.#fields, fields);
  }

  /** An event folded into the line under its own name; the same event twice is a list. */
  add(event: string, fields: Record<string, unknown>, level: LogLevel = "info"): void {
    this.#noted = true;
    this.#raise(level);
    const before = this.#fields[event];
    this.#fields[event] = before === undefined ? fields : Array.isArray(before) ? [...before, fields] : [before, fields];
  }

  /** An item of a list the line keeps under `key` (a queue batch's deliveries): a list even when it holds one. */
  push(key: string, item: Record<string, unknown>): void {
    this.#noted = true;
    const list = this.#fields[key];
    if (Array.isArray(list)) list.push(item);
    else this.#fields[key] = [item];
  }

  call(note: UpstreamCallNote): void {
    this.#noted = true;
    this.#upstream.push(note);
  }

  /** A fault that wrote its own line: named here, at its level. */
  fault(event: string, level: LogLevel): void {
    this.#noted = true;
    this.#raise(level);
    if (!this.#faults.includes(event)) this.#faults.push(event);
  }

  /** The gateway acted on its own (a look at the upstream: rule 8's reconciliation, a late or fiscal read, rule 12's expiry): the line is always written. */
  keep(): void {
    this.#noted = true;
    this.#keep = true;
  }

  /** Takes over what another invocation's line gathered for this one. */
  merge(notes: LineNotes): void {
    this.#noted = true;
    if (notes.keep) this.#keep = true;
    this.#raise(notes.level);
    Object.assign(this.#fields, notes.fields);
    this.#upstream.push(...notes.upstream);
    for (const fault of notes.faults) if (!this.#faults.includes(fault)) this.#faults.push(fault);
  }

  /** What the line gathered, closed: for a record's call to hand back with its answer. */
  take(): LineNotes {
    this.#closed = true;
    return { level: this.#level, fields: this.#fields, upstream: this.#upstream, faults: this.#faults, ...(this.#keep ? { keep: true } : {}) };
  }

  /** Writes the line, once (a quiet line only if something was logged into it; an unremarkable one if its draw keeps it). */
  write(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#quiet && !this.#noted) return;
    const upstream = this.#upstream;
    let sampled = {};
    if (this.#sample !== null && !this.#remarkable()) {
      const id = this.#fields.request_id;
      const draw = typeof id === "string" && id !== "" ? requestDraw(id) : lineSampling.draw();
      if (!keptAt(draw, this.#sample)) return;
      sampled = { sample: Math.round(1000 / this.#sample) / 1000 };
    }
    const calls = upstream.length === 0 ? {} : upstreamFields(upstream);
    const faults = this.#faults.length === 0 ? {} : { faults: this.#faults };
    writeLine(this.#level, this.#event, { ...this.#fields, ...calls, ...faults, ...sampled });
  }

  /**
   * Always written, never sampled: a warning or an error (a fault, which raises the line to its level; rule 13's
   * refusals), an answer of 4xx or 5xx
   * (every rule's refusal), an upstream call that did not answer ok (refused, failed, timed out, unreadable), what
   * the gateway did on its own (`keep`), and a slow invocation (SLOW_LINE_MS).
   */
  #remarkable(): boolean {
    const status = this.#fields.status;
    const ms = this.#fields.ms;
    return (
      RANK[this.#level] >= RANK.warn ||
      this.#keep ||
      (typeof status === "number" && status >= 400) ||
      this.#upstream.some((c) => c.outcome !== "ok") ||
      (typeof ms === "number" && ms >= SLOW_LINE_MS) ||
      this.#upstream.reduce((sum, c) => sum + c.ms, 0) >= SLOW_LINE_MS
    );
  }

  #raise(level: LogLevel): void {
    if (RANK[level] > RANK[this.#level]) this.#level = level;
  }
}

/**
 * The upstream calls as the line carries them, flat for a query and short (Workers Logs bills each byte, and
 * printing a longer line costs the request more CPU): `upstream`, the paths called; `upstream_outcome` and
 * `upstream_status`, the first call's that was not `ok`, else the last call's; `upstream_ms`, their
 * milliseconds together; and, when there were several, each one in `upstream_calls`.
 */
function upstreamFields(calls: readonly UpstreamCallNote[]): Record<string, unknown> {
  const call = calls.find((c) => c.outcome !== "ok") ?? calls.at(-1)!;
  return {
    upstream: calls.map((c) => c.path).join(" "),
    upstream_outcome: call.outcome,
    ...(call.status === undefined ? {} : { upstream_status: call.status }),
    upstream_ms: calls.reduce((ms, c) => ms + c.ms, 0),
    ...(calls.length > 1 ? { upstream_calls: calls } : {}),
  };
}

const lines = new AsyncLocalStorage<LogLine>();

/** Runs `work` with `line` as its invocation's line: whatever it logs (and awaits) is gathered there until the line is written or taken. */
export function inLine<T>(line: LogLine, work: () => T): T {
  return lines.run(line, work);
}

/** The open line of the invocation this runs in, if any. */
export function currentLine(): LogLine | undefined {
  const line = lines.getStore();
  return line?.open ? line : undefined;
}

/**
 * One log event. Inside an invocation's open line an info (or debug) event
 * is folded into it; a warning or an error is written at once, on a line of
 * its own, and named in the canonical line's `faults`. Outside any line (or
 * after it was written) every event is a line of its own.
 */
export function log(level: LogLevel, event: string, fields: Record<string, unknown> = {}): void {
  const line = currentLine();
  if (line && RANK[level] <= RANK.info) {
    line.add(event, fields, level);
    return;
  }
  line?.fault(event, level);
  writeLine(level, event, fields);
}

/**
 * An event the canonical line carries at `level` whatever it is (rule 13's
 * refusals: a warning on-call reads beside the request that met it, not a
 * fault); outside any line, a line of its own.
 */
export function note(level: LogLevel, event: string, fields: Record<string, unknown>): void {
  const line = currentLine();
  if (line) line.add(event, fields, level);
  else writeLine(level, event, fields);
}

/** The gateway acted on its own (a look at the upstream: rule 8's reconciliation, a late or fiscal read, rule 12's expiry): its invocation's line is always written. */
export function keepLine(): void {
  currentLine()?.keep();
}

/** An upstream call: on the invocation's line, or a line of its own outside one. */
export function noteUpstreamCall(requestId: string, call: UpstreamCallNote): void {
  const line = currentLine();
  if (line) line.call(call);
  else writeLine("info", "upstream_call", { request_id: requestId, ...call });
}

/** One structured line. The only way the gateway writes to the console. */
function writeLine(level: LogLevel, event: string, fields: Record<string, unknown>): void {
  const line = JSON.stringify({ level, event, ...(redact(fields) as Record<string, unknown>) });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}
