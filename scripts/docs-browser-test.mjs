#!/usr/bin/env node
// `npm run test:browser`: the API reference page in a real Chromium, offline.
//
// Starts the Worker (`wrangler dev`, the same script and static assets as `npm run
// dev`) on a free port, opens /docs in Debian's /usr/bin/chromium (headless, through
// playwright-core; never `npx playwright install`), refuses every request whose host
// is not the gateway's and fails if any was attempted, waits until the operations
// are listed, and saves a screenshot to test-results/docs.png. Ends with one plain
// line, `browser: N passed, N failed`, and a non-zero exit on any failure.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const SCREENSHOT = "test-results/docs.png";
const OPERATIONS = ["Create a payment receipt", "Send the OTP for a card-token payment"];

const results = [];
const check = (name, ok, detail = "") => {
  results.push({ name, ok });
  console.log(`${ok ? "ok  " : "FAIL"} ${name}${detail ? `: ${detail}` : ""}`);
};

function freePort() {
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

let worker;
let browser;
const state = mkdtempSync(join(tmpdir(), "docs-browser-"));
const stop = () => {
  if (worker && worker.exitCode === null) worker.kill("SIGTERM");
  rmSync(state, { recursive: true, force: true });
};
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => { stop(); process.exit(130); });

try {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  if (!existsSync("public/vendor/scalar-api-reference.js")) throw new Error("public/ is not built: npm run build:docs");
  mkdirSync("test-results", { recursive: true });

  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  worker = spawn(
    process.execPath,
    ["node_modules/wrangler/bin/wrangler.js", "dev", "--env", "dev", "--ip", "127.0.0.1", "--port", String(port), "--env-file", ".dev.vars.example", "--persist-to", state, "--show-interactive-dev-session=false"],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" } },
  );
  let workerLog = "";
  worker.stdout.on("data", (chunk) => (workerLog += chunk));
  worker.stderr.on("data", (chunk) => (workerLog += chunk));
  try {
    await waitUntilUp(origin, worker, 60_000);
  } catch (err) {
    console.log(workerLog.slice(-3000));
    throw err;
  }
  check("the Worker answers /healthz", true, origin);

  const home = await fetch(`${origin}/`);
  const homeText = await home.text();
  check("GET / links to /docs and /openapi.json", home.ok && homeText.includes('href="/docs"') && homeText.includes('href="/openapi.json"'), `status ${home.status}`);

  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"], headless: true });
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
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

  const res = await page.goto(`${origin}/docs`, { waitUntil: "load" });
  check("GET /docs answers the page", res?.status() === 200, `status ${res?.status()}`);
  const csp = (await res?.allHeaders())?.["content-security-policy"] ?? "";
  check("GET /docs forbids outside connections (CSP connect-src 'self')", csp.includes("connect-src 'self'"), csp ? "" : "no Content-Security-Policy header");

  let listed = true;
  for (const operation of OPERATIONS) {
    try {
      await page.getByText(operation, { exact: false }).first().waitFor({ state: "visible", timeout: 30_000 });
    } catch {
      listed = false;
    }
  }
  check("the operations are listed", listed, OPERATIONS.join(", "));
  await page.waitForLoadState("networkidle", { timeout: 10_000 }).catch(() => {});
  await page.screenshot({ path: SCREENSHOT });
  check("a screenshot is saved", existsSync(SCREENSHOT), SCREENSHOT);
  check("no request left the gateway", outside.length === 0, outside.length ? [...new Set(outside)].slice(0, 10).join(" ") : "");
  check("no script error on the page", pageErrors.length === 0, pageErrors.slice(0, 3).join(" | "));
} catch (err) {
  check("the browser test ran", false, err instanceof Error ? err.message : String(err));
} finally {
  await browser?.close().catch(() => {});
  stop();
}

const failed = results.filter((r) => !r.ok).length;
console.log(`browser: ${results.length - failed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
