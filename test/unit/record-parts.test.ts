// The record's parts over a real store (a Durable Object's SQLite, no
// upstream, no Worker): each owns its slice of the row, and each keeps its
// own promise. The integration tests drive the same parts through the
// gateway; these say which part keeps which promise.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { storedEvents } from "../../src/record/outbox-rows";
import { recordParts } from "../../src/record/parts";
import { newRecordRow, type RecordFields } from "../../src/record/store";
import { MAX_GUESSES } from "../../src/rules/lifecycle";
import { clock } from "../../src/shared/clock";
import { receiptObject } from "../events";

/** Runs `test` with the parts of a fresh object holding one unpaid receipt (and the object's SQLite, to read what is stored). */
function withRecord<T>(test: (parts: ReturnType<typeof recordParts>, sql: SqlStorage) => T | Promise<T>): Promise<T> {
  const stub = env.RECEIPTS.get(env.RECEIPTS.idFromName(`parts-test:${crypto.randomUUID()}`));
  return runInDurableObject(stub, async (_instance, state) => {
    const parts = recordParts(state.storage, env);
    const body = receiptObject("rcpt-parts", 0);
    const row = newRecordRow({
      kind: "receipt",
      id: body.id,
      tid: body.tid,
      upstream_tid: body.tid,
      owner: "user:someone",
      is_hold: 0,
      qr_merchant: 0,
      is_verify: 1,
      state: 0,
      body: JSON.stringify(body),
      created_at: clock.now(),
    });
    parts.store.create(row, () => undefined);
    return test(parts, state.storage.sql);
  });
}

/** Every column that changes after a create (RecordFields): each must have exactly one owning part. */
const MUTABLE_COLUMNS: readonly (keyof Required<RecordFields>)[] = [
  "is_hold",
  "qr_merchant",
  "is_verify",
  "state",
  "body",
  "erased",
  "answer",
  "wrong_otps",
  "unconfirmed_otps",
  "otp_sends",
  "last_otp_sent_at",
  "resend_wait_ms",
  "edge_closed",
  "pending_op",
  "pending_otp",
  "pending_since",
  "pending_request_id",
  "pending_actor",
  "suspect_since",
  "suspect_reads",
  "suspect_otp",
  "reconcile_attempts",
  "event_seq",
  "owed_completion",
  "held_at",
  "expiry",
  "fiscal",
  "fiscal_since",
  "fiscal_reads",
  "fiscal_listed",
  "clock_offset",
  "keys",
];

describe("each part owns its slice of the record", () => {
  it("every column that changes has exactly one owner, except the create's own facts", () =>
    withRecord(({ store }) => {
      const owned = [...store.owners.keys()].sort();
      const createOnly = ["is_hold", "qr_merchant", "is_verify"];
      expect(owned).toEqual(MUTABLE_COLUMNS.filter((c) => !createOnly.includes(c)).sort());
    }));

  it("a part may not write another's column, and a column cannot be claimed twice", () =>
    withRecord(({ store }) => {
      const mine = store.slice("a-test-part", []);
      expect(() => (mine as unknown as { update(f: object): void }).update({ state: 4 })).toThrow(/may not write state/);
      expect(() => store.slice("another-part", ["wrong_otps"])).toThrow(/belongs to otp-ledger/);
    }));
});

describe("the OTP ledger (rules 2 and 6)", () => {
  it("counts wrong and unconfirmed guesses; the third exhausts the record with its event, in the same change", () =>
    withRecord(({ store, ledger }) => {
      store.change(() => ledger.count("wrong", "r1"));
      store.change(() => ledger.count("not_judged", "r2"));
      store.change(() => ledger.count("accepted", "r3"));
      expect(ledger.guesses()).toBe(1);
      store.change(() => ledger.count("unconfirmed", "r4"));
      expect(store.outbox.unsent(10).map((e) => JSON.parse(e.body).type)).toEqual([]);
      store.change(() => ledger.count("wrong", "r5"));
      expect(ledger.guesses()).toBe(MAX_GUESSES);
      expect(ledger.attemptsLeft()).toBe(0);
      expect(store.outbox.unsent(10).map((e) => JSON.parse(e.body).type)).toEqual(["receipt.otp_attempts_exhausted"]);
      // An unconfirmed guess proven right no longer counts.
      store.change(() => ledger.provenRight());
      expect(ledger.counts()).toEqual({ wrong: 2, unconfirmed: 0 });
    }));

  it("the upstream's own word that the guesses are used up is believed", () =>
    withRecord(({ store, ledger }) => {
      store.change(() => ledger.count("wrong", "r1", true));
      expect(ledger.guesses()).toBe(MAX_GUESSES);
    }));

  it("a send starts the wait; another before it is refused otp_resend_too_soon", () =>
    withRecord(({ store, ledger }) => {
      expect(ledger.sendRefusal(clock.now())).toBeNull();
      store.change(() => ledger.countSend(60_000));
      expect(ledger.sendRefusal(clock.now())?.code).toBe("otp_resend_too_soon");
      expect(ledger.sendRefusal(clock.now() + 60_001)).toBeNull();
    }));
});

describe("the write-ahead note (rule 8)", () => {
  it("is durable before the call leaves, names who asked, sets the alarm for when the call must have ended, and is cleared with the outcome", () =>
    withRecord(async ({ store, writeAhead }) => {
      await writeAhead.note({ op: "pay", withOtp: true, requestId: "req", actor: "user:someone" });
      expect(store.current).toMatchObject({ pending_op: "pay", pending_otp: 1, pending_request_id: "req", pending_actor: "user:someone" });
      store.change(() => writeAhead.clear());
      expect(store.current).toMatchObject({ pending_op: null, pending_otp: 0, pending_actor: null });
    }));
});

describe("the late reads (rule 8's late upstream)", () => {
  it("a suspect record is read again on the schedule; a look that shows it paid proves an unconfirmed OTP right", () =>
    withRecord(({ store, lateReads }) => {
      const since = clock.now();
      store.change(() => lateReads.suspect(since, true));
      expect(lateReads.isSuspect()).toBe(true);
      expect(lateReads.dueAt()).toBeGreaterThan(since);
      expect(store.change(() => lateReads.looked(0))).toBe(false);
      expect(store.change(() => lateReads.looked(4))).toBe(true);
    }));
});

describe("the recorder", () => {
  it("stores what the upstream showed, and a change of state is its event in the same change; no change, no event", () =>
    withRecord(({ store, recorder }) => {
      store.change(() => recorder.apply(receiptObject("rcpt-parts", 0), "r0"));
      expect(store.outbox.unsent(10)).toEqual([]);
      store.change(() => recorder.apply(receiptObject("rcpt-parts", 4), "r1"));
      expect(store.current!.state).toBe(4);
      expect(store.outbox.unsent(10).map((e) => JSON.parse(e.body).type)).toEqual(["receipt.paid"]);
    }));

  it("a body that changes with no event of its own leaves every stored event's body as it was sent, byte for byte, for the next incarnation", () =>
    withRecord(({ store, recorder }, sql) => {
      store.change(() => recorder.apply(receiptObject("rcpt-parts", 4), "r1"));
      const sent = store.outbox.unsent(10);
      expect(sent).toHaveLength(1);
      // The same state, other fields: the row's body changes, and no event is made.
      store.change(() => recorder.apply({ ...receiptObject("rcpt-parts", 4), rrn: "123456789012", description: "Mobile top-up ✓ 🧾" }, "r2"));
      expect(store.outbox.unsent(10)).toEqual(sent);
      const stored = sql.exec<{ events: string; body: string; answer: string | null }>("SELECT events, body, answer FROM record").one();
      expect(storedEvents(stored).map(([id, body]) => ({ id, body }))).toEqual(sent.map(({ event_id, body }) => ({ id: event_id, body })));
    }));

  it("after the owner's erasure, bodies stored later are erased too", () =>
    withRecord(({ store, recorder }) => {
      store.change(() => recorder.erase());
      store.change(() => recorder.apply(receiptObject("rcpt-parts", 4), "r1"));
      expect(store.current!.body).not.toContain("998901234567");
    }));
});
