/**
 * Rule 11's answers, as a money move meets them (src/record/move.ts): a
 * repeat's kept answer replayed, the answer a keyed request got kept (or its
 * key forgotten), and the answer to a repeat whose first request met an
 * unknown outcome, once the move has looked at the upstream. Its host is
 * the record's store and its keys (src/record/keys.ts), nothing else.
 */
import { errorAnswer, fail, type Outcome } from "../errors/errors";
import type { OperationContext, RecordAnswer } from "../record-stub";
import { mayAccess, ownerOf } from "../rules/caller";
import { keepsAnswer, type Operation, repeatAnswer, upstreamPhase } from "../rules/lifecycle";
import { clock } from "../shared/clock";
import type { KeyLookup, Keys } from "./keys";
import type { RecordStore } from "./store";

export class KeptAnswers {
  readonly #store: RecordStore;
  readonly #keys: Keys;

  constructor(host: { store: RecordStore; keys: Keys }) {
    this.#store = host.store;
    this.#keys = host.keys;
  }

  /**
   * Keys first: a repeat whose key has a kept answer gets it again, with no
   * upstream call, before the one-at-a-time check, so a follow-up read or an
   * alarm under way never turns it into operation_in_progress; only a repeat
   * of a request still in flight (its key open, no answer yet) waits its
   * turn. Null when there is no kept answer for the caller's key on a record
   * it may see. Audited as any replay is.
   */
  replay<A>(operation: Operation, op: OperationContext): RecordAnswer<A> | null {
    if (!op.idempotency) return null;
    const rec = this.#store.load();
    if (!rec || !mayAccess(op.caller, rec.owner)) return null;
    const actor = ownerOf(op.caller);
    const seen = this.#keys.lookup(actor, operation, op.idempotency);
    if (seen.kind !== "replay") return null;
    this.#store.trail.add({ at: clock.now(), op: operation, actor, request_id: op.requestId, outcome: "ok" });
    return { ok: true, value: seen.answer.body, replayed: seen.answer };
  }

  /** What the request's key says of it, under the lock: new when it brought none. */
  lookup(operation: Operation, op: OperationContext): KeyLookup {
    return op.idempotency ? this.#keys.lookup(ownerOf(op.caller), operation, op.idempotency) : { kind: "new" };
  }

  /** The key is kept open in the note's commit: a repeat while the outcome is unknown asks the upstream, never calls again. */
  open(operation: Operation, op: OperationContext): void {
    if (op.idempotency) this.#keys.open(ownerOf(op.caller), operation, op.idempotency, op.requestId);
  }

  /**
   * The answer a key's request got, kept when the gateway acted (lifecycle's
   * keepsAnswer), forgotten when it did not, so that a corrected or later
   * request may use the key again. In the outcome's commit.
   */
  keep(operation: Operation, op: OperationContext, outcome: Outcome<string>): Outcome<string> {
    if (!op.idempotency) return outcome;
    const actor = ownerOf(op.caller);
    const answer = outcome.ok ? { status: 200, body: outcome.value, headers: {} } : errorAnswer(outcome.error, op.requestId, op.language ?? "en");
    if (keepsAnswer(answer.status, outcome.ok ? undefined : outcome.error.code))
      this.#keys.answer(actor, operation, op.idempotency, op.requestId, answer);
    else this.#keys.forget(actor, operation, op.idempotency);
    return outcome;
  }

  /**
   * The first request with this key met an unknown outcome (a timeout, a
   * lost connection, a crash before its answer). After the move's look at
   * the upstream (which settled the lost note, as the reconciler would), the
   * repeat answers what it shows: the record, when the operation happened;
   * else that nothing happened and the key is spent. Never a second call.
   */
  afterUnknown<A>(operation: Operation, op: OperationContext): RecordAnswer<A> {
    const rec = this.#store.current!;
    const shown = repeatAnswer(operation, upstreamPhase(rec.state));
    const outcome: Outcome<string> =
      shown === "done"
        ? { ok: true, value: rec.body }
        : shown === "unknown_send"
          ? fail(
              "upstream_error",
              "The OTP send with this Idempotency-Key met an unknown outcome: an SMS may have been sent. Use it, or authorize again with a new key once its wait has passed.",
            )
          : fail(
              "upstream_error",
              `The ${operation} with this Idempotency-Key did not happen: the payment service shows nothing done. Send it again with a new key.`,
            );
    const answer = outcome.ok ? { status: 200, body: outcome.value, headers: {} } : errorAnswer(outcome.error, op.requestId, op.language ?? "en");
    this.#keys.answer(ownerOf(op.caller), operation, op.idempotency!, op.requestId, answer);
    return { ...outcome, replayed: answer };
  }
}
