/**
 * GET /readyz: is this deployment able to serve payments right now? Its
 * probes, each with a short timeout: an authenticated call to the upstream
 * (check-id of an id that cannot exist: a 404 proves the service answers and
 * accepts the gateway's credential) and a D1 query to a sample of the
 * databases: DB always, and READINESS_DATABASES - 1 of the others
 * TID_INDEX_SHARDS names, turning through them from one probe to the next (a
 * failing one is named by its binding). A sample, not every database: with
 * hundreds of them, one probe of each would take hundreds of queries and
 * wait on the Workers limit of six open connections (src/fanout.ts); probed
 * every few seconds, the turn reaches each database within minutes.
 * /healthz says the process and its configuration are sound; this says its
 * dependencies answer. Never names a secret.
 */
import { ApiError } from "./errors";
import { MAX_CONNECTIONS, probeSample } from "./fanout";
import { log } from "./log";
import { allShards } from "./shards";
import { UpstreamClient } from "./upstream/client";

export const READINESS_TIMEOUT_MS = 2000;

/** D1 databases one probe asks: with the upstream's call, the Workers limit of six connections at once. */
export const READINESS_DATABASES = MAX_CONNECTIONS - 1;

type Probe = { ok: true } | { ok: false; problem: string };

async function probeUpstream(env: Env, requestId: string): Promise<Probe> {
  const result = await new UpstreamClient(env, requestId, READINESS_TIMEOUT_MS).checkId("readyz-probe");
  if (result.ok || result.failure.code === "receipt_not_found") return { ok: true };
  if (result.upstreamCode === "UNAUTHORIZED" || result.failure.upstream_code === "UNAUTHORIZED") {
    return { ok: false, problem: "the upstream refused the gateway's credential (UPSTREAM_API_KEY)" };
  }
  return { ok: false, problem: `the upstream did not answer the probe (${result.failure.code})` };
}

async function probeD1(binding: string, db: D1Database): Promise<Probe> {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), READINESS_TIMEOUT_MS);
  });
  try {
    const answer = await Promise.race([db.prepare("SELECT 1 AS one").first<{ one: number }>(), late]);
    if (answer === "late") return { ok: false, problem: `D1 (${binding}) did not answer within ${READINESS_TIMEOUT_MS} ms` };
    return answer?.one === 1 ? { ok: true } : { ok: false, problem: `D1 (${binding}) answered a query wrongly` };
  } catch {
    return { ok: false, problem: `D1 (${binding}) refused a query` };
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
  const problems = probes.flatMap((probe) => (probe.ok ? [] : [probe.problem]));
  if (problems.length > 0) {
    // The on-call engineer's log query finds it, with what failed (never a secret): docs/production.md.
    log("warn", "not_ready", { request_id: requestId, problems });
    throw new ApiError("not_ready", `Not ready: ${problems.join("; ")}.`, { retry_after: 5 });
  }
  return { ok: true, upstream: "ok", db: "ok" };
}
