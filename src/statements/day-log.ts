/**
 * The day's lines, as the statement's builder reads them from the event
 * log's databases (rule 16): each step reads at most PAGE rows per database
 * after its cursor there, merges them in event-id (time) order and takes at
 * most STEP_LINES lines, at most CHECKS_PER_STEP of them to be checked with
 * the payment service; the run's cursors move past what was taken.
 */
import { inPool } from "../d1/fanout";
import { allShards } from "../d1/shards";
import { acrossLog, EVENT_TYPE_CODES, idAt } from "../events/log-database";
import { CHANGE_OF_CODE, LINE_EVENT_TYPES, type LineFields, lineFields, type StatementChange } from "../events/statement-lines";
import { receiptStub } from "../record-stub";
import type { KindName } from "../rules/kinds";
import { fnv1a } from "../shared/fnv1a";
import { log } from "../shared/log";
import { checkShare } from "./days";
import type { Run } from "./run";

/** Log rows read per database per step. */
export const PAGE = 2_000;
/** Lines a step emits at most. */
export const STEP_LINES = 20_000;
/** Lines a step checks with the payment service at most. */
export const CHECKS_PER_STEP = 200;

/** A line's figures, as a log row holds them and as an older release's event body gives them (lineFields). */
type Figures = Omit<LineFields, "change" | "owner"> & { owner: string | null };

interface Row extends Figures {
  id: string;
  record_id: string;
  type: number;
  change: number | null;
}

export interface Line extends Figures {
  event_id: string;
  id: string;
  kind: KindName;
  at: number;
  change: StatementChange;
}

/** One step's read: the lines in time order, those of them to check, how many rows were read and whether every database is read to its end. */
export interface DayPage {
  lines: Line[];
  toCheck: Line[];
  rowsRead: number;
  databases: number;
  done: boolean;
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
  return fnv1a(eventId) / 0x1_0000_0000 < share;
}

/** The next lines of the day, in time order across the databases; the run's cursors and exhausted marks move with them. */
export async function nextLines(env: Env, run: Run): Promise<DayPage> {
  const shards = allShards(env);
  const start = idAt(run.from);
  const end = idAt(run.to);
  const fetched: { binding: string; row: Row }[] = [];
  let boundary = "\uffff";
  await inPool(shards, async ({ binding, db }) => {
    if (run.exhausted[binding]) return;
    const after = run.cursors[binding];
    const { results } = await db
      .prepare(
        // Every table of the log, a page of each, then the first page of them all.
        `SELECT * FROM (${acrossLog(
          (table) => `SELECT id, record_id, type, change, amount, commission, merchant, tid, owner, state, fiscal_sign FROM ${table}
         WHERE id ${after ? "> ?1" : ">= ?1"} AND id < ?2 AND (change IS NOT NULL OR type IN (${LINE_TYPE_CODES.join(", ")}))
         ORDER BY id LIMIT ?3`,
        )}) ORDER BY id LIMIT ?3`,
      )
      .bind(after ?? start, end, PAGE)
      .all<Row>();
    for (const row of results) fetched.push({ binding, row });
    // A database whose page was full may hold rows before the others' next ones: nothing after its last is emitted yet.
    if (results.length === PAGE && results[results.length - 1]!.id < boundary) boundary = results[results.length - 1]!.id;
    if (results.length < PAGE) run.exhausted[binding] = true;
  });
  fetched.sort((a, b) => (a.row.id < b.row.id ? -1 : a.row.id > b.row.id ? 1 : 0));
  const share = checkShare(env);
  const lines: Line[] = [];
  const toCheck: Line[] = [];
  let stoppedEarly = false;
  for (const { binding, row } of fetched) {
    if (row.id > boundary) break;
    if (lines.length >= STEP_LINES || toCheck.length >= CHECKS_PER_STEP) {
      stoppedEarly = true;
      break;
    }
    const line = await lineOf(env, row);
    run.cursors[binding] = row.id;
    if (!line) continue;
    lines.push(line);
    if (sampled(line.event_id, share)) toCheck.push(line);
  }
  if (stoppedEarly || fetched.some(({ row }) => row.id > boundary)) {
    // Rows fetched and not emitted are read again next step: their databases are not done.
    for (const { binding, row } of fetched) if (row.id > (run.cursors[binding] ?? "")) run.exhausted[binding] = false;
  }
  const done = shards.every(({ binding }) => run.exhausted[binding]);
  return { lines, toCheck, rowsRead: fetched.length, databases: shards.length, done };
}

/** A log row as a line: its fields from the row, or (an older release's row) from the event's body its record keeps. */
async function lineOf(env: Env, row: Row): Promise<Line | null> {
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
    const bodies = await receiptStub(env, kind, row.record_id).eventBodies([row.id]);
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
