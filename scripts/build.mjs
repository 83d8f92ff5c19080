#!/usr/bin/env node
// `npm run build`: `wrangler deploy --dry-run --env production --outdir dist`,
// bundling production exactly as a deploy would, and failing when wrangler
// prints a warning. A warning here is a configuration wrangler finds doubtful
// (e.g. top-level vars or bindings production does not declare, which once
// asked for the sandbox in production): it is fixed, not scrolled past.
// scripts/deploy.mjs runs the same dry run before anything is uploaded.
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
export const WRANGLER = join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");

// biome-ignore lint/suspicious/noControlCharactersInRegex: strips the terminal colour codes (ESC [ ... m) of a child's output
const ANSI = /\x1b\[[0-9;]*m/g;

/** The lines of wrangler's output that open a warning. */
export const warningsIn = (output) =>
  output
    .replace(ANSI, "")
    .split("\n")
    .filter((line) => /\[WARNING\]/.test(line))
    .map((line) => line.trim());

/**
 * Runs `wrangler deploy --dry-run --env production` plus `args`, passing its
 * output through, and resolves to its exit status and the warnings it printed.
 */
export function productionDryRun(args = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRANGLER, "deploy", "--dry-run", "--env", "production", ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
      process.stdout.write(chunk);
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
      process.stderr.write(chunk);
    });
    child.on("error", reject);
    child.on("close", (status) => resolve({ status: status ?? 1, warnings: warningsIn(output) }));
  });
}

if (import.meta.main) {
  const { status, warnings } = await productionDryRun(["--outdir", "dist", ...process.argv.slice(2)]);
  if (status !== 0) process.exit(status);
  if (warnings.length > 0) {
    console.error(`\nnpm run build: wrangler printed ${warnings.length} warning(s) for the production configuration; fix wrangler.toml:`);
    for (const warning of warnings) console.error(`  ${warning}`);
    process.exit(1);
  }
}
