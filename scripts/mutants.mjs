#!/usr/bin/env node
/**
 * Mutation tests of the money rules:
 *
 *   npm run test:mutants                 every mutation in scripts/mutants.list.mjs
 *   npm run test:mutants -- tid lease    only those whose name contains "tid" or "lease"
 *   npm run test:mutants -- --list       print the names and stop
 *   npm run test:mutants -- --check      check that every mutation still lands, run nothing (npm test runs this)
 *   npm run test:mutants -- --no-baseline  skip the first, unmutated run
 *
 * Each entry of scripts/mutants.list.mjs is a small change of a money rule,
 * anchored to a named definition of src/ and a snippet found exactly once
 * inside it (scripts/mutants-anchor.mjs), wherever the definition's file
 * lives. For each, one at a time, this makes that change and runs the test
 * files the entry names: a test must fail ("killed", with the tests that
 * failed). A mutation whose tests all pass SURVIVED; an entry whose
 * definition is gone or whose snippet does not occur exactly once in it is
 * stale (a change rewrote the rule's code) and fails the run as well,
 * instead of silently testing nothing. The run exits non-zero if anything
 * survived, was stale, or could not run.
 *
 * An entry with `while: "expanding"` changes code that decides only while
 * the record's layout is between the two releases of an incompatible change
 * (src/record/schema.ts: CURRENT_SCHEMA_VERSION above OLDEST_READER_VERSION;
 * with the two equal, a row stamped as this code stamps is settled and the
 * check is never asked). Otherwise it is DORMANT: checked to land, not run,
 * since no test can tell it apart; it runs again with the next expansion.
 *
 * The working tree is never modified: the files git knows (tracked, and new
 * ones not ignored, as they are in the working tree) are copied into a
 * temporary directory, with node_modules symlinked, and the mutations are made
 * and tested there. The copy is removed at the end, on Ctrl-C too. Before the
 * mutations, the same test files run once unmutated: a "kill" by a test that
 * fails anyway would mean nothing.
 *
 * Why not StrykerJS: its vitest runner (@stryker-mutator/vitest-runner 10.1)
 * switches mutants through a global that its setup file sets in the test's
 * context, and with @cloudflare/vitest-plugin the gateway's Worker and Durable
 * Objects do not see it. Tried on src/rules/caller.ts with test/integration/cancel-access.test.ts,
 * it reported `mayAccess = () => undefined` as surviving, a change that fails
 * all three tests when made by hand. (Its TypeScript preprocessing also needs
 * the JavaScript API of TypeScript 5, which the project's TypeScript 7 lacks.)
 * A list of named mutations also reads as the rules it checks.
 */
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { MUTANTS } from "./mutants.list.mjs";
import { indexDefinitions, locate, mutated } from "./mutants-anchor.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** A mutant whose tests run longer than this is ended and counted as killed (it hangs). */
const MUTANT_TIMEOUT_MS = 10 * 60_000;

const args = process.argv.slice(2);
const flags = new Set(args.filter((a) => a.startsWith("--")));
const filters = args.filter((a) => !a.startsWith("--"));
for (const flag of flags) {
  if (!["--list", "--check", "--no-baseline"].includes(flag)) {
    console.error(`unknown flag ${flag}\nusage: npm run test:mutants -- [--list] [--check] [--no-baseline] [name-filter ...]`);
    process.exit(2);
  }
}

const names = new Set();
for (const m of MUTANTS) {
  if (names.has(m.name)) throw new Error(`two mutations are named ${m.name}`);
  names.add(m.name);
}
const selected = MUTANTS.filter((m) => filters.length === 0 || filters.some((f) => m.name.includes(f)));
if (flags.has("--list")) {
  for (const m of selected) console.log(`${m.name.padEnd(34)} ${m.at.padEnd(28)} ${m.why}`);
  process.exit(0);
}

// --- where each lands ------------------------------------------------------------------

const definitions = indexDefinitions(ROOT);
/** The record layout's two versions, as src/record/schema.ts declares them. */
const schemaText = readFileSync(join(ROOT, "src/record/schema.ts"), "utf8");
const declared = (name) => {
  const found = new RegExp(`export const ${name}: number = (\\d+);`).exec(schemaText);
  if (!found) throw new Error(`src/record/schema.ts declares no ${name} as a number`);
  return Number(found[1]);
};
const expanding = declared("CURRENT_SCHEMA_VERSION") > declared("OLDEST_READER_VERSION");
const results = [];
const runnable = [];
const dormant = [];
for (const m of selected) {
  const missing = ["name", "at", "find", "why"].filter((key) => typeof m[key] !== "string" || m[key] === "");
  if (typeof m.replace !== "string") missing.push("replace");
  if (missing.length > 0 || !Array.isArray(m.tests) || m.tests.length === 0) {
    results.push({
      m,
      verdict: "STALE",
      detail: `the entry lacks ${[...missing, ...(Array.isArray(m.tests) && m.tests.length ? [] : ["tests"])].join(", ")}`,
    });
    continue;
  }
  if (m.while !== undefined && m.while !== "expanding") {
    results.push({ m, verdict: "STALE", detail: `while: "${m.while}" is not a condition this runner knows ("expanding")` });
    continue;
  }
  const where = locate(definitions, m);
  if (where.error) results.push({ m, verdict: "STALE", detail: where.error });
  else if (m.while === "expanding" && !expanding) dormant.push({ m, where });
  else runnable.push({ m, where });
}
const dormantNote = dormant.length
  ? `${dormant.length} dormant while CURRENT_SCHEMA_VERSION equals OLDEST_READER_VERSION (${dormant.map(({ m }) => m.name).join(", ")})`
  : "";
if (flags.has("--check")) {
  for (const { m, detail } of results) console.log(`${m.name}: ${detail}`);
  console.log(
    `${runnable.length + dormant.length} of ${selected.length} mutations land in src/${results.length ? `; ${results.length} stale` : ""}${dormantNote ? `; ${dormantNote}` : ""}`,
  );
  process.exit(results.length > 0 ? 1 : 0);
}
if (dormantNote) console.log(`${dormantNote}: not run\n`);
if (selected.length === 0) {
  console.error(`no mutation's name contains ${filters.join(" or ")}; npm run test:mutants -- --list shows them`);
  process.exit(2);
}

// --- the copy ----------------------------------------------------------------------

const work = mkdtempSync(join(tmpdir(), "mutants-"));
let child = null;
const cleanUp = () => {
  if (child && child.exitCode === null) {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  rmSync(work, { recursive: true, force: true });
};
process.on("exit", cleanUp);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopping; the working tree was never changed`);
    process.exit(130);
  });
}

const listed = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: ROOT, encoding: "utf8" });
if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
for (const file of new Set(listed.stdout.split("\0").filter(Boolean))) {
  const from = join(ROOT, file);
  if (!existsSync(from)) continue; // deleted in the working tree
  mkdirSync(dirname(join(work, file)), { recursive: true });
  cpSync(from, join(work, file));
}
for (const modules of ["node_modules", "client/node_modules"]) {
  if (existsSync(join(ROOT, modules))) symlinkSync(join(ROOT, modules), join(work, modules), "dir");
}

/** Runs vitest in the copy; answers what failed, from its JSON report. */
function runTests(files, grep) {
  const report = join(work, ".mutants-report.json");
  rmSync(report, { force: true });
  const vitestArgs = ["vitest", "run", ...files, "--reporter=json", `--outputFile=${report}`, ...(grep ? ["-t", grep] : [])];
  const started = Date.now();
  return new Promise((done) => {
    let output = "";
    // Its own process group, so a stop ends vitest and the workerd it started.
    child = spawn("npx", vitestArgs, { cwd: work, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const timer = setTimeout(() => process.kill(-child.pid, "SIGKILL"), MUTANT_TIMEOUT_MS);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      const seconds = Math.round((Date.now() - started) / 1000);
      if (signal === "SIGKILL") return done({ seconds, timedOut: true, failed: [], output });
      let json;
      try {
        json = JSON.parse(readFileSync(report, "utf8"));
      } catch {
        return done({ seconds, error: `vitest exited ${code} without a report`, failed: [], output });
      }
      const failed = [];
      for (const file of json.testResults) {
        const name = file.name.startsWith(work) ? file.name.slice(work.length + 1) : file.name;
        const tests = file.assertionResults.filter((t) => t.status === "failed");
        for (const t of tests) {
          const why = String(t.failureMessages?.[0] ?? "")
            .split("\n")[0]
            // biome-ignore lint/suspicious/noControlCharactersInRegex: strips the terminal colour codes (ESC [ ... m) of a child's output
            .replace(/\x1b\[[0-9;]*m/g, "")
            .slice(0, 100);
          failed.push(`${name} > ${t.fullName}${why ? ` [${why}]` : ""}`);
        }
        if (file.status === "failed" && tests.length === 0) failed.push(`${name} (failed to run: ${String(file.message).split("\n")[0]})`);
      }
      const ran = json.numPassedTests + json.numFailedTests;
      if (ran === 0 && failed.length === 0) return done({ seconds, error: "no test ran (a -t grep that matches nothing?)", failed, output });
      done({ seconds, failed, passed: json.numPassedTests, output });
    });
  });
}

// --- the mutations ----------------------------------------------------------------------

if (!flags.has("--no-baseline") && runnable.length > 0) {
  const files = [...new Set(runnable.flatMap(({ m }) => m.tests))];
  console.log(`baseline: ${files.join(" ")} unmutated`);
  const base = await runTests(files);
  if (base.error || base.timedOut || base.failed.length > 0) {
    console.error(base.output.split("\n").slice(-40).join("\n"));
    console.error(
      `\nThe tests fail without any mutation, so no kill would mean anything:\n  ${base.failed.join("\n  ") || base.error || "timed out"}`,
    );
    process.exit(1);
  }
  console.log(`baseline: ${base.passed} tests pass (${base.seconds} s)\n`);
}

for (const [i, { m, where }] of runnable.entries()) {
  const target = join(work, where.file);
  process.stdout.write(`[${i + 1}/${runnable.length}] ${m.name} ... `);
  writeFileSync(target, mutated(where, m));
  let run;
  try {
    run = await runTests(m.tests, m.grep);
  } finally {
    writeFileSync(target, where.text);
  }
  const verdict = run.timedOut ? "killed" : run.error ? "ERROR" : run.failed.length > 0 ? "killed" : "SURVIVED";
  const detail = run.timedOut ? "its tests hung (ended after 10 min)" : (run.error ?? run.failed.join("\n"));
  console.log(`${verdict} (${run.seconds} s)`);
  if (verdict === "ERROR") console.log(run.output.split("\n").slice(-30).join("\n"));
  results.push({ m, verdict, detail });
}

// --- the table -----------------------------------------------------------------------------

console.log("\n| mutation | where | result | killed by |\n|---|---|---|---|");
for (const { m, verdict, detail } of results) {
  const by =
    verdict === "killed"
      ? detail.split("\n")
      : [verdict === "SURVIVED" ? `nothing in ${m.tests.join(", ")}${m.grep ? ` (-t "${m.grep}")` : ""}` : detail];
  console.log(`| ${m.name} | ${m.at} | ${verdict} | ${by[0]}${by.length > 1 ? ` (+${by.length - 1} more)` : ""} |`);
}
const bad = results.filter((r) => r.verdict !== "killed");
console.log(`\n${results.length - bad.length} killed, ${bad.length} not (${bad.map((r) => `${r.m.name}: ${r.verdict}`).join(", ") || "none"})`);
process.exit(bad.length > 0 ? 1 : 0);
