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
import { inPool } from "../d1/fanout";
import { allShards } from "../d1/shards";
import { EVENT_TYPE_CODES, idAt } from "../events/log-database";
import { CHANGE_OF_CODE, commissionOf, LINE_EVENT_TYPES, lineFields, type StatementChange } from "../events/statement-lines";
import { metric } from "../metrics/metrics";
import { receiptStub } from "../record-stub";
import { type KindName, kindNamed, type RecordBody } from "../rules/kinds";
import { log } from "../shared/log";
import { UpstreamClient } from "../upstream/client";
import { checkShare, dayBounds, localTime, statementTimezone } from "./days";
import { CSV_HEADER, csvRow, type Mismatch, statementKeys, sumOf, type Total, UTF8_BOM } from "./format";

export const PART_BYTES = 5 * 1024 * 1024;
/** Log rows read per database per step. */
export const PAGE = 2_000;
/** Lines a step emits at most. */
export const STEP_LINES = 20_000;
/** Lines a step checks with the payment service at most. */
export const CHECKS_PER_STEP = 200;
/** How long a day's object keeps its state once its statement is written: past the event log's week, when no rebuild of the day is accepted. */
export const KEEP_AFTER_DONE_MS = 8 * 86_400_000;
/** Mismatches kept in full; more are counted. */
const MISMATCHES_KEPT = 10_000;

interface Upload {
  key: string;
  uploadId: string;
  parts: R2UploadedPart[];
  bytes: number;
}

interface Run {
  date: string;
  generation: number;
  zone: string;
  from: number;
  to: number;
  /** The day had ended when the build began: a statement of a day not over yet is partial, and written again after it. */
  complete: boolean;
  started_at: number;
  cursors: Record<string, string>;
  exhausted: Record<string, boolean>;
  totals: Record<string, Total>;
  mismatches: Mismatch[];
  mismatch_count: number;
  checked: number;
  lines: number;
  csv: Upload;
  json: Upload;
  done_at: number | null;
}

export interface StatementStatus {
  date: string;
  state: "building" | "ready" | "none";
  generation: number;
  complete: boolean;
  lines: number;
  checked: number;
  mismatches: number;
  generated_at: number | null;
}

interface Row {
  id: string;
  record_id: string;
  type: number;
  change: number | null;
  amount: number | null;
  commission: number | null;
  merchant: number | null;
  tid: string | null;
  owner: string | null;
  state: number | null;
  fiscal_sign: string | null;
}

interface Line {
  event_id: string;
  id: string;
  kind: KindName;
  at: number;
  change: StatementChange;
  amount: number | null;
  commission: number | null;
  merchant: number | null;
  tid: string | null;
  owner: string | null;
  state: number | null;
  fiscal_sign: string | null;
}

const TYPE_OF_CODE = new Map(Object.entries(EVENT_TYPE_CODES).map(([type, code]) => [code as number, type]));
const LINE_TYPE_CODES = LINE_EVENT_TYPES.map((type) => EVENT_TYPE_CODES[type]);
/** ms of an event id (evt_<ULID>: its first 10 characters after the prefix are the time). */
const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const timeOfId = (id: string): number => [...id.slice(4, 14)].reduce((ms, c) => ms * 32 + CROCKFORD.indexOf(c), 0);

/** Whether a line is one of the share compared with the payment service: by a hash of its event id, so a rebuild checks the same ones. */
function sampled(eventId: string, share: number): boolean {
  if (share >= 1) return true;
  if (share <= 0) return false;
  let hash = 0x811c9dc5;
  for (let i = 0; i < eventId.length; i++) hash = Math.imul(hash ^ eventId.charCodeAt(i), 0x01000193) >>> 0;
  return hash / 0x1_0000_0000 < share;
}

export class StatementObject extends DurableObject<Env> {
  readonly #sql: SqlStorage;
  #busy: Promise<unknown> = Promise.resolve();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    this.#sql.exec(`
      CREATE TABLE IF NOT EXISTS run (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), state TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS tail (file TEXT NOT NULL, n INTEGER NOT NULL, bytes BLOB NOT NULL, PRIMARY KEY (file, n));`);
  }

  /** The nightly run's: starts the day's statement unless it is written (complete) or under way. */
  ensure(date: string, now: number): Promise<StatementStatus> {
    return this.#serially(async () => {
      const run = this.#run();
      if (run && run.date === date && (run.done_at === null || run.complete)) return this.#status(run);
      return this.#status(await this.#start(date, now));
    });
  }

  /** statements/rebuild: starts the day's statement over; its steps follow as alarms of their own. */
  rebuild(date: string, now: number): Promise<StatementStatus> {
    return this.#serially(async () => {
      const before = this.#run();
      if (before && before.done_at === null) await this.#abort(before);
      return this.#status(await this.#start(date, now, (before?.generation ?? 0) + 1));
    });
  }

  async status(): Promise<StatementStatus | null> {
    const run = this.#run();
    return run ? this.#status(run) : null;
  }

  override async alarm(): Promise<void> {
    await this.#serially(async () => {
      const run = this.#run();
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

  #run(): Run | null {
    const row = this.#sql.exec<{ state: string }>("SELECT state FROM run").toArray()[0];
    return row ? (JSON.parse(row.state) as Run) : null;
  }

  #save(run: Run): void {
    this.#sql.exec("INSERT OR REPLACE INTO run (singleton, state) VALUES (1, ?)", JSON.stringify(run));
  }

  #status(run: Run): StatementStatus {
    return {
      date: run.date,
      state: run.done_at === null ? "building" : "ready",
      generation: run.generation,
      complete: run.complete,
      lines: run.lines,
      checked: run.checked,
      mismatches: run.mismatch_count,
      generated_at: run.done_at,
    };
  }

  async #start(date: string, now: number, generation = (this.#run()?.generation ?? 0) + 1): Promise<Run> {
    const zone = statementTimezone(this.env);
    const { from, to } = dayBounds(date, zone);
    const keys = statementKeys(date);
    const csv = await this.env.STATEMENTS.createMultipartUpload(keys.csv, { httpMetadata: { contentType: "text/csv; charset=utf-8" } });
    const json = await this.env.STATEMENTS.createMultipartUpload(keys.json, { httpMetadata: { contentType: "application/json" } });
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
      csv: { key: keys.csv, uploadId: csv.uploadId, parts: [], bytes: 0 },
      json: { key: keys.json, uploadId: json.uploadId, parts: [], bytes: 0 },
      done_at: null,
    };
    this.#sql.exec("DELETE FROM tail");
    const head = `{"date":${JSON.stringify(date)},"timezone":${JSON.stringify(zone)},"from":${from},"to":${to},"complete":${run.complete},"lines":[`;
    this.#saveTail("csv", new TextEncoder().encode(`${UTF8_BOM}${csvRow(CSV_HEADER)}`));
    this.#saveTail("json", new TextEncoder().encode(head));
    this.#save(run);
    await this.ctx.storage.setAlarm(Date.now());
    log("info", "statement_started", { date, generation, complete: run.complete });
    return run;
  }

  async #abort(run: Run): Promise<void> {
    for (const upload of [run.csv, run.json]) {
      try {
        await this.env.STATEMENTS.resumeMultipartUpload(upload.key, upload.uploadId).abort();
      } catch {
        // Gone already: R2 aborts an upload left incomplete by itself after a while.
      }
    }
  }

  #loadTail(file: "csv" | "json"): Uint8Array {
    const chunks = this.#sql.exec<{ bytes: ArrayBuffer }>("SELECT bytes FROM tail WHERE file = ? ORDER BY n", file).toArray();
    const total = chunks.reduce((sum, chunk) => sum + chunk.bytes.byteLength, 0);
    const out = new Uint8Array(total);
    let at = 0;
    for (const chunk of chunks) {
      out.set(new Uint8Array(chunk.bytes), at);
      at += chunk.bytes.byteLength;
    }
    return out;
  }

  /** What is short of a part, kept in chunks of 1 MiB (a row holds at most 2 MB). */
  #saveTail(file: "csv" | "json", bytes: Uint8Array): void {
    this.#sql.exec("DELETE FROM tail WHERE file = ?", file);
    for (let i = 0, n = 0; i < bytes.length; i += 1 << 20, n++)
      this.#sql.exec("INSERT INTO tail (file, n, bytes) VALUES (?, ?, ?)", file, n, bytes.slice(i, i + (1 << 20)));
  }

  /** Appends text to a file: every full part uploaded, the rest kept for the next. */
  async #append(upload: Upload, tail: Uint8Array, text: string, last: boolean): Promise<Uint8Array> {
    const added = new TextEncoder().encode(text);
    let bytes = new Uint8Array(tail.length + added.length);
    bytes.set(tail);
    bytes.set(added, tail.length);
    const multipart = this.env.STATEMENTS.resumeMultipartUpload(upload.key, upload.uploadId);
    while (bytes.length >= PART_BYTES) {
      upload.parts.push(await multipart.uploadPart(upload.parts.length + 1, bytes.slice(0, PART_BYTES)));
      upload.bytes += PART_BYTES;
      bytes = bytes.slice(PART_BYTES);
    }
    if (last) {
      if (bytes.length > 0 || upload.parts.length === 0) {
        upload.parts.push(await multipart.uploadPart(upload.parts.length + 1, bytes));
        upload.bytes += bytes.length;
      }
      await multipart.complete(upload.parts);
      return new Uint8Array(0);
    }
    return bytes;
  }

  /** One step: the next lines of the day, in time order across the databases; the totals and the end when none is left. */
  async #step(run: Run): Promise<Run> {
    const began = Date.now();
    const partsBefore = run.csv.parts.length + run.json.parts.length;
    const shards = allShards(this.env);
    const start = idAt(run.from);
    const end = idAt(run.to);
    const fetched: { binding: string; row: Row }[] = [];
    let boundary = "\uffff";
    await inPool(shards, async ({ binding, db }) => {
      if (run.exhausted[binding]) return;
      const after = run.cursors[binding];
      const { results } = await db
        .prepare(
          `SELECT id, record_id, type, change, amount, commission, merchant, tid, owner, state, fiscal_sign FROM events
           WHERE id ${after ? "> ?1" : ">= ?1"} AND id < ?2 AND (change IS NOT NULL OR type IN (${LINE_TYPE_CODES.join(", ")}))
           ORDER BY id LIMIT ?3`,
        )
        .bind(after ?? start, end, PAGE)
        .all<Row>();
      for (const row of results) fetched.push({ binding, row });
      // A database whose page was full may hold rows before the others' next ones: nothing after its last is emitted yet.
      if (results.length === PAGE && results[results.length - 1]!.id < boundary) boundary = results[results.length - 1]!.id;
      if (results.length < PAGE) run.exhausted[binding] = true;
    });
    fetched.sort((a, b) => (a.row.id < b.row.id ? -1 : a.row.id > b.row.id ? 1 : 0));
    const share = checkShare(this.env);
    const lines: { binding: string; line: Line }[] = [];
    const toCheck: Line[] = [];
    let stoppedEarly = false;
    for (const { binding, row } of fetched) {
      if (row.id > boundary) break;
      if (lines.length >= STEP_LINES || toCheck.length >= CHECKS_PER_STEP) {
        stoppedEarly = true;
        break;
      }
      const line = await this.#lineOf(row);
      run.cursors[binding] = row.id;
      if (!line) continue;
      lines.push({ binding, line });
      if (sampled(line.event_id, share)) toCheck.push(line);
    }
    if (stoppedEarly || fetched.some(({ row }) => row.id > boundary)) {
      // Rows fetched and not emitted are read again next step: their databases are not done.
      for (const { binding, row } of fetched) if (row.id > (run.cursors[binding] ?? "")) run.exhausted[binding] = false;
    }
    await this.#check(run, toCheck);
    let csvText = "";
    let jsonText = "";
    for (const { line } of lines) {
      const time = localTime(line.at, run.zone);
      csvText += csvRow([
        "line",
        run.date,
        time,
        line.id,
        line.kind,
        line.tid ?? "",
        line.owner ?? "",
        line.merchant ?? "",
        line.change,
        line.state ?? "",
        line.amount ?? "",
        line.amount === null ? "" : sumOf(BigInt(line.amount)),
        line.commission ?? "",
        line.commission === null ? "" : sumOf(BigInt(line.commission)),
        line.fiscal_sign ?? "",
        "",
        line.event_id,
        "",
      ]);
      jsonText += `${run.lines > 0 ? "," : ""}\n${JSON.stringify({ id: line.id, kind: line.kind, tid: line.tid, owner: line.owner, merchant_id: line.merchant, change: line.change, state: line.state, amount: line.amount, commission: line.commission, at: line.at, time, fiscal_sign: line.fiscal_sign, event_id: line.event_id })}`;
      run.lines++;
      const key = `${line.merchant ?? ""}|${line.change}`;
      const total = run.totals[key] ?? { merchant_id: line.merchant, change: line.change, count: 0, amount: "0", commission: "0" };
      total.count++;
      total.amount = String(BigInt(total.amount) + BigInt(line.amount ?? 0));
      total.commission = String(BigInt(total.commission) + BigInt(line.commission ?? 0));
      run.totals[key] = total;
    }
    const done = shards.every(({ binding }) => run.exhausted[binding]);
    if (done) {
      const totals = Object.values(run.totals).sort(
        (a, b) => String(a.merchant_id ?? "").localeCompare(String(b.merchant_id ?? "")) || a.change.localeCompare(b.change),
      );
      for (const total of totals) {
        csvText += csvRow([
          "total",
          run.date,
          "",
          "",
          "",
          "",
          "",
          total.merchant_id ?? "",
          total.change,
          "",
          total.amount,
          sumOf(BigInt(total.amount)),
          total.commission,
          sumOf(BigInt(total.commission)),
          "",
          total.count,
          "",
          "",
        ]);
      }
      for (const m of run.mismatches) {
        csvText += csvRow([
          "mismatch",
          run.date,
          "",
          m.id,
          m.kind,
          "",
          "",
          "",
          "",
          "",
          "",
          "",
          "",
          "",
          "",
          "",
          m.event_id,
          `${m.field}: statement ${m.statement}, payment service ${m.upstream}`,
        ]);
      }
      run.done_at = Date.now();
      jsonText += `\n],"totals":${JSON.stringify(totals.map((t) => ({ ...t, amount: Number(t.amount), commission: Number(t.commission), amount_sum: sumOf(BigInt(t.amount)), commission_sum: sumOf(BigInt(t.commission)) })))},"mismatches":${JSON.stringify(run.mismatches)},"mismatches_total":${run.mismatch_count},"checked":${run.checked},"lines_total":${run.lines},"generated_at":${run.done_at}}\n`;
    }
    const csvTail = await this.#append(run.csv, this.#loadTail("csv"), csvText, done);
    const jsonTail = await this.#append(run.json, this.#loadTail("json"), jsonText, done);
    if (done) {
      const totals = Object.values(run.totals);
      await this.env.STATEMENTS.put(
        statementKeys(run.date).summary,
        JSON.stringify({
          ...this.#status(run),
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
    this.#saveTail("csv", csvTail);
    this.#saveTail("json", jsonTail);
    this.#save(run);
    // What a step costs, against an alarm's limits (bench/statement.mjs reads these lines).
    log("info", "statement_step", {
      date: run.date,
      generation: run.generation,
      ms: Date.now() - began,
      databases: shards.length,
      rows_read: fetched.length,
      lines: lines.length,
      checks: toCheck.length,
      parts_uploaded: run.csv.parts.length + run.json.parts.length - partsBefore,
      tail_bytes: csvTail.length + jsonTail.length,
      done,
    });
    await this.ctx.storage.setAlarm(done ? run.done_at! + KEEP_AFTER_DONE_MS : Date.now());
    return run;
  }

  /** A log row as a line: its fields from the row, or (an older release's row) from the event's body its record keeps. */
  async #lineOf(row: Row): Promise<Line | null> {
    const type = TYPE_OF_CODE.get(row.type) ?? "";
    const kind: KindName = type.startsWith("transfer.") ? "transfer" : "receipt";
    const at = timeOfId(row.id);
    if (row.change !== null) {
      const change = CHANGE_OF_CODE.get(row.change);
      if (!change) return null;
      return {
        event_id: row.id,
        id: row.record_id,
        kind,
        at,
        change,
        amount: row.amount,
        commission: row.commission,
        merchant: row.merchant,
        tid: row.tid,
        owner: row.owner,
        state: row.state,
        fiscal_sign: row.fiscal_sign,
      };
    }
    try {
      const bodies = await receiptStub(this.env, kind, row.record_id).eventBodies([row.id]);
      const body = bodies[row.id];
      if (!body) {
        log("error", "statement_event_body_missing", { event_id: row.id, id: row.record_id, kind });
        return null;
      }
      const fields = lineFields(JSON.parse(body));
      return fields ? { event_id: row.id, id: row.record_id, kind, at, ...fields } : null;
    } catch (err) {
      log("error", "statement_event_body_missing", {
        event_id: row.id,
        id: row.record_id,
        kind,
        error: err instanceof Error ? err.message : String(err),
      });
      return null;
    }
  }

  /**
   * Each line with what the payment service shows now: amount, commission,
   * merchant, and the state the gateway knows the record is in (the line's,
   * or its record's now when it changed since). A disagreement is a mismatch.
   */
  async #check(run: Run, lines: readonly Line[]): Promise<void> {
    const upstream = new UpstreamClient(this.env, `statement-${run.date}-${run.generation}`);
    await inPool(lines, async (line) => {
      const kind = kindNamed(line.kind);
      const read = await kind.read(upstream, line.id);
      const found: Omit<Mismatch, "id" | "kind" | "event_id">[] = [];
      if (!read.ok) {
        // A check the payment service could not answer (busy, a timeout) decides nothing: the line stays unchecked.
        if (read.failure.code !== "receipt_not_found") return;
        run.checked++;
        found.push({ field: "exists", statement: "yes", upstream: "no" });
      } else {
        const body = read.value as RecordBody;
        run.checked++;
        const compare = (field: string, statement: unknown, shown: unknown) => {
          if (statement !== null && statement !== undefined && statement !== shown)
            found.push({ field, statement: String(statement), upstream: String(shown) });
        };
        compare("amount", line.amount, kind.amountOf(body));
        compare("commission", line.commission, commissionOf(line.kind, body as unknown as Parameters<typeof commissionOf>[1]));
        compare("merchant_id", line.merchant, kind.merchantOfBody(body) ?? null);
        const shown = kind.stateOf(body);
        if (line.state !== null && shown !== line.state) {
          // Changed since the line, as the gateway knows it (its record's trail)? Then it agrees.
          let known: number | null = null;
          try {
            const trail = await receiptStub(this.env, line.kind, line.id).auditTrail();
            known = trail?.entries.at(-1)?.state ?? null;
          } catch {
            known = null;
          }
          if (known !== shown) found.push({ field: "state", statement: String(line.state), upstream: String(shown) });
        }
      }
      for (const m of found) {
        run.mismatch_count++;
        if (run.mismatches.length < MISMATCHES_KEPT) run.mismatches.push({ id: line.id, kind: line.kind, event_id: line.event_id, ...m });
        log("warn", "statement_mismatch", { date: run.date, id: line.id, kind: line.kind, field: m.field, event_id: line.event_id });
        metric(this.env, "statement_mismatch", { operation: line.kind, outcome: m.field });
      }
    });
  }
}
