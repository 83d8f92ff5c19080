// The model test's oracle (test/model/contract.ts) on its own: the verdicts
// the model test relies on, for answers a broken gateway would give.
import { describe, expect, it } from "vitest";
import {
  fiscalMissing,
  guessesOf,
  isFailedGuess,
  type Judged,
  judge,
  judgeFiscal,
  judgeRepeat,
  keyKept,
  type LoggedCall,
  OTP_RIGHT,
  OTP_WRONG,
  type RecMeta,
  type RepeatJudged,
  replay,
  type Sent,
} from "../model/contract";

const receipt: RecMeta = {
  key: "R1",
  kind: "receipt",
  id: "r1",
  tid: "t1",
  owner: "user1",
  merchant: 1001,
  isHold: false,
  isVerify: true,
  qr: false,
};

let n = 0;
const sent = (over: Partial<Sent>): Sent => ({
  requestId: `q${++n}`,
  rec: "R1",
  step: n,
  who: "user1",
  op: "pay",
  anonymous: false,
  card: "ok",
  mainPath: "receipt/pay",
  answer: { status: 200, state: 4 },
  racing: false,
  hits: [],
  ...over,
});
const call = (s: Sent, over: Partial<LoggedCall> = {}): LoggedCall => ({
  seq: ++n,
  path: s.mainPath,
  id: "r1",
  status: 200,
  code: null,
  request_id: s.requestId,
  otp: s.otp !== undefined,
  ...over,
});
const judged = (s: Sent, over: Partial<Judged> = {}): Judged => ({
  meta: receipt,
  sent: s,
  before: [0],
  after: 0,
  own: [],
  guessesBefore: 0,
  guessesAfter: 0,
  maxGuesses: 0,
  ...over,
});

describe("the model test's oracle", () => {
  it("refuses a user's refund of a paid receipt and a 500, allows the contract's answers", () => {
    const cancel = sent({ op: "cancel", mainPath: "receipt/cancel", answer: { status: 200, state: 21 } });
    expect(judge(judged(cancel, { before: [4], after: 21, own: [call(cancel)] }))).toMatch(/allows forbidden/);
    expect(judge(judged({ ...cancel, answer: { status: 403, code: "forbidden" } }, { before: [4], after: 4 }))).toBeNull();
    expect(judge(judged({ ...cancel, answer: { status: 500, code: "internal_error" } }))).toMatch(/500/);
  });

  it("holds a 200 pay to a pay the upstream accepted, and otp_invalid to its attempts_left", () => {
    const pay = sent({ otp: OTP_RIGHT });
    expect(judge(judged(pay, { after: 4 }))).toMatch(/did not accept/);
    expect(judge(judged(pay, { after: 4, own: [call(pay)] }))).toBeNull();
    const wrong = sent({ otp: OTP_WRONG[0], answer: { status: 422, code: "otp_invalid", attemptsLeft: 2 } });
    const refused = call(wrong, { status: 400, code: "OTP_INVALID" });
    expect(judge(judged(wrong, { own: [refused], guessesAfter: 2 }))).toMatch(/1 left/);
    expect(judge(judged(wrong, { own: [refused], guessesAfter: 1 }))).toBeNull();
    expect(judge(judged(wrong, { own: [refused], guessesAfter: 3 }))).toMatch(/otp_attempts_exhausted/);
  });

  it("counts as failed guesses the OTPs refused as wrong, lost, or refused in unknown words; not busy ones nor one that paid late", () => {
    const wrong = sent({ otp: OTP_WRONG[0], answer: { status: 422, code: "otp_invalid" } });
    const lost = sent({ otp: OTP_WRONG[1], answer: { status: 502, code: "upstream_error" }, hits: [{ path: "receipt/pay", fault: "5xx" }] });
    const unknown = sent({
      otp: OTP_WRONG[2],
      answer: { status: 422, code: "upstream_refused" },
      hits: [{ path: "receipt/pay", fault: "unknown-code" }],
    });
    const busy = sent({ otp: OTP_WRONG[0], answer: { status: 503, code: "upstream_unavailable" }, hits: [{ path: "receipt/pay", fault: "busy" }] });
    const late = sent({ otp: OTP_RIGHT, answer: { status: 502, code: "upstream_error" }, hits: [{ path: "receipt/pay", fault: "late" }] });
    const calls = [call(wrong, { status: 400, code: "OTP_INVALID" })];
    expect(guessesOf(receipt, [wrong, lost, unknown, busy, late], calls)).toBe(4);
    // The upstream acted on the late pay, and paid: that OTP was right.
    expect(isFailedGuess(receipt, late, [...calls, call(late)])).toBe(false);
  });

  it("replays the upstream's states from its log and what the test saw", () => {
    const pay = sent({ otp: OTP_RIGHT });
    const cancel = sent({ op: "cancel", who: "partner", mainPath: "receipt/cancel" });
    const log = [call(pay), call(cancel)];
    const sents = new Map([pay, cancel].map((s) => [s.requestId, s]));
    const { states, before } = replay(receipt, log, [{ afterSeq: 0, state: 0 }], sents);
    expect(states).toEqual([0, 4, 21]);
    expect(before.get(log[1]!.seq)).toBe(4);
  });

  it("rule 11: a repeated key answers what the key kept, reaches the upstream once at most, and another body is refused", () => {
    const raw = '{"id":"r1","state":4}';
    const first = sent({ key: "k1", answer: { status: 200, state: 4 } });
    const repeat = sent({ key: "k1", answer: { status: 200, state: 4 } });
    const repeated = (over: Partial<RepeatJudged>): RepeatJudged => ({
      first,
      kept: "answer",
      settled: { status: 200, raw },
      repeat,
      answer: { status: 200, state: 4, raw, replayed: true },
      sameBody: true,
      calls: [call(first)],
      keyRequests: [first.requestId, repeat.requestId],
      after: 4,
      ...over,
    });
    expect(judgeRepeat(repeated({}))).toBeNull();
    expect(judgeRepeat(repeated({ answer: { status: 200, state: 4, raw, replayed: false } }))).toMatch(/key kept 200/);
    // The replay broken: the repeat pays again.
    expect(judgeRepeat(repeated({ calls: [call(first), call(repeat)] }))).toMatch(/2 times/);
    const reused = { status: 409, code: "idempotency_key_reused", raw: "{}", replayed: false };
    expect(judgeRepeat(repeated({ sameBody: false, answer: reused }))).toBeNull();
    expect(judgeRepeat(repeated({ sameBody: false }))).toMatch(/not 409 idempotency_key_reused/);
    // After an unknown outcome: 200 iff the upstream shows the operation done, else 502 upstream_error.
    const lost = { ...first, answer: { status: 502, code: "upstream_error" }, hits: [{ path: "receipt/pay", fault: "lost" as const }] };
    const notDone = { status: 502, code: "upstream_error", raw: "{}", replayed: true };
    expect(judgeRepeat(repeated({ first: lost, kept: "unknown", settled: null }))).toBeNull();
    expect(judgeRepeat(repeated({ first: lost, kept: "unknown", settled: null, answer: notDone }))).toMatch(/took effect: 200/);
    expect(judgeRepeat(repeated({ first: lost, kept: "unknown", settled: null, calls: [], after: 0, answer: notDone }))).toBeNull();
    expect(judgeRepeat(repeated({ first: lost, kept: "unknown", settled: null, calls: [], after: 0 }))).toMatch(/did not: 502/);
    // The first never left the gateway (a read failed before it): the key was never opened, the repeat is a request of its own.
    const unsent = { ...lost, hits: [{ path: "receipt/check-id", fault: "5xx" as const }] };
    expect(judgeRepeat(repeated({ first: unsent, kept: "unknown", settled: null, calls: [], answer: { ...notDone, replayed: false } }))).toBe("new");
    expect(keyKept({ status: 503, code: "upstream_unavailable" })).toBe("nothing");
    expect(keyKept({ status: 409, code: "receipt_already_paid" })).toBe("answer");
    expect(keyKept({ status: 504, code: "upstream_timeout" })).toBe("unknown");
  });
});

describe("the model test's oracle: rule 14 (invariant 7)", () => {
  const SHOWN = { fiscalSign: "987796477570", qrCodeUrl: "https://ofd.soliq.uz/check?s=987796477570", type: "Sale" };
  const LATE = { ...SHOWN, fiscalSign: "", qrCodeUrl: "" };
  const REFUND = { ...SHOWN, fiscalSign: "245977760765", type: "Refund" };

  it("what the upstream lacks: the sale's, the refund's (its ofd still the sale's counts), or nothing", () => {
    expect(fiscalMissing(4, LATE)).toBe("sale");
    expect(fiscalMissing(4, SHOWN)).toBeNull();
    expect(fiscalMissing(4, null)).toBeNull();
    expect(fiscalMissing(21, { ...REFUND, fiscalSign: "" })).toBe("refund");
    expect(fiscalMissing(21, SHOWN)).toBe("refund");
    expect(fiscalMissing(21, REFUND)).toBeNull();
    expect(fiscalMissing(21, null)).toBeNull();
    expect(fiscalMissing(5, LATE)).toBeNull();
  });

  it("missing data must be listed, in the upstream's state; shown data must be known: delivered, or listed until a fresh read", () => {
    const base = { delivered: [], fresh: false };
    expect(judgeFiscal({ ...base, state: 4, ofd: LATE, listed: { state: 4 } })).toBeNull();
    expect(judgeFiscal({ ...base, state: 4, ofd: LATE, listed: undefined })).toMatch(/does not list it/);
    expect(judgeFiscal({ ...base, state: 21, ofd: REFUND, listed: { state: 4 } })).toMatch(/listed in state 4/);
    // Shown after the last read: still listed until a read finds it; after a fresh read, not.
    expect(judgeFiscal({ ...base, state: 4, ofd: SHOWN, listed: { state: 4 } })).toBeNull();
    expect(judgeFiscal({ ...base, state: 4, ofd: SHOWN, listed: { state: 4 }, fresh: true })).toMatch(/still listed/);
    // Shown, not listed: an event in this state carried it.
    expect(judgeFiscal({ ...base, state: 4, ofd: SHOWN, listed: undefined })).toMatch(/neither listed nor delivered/);
    expect(judgeFiscal({ ...base, state: 4, ofd: SHOWN, listed: undefined, delivered: [{ type: "receipt.paid", state: 4, ofd: LATE }] })).toMatch(
      /neither listed nor delivered/,
    );
    expect(
      judgeFiscal({ ...base, state: 4, ofd: SHOWN, listed: undefined, delivered: [{ type: "receipt.fiscalized", state: 4, ofd: SHOWN }] }),
    ).toBeNull();
    expect(
      judgeFiscal({ ...base, state: 21, ofd: REFUND, listed: undefined, delivered: [{ type: "receipt.fiscalized", state: 4, ofd: SHOWN }] }),
    ).toMatch(/neither listed nor delivered/);
    // Nothing fiscal: never listed.
    expect(judgeFiscal({ ...base, state: 4, ofd: null, listed: undefined })).toBeNull();
    expect(judgeFiscal({ ...base, state: 0, ofd: null, listed: { state: 0 } })).toMatch(/owes no fiscal receipt/);
  });
});
