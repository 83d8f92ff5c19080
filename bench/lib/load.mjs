/**
 * Load generation: autocannon drives the requests, this module keeps the
 * clock. autocannon's own latency histogram rounds to whole milliseconds and
 * its run only ends on the next sampling tick, both too coarse when a
 * sandbox call takes about a millisecond; so every response's exact time
 * (autocannon measures it with hrtime) is kept here, and the throughput
 * window ends at the last response, not at the tick.
 */
import autocannon from "autocannon";

/** A run that has not finished by then is stopped: nothing here may hang the bench. */
const HARD_STOP_SECONDS = 30;

/**
 * Runs one bounded load and returns every 2xx latency (ms, sorted), the status
 * counts and the throughput of successful answers.
 *
 * @param {object} opts
 * @param {string} opts.url           origin, e.g. http://127.0.0.1:18713
 * @param {number} opts.connections   concurrent connections (= requests in flight)
 * @param {number} [opts.amount]      stop after this many requests...
 * @param {number} [opts.duration]    ...or after this many seconds
 * @param {object[]} opts.requests    autocannon request definitions
 * @param {number} [opts.expect]     the status that counts as success (default: any 2xx)
 * @param {(client: object, status: number, ms: number) => void} [opts.onEach]
 * @param {number} [opts.hardStopSeconds]  the bound on the whole run, or null for none
 * @param {number} [opts.stallSeconds]  stop when no answer came for this long (for runs with no bound: fixtures, which are not timed)
 */
export async function runLoad({ url, connections, amount, duration, requests, expect, onEach, hardStopSeconds = HARD_STOP_SECONDS, stallSeconds }) {
  const success = expect ? (status) => status === expect : (status) => status >= 200 && status < 300;
  const latencies = [];
  const statuses = {};
  let ok = 0;
  let last = 0;
  const started = performance.now();
  /** The timer of `stallSeconds`, pushed back by every answer. */
  let stall = null;

  const instance = autocannon({
    url,
    connections,
    pipelining: 1,
    // A request in flight longer than this is a bug in a target, not a data point.
    timeout: 10,
    sampleInt: 100,
    ...(amount ? { amount } : { duration: duration ?? 1 }),
    requests,
  });
  instance.on("response", (client, status, _bytes, ms) => {
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (success(status)) {
      ok++;
      latencies.push(ms);
    }
    last = performance.now();
    stall?.refresh();
    onEach?.(client, status, ms);
  });

  const guard = hardStopSeconds === null ? null : setTimeout(() => instance.stop(), hardStopSeconds * 1000);
  if (stallSeconds) stall = setTimeout(() => instance.stop(), stallSeconds * 1000);
  let result;
  try {
    result = await instance;
  } finally {
    clearTimeout(guard);
    clearTimeout(stall);
  }

  const seconds = Math.max((last || performance.now()) - started, 1) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    connections,
    requests: result.totalCompletedRequests,
    ok,
    non2xx: result.non2xx,
    unexpected: result.totalCompletedRequests - ok,
    errors: result.errors,
    timeouts: result.timeouts,
    statuses,
    seconds: round(seconds, 3),
    rps: round(ok / seconds, 1),
    latency: summarize(latencies),
    /** Every success's latency, sorted (ms); run.mjs pools them and leaves them out of the JSON. */
    samples: latencies,
  };
}

/** A request that takes longer than this is a bug in a target or in the harness, not a slow moment. */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * One request of the harness itself (fixtures, checks, the ladder's set-up,
 * the counted operations), with fetch. A failure says `what` was being done,
 * to which address, and how it failed in words (fetch's own "fetch failed"
 * names none of that).
 */
export async function request(what, url, init = {}) {
  const started = performance.now();
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch (err) {
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    throw new Error(`${what}: ${init.method ?? "GET"} ${url} got no answer after ${seconds} s: ${fetchFailure(err)}`, { cause: err });
  }
}

/** Why a fetch got no answer, in words: undici's cause (a code and a message) says more than its TypeError. */
export function fetchFailure(err) {
  if (err?.name === "TimeoutError") return `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`;
  const cause = err?.cause ?? err;
  const code = cause?.code ?? "";
  const hint =
    code === "ECONNREFUSED"
      ? " (nothing listens there: the runtime is gone)"
      : code === "UND_ERR_SOCKET"
        ? " (the runtime closed the connection without an answer)"
        : code === "ECONNRESET"
          ? " (the connection was reset: the runtime's process may have died)"
          : "";
  return `${[code, cause?.message].filter(Boolean).join(" ")}${hint}`;
}

/** Percentiles by the nearest-rank method: p99 of 400 samples is the 396th. */
export function summarize(sorted) {
  if (sorted.length === 0) return { n: 0, p50: null, p90: null, p99: null, mean: null, max: null };
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
  const mean = sorted.reduce((sum, v) => sum + v, 0) / sorted.length;
  return {
    n: sorted.length,
    p50: round(at(50), 3),
    p90: round(at(90), 3),
    p99: round(at(99), 3),
    mean: round(mean, 3),
    max: round(sorted[sorted.length - 1], 3),
  };
}

export function round(value, digits) {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
