/**
 * `npm run restore` (scripts/restore.mjs), offline: what it refuses, the
 * wrangler commands of a D1 restore (the bookmark of the time named first,
 * then restored to by that bookmark), and its SQL run on the gateway's own
 * schema: the erasure requests a restore of DB would lose, saved and put
 * back open; the records an every-record restore takes from the event log.
 */
import { env } from "cloudflare:workers";
import { ulid } from "ulid";
import { describe, expect, it } from "vitest";
import {
  bookmarkCommand,
  bookmarkOf,
  CLAIM_TABLES,
  CREATED_EVENT_CODES,
  changedRecordsQuery,
  claimsReinsertSql,
  claimsSinceQuery,
  erasuresReinsertSql,
  erasuresSinceQuery,
  parseRestoreArgs,
  EVENT_TABLES as RESTORE_EVENT_TABLES,
  recordsToRestore,
  restoreCommand,
  rowsOf,
  TRANSFER_EVENT_CODES,
} from "../../scripts/restore-plan.mjs";
import { d1Bindings } from "../../src/config/config-rules";
import { EVENT_TABLES, EVENT_TYPE_CODES } from "../../src/events/log-database";
import { TID_TABLES } from "../../src/tids/tid-index";

const NOW = Date.parse("2026-11-27T12:00:00Z");
const bindings = ["DB", "DB_TID_1"];
const parse = (positionals: string[], values: { at?: string; "dry-run"?: boolean } = {}) =>
  parseRestoreArgs(positionals, values, { now: NOW, bindings });

describe("npm run restore's arguments", () => {
  it("refuses to restore without a time, and names the option", () => {
    expect(() => parse(["d1", "DB"])).toThrow("--at <ISO time> is required");
    expect(() => parse(["record", "receipt", "r-1"])).toThrow("--at <ISO time> is required");
    expect(() => parse(["records"], { "dry-run": true })).toThrow("--at <ISO time> is required");
  });

  it("takes an ISO time with its offset, in the past, within the 30 days of point-in-time recovery", () => {
    expect(parse(["d1", "DB"], { at: "2026-11-27T10:00:00Z" })).toMatchObject({
      mode: "d1",
      binding: "DB",
      atMs: Date.parse("2026-11-27T10:00:00Z"),
    });
    expect(() => parse(["d1", "DB"], { at: "2026-11-27 10:00" })).toThrow("is not an ISO 8601 time with its offset");
    expect(() => parse(["d1", "DB"], { at: "2026-11-27T10:00:00" })).toThrow("is not an ISO 8601 time with its offset");
    expect(() => parse(["d1", "DB"], { at: "2026-11-28T10:00:00Z" })).toThrow("is in the future");
    expect(() => parse(["d1", "DB"], { at: "2026-10-27T10:00:00Z" })).toThrow("more than 30 days ago");
  });

  it("restores only a D1 binding production uses, and names them", () => {
    expect(parse(["d1", "DB_TID_1"], { at: "2026-11-27T10:00:00Z" }).binding).toBe("DB_TID_1");
    expect(() => parse(["d1", "payments-gateway"], { at: "2026-11-27T10:00:00Z" })).toThrow("is not a D1 binding of [env.production]");
    // The committed production configuration: DB alone.
    expect(d1Bindings(env.TEST_WRANGLER_PRODUCTION.vars ?? {})).toEqual(["DB"]);
  });

  it("takes a record by kind and id, and every record with no operand", () => {
    expect(parse(["record", "transfer", "t-1"], { at: "2026-11-27T10:00:00Z", "dry-run": true })).toMatchObject({
      mode: "record",
      kind: "transfer",
      id: "t-1",
      dryRun: true,
    });
    expect(() => parse(["record", "r-1"], { at: "2026-11-27T10:00:00Z" })).toThrow("record takes a kind");
    expect(() => parse(["records", "r-1"], { at: "2026-11-27T10:00:00Z" })).toThrow("records takes no operand");
  });
});

describe("a D1 restore's wrangler commands", () => {
  it("name the bookmark of the time first, then restore to that bookmark, never to a time read again", () => {
    expect(bookmarkCommand("DB_TID_1", "2026-11-27T10:00:00Z").args).toEqual([
      "d1",
      "time-travel",
      "info",
      "DB_TID_1",
      "--timestamp",
      "2026-11-27T10:00:00Z",
      "--json",
      "--env",
      "production",
    ]);
    expect(restoreCommand("DB_TID_1", "00000085-0000024c-00004c6d-8e61117bf38d7adb71b934ebbf891683").args).toEqual([
      "d1",
      "time-travel",
      "restore",
      "DB_TID_1",
      "--bookmark",
      "00000085-0000024c-00004c6d-8e61117bf38d7adb71b934ebbf891683",
      "--env",
      "production",
    ]);
  });

  it("read wrangler's JSON answers", () => {
    expect(bookmarkOf('{\n  "bookmark": "00000085-0000024c-00004c6d-8e61117bf38d7adb71b934ebbf891683"\n}')).toBe(
      "00000085-0000024c-00004c6d-8e61117bf38d7adb71b934ebbf891683",
    );
    expect(rowsOf('[{"results":[{"user":"a","requested_at":1}],"success":true,"meta":{}}]')).toEqual([{ user: "a", requested_at: 1 }]);
  });
});

describe("the erasure requests of DB, across its restore", () => {
  it("those made or renewed since the time are read before and put back open, quotes and all", async () => {
    // Far from any other test's requests, so the cron of another test never meets these.
    const at = NOW + 400 * 86_400_000;
    const users = [`before-${crypto.randomUUID()}`, `o'since-${crypto.randomUUID()}`, `renewed-${crypto.randomUUID()}`];
    try {
      await env.DB.batch([
        env.DB.prepare("INSERT INTO erasures (user, requested_at, done_at) VALUES (?1, ?2, ?2)").bind(users[0], at - 1),
        env.DB.prepare("INSERT INTO erasures (user, requested_at) VALUES (?1, ?2)").bind(users[1], at + 5),
        env.DB.prepare("INSERT INTO erasures (user, requested_at, done_at) VALUES (?1, ?2, ?3)").bind(users[2], at + 9, at + 60_000),
      ]);
      const { results: saved } = await env.DB.prepare(erasuresSinceQuery(at)).all<{ user: string; requested_at: number }>();
      const mine = saved.filter((row) => users.includes(row.user));
      expect(mine.map((row) => row.user)).toEqual([users[1], users[2]]);

      // The restore takes DB back: the one made since is gone, the renewed one is as it was before (done, earlier).
      await env.DB.batch([
        env.DB.prepare("DELETE FROM erasures WHERE user = ?").bind(users[1]),
        env.DB.prepare("UPDATE erasures SET requested_at = ?1, done_at = ?1 WHERE user = ?2").bind(at - 100, users[2]),
      ]);
      await env.DB.exec(erasuresReinsertSql(mine).replaceAll("\n", " "));
      const { results: after } = await env.DB.prepare(
        `SELECT user, requested_at, cursor, done_at FROM erasures WHERE user IN (?, ?, ?) ORDER BY requested_at`,
      )
        .bind(...users)
        .all();
      expect(after).toEqual([
        { user: users[0], requested_at: at - 1, cursor: null, done_at: at - 1 },
        { user: users[1], requested_at: at + 5, cursor: null, done_at: null },
        { user: users[2], requested_at: at + 9, cursor: null, done_at: null },
      ]);
    } finally {
      await env.DB.prepare("DELETE FROM erasures WHERE user IN (?, ?, ?)")
        .bind(...users)
        .run();
    }
  });
});

describe("the tid claims of a database, across its restore", () => {
  it("those made or changed since the time are read before and put back as they were, blobs and all; older ones stay as restored", async () => {
    const at = NOW + 400 * 86_400_000;
    const owner = `user:o'restore-${crypto.randomUUID()}`;
    const row = (tid: string, created: number, updated: number, receiptId: string | null) => ({
      owner,
      tid,
      upstream_tid: crypto.getRandomValues(new Uint8Array(16)),
      kind: 0,
      status: receiptId === null ? 0 : 1,
      fingerprint: crypto.getRandomValues(new Uint8Array(32)),
      claim_token: receiptId === null ? "claim-token" : null,
      receipt_id: receiptId,
      created_at: created,
      updated_at: updated,
    });
    const rows = [row("old", at - 10, at - 5, "r-old"), row("completed-since", at - 10, at + 5, "r-done"), row("new", at + 1, at + 1, null)];
    // A claim in a slot of the ring (src/tids/tid-index.ts), completed since the time.
    const inSlot = row("slot-since", at - 10, at + 7, "r-slot");
    const columns = Object.keys(rows[0]!);
    const dump = async () =>
      (
        await env.DB.prepare(
          `SELECT * FROM (SELECT ${columns.join(", ")} FROM tid_index WHERE owner = ?1 UNION ALL SELECT ${columns.join(", ")} FROM tid_index_3 WHERE owner = ?1) ORDER BY tid`,
        )
          .bind(owner)
          .all()
      ).results.map((r) => ({
        ...r,
        upstream_tid: [...new Uint8Array(r.upstream_tid as ArrayBuffer)],
        fingerprint: [...new Uint8Array(r.fingerprint as ArrayBuffer)],
      }));
    try {
      await env.DB.batch([
        ...rows.map((r) =>
          env.DB.prepare(`INSERT INTO tid_index (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`).bind(...Object.values(r)),
        ),
        env.DB.prepare(`INSERT INTO tid_index_3 (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`).bind(
          ...Object.values(inSlot),
        ),
      ]);
      const before = await dump();
      const { results: saved } = await env.DB.prepare(claimsSinceQuery(at)).all();
      const mine = saved.filter((r) => r.owner === owner);
      expect(mine.map((r) => r.tid)).toEqual(["completed-since", "new", "slot-since"]);

      // The restore takes the database back: the new claim is gone, the completed one is in progress again.
      await env.DB.batch([
        env.DB.prepare("DELETE FROM tid_index WHERE owner = ? AND tid = 'new'").bind(owner),
        env.DB.prepare(
          "UPDATE tid_index SET status = 0, receipt_id = NULL, claim_token = 'claim-token', updated_at = ?2 WHERE owner = ?1 AND tid = 'completed-since'",
        ).bind(owner, at - 10),
        // The slot's row as the restore took it back: still in progress.
        env.DB.prepare(
          "UPDATE tid_index_3 SET status = 0, receipt_id = NULL, claim_token = 'claim-token', updated_at = ?2 WHERE owner = ?1 AND tid = 'slot-since'",
        ).bind(owner, at - 10),
      ]);
      await env.DB.exec(claimsReinsertSql(mine).replaceAll("\n", " "));
      expect(await dump()).toEqual(before);
    } finally {
      await env.DB.prepare("DELETE FROM tid_index WHERE owner = ?").bind(owner).run();
      await env.DB.prepare("DELETE FROM tid_index_3 WHERE owner = ?").bind(owner).run();
    }
  });
});

describe("an every-record restore", () => {
  it("takes each record with an event logged since the time, by kind, and leaves out those created since, from every table of the log", async () => {
    const at = NOW + 400 * 86_400_000;
    const id = () => `restore-plan-${crypto.randomUUID()}`;
    const [old, paid, transfer, created] = [id(), id(), id(), id()];
    const events: [string, string, number][] = [
      [`evt_${ulid(at - 1)}`, old, EVENT_TYPE_CODES["receipt.paid"]],
      [`evt_${ulid(at)}`, paid, EVENT_TYPE_CODES["receipt.paid"]],
      [`evt_${ulid(at + 1)}`, transfer, EVENT_TYPE_CODES["transfer.paid"]],
      [`evt_${ulid(at + 2)}`, created, EVENT_TYPE_CODES["receipt.created"]],
      [`evt_${ulid(at + 3)}`, created, EVENT_TYPE_CODES["receipt.paid"]],
    ];
    // Over the old table and the ring's slots, a record's two events in two of them.
    const tableOf = (i: number) => ["events", "events_3", "events_7", "events_0", "events_5"][i]!;
    try {
      await env.DB.batch(
        events.map(([eventId, recordId, type], i) =>
          env.DB.prepare(`INSERT INTO ${tableOf(i)} (id, record_id, type) VALUES (?, ?, ?)`).bind(eventId, recordId, type),
        ),
      );
      const { results } = await env.DB.prepare(changedRecordsQuery(at)).all<{ record_id: string; types: string }>();
      const mine = results.filter((row) => [old, paid, transfer, created].includes(row.record_id));
      const { restore, createdSince } = recordsToRestore(mine);
      expect(restore.sort((a, b) => a.kind.localeCompare(b.kind))).toEqual([
        { kind: "receipt", id: paid },
        { kind: "transfer", id: transfer },
      ]);
      expect(createdSince).toEqual([{ kind: "receipt", id: created }]);
    } finally {
      await env.DB.batch(events.map(([eventId], i) => env.DB.prepare(`DELETE FROM ${tableOf(i)} WHERE id = ?`).bind(eventId)));
    }
  });

  it("reads the event log's own tables", () => {
    expect(RESTORE_EVENT_TABLES).toEqual(EVENT_TABLES);
  });

  it("reads and puts back the tid index's own tables", () => {
    expect(CLAIM_TABLES).toEqual(TID_TABLES);
  });

  it("knows a transfer's events and the creations by the event log's own codes", () => {
    const codes = Object.entries(EVENT_TYPE_CODES);
    expect(TRANSFER_EVENT_CODES).toEqual(codes.filter(([type]) => type.startsWith("transfer.")).map(([, code]) => code));
    expect(CREATED_EVENT_CODES).toEqual([EVENT_TYPE_CODES["receipt.created"], EVENT_TYPE_CODES["transfer.created"]]);
  });
});
