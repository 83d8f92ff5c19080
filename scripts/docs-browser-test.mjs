#!/usr/bin/env node
// `npm run test:browser` (first half): the API reference page in a real Chromium, offline.
//
// Starts the Worker (`wrangler dev`, the same script and static assets as `npm run
// dev`) on a free port, opens /docs in Debian's /usr/bin/chromium (headless, through
// playwright-core; never `npx playwright install`), refuses every request whose host
// is not the gateway's and fails if any was attempted, waits until the operations
// are listed, sends a receipt create through the page's try-it panel (the
// document's server is relative, so the panel sends to this non-default port, and
// the page's CSP lets it) and sees the answer in the panel, and saves screenshots
// to test-results/docs.png and test-results/docs-try-it.png, and fails when
// Scalar warns of a deprecated option in its configuration. Ends with one plain
// line, `browser: N passed, N failed`, and a non-zero exit on any failure.
// The harness (the Worker, Chromium, the outside-request guard) is scripts/browser-harness.mjs.
import { existsSync, mkdirSync } from "node:fs";
import { openBrowser, report, startGateway } from "./browser-harness.mjs";

const SCREENSHOT = "test-results/docs.png";
const TRY_IT_SCREENSHOT = "test-results/docs-try-it.png";
/** The development partner key (.dev.vars.example's digest is of this key). */
const PARTNER_KEY = "sk_test_local_partner";
const OPERATIONS = ["Create a payment receipt", "Send the OTP for a card-token payment"];

const { check, finish } = report("browser");

let gateway;
let browser;
try {
  if (!existsSync("public/vendor/scalar-api-reference.js")) throw new Error("public/ is not built: npm run build:docs");
  mkdirSync("test-results", { recursive: true });

  gateway = await startGateway({ migrate: true });
  const { origin } = gateway;
  check("the Worker answers /healthz, on a port other than npm run dev's", new URL(origin).port !== "8787", origin);

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
  // Scalar warns in the console of each option it still reads but has replaced.
  const deprecated = [];
  page.on("console", (message) => {
    if (message.text().includes("[DEPRECATED]")) deprecated.push(message.text());
  });

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

  // Try it: the create's panel, the development partner key, Send; the answer comes from this gateway and is shown.
  try {
    await page
      .getByRole("button", { name: /test request.*receipt\/create/i })
      .first()
      .click();
    const token = page.getByPlaceholder("Token").first();
    await token.waitFor({ state: "visible", timeout: 15_000 });
    await token.fill(PARTNER_KEY);
    const answered = page.waitForResponse((r) => r.url() === `${origin}/api/v1/partner/receipt/create`, { timeout: 15_000 });
    await page.getByRole("button", { name: /^send/i }).first().click();
    const res = await answered;
    const body = await res.json().catch(() => ({}));
    check(
      "the try-it panel sends a create to this gateway, with the key, and it is created",
      res.status() === 200 && res.request().headers().authorization === `Bearer ${PARTNER_KEY}` && body.state === 0 && typeof body.id === "string",
      `status ${res.status()}`,
    );
    const shown = await page
      .getByText(body.id ?? "no id")
      .first()
      .waitFor({ state: "visible", timeout: 10_000 })
      .then(
        () => true,
        () => false,
      );
    await page.screenshot({ path: TRY_IT_SCREENSHOT });
    check("the panel shows the answer (the new receipt's id)", shown, body.id);
  } catch (err) {
    check("the try-it panel could be driven", false, err instanceof Error ? err.message : String(err));
  }
  check("no request left the gateway", outside.length === 0, outside.length ? [...new Set(outside)].slice(0, 10).join(" ") : "");
  check("no script error on the page", pageErrors.length === 0, pageErrors.slice(0, 3).join(" | "));
  check("Scalar is given no deprecated option", deprecated.length === 0, deprecated.slice(0, 3).join(" | "));
} catch (err) {
  check("the browser test ran", false, err instanceof Error ? err.message : String(err));
} finally {
  await browser?.close().catch(() => {});
  gateway?.stop();
}

finish();
