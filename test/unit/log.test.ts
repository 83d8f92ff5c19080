// The gateway's one logger (src/shared/log.ts), called directly: whatever a caller
// hands it, the line it prints carries no card number unmasked, and no OTP,
// expiry, token, credential or JWT (src/shared/redact.ts).
import { afterEach, describe, expect, it, vi } from "vitest";
import { inLine, LogLine, lineSampling, log, noteUpstreamCall, requestDraw } from "../../src/shared/log";

afterEach(() => vi.restoreAllMocks());

/** The lines printed with console[method] from now on. */
function printed(method: "log" | "warn" | "error"): string[] {
  const lines: string[] = [];
  vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
    lines.push(args.map(String).join(" "));
  });
  return lines;
}

describe("log()", () => {
  it("masks a card number anywhere in a field's text, nested or in a list: the first 6 and last 4 digits stay", () => {
    const lines = printed("error");
    log("error", "upstream_refused", {
      error: "Card 8600000000000007 is blocked by its issuer",
      upstream: { code: "CARD_9860000000000018_BLOCKED", cards: ["4111111111111111111"] },
    });
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      {
        level: "error",
        event: "upstream_refused",
        error: "Card 860000******0007 is blocked by its issuer",
        upstream: { code: "CARD_986000******0018_BLOCKED", cards: ["411111*********1111"] },
      },
    ]);
  });

  it("redacts by its key what is secret whatever it looks like: OTP, expiry, card number, token, card, credentials", () => {
    const lines = printed("warn");
    log("warn", "a_caller_logged_its_input", {
      id: "rcpt-1",
      otp: "111111",
      request: { card: { number: "8600000000000007", expire: "3012" }, token: "tok_sandbox_ok", receiver_card: "9860000000000018" },
      headers: { Authorization: "Basic dXNlcjpwYXNz", cookie: "session=abc" },
      api_key: "live-upstream-credential",
    });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual({
      level: "warn",
      event: "a_caller_logged_its_input",
      id: "rcpt-1",
      otp: "[redacted]",
      request: { card: "[redacted]", token: "[redacted]", receiver_card: "[redacted]" },
      headers: { Authorization: "[redacted]", cookie: "[redacted]" },
      api_key: "[redacted]",
    });
    for (const secret of ["111111", "3012", "0007", "0018", "tok_sandbox_ok", "dXNlcjpwYXNz", "session=abc", "live-upstream-credential"]) {
      expect(lines[0]).not.toContain(secret);
    }
  });

  it("redacts a JWT, a bearer credential and a server key inside any text", () => {
    const lines = printed("log");
    const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEifQ.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg";
    log("info", "auth_failed", { error: `token ${jwt} expired`, header: "Bearer opaque-partner-credential", said: "key sk_live_0123456789 refused" });
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      {
        level: "info",
        event: "auth_failed",
        error: "token [redacted-jwt] expired",
        header: "Bearer [redacted]",
        said: "key [redacted-key] refused",
      },
    ]);
  });
});

describe("the canonical line", () => {
  it("flattens its upstream calls for queries: the paths, the first failed call's outcome and status, the milliseconds together, each call listed when several", () => {
    const lines = printed("warn");
    const line = new LogLine("request", { request_id: "req-1" });
    inLine(line, () => {
      noteUpstreamCall("req-1", { path: "receipt/pay", status: 500, outcome: "HTTP_500", ms: 40 });
      noteUpstreamCall("req-1", { path: "receipt/check-id", status: 200, outcome: "ok", ms: 2 });
      log("info", "record_rebuilt", { id: "rcpt-1" });
      log("warn", "reconcile_failed", { id: "rcpt-1", attempts: 1 });
    });
    line.write();
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      { level: "warn", event: "reconcile_failed", id: "rcpt-1", attempts: 1 },
      {
        level: "warn",
        event: "request",
        request_id: "req-1",
        record_rebuilt: { id: "rcpt-1" },
        upstream: "receipt/pay receipt/check-id",
        upstream_outcome: "HTTP_500",
        upstream_status: 500,
        upstream_ms: 42,
        upstream_calls: [
          { path: "receipt/pay", status: 500, outcome: "HTTP_500", ms: 40 },
          { path: "receipt/check-id", status: 200, outcome: "ok", ms: 2 },
        ],
        faults: ["reconcile_failed"],
      },
    ]);
  });
});

describe("sampled lines (LOG_SUCCESS_SAMPLE)", () => {
  /** The lines printed by any console method from now on, parsed. */
  function printedAll(): Record<string, unknown>[] {
    const lines: Record<string, unknown>[] = [];
    for (const method of ["log", "warn", "error"] as const)
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        lines.push(JSON.parse(args.map(String).join(" ")));
      });
    return lines;
  }
  const ok = { path: "receipt/pay", status: 200, outcome: "ok", ms: 40 };

  it("at 0 an unremarkable line is dropped, and each thing on the always-kept list writes its line whole", () => {
    const lines = printedAll();
    const at0 = (fields: Record<string, unknown>, fill: (line: LogLine) => void = () => {}) => {
      const line = new LogLine("request", { request_id: "req-1", ...fields }, { sample: 0 });
      inLine(line, () => fill(line));
      line.write();
    };
    at0({ status: 200, ms: 12 }, (line) => line.call(ok));
    expect(lines).toEqual([]);
    at0({ status: 409, ms: 12 });
    at0({ status: 200, ms: 12 }, () => log("warn", "risk_unavailable", {}));
    at0({ status: 200, ms: 12 }, (line) => line.call({ ...ok, status: undefined, outcome: "timeout" }));
    at0({ status: 200, ms: 12 }, (line) => line.keep());
    at0({ status: 200, ms: 1_000 });
    at0({ status: 200, ms: 12 }, (line) => {
      line.call({ ...ok, ms: 600 });
      line.call({ ...ok, ms: 400 });
    });
    at0({ status: 200, ms: 12 }, (line) => line.merge({ level: "info", fields: {}, upstream: [], faults: [], keep: true }));
    const canonical = lines.filter((line) => line.event === "request");
    expect(canonical.map((line) => [line.status, line.ms, line.faults ?? null, line.upstream_outcome ?? null, line.upstream_ms ?? null])).toEqual([
      [409, 12, null, null, null],
      [200, 12, ["risk_unavailable"], null, null],
      [200, 12, null, "timeout", 40],
      [200, 12, null, null, null],
      [200, 1_000, null, null, null],
      [200, 12, null, "ok", 1_000],
      [200, 12, null, null, null],
    ]);
    for (const line of lines) expect(line).not.toHaveProperty("sample");
    // Just under the slow mark: a success like any other.
    at0({ status: 200, ms: 999 }, (line) => line.call({ ...ok, ms: 999 }));
    expect(lines.filter((line) => line.event === "request")).toHaveLength(7);
  });

  it("a request's line in the Worker and its line in the record's object are kept or dropped together, by the request id", () => {
    const lines = printedAll();
    const ids = Array.from({ length: 200 }, (_, i) => `req-${i}-${(i * 7919).toString(36)}`);
    for (const id of ids) {
      new LogLine("request", { request_id: id, status: 200 }, { sample: 0.5 }).write();
      new LogLine("record_call", { request_id: id, id: "rcpt-1" }, { sample: 0.5 }).write();
    }
    const worker = new Set(lines.filter((line) => line.event === "request").map((line) => line.request_id));
    const object = new Set(lines.filter((line) => line.event === "record_call").map((line) => line.request_id));
    expect([...object]).toEqual([...worker]);
    expect([...worker]).toEqual(ids.filter((id) => requestDraw(id) < 0.5));
    // About half, each standing for two.
    expect(worker.size).toBeGreaterThan(70);
    expect(worker.size).toBeLessThan(130);
    for (const line of lines) expect(line.sample).toBe(2);
  });

  it("a line with no request id draws on its own; at 1 every line is written and says it stands for one; the cron's is never sampled", () => {
    const lines = printedAll();
    const draws = [0.05, 0.5, 0.99];
    vi.spyOn(lineSampling, "draw").mockImplementation(() => draws.shift()!);
    for (let i = 0; i < 2; i++) new LogLine("queue_batch", { messages: 3 }, { sample: 0.1 }).write();
    expect(lines).toEqual([{ level: "info", event: "queue_batch", messages: 3, sample: 10 }]);
    new LogLine("queue_batch", { messages: 3 }, { sample: 1 }).write();
    new LogLine("cron", { cron: "* * * * *" }).write();
    expect(lines.slice(1)).toEqual([
      { level: "info", event: "queue_batch", messages: 3, sample: 1 },
      { level: "info", event: "cron", cron: "* * * * *" },
    ]);
  });
});
