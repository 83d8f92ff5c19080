/**
 * Creating a receipt or transfer exactly once per tid: claim the tid in the
 * index, create upstream, hand the record to its Durable Object, complete the
 * claim. Retries of the same create by the same caller are answered from the
 * index; anything else with a known tid is a conflict.
 */
import { type Caller, ownerOf } from "./caller";
import { readConfig } from "./config";
import { ApiError } from "./errors";
import { log } from "./redact";
import { type RecordKind, receiptStub } from "./receipt-object";
import type { ReceiptBody, TransferBody } from "./schemas";
import { claimTid, completeTid, expireTid, fingerprint, releaseTid } from "./tid-index";
import { UpstreamClient, type UpstreamResult } from "./upstream/client";

export interface CreateSpec<T extends ReceiptBody | TransferBody> {
  kind: RecordKind;
  tid: string;
  /** The validated request, as the fingerprint sees it. */
  request: unknown;
  send: (upstream: UpstreamClient) => Promise<UpstreamResult<T>>;
  idOf: (body: T) => string;
  /** Whether a record the upstream already holds under this tid is the one we asked for. */
  isSameRequest: (existing: T) => boolean;
  isHold: boolean;
  qrMerchant: boolean;
}

export interface Created<T> {
  body: T;
  replayed: boolean;
}

export async function createOnce<T extends ReceiptBody | TransferBody>(
  env: Env,
  caller: Caller,
  requestId: string,
  spec: CreateSpec<T>,
): Promise<Created<T>> {
  const config = readConfig(env);
  const owner = ownerOf(caller);
  const claim = await claimTid(env.DB, {
    tid: spec.tid,
    kind: spec.kind,
    owner,
    fingerprint: await fingerprint(config.upstreamApiKey, { kind: spec.kind, request: spec.request }),
    leaseMs: Math.max(30_000, 3 * config.upstreamTimeoutMs),
  });

  switch (claim.kind) {
    case "replay":
      return { body: JSON.parse(claim.row.response ?? "null") as T, replayed: true };
    case "conflict":
      throw new ApiError("tid_conflict", "This tid is already used by another request.");
    case "in_progress":
      throw new ApiError("tid_in_progress", "A create with this tid is still in flight; retry shortly.", {
        retry_after: claim.retryAfterSeconds,
      });
  }

  const upstream = new UpstreamClient(env, requestId);
  const result = await spec.send(upstream);
  let body: T;
  if (result.ok) {
    body = result.value;
  } else {
    // A takeover follows a create whose outcome was never known. If the
    // upstream holds this tid with our very request, that create went through.
    const existing = (result.receipt ?? result.transfer) as T | undefined;
    if (claim.takeover && result.upstreamCode === "TID_DUPLICATE" && existing && spec.isSameRequest(existing)) {
      body = existing;
    } else {
      if (result.outcome === "unknown") await expireTid(env.DB, spec.tid, claim.token);
      else await releaseTid(env.DB, spec.tid, claim.token);
      throw ApiError.from(result.failure);
    }
  }

  try {
    // Independent writes: the record's own object, and the index entry that replays it.
    await Promise.all([
      receiptStub(env, spec.kind, spec.idOf(body)).init({
        kind: spec.kind,
        body,
        owner,
        isHold: spec.isHold,
        qrMerchant: spec.qrMerchant,
        requestId,
      }),
      completeTid(env.DB, spec.tid, claim.token, spec.idOf(body), body),
    ]);
  } catch (err) {
    // The record exists upstream; an identical retry will take the claim over and adopt it.
    log("error", "create_bookkeeping_failed", { request_id: requestId, kind: spec.kind, error: String(err) });
    await expireTid(env.DB, spec.tid, claim.token).catch(() => undefined);
    throw new ApiError("upstream_error", "The receipt was created but could not be recorded; retry with the same tid.");
  }
  return { body, replayed: false };
}
