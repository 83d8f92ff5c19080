#!/usr/bin/env node
// `npm run test:browser` (first half): the API reference page in a real Chromium, offline.
//
// Starts the Worker (`wrangler dev`, the same script and static assets as `npm run
// dev`) on a free port, opens /docs in Debian's /usr/bin/chromium (headless, through
// playwright-core; never `npx playwright install`), refuses every request whose host
// is not the gateway's and fails if any was attempted, waits until the operations
// are listed, and saves a screenshot to test-results/docs.png. Ends with one plain
// line, `browser: N passed, N failed`, and a non-zero exit on any failure.
// The harness (the Worker, Chromium, the outside-request guard) is scripts/browser-harness.mjs.
import { existsSync, mkdirSync } from "node:fs";
import { openBrowser, report, startGateway } from "./browser-harness.mjs";

const SCREENSHOT = "test-results/docs.png";
const OPERATIONS = ["Create a payment receipt", "Send the OTP for a card-token payment"];

const { check, finish } = report("browser");

let gateway;
let browser;
try {
  if (!existsSync("public/vendor/scalar-api-reference.js")) throw new Error("public/ is not built: npm run build:docs");
  mkdirSync("test-results", { recursive: true });

  gateway = await startGateway();
  const { origin } = gateway;
  check("the Worker answers /healthz", true, origin);

  const home = await fetch(`${origin}/`);
  const homeText = await home.text();
  check(
    "GET / links to /docs and /openapi.json",
    home.ok && homeText.includes('href="/docs"') && homeText.includes('href="/openapi.json"'),
    `status ${home.status}`,
  );

  const opened = await openBrowser(origin);
  browser = opened.browser;
  const { page, outside, pageErrors } = opened;

  const res = await page.goto(`${origin}/docs`, { waitUntil: "load" });
  check("GET /docs answers the page", res?.status() === 200, `status ${res?.status()}`);
  const csp = (await res?.allHeaders())?.["content-security-policy"] ?? "";
  check(
    "GET /docs forbids outside connections (CSP connect-src 'self')",
    csp.includes("connect-src 'self'"),
    csp ? "" : "no Content-Security-Policy header",
  );

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
  gateway?.stop();
}

finish();
