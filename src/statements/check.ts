/**
 * Rule 16's check: a share of the day's lines compared with what the
 * payment service shows now; a disagreement is a mismatch of the run.
 */
import { inPool } from "../d1/fanout";
import { commissionOf } from "../events/statement-lines";
import { metric } from "../metrics/metrics";
import { receiptStub } from "../record-stub";
import { kindNamed } from "../rules/kinds";
import { log } from "../shared/log";
import { UpstreamClient } from "../upstream/client";
import type { Line } from "./day-log";
import type { Mismatch } from "./format";
import type { Run } from "./run";

/** Mismatches kept in full; more are counted. */
const MISMATCHES_KEPT = 10_000;

/**
 * Each line with what the payment service shows now: amount, commission,
 * merchant, and the state the gateway knows the record is in (the line's,
 * or its record's now when it changed since). A disagreement is a mismatch.
 */
export async function checkLines(env: Env, run: Run, lines: readonly Line[]): Promise<void> {
  const upstream = new UpstreamClient(env, `statement-${run.date}-${run.generation}`);
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
      const body = read.value;
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
          const trail = await receiptStub(env, line.kind, line.id).auditTrail();
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
      metric(env, "statement_mismatch", { operation: line.kind, outcome: m.field });
    }
  });
}
