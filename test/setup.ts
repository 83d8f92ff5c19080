import { applyD1Migrations, listDurableObjectIds, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach } from "vitest";
import { allShards } from "../src/d1/shards";
import { resetClock } from "../src/shared/clock";

declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    }
  }
}

// Every D1 database of [env.dev]: DB, the tid index's other shards (TID_INDEX_SHARDS), as npm run dev does,
// and DB_TID_2, which only tests of a growing list name.
for (const db of new Set([env.DB, ...allShards(env).map((shard) => shard.db), env.DB_TID_2])) await applyD1Migrations(db, env.TEST_MIGRATIONS);

// Time moved by a test (letTimePass) is back to the wall clock for the next.
afterEach(() => resetClock());

// Rule 13's counters start empty for each test: the tests pay with the sandbox's few cards, as users, far
// more often in a file than its limits allow in an hour or a day. test/integration/risk-limits.test.ts
// tests the limits, each test within itself.
afterEach(async () => {
  for (const id of await listDurableObjectIds(env.RISK)) await runInDurableObject(env.RISK.get(id), (_object, state) => state.storage.deleteAll());
});
