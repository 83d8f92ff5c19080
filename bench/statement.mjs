#!/usr/bin/env node
/**
 * Rule 16 at scale: the statement of a day of N receipts (100,000 unless
 * `--receipts N`) built by its StatementObject, step by step, measured
 * against what one step may use (an alarm invocation: 30 s of CPU by
 * default, 15 minutes of wall time, 1,000 subrequests on the older plans'
 * count, 128 MB; Workers limits, docs/capacity.md).
 *
 *   node bench/statement.mjs [--receipts N] [--share S]
 *
 * Starts `npm run dev` on a free port with a state of its own, seeds the
 * day's event log straight into its local D1 (`wrangler d1 execute --local`,
 * a paid line per receipt and a refund for every tenth, spread over the
 * databases as the gateway spreads them), asks statements/rebuild for the
 * day, and reads the `statement_step` log line of every step: its wall time
 * (an upper bound of its CPU: the step also waits for D1 and R2), rows read,
 * lines, checks (`--share`, production's 0.01 unless given: each a check-id
 * of the sandbox, which knows none of the seeded receipts and answers 404,
 * so each is a mismatch too), parts uploaded. Writes
 * bench/results/statement-<date-time>.json (not committed) and prints a
 * summary. Stops the dev server whatever happens.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { encodeTime } from "ulid";
import { EVENT_TABLES } from "../scripts/restore-plan.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({ options: { receipts: { type: "string", default: "100000" }, share: { type: "string", default: "0.01" } } });
const RECEIPTS = Number(values.receipts);
const PARTNER = { authorization: "Bearer sk_test_local_partner", "content-type": "application/json" };

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const work = mkdtempSync(join(tmpdir(), "statement-bench-"));
const state = join(work, "state");
const logFile = join(work, "dev.log");
const port = String(await freePort());
const base = `http://127.0.0.1:${port}`;
let dev;

function stop() {
  if (!dev || dev.exitCode !== null) return;
  for (const signal of ["SIGTERM", "SIGKILL"]) {
    try {
      process.kill(-dev.pid, signal);
    } catch {
      // gone
    }
  }
}
process.on("exit", stop);

// The day: today in Asia/Tashkent (a rebuild of today is allowed), its receipts spread over its first hours.
const today = new Intl.DateTimeFormat("en-CA", { timeZone: "Asia/Tashkent" }).format(new Date());
const dayStart = Date.parse(`${today}T00:00:00+05:00`);
const span = Math.max(1, Math.min(Date.now() - dayStart - 60_000, 12 * 3_600_000));

// The gateway's jump hash of record ids over TID_INDEX_SHARDS ("DB DB_TID_1" in development) is src/d1/shards.ts's;
// here every tenth receipt goes to DB_TID_1: the step reads and merges both databases either way.
const seed = { DB: [], DB_TID_1: [] };
const CHUNK = 400;
const id = (n) => n.toString(16).padStart(24, "0");
for (let n = 0; n < RECEIPTS; n++) {
  const at = dayStart + Math.floor((n / RECEIPTS) * span);
  const db = n % 10 === 0 ? "DB_TID_1" : "DB";
  const amount = 100_000 + (n % 50) * 1_000;
  const evt = (t, suffix) => `evt_${encodeTime(t, 10)}${String(n).padStart(14, "0").slice(-14)}${suffix}`.slice(0, 30);
  seed[db].push(`('${evt(at, "AA")}', '${id(n)}', 2, 1, ${amount}, ${amount / 100}, 1003, 'order-${n}', 'partner', 4, NULL)`);
  if (n % 10 === 5)
    seed[db].push(`('${evt(at + 1_000, "BB")}', '${id(n)}', 5, 4, ${amount}, ${amount / 100}, 1003, 'order-${n}', 'partner', 21, NULL)`);
}
const wrangler = (args) =>
  spawnSync(process.execPath, [join(ROOT, "node_modules/wrangler/bin/wrangler.js"), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, CI: "true" },
  });
for (const binding of ["DB", "DB_TID_1", "DB_TID_2"]) {
  const migrated = wrangler(["d1", "migrations", "apply", binding, "--local", "--env", "dev", "--persist-to", state]);
  if (migrated.status !== 0) throw new Error(migrated.stderr);
}
const seeded = Date.now();
for (const [binding, rows] of Object.entries(seed)) {
  const file = join(work, `${binding}.sql`);
  const statements = [];
  for (let i = 0; i < rows.length; i += CHUNK) {
    statements.push(
      // Spread over the event log's tables (the old table and the ring's slots), as the log holds a day's events.
      `INSERT INTO ${EVENT_TABLES[(i / CHUNK) % EVENT_TABLES.length]} (id, record_id, type, status, change, amount, commission, merchant, tid, owner, state, fiscal_sign) VALUES ${rows
        .slice(i, i + CHUNK)
        .map((row) => row.replace(/^\(('[^']*'), ('[^']*'), (\d+), /, "($1, $2, $3, 1, "))
        .join(", ")};`,
    );
  }
  writeFileSync(file, statements.join("\n"));
  const done = wrangler(["d1", "execute", binding, "--local", "--env", "dev", "--persist-to", state, "--file", file]);
  if (done.status !== 0) throw new Error(done.stderr || done.stdout);
}
console.log(`seeded ${RECEIPTS} receipts (${seed.DB.length + seed.DB_TID_1.length} lines) in ${Math.round((Date.now() - seeded) / 1000)} s`);

dev = spawn("npm", ["run", "dev", "--", "--port", port, "--persist-to", state, "--var", `STATEMENT_CHECK_SHARE:${values.share}`], {
  cwd: ROOT,
  detached: true,
  stdio: ["ignore", openSync(logFile, "w"), openSync(logFile, "a")],
});
const until = async (what, test, ms) => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      const value = await test();
      if (value) return value;
    } catch {
      // not yet
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  throw new Error(`${what} within ${ms / 1000} s (log: ${logFile})`);
};
await until("the dev server", async () => (await fetch(`${base}/healthz`)).ok, 180_000);
const started = Date.now();
const first = await (
  await fetch(`${base}/api/v1/gateway/statements/rebuild`, { method: "POST", headers: PARTNER, body: JSON.stringify({ date: today }) })
).json();
const status = await until(
  "the statement",
  async () => {
    const page = await (await fetch(`${base}/api/v1/gateway/statements/list`, { method: "POST", headers: PARTNER, body: "{}" })).json();
    const day = page.statements.find((s) => s.date === today && s.generation === first.generation);
    return day?.state === "ready" ? day : null;
  },
  1_800_000,
);
const wall = Date.now() - started;
const steps = readFileSync(logFile, "utf8")
  .split("\n")
  .filter((line) => line.includes('"event":"statement_step"'))
  .map((line) => JSON.parse(line.slice(line.indexOf("{"))))
  .filter((step) => step.date === today && step.generation === first.generation);
const max = (field) => Math.max(...steps.map((step) => step[field]));
const summary = {
  receipts: RECEIPTS,
  lines: status.lines,
  checked: status.checked,
  mismatches: status.mismatches,
  csv_bytes: status.csv_bytes,
  json_bytes: status.json_bytes,
  steps: steps.length,
  wall_ms: wall,
  step_ms_max: max("ms"),
  step_ms_mean: Math.round(steps.reduce((sum, step) => sum + step.ms, 0) / steps.length),
  step_rows_read_max: max("rows_read"),
  step_lines_max: max("lines"),
  step_checks_max: max("checks"),
  step_parts_max: max("parts_uploaded"),
  // A step's subrequests: a D1 query per database, a part upload per part, a check-id per check (and a record read for a state that differs), and R2's.
  step_subrequests_max: Math.max(...steps.map((step) => step.databases + step.parts_uploaded + step.checks * 2 + 4)),
};
mkdirSync(join(ROOT, "bench/results"), { recursive: true });
const out = join(ROOT, "bench/results", `statement-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
writeFileSync(out, JSON.stringify({ summary, steps }, null, 2));
console.log(JSON.stringify(summary, null, 2));
console.log(`(${out})`);
stop();
rmSync(work, { recursive: true, force: true });
