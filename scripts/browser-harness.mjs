// What the browser tests share (scripts/docs-browser-test.mjs,
// scripts/console-browser-test.mjs): a local gateway under `wrangler dev` (the
// same script and static assets as `npm run dev`) on a free port with its own
// throw-away state, Debian's /usr/bin/chromium through playwright-core
// (headless; never `npx playwright install`) with every request for another
// host refused and remembered, and a plain closing line.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { unstable_readConfig } from "wrangler";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const WRANGLER = "node_modules/wrangler/bin/wrangler.js";

/** Named checks, printed as they pass or fail; `finish` prints `<name>: N passed, N failed` and exits. */
export function report(name) {
  const results = [];
  return {
    check(what, ok, detail = "") {
      results.push(ok);
      console.log(`${ok ? "ok  " : "FAIL"} ${what}${detail ? `: ${detail}` : ""}`);
      return ok;
    },
    finish() {
      const failed = results.filter((ok) => !ok).length;
      console.log(`${name}: ${results.length - failed} passed, ${failed} failed`);
      process.exit(failed > 0 ? 1 : 0);
    },
  };
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitUntilUp(origin, worker, ms) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (worker.exitCode !== null) throw new Error(`wrangler dev exited with ${worker.exitCode}`);
    try {
      const res = await fetch(`${origin}/healthz`);
      if (res.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the Worker did not answer ${origin}/healthz within ${ms / 1000} s`);
}

/**
 * Starts the gateway as `npm run dev` does, on a free port, with state of its
 * own (removed by stop()). `migrate`: apply the D1 migrations first. `vars`:
 * extra `--var NAME:VALUE`s.
 */
export async function startGateway({ migrate = false, vars = {} } = {}) {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  const state = mkdtempSync(join(tmpdir(), "browser-test-"));
  const env = { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" };
  if (migrate) {
    // Every D1 database of [env.dev]: DB and the tid index's other shards (TID_INDEX_SHARDS), as npm run dev does.
    const { d1_databases: databases = [] } = unstable_readConfig({ config: "wrangler.toml", env: "dev" }, { hideWarnings: true });
    for (const { binding } of databases) {
      const migrated = spawnSync(
        process.execPath,
        [WRANGLER, "d1", "migrations", "apply", binding, "--local", "--env", "dev", "--persist-to", state],
        { env, encoding: "utf8" },
      );
      if (migrated.status !== 0) throw new Error(`the D1 migrations of ${binding} failed: ${(migrated.stderr || migrated.stdout).slice(-2000)}`);
    }
  }
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const varArgs = Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]);
  const worker = spawn(
    process.execPath,
    [
      WRANGLER,
      "dev",
      "--env",
      "dev",
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--env-file",
      ".dev.vars.example",
      "--persist-to",
      state,
      "--show-interactive-dev-session=false",
      ...varArgs,
    ],
    { stdio: ["ignore", "pipe", "pipe"], env },
  );
  let log = "";
  worker.stdout.on("data", (chunk) => (log += chunk));
  worker.stderr.on("data", (chunk) => (log += chunk));
  const stop = () => {
    if (worker.exitCode === null) worker.kill("SIGTERM");
    rmSync(state, { recursive: true, force: true });
  };
  for (const signal of ["SIGINT", "SIGTERM"])
    process.on(signal, () => {
      stop();
      process.exit(130);
    });
  try {
    await waitUntilUp(origin, worker, 60_000);
  } catch (err) {
    console.log(log.slice(-3000));
    stop();
    throw err;
  }
  return { origin, stop, log: () => log };
}

/**
 * Chromium with one page whose requests for any other host are refused; the
 * returned `outside` lists every one that was attempted, `pageErrors` every
 * uncaught script error, `consoleErrors` every console error (a CSP violation is one).
 */
export async function openBrowser(origin, viewport = { width: 1440, height: 900 }) {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"], headless: true });
  const page = await browser.newPage({ viewport });
  const outside = [];
  const gatewayHost = new URL(origin).host;
  await page.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (url.host === gatewayHost) return route.continue();
    outside.push(route.request().url());
    return route.abort("blockedbyclient");
  });
  // Requests routing cannot see (a service worker's, a websocket) still show up here.
  page.on("request", (request) => {
    const url = request.url();
    if (/^(https?|wss?):/.test(url) && new URL(url).host !== gatewayHost && !outside.includes(url)) outside.push(url);
  });
  const pageErrors = [];
  page.on("pageerror", (err) => pageErrors.push(String(err)));
  const consoleErrors = [];
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  return { browser, page, outside, pageErrors, consoleErrors };
}
