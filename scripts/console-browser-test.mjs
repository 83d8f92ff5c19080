#!/usr/bin/env node
// `npm run test:browser` (second half): the sandbox console in a real Chromium.
//
// Starts the gateway as `npm run dev` does (scripts/browser-harness.mjs), with its
// WEBHOOK_URL pointed at a receiver this script runs on a free port (it checks each
// signature and answers 204). Creates, authorizes and pays a receipt through the API,
// waits until its events are delivered, then in Chromium: opens /__sandbox/, finds
// the receipt paid, follows its link, checks the timeline shows the upstream calls,
// the events and the audit, clicks Resend on receipt.paid, and checks the event is
// queued and delivered again; advances the receipt's own time with its form and finds
// it shown ahead; then runs `npm run trigger`'s recipe for every event type, each event
// seen by the receiver. Every request for another host is refused and fails the test. Screenshot: test-results/sandbox-console.png. Ends with one plain line,
// `console browser: N passed, N failed`, and a non-zero exit on any failure.
// First of all, the production bundle (a dry-run build) is checked to hold none of it.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { Webhook } from "standardwebhooks";
import { freePort, openBrowser, report, startGateway } from "./browser-harness.mjs";
import { RECIPES, triggerEvent } from "./trigger.mjs";

const SCREENSHOT = "test-results/sandbox-console.png";
const devVars = parseEnv(readFileSync(".dev.vars.example", "utf8"));
const PARTNER = { authorization: "Bearer sk_test_local_partner", "content-type": "application/json" };

const { check, finish } = report("console browser");

/** A webhook receiver: verifies each delivery and remembers its webhook-id, and each event's type and record. */
async function startReceiver() {
  const webhook = new Webhook(devVars.WEBHOOK_SECRET);
  const received = [];
  const events = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      try {
        const event = webhook.verify(body, req.headers);
        received.push(req.headers["webhook-id"]);
        events.push({ type: event.type, id: event.data.object.receipt_id ?? event.data.object.id });
        res.writeHead(204).end();
      } catch {
        res.writeHead(400).end("bad signature");
      }
    });
  });
  const port = await freePort();
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${port}/webhooks`, received, events, close: () => server.close() };
}

async function until(what, ms, probe) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The production entry as `npm run build` bundles it: its JavaScript, as text. */
function productionBundle() {
  const out = mkdtempSync(join(tmpdir(), "console-bundle-"));
  try {
    const built = spawnSync(
      process.execPath,
      ["node_modules/wrangler/bin/wrangler.js", "deploy", "--dry-run", "--env", "production", "--outdir", out],
      { encoding: "utf8", env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" } },
    );
    if (built.status !== 0) throw new Error(`the production dry-run build failed: ${(built.stderr || built.stdout).slice(-2000)}`);
    return readdirSync(out)
      .filter((name) => name.endsWith(".js"))
      .map((name) => readFileSync(join(out, name), "utf8"))
      .join("\n");
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

let gateway;
let receiver;
let browser;
try {
  mkdirSync("test-results", { recursive: true });
  const bundle = productionBundle();
  const leaks = ["/__sandbox", "Sandbox console", "SandboxObject", "/advance", "/trigger", "TRIGGER_NOT_APPLICABLE", "advanceRecord"].filter((text) =>
    bundle.includes(text),
  );
  check(
    "the production bundle has no /__sandbox path, no console, no sandbox, no test clock or trigger",
    bundle.length > 0 && leaks.length === 0,
    leaks.join(", "),
  );
  receiver = await startReceiver();
  gateway = await startGateway({ migrate: true, vars: { WEBHOOK_URL: receiver.url } });
  const { origin } = gateway;
  check("the gateway answers /healthz", true, origin);

  const api = async (path, body) => {
    const res = await fetch(`${origin}/api/v1/${path}`, { method: "POST", headers: PARTNER, body: JSON.stringify(body) });
    const json = await res.json();
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const tid = `console-${Date.now()}`;
  const receipt = await api("partner/receipt/create", { tid, amount: 150000, merchant_id: 1001, account: [{ key: "phone", value: "998901234567" }] });
  await api("partner/receipt/authorize", { id: receipt.id, card: { token: "tok_sandbox_ok" } });
  const paid = await api("partner/receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" }, otp: "111111" });
  check("a receipt is created, authorized and paid through the API", paid.state === 4, receipt.id);

  const events = await until("both events delivered", 30_000, async () => {
    const { events } = await api("gateway/events/list", { receipt_id: receipt.id });
    return events.length === 2 && events.every((e) => e.delivery.status === "delivered") ? events : null;
  });
  const paidEvent = events.find((e) => e.type === "receipt.paid");
  check("its two events reached the receiver", receiver.received.includes(paidEvent.id), events.map((e) => e.type).join(", "));

  const opened = await openBrowser(origin);
  browser = opened.browser;
  const { page, outside, pageErrors, consoleErrors } = opened;

  const res = await page.goto(`${origin}/__sandbox/`, { waitUntil: "load" });
  check("GET /__sandbox/ answers the page", res?.status() === 200, `status ${res?.status()}`);
  const csp = (await res?.allHeaders())?.["content-security-policy"] ?? "";
  check("it forbids outside loads (CSP default-src 'self')", csp.includes("default-src 'self'"), csp || "no Content-Security-Policy header");
  const row = page.locator("tr", { hasText: receipt.id });
  const rowText = (await row.innerText()).replace(/\s+/g, " ");
  check(
    "the receipt is listed, paid, with its tid and owner",
    rowText.includes("4 paid") && rowText.includes(tid) && rowText.includes("partner"),
    rowText,
  );

  await row.getByRole("link", { name: receipt.id }).click();
  await page.waitForURL(`**/__sandbox/receipts/${receipt.id}/view`);
  check("its link opens the record's page", true, new URL(page.url()).pathname);
  const timeline = (await page.locator("#timeline + p + table").innerText()).replace(/\s+/g, " ");
  const expected = ["POST receipt/create", "POST receipt/authorize", "POST receipt/pay", "receipt.created", "receipt.paid", "pay by partner"];
  const missing = expected.filter((text) => !timeline.includes(text));
  check(
    "the timeline shows the upstream calls, the events and the audit",
    missing.length === 0,
    missing.length ? `missing ${missing.join(", ")}` : "",
  );
  const order = ["POST receipt/create", "POST receipt/authorize", "POST receipt/pay"].map((text) => timeline.indexOf(text));
  check(
    "the calls are in time order",
    order.every((at, i) => i === 0 || at > order[i - 1]),
    order.join(" < "),
  );

  const eventRow = page.locator("#events + table tr", { hasText: "receipt.paid" });
  check("receipt.paid shows delivered", (await eventRow.innerText()).includes("delivered"));
  await eventRow.getByRole("button", { name: "Resend" }).click();
  await page.waitForURL(/\?resent=/);
  const notice = await page.getByRole("status").innerText();
  check(
    "Resend comes back to the record, saying the event is queued again",
    notice.includes(paidEvent.id) && notice.includes("queued for delivery again"),
    notice,
  );

  await until("the resent event delivered again", 30_000, () => receiver.received.filter((id) => id === paidEvent.id).length === 2);
  check("the receiver got receipt.paid again, same webhook-id, signature valid", true);
  await until("the page showing two attempts", 30_000, async () => {
    await page.reload({ waitUntil: "load" });
    const cells = await page.locator("#events + table tr", { hasText: "receipt.paid" }).locator("td").allInnerTexts();
    // Columns: #, type, id, created, delivery, attempts, ...
    return cells[4]?.trim() === "delivered" && cells[5]?.trim() === "2";
  });
  check("after a reload the event shows delivered, 2 attempts", true);

  const ownTime = await page.locator("#clock + dd").innerText();
  check("the record's page shows its own time, at now", ownTime.includes("now") && ownTime.includes("UTC"), ownTime);
  await page.locator('form[action$="/advance"] input[name="by"]').fill("25h");
  await page.locator('form[action$="/advance"]').getByRole("button", { name: "Advance" }).click();
  await page.waitForURL(`**/__sandbox/receipts/${receipt.id}/view#clock`);
  const advanced = await page.locator("#clock + dd").innerText();
  check("Advance 25h comes back to the record, its own time a day ahead", advanced.includes("+1 d"), advanced);
  check("the page offers the triggers", (await page.locator('form[action$="/trigger"] option').count()) === 5);
  await page.goto(`${origin}/__sandbox/`, { waitUntil: "load" });
  const listed = (await page.locator("tr", { hasText: receipt.id }).innerText()).replace(/\s+/g, " ");
  check("the list shows the receipt's own time ahead", listed.includes("+1 d"), listed);

  await page.screenshot({ path: SCREENSHOT, fullPage: true });
  check("a screenshot is saved", existsSync(SCREENSHOT), SCREENSHOT);
  check("no request left the gateway", outside.length === 0, outside.length ? [...new Set(outside)].slice(0, 10).join(" ") : "");
  check(
    "no script error and no console error (a CSP violation is one)",
    pageErrors.length + consoleErrors.length === 0,
    [...pageErrors, ...consoleErrors].slice(0, 3).join(" | "),
  );
  // npm run trigger: every event type, made on this gateway and seen by the receiver.
  for (const type of Object.keys(RECIPES)) {
    const made = await triggerEvent(origin, type, 45_000);
    const seen = receiver.events.some((e) => e.type === type && e.id === made.id);
    check(
      `npm run trigger -- ${type}: delivered, and the receiver got it`,
      made.delivered && seen,
      `${made.kind} ${made.id}: ${made.event?.delivery.status ?? "not made"}`,
    );
  }
} catch (err) {
  check("the console browser test ran", false, err instanceof Error ? err.message : String(err));
  if (gateway) console.log(gateway.log().slice(-3000));
} finally {
  await browser?.close().catch(() => {});
  gateway?.stop();
  receiver?.close();
}

finish();
