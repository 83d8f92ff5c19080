// How test/model.test.ts looks at the world: a record's stored row and alarm
// (its Durable Object's SQLite), the sandbox's own view of it and its call
// log, and every place card data could leak to (the object's tables, D1).
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { receiptStub } from "../../src/receipt-object";
import { tidShards } from "../../src/shards";
import { dumpStorage } from "../helpers";
import type { G, KindName, S } from "./sim";

export interface Seen {
  g: G;
  /** When the object's alarm is set (ms), null when none (also while the alarm runs). */
  alarm: number | null;
  /** Events in the outbox not yet handed on: the alarm that drains them is due or running. */
  unsent: number;
}

export interface SandboxSeen extends S {
  /** pay_date > 0: a charge happened (kept when the receipt is later cancelled). */
  charged: boolean;
  holdStatus: string | null;
}

export interface LoggedCall {
  seq: number;
  path: string;
  id: string | null;
  status: number;
  code: string | null;
  request_id: string | null;
  otp: boolean;
}

export const stubOf = (kind: KindName, id: string) => receiptStub(env, kind, id);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function readStored(kind: KindName, id: string): Promise<Seen> {
  return runInDurableObject(stubOf(kind, id), async (_instance, state) => {
    const row = state.storage.sql
      .exec<{
        state: number;
        pending_op: string | null;
        pending_otp: number;
        wrong_otps: number;
        unconfirmed_otps: number;
        otp_sends: number;
        last_otp_sent_at: number;
        resend_wait_ms: number;
        reconcile_attempts: number;
        edge_closed: number;
      }>(
        "SELECT state, pending_op, pending_otp, wrong_otps, unconfirmed_otps, otp_sends, last_otp_sent_at, resend_wait_ms, reconcile_attempts, edge_closed FROM record",
      )
      .one();
    return {
      g: {
        state: row.state,
        pending: row.pending_op,
        pendingOtp: row.pending_otp === 1,
        wrong: row.wrong_otps,
        unconfirmed: row.unconfirmed_otps,
        sends: row.otp_sends,
        lastSentAt: row.last_otp_sent_at,
        waitMs: row.resend_wait_ms,
        attempts: row.reconcile_attempts,
        edgeClosed: row.edge_closed === 1,
      },
      alarm: await state.storage.getAlarm(),
      unsent: state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM outbox WHERE sent_at IS NULL").one().n,
    };
  });
}

/**
 * Lets the record's object finish what its alarm is doing or about to do, so
 * that the next operation meets no alarm of its own record in flight. While
 * an alarm runs, getAlarm() answers null; so the record is quiet only when
 * its alarm is set beyond `guardMs`, or when none is set, no event waits for
 * the drain and the record needs no reconciling (`needsAlarm` false: a record
 * that needs it and has no alarm set is either being reconciled right now or
 * forgotten, which rule 8 forbids: after `maxWaitMs` the caller is told).
 */
export async function settle(
  kind: KindName,
  id: string,
  guardMs: number,
  needsAlarm: (g: G) => boolean,
  maxWaitMs = 8000,
): Promise<Seen & { quiet: boolean }> {
  const started = Date.now();
  for (;;) {
    const seen = await readStored(kind, id);
    const now = Date.now();
    if (seen.unsent === 0 && (seen.alarm === null ? !needsAlarm(seen.g) : seen.alarm > now + guardMs)) return { ...seen, quiet: true };
    if (now - started > maxWaitMs) return { ...seen, quiet: false };
    // An alarm overdue for long (the runtime did not fire it) is run directly.
    if (seen.alarm !== null && seen.alarm < now - 2000) await runDurableObjectAlarm(stubOf(kind, id));
    else await sleep(seen.alarm !== null && seen.alarm > now ? Math.min(50, seen.alarm - now + 5) : 5);
  }
}

export async function sandboxSeen(kind: KindName, id: string): Promise<SandboxSeen> {
  const res = await exports.default.fetch(`http://gateway.test/__sandbox/${kind === "receipt" ? "receipts" : "a2c"}/${id}`);
  if (res.status !== 200) throw new Error(`sandbox view of ${kind} ${id}: ${res.status}`);
  const body = (await res.json()) as Record<string, unknown>;
  return {
    state: body.state as number,
    otpAttempts: body.otp_attempts as number,
    wrong: body.wrong_otp_attempts as number,
    expired: kind === "receipt" ? (body.expired_otp_attempts as number) : 0,
    otpSentAt: kind === "receipt" ? ((body.otp_sent_at as number | null) ?? null) : null,
    charged: typeof body.pay_date === "number" && body.pay_date > 0,
    holdStatus: (body.hold_status as string | null | undefined) ?? null,
  };
}

export async function callLog(id: string): Promise<LoggedCall[]> {
  const res = await exports.default.fetch(`http://gateway.test/__sandbox/calls?id=${encodeURIComponent(id)}`);
  if (res.status !== 200) throw new Error(`sandbox call log: ${res.status}`);
  return (await res.json()) as LoggedCall[];
}

/** Every text cell of every table of a record's object: record, audit, outbox (and any other). */
export const dumpObject = (kind: KindName, id: string): Promise<string[]> => dumpStorage(stubOf(kind, id), `${kind} ${id} `);

/** The tid index rows of the given records (by record id) and tids. */
export async function dumpTidIndex(ids: readonly string[], tids: readonly string[]): Promise<string[]> {
  if (ids.length === 0 && tids.length === 0) return [];
  const marks = (n: number) => Array.from({ length: n }, () => "?").join(", ");
  const rows: string[] = [];
  for (const { db } of tidShards(env)) {
    const { results } = await db
      .prepare(`SELECT * FROM tid_index WHERE receipt_id IN (${marks(ids.length) || "NULL"}) OR tid IN (${marks(tids.length) || "NULL"})`)
      .bind(...ids, ...tids)
      .all();
    rows.push(...results.map((row) => `tid_index: ${JSON.stringify(row)}`));
  }
  return rows;
}


