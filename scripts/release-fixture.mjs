#!/usr/bin/env node
/**
 * `npm run release:fixture -- <git ref>`: the release a deploy replaces, as
 * the both-windows test (scripts/deploy-windows.mjs) runs it: the Worker of
 * that commit bundled for development (src/dev.ts: the gateway and the
 * sandbox upstream, as `npm run dev` serves it), its D1 migrations and its
 * wrangler.toml, written to test/releases/previous/ with a meta.json naming
 * the commit. Committed, so a fresh clone tests the deploy from that release
 * with no network, no tag and no second checkout.
 *
 *   npm run release:fixture -- 8d5a94c              into test/releases/previous/
 *   npm run release:fixture -- <ref> --out <dir>    elsewhere
 *
 * The commit's files come from `git archive` into a temporary directory (no
 * worktree is registered, the repository is only read), and are bundled by
 * `wrangler deploy --dry-run --env dev` with this checkout's node_modules: the
 * dependencies' code is today's, the gateway's is the commit's (meta.json
 * says whether the commit's package.json pins the same ones).
 *
 * Run it on the commit of each release, after it is deployed: the fixture is
 * then the code production runs while the next release is deployed.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { WRANGLER } from "./build.mjs";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
export const PREVIOUS_RELEASE = join(ROOT, "test", "releases", "previous");

const { values: options, positionals } = parseArgs({
  allowPositionals: true,
  options: { out: { type: "string", default: PREVIOUS_RELEASE }, help: { type: "boolean", short: "h", default: false } },
});
if (options.help || positionals.length !== 1) {
  console.error("usage: npm run release:fixture -- <git ref> [--out <dir>]");
  process.exit(options.help ? 0 : 2);
}

const git = (...args) => execFileSync("git", args, { cwd: ROOT, encoding: "utf8" }).trim();
const commit = git("rev-parse", "--verify", `${positionals[0]}^{commit}`);
const out = resolve(options.out);
const work = mkdtempSync(join(tmpdir(), "release-fixture-"));

try {
  const tree = join(work, "tree");
  mkdirSync(tree);
  execFileSync("git", ["archive", "--output", join(work, "tree.tar"), commit], { cwd: ROOT });
  execFileSync("tar", ["-xf", join(work, "tree.tar"), "-C", tree]);
  symlinkSync(join(ROOT, "node_modules"), join(tree, "node_modules"), "dir");

  const bundle = join(work, "bundle");
  const built = spawnSync(process.execPath, [WRANGLER, "deploy", "--dry-run", "--env", "dev", "--outdir", bundle], {
    cwd: tree,
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  });
  if (built.status !== 0) {
    process.stderr.write(built.stdout + built.stderr);
    throw new Error(`wrangler could not bundle ${commit}`);
  }
  // wrangler names the bundle after the entry (src/dev.ts: dev.js).
  const script = readdirSync(bundle).find((name) => name.endsWith(".js"));
  if (!script) throw new Error(`wrangler wrote no bundle for ${commit}`);

  rmSync(out, { recursive: true, force: true });
  mkdirSync(join(out, "migrations"), { recursive: true });
  copyFileSync(join(bundle, script), join(out, "worker.js"));
  copyFileSync(join(tree, "wrangler.toml"), join(out, "wrangler.toml"));
  const migrations = readdirSync(join(tree, "migrations"))
    .filter((name) => name.endsWith(".sql"))
    .sort();
  for (const name of migrations) copyFileSync(join(tree, "migrations", name), join(out, "migrations", name));

  // The record object's storage version that release writes (src/record/schema.ts), when it has one.
  const schemaFile = join(tree, "src", "record", "schema.ts");
  const schemaVersion = existsSync(schemaFile)
    ? Number(/CURRENT_SCHEMA_VERSION(?:: number)? = (\d+)/.exec(readFileSync(schemaFile, "utf8"))?.[1]) || null
    : null;
  const dependenciesOf = (dir) => JSON.stringify(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).dependencies ?? {});
  const meta = {
    commit,
    subject: git("show", "-s", "--format=%s", commit),
    committed_at: git("show", "-s", "--format=%cI", commit),
    record_schema_version: schemaVersion,
    migrations,
    worker_sha256: createHash("sha256")
      .update(readFileSync(join(out, "worker.js")))
      .digest("hex"),
    bundled_with: {
      wrangler: JSON.parse(readFileSync(join(ROOT, "node_modules", "wrangler", "package.json"), "utf8")).version,
      // Whether the commit's package.json pins the runtime dependencies this checkout bundled it with.
      same_dependencies: dependenciesOf(tree) === dependenciesOf(ROOT),
    },
  };
  writeFileSync(join(out, "meta.json"), `${JSON.stringify(meta, null, 2)}\n`);
  const size = readFileSync(join(out, "worker.js")).length;
  console.log(`release:fixture: ${commit.slice(0, 12)} (${meta.subject.slice(0, 60)}) -> ${out} (worker.js ${Math.round(size / 1024)} KB)`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
