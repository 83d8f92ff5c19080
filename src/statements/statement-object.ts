/**
 * Rule 16's builder: one Durable Object per day (its date in
 * STATEMENT_TIMEZONE) writes that day's statement to R2 (`STATEMENTS`) as
 * CSV and JSON, in bounded steps, each an alarm invocation of its own
 * (docs/design.md, "The daily statement"): a step reads at most PAGE log rows
 * per database after its cursor there, merges them in event-id (time) order,
 * emits at most STEP_LINES lines and checks at most CHECKS_PER_STEP of them
 * with the payment service, and appends the lines to two multipart uploads,
 * a part of PART_BYTES at a time (R2 wants every part but the last of one
 * size); what is short of a part waits in the object's storage. The last
 * step writes the totals and the mismatches, completes both uploads and
 * writes the day's summary. A statement being rebuilt leaves the one before
 * served until the new one is complete.
 */
import { DurableObject } from "cloudflare:workers";
import { log } from "../shared/log";
import { checkLines } from "./check";
import { nextLines } from "./day-log";
import { dayBounds, localTime, statementTimezone } from "./days";
import { CSV_HEADER, csvRow, statementKeys, UTF8_BOM } from "./format";
import { type Run, RunStorage, type StatementStatus, statusOf } from "./run";
import { closingText, jsonHead, lineText } from "./statement-text";
import { abortUploads, appendToUpload, openUpload } from "./uploads";

/** How long a day's object keeps its state once its statement is written: past the event log's week, when no rebuild of the day is accepted. */
export const KEEP_AFTER_DONE_MS = 8 * 86_400_000;

/**
 * The day's builder: a host of its parts (the run's storage, the day's
 * lines, the check, the text, the uploads), one step at a time.
 */
export class StatementObject extends DurableObject<Env> {
  readonly #storage: RunStorage;
  #busy: Promise<unknown> = Promise.resolve();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#storage = new RunStorage(ctx.storage.sql);
  }

  /** The nightly run's: starts the day's statement unless it is written (complete) or under way. */
  ensure(date: string, now: number): Promise<StatementStatus> {
    return this.#serially(async () => {
      const run = this.#storage.run();
      if (run && run.date === date && (run.done_at === null || run.complete)) return statusOf(run);
      return statusOf(await this.#start(date, now));
    });
  }

  /** statements/rebuild: starts the day's statement over; its steps follow as alarms of their own. */
  rebuild(date: string, now: number): Promise<StatementStatus> {
    return this.#serially(async () => {
      const before = this.#storage.run();
      if (before && before.done_at === null) await abortUploads(this.env.STATEMENTS, [before.csv, before.json]);
      return statusOf(await this.#start(date, now, (before?.generation ?? 0) + 1));
    });
  }

  async status(): Promise<StatementStatus | null> {
    const run = this.#storage.run();
    return run ? statusOf(run) : null;
  }

  override async alarm(): Promise<void> {
    await this.#serially(async () => {
      const run = this.#storage.run();
      if (run && run.done_at === null) await this.#step(run);
      // Its end (rule 10): the statement is in R2; the object's state goes once no rebuild of the day is accepted.
      else if (run && Date.now() >= run.done_at! + KEEP_AFTER_DONE_MS) await this.ctx.storage.deleteAll();
    });
  }

  #serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#busy.then(work, work);
    this.#busy = next.catch(() => undefined);
    return next;
  }

  async #start(date: string, now: number, generation = (this.#storage.run()?.generation ?? 0) + 1): Promise<Run> {
    const zone = statementTimezone(this.env);
    const { from, to } = dayBounds(date, zone);
    const keys = statementKeys(date);
    const csv = await openUpload(this.env.STATEMENTS, keys.csv, "text/csv; charset=utf-8");
    const json = await openUpload(this.env.STATEMENTS, keys.json, "application/json");
    const run: Run = {
      date,
      generation,
      zone,
      from,
      to,
      complete: now >= to,
      started_at: now,
      cursors: {},
      exhausted: {},
      totals: {},
      mismatches: [],
      mismatch_count: 0,
      checked: 0,
      lines: 0,
      csv,
      json,
      done_at: null,
    };
    this.#storage.clearTails();
    this.#storage.saveTail("csv", new TextEncoder().encode(`${UTF8_BOM}${csvRow(CSV_HEADER)}`));
    this.#storage.saveTail("json", new TextEncoder().encode(jsonHead(run)));
    this.#storage.save(run);
    await this.ctx.storage.setAlarm(Date.now());
    log("info", "statement_started", { date, generation, complete: run.complete });
    return run;
  }

  /** One step: the next lines of the day, checked and appended to both files; the totals and the end when none is left. */
  async #step(run: Run): Promise<Run> {
    const began = Date.now();
    const partsBefore = run.csv.parts.length + run.json.parts.length;
    const page = await nextLines(this.env, run);
    await checkLines(this.env, run, page.toCheck);
    let csvText = "";
    let jsonText = "";
    for (const line of page.lines) {
      const text = lineText(run, line, localTime(line.at, run.zone));
      csvText += text.csv;
      jsonText += text.json;
    }
    const { done } = page;
    if (done) {
      run.done_at = Date.now();
      const text = closingText({ ...run, done_at: run.done_at });
      csvText += text.csv;
      jsonText += text.json;
    }
    const csvTail = await appendToUpload(this.env.STATEMENTS, run.csv, this.#storage.tail("csv"), csvText, done);
    const jsonTail = await appendToUpload(this.env.STATEMENTS, run.json, this.#storage.tail("json"), jsonText, done);
    if (done) await this.#summarize(run);
    this.#storage.saveTail("csv", csvTail);
    this.#storage.saveTail("json", jsonTail);
    this.#storage.save(run);
    // What a step costs, against an alarm's limits (bench/statement.mjs reads these lines).
    log("info", "statement_step", {
      date: run.date,
      generation: run.generation,
      ms: Date.now() - began,
      databases: page.databases,
      rows_read: page.rowsRead,
      lines: page.lines.length,
      checks: page.toCheck.length,
      parts_uploaded: run.csv.parts.length + run.json.parts.length - partsBefore,
      tail_bytes: csvTail.length + jsonTail.length,
      done,
    });
    await this.ctx.storage.setAlarm(done ? run.done_at! + KEEP_AFTER_DONE_MS : Date.now());
    return run;
  }

  /** The day's summary beside its files, once both are complete. */
  async #summarize(run: Run): Promise<void> {
    const totals = Object.values(run.totals);
    await this.env.STATEMENTS.put(
      statementKeys(run.date).summary,
      JSON.stringify({
        ...statusOf(run),
        totals: totals.map((t) => ({ ...t, amount: Number(t.amount), commission: Number(t.commission) })),
        csv_bytes: run.csv.bytes,
        json_bytes: run.json.bytes,
      }),
      { httpMetadata: { contentType: "application/json" } },
    );
    log("info", "statement_written", {
      date: run.date,
      generation: run.generation,
      lines: run.lines,
      checked: run.checked,
      mismatches: run.mismatch_count,
      complete: run.complete,
    });
  }
}
