/**
 * The on-call's metrics (src/metrics/metrics.ts) as the Analytics Engine binding gets
 * them: miniflare's binding keeps no data points, so the tests read them
 * where development does, through observeMetrics, the same objects handed to
 * env.METRICS.writeDataPoint. A money path writes what docs/alerts.md's
 * queries count and nothing personal; a failing write never fails a request;
 * the dev server's summary (npm run metrics) exists only in development.
 */
import { createExecutionContext, runDurableObjectAlarm } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import worker from "../../src/index";
import { type MetricPoint, metric, observeMetrics, SLOW_SUCCESS, SUCCESS_SAMPLE, successSampling } from "../../src/metrics/metrics";
import { receiptStub } from "../../src/record/receipt-object";
import { consume, DEAD_LETTER_QUEUE, makeEvent, messageOf, newRecordId, publishKept } from "../events";
import {
  API,
  CARD_OK,
  call,
  cardDataIn,
  createReceipt,
  expectError,
  expectStatus,
  newUser,
  OTP_OK,
  PARTNER_KEY,
  receiptRequest,
  storedRecord,
  userToken,
} from "../helpers";
import { scriptedUpstream } from "../support/scripted-upstream";

let points: MetricPoint[] = [];
let stop: () => void = () => undefined;
beforeEach(() => {
  points = [];
  stop = observeMetrics((point) => points.push(point));
  // Every sampled success drawn in, so each test sees every point its calls make (the sampling's own tests draw otherwise).
  vi.spyOn(successSampling, "keep").mockReturnValue(true);
});
afterEach(() => {
  stop();
  vi.restoreAllMocks();
});

const blobsOf = (metric: string) => points.filter((p) => p.blobs[0] === metric).map((p) => p.blobs);

describe("an anonymous pay through the Worker", () => {
  it("writes one upstream_call per call (operation, outcome class, milliseconds) and nothing personal", async () => {
    const sub = newUser("metrics");
    const token = await userToken(sub);
    const tid = `metrics-${crypto.randomUUID()}`;
    const receipt = await createReceipt({ merchant_id: 1003, tid }, { token });
    await expectStatus(call("receipt/anonymous/authorize", { id: receipt.id, card: CARD_OK }, { token }), 200);
    await expectStatus(call("receipt/anonymous/pay", { id: receipt.id, card: CARD_OK, otp: OTP_OK }, { token }), 200);

    expect(points.map((p) => p.blobs)).toEqual([
      ["upstream_call", "receipt/create", "ok"],
      ["upstream_call", "receipt/anonymous/authorize", "ok"],
      ["upstream_call", "receipt/anonymous/pay", "ok"],
    ]);
    for (const point of points) {
      // The sampling key is the metric; a success stands for SUCCESS_SAMPLE occurrences; its milliseconds; no reconciliation.
      expect(point.indexes).toEqual(["upstream_call"]);
      expect(point.doubles[0]).toBe(SUCCESS_SAMPLE);
      expect(point.doubles[1]).toBeGreaterThanOrEqual(0);
      expect(point.doubles[2]).toBe(0);
    }
    const written = JSON.stringify(points);
    for (const personal of [receipt.id, tid, sub, token, "998901234567"]) expect(written).not.toContain(personal);
    expect(cardDataIn(written, { pans: [CARD_OK.number], otps: [OTP_OK], expiries: [CARD_OK.expire] })).toEqual([]);
  });
});

describe("successes sampled", () => {
  it("a success not drawn writes nothing; a failure is written whatever the draw, standing for itself", async () => {
    vi.spyOn(successSampling, "keep").mockReturnValue(false);
    const receipt = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" } }), 200);
    expect(points).toEqual([]);

    const other = await createReceipt({ merchant_id: 1003 });
    scriptedUpstream.on("receipt/pay", { kind: "status", status: 503, code: "BUSY" }, { times: 1 });
    await call("receipt/pay", { id: other.id, card: { token: "tok_sandbox_ok" } });
    expect(points.map((p) => [...p.blobs, p.doubles[0]])).toEqual([["upstream_call", "receipt/pay", "busy", 1]]);
  });

  it("one success in SUCCESS_SAMPLE is written, each standing for SUCCESS_SAMPLE: the sum stays the count", () => {
    vi.mocked(successSampling.keep).mockRestore();
    const written: MetricPoint[] = [];
    const deployment = { METRICS: { writeDataPoint: (point: MetricPoint) => written.push(point) } } as unknown as Env;
    const calls = 4_000;
    for (let i = 0; i < calls; i++) {
      metric(deployment, "upstream_call", { operation: "receipt/pay", outcome: "ok", ms: 5 });
      metric(deployment, "event_delivery", { outcome: "delivered", ms: 5, queued_ms: 7 });
    }
    for (const name of ["upstream_call", "event_delivery"]) {
      const mine = written.filter((p) => p.blobs[0] === name);
      // Binomial(4,000, 1/10): 400 expected, a standard deviation of 19; outside 300-500 once in ~10^7 runs.
      expect(mine.length).toBeGreaterThan(300);
      expect(mine.length).toBeLessThan(500);
      expect(new Set(mine.map((p) => p.doubles[0]))).toEqual(new Set([SUCCESS_SAMPLE]));
    }
    metric(deployment, "event_delivery", { outcome: "failed", ms: 5, queued_ms: 7 });
    expect(written.at(-1)?.doubles[0]).toBe(1);
  });

  it("a slow success is written whatever the draw, standing for itself: the tails and maxima are the real ones", () => {
    vi.spyOn(successSampling, "keep").mockReturnValue(false);
    const written: MetricPoint[] = [];
    const deployment = { METRICS: { writeDataPoint: (point: MetricPoint) => written.push(point) } } as unknown as Env;
    metric(deployment, "upstream_call", { operation: "receipt/pay", outcome: "ok", ms: SLOW_SUCCESS.upstreamMs - 1 });
    metric(deployment, "event_delivery", { outcome: "delivered", ms: 5, queued_ms: SLOW_SUCCESS.queuedMs - 1 });
    expect(written).toEqual([]);
    metric(deployment, "upstream_call", { operation: "receipt/pay", outcome: "ok", ms: SLOW_SUCCESS.upstreamMs });
    metric(deployment, "event_delivery", { outcome: "delivered", ms: 5, queued_ms: SLOW_SUCCESS.queuedMs });
    expect(written.map((p) => [p.blobs[0], p.doubles[0]])).toEqual([
      ["upstream_call", 1],
      ["event_delivery", 1],
    ]);
  });
});

describe("a pay whose answer is lost", () => {
  it("counts an unknown outcome, then the alarm's reconciliations (a failed one, then one that settles it) and the record left suspect", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    points = [];
    scriptedUpstream.on("receipt/pay", { kind: "lost" });
    const res = await call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" } });
    expect(res.status, await res.text()).toBeGreaterThanOrEqual(500);
    expect(points.map((p) => p.blobs)).toEqual([
      ["upstream_call", "receipt/pay", "unreadable"],
      ["unknown_outcome", "receipt/pay", ""],
    ]);

    // The first look finds the upstream busy: a failed reconciliation, the first in a row.
    scriptedUpstream.on("receipt/check-id", { kind: "status", status: 503, code: "BUSY" }, { times: 1 });
    points = [];
    expect(await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id))).toBe(true);
    expect(points.filter((p) => p.blobs[0] === "reconciliation")).toEqual([
      { indexes: ["reconciliation"], blobs: ["reconciliation", "receipt", "failed"], doubles: [1, 0, 1] },
    ]);

    points = [];
    expect(await runDurableObjectAlarm(receiptStub(env, "receipt", receipt.id))).toBe(true);
    expect(await storedRecord("receipt", receipt.id)).toMatchObject({ pending_op: null });
    expect(blobsOf("reconciliation")).toEqual([["reconciliation", "receipt", "ok"]]);
    expect(blobsOf("record_suspect")).toEqual([["record_suspect", "receipt", ""]]);
  });
});

describe("events given up on", () => {
  it("a dead-letter batch is one data point counting its events", async () => {
    const recordId = newRecordId();
    const events = [makeEvent(recordId, { sequence: 1 }), makeEvent(recordId, { sequence: 2 })];
    await publishKept(events);
    points = [];
    await consume(
      events.map((event) => ({ body: messageOf(event) })),
      { queue: DEAD_LETTER_QUEUE },
    );
    expect(points).toEqual([{ indexes: ["event_failed"], blobs: ["event_failed", "dead_letter", ""], doubles: [2, 0, 0] }]);
  });
});

describe("a metric that cannot be written", () => {
  const create = (deployment: Env) =>
    createApp().fetch(
      new Request(`${API}/receipt/create`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${PARTNER_KEY}` },
        body: JSON.stringify(receiptRequest()),
      }),
      deployment,
      createExecutionContext(),
    );

  it("is logged and dropped: the request is answered as if nothing happened", async () => {
    const warn = vi.spyOn(console, "warn");
    const failing = {
      writeDataPoint: () => {
        throw new Error("Analytics Engine is unavailable");
      },
    };
    await expectStatus(create({ ...env, METRICS: failing } as unknown as Env), 200);
    const lines = warn.mock.calls.map(([line]) => JSON.parse(String(line)) as { event: string; metric?: string });
    expect(lines).toContainEqual(expect.objectContaining({ event: "metric_write_failed", metric: "upstream_call" }));
  });

  it("is not written at all by a deployment without the binding, which still answers", async () => {
    const { METRICS: _none, ...without } = env;
    await expectStatus(create(without as unknown as Env), 200);
  });
});

describe("npm run metrics's source, GET /__sandbox/metrics", () => {
  it("sums the dev server's data points per metric, operation and outcome, with p50 and p99 milliseconds", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await expectStatus(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" } }), 200);
    const summary = await expectStatus<{ points: number; rows: Record<string, unknown>[] }>(
      exports.default.fetch("http://gateway.test/__sandbox/metrics"),
      200,
    );
    const pay = summary.rows.find((row) => row.metric === "upstream_call" && row.operation === "receipt/pay" && row.outcome === "ok");
    expect(pay).toMatchObject({ count: expect.any(Number), p50_ms: expect.any(Number), p99_ms: expect.any(Number), max_attempts: null });
    expect(pay!.count as number).toBeGreaterThanOrEqual(1);
    expect(pay!.p99_ms as number).toBeGreaterThanOrEqual(pay!.p50_ms as number);
  });

  it("weighs a sampled success as the calls it stands for in p50 and p99", async () => {
    const operation = `receipt/weigh-${crypto.randomUUID()}`;
    metric(env, "upstream_call", { operation, outcome: "ok", ms: 10 });
    for (let i = 0; i < 2; i++) metric(env, "upstream_call", { operation, outcome: "ok", ms: SLOW_SUCCESS.upstreamMs + 500 });
    const summary = await expectStatus<{ rows: Record<string, unknown>[] }>(exports.default.fetch("http://gateway.test/__sandbox/metrics"), 200);
    // Ten fast calls in one point, two slow ones: the median call is a fast one, the 99th percentile a slow one.
    expect(summary.rows.find((row) => row.operation === operation)).toMatchObject({
      count: SUCCESS_SAMPLE + 2,
      p50_ms: 10,
      p99_ms: SLOW_SUCCESS.upstreamMs + 500,
    });
  });

  it("does not exist in production", async () => {
    await expectError(worker.fetch(new Request("http://gateway.test/__sandbox/metrics"), env, createExecutionContext()), 404, "not_found");
  });
});
