#!/usr/bin/env node
/**
 * `npm run deploy`: the production deploy in one step (docs/production.md).
 *
 *   npm run deploy                                   check, secrets listed, migrate, deploy, print the URL
 *   npm run deploy -- --dry-run                      the checks and `wrangler deploy --dry-run --env production` only
 *   npm run deploy -- --secrets production.secrets.json
 *                                                    also checks that file and uploads it (wrangler secret bulk) first
 *   npm run deploy -- --skip-secrets-check           do not ask Cloudflare which secrets are set
 *   npm run deploy -- --config <wrangler.toml>       another configuration file
 *   npm run deploy -- --gradual [--steps 10,50,100] [--check "<command>"]
 *                                                    the code as a new version, given its share of traffic
 *                                                    step by step (scripts/rollout.mjs); with --dry-run, the plan
 *   npm run deploy -- --skip-required-stop           deploy over whatever production serves (dangerous: it says why)
 *
 * 0. The required stop (scripts/required-stop.mjs): the tree must be the
 *    commit it was built from (the configuration file aside), and the version
 *    uploaded is labelled with it (`--tag`, `--message`). Before anything
 *    changes, `wrangler deployments status` and `wrangler versions view` name
 *    the commit of every version serving: each must be
 *    test/releases/previous/meta.json's commit or a descendant of it, the
 *    release `npm run test:deploy` proved this one safe against, or nothing
 *    is deployed yet. Otherwise it refuses, naming both commits and what to
 *    run (docs/production.md, "The required stop").
 * 1. Checks wrangler.toml's [env.production] offline, with the rules of
 *    src/config/config-rules.ts and src/config/config-lists.ts that the running gateway's
 *    guard uses (this file loads those TypeScript modules as they are: Node
 *    strips their types). The configuration is read with wrangler's own
 *    reader, so it is what `wrangler deploy --env production` will deploy,
 *    environment rules and all.
 * 2. Bundles production with `wrangler deploy --dry-run` and stops on any warning.
 *    The required stop's question to Cloudflare comes here, before anything changes.
 * 3. Uploads --secrets (after checking it), then checks with `wrangler secret
 *    list` that every production secret is set and JWT_SECRET is not.
 * 4. `wrangler d1 migrations apply <BINDING> --remote --env production` for DB
 *    and each tid-index shard TID_INDEX_SHARDS names (forward-only; before the
 *    code that needs them); then `wrangler r2 bucket lifecycle set` on the
 *    audit trail's and the statements' buckets: their objects deleted
 *    AUDIT_RETENTION_DAYS after they were written (rules 15 and 16; the dry
 *    run prints the rules).
 * 5. `wrangler deploy --env production`, then prints the address and what
 *    GET /healthz answers there. With --gradual instead: `wrangler versions
 *    upload`, then `wrangler versions deploy <new>@0% <old>@100%` and on
 *    through each step of --steps, the new version's /readyz (asked for by
 *    Cloudflare-Workers-Version-Overrides) and the error-rate check (--check's
 *    command, else the operator's answer) after each, the rollback printed at
 *    each and run when a check fails (docs/production.md, "Gradual rollout").
 *
 * Prints no secret: problems name settings, never values.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import { setTimeout as pause } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { unstable_readConfig } from "wrangler";
import { parseWebhookSecrets } from "../src/config/config-lists.ts";
import {
  DEPLOYMENT_CONFIG_KEYS,
  d1Bindings,
  deploymentProblems,
  deploymentUrls,
  FORBIDDEN_PRODUCTION_SECRETS,
  lifecycleRules,
  PRODUCTION_SECRETS,
  productionSecretProblems,
  R2_BINDINGS,
} from "../src/config/config-rules.ts";
import { parseRiskLimits } from "../src/config/risk-limits.ts";
import { productionDryRun, WRANGLER } from "./build.mjs";
import { commandLine } from "./cli.mjs";
import { checkRequiredStop, deployArgs, describeStop, dirtyTree, releaseLabel, SKIP_WARNING } from "./required-stop.mjs";
import { describePlan, gradualRollout, parseSteps, RolloutError, rolloutPlan } from "./rollout.mjs";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

const { values: options } = commandLine("deploy", import.meta.url, {
  options: {
    "dry-run": { type: "boolean", default: false },
    secrets: { type: "string" },
    "skip-secrets-check": { type: "boolean", default: false },
    config: { type: "string", default: join(ROOT, "wrangler.toml") },
    gradual: { type: "boolean", default: false },
    steps: { type: "string" },
    check: { type: "string" },
    "skip-required-stop": { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  },
});

let steps;
try {
  steps = parseSteps(options.steps);
} catch (err) {
  console.error(err.message);
  process.exit(2);
}
if ((options.steps !== undefined || options.check !== undefined) && !options.gradual) {
  console.error("--steps and --check belong to --gradual.");
  process.exit(2);
}
if (options.gradual && options.secrets) {
  // `wrangler secret bulk` deploys a version of its own, to all traffic at once.
  console.error(
    "--secrets deploys at once, not gradually: upload the secrets on their own first (npx wrangler secret bulk <file> --env production), then npm run deploy -- --gradual.",
  );
  process.exit(2);
}

const configPath = resolve(options.config);
const configArgs = ["--config", configPath];
const step = (text) => console.log(`\n▶ ${text}`);
const fail = (lines) => {
  for (const line of [lines].flat()) console.error(`  ✗ ${line}`);
  process.exit(1);
};

/** Runs wrangler with the terminal attached (it may ask to confirm); exits on failure. */
function wrangler(args, { capture = false } = {}) {
  const result = spawnSync(process.execPath, [WRANGLER, ...args, ...configArgs], {
    cwd: ROOT,
    stdio: capture ? ["inherit", "pipe", "pipe"] : "inherit",
    encoding: "utf8",
  });
  return { status: result.status ?? 1, stdout: result.stdout ?? "", stderr: result.stderr ?? "" };
}

// 0. The commit the upload is built from, and the release production must serve before it.
const git = (...args) => spawnSync("git", args, { cwd: ROOT, encoding: "utf8" });
const head = git("rev-parse", "--verify", "HEAD^{commit}");
if (head.status !== 0) fail("npm run deploy runs from a git checkout: the version it uploads is labelled with its commit.");
const commit = head.stdout.trim();
const label = releaseLabel(commit, options.gradual ? "npm run deploy --gradual" : "npm run deploy");
const required = JSON.parse(readFileSync(join(ROOT, "test", "releases", "previous", "meta.json"), "utf8")).commit;
step(`The commit to deploy: ${commit}`);
const changed = dirtyTree(git("status", "--porcelain", "--untracked-files=normal").stdout, [relative(ROOT, configPath)]);
const dirty =
  changed.length > 0
    ? [
        `the tree differs from ${commit} (${changed.slice(0, 5).join(", ")}${changed.length > 5 ? ", ..." : ""}): the version would be labelled with a commit that is not what it runs.`,
        "Commit (or stash) the changes, then npm run deploy again; nothing was deployed.",
      ]
    : null;
if (dirty && !options["dry-run"]) fail(dirty);
if (!dirty) console.log(`  ✓ the tree is ${commit}: the version is labelled --tag ${label.tag} --message '${label.message}'`);

// 1. The configuration, offline.
step(`Checking [env.production] of ${configPath} (offline)`);
const production = unstable_readConfig({ config: configPath, env: "production" }, { hideWarnings: true });
const development = unstable_readConfig({ config: configPath, env: "dev" }, { hideWarnings: true });
const deployment = Object.fromEntries(DEPLOYMENT_CONFIG_KEYS.map((key) => [key, production[key]]));
// Production needs every rate limit the gateway counts with; development declares the same set.
const rateLimits = (development.ratelimits ?? []).map((r) => r.name);
const problems = deploymentProblems(deployment, { rateLimits });
// Rule 13's limits as the guard reads them: a RISK_LIMITS it refuses (a retired limit's name among them) stops every call.
const riskLimits = parseRiskLimits(production.vars?.RISK_LIMITS).problem;
if (riskLimits) problems.push(riskLimits);

let secretsFile = null;
if (options.secrets) {
  const path = resolve(options.secrets);
  if (!existsSync(path)) fail(`--secrets: ${path} does not exist (copy production.secrets.example.json and fill it in).`);
  try {
    secretsFile = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    fail(`--secrets: ${path} is not JSON.`);
  }
  for (const name of PRODUCTION_SECRETS) {
    if (typeof secretsFile[name] !== "string" || !secretsFile[name].trim()) problems.push(`${name} is not set in ${options.secrets}.`);
  }
  problems.push(...productionSecretProblems(secretsFile));
  problems.push(...parseWebhookSecrets(secretsFile.WEBHOOK_SECRET ?? "").problems);
  const digests = String(secretsFile.PARTNER_KEY_HASHES ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  digests.forEach((digest, i) => {
    if (!/^[0-9a-f]{64}$/.test(digest) && !digest.includes("REPLACE_ME")) {
      problems.push(`PARTNER_KEY_HASHES entry ${i + 1} is not a lowercase hex SHA-256 digest.`);
    }
  });
}
if (problems.length > 0) {
  console.error(`  ${problems.length} problem(s); nothing was deployed:`);
  fail(problems);
}
console.log("  ✓ the production configuration passes");

// 2. The bundle, and wrangler's own view of the configuration.
step("wrangler deploy --dry-run --env production");
const dryRun = await productionDryRun(configArgs);
if (dryRun.status !== 0) fail("the dry run failed; nothing was deployed.");
if (dryRun.warnings.length > 0) fail(["wrangler warned about the production configuration; nothing was deployed:", ...dryRun.warnings]);
const urls = deploymentUrls(deployment);
/** Rules 15 and 16's buckets and the lifecycle each gets: objects end AUDIT_RETENTION_DAYS after they were written. */
const lifecycles = Object.keys(R2_BINDINGS).map((binding) => ({
  bucket: production.r2_buckets.find((b) => b.binding === binding).bucket_name,
  rules: lifecycleRules(binding, deployment.vars ?? {}),
}));
if (options["dry-run"]) {
  step("The R2 lifecycle rules npm run deploy would set (nothing was called)");
  for (const { bucket, rules } of lifecycles) {
    console.log(`npx wrangler r2 bucket lifecycle set ${bucket} --file <these rules> --force --env production`);
    console.log(JSON.stringify(rules, null, 2).replace(/^/gm, "    "));
  }
  if (options.gradual) {
    step("The gradual rollout npm run deploy -- --gradual would run (nothing was called)");
    for (const binding of d1Bindings(deployment.vars ?? {}))
      console.log(`npx wrangler d1 migrations apply ${binding} --remote --env production    first: expand-only`);
    for (const line of describePlan(rolloutPlan({ worker: production.name, url: urls[0], steps, check: options.check, label }))) console.log(line);
  }
  step("The required stop npm run deploy would check first (nothing was called)");
  for (const line of describeStop({ required, label, gradual: options.gradual })) console.log(line);
  if (options["skip-required-stop"]) for (const line of SKIP_WARNING) console.log(`  ! ${line}`);
  if (dirty) fail(dirty);
  console.log(`\n✓ Dry run passed. \`npm run deploy${options.gradual ? " -- --gradual" : ""}\` would serve ${urls.join(", ")}.`);
  process.exit(0);
}

// The required stop: what production serves, before the secrets, the migrations or the code change anything.
step(`The required stop: production must serve ${required} or a descendant (npx wrangler deployments status --env production)`);
const stop = checkRequiredStop({
  required,
  io: {
    wrangler: (args) => wrangler(args, { capture: true }),
    isAncestor: (ancestor, descendant) => {
      const known = (ref) => git("cat-file", "-e", `${ref}^{commit}`).status === 0;
      if (!known(ancestor) || !known(descendant)) return null;
      const answer = git("merge-base", "--is-ancestor", ancestor, descendant).status;
      return answer === 0 ? true : answer === 1 ? false : null;
    },
  },
});
for (const { versionId, percentage, commit: serving } of stop.serving)
  console.log(`  serving: ${versionId} at ${percentage}%, ${serving ? `commit ${serving}` : "no commit named"}`);
if (stop.firstDeploy) console.log("  ✓ nothing is deployed yet: a first deploy");
else if (stop.ok) console.log(`  ✓ every version serving is ${required} or a descendant of it`);
else if (!options["skip-required-stop"]) fail(stop.problems);
else for (const line of stop.problems) console.error(`  ! ${line}`);
if (options["skip-required-stop"]) for (const line of SKIP_WARNING) console.error(`  ! ${line}`);

// 3. Secrets.
if (secretsFile) {
  step(`wrangler secret bulk ${options.secrets} --env production`);
  if (wrangler(["secret", "bulk", resolve(options.secrets), "--env", "production"]).status !== 0)
    fail("uploading the secrets failed; nothing was deployed.");
}
if (!options["skip-secrets-check"]) {
  step("wrangler secret list --env production");
  const listed = wrangler(["secret", "list", "--env", "production", "--format", "json"], { capture: true });
  let names;
  try {
    names = JSON.parse(listed.stdout.slice(listed.stdout.indexOf("["))).map((s) => s.name);
  } catch {
    process.stderr.write(listed.stderr);
    fail([
      "could not list production's secrets. Log in (`npx wrangler login`) or set CLOUDFLARE_API_TOKEN;",
      "before the first deploy, upload them: npm run deploy -- --secrets production.secrets.json (docs/production.md).",
    ]);
  }
  const missing = PRODUCTION_SECRETS.filter((name) => !names.includes(name));
  const forbidden = FORBIDDEN_PRODUCTION_SECRETS.filter((name) => names.includes(name));
  if (missing.length > 0 || forbidden.length > 0) {
    fail([
      ...missing.map((name) => `the secret ${name} is not set (npx wrangler secret put ${name} --env production).`),
      ...forbidden.map((name) => `the secret ${name} is set; production must not have it (npx wrangler secret delete ${name} --env production).`),
      "nothing was deployed.",
    ]);
  }
  console.log(`  ✓ ${PRODUCTION_SECRETS.join(", ")} are set`);
}

// 4. Migrations: forward-only, applied before the code that needs them, to every
//    D1 database the gateway uses (DB and each tid-index shard of TID_INDEX_SHARDS).
for (const binding of d1Bindings(deployment.vars ?? {})) {
  step(`wrangler d1 migrations apply ${binding} --remote --env production`);
  if (wrangler(["d1", "migrations", "apply", binding, "--remote", "--env", "production"]).status !== 0) {
    fail(`the D1 migrations of ${binding} failed; the code was not deployed (a migration is forward-only: run npm run deploy again once fixed).`);
  }
}

// The buckets' lifecycle: set whole each deploy (it replaces what was there), so it follows AUDIT_RETENTION_DAYS.
for (const { bucket, rules } of lifecycles) {
  step(`wrangler r2 bucket lifecycle set ${bucket} --env production`);
  const dir = mkdtempSync(join(tmpdir(), "payments-gateway-lifecycle-"));
  try {
    const file = join(dir, "lifecycle.json");
    writeFileSync(file, JSON.stringify(rules));
    if (wrangler(["r2", "bucket", "lifecycle", "set", bucket, "--file", file, "--force", "--env", "production"]).status !== 0) {
      fail(`setting the lifecycle of ${bucket} failed (does the bucket exist? npx wrangler r2 bucket create ${bucket}); the code was not deployed.`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// 5. The code: all at once, or gradually.
if (options.gradual) {
  step(`A gradual rollout of ${production.name}: 0%, then ${steps.join("%, ")}%`);
  const outputDir = mkdtempSync(join(tmpdir(), "payments-gateway-rollout-"));
  const outputFile = join(outputDir, "wrangler-output.json");
  try {
    await gradualRollout({
      worker: production.name,
      url: urls[0],
      steps,
      check: options.check,
      label,
      io: {
        wrangler: (args, { capture = false, output = false } = {}) => {
          const result = spawnSync(process.execPath, [WRANGLER, ...args, ...configArgs], {
            cwd: ROOT,
            stdio: capture ? ["inherit", "pipe", "pipe"] : "inherit",
            encoding: "utf8",
            env: { ...process.env, ...(output ? { WRANGLER_OUTPUT_FILE_PATH: outputFile } : {}) },
          });
          return { status: result.status ?? 1, stdout: result.stdout ?? "", stderr: result.stderr ?? "" };
        },
        readOutput: () => readFileSync(outputFile, "utf8"),
        fetch,
        exec: (command, env) => spawnSync(command, { shell: true, stdio: "inherit", env: { ...process.env, ...env } }).status ?? 1,
        ask: async (question) => {
          const rl = createInterface({ input: process.stdin, output: process.stdout });
          try {
            return await rl.question(question);
          } finally {
            rl.close();
          }
        },
        pause: (attempt) => pause(2_000 * (attempt + 1)),
        log: (line) => console.log(line),
      },
    });
  } catch (err) {
    if (err instanceof RolloutError) fail(err.message);
    throw err;
  } finally {
    rmSync(outputDir, { recursive: true, force: true });
  }
} else {
  step("wrangler deploy --env production");
  if (wrangler(deployArgs(label)).status !== 0) fail("wrangler deploy failed.");
}

step("The gateway");
for (const url of urls) {
  let answer;
  try {
    const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(10_000) });
    answer = `${res.status} ${(await res.text()).slice(0, 300)}`;
    if (res.status !== 200) {
      console.error(`  ✗ ${url}/healthz answered ${answer}`);
      console.error(
        "    Fix the configuration it names (secrets: npx wrangler secret put ... --env production), or roll back: npx wrangler rollback --env production",
      );
      process.exit(1);
    }
  } catch (err) {
    answer = `no answer yet (${err instanceof Error ? err.message : err}); a new custom domain can take a few minutes`;
  }
  console.log(`  ${url}  (GET /healthz: ${answer})`);
  console.log(`  readiness: curl ${url}/readyz`);
}
