/**
 * Sampled log lines (src/shared/log.ts): a successful, unremarkable
 * invocation's canonical line is written with probability LOG_SUCCESS_SAMPLE
 * and says `sample`, what it stands for; a refusal, a failed upstream call and
 * what the gateway does on its own (rule 8's reconciliation, rule 12's expiry)
 * are always written, whatever the setting. Development's "1" writes every line.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readConfig } from "../../src/config/config";
import { configProblems } from "../../src/http/guard";
import { receiptStub } from "../../src/record-stub";
import { requestDraw } from "../../src/shared/log";
import {
  CARD_OK,
  call,
  callSettled,
  createReceipt,
  DAY_MS,
  expectError,
  expectStatus,
  letTimePass,
  OTP_OK,
  OTP_WRONG,
  receiptRequest,
  transferRequest,
} from "../helpers";
import { printedLines } from "../support/printed-lines";
import { scriptedUpstream } from "../support/scripted-upstream";

afterEach(() => vi.restoreAllMocks());

const PAYS_LATE = { token: "tok_sandbox_pays_late" };

/** A deployment whose LOG_SUCCESS_SAMPLE is `share`: its Worker's env. */
const deployment = (share: string) => ({ ...env, LOG_SUCCESS_SAMPLE: share }) as Env;

/** The same setting in the record's object, whose env the runtime hands it (its alarm reads it there). */
async function sampleInRecord(id: string, share: string, kind: "receipt" | "transfer" = "receipt"): Promise<void> {
  await runInDurableObject(receiptStub(env, kind, id), (instance) => {
    const object = instance as unknown as { env: Env };
    object.env = { ...object.env, LOG_SUCCESS_SAMPLE: share } as Env;
  });
}

describe("LOG_SUCCESS_SAMPLE 0: no success is written, everything on-call must see still is", () => {
  const zero = deployment("0");

  it("a successful create, authorize and pay write no line; a refused pay writes its own, whole", async () => {
    const lines = printedLines();
    const receipt = await expectStatus(callSettled(zero, "receipt/create", receiptRequest({ merchant_id: 1001 })), 200);
    await expectStatus(callSettled(zero, "receipt/anonymous/authorize", { id: receipt.id, card: CARD_OK }), 200);
    await expectError(callSettled(zero, "receipt/anonymous/pay", { id: receipt.id, card: CARD_OK, otp: OTP_WRONG }), 422, "otp_invalid");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ event: "request", path: "/api/v1/partner/receipt/anonymous/pay", status: 422, code: "otp_invalid" });
    expect(lines[0]).not.toHaveProperty("sample");

    const paid = await expectStatus(callSettled(zero, "receipt/anonymous/pay", { id: receipt.id, card: CARD_OK, otp: OTP_OK }), 200);
    expect(paid.state).toBe(4);
    expect(lines).toHaveLength(1);
  });

  it("a refusal by a rule, with no upstream call, writes its line: rule 1's tid conflict", async () => {
    const request = receiptRequest({ merchant_id: 1001 });
    await expectStatus(callSettled(zero, "receipt/create", request), 200);
    const lines = printedLines();
    await expectError(callSettled(zero, "receipt/create", { ...request, amount: request.amount + 100 }), 409, "tid_conflict");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: "info", event: "request", path: "/api/v1/partner/receipt/create", status: 409, code: "tid_conflict" });
    expect(lines[0]).not.toHaveProperty("upstream");
    expect(lines[0]).not.toHaveProperty("sample");
  });

  it("an upstream call that failed is written, with its outcome", async () => {
    const lines = printedLines();
    scriptedUpstream.on("receipt/create", { kind: "status", status: 500 });
    const failed = await callSettled(zero, "receipt/create", receiptRequest({ merchant_id: 1001 }));
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(lines.filter((line) => line.event === "request")).toMatchObject([
      { path: "/api/v1/partner/receipt/create", upstream: "receipt/create", upstream_status: 500, status: failed.status },
    ]);
    for (const line of lines) expect(line).not.toHaveProperty("sample");
  });

  it("the record's reconciliation by its alarm, the gateway's own look, is written, though the upstream shows nothing changed", async () => {
    const receipt = await expectStatus(callSettled(zero, "receipt/create", receiptRequest({ merchant_id: 1003 })), 200);
    await sampleInRecord(receipt.id, "0");
    const lines = printedLines();
    expect((await callSettled(zero, "receipt/pay", { id: receipt.id, card: PAYS_LATE })).status).toBe(504);
    expect(lines.map((line) => [line.event, line.status])).toEqual([["request", 504]]);

    lines.length = 0;
    await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
    const [alarm, ...rest] = lines.filter((line) => line.event === "alarm");
    expect(rest).toEqual([]);
    expect(alarm).toMatchObject({ level: "info", id: receipt.id, upstream_outcome: "ok" });
    expect(alarm).not.toHaveProperty("state_to");
    expect(alarm).not.toHaveProperty("sample");
  });

  it("rule 12's expiry, the gateway's own cancel, is written", async () => {
    const receipt = await expectStatus(callSettled(zero, "receipt/create", receiptRequest({ merchant_id: 1001 })), 200);
    await sampleInRecord(receipt.id, "0");
    letTimePass(DAY_MS + 60_000);
    const lines = printedLines();
    await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id));
    expect(lines.filter((line) => line.event === "alarm")).toMatchObject([{ level: "info", id: receipt.id, state_from: 0, state_to: 21 }]);
  });

  it("a transfer's expiry, closed at the edge with its state unchanged, the gateway's own act, is written", async () => {
    const transfer = await expectStatus(callSettled(zero, "a2c/create", transferRequest()), 200);
    const id = transfer.receipt_id as string;
    await sampleInRecord(id, "0", "transfer");
    letTimePass(DAY_MS + 60_000);
    const lines = printedLines();
    await runDurableObjectAlarm(receiptStub(env, "transfer", id));
    const alarms = lines.filter((line) => line.event === "alarm");
    expect(alarms).toMatchObject([{ level: "info", kind: "transfer", id }]);
    expect(alarms[0]).not.toHaveProperty("state_to");
    expect(alarms[0]).not.toHaveProperty("sample");
  });
});

describe("LOG_SUCCESS_SAMPLE 1 (development, the tests): every line", () => {
  it("a paid payment's lines are each written and say they stand for one; a refusal says nothing of a sample", async () => {
    expect(readConfig(env).logSuccessSample).toBe(1);
    const lines = printedLines();
    const receipt = await createReceipt({ merchant_id: 1001 });
    await expectStatus(call("receipt/anonymous/authorize", { id: receipt.id, card: CARD_OK }), 200);
    await expectError(call("receipt/anonymous/pay", { id: receipt.id, card: CARD_OK, otp: OTP_WRONG }), 422, "otp_invalid");
    await expectStatus(call("receipt/anonymous/pay", { id: receipt.id, card: CARD_OK, otp: OTP_OK }), 200);
    expect(lines.map((line) => [line.event, line.path.split("/").slice(-2).join("/"), line.status, line.sample])).toEqual([
      ["request", "receipt/create", 200, 1],
      ["request", "anonymous/authorize", 200, 1],
      ["request", "anonymous/pay", 422, undefined],
      ["request", "anonymous/pay", 200, 1],
    ]);
  });
});

describe("the draw is the request id's", () => {
  it("at 0.5 a successful request's line is written exactly when its id's hash falls under the share, and says it stands for 2", async () => {
    const half = deployment("0.5");
    const lines = printedLines();
    const drawn: boolean[] = [];
    for (let i = 0; i < 12; i++) {
      const answer = await callSettled(half, "receipt/create", receiptRequest({ merchant_id: 1001 }));
      await expectStatus(answer.clone(), 200);
      const id = answer.headers.get("x-request-id")!;
      const written = lines.filter((line) => line.request_id === id);
      expect(written.length).toBeLessThanOrEqual(1);
      expect(written.length === 1).toBe(requestDraw(id) < 0.5);
      if (written.length === 1) expect(written[0]!.sample).toBe(2);
      drawn.push(written.length === 1);
    }
    // Twelve ids all on one side would be a draw that does not depend on the id.
    expect(new Set(drawn).size).toBe(2);
  });
});

describe("LOG_SUCCESS_SAMPLE is configuration", () => {
  it("a share from 0 to 1, unset meaning every line; anything else is a problem the guard refuses to serve with", () => {
    const share = (value: string) => readConfig(deployment(value)).logSuccessSample;
    expect([share("0"), share("0.1"), share("1"), share("")]).toEqual([0, 0.1, 1, 1]);
    for (const ok of ["0", "0.1", "1", " 0.25 "]) expect(configProblems(deployment(ok))).toEqual([]);
    for (const bad of ["1.5", "-0.1", "often", "10%"])
      expect(configProblems(deployment(bad))).toEqual(["LOG_SUCCESS_SAMPLE is not a share from 0 to 1."]);
  });
});
