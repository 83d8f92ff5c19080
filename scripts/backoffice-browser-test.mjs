#!/usr/bin/env node
// `npm run test:browser` (third part): the back office at /console/ in a real Chromium.
//
// Starts the gateway as `npm run dev` does (scripts/browser-harness.mjs), its
// WEBHOOK_URL pointed at a receiver this script runs (it checks each signature;
// it answers 500 to every delivery about the story's receipt until told to
// recover, 204 to the rest), a short upstream timeout, and a rule 13 limit of
// one OTP send per user and card a day so that a refusal is easy to make.
// Then, through the API with the sandbox's test values:
//   - the story: a user's receipt (with a phone) whose pay the upstream takes
//     but answers too late (tok_sandbox_paid_timeout): the user is told
//     upstream_timeout, the outcome is unknown, the reconciliation finds it
//     paid; its receipt.paid is refused by the receiver until it is failed;
//   - a receipt the partner pays plainly, one declined (insufficient funds),
//     one whose OTP guesses run out, and a second authorize refused by rule 13;
//   - today's statement, rebuilt by the partner.
// In Chromium, for each role (support, finance, operator) through the
// development sign-in: the header names who is signed in; support finds the
// story by id (with the keyboard alone) and by the user's tid, sees its states,
// the unknown call and what the reconciliation found, the failed deliveries,
// what the user saw, reveals the phone (found again by audit/search {staff});
// finance sees the statement's totals and downloads it; the operator resends
// the failed receipt.paid from the page (the receiver gets it, the page shows
// it delivered) and draws every chart for 1, 6 and 24 hours, each with data.
// Each role is refused (403) what it may not do, on the page and through the
// operations; a server key and a user's JWT never reach them; no identity is
// 401. Screenshots of every screen per role at 1280 px, and some at 1920 px:
// test-results/backoffice-<role>-<screen>.png. Every request for another host
// is refused and fails the test. Ends with `back office browser: N passed, N failed`.
import { mkdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { parseEnv } from "node:util";
import { SignJWT } from "jose";
import { chromium } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { CHROMIUM, freePort, report, startGateway } from "./browser-harness.mjs";

const OUT = "test-results";
const devVars = parseEnv(readFileSync(".dev.vars.example", "utf8"));
const PARTNER = { authorization: "Bearer sk_test_local_partner", "content-type": "application/json" };
const PHONE = "998901234567";
const OTHER = [{ key: "phone", value: "998907654321" }];
const STAFF = {
  support: "support.agent@partner.example",
  finance: "finance.clerk@partner.example",
  operator: "oncall.engineer@partner.example",
};
/** The operations each role may not call, with a body that would otherwise be valid. */
const REFUSED = {
  support: [
    ["statements", {}],
    ["statement", { date: "2026-01-01" }],
    ["fiscal_pending", {}],
    ["resend_failed", { from: 0, to: 1 }],
    ["erasures", {}],
    ["charts", { hours: 1 }],
  ],
  finance: [
    ["reveal", { id: "r", field: "phone" }],
    ["resend", { event_id: "e" }],
    ["erasures", {}],
    ["charts", { hours: 1 }],
  ],
  operator: [],
};
/** The page's screens each role may not open: the page shows the gateway's 403. */
const REFUSED_SCREENS = { support: ["statements", "charts"], finance: ["charts", "erasures"], operator: [] };
/** The navigation's link to each of those screens. */
const LINK_OF = { statements: "Statements", charts: "Charts", erasures: "Erasure requests" };

/** The charts the back office draws for the operator. */
const CHARTS = [
  "payments_by_outcome",
  "unknown_outcomes",
  "declines_by_reason",
  "otp_exhausted",
  "risk_refusals_by_rule",
  "webhook_failures",
  "queue_age_s",
  "latency_ms",
];

const { check, finish } = report("back office browser");

/** A webhook receiver: verifies each delivery; refuses those about `failFor` (a record id) until `recover()`. */
async function startReceiver() {
  const webhook = new Webhook(devVars.WEBHOOK_SECRET);
  const received = [];
  let failFor = null;
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      try {
        webhook.verify(body, req.headers);
      } catch {
        res.writeHead(400).end("bad signature");
        return;
      }
      if (failFor && body.includes(failFor)) {
        res.writeHead(500, { "content-type": "text/plain" }).end("receiver down for maintenance");
        return;
      }
      received.push(req.headers["webhook-id"]);
      res.writeHead(204).end();
    });
  });
  const port = await freePort();
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    received,
    failAbout: (id) => (failFor = id),
    recover: () => (failFor = null),
    close: () => server.close(),
  };
}

async function until(what, ms, probe) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

const userToken = (sub) =>
  new SignJWT({})
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime("1h")
    .sign(new TextEncoder().encode(devVars.JWT_SECRET));

const flat = (text) => text.replace(/\s+/g, " ").trim();

let gateway;
let receiver;
let browser;
try {
  mkdirSync(OUT, { recursive: true });
  receiver = await startReceiver();
  gateway = await startGateway({
    migrate: true,
    vars: { WEBHOOK_URL: receiver.url, UPSTREAM_TIMEOUT_MS: "2000", RISK_LIMITS: '{"user_card_otp_sends_per_day": 1}' },
  });
  const { origin } = gateway;
  check("the gateway answers /healthz", true, origin);

  /** A call of the API: `{status, body}`, with the partner's key unless `headers` say otherwise. */
  const call = async (path, body, headers = PARTNER) => {
    const res = await fetch(`${origin}/api/v1/${path}`, { method: "POST", headers, body: JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  };
  const api = async (path, body, headers = PARTNER) => {
    const answer = await call(path, body, headers);
    if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  const stamp = Date.now();
  const started = stamp - 60_000;

  // ---- the story: charged, but the app said it failed -----------------------------------
  const storyUser = `bo-user-${stamp}`;
  const asUser = { authorization: `Bearer ${await userToken(storyUser)}`, "content-type": "application/json" };
  const storyTid = `bo-story-${stamp}`;
  const story = await api(
    "partner/receipt/create",
    { tid: storyTid, amount: 250000, merchant_id: 1001, account: [{ key: "phone", value: PHONE }] },
    asUser,
  );
  receiver.failAbout(story.id);
  await api("partner/receipt/authorize", { id: story.id, card: { token: "tok_sandbox_ok" } }, asUser);
  const lost = await call("partner/receipt/pay", { id: story.id, card: { token: "tok_sandbox_paid_timeout" }, otp: "111111" }, asUser);
  check(
    "the story's pay is answered upstream_timeout (the upstream paid, its answer was lost)",
    lost.body.error?.code === "upstream_timeout",
    `${lost.status} ${lost.body.error?.code}`,
  );
  // No call of ours asks the upstream again: the gateway's own reconciliation (within seconds) finds it paid.
  await until("the reconciliation finding the story paid", 60_000, async () => {
    const { events } = await api("gateway/events/list", { receipt_id: story.id });
    return events.some((e) => e.type === "receipt.paid");
  });
  check("the reconciliation found the story paid", true, story.id);

  // ---- the rest of a day: a plain payment, a decline, OTP guesses run out, a rule 13 refusal
  const plainTid = `bo-plain-${stamp}`;
  const plain = await api("partner/receipt/create", { tid: plainTid, amount: 150000, merchant_id: 1003, account: OTHER });
  await api("partner/receipt/pay", { id: plain.id, card: { token: "tok_sandbox_ok" } });
  const declined = await api("partner/receipt/create", { tid: `bo-declined-${stamp}`, amount: 120000, merchant_id: 1003, account: OTHER });
  const decline = await call("partner/receipt/pay", { id: declined.id, card: { token: "tok_sandbox_insufficient" } });
  check("a payment is declined for insufficient funds", decline.status === 402, `${decline.status} ${decline.body.error?.code}`);
  const guessed = await api("partner/receipt/create", { tid: `bo-guessed-${stamp}`, amount: 130000, merchant_id: 1001, account: OTHER });
  await api("partner/receipt/authorize", { id: guessed.id, card: { token: "tok_sandbox_ok" } });
  let exhausted;
  for (let i = 0; i < 4 && exhausted?.body.error?.code !== "otp_attempts_exhausted"; i++)
    exhausted = await call("partner/receipt/pay", { id: guessed.id, card: { token: "tok_sandbox_ok" }, otp: "000000" });
  check("wrong OTPs run out", exhausted.body.error?.code === "otp_attempts_exhausted", exhausted.body.error?.code);
  const riskUser = { authorization: `Bearer ${await userToken(`bo-risk-${stamp}`)}`, "content-type": "application/json" };
  const first = await api("partner/receipt/create", { tid: `bo-risk1-${stamp}`, amount: 110000, merchant_id: 1001, account: OTHER }, riskUser);
  const second = await api("partner/receipt/create", { tid: `bo-risk2-${stamp}`, amount: 110000, merchant_id: 1001, account: OTHER }, riskUser);
  await api("partner/receipt/authorize", { id: first.id, card: { token: "tok_sandbox_ok" } }, riskUser);
  const refused = await call("partner/receipt/authorize", { id: second.id, card: { token: "tok_sandbox_ok" } }, riskUser);
  check(
    "a second OTP send for the same user and card is refused by rule 13",
    refused.status === 429,
    `${refused.status} ${refused.body.error?.code}`,
  );

  // The story's receipt.paid fails every attempt (the development retries take about a minute).
  const failedEvent = await until("the story's receipt.paid failed", 150_000, async () => {
    const { events } = await api("gateway/events/list", { receipt_id: story.id });
    return events.find((e) => e.type === "receipt.paid" && e.delivery.status === "failed");
  });
  check("the story's receipt.paid is failed after its retries", failedEvent.delivery.attempts > 1, `${failedEvent.delivery.attempts} attempts`);

  const today = new Intl.DateTimeFormat("en-CA", { timeZone: "Asia/Tashkent" }).format(new Date());
  const rebuilt = await call("gateway/statements/rebuild", { date: today });
  if (rebuilt.status >= 300) throw new Error(`statements/rebuild: ${rebuilt.status} ${JSON.stringify(rebuilt.body)}`);
  const statement = await until("today's statement written", 60_000, async () => {
    const { statements } = await api("gateway/statements/list", {});
    return statements.find((s) => s.date === today && Array.isArray(s.totals) && s.totals.length > 0);
  });
  const paidTotal = statement.totals.filter((t) => t.merchant_id === 1003).reduce((n, t) => n + t.amount, 0);
  check("today's statement is written, with the plain payment in its totals", paidTotal >= 150000, JSON.stringify(statement.totals));

  // ---- nobody but signed-in staff reaches the console -----------------------------------
  const noIdentity = await fetch(`${origin}/console/`, { redirect: "manual" });
  check(
    "GET /console/ without an identity sends development to its sign-in",
    noIdentity.status === 303 && noIdentity.headers.get("location")?.endsWith("/console/dev-sign-in"),
    `${noIdentity.status} ${noIdentity.headers.get("location")}`,
  );
  const noIdentityApi = await fetch(`${origin}/console/api/me`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  check("an operation without an identity is 401", noIdentityApi.status === 401, String(noIdentityApi.status));
  for (const [who, headers] of [
    ["a server key", PARTNER],
    ["a user's JWT", asUser],
  ]) {
    const res = await fetch(`${origin}/console/api/me`, { method: "POST", headers, body: "{}" });
    const body = await res.json().catch(() => ({}));
    check(`${who} does not reach the console's operations`, [401, 403].includes(res.status), `${res.status} ${body.error?.code}`);
  }

  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"], headless: true });
  const gatewayHost = new URL(origin).host;
  const outside = [];
  const pageErrors = [];

  /** A fresh browser context signed in through the development sign-in as `role`. */
  async function signIn(role, viewport = { width: 1280, height: 900 }) {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    await page.route("**/*", (route) => {
      const url = new URL(route.request().url());
      if (url.host === gatewayHost) return route.continue();
      outside.push(route.request().url());
      return route.abort("blockedbyclient");
    });
    page.on("pageerror", (err) => pageErrors.push(`${role}: ${err}`));
    page.on("console", (message) => {
      // A refusal the page asks for on purpose is logged by Chromium as a failed resource; nothing else may be.
      if (message.type() === "error" && !/status of (401|403)/.test(message.text())) pageErrors.push(`${role}: ${message.text()}`);
    });
    await page.goto(`${origin}/console/dev-sign-in`);
    await page.getByLabel("Email").fill(STAFF[role]);
    await page.getByLabel("Role").selectOption(role);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => url.pathname === "/console/");
    await page.locator("#who strong").waitFor();
    const who = flat(await page.locator("#who").innerText());
    check(`${role}: signed in, the page names who and the role`, who.includes(STAFF[role]) && who.includes(`(${role})`), who);
    return { context, page };
  }

  const shoot = async (page, role, screen) => page.screenshot({ path: `${OUT}/backoffice-${role}-${screen}.png`, fullPage: true });

  /** The page's own operation, asked with the page's cookie: its HTTP status and error code. */
  const operation = async (page, name, body) => {
    const res = await page.request.post(`${origin}/console/api/${name}`, { data: body, headers: { "content-type": "application/json" } });
    const json = await res.json().catch(() => ({}));
    return { status: res.status(), code: json.error?.code, body: json };
  };

  async function refusals(page, role) {
    for (const [name, body] of REFUSED[role]) {
      const answer = await operation(page, name, body);
      check(
        `${role}: the operation ${name} is refused 403 forbidden`,
        answer.status === 403 && answer.code === "forbidden",
        `${answer.status} ${answer.code}`,
      );
    }
    const links = await page.locator("#nav a").allInnerTexts();
    for (const screen of REFUSED_SCREENS[role]) {
      await page.goto(`${origin}/console/#/${screen}`);
      const status = page.locator("#status");
      await status
        .filter({ hasText: "Refused" })
        .waitFor({ timeout: 15_000 })
        .catch(() => {});
      const said = flat(await status.innerText());
      check(`${role}: the page's ${screen} screen shows the gateway's 403`, said.includes("403 forbidden"), said);
      check(`${role}: the navigation offers no ${screen}`, !links.includes(LINK_OF[screen]), links.join(", "));
      await shoot(page, role, `refused-${screen}`);
    }
  }

  // ---- support ---------------------------------------------------------------------------
  {
    const role = "support";
    const { context, page } = await signIn(role);
    await page.locator("#nav a", { hasText: "Find a payment" }).waitFor();
    await shoot(page, role, "find");
    const served = await page.request.get(`${origin}/console/`);
    const csp = served.headers()["content-security-policy"] ?? "";
    check(
      "support: the page is served with a policy that lets it load and call nothing but the gateway",
      served.status() === 200 && csp.includes("default-src 'self'") && csp.includes("script-src 'self';") && csp.includes("connect-src 'self'"),
      csp || `no Content-Security-Policy (${served.status()})`,
    );

    // The keyboard alone: Tab to the id field, type, Enter; Tab to the result, Enter.
    await page.locator("body").focus();
    let focused = "";
    for (let i = 0; i < 25 && focused !== "id"; i++) {
      await page.keyboard.press("Tab");
      focused = await page.evaluate(() => document.activeElement?.getAttribute("name") ?? "");
    }
    check("support: Tab reaches the id field", focused === "id");
    const ring = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
    check("support: the focused field shows its focus", ring !== "none", ring);
    await page.keyboard.type(story.id);
    await page.keyboard.press("Enter");
    const resultLink = page.locator("#results a", { hasText: story.id });
    await resultLink.waitFor({ timeout: 15_000 });
    check("support: the results are announced (aria-live)", (await page.locator("#results").getAttribute("aria-live")) === "polite");
    const row = flat(await page.locator("#results tr", { hasText: story.id }).innerText());
    check("support: found by id, paid", row.includes("paid") && row.includes(storyTid), row);
    await resultLink.focus();
    await page.keyboard.press("Enter");
    await page.waitForURL(`**/console/#/record/${story.id}`);
    await page.locator("#s-calls").waitFor({ timeout: 15_000 });

    const section = async (id) => flat(await page.locator(`section[aria-labelledby="${id}"]`).innerText());
    const states = await section("s-states");
    check("support: the timeline's states end paid", /4 paid/.test(states), states);
    const calls = await section("s-calls");
    check(
      "support: the pay's outcome is marked unknown, with what the reconciliation found",
      /pay unknown .*reconciled .*found 4 paid/.test(calls),
      calls,
    );
    const events = await section("s-events");
    check(
      "support: receipt.paid shows its failed attempts and the receiver's answer",
      events.includes("receipt.paid") && events.includes("failed") && events.includes("receiver down"),
      events.slice(0, 400),
    );
    const saw = await section("s-saw");
    check(
      "support: what the user saw is upstream_timeout with its message",
      saw.includes("upstream_timeout") && /may have gone through|checked/i.test(saw),
      saw,
    );
    // textContent: the stored record's JSON, folded away, counts too.
    const summary = await page.locator('section[aria-labelledby="s-summary"]').textContent();
    check(
      "support: the phone is masked, in the summary and the stored record",
      !summary.includes(PHONE) && summary.includes("99********67"),
      flat(summary).slice(0, 300),
    );
    check("support: no Resend for support", (await page.getByRole("button", { name: /^Resend/ }).count()) === 0);
    await shoot(page, role, "record");

    // The user's phone: the receipt keeps it as its account value whose key is phone.
    await page.getByRole("button", { name: "Reveal phone" }).click();
    await page.locator("#reveal-phone", { hasText: `phone: ${PHONE}` }).waitFor({ timeout: 15_000 });
    check("support: Reveal phone shows the phone", true, flat(await page.locator("#reveal-phone").innerText()));
    await shoot(page, role, "record-revealed");
    const revealed = await until("the phone's reveal in audit/search by staff", 30_000, async () => {
      const { entries } = await api("gateway/audit/search", { staff: STAFF.support, from: started, to: Date.now() + 60_000 });
      return entries.find((e) => e.op === "console.reveal" && e.receipt_id === story.id && / phone$/.test(e.target));
    });
    check(
      "support: the reveal is found by audit/search {staff}, without the phone",
      !JSON.stringify(revealed).includes(PHONE),
      JSON.stringify(revealed),
    );

    // By the user's tid and the user.
    await page.goto(`${origin}/console/#/find`);
    await page.getByLabel(/^tid/).fill(storyTid);
    await page.getByLabel("User", { exact: true }).fill(storyUser);
    await page.getByRole("button", { name: "Search" }).click();
    await page.locator("#results a", { hasText: story.id }).waitFor({ timeout: 15_000 });
    check("support: found by the user's tid and user", true);
    // By the partner's tid.
    await page.getByLabel("User", { exact: true }).fill("");
    await page.getByLabel(/^tid/).fill(plainTid);
    await page.getByRole("button", { name: "Search" }).click();
    await page.locator("#results a", { hasText: plain.id }).waitFor({ timeout: 15_000 });
    check("support: found by the partner's tid", true);
    await shoot(page, role, "find-results");

    const file = await page.request.get(`${origin}/console/files/statements/${today}.csv`);
    check("support: a statement's file is refused 403", file.status() === 403, String(file.status()));
    await refusals(page, role);
    await context.close();
  }

  // ---- finance ---------------------------------------------------------------------------
  {
    const role = "finance";
    const { context, page } = await signIn(role);
    await page.goto(`${origin}/console/#/statements`);
    const row = page.locator("tr", { hasText: today });
    await row.waitFor({ timeout: 15_000 });
    const rowText = flat(await row.innerText());
    check("finance: today's statement is listed with its totals", /\d+ changes, [\d,.]+ UZS/.test(rowText), rowText);
    await shoot(page, role, "statements");
    await row.getByRole("link", { name: today }).click();
    await page.getByRole("heading", { name: "Totals" }).waitFor({ timeout: 15_000 });
    const totals = flat(await page.locator("table").first().innerText());
    check(
      "finance: the statement's totals show the plain payment's merchant and amount",
      totals.includes("1003") && totals.includes("1,500.00 UZS"),
      totals,
    );
    await shoot(page, role, "statement");
    const csv = await page.request.get(`${origin}/console/files/statements/${today}.csv`);
    const csvText = await csv.text();
    check(
      "finance: the CSV downloads, with the plain payment's line",
      csv.status() === 200 && csvText.includes(plain.id),
      `${csv.status()} ${csvText.slice(0, 120)}`,
    );
    await page.goto(`${origin}/console/#/fiscal`);
    await page.locator("#screen p").first().waitFor();
    await page.waitForFunction(() => /pending|Nothing/.test(document.getElementById("screen").innerText), null, { timeout: 15_000 });
    const fiscal = flat(await page.locator("#screen").innerText());
    check("finance: fiscal pending answers", !flat(await page.locator("#status").innerText()), fiscal.slice(0, 200));
    await shoot(page, role, "fiscal");
    await refusals(page, role);
    await context.close();
  }

  // ---- operator --------------------------------------------------------------------------
  {
    const role = "operator";
    const { context, page } = await signIn(role, { width: 1920, height: 1080 });
    const links = await page.locator("#nav a").allInnerTexts();
    check(
      "operator: every section is offered",
      ["Find", "Statements", "Fiscal", "Resend", "Erasure", "Charts"].every((s) => links.some((l) => l.includes(s))),
      links.join(", "),
    );
    await page.goto(`${origin}/console/#/record/${story.id}`);
    await page.locator("#s-events").waitFor({ timeout: 15_000 });
    await shoot(page, role, "record");
    receiver.recover();
    const received = receiver.received.length;
    await page.getByRole("button", { name: `Resend receipt.paid ${failedEvent.id}` }).click();
    await page.locator("#status", { hasText: "queued for delivery again" }).waitFor({ timeout: 15_000 });
    check("operator: Resend says the event is queued again", true);
    await until("the receiver getting the resent receipt.paid", 30_000, () => receiver.received.slice(received).includes(failedEvent.id));
    check("operator: the receiver got the resent receipt.paid", true);
    await until("the page showing it delivered", 30_000, async () => {
      await page.reload();
      await page.locator("#s-events").waitFor({ timeout: 15_000 });
      return (await page.locator(".event h3", { hasText: failedEvent.id }).innerText()).includes("delivered");
    });
    check("operator: the timeline shows the failed attempts, then the delivered one", true);
    await shoot(page, role, "record-resent");

    await page.goto(`${origin}/console/#/erasures`);
    await page.waitForFunction(() => /request/.test(document.getElementById("screen").innerText), null, { timeout: 15_000 });
    check("operator: erasure requests answer", !flat(await page.locator("#status").innerText()));
    await shoot(page, role, "erasures");
    await page.goto(`${origin}/console/#/events`);
    await page.getByLabel("Event id").waitFor();
    await shoot(page, role, "events");

    for (const hours of [1, 6, 24]) {
      const { body: charts } = await operation(page, "charts", { hours });
      const names = Object.keys(charts.series ?? {});
      check(
        `operator: ${hours} h: the charts operation answers every chart`,
        CHARTS.every((name) => names.includes(name)),
        names.join(", "),
      );
      await page.goto(`${origin}/console/#/charts/${hours}`);
      await page
        .waitForFunction((n) => document.querySelectorAll("figure.chart .uplot canvas").length >= n, names.length, { timeout: 15_000 })
        .catch(() => {});
      for (const name of names) {
        const figure = page.locator(`figure[data-chart="${name}"]`);
        const drawn = (await figure.locator(".uplot canvas").count()) === 1;
        const said = flat(
          await figure
            .locator(".sr-only")
            .innerText()
            .catch(() => ""),
        );
        const withData = [...said.matchAll(/(?:total|highest) ([\d.]+)/g)].some(([, n]) => Number(n) > 0);
        check(`operator: ${hours} h: ${name} is drawn with data`, drawn && withData, said || "not drawn");
      }
      await shoot(page, role, `charts-${hours}h`);
    }
    const pressed = await page.getByRole("button", { name: "Last 24 h" }).getAttribute("aria-pressed");
    check("operator: the chosen span is pressed (aria-pressed)", pressed === "true");
    await context.close();
  }

  // ---- readable at 1280 and 1920 px --------------------------------------------------------
  for (const width of [1280, 1920]) {
    const { context, page } = await signIn("support", { width, height: 900 });
    await page.goto(`${origin}/console/#/record/${story.id}`);
    await page.locator("#s-audit").waitFor({ timeout: 15_000 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    check(`at ${width} px the record screen needs no sideways scrolling`, overflow <= 0, `${overflow} px too wide`);
    await page.screenshot({ path: `${OUT}/backoffice-support-record-${width}.png`, fullPage: true });
    await context.close();
  }

  check("no request left the gateway", outside.length === 0, [...new Set(outside)].slice(0, 10).join(" "));
  check("no script error and no console error (a CSP violation is one)", pageErrors.length === 0, pageErrors.slice(0, 3).join(" | "));
} catch (err) {
  check("the back office browser test ran", false, err instanceof Error ? (err.stack ?? err.message) : String(err));
  if (gateway) console.log(gateway.log().slice(-3000));
} finally {
  await browser?.close().catch(() => {});
  gateway?.stop();
  receiver?.close();
}

finish();
