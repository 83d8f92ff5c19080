/**
 * The statement's text, as its steps append it to the two files: a line's
 * CSV row and JSON item (its total counted in the run), and, at the end, the
 * totals and the mismatches.
 */
import type { Line } from "./day-log";
import { csvRow, sumOf, type Total } from "./format";
import type { Run } from "./run";

/** The JSON file's head: the day and what its lines follow. */
export function jsonHead(run: Run): string {
  return `{"date":${JSON.stringify(run.date)},"timezone":${JSON.stringify(run.zone)},"from":${run.from},"to":${run.to},"complete":${run.complete},"lines":[`;
}

/** A line's text in both files; the line is counted in the run and its total. */
export function lineText(run: Run, line: Line, time: string): { csv: string; json: string } {
  const csv = csvRow([
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
  const json = `${run.lines > 0 ? "," : ""}\n${JSON.stringify({ id: line.id, kind: line.kind, tid: line.tid, owner: line.owner, merchant_id: line.merchant, change: line.change, state: line.state, amount: line.amount, commission: line.commission, at: line.at, time, fiscal_sign: line.fiscal_sign, event_id: line.event_id })}`;
  run.lines++;
  const key = `${line.merchant ?? ""}|${line.change}`;
  const total = run.totals[key] ?? { merchant_id: line.merchant, change: line.change, count: 0, amount: "0", commission: "0" };
  total.count++;
  total.amount = String(BigInt(total.amount) + BigInt(line.amount ?? 0));
  total.commission = String(BigInt(total.commission) + BigInt(line.commission ?? 0));
  run.totals[key] = total;
  return { csv, json };
}

/** The files' end: the totals by merchant and change, the mismatches, and the JSON document's closing fields (done_at set). */
export function closingText(run: Run & { done_at: number }): { csv: string; json: string } {
  const totals: Total[] = Object.values(run.totals).sort(
    (a, b) => String(a.merchant_id ?? "").localeCompare(String(b.merchant_id ?? "")) || a.change.localeCompare(b.change),
  );
  let csv = "";
  for (const total of totals) {
    csv += csvRow([
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
    csv += csvRow([
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
  const json = `\n],"totals":${JSON.stringify(totals.map((t) => ({ ...t, amount: Number(t.amount), commission: Number(t.commission), amount_sum: sumOf(BigInt(t.amount)), commission_sum: sumOf(BigInt(t.commission)) })))},"mismatches":${JSON.stringify(run.mismatches)},"mismatches_total":${run.mismatch_count},"checked":${run.checked},"lines_total":${run.lines},"generated_at":${run.done_at}}\n`;
  return { csv, json };
}
