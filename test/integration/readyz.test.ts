// GET /readyz: ready only when the upstream answers an authenticated probe and D1 answers.
import { createExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import { expectError, expectStatus } from "../helpers";
import { scriptedUpstream } from "../support/scripted-upstream";

const readyz = (deployment?: Env) =>
  deployment
    ? createApp().fetch(new Request("http://gateway.test/readyz"), deployment, createExecutionContext())
    : exports.default.fetch("http://gateway.test/readyz");

describe("GET /readyz", () => {
  it("is ready when the upstream accepts the gateway's credential and D1 answers", async () => {
    expect(await expectStatus(readyz(), 200)).toEqual({ ok: true, upstream: "ok", db: "ok" });
  });

  it("is not ready when the upstream refuses the gateway's credential, and says so without the secret", async () => {
    scriptedUpstream.on("receipt/check-id", { kind: "status", status: 401, code: "UNAUTHORIZED" });
    const warn = vi.spyOn(console, "warn");
    const res = await readyz();
    // One warn line for the on-call engineer's query, naming what failed and no secret.
    const lines = warn.mock.calls.map(([line]) => JSON.parse(String(line)) as { event: string; problems?: string[] });
    warn.mockRestore();
    expect(lines.filter((line) => line.event === "not_ready")).toEqual([
      expect.objectContaining({ level: "warn", event: "not_ready", problems: ["the upstream refused the gateway's credential (UPSTREAM_API_KEY)"] }),
    ]);
    expect(JSON.stringify(lines)).not.toContain(env.UPSTREAM_API_KEY);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    const error = await expectError(res, 503, "not_ready");
    expect(error.message).toMatch(/refused the gateway's credential \(UPSTREAM_API_KEY\)/);
    expect(error.message).not.toContain(env.UPSTREAM_API_KEY);
  });

  it("is not ready when the upstream does not answer", async () => {
    scriptedUpstream.on("receipt/check-id", { kind: "status", status: 503, code: "BUSY" });
    const error = await expectError(readyz(), 503, "not_ready");
    expect(error.message).toMatch(/the upstream did not answer the probe/);
  });

  const broken = { prepare: () => ({ first: () => Promise.reject(new Error("D1_ERROR: no such database")) }), batch: () => Promise.resolve([]) };

  it("is not ready when D1 refuses, naming D1", async () => {
    const error = await expectError(readyz({ ...env, DB: broken } as unknown as Env), 503, "not_ready");
    expect(error.message).toMatch(/D1 \(DB\) refused a query/);
    expect(error.message).not.toMatch(/upstream/);
  });

  it("probes every shard of the tid index, and names the one that fails", async () => {
    expect(env.TID_INDEX_SHARDS.split(/[\s,]+/)).toEqual(["DB", "DB_TID_1"]);
    const error = await expectError(readyz({ ...env, DB_TID_1: broken } as unknown as Env), 503, "not_ready");
    expect(error.message).toMatch(/D1 \(DB_TID_1\) refused a query/);
    expect(error.message).not.toMatch(/D1 \(DB\)/);
    expect(error.message).not.toMatch(/upstream/);
  });
});
