/**
 * Capacity bench worker (bench/capacity.mjs): the tid index's part of a
 * create, and nothing else. POST /create runs the gateway's own claimTid and
 * completeTid (src/tids/tid-index.ts) on the D1 binding for a new random tid: the
 * claim (one batch of two statements, before the answer) and the completion
 * (after it) every create pays; no answer is stored in D1 (the record's
 * object keeps it). POST
 * /rows-written counts the rows D1 bills for them, POST /event-rows-written
 * the same for one event's life in the log (logged, delivered, pruned); POST
 * /retention runs one retention batch at a given clock and counts the same.
 */
import { encodeTime } from "ulid";
import { pruneEvents, recordDeliveries, recordEvents } from "../../src/events/log-database";
import type { GatewayEvent } from "../../src/events/types";
import { claimTid, completeTid, pruneTids } from "../../src/tids/tid-index";

interface ClaimsEnv {
  DB: D1Database;
  /** One event as the gateway logged it (its JSON body), from the shape run. */
  EVENT_BODY: string;
}

const OWNER = "partner:partner";
const DAY_MS = 86_400_000;

const hex = (bytes: number) => [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");

/**
 * The same database, counting what D1 bills: rows written (each index entry
 * a statement changes counts as one more row, as D1's pricing documents).
 */
function metered(db: D1Database): { db: D1Database; rowsWritten: () => number } {
  let written = 0;
  const count = <T>(result: D1Result<T>) => {
    written += result.meta.rows_written ?? 0;
    return result;
  };
  const originals = new WeakMap<object, D1PreparedStatement>();
  const statement = (stmt: D1PreparedStatement): D1PreparedStatement => {
    const proxy = new Proxy(stmt, {
      get(target, key) {
        if (key === "bind") return (...values: unknown[]) => statement(target.bind(...values));
        if (key === "run" || key === "all") return async () => count(await target[key]());
        if (key === "first")
          return async (column?: string) => {
            const result = count(await target.all());
            const row = (result.results[0] ?? null) as Record<string, unknown> | null;
            return column === undefined || row === null ? row : row[column];
          };
        const value = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    originals.set(proxy, stmt);
    return proxy;
  };
  const wrapped = new Proxy(db, {
    get(target, key) {
      if (key === "prepare") return (sql: string) => statement(target.prepare(sql));
      if (key === "batch") {
        return async (statements: D1PreparedStatement[]) => {
          const results = await target.batch(statements.map((stmt) => originals.get(stmt) ?? stmt));
          for (const result of results) count(result);
          return results;
        };
      }
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { db: wrapped, rowsWritten: () => written };
}

async function create(db: D1Database): Promise<boolean> {
  const tid = `order-${crypto.randomUUID()}`;
  const claim = await claimTid(db, { owner: OWNER, tid, upstreamTid: tid, kind: "receipt", fingerprint: hex(16), leaseMs: 30_000 });
  if (claim.kind !== "claimed") return false;
  // A receipt id of the sandbox's shape (a ULID: 26 characters).
  await completeTid(db, { owner: OWNER, tid, token: claim.token }, hex(13).toUpperCase());
  return true;
}

export default {
  async fetch(request: Request, env: ClaimsEnv): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/healthz") return new Response("ok");
    if (url.pathname === "/create" && request.method === "POST") {
      return new Response(null, { status: (await create(env.DB)) ? 204 : 409 });
    }
    if (url.pathname === "/rows-written" && request.method === "POST") {
      const { db, rowsWritten } = metered(env.DB);
      const n = 20;
      for (let i = 0; i < n; i++) await create(db);
      return Response.json({ creates: n, rows_written_per_create: rowsWritten() / n });
    }
    if (url.pathname === "/event-rows-written" && request.method === "POST") {
      // One event's life in the log: logged, delivered, pruned.
      const n = 20;
      const log = metered(env.DB);
      const delivered = metered(env.DB);
      const pruned = metered(env.DB);
      const old = Date.UTC(2001, 0, 1);
      for (let i = 0; i < n; i++) {
        const event = {
          ...(JSON.parse(env.EVENT_BODY) as GatewayEvent),
          id: `evt_${encodeTime(old + i, 10)}${hex(8).toUpperCase()}`,
          created: old + i,
        };
        // As the record's drain logs it: the row only, the body kept by the record (src/events/publish.ts publishOutbox).
        await recordEvents(log.db, [event]);
        await recordDeliveries(delivered.db, [{ id: event.id, status: 204, at: old + i }]);
      }
      const removed = await pruneEvents(pruned.db, "delivered", DAY_MS, n, old + 10 * DAY_MS);
      return Response.json({
        events: n,
        removed,
        rows_written_per_event: { logged: log.rowsWritten() / n, delivered: delivered.rowsWritten() / n, pruned: pruned.rowsWritten() / removed },
      });
    }
    if (url.pathname === "/retention" && request.method === "POST") {
      const { now, limit } = (await request.json()) as { step: "delete"; now: number; limit: number };
      const { db, rowsWritten } = metered(env.DB);
      const changes = (await pruneTids(db, 90 * DAY_MS, limit, now)).removed;
      return Response.json({ changes, rows_written: rowsWritten() });
    }
    return new Response("not found", { status: 404 });
  },
};
