/**
 * How the rest of the gateway reaches a record's Durable Object: its stub by
 * kind and id, and the shape of what its operations answer. Near the ground
 * on purpose: the object's type comes with the RECEIPTS binding (the
 * generated Env), so whoever calls a record imports nothing of the object.
 */
import type { Language } from "./errors/error-codes";
import type { Outcome } from "./errors/errors";
import type { Caller } from "./rules/caller";
import type { KindName } from "./rules/kinds";
import type { LineNotes } from "./shared/log";

/**
 * The JSON text of a T. Operations answer with it: the object serializes its
 * answer once, it crosses the RPC boundary as one string instead of a cloned
 * object tree, and the route sends it as it is.
 */
export type JsonText<T> = string & { readonly __jsonOf?: T };

/** The Durable Object that holds receipt or transfer `id`. */
export function receiptStub(env: Env, kind: KindName, id: string) {
  return env.RECEIPTS.get(env.RECEIPTS.idFromName(`${kind}:${id}`));
}

/** An answer kept for an Idempotency-Key (rule 11): its status, the JSON text of its body and its headers, sent again as they were. */
export interface KeptAnswer {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/** Who asks, in which request, about which record: what every operation on a record is given. */
export interface OperationContext {
  caller: Caller;
  requestId: string;
  /** The record the request names (what the partner's rebuild of a deleted record reads: rule 10). */
  record?: { kind: KindName; id: string };
  /** The request's Idempotency-Key and its body's keyed fingerprints (rule 11), when it brought one. */
  idempotency?: { key: string; fingerprints: readonly string[] };
  /** The language of the request's user_message (Accept-Language): an error answer kept for its key speaks it. English when not given. */
  language?: Language;
}

/**
 * What a record's operation answers: an outcome, or the answer its Idempotency-Key kept (`replayed`); `log`, what
 * the object's call would have logged (its upstream calls, the record's state change, rule 13's refusals), for the
 * request's one canonical line (src/shared/log.ts). A release before sends none, and logs those itself.
 */
export type RecordAnswer<T> = Outcome<JsonText<T>> & { replayed?: KeptAnswer; log?: LineNotes };
