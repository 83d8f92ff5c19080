/**
 * GET /readyz: is this deployment able to serve payments right now? Its
 * probes, each with a short timeout: an authenticated call to the upstream
 * (check-id of an id that cannot exist: a 404 proves the service answers and
 * accepts the gateway's credential) and a D1 query to a sample of the
 * databases: DB always, and READINESS_DATABASES - 1 of the others
 * TID_INDEX_SHARDS names, turning through them from one probe to the next (a
 * failing one is named by its binding). The same query checks the database's
 * schema: wrangler's d1_migrations must hold the newest migration this code
 * was built with (NEWEST_MIGRATION, generated from migrations/), or the probe
 * names the binding that lags ("db DB_TID_1: schema at 0002, code needs
 * 0003"): such a database still answers queries, but every statement of the
 * newer schema fails on it. A sample, not every database: with hundreds of
 * them, one probe of each would take hundreds of queries and wait on the
 * Workers limit of six open connections (src/d1/fanout.ts); probed every few
 * seconds, the turn reaches each database within minutes.
 * /healthz says the process and its configuration are sound; this says its
 * dependencies answer. Never names a secret.
 */

import { MAX_CONNECTIONS, probeSample } from "../d1/fanout";
import { NEWEST_MIGRATION } from "../d1/schema-version";
import { allShards } from "../d1/shards";
import { ApiError } from "../errors/errors";
import { metric } from "../metrics/metrics";
import { note } from "../shared/log";
import { UpstreamClient } from "../upstream/client";

export const READINESS_TIMEOUT_MS = 2000;

/** D1 databases one probe asks: with the upstream's call, the Workers limit of six connections at once. */
export const READINESS_DATABASES = MAX_CONNECTIONS - 1;

/** A probe's answer: what failed (the metric's dependency) and the sentence naming it. */
type Probe = { ok: true } | { ok: false; kind: "upstream" | "d1" | "schema"; problem: string };

async function probeUpstream(env: Env, requestId: string): Promise<Probe> {
  const result = await new UpstreamClient(env, requestId, READINESS_TIMEOUT_MS).checkId("readyz-probe");
  if (result.ok || result.failure.code === "receipt_not_found") return { ok: true };
  if (result.upstreamCode === "UNAUTHORIZED" || result.failure.upstream_code === "UNAUTHORIZED") {
    return { ok: false, kind: "upstream", problem: "the upstream refused the gateway's credential (UPSTREAM_API_KEY)" };
  }
  return { ok: false, kind: "upstream", problem: `the upstream did not answer the probe (${result.failure.code})` };
}

/** A migration's number as wrangler names the file (`0003_events_without_record_index.sql`: "0003"). */
export const migrationNumber = (name: string): string => /^\d+/.exec(name)?.[0] ?? name;

/**
 * One query to one database: it answers, and its schema is at NEWEST_MIGRATION
 * (wrangler's d1_migrations holds that file's name). The newest row by id and
 * a lookup of the needed name in the table's unique index: two rows read, no
 * scan. A database a newer release already migrated further is ready too: its
 * migrations are applied before that release's code is deployed.
 */
async function probeD1(binding: string, db: D1Database): Promise<Probe> {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), READINESS_TIMEOUT_MS);
  });
  const needs = migrationNumber(NEWEST_MIGRATION);
  const behind = (at: string): Probe => ({ ok: false, kind: "schema", problem: `db ${binding}: schema at ${at}, code needs ${needs}` });
  try {
    const answer = await Promise.race([
      db
        .prepare("SELECT name, (SELECT COUNT(*) FROM d1_migrations WHERE name = ?1) AS applied FROM d1_migrations ORDER BY id DESC LIMIT 1")
        .bind(NEWEST_MIGRATION)
        .first<{ name: string; applied: number }>(),
      late,
    ]);
    if (answer === "late") return { ok: false, kind: "d1", problem: `D1 (${binding}) did not answer within ${READINESS_TIMEOUT_MS} ms` };
    if (answer === null) return behind("none");
    return answer.applied === 1 ? { ok: true } : behind(migrationNumber(answer.name));
  } catch (err) {
    // A database no migration ever reached has no d1_migrations table.
    if (err instanceof Error && /no such table: d1_migrations/.test(err.message)) return behind("none");
    return { ok: false, kind: "d1", problem: `D1 (${binding}) refused a query` };
  } finally {
    if (timer !== null) clearTimeout(timer);
  }
}

/** DB and every database of the tid index and event log, each once: a create may need any of them. */
function databases(env: Env): [string, D1Database][] {
  const all = new Map<string, D1Database>([["DB", env.DB]]);
  for (const { binding, db } of allShards(env)) all.set(binding, db);
  return [...all];
}

/** The databases the probe at `at` asks: DB and this probe's turn of the others. */
export const probedDatabases = (env: Env, at: number): [string, D1Database][] => probeSample(databases(env), READINESS_DATABASES, at);

/** `{ ok: true, upstream: "ok", db: "ok" }`, or throws 503 not_ready naming what failed. */
export async function checkReadiness(env: Env, requestId: string): Promise<{ ok: true; upstream: "ok"; db: "ok" }> {
  const probes = await Promise.all([probeUpstream(env, requestId), ...probedDatabases(env, Date.now()).map(([binding, db]) => probeD1(binding, db))]);
  const failed = probes.filter((probe) => !probe.ok);
  if (failed.length > 0) {
    const problems = failed.map((probe) => probe.problem);
    // The on-call engineer's log query finds it, with what failed (never a secret): docs/production.md.
    note("warn", "not_ready", { request_id: requestId, problems });
    for (const kind of new Set(failed.map((probe) => probe.kind))) metric(env, "readiness_failed", { operation: kind });
    throw new ApiError("not_ready", `Not ready: ${problems.join("; ")}.`, { retry_after: 5 });
  }
  return { ok: true, upstream: "ok", db: "ok" };
}
