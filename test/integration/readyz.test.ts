// GET /readyz: ready only when the upstream answers an authenticated probe and D1 answers.
import { createExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import { NEWEST_MIGRATION } from "../../src/d1/schema-version";
import { type MetricPoint, observeMetrics } from "../../src/metrics/metrics";
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
    // The request's one line, at warn, for the on-call engineer's query, naming what failed and no secret.
    const lines = warn.mock.calls.map(([line]) => JSON.parse(String(line)) as { event: string; not_ready?: { problems: string[] } });
    warn.mockRestore();
    expect(lines).toEqual([
      expect.objectContaining({
        level: "warn",
        event: "request",
        path: "/readyz",
        status: 503,
        code: "not_ready",
        not_ready: expect.objectContaining({ problems: ["the upstream refused the gateway's credential (UPSTREAM_API_KEY)"] }),
        upstream_outcome: "UNAUTHORIZED",
      }),
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

  const refused = { first: () => Promise.reject(new Error("D1_ERROR: no such database")) };
  const broken = { prepare: () => ({ ...refused, bind: () => refused }), batch: () => Promise.resolve([]) };

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

  describe("each database's schema", () => {
    // DB_TID_2 stands in for DB_TID_1 (the list's second database): this file's own storage, changed and put back here.
    const lagging = { ...env, DB_TID_1: env.DB_TID_2 } as Env;
    const applied = async (name: string) => env.DB_TID_2.prepare("SELECT 1 FROM d1_migrations WHERE name = ?").bind(name).first();
    const number = (name: string) => /^\d+/.exec(name)![0];

    it("is held to the newest file in migrations/, which the code was built with", () => {
      // TEST_MIGRATIONS is migrations/ as wrangler reads it (vitest.config.ts); the constant is generated from it.
      const newest = env.TEST_MIGRATIONS.map((m) => m.name).sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10) || a.localeCompare(b));
      expect(NEWEST_MIGRATION).toBe(newest.at(-1));
    });

    it("lagging the code's migration in one database makes the deployment not ready, naming that binding and both versions", async () => {
      const points: MetricPoint[] = [];
      const stop = observeMetrics((point) => points.push(point));
      await env.DB_TID_2.prepare("DELETE FROM d1_migrations WHERE name = ?").bind(NEWEST_MIGRATION).run();
      try {
        const previous = env.TEST_MIGRATIONS.at(-2)!.name;
        const error = await expectError(readyz(lagging), 503, "not_ready");
        expect(error.message).toBe(`Not ready: db DB_TID_1: schema at ${number(previous)}, code needs ${number(NEWEST_MIGRATION)}.`);
        // The on-call's readiness metric names the kind of failure, never the binding.
        expect(points.map((p) => p.blobs)).toContainEqual(["readiness_failed", "schema", ""]);
      } finally {
        stop();
        await env.DB_TID_2.prepare("INSERT INTO d1_migrations (name) VALUES (?)").bind(NEWEST_MIGRATION).run();
      }
      expect(await applied(NEWEST_MIGRATION)).not.toBeNull();
      expect(await expectStatus(readyz(lagging), 200)).toEqual({ ok: true, upstream: "ok", db: "ok" });
    });

    it("a database a newer release already migrated further is ready: its migrations go first in a deploy", async () => {
      await env.DB_TID_2.prepare("INSERT INTO d1_migrations (name) VALUES ('9999_a_later_release.sql')").run();
      try {
        expect(await expectStatus(readyz(lagging), 200)).toEqual({ ok: true, upstream: "ok", db: "ok" });
      } finally {
        await env.DB_TID_2.prepare("DELETE FROM d1_migrations WHERE name = '9999_a_later_release.sql'").run();
      }
    });
  });
});
