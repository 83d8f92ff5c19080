#!/usr/bin/env node
/**
 * `npm run restore`: a store of production back to a point in time
 * (docs/production.md, "Backups and restore", says when and in which order).
 *
 *   npm run restore -- d1 <binding> --at <ISO time> [--dry-run]
 *       One D1 database (DB, or a database of TID_INDEX_SHARDS) with Time
 *       Travel: names the bookmark of that time first, then restores to that
 *       bookmark (wrangler asks to confirm), and prints the bookmark that
 *       undoes it. Read before and put back after: the tid claims made or
 *       changed since the time (creates the upstream has made; --drop-claims
 *       leaves them out when they are the damage), and for DB the erasure
 *       requests made since (they live nowhere else). --dry-run reads the
 *       bookmarks and the counts, and changes nothing.
 *
 *   npm run restore -- record <receipt|transfer> <id> --at <ISO time> [--dry-run] [--url <gateway>]
 *       One record's Durable Object, through the gateway's restore path
 *       (src/operations/restore.ts), which is there only while the secret
 *       RESTORE_KEY_HASH is set; the key itself is read from the environment
 *       variable RESTORE_KEY, never from the command line. --dry-run names
 *       the bookmark and changes nothing.
 *
 *   npm run restore -- records --at <ISO time> [--dry-run] [--url <gateway>] [--save <file> | --from <file>]
 *       Every record with an event logged since the time (read from each
 *       database of the event log), one at a time through the same path.
 *       Records created since the time are listed and left alone. --save
 *       writes that list (with --dry-run: and restores nothing); --from
 *       reads it instead of the event log, for a restore of the records
 *       after the event log's own.
 *
 *   --config <wrangler.toml>   another configuration file
 *   --url <gateway>            default: production's route in wrangler.toml
 *
 * Prints no secret and no user's sub: the erasures saved before a D1
 * restore go to a file of their own (mode 0600), deleted once put back.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import { fileURLToPath } from "node:url";
import { unstable_readConfig } from "wrangler";
import { d1Bindings, deploymentUrls } from "../src/config/config-rules.ts";
import { WRANGLER } from "./build.mjs";
import { commandLine } from "./cli.mjs";
import {
  bookmarkCommand,
  bookmarkOf,
  changedRecordsQuery,
  claimsReinsertSql,
  claimsSinceQuery,
  currentBookmarkCommand,
  erasuresReinsertSql,
  erasuresSinceQuery,
  fileCommand,
  parseRestoreArgs,
  queryCommand,
  RestoreUsageError,
  recordsToRestore,
  restoreCommand,
  rowsOf,
} from "./restore-plan.mjs";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

const { values: options, positionals } = commandLine("restore", import.meta.url, {
  allowPositionals: true,
  options: {
    at: { type: "string" },
    "dry-run": { type: "boolean", default: false },
    url: { type: "string" },
    "drop-claims": { type: "boolean", default: false },
    save: { type: "string" },
    from: { type: "string" },
    config: { type: "string", default: join(ROOT, "wrangler.toml") },
    help: { type: "boolean", short: "h", default: false },
  },
});

const configPath = resolve(options.config);
const production = unstable_readConfig({ config: configPath, env: "production" }, { hideWarnings: true });
const bindings = d1Bindings(production.vars ?? {});

let plan;
try {
  plan = parseRestoreArgs(positionals, options, { now: Date.now(), bindings });
} catch (err) {
  if (!(err instanceof RestoreUsageError)) throw err;
  console.error(`  ✗ ${err.message}`);
  process.exit(2);
}

const step = (text) => console.log(`\n▶ ${text}`);
const fail = (line) => {
  console.error(`  ✗ ${line}`);
  process.exit(1);
};

/** Runs a wrangler command; `capture` keeps its output (else the terminal is attached: it may ask to confirm). */
function wrangler({ args }, { capture = false } = {}) {
  const result = spawnSync(process.execPath, [WRANGLER, ...args, "--config", configPath], {
    cwd: ROOT,
    stdio: capture ? ["inherit", "pipe", "pipe"] : "inherit",
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  });
  return { status: result.status ?? 1, stdout: result.stdout ?? "", stderr: result.stderr ?? "" };
}

/** A read-only wrangler command whose JSON answer is needed. */
function read(command, parse) {
  console.log(`  $ wrangler ${command.args.join(" ")}`);
  const result = wrangler(command, { capture: true });
  if (result.status !== 0) {
    process.stderr.write(result.stderr);
    fail(`${command.why} failed (logged in? npx wrangler whoami). Nothing was restored.`);
  }
  return parse(result.stdout);
}

if (plan.mode === "d1") await restoreD1(plan);
else await restoreRecords(plan);

async function restoreD1({ binding, at, atMs, dryRun }) {
  const database = (production.d1_databases ?? []).find((d) => d.binding === binding);
  step(`D1 ${binding} (${database?.database_name ?? "?"}) to ${at}`);
  const bookmark = read(bookmarkCommand(binding, at), bookmarkOf);
  const undo = read(currentBookmarkCommand(binding), bookmarkOf);
  console.log(`  restores to bookmark ${bookmark} (the state at ${at})`);
  console.log(`  undo with: npx wrangler d1 time-travel restore ${binding} --bookmark ${undo} --env production`);

  // What the restore would lose that is no damage: read first, put back after. Claims are facts about upstream creates.
  const claims = options["drop-claims"] ? [] : read(queryCommand(binding, claimsSinceQuery(atMs)), rowsOf);
  console.log(
    options["drop-claims"]
      ? "  the tid claims made since the time are not put back (--drop-claims)"
      : `  ${claims.length} tid claim(s) made or changed since ${at}: saved before the restore, put back after it`,
  );
  // The erasure requests live in DB alone.
  const erasures = binding === "DB" ? read(queryCommand(binding, erasuresSinceQuery(atMs)), rowsOf) : [];
  if (binding === "DB")
    console.log(`  ${erasures.length} erasure request(s) made or renewed since ${at}: saved before the restore, put back after it`);
  if (dryRun) {
    console.log(`\n✓ Dry run: nothing was restored. Without --dry-run: npx wrangler ${restoreCommand(binding, bookmark).args.join(" ")}`);
    return;
  }
  // Users' subs and tids: a file only the operator reads, deleted once put back.
  const dir = mkdtempSync(join(tmpdir(), "payments-gateway-restore-"));
  const saved = join(dir, "put-back.sql");
  const putBack = [claimsReinsertSql(claims), erasuresReinsertSql(erasures)].filter(Boolean).join("\n");
  if (putBack) writeFileSync(saved, `${putBack}\n`, { mode: 0o600 });

  step(`wrangler ${restoreCommand(binding, bookmark).args.join(" ")}`);
  if (wrangler(restoreCommand(binding, bookmark)).status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    fail(`the restore of ${binding} failed or was not confirmed; nothing changed.`);
  }
  if (putBack) {
    step(`${claims.length} tid claim(s) and ${erasures.length} erasure request(s) put back`);
    if (wrangler(fileCommand(binding, saved)).status !== 0) {
      fail(
        `putting them back failed: run \`npx wrangler d1 execute ${binding} --remote --env production --yes --file ${saved}\` (it holds users' subs: delete it afterwards).`,
      );
    }
  }
  rmSync(dir, { recursive: true, force: true });
  console.log(
    `\n✓ ${binding} is at ${at} (bookmark ${bookmark}), with what was put back. Undo: npx wrangler d1 time-travel restore ${binding} --bookmark ${undo} --env production`,
  );
  console.log('  Next: docs/production.md, "Backups and restore": the records, if they go back too, and what to tell the partner.');
}

async function restoreRecords({ mode, kind, id, at, atMs, dryRun }) {
  const key = process.env.RESTORE_KEY ?? "";
  if (!key && !(mode === "records" && options.save && dryRun)) {
    fail("set RESTORE_KEY to the restore key (its SHA-256 is the secret RESTORE_KEY_HASH: docs/production.md).");
  }
  const url = (options.url ?? deploymentUrls(production)[0] ?? "").replace(/\/+$/, "");
  if (!url) fail("no gateway address: pass --url https://<gateway>.");

  let records = [{ kind, id }];
  if (mode === "records" && options.from) {
    records = JSON.parse(readFileSync(resolve(options.from), "utf8"));
    step(`${records.length} record(s) listed in ${options.from}`);
  } else if (mode === "records") {
    step(`the records with an event logged since ${at}, from each database of the event log`);
    const rows = bindings.flatMap((binding) => read(queryCommand(binding, changedRecordsQuery(atMs)), rowsOf));
    const { restore, createdSince } = recordsToRestore(rows);
    console.log(`  ${restore.length} record(s) to restore; ${createdSince.length} created since ${at} (left alone: nothing of them to restore to)`);
    for (const record of createdSince) console.log(`    created since: ${record.kind} ${record.id}`);
    records = restore;
    if (options.save) {
      writeFileSync(resolve(options.save), `${JSON.stringify(records, null, 2)}\n`);
      console.log(`  the list is in ${options.save}: npm run restore -- records --at ${at} --from ${options.save}`);
      if (dryRun) return;
    }
  }
  if (mode === "records" && !dryRun && records.length > 0) {
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    const answer = await rl.question(`  Restore these ${records.length} record(s) to ${at}? (y/N) `);
    rl.close();
    if (answer.trim().toLowerCase() !== "y") fail("not confirmed; nothing was restored.");
  }

  let failed = 0;
  for (const record of records) {
    step(`${record.kind} ${record.id} to ${at}${dryRun ? " (dry run)" : ""}`);
    let res;
    try {
      res = await fetch(`${url}/api/v1/operator/restore`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify({ kind: record.kind, id: record.id, at, dry_run: dryRun }),
        signal: AbortSignal.timeout(60_000),
      });
    } catch (err) {
      fail(`${url} did not answer: ${err instanceof Error ? err.message : err}`);
    }
    const text = await res.text();
    if (res.status === 404 && mode === "record") fail(`${url} has no restore path: set RESTORE_KEY_HASH first (docs/production.md).`);
    if (res.status !== 200) {
      failed++;
      console.error(`  ✗ ${res.status} ${text.slice(0, 600)}`);
      continue;
    }
    const answer = JSON.parse(text);
    console.log(`  bookmark ${answer.bookmark}; undo bookmark ${answer.undo_bookmark}`);
    console.log(`  before: ${JSON.stringify(answer.before)}; ${dryRun ? "nothing was restored" : `after: ${JSON.stringify(answer.record)}`}`);
  }
  if (failed > 0)
    fail(mode === "record" ? "not restored (above)." : `${failed} of ${records.length} record(s) were not restored (above); the others were.`);
  console.log(`\n✓ ${dryRun ? "Dry run: nothing was restored." : `${records.length} record(s) restored to ${at}.`}`);
}
