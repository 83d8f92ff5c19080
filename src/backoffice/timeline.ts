/**
 * One receipt's or transfer's whole story for the back office, from where
 * the gateway keeps it: the record's Durable Object (its body, its audit
 * trail, its events' ids, rule 14's marks), the event log and its delivery
 * attempts (D1). Read only: nothing here reaches the upstream, so looking
 * at a payment never moves it.
 *
 * The record's audit trail is the source of the rest: every operation's
 * answer (so the codes the caller got, and the `user_message` an app showed
 * for each), every step the gateway took on its own (a reconciliation's look
 * and what it found), and every rule 13 refusal. Phone numbers and `account`
 * values are masked as erasure masks them (the first two and last two
 * characters kept); a reveal is its own action.
 */

import { ERROR_CODES } from "../errors/error-codes";
import { listLoggedEvents } from "../events";
import { recordAttempts } from "../events/log";
import { receiptStub } from "../record-stub";
import type { KindName } from "../rules/kinds";
import { type FiscalPhase, isFiscalPending } from "../rules/lifecycle";
import { erasedValue, erasePersonal } from "../shared/redact";
import { STATE } from "../upstream/calls";

/** The states' names, as the contract names them. */
export const STATE_NAMES: Readonly<Record<number, string>> = {
  [STATE.created]: "created",
  [STATE.paid]: "paid",
  [STATE.held]: "held",
  [STATE.cancelled]: "cancelled",
  [STATE.awaitingSupplier]: "awaiting_supplier",
};
export const stateName = (state: number | null): string | null => (state === null ? null : (STATE_NAMES[state] ?? `state_${state}`));

/** The operations of a trail that call the payment service. */
const UPSTREAM_OPS = new Set([
  "create",
  "authorize",
  "pay",
  "hold-confirm",
  "cancel",
  "read",
  "check",
  "check-id",
  "reconcile",
  "expire",
  "exhaustion-cancel",
  "expiry-cancel",
]);
/** Outcomes whose money move may or may not have happened (rule 8): reconciliation settles them. */
export const UNKNOWN_OUTCOMES = new Set(["upstream_timeout", "upstream_error"]);
/** The outcome of a rule 13 refusal. */
const RISK_REFUSAL = "risk_limited";
/** Events shown for one record: more than any record publishes. */
const EVENTS_PER_RECORD = 100;

/**
 * A record's owner as the record's object answers it ("partner" or the
 * user's sub, as events name it), shown in part: a sub masked as erasure
 * masks it.
 */
export const maskedOwner = (owner: string): string => (owner === "partner" ? "partner" : erasedValue(owner));
/** The owner as the audit trail names its actors: "partner", or "user:" and the masked sub. */
const ownerShown = (owner: string): string => (owner === "partner" ? "partner" : `user:${maskedOwner(owner)}`);

type Entry = { at: number; op: string; actor: string; request_id: string; outcome: string; state: number | null };

export interface Call {
  at: number;
  method: string;
  actor: string;
  request_id: string;
  outcome: "ok" | "error" | "unknown";
  code?: string;
  /** For an unknown outcome: the reconciliation after it and the state it found (null: not settled yet). */
  reconciled?: { found: number | null; found_name: string | null; at: number } | null;
}

/** Each upstream call of the trail, an unknown outcome followed to the look that settled it. */
export function callsOf(entries: readonly Entry[]): Call[] {
  const calls: Call[] = [];
  entries.forEach((entry, i) => {
    if (!UPSTREAM_OPS.has(entry.op)) return;
    const unknown = UNKNOWN_OUTCOMES.has(entry.outcome);
    const call: Call = {
      at: entry.at,
      method: entry.op,
      actor: entry.actor,
      request_id: entry.request_id,
      outcome: entry.outcome === "ok" ? "ok" : unknown ? "unknown" : "error",
    };
    if (entry.outcome !== "ok") call.code = entry.outcome;
    if (unknown) {
      const look = entries.slice(i + 1).find((later) => later.op === "reconcile" && later.outcome === "ok");
      call.reconciled = look ? { found: look.state, found_name: stateName(look.state), at: look.at } : null;
    }
    calls.push(call);
  });
  return calls;
}

/** The state after each entry that changed it, oldest first. */
export function statesOf(entries: readonly Entry[]): { state: number; state_name: string | null; at: number }[] {
  const states: { state: number; state_name: string | null; at: number }[] = [];
  for (const entry of entries) {
    if (entry.state === null || states.at(-1)?.state === entry.state) continue;
    states.push({ state: entry.state, state_name: stateName(entry.state), at: entry.at });
  }
  return states;
}

/** What the caller was answered, each error with the sentence an app shows its user (in English; the page may ask for another). */
export function userSaw(entries: readonly Entry[]): { at: number; op: string; actor: string; code: string; user_message: string | null }[] {
  return entries
    .filter((entry) => entry.outcome !== "ok" && entry.actor !== "gateway")
    .map((entry) => {
      const row = (ERROR_CODES as Record<string, { user_message: { en: string } } | undefined>)[entry.outcome];
      return { at: entry.at, op: entry.op, actor: entry.actor, code: entry.outcome, user_message: row?.user_message.en ?? null };
    });
}

export interface Located {
  kind: KindName;
  id: string;
}

/** The record's view from its object, or null when none is stored. */
export const recordOf =
  ({ kind, id }: Located) =>
  (env: Env) =>
    receiptStub(env, kind, id).backOffice();

export type Stored = NonNullable<Awaited<ReturnType<ReturnType<typeof recordOf>>>>;

/** The body with every phone and `account` value masked. */
export const maskedBody = (body: string): Record<string, unknown> => erasePersonal(JSON.parse(body)) as Record<string, unknown>;

/** The finder's row of a record. */
export function summaryOf(stored: Stored) {
  const body = maskedBody(stored.body);
  const last = stored.entries.at(-1);
  return {
    id: stored.id,
    kind: stored.kind,
    state: stored.state,
    state_name: stateName(stored.state),
    amount: typeof body.amount === "number" ? body.amount : null,
    tid: stored.tid,
    user_masked: maskedOwner(stored.owner),
    created_at: stored.createdAt,
    updated_at: Math.max(stored.updatedAt, last?.at ?? 0),
  };
}

/** The whole timeline of a stored record. */
export async function timelineOf(env: Env, stored: Stored) {
  const body = maskedBody(stored.body);
  const { rows } = await listLoggedEvents(env, { receiptId: stored.id, limit: EVENTS_PER_RECORD });
  const attempts = await recordAttempts(
    env,
    stored.id,
    rows.map((row) => row.id),
  );
  const events = rows
    .map((row) => ({
      id: row.id,
      type: row.type,
      delivery: row.delivery_status,
      attempts: row.attempts,
      deliveries: attempts
        .filter((attempt) => attempt.event_id === row.id)
        .map((attempt) => ({ at: attempt.at, status: attempt.status, ok: attempt.ok, answer: attempt.answer })),
    }))
    .reverse();
  const entries = stored.entries;
  return {
    record: {
      ...summaryOf(stored),
      owner: ownerShown(stored.owner),
      commission: typeof body.commission === "number" ? body.commission : null,
      merchant_id: typeof body.merchant_id === "number" ? body.merchant_id : ((body.merchant as { id?: number } | undefined)?.id ?? null),
      erased: stored.erased,
      body,
    },
    states: statesOf(entries),
    audit: entries,
    calls: callsOf(entries),
    events,
    refusals: entries.filter((entry) => entry.outcome === RISK_REFUSAL).map((entry) => ({ at: entry.at, op: entry.op, code: entry.outcome })),
    fiscal: body.ofd ?? null,
    fiscal_pending: isFiscalPending(stored.fiscal as FiscalPhase | null),
    user_saw: userSaw(entries),
  };
}

/**
 * The raw value a reveal asks for: the `account` values, or the phone where
 * the record keeps it. A receipt keeps its user's phone as the `account`
 * value whose key is `phone` (any case); a transfer as its parties' `phone`
 * (the sender's first). Null when the record keeps none.
 */
export function revealed(stored: Stored, field: "phone" | "account"): unknown {
  const body = JSON.parse(stored.body) as Record<string, unknown>;
  const account = Array.isArray(body.account) ? (body.account as unknown[]) : null;
  if (field === "account") return account;
  const named = account?.find(
    (entry): entry is { value: string } =>
      entry !== null &&
      typeof entry === "object" &&
      String((entry as { key?: unknown }).key).toLowerCase() === "phone" &&
      typeof (entry as { value?: unknown }).value === "string",
  );
  if (named) return named.value;
  const find = (value: unknown, depth: number): string | null => {
    if (value === null || typeof value !== "object" || depth > 6) return null;
    for (const [key, inner] of Object.entries(value)) {
      if (key === "phone" && typeof inner === "string" && inner) return inner;
      const deeper = find(inner, depth + 1);
      if (deeper) return deeper;
    }
    return null;
  };
  return find(body, 0);
}
