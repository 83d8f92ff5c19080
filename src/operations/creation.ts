/**
 * Creating a receipt or transfer exactly once per tid: claim the tid in the
 * index (the create's write-ahead note; one D1 batch, one round trip),
 * create upstream under the upstream tid (rule 9), hand the record to its
 * Durable Object (which keeps the answer and owes the claim's completion),
 * answer, and complete the claim after the answer (src/record/completion.ts).
 * Retries of the same create by the same caller are recognised by the index
 * and answered by the record's object; anything else with a known tid is a
 * conflict. And the way back, for check-tid: the record a tid created,
 * looked up in the caller's space. A completed tid this data center has seen
 * needs no D1 at all for either (src/tids/tid-cache.ts).
 */

import { readConfig } from "../config/config";
import { DAY_MS, retentionPolicy } from "../config/retention-policy";
import { ApiError, type Failure } from "../errors/errors";
import { metric } from "../metrics/metrics";
import { receiptStub } from "../record-stub";
import { type Caller, ownerOf } from "../rules/caller";
import { KINDS, type Kind, type KindName, type RecordBody } from "../rules/kinds";
import { clock } from "../shared/clock";
import { log } from "../shared/log";
import { recallTid, rememberTid } from "../tids/tid-cache";
import {
  claimIndexFor,
  claimTid,
  completeTid,
  expireTid,
  findTid,
  fingerprint,
  leaseExpired,
  leaseMs,
  readIndexFor,
  releaseTid,
  type TidRow,
  upstreamTidFor,
} from "../tids/tid-index";
import { UpstreamClient } from "../upstream/client";

export interface Created<T> {
  body: T;
  replayed: boolean;
}

/** A tid this caller used with another body or kind: which record holds it and how to read it, when known. */
function conflict(row: Pick<TidRow, "receipt_id" | "kind"> | undefined): ApiError {
  if (row?.receipt_id) {
    const { noun, readWith } = KINDS[row.kind];
    return new ApiError(
      "tid_conflict",
      `This tid already created ${noun} ${row.receipt_id} with another body: read it with ${readWith}, or create with a new tid.`,
    );
  }
  if (row) return new ApiError("tid_conflict", "This tid is taken by a create with another body that is still in flight: use a new tid.");
  return new ApiError("tid_conflict", "This tid is already used by another request: use a new tid.");
}

/**
 * An identical retry of a create past the replay window (TID_REPLAY_DAYS from
 * the answer, by the row's own time), or whose answer is no longer kept (a
 * record deleted and rebuilt: rule 10). It is not replayed as if new: the
 * caller is told which record the tid made and where to read it. (The caller
 * owns the tid's space, so naming the id tells nobody else anything.)
 */
function compactedReplay(kind: KindName, recordId: string | null, replayMs: number): ApiError {
  const days = Math.round((replayMs / DAY_MS) * 100) / 100;
  const { noun, readWith } = KINDS[kind];
  return new ApiError(
    "tid_conflict",
    `This tid already created ${noun} ${recordId}. The answer to that create is no longer kept (answers are kept ${days} days), so it cannot be replayed: read the ${noun} with ${readWith}.`,
  );
}

/**
 * The answer an identical retry gets: the record object's (one hop); past the
 * replay window, or with nothing kept, compactedReplay.
 */
async function replay<Body>(env: Env, kind: KindName, row: Pick<TidRow, "owner" | "receipt_id" | "updated_at">): Promise<Body> {
  const { replayMs } = retentionPolicy(env);
  if (row.receipt_id !== null && clock.now() - row.updated_at <= replayMs) {
    const kept = await receiptStub(env, kind, row.receipt_id).replay(row.owner);
    if (kept !== null) return JSON.parse(kept) as Body;
  }
  throw compactedReplay(kind, row.receipt_id, replayMs);
}

/** Remembers a completed row in this data center (src/tids/tid-cache.ts), after the answer. */
function remember(env: Env, row: Pick<TidRow, "owner" | "tid" | "kind" | "receipt_id" | "fingerprint" | "updated_at">): Promise<void> {
  if (row.receipt_id === null) return Promise.resolve();
  const entry = { kind: row.kind, receipt_id: row.receipt_id, fingerprint: row.fingerprint, answered_at: row.updated_at };
  return rememberTid(row.owner, row.tid, entry, retentionPolicy(env).tidRetentionMs);
}

/**
 * `after` holds work that runs after the answer (the request's waitUntil):
 * the claim's completion, which the record object owes as well. `admit` is
 * what may still refuse the create once its tid is claimed and before the
 * upstream is called (rule 13's count).
 */
export async function createOnce<Body extends RecordBody, Create extends { tid: string }>(
  env: Env,
  caller: Caller,
  requestId: string,
  kind: Kind<Body, Create>,
  input: Create,
  after: (work: Promise<unknown>) => void = () => undefined,
  admit: () => Promise<Failure | null> = async () => null,
): Promise<Created<Body>> {
  const config = readConfig(env);
  // What the record keeps of its create: a hold (which the deployment must be able to confirm), and a QR merchant.
  const isHold = kind.holdOf(input);
  if (isHold && !config.holdEnabled) throw new ApiError("hold_not_enabled", "The hold function is not enabled in this deployment.");
  const merchant = kind.merchantOf(input);
  const record = { isHold, qrMerchant: merchant !== undefined && config.qrMerchantIds.has(merchant) };
  const owner = ownerOf(caller);
  const request = { kind: kind.name, request: input };
  const wanted = {
    owner,
    tid: input.tid,
    upstreamTid: await upstreamTidFor(config.tidSecret, owner, input.tid),
    kind: kind.name,
    fingerprint: await fingerprint(config.tidSecret, request),
  };
  // While TID_SECRET is rotated, a create claimed under the earlier value is still this request.
  const formerFingerprints = await Promise.all(config.formerTidSecrets.map((key) => fingerprint(key, request)));

  // The claim (one D1 batch) and this data center's memory of the tid (src/tids/tid-cache.ts) at once: a new tid waits
  // for the claim only, one it remembers for neither (the claim of a completed row writes nothing).
  const claiming = (async () => {
    // The claim and everything after it stay in the one database that holds this (owner, tid): while the
    // list grows, each earlier place is fenced first (src/tids/tid-index.ts, claimIndexFor).
    const { binding, db } = await claimIndexFor(env, wanted);
    return {
      binding,
      db,
      claim: await claimTid(db, {
        ...wanted,
        formerFingerprints,
        leaseMs: leaseMs(config.upstreamTimeoutMs),
        windowMs: retentionPolicy(env).tidRetentionMs,
      }),
    };
  })();
  // Handled below, or (a remembered tid) left to finish after the answer.
  const settled = claiming.catch(() => undefined);
  const known = await recallTid(owner, input.tid, retentionPolicy(env).tidRetentionMs);
  if (known) {
    after(settled);
    const same = known.kind === kind.name && (known.fingerprint === wanted.fingerprint || formerFingerprints.includes(known.fingerprint));
    if (!same) throw conflict(known);
    const row = { owner, tid: input.tid, receipt_id: known.receipt_id, updated_at: known.answered_at };
    return { body: await replay<Body>(env, kind.name, row), replayed: true };
  }
  const { binding, db, claim } = await claiming;

  switch (claim.kind) {
    case "replay": {
      const body = await replay<Body>(env, kind.name, claim.row);
      after(remember(env, claim.row));
      return { body, replayed: true };
    }
    case "conflict":
      throw conflict(claim.row);
    case "in_progress":
      throw new ApiError("tid_in_progress", "A create with this tid is still in flight; retry shortly.", {
        retry_after: claim.retryAfterSeconds,
      });
  }

  const held = { owner, tid: input.tid, token: claim.token };
  // Rule 13 counts only a create about to reach the upstream: once the tid is this request's (a replay, a
  // conflict or a create in flight counts nothing). Refused, a new claim frees its tid; a takeover's claim
  // stays as it was, its earlier create's outcome unknown.
  const refused = await admit().catch(async (err: unknown) => {
    await (claim.takeover ? expireTid(db, held) : releaseTid(db, held));
    throw err;
  });
  if (refused) {
    await (claim.takeover ? expireTid(db, held) : releaseTid(db, held));
    throw ApiError.from(refused);
  }
  // A takeover re-sends under the tid first sent, so the upstream recognises (and we adopt) a create made before a rotation.
  const upstreamTid = claim.upstreamTid;
  const upstream = new UpstreamClient(env, requestId);
  const result = await kind.create(upstream, { ...input, tid: upstreamTid });
  let created: Body;
  if (result.ok) {
    created = result.value;
  } else {
    // A takeover follows a create whose outcome was never known. If the
    // upstream holds this tid with our very request, that create went through.
    const existing = kind.bodyOf(result);
    if (claim.takeover && result.upstreamCode === "TID_DUPLICATE" && existing && kind.matches(existing, input)) {
      created = existing;
    } else {
      if (result.outcome === "unknown") {
        metric(env, "unknown_outcome", { operation: `${kind.name}/create` });
        await expireTid(db, held);
      } else await releaseTid(db, held);
      throw ApiError.from(result.failure);
    }
  }

  const body = kind.withTid(created, input.tid);
  const receiptId = kind.idOf(body);
  const answeredAt = clock.now();
  try {
    // The record's object, with its answer and the completion it owes, in one commit; the answer waits for no D1.
    await receiptStub(env, kind.name, receiptId).init({
      kind: kind.name,
      body,
      tid: input.tid,
      upstreamTid,
      owner,
      isHold: record.isHold,
      qrMerchant: record.qrMerchant,
      requestId,
      completion: { binding, ...held, receiptId, answeredAt },
    });
  } catch (err) {
    // The record exists upstream; an identical retry will take the claim over and adopt it.
    log("error", "create_bookkeeping_failed", { request_id: requestId, kind: kind.name, error: String(err) });
    await expireTid(db, held).catch(() => undefined);
    throw new ApiError("upstream_error", "The receipt was created but could not be recorded; retry with the same tid.");
  }
  // After the answer: until then an identical retry or check-tid meets the claim inside its lease (tid_in_progress).
  after(
    completeTid(db, held, receiptId, answeredAt, retentionPolicy(env).tidRetentionMs, claim.table).then(
      () => remember(env, { owner, tid: input.tid, kind: kind.name, receipt_id: receiptId, fingerprint: wanted.fingerprint, updated_at: answeredAt }),
      (err: unknown) => log("error", "tid_completion_deferred", { request_id: requestId, kind: kind.name, error: String(err) }),
    ),
  );
  return { body, replayed: false };
}

/**
 * The id of the record `tid` created, for check-tid. A tid is looked up in one
 * space: the caller's own, or (partner only) the named user's (rule 9); a user
 * naming another user learns what an unknown tid tells: nothing. A create
 * still in flight is tid_in_progress; one whose claim outlived its lease did
 * not finish, and its outcome is unknown: not found, and the create's retry adopts it.
 */
export async function createdBy(
  env: Env,
  caller: Caller,
  kind: KindName,
  tid: string,
  user?: string,
  after: (work: Promise<unknown>) => void = () => undefined,
): Promise<string> {
  const { noun } = KINDS[kind];
  const notFound = new ApiError("receipt_not_found", `No ${noun} was created with this tid.`);
  if (user !== undefined && caller.kind !== "partner" && user !== caller.id) throw notFound;
  const owner = user !== undefined ? ownerOf({ kind: "user", id: user }) : ownerOf(caller);
  // This data center may remember it (src/tids/tid-cache.ts): no D1 round trip.
  const known = await recallTid(owner, tid, retentionPolicy(env).tidRetentionMs);
  if (known) {
    if (known.kind !== kind) throw notFound;
    return known.receipt_id;
  }
  const row = await findTid(await readIndexFor(env, owner, tid), owner, tid, retentionPolicy(env).tidRetentionMs);
  if (!row || row.kind !== kind) throw notFound;
  if (row.receipt_id) {
    after(remember(env, row));
    return row.receipt_id;
  }
  if (leaseExpired(row, leaseMs(readConfig(env).upstreamTimeoutMs), clock.now())) {
    throw new ApiError(
      "receipt_not_found",
      `The create with this tid did not finish and its outcome is unknown. Retry that create with the same body: it adopts the ${noun} if the payment service made one.`,
    );
  }
  throw new ApiError("tid_in_progress", "The create with this tid is still in flight.", { retry_after: 1 });
}
