#!/usr/bin/env node
// `npm run openapi`: starts the Worker locally (wrangler's unstable_startWorker,
// development vars, no network), fetches GET /openapi.json and writes it,
// pretty-printed, to openapi.json at the repository root (or to the path given
// as the first argument). test/docs/openapi.test.ts fails when the committed copy
// differs from what the Worker serves.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseEnv } from "node:util";
import { unstable_startWorker } from "wrangler";

process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= "false";
const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const out = resolve(process.argv[2] ?? join(ROOT, "openapi.json"));
const vars = parseEnv(readFileSync(join(ROOT, ".dev.vars.example"), "utf8"));

const worker = await unstable_startWorker({
  config: join(ROOT, "wrangler.toml"),
  env: "dev",
  bindings: Object.fromEntries(Object.entries(vars).map(([name, value]) => [name, { type: "plain_text", value }])),
  dev: { server: { hostname: "127.0.0.1", port: 0 }, inspector: false, watch: false, logLevel: "error" },
});
try {
  const res = await worker.fetch("http://127.0.0.1/openapi.json");
  if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}: ${await res.text()}`);
  const doc = await res.json();
  writeFileSync(out, `${JSON.stringify(doc, null, 2)}\n`);
  console.log(`wrote ${out}`);
} finally {
  await worker.dispose();
}
