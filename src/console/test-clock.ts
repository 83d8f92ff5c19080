/**
 * Test clocks and triggers (local development and the sandbox only; mounted
 * by src/dev.ts where the sandbox is, never by the production entry):
 *
 *   POST /__sandbox/receipts/{id}/advance  {"by": "25h"}   that receipt's own time moves forward
 *   POST /__sandbox/a2c/{id}/advance       {"by": "8d"}    a transfer's
 *   POST /__sandbox/receipts/{id}/trigger  {"what": "fiscal_data_appears"}  the upstream acts now
 *
 * An advance moves the record's time, the gateway's record and the sandbox's
 * alike, in steps: to the next moment either has something due (the
 * record's alarm: its late reads, expiry, fiscal reads, drain, end; the
 * sandbox's deadlines: the supplier's answer, a late pay, fiscal data, the
 * OTP's lifetime), where it runs that as a real wait would (the record's
 * own alarm handler; the sandbox's lazy settlement), and on until the time
 * asked for. Nothing else is told anything: the gateway finds what the
 * sandbox did by reading it, as in production. The event log keeps the
 * record's events by the record's time too (what the cron's retention would
 * have removed meanwhile is removed), so rule 10 can end it.
 *
 * A trigger only moves the sandbox's deadline to now: the gateway learns of
 * it at its next look (a late read, a fiscal read, a reconciliation, the next
 * operation or read), which an advance reaches.
 *
 * JSON bodies answer JSON (errors in the contract's envelope); the console's
 * forms (application/x-www-form-urlencoded, same origin only) are sent back
 * to the record's page.
 */
import { type Context, Hono } from "hono";
import { csrf } from "hono/csrf";
import { requestId } from "hono/request-id";
import * as v from "valibot";
import { retentionPolicy } from "../config/retention-policy";
import { ApiError, renderError } from "../errors/errors";
import { negotiateLanguage } from "../errors/language";
import { pruneRecordEvents } from "../events/log";
import type { GatewayEnv } from "../http/types";
import { receiptStub } from "../record-stub";
import type { KindName } from "../rules/lifecycle";
import type { SandboxObject } from "../sandbox/sandbox-object";
import { type SandboxHappening, type SandboxKind, TRIGGERS } from "../sandbox/test-clock";
import { KIND_SEGMENTS, recordPath } from "./html";

type App = GatewayEnv;

/** The units an advance is written in, in ms. */
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** The longest advance: past every window the gateway keeps (a year of audit trail aside). */
export const MAX_ADVANCE_MS = 400 * UNIT_MS.d;
/** What one advance may run at most: far more than any record's life asks for (each step is something due). */
const MAX_STEPS = 500;
/** Longer than any id the gateway hands out. */
const MAX_ID_LENGTH = 128;

/** "90s", "10m", "25h", "8d": a whole number and its unit, from 1 s to MAX_ADVANCE_MS; null for anything else. */
export function durationMs(text: unknown): number | null {
  if (typeof text !== "string") return null;
  const match = /^([1-9][0-9]{0,5})([smhd])$/.exec(text);
  if (!match) return null;
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  return ms <= MAX_ADVANCE_MS ? ms : null;
}

const AdvanceBody = v.strictObject({ by: v.string() });
const TriggerBody = v.strictObject({ what: v.picklist(TRIGGERS) });

/** One thing that ran during an advance, at the record's own time. */
export interface AdvanceStep {
  at: number;
  /** "upstream": the sandbox did it on its own; "gateway": the record's alarm ran. */
  by: "upstream" | "gateway";
  what: string;
  /** The gateway's: the record's state after its alarm, and the events it made. */
  state?: number | null;
  events?: string[];
}

const sandboxOf = (env: Env): DurableObjectStub<SandboxObject> => {
  if (!env.SANDBOX) throw new Error("SANDBOX binding is missing");
  return env.SANDBOX.get(env.SANDBOX.idFromName("sandbox"));
};

/** How long after its last send the sandbox's OTP stays right (as src/sandbox/routes.ts reads it). */
function otpTtlMs(env: Env): number {
  const ms = Number(env.SANDBOX_OTP_TTL_MS ?? 300_000);
  return Number.isFinite(ms) && ms >= 0 ? ms : 300_000;
}

const invalid = (message: string) => new ApiError("invalid_request", message);

/** The body as JSON, or the console form's fields. */
async function bodyOf(c: Context<App>): Promise<{ form: boolean; value: unknown }> {
  const type = c.req.header("content-type") ?? "";
  if (type.startsWith("application/x-www-form-urlencoded")) return { form: true, value: Object.fromEntries(Object.entries(await c.req.parseBody())) };
  try {
    return { form: false, value: await c.req.json() };
  } catch {
    throw new ApiError("invalid_json", "The request body is not valid JSON.");
  }
}

function idOf(c: Context<App>): string {
  const id = c.req.param("id") ?? "";
  if (id.length === 0 || id.length > MAX_ID_LENGTH) throw new ApiError("receipt_not_found", "No receipt or transfer with this id.");
  return id;
}

/**
 * Moves the record's time `byMs` forward, in steps to whatever falls due
 * first, running each as it would have run. Null when the gateway holds no
 * such record.
 */
export async function advanceRecord(
  env: Env,
  kind: KindName,
  id: string,
  byMs: number,
): Promise<{ steps: AdvanceStep[]; now: number | null; ended: boolean } | null> {
  const record = receiptStub(env, kind, id);
  const sandbox = sandboxOf(env);
  const table: SandboxKind = kind === "receipt" ? "receipts" : "transfers";
  const ttl = otpTtlMs(env);
  const windows = retentionPolicy(env);
  const steps: AdvanceStep[] = [];
  const upstream = (happened: SandboxHappening[] | undefined) => {
    for (const h of happened ?? []) steps.push({ at: h.at, by: "upstream", what: h.what });
  };
  let left = byMs;
  for (let i = 0; i < MAX_STEPS; i++) {
    const state = await record.clockState();
    if (!state) return i === 0 ? null : { steps, now: null, ended: true };
    const sandboxIn = await sandbox.nextDue(table, id, ttl);
    const step = Math.min(state.wakeIn ?? Infinity, sandboxIn ?? Infinity);
    if (step > left) break;
    upstream(await sandbox.advance(table, id, step, ttl));
    // What the cron's retention would have removed of the record's events by then, by its time.
    await pruneRecordEvents(
      env,
      id,
      state.eventIds,
      { deliveredMs: windows.deliveredEventsMs, undeliveredMs: windows.undeliveredEventsMs },
      state.now + step,
    );
    const fire = state.wakeIn !== null && state.wakeIn <= step;
    const shown = await record.advanceTime(step, fire);
    left -= step;
    if (fire && shown) steps.push({ at: shown.now, by: "gateway", what: shown.ended ? "ended" : "alarm", state: shown.state, events: shown.events });
    if (!shown || shown.ended) return { steps, now: null, ended: true };
  }
  // What is left moves without a step: with MAX_STEPS run, the alarm set is due at once, and the runtime runs it.
  upstream(await sandbox.advance(table, id, left, ttl));
  const shown = await record.advanceTime(left, false);
  return { steps, now: shown?.now ?? null, ended: shown === null };
}

export const testClock = new Hono<App>();

// Request ids and the error envelope as the gateway's own operations answer them.
testClock.use("*", requestId(), negotiateLanguage);
testClock.onError(renderError);

const advanceAt = (kind: KindName) =>
  testClock.post(`/__sandbox/${KIND_SEGMENTS[kind]}/:id/advance`, csrf(), async (c) => {
    const id = idOf(c);
    const { form, value } = await bodyOf(c);
    const parsed = v.safeParse(AdvanceBody, value);
    const byMs = parsed.success ? durationMs(parsed.output.by) : null;
    if (byMs === null) {
      throw invalid('"by" must be a whole number of seconds, minutes, hours or days, such as "90s", "10m", "25h" or "8d", at most 400 days.');
    }
    const advanced = await advanceRecord(c.env, kind, id, byMs);
    if (!advanced) throw new ApiError("receipt_not_found", `The gateway holds no ${kind} with this id.`);
    if (form) return c.redirect(`${recordPath(kind, id)}#clock`, 303);
    return c.json({ id, kind, by_ms: byMs, ...advanced });
  });
advanceAt("receipt");
advanceAt("transfer");

testClock.post("/__sandbox/receipts/:id/trigger", csrf(), async (c) => {
  const id = idOf(c);
  const { form, value } = await bodyOf(c);
  const parsed = v.safeParse(TriggerBody, value);
  if (!parsed.success) throw invalid(`"what" must be one of ${TRIGGERS.join(", ")}.`);
  const done = await sandboxOf(c.env).trigger(id, parsed.output.what);
  if (!done.ok) {
    if (done.code === "RECEIPT_NOT_FOUND") throw new ApiError("receipt_not_found", "The sandbox holds no receipt with this id.");
    throw invalid(done.message);
  }
  if (form) return c.redirect(`${recordPath("receipt", id)}#clock`, 303);
  return c.json(done.body);
});
