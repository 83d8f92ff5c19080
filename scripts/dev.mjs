#!/usr/bin/env node
// `npm run dev`: the gateway with the sandbox upstream on http://127.0.0.1:8787,
// local D1 and Durable Objects, nothing to set up. Uses .dev.vars when it
// exists, else the development credentials in .dev.vars.example.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { unstable_readConfig } from "wrangler";
import { migrationsApplyArgs, portOf } from "./dev-args.mjs";

const wrangler = (args, options = {}) =>
  spawnSync(process.execPath, ["node_modules/wrangler/bin/wrangler.js", ...args], { stdio: "inherit", ...options });

const vars = existsSync(".dev.vars") ? [] : ["--env-file", ".dev.vars.example"];

// Every D1 database of [env.dev]: DB and the tid index's other shards (TID_INDEX_SHARDS), in the
// state wrangler dev will use: a `--persist-to DIR` given here is passed on to the migrations too.
const { d1_databases: databases = [] } = unstable_readConfig({ config: "wrangler.toml", env: "dev" }, { hideWarnings: true });
for (const { binding } of databases) {
  const migrated = wrangler(migrationsApplyArgs(binding, process.argv.slice(2)), { env: { ...process.env, CI: "true" } });
  if (migrated.status !== 0) process.exit(migrated.status ?? 1);
}

// `npm run dev -- --port N` or PORT=N; 8787 unless one is given.
const given = portOf(process.argv.slice(2));
const port = given ?? process.env.PORT ?? "8787";
const dev = spawn(
  process.execPath,
  [
    "node_modules/wrangler/bin/wrangler.js",
    "dev",
    "--env",
    "dev",
    "--ip",
    "127.0.0.1",
    ...(given ? [] : ["--port", port]),
    ...vars,
    ...process.argv.slice(2),
  ],
  { stdio: "inherit" },
);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => dev.kill(signal));
dev.on("exit", (code) => process.exit(code ?? 0));

// `wrangler dev` never fires the Cron Trigger by itself ("Scheduled Workers are not automatically
// triggered during local development"), so this does, every CRON_TICK_SECONDS: retention, and the
// event sweep that queues again an event whose message was lost (in development within one
// minute: its 30 s plus this tick) and marks failed one past its horizon (within 3 minutes:
// 150 s plus this tick). test/integration/events-config.test.ts reads this number.
const CRON_TICK_SECONDS = 15;
const cron = `http://127.0.0.1:${port}/cdn-cgi/local/scheduled?cron=${encodeURIComponent("* * * * *")}`;
// Rule 16's own cron (ten past each hour in production: src/statements/api.ts), every minute here, so a dev
// server left running writes yesterday's statement soon after midnight in STATEMENT_TIMEZONE.
const statementCron = `http://127.0.0.1:${port}/cdn-cgi/local/scheduled?cron=${encodeURIComponent("10 * * * *")}`;
setInterval(
  () =>
    fetch(statementCron).then(
      (res) => res.body?.cancel(),
      () => undefined,
    ),
  60_000,
);
// Until the server is up, a tick finds nothing listening: the next one tries again.
setInterval(
  () =>
    fetch(cron).then(
      (res) => res.body?.cancel(),
      () => undefined,
    ),
  CRON_TICK_SECONDS * 1000,
);
