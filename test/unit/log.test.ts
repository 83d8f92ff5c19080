// The gateway's one logger (src/shared/log.ts), called directly: whatever a caller
// hands it, the line it prints carries no card number unmasked, and no OTP,
// expiry, token, credential or JWT (src/shared/redact.ts).
import { afterEach, describe, expect, it, vi } from "vitest";
import { inLine, LogLine, log, noteUpstreamCall } from "../../src/shared/log";

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
