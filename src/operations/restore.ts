/**
 * The operator's restore of one record to a point in time:
 * `POST /api/v1/operator/restore` `{kind, id, at, dry_run}` (the record's
 * own steps are src/record/restore.ts; `npm run restore -- record` calls
 * this; docs/production.md, "Backups and restore").
 *
 * Not a partner operation, and in no OpenAPI document: it rewinds a money
 * record and can bring erased personal data back, so it answers only while
 * the secret RESTORE_KEY_HASH is set (the SHA-256, lowercase hex, of a
 * restore key the operator makes for the restore and deletes after it),
 * and only to that key. Without the secret the path is answered as one that
 * does not exist. A separate secret, not the partner's server key: that key
 * lives on the partner's servers and acts for its users all day; and a
 * secret, not a var, because `wrangler secret put` and `secret delete` turn
 * it on and off in seconds, with no deploy of code.
 */
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import * as v from "valibot";
import { ReceiptId } from "../api/schemas";
import { ApiError } from "../errors/errors";
import { refuseBody } from "../http/http";
import type { GatewayEnv } from "../http/types";
import type { RestoredRecord, RestoreNote } from "../record/receipt-object";
import { PITR_WINDOW_MS } from "../record/restore";
import { receiptStub } from "../record-stub";
import { KIND_NAMES } from "../rules/kinds";
import { clock } from "../shared/clock";
import { log } from "../shared/log";

declare global {
  interface Env {
    /** The SHA-256 (lowercase hex) of the operator's restore key; unset, the restore path does not exist. A secret, set only for a restore. */
    RESTORE_KEY_HASH?: string;
  }
}

export const RESTORE_PATH = "/api/v1/operator/restore";

const DIGEST = /^[0-9a-f]{64}$/;
/** Longer credentials are refused unread. */
const MAX_KEY_LENGTH = 512;

const RestoreRequestBody = v.strictObject({
  kind: v.picklist(KIND_NAMES, "kind must be receipt or transfer"),
  id: ReceiptId,
  at: v.pipe(v.string("at must be a string"), v.isoTimestamp("at must be an ISO 8601 time with its offset, e.g. 2026-11-24T10:00:00Z")),
  dry_run: v.optional(v.boolean("dry_run must be a boolean"), false),
});

/** The restore key's digest, or the reason the path is not there (404) or cannot be used (503). */
function restoreDigest(env: Env): Uint8Array | "absent" | "malformed" {
  const digest = (env.RESTORE_KEY_HASH ?? "").trim();
  if (!digest) return "absent";
  if (!DIGEST.test(digest)) return "malformed";
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i++) bytes[i] = Number.parseInt(digest.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

const unauthorized = (message: string) =>
  new ApiError("unauthorized", message, { headers: { "WWW-Authenticate": 'Bearer realm="payments-gateway-operator"' } });

/** The caller holds the restore key: its SHA-256 is RESTORE_KEY_HASH, compared in constant time. */
async function requireRestoreKey(c: Context<GatewayEnv>, digest: Uint8Array): Promise<void> {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "");
  if (!match) throw unauthorized("Send Authorization: Bearer <restore key>.");
  const key = match[1]!;
  if (key.length > MAX_KEY_LENGTH) throw unauthorized("The restore key is not valid.");
  const presented = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)));
  if (!crypto.subtle.timingSafeEqual(presented, digest)) throw unauthorized("The restore key is not valid.");
}

/** The body, valid, or 400 invalid_request naming each problem as every operation's are (values are never echoed). */
function validBody(body: unknown, now: number) {
  const parsed = v.safeParse(RestoreRequestBody, body);
  if (!parsed.success) refuseBody(RestoreRequestBody, body, parsed.issues);
  const at = Date.parse(parsed.output.at);
  const refuse = (message: string) => new ApiError("invalid_request", message, { details: [{ path: "at", message }] });
  if (at > now) throw refuse("at must be in the past");
  if (now - at > PITR_WINDOW_MS) throw refuse("at must be within the last 30 days (the window of point-in-time recovery)");
  return { ...parsed.output, atMs: at };
}

/**
 * Before anything else on the path, its body included: without the secret
 * the path is no path (404, as any other), and then only the restore key passes.
 */
export const restoreDoor = createMiddleware<GatewayEnv>(async (c, next) => {
  const digest = restoreDigest(c.env);
  if (digest === "absent") return c.notFound();
  if (digest === "malformed") {
    throw new ApiError("service_misconfigured", "RESTORE_KEY_HASH is not a lowercase hex SHA-256 digest: no restore key can be accepted.");
  }
  await requireRestoreKey(c, digest);
  await next();
});

/**
 * The handler (src/app.ts mounts it behind restoreDoor and the JSON body's
 * checks): step 1 in the object, its restart, step 2 in the restarted
 * object, each logged; a dry run stops after step 1's bookmarks.
 */
export async function restoreRecord(c: Context<GatewayEnv>): Promise<Response> {
  const { kind, id, at, atMs, dry_run: dryRun } = validBody(await c.req.json(), clock.now());
  const requestId = c.var.requestId;
  const prepared = await receiptStub(c.env, kind, id).restorePrepare({ at: atMs, requestId, dryRun });
  if (!prepared.ok) {
    log("warn", "record_restore_refused", { kind, id, at: atMs, request_id: requestId, code: prepared.error.code, reason: prepared.error.message });
    throw ApiError.from(prepared.error);
  }
  const plan = prepared.value;
  const before = plan.carry ? { state: plan.carry.state, sequence: plan.carry.event_seq } : null;
  const answer = { kind, id, at, dry_run: dryRun, bookmark: plan.bookmark, undo_bookmark: plan.undoBookmark, before };
  if (dryRun) return c.json({ ...answer, record: null }, 200);

  // The abort fails the call that asked for it: that is the restart.
  await receiptStub(c.env, kind, id)
    .restart(`point-in-time restore ${requestId}`)
    .catch(() => undefined);
  const note: RestoreNote = { ...plan, at: atMs, requestId };
  let record: RestoredRecord | undefined;
  let failure: unknown;
  // The object may still be starting after its restart: a few tries before the operator is told.
  for (let attempt = 0; attempt < 3 && record === undefined; attempt++) {
    try {
      record = await receiptStub(c.env, kind, id).restoreSettle(note);
    } catch (err) {
      failure = err;
    }
  }
  if (record === undefined) {
    // The note holds no secret and no personal data (bookmarks, counts, states): what the operator needs to finish by hand.
    log("error", "record_restore_unsettled", {
      kind,
      id,
      request_id: requestId,
      note,
      error: failure instanceof Error ? failure.message : String(failure),
    });
    throw new ApiError(
      "upstream_error",
      "The record was restored, but its restarted object did not answer, so what the restore carries over (the event sequence, the OTP counts, an erasure) is not applied. Do not repeat the restore: follow record_restore_unsettled in docs/production.md.",
    );
  }
  log("warn", "record_restore", { kind, id, at: atMs, bookmark: plan.bookmark, undo_bookmark: plan.undoBookmark, request_id: requestId, ...record });
  return c.json({ ...answer, record }, 200);
}
