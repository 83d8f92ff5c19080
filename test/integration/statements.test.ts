/**
 * Rule 16, the daily statement, through the Worker: a day with paid,
 * refunded, held, expired and closed-at-the-edge receipts (and an expired
 * transfer) gives its lines and totals exactly, in CSV and JSON as R2 serves
 * them; a receipt the payment service changed behind the gateway's back is
 * under mismatches; the files are the partner's only.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { receiptStub } from "../../src/record/receipt-object";
import { clock } from "../../src/shared/clock";
import { SETTLE_MS, STATEMENT_CRON } from "../../src/statements/api";
import { dateIn, dayBounds } from "../../src/statements/days";
import { callGateway } from "../events";
import { call, createReceipt, expectError, expectStatus, letTimePass, PARTNER_KEY, transferRequest, userToken } from "../helpers";

const TOKEN = { token: "tok_sandbox_ok" };
const HOUR_MS = 3_600_000;
const sandbox = () => env.SANDBOX.get(env.SANDBOX.idFromName("sandbox"));
const settle = (kind: "receipt" | "transfer", id: string) => runDurableObjectAlarm(receiptStub(env, kind, id));

async function paid(amount: number, options: { is_hold?: boolean } = {}) {
  const receipt = await createReceipt({ merchant_id: 1003, amount, ...options });
  await expectStatus(call("receipt/pay", { id: receipt.id, card: TOKEN }), 200);
  return receipt;
}

const file = (date: string, format: "csv" | "json", token = PARTNER_KEY) =>
  exports.default.fetch(`http://gateway.test/api/v1/gateway/statements/${date}.${format}`, { headers: { authorization: `Bearer ${token}` } });

describe("the daily statement", () => {
  it("gives a day's lines and totals exactly, and the receipt changed behind the gateway's back under mismatches", async () => {
    // Three flows left unpaid: rule 12 ends them a day later.
    const expired = await createReceipt({ merchant_id: 1003, amount: 500_000 });
    const qr = await createReceipt({ merchant_id: 1002, amount: 60_000 });
    const transfer = await expectStatus(call("a2c/create", transferRequest({ amount: 700_000 })), 200);
    letTimePass(25 * HOUR_MS);
    for (const id of [expired.id, qr.id]) await settle("receipt", id);
    await settle("transfer", transfer.receipt_id);

    const plain = await paid(100_000);
    const refunded = await paid(200_000);
    await expectStatus(call("receipt/cancel", { id: refunded.id }), 200);
    const changed = await paid(300_000);
    const held = await paid(400_000, { is_hold: true });
    // The payment service cancels one behind the gateway's back.
    await runInDurableObject(sandbox(), (_instance, state) => {
      state.storage.sql.exec("UPDATE receipts SET state = 21 WHERE id = ?", changed.id);
    });
    for (const id of [plain.id, refunded.id, changed.id, held.id]) await settle("receipt", id);

    const date = dateIn(clock.now(), "Asia/Tashkent");
    expect(await expectStatus(callGateway("statements/rebuild", { date }), 202)).toMatchObject({ date, state: "building", complete: false });
    // Its steps, as the object's alarms run them.
    const builder = env.STATEMENT.get(env.STATEMENT.idFromName(date));
    while (await runDurableObjectAlarm(builder));
    expect(await builder.status()).toMatchObject({ date, state: "ready", complete: false, lines: 8, checked: 8, mismatches: 1 });

    const json = await (await file(date, "json")).json<any>();
    const lines = json.lines.map((l: any) => [l.id, l.change, l.amount, l.merchant_id]);
    expect(lines.sort()).toEqual(
      [
        [expired.id, "expired", 500_000, 1003],
        [qr.id, "closed_at_edge", 60_000, 1002],
        [transfer.receipt_id, "expired", 700_000, null],
        [plain.id, "paid", 100_000, 1003],
        [refunded.id, "paid", 200_000, 1003],
        [refunded.id, "refunded", 200_000, 1003],
        [changed.id, "paid", 300_000, 1003],
        [held.id, "held", 400_000, 1003],
      ].sort(),
    );
    // The tid the caller chose, never a derived one; the owner as events show it.
    expect(json.lines.find((l: any) => l.id === plain.id)).toMatchObject({ tid: plain.tid, owner: "partner", kind: "receipt", state: 4 });
    const totals = Object.fromEntries(json.totals.map((t: any) => [`${t.merchant_id}|${t.change}`, [t.count, t.amount, t.amount_sum]]));
    expect(totals).toEqual({
      "1003|paid": [3, 600_000, "6000.00"],
      "1003|refunded": [1, 200_000, "2000.00"],
      "1003|held": [1, 400_000, "4000.00"],
      "1003|expired": [1, 500_000, "5000.00"],
      "1002|closed_at_edge": [1, 60_000, "600.00"],
      "null|expired": [1, 700_000, "7000.00"],
    });
    expect(json.mismatches).toEqual([expect.objectContaining({ id: changed.id, field: "state", statement: "4", upstream: "21" })]);
    expect(json.checked).toBe(8);

    const csv = await file(date, "csv");
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const bytes = new Uint8Array(await csv.arrayBuffer());
    // UTF-8 with its BOM (a decoder drops it: hence the bytes), then the header row.
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = new TextDecoder().decode(bytes);
    expect(text.startsWith("record,date,time,id,kind,tid,owner,merchant_id,change,state,amount_tiyin,amount_sum")).toBe(true);
    const rows = text.split("\r\n").filter(Boolean);
    expect(rows.filter((r) => r.startsWith("line,"))).toHaveLength(8);
    expect(rows.filter((r) => r.startsWith("total,"))).toHaveLength(6);
    expect(rows.filter((r) => r.startsWith("mismatch,"))).toEqual([expect.stringContaining(changed.id)]);
    const commission = json.totals.find((t: any) => t.merchant_id === 1003 && t.change === "paid").commission;
    expect(rows).toContain(`total,${date},,,,,,1003,paid,,600000,6000.00,${commission},${(commission / 100).toFixed(2)},,3,,`);

    const listed = await expectStatus(callGateway("statements/list", {}), 200);
    expect(listed.statements[0]).toMatchObject({ date, state: "ready", lines: 8, mismatches: 1 });
  });

  it("the nightly run: its own cron starts yesterday's statement once the day is over and settled, and only once", async () => {
    const zone = "Asia/Tashkent";
    const today = dateIn(clock.now(), zone);
    const { from } = dayBounds(today, zone);
    const yesterday = dateIn(from - 1, zone);
    const builder = env.STATEMENT.get(env.STATEMENT.idFromName(yesterday));
    // The minute's cron starts nothing; the statements' own, before the day's last events are logged, nothing either.
    await (exports.default as unknown as { scheduled(o: { scheduledTime: Date; cron: string }): Promise<unknown> }).scheduled({
      scheduledTime: new Date(from + SETTLE_MS + 60_000),
      cron: "* * * * *",
    });
    await (exports.default as unknown as { scheduled(o: { scheduledTime: Date; cron: string }): Promise<unknown> }).scheduled({
      scheduledTime: new Date(from + 60_000),
      cron: STATEMENT_CRON,
    });
    expect(await builder.status()).toBeNull();
    await (exports.default as unknown as { scheduled(o: { scheduledTime: Date; cron: string }): Promise<unknown> }).scheduled({
      scheduledTime: new Date(from + SETTLE_MS),
      cron: STATEMENT_CRON,
    });
    expect(await builder.status()).toMatchObject({ date: yesterday, state: "building", complete: true, generation: 1 });
    while (await runDurableObjectAlarm(builder));
    await (exports.default as unknown as { scheduled(o: { scheduledTime: Date; cron: string }): Promise<unknown> }).scheduled({
      scheduledTime: new Date(from + SETTLE_MS + 3_600_000),
      cron: STATEMENT_CRON,
    });
    // Written once: the next hour's run leaves it as it is.
    expect(await builder.status()).toMatchObject({ date: yesterday, state: "ready", generation: 1 });
  });

  it("the files are the partner's: a user is refused, a day not written is 404; a rebuild of a day the log no longer holds whole is refused", async () => {
    await expectError(file("2026-01-01", "csv", await userToken("someone")), 403, "forbidden");
    await expectError(file("2020-01-01", "json"), 404, "not_found");
    await expectError(callGateway("statements/rebuild", { date: "2020-01-01" }), 400, "invalid_request");
    await expectError(callGateway("statements/rebuild", { date: "2099-01-01" }), 400, "invalid_request");
    await expectError(callGateway("statements/rebuild", { date: "2026-02-30" }), 400, "invalid_request");
  });
});
