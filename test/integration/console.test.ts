/**
 * The sandbox console at /__sandbox/ (local development only): what a
 * developer's browser gets from the pages, and that the production entry has
 * none of it. The Chromium walk-through is scripts/console-browser-test.mjs.
 */
import { createExecutionContext, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { tidShards } from "../../src/d1/shards";
import worker from "../../src/index";
import { receiptStub } from "../../src/record/receipt-object";
import type { KindName } from "../../src/rules/lifecycle";
import { eventRow, logRows, queueSpy, recordEventsDb, unsentEvents } from "../events";
import { call, createReceipt, expectError, expectStatus, newTid, newUser, OTP_OK, refuseStatements, transferRequest, userToken } from "../helpers";

const ORIGIN = "http://gateway.test";
const CONSOLE = `${ORIGIN}/__sandbox/`;

let queue: ReturnType<typeof queueSpy>;
beforeEach(() => {
  queue = queueSpy();
});
afterEach(() => vi.restoreAllMocks());

const get = (path: string) => exports.default.fetch(`${ORIGIN}${path}`);

/** A page as the browser gets it: 200 (or `status`), HTML. */
async function pageAt(path: string, status = 200): Promise<string> {
  const res = await get(path);
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^text\/html/);
  return text;
}

/** The table row of the list that holds `needle`. */
function rowWith(page: string, needle: string): string {
  const row = page.split("<tr").find((chunk) => chunk.includes(needle));
  expect(row, `no row holds ${needle}`).toBeDefined();
  return row!.split("</tr>")[0]!;
}

/** The page's visible text, tags dropped, whitespace collapsed (entities left as they are). */
const textOf = (page: string) => page.replace(/<[^>]*>/g, " ").replace(/\s+/g, " ");

/** Drains the record's outbox into the event log and the queue, and has the queue's consumer deliver its events. */
async function logEvents(kind: KindName, id: string): Promise<void> {
  const stub = receiptStub(env, kind, id);
  for (let round = 0; round < 5; round++) {
    if ((await unsentEvents(kind, id)) === 0) break;
    await runDurableObjectAlarm(stub);
  }
  await queue.deliver(id);
}

/** A receipt of merchant 1001 (OTP), authorized and paid. */
async function paidReceipt(options: { token?: string } = {}): Promise<any> {
  const receipt = await createReceipt({}, options);
  await expectStatus(call("receipt/authorize", { id: receipt.id, card: { token: "tok_sandbox_ok" } }, options), 200);
  return expectStatus(call("receipt/pay", { id: receipt.id, card: { token: "tok_sandbox_ok" }, otp: OTP_OK }, options), 200);
}

/** A form POST as Chromium sends it from the console's own page. */
const resend = (eventId: string, origin = ORIGIN) =>
  exports.default.fetch(`${ORIGIN}/__sandbox/events/${encodeURIComponent(eventId)}/resend`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin },
    body: "",
    redirect: "manual",
  });

describe("GET /__sandbox/", () => {
  it("says how to get started when the gateway holds no record yet", async () => {
    for (const { db } of tidShards(env)) await db.exec("DELETE FROM tid_index");
    const page = await pageAt("/__sandbox/");
    expect(textOf(page)).toContain("No receipts yet — run the README's walk-through");
    expect(page).not.toContain("<table");
  });

  it("is where /__sandbox, typed without its slash, sends the browser", async () => {
    const res = await exports.default.fetch(`${ORIGIN}/__sandbox`, { redirect: "manual" });
    expect(res.status).toBe(301);
    expect(res.headers.get("location")).toBe(CONSOLE);
  });

  it("is an HTML page that loads nothing from elsewhere and runs no script, as is the record page", async () => {
    const receipt = await createReceipt();
    for (const path of ["/__sandbox/", `/__sandbox/receipts/${receipt.id}/view`]) {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/html; charset=UTF-8");
      expect(res.headers.get("cache-control")).toBe("no-store");
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'none'");
      expect(csp).toContain("style-src 'self' 'unsafe-inline'");
      expect(csp).toContain("form-action 'self'");
      const page = await res.text();
      expect(page).not.toMatch(/<script|<link rel="stylesheet"|@import|url\(/i);
      expect(page).not.toMatch(/(src|href|action)="(https?:)?\/\//i);
    }
  });

  it("lists a created and paid receipt, newest first, with owner, tid, state name, amount and age", async () => {
    const older = await createReceipt({ merchant_id: 1003 });
    const paid = await paidReceipt();
    const page = await pageAt("/__sandbox/");

    const row = textOf(rowWith(page, paid.id));
    expect(row).toContain("receipt");
    expect(row).toContain("partner");
    expect(row).toContain(paid.tid);
    expect(row).toContain("4 paid");
    expect(row).toContain("1,500.00 sum (150000 tiyin)");
    expect(row).toMatch(/\d+ s/);
    expect(rowWith(page, paid.id)).toContain(`href="/__sandbox/receipts/${paid.id}/view"`);
    expect(textOf(rowWith(page, older.id))).toContain("0 created");
    expect(page.indexOf(paid.id)).toBeLessThan(page.indexOf(older.id));
  });

  it("shows a user's receipt under the user's sub, and a transfer with its own link", async () => {
    const user = newUser("console");
    const token = await userToken(user);
    const receipt = await createReceipt({}, { token });
    const transfer = await expectStatus(call("a2c/create", transferRequest(), { token }), 200);
    const page = await pageAt("/__sandbox/");
    expect(textOf(rowWith(page, receipt.id))).toContain(user);
    const row = rowWith(page, transfer.receipt_id);
    expect(textOf(row)).toContain("transfer");
    expect(textOf(row)).toContain("5,000.00 sum");
    expect(row).toContain(`href="/__sandbox/a2c/${transfer.receipt_id}/view"`);
  });

  it("shows the state a read found (an event, with no audit entry), not the audit trail's older one", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    // Paid at the payment service behind the gateway's back; the next check-id finds it.
    await runInDurableObject(env.SANDBOX!.get(env.SANDBOX!.idFromName("sandbox")), (_i, state) => {
      state.storage.sql.exec("UPDATE receipts SET state = 4, paid_ms = ? WHERE id = ?", Date.now(), receipt.id);
    });
    await expectStatus(call("receipt/check-id", { id: receipt.id }), 200);
    await logEvents("receipt", receipt.id);
    expect(textOf(rowWith(await pageAt("/__sandbox/"), receipt.id))).toContain("4 paid");
  });

  it("lists a create that has not settled yet, without a link", async () => {
    const tid = newTid("unsettled");
    await env.DB.prepare(
      `INSERT INTO tid_index (owner, tid, upstream_tid, kind, status, fingerprint, claim_token, created_at, updated_at)
       VALUES ('partner:partner', ?1, NULL, 0, 0, randomblob(16), 'c', ?2, ?2)`,
    )
      .bind(tid, Date.now())
      .run();
    const row = rowWith(await pageAt("/__sandbox/"), tid);
    expect(textOf(row)).toContain("create not settled");
    expect(row).not.toContain("href=");
  });
});

describe("GET /__sandbox/receipts/{id}/view", () => {
  it("shows the record's state, its audit trail, its events with delivery status and the upstream calls, in time order", async () => {
    const paid = await paidReceipt();
    await logEvents("receipt", paid.id);
    const page = await pageAt(`/__sandbox/receipts/${paid.id}/view`);
    const text = textOf(page);

    expect(text).toContain(`Receipt ${paid.id} 4 paid`);
    expect(text).toContain(paid.tid);

    const timeline = page.slice(page.indexOf('id="timeline"'), page.indexOf('id="events"'));
    const at = (needle: string) => {
      const index = timeline.indexOf(needle);
      expect(index, needle).toBeGreaterThan(-1);
      return index;
    };
    // Each call comes before what it caused; an event and its audit entry are one storage step, in either order.
    const steps = [
      ["receipt/create", ["receipt.created", "create</code> by partner"]],
      ["receipt/authorize", ["authorize</code> by partner"]],
      ["receipt/pay", ["receipt.paid", "pay</code> by partner"]],
    ] as const;
    for (const [i, [request, caused]] of steps.entries()) {
      for (const effect of caused) {
        expect(at(request), `${request} before ${effect}`).toBeLessThan(at(effect));
        const next = steps[i + 1];
        if (next) expect(at(effect), `${effect} before ${next[0]}`).toBeLessThan(at(next[0]));
      }
    }
    expect(textOf(timeline)).toContain("(with an OTP)");

    const events = textOf(page.slice(page.indexOf('id="events"'), page.indexOf('id="calls"')));
    expect(events).toMatch(/1 receipt\.created evt_\w+ .* delivered 1 204/);
    expect(events).toMatch(/2 receipt\.paid evt_\w+ .* delivered 1 204/);

    const calls = textOf(page.slice(page.indexOf('id="calls"'), page.indexOf('id="audit"')));
    expect(calls.match(/POST receipt\/\S+ 200/g)).toEqual(["POST receipt/create 200", "POST receipt/authorize 200", "POST receipt/pay 200"]);

    const audit = textOf(page.slice(page.indexOf('id="audit"'), page.indexOf('id="record"')));
    expect(audit).toMatch(/create partner ok 0 created/);
    expect(audit).toMatch(/pay partner ok 4 paid/);

    // The record as the partner received it, tid and all, not masked a second time.
    const record = page.slice(page.indexOf('id="record"'));
    expect(record).toContain(`&quot;tid&quot;: &quot;${paid.tid}&quot;`);
    expect(record).toContain(`&quot;state&quot;: 4`);
  });

  it("shows masked card numbers only, never the OTP, the card token or a card number", async () => {
    const paid = await paidReceipt();
    await logEvents("receipt", paid.id);
    expect(paid.card_number).toMatch(/^\d{6}\*+\d{4}$/);
    expect(await pageAt(`/__sandbox/receipts/${paid.id}/view`)).toContain(`&quot;card_number&quot;: &quot;${paid.card_number}&quot;`);

    const user = newUser("card");
    const token = await userToken(user);
    const card = { number: "8600000000000007", expire: "3012" };
    const receipt = await createReceipt({ merchant_id: 1003 }, { token });
    await expectStatus(call("receipt/anonymous/authorize", { id: receipt.id, card }, { token }), 200);
    await expectStatus(call("receipt/anonymous/pay", { id: receipt.id, card, otp: OTP_OK }, { token }), 200);
    await logEvents("receipt", receipt.id);
    for (const page of [await pageAt(`/__sandbox/receipts/${receipt.id}/view`), await pageAt("/__sandbox/")]) {
      expect(page).not.toContain(card.number);
      expect(page).not.toContain(card.expire);
      expect(page).not.toContain(OTP_OK);
      expect(page).not.toContain(token);
      expect(page).not.toContain("tok_sandbox");
    }
  });

  it("reads well before any event is logged", async () => {
    // The event log refuses the receipt object's drain (its INSERTs only; the tid claim and the page's reads go through): its events wait in its outbox.
    refuseStatements((sql) => sql.includes("INSERT INTO events"));
    const receipt = await createReceipt();
    const text = textOf(await pageAt(`/__sandbox/receipts/${receipt.id}/view`));
    expect(text).toContain("No events in the event log yet");
    expect(text).toContain("POST receipt/create 200");
  });

  it("shows a transfer at /__sandbox/a2c/{id}/view, and a receipt's id there is not found", async () => {
    const transfer = await expectStatus(call("a2c/create", transferRequest()), 200);
    const receipt = await createReceipt();
    expect(textOf(await pageAt(`/__sandbox/a2c/${transfer.receipt_id}/view`))).toContain(`Transfer ${transfer.receipt_id} 0 created`);
    await pageAt(`/__sandbox/a2c/${receipt.id}/view`, 404);
  });

  it("answers an unknown id with a 404 page, the id escaped, and leaves the JSON views as they were", async () => {
    const page = await pageAt(`/__sandbox/receipts/${encodeURIComponent("<b>nope</b>")}/view`, 404);
    expect(page).toContain("&lt;b&gt;nope&lt;/b&gt;");
    expect(page).not.toContain("<b>nope");
    await pageAt(`/__sandbox/receipts/${"x".repeat(500)}/view`, 404);

    const receipt = await createReceipt();
    const json = await exports.default.fetch(`${ORIGIN}/__sandbox/receipts/${receipt.id}`);
    expect(json.headers.get("content-type")).toMatch(/^application\/json/);
    expect((await json.json()) as any).toMatchObject({ id: receipt.id, otp_attempts: 0 });
    expect(Array.isArray(await (await get(`/__sandbox/calls?id=${receipt.id}`)).json())).toBe(true);
  });
});

describe("escaping", () => {
  it("renders a hostile owner and tid as text, on the list and on the record page", async () => {
    const sub = `<script>alert("sub")</script>`;
    const receipt = await createReceipt({}, { token: await userToken(sub) });
    // The gateway refuses such a tid at the edge; one stored by any other way is shown inert all the same.
    const tid = `<script>alert("tid")</script>`;
    await env.DB.prepare(
      `INSERT INTO tid_index (owner, tid, upstream_tid, kind, status, fingerprint, claim_token, created_at, updated_at)
       VALUES ('user:<img src=x onerror=alert(1)>', ?1, randomblob(16), 0, 0, randomblob(16), 'c', ?2, ?2)`,
    )
      .bind(tid, Date.now())
      .run();

    for (const page of [await pageAt("/__sandbox/"), await pageAt(`/__sandbox/receipts/${receipt.id}/view`)]) {
      expect(page).not.toContain("<script");
      expect(page).not.toContain("<img");
      expect(page).toContain("&lt;script&gt;alert(&quot;sub&quot;)&lt;/script&gt;");
    }
    const list = await pageAt("/__sandbox/");
    expect(list).toContain("&lt;script&gt;alert(&quot;tid&quot;)&lt;/script&gt;");
    expect(list).toContain("&lt;img src=x onerror=alert(1)&gt;");
  });
});

describe("POST /__sandbox/events/{id}/resend", () => {
  it("queues the event again, as events/resend does, and sends the browser back to the record (303)", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await logEvents("receipt", receipt.id);
    const [created] = await logRows<{ id: string }>(await recordEventsDb(receipt.id), "id", "record_id = ?1", receipt.id);
    expect((await eventRow(created!.id))?.delivery_status).toBe("delivered");
    queue.sent.length = 0;

    const page = await pageAt(`/__sandbox/receipts/${receipt.id}/view`);
    expect(page).toContain(`<form class="inline" method="post" action="/__sandbox/events/${created!.id}/resend">`);
    const res = await resend(created!.id);
    expect(res.status).toBe(303);
    const location = res.headers.get("location")!;
    expect(location).toBe(`/__sandbox/receipts/${receipt.id}/view?resent=${created!.id}#events`);

    expect(queue.sent.map((message) => message.id)).toEqual([created!.id]);
    expect((await eventRow(created!.id))?.delivery_status).toBe("pending");
    const after = textOf(await pageAt(location.replace(/#.*/, "")));
    expect(after).toContain(`Event ${created!.id} (receipt.created) is queued for delivery again.`);
    expect(after).toMatch(/receipt\.created evt_\w+ .* pending/);
  });

  it("refuses a POST from another site, and queues nothing", async () => {
    const receipt = await createReceipt({ merchant_id: 1003 });
    await logEvents("receipt", receipt.id);
    const [created] = await logRows<{ id: string }>(await recordEventsDb(receipt.id), "id", "record_id = ?1", receipt.id);
    queue.sent.length = 0;

    const res = await resend(created!.id, "https://elsewhere.example");
    expect(res.status).toBe(403);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(queue.sent).toEqual([]);
    expect((await eventRow(created!.id))?.delivery_status).toBe("delivered");
  });

  it("answers an unknown event with a 404 page", async () => {
    const res = await resend("evt_01JD4Z8K2V6Q9W3X5Y7Z0A1B2C");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(textOf(await res.text())).toContain("No event with this id.");
    expect(queue.sent).toEqual([]);
  });
});

describe("the production entry", () => {
  it("has no /__sandbox route, with every development binding present", async () => {
    for (const path of ["/__sandbox/", "/__sandbox/receipts/x/view", "/__sandbox/calls"]) {
      await expectError(worker.fetch(new Request(`${ORIGIN}${path}`), env, createExecutionContext()), 404, "not_found");
    }
    const post = new Request(`${ORIGIN}/__sandbox/events/evt_01JD4Z8K2V6Q9W3X5Y7Z0A1B2C/resend`, { method: "POST", headers: { origin: ORIGIN } });
    await expectError(worker.fetch(post, env, createExecutionContext()), 404, "not_found");
  });
});
