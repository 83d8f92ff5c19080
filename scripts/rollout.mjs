/**
 * `npm run deploy -- --gradual` (scripts/deploy.mjs): the new version
 * uploaded beside the one serving, then given a share of the traffic step
 * by step, checked between steps, with the command that rolls it back
 * printed at each (docs/production.md, "Gradual rollout").
 *
 *   wrangler versions upload                      the new version, serving nothing
 *   wrangler versions deploy <new>@0% <old>@100%  in the deployment, so a request can ask for it:
 *                                                 /readyz with Cloudflare-Workers-Version-Overrides
 *   wrangler versions deploy <new>@10% <old>@90%  then 50%, then <new>@100%; after each, /readyz of
 *                                                 the new version, and the error-rate check
 *
 * The error-rate check is pluggable: `--check "<command>"` runs a command
 * after each step (exit 0: go on), with ROLLOUT_* variables naming the
 * versions and the share; without one, the operator looks at the new
 * version's errors and answers. A check that fails rolls back.
 *
 * Everything here but gradualRollout is pure, so test/unit/rollout-plan.test.ts
 * holds the plan to the runbook offline; gradualRollout runs it with the
 * wrangler, fetch, shell and question that scripts/deploy.mjs hands it.
 */

/** The shares of traffic the new version gets, after its 0% step, unless --steps says otherwise. */
export const DEFAULT_STEPS = [10, 50, 100];

export class RolloutError extends Error {}

/** `--steps 10,50,100`: rising whole percentages from 1 to 100, ending at 100. */
export function parseSteps(text) {
  if (text === undefined) return [...DEFAULT_STEPS];
  const steps = String(text)
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map(Number);
  if (steps.length === 0 || steps.some((p) => !Number.isInteger(p) || p < 1 || p > 100)) {
    throw new RolloutError(`--steps ${text}: whole percentages from 1 to 100, comma-separated, e.g. 10,50,100.`);
  }
  if (steps.some((p, i) => i > 0 && p <= steps[i - 1])) throw new RolloutError(`--steps ${text}: each step must be larger than the one before.`);
  if (steps.at(-1) !== 100)
    throw new RolloutError(`--steps ${text}: the last step must be 100 (the rollout ends with the new version serving everything).`);
  return steps;
}

/** A wrangler command of production. */
const production = (args) => [...args, "--env", "production"];

/** The traffic split: `<new>@<p>% <old>@<100-p>%`, the new version alone at 100. */
export const versionSpecs = (newVersion, oldVersion, percent) =>
  percent === 100 ? [`${newVersion}@100%`] : [`${newVersion}@${percent}%`, `${oldVersion}@${100 - percent}%`];

/** The deployment of one step, without questions (the script asks its own). */
export const deployStepArgs = (newVersion, oldVersion, percent) =>
  production(["versions", "deploy", ...versionSpecs(newVersion, oldVersion, percent), "--yes", "--message", `gradual rollout: ${percent}%`]);

/** Back to the version that served before, for all traffic. */
export const rollbackArgs = (oldVersion) =>
  production(["versions", "deploy", `${oldVersion}@100%`, "--yes", "--message", "gradual rollout: rolled back"]);

/** The version of Cloudflare-Workers-Version-Overrides: a request that asks for `version` of `worker` gets it while it is in the deployment. */
export const overrideHeader = (worker, version) => `${worker}="${version}"`;

export const statusArgs = () => production(["deployments", "status", "--json"]);
/** The upload, labelled with the commit it was built from (scripts/required-stop.mjs) when `label` names one. */
export const uploadArgs = (label) => production(["versions", "upload", ...(label.tag ? ["--tag", label.tag] : []), "--message", label.message]);

/** The label of an upload no commit was named for (the dry run's plan). */
const UNLABELLED = { message: "npm run deploy --gradual" };

/**
 * The version serving now, from `wrangler deployments status --json`: the
 * one at 100%. A split deployment is an earlier rollout not finished:
 * refused, so a rollout never starts from two versions.
 */
export function servingVersion(statusJson) {
  const status = typeof statusJson === "string" ? JSON.parse(statusJson.slice(statusJson.indexOf("{"))) : statusJson;
  const versions = status.versions ?? [];
  if (versions.length === 1 && Number(versions[0].percentage) === 100) return versions[0].version_id;
  const split = versions.map((v) => `${v.version_id}@${v.percentage}%`).join(" ");
  throw new RolloutError(
    `The deployment is split (${split || "no version"}): an earlier rollout is not finished. Finish it (npx wrangler versions deploy <version>@100% --env production) or roll it back before starting another.`,
  );
}

/** The uploaded version, from wrangler's output file (WRANGLER_OUTPUT_FILE_PATH: one JSON object a line). */
export function uploadedVersion(outputFile) {
  const entries = String(outputFile)
    .split("\n")
    .filter((line) => line.trim().startsWith("{"))
    .map((line) => JSON.parse(line));
  const upload = entries.findLast((entry) => entry.type === "version-upload");
  if (!upload?.version_id) throw new RolloutError("wrangler versions upload named no version id.");
  return { versionId: upload.version_id, previewUrl: upload.preview_url ?? null };
}

/**
 * The rollout as the script runs it: before anything changes, the upload;
 * then each step's deployment, its checks and its rollback. Versions not
 * known yet are named by placeholders (the dry run prints this).
 */
export function rolloutPlan({
  worker,
  url,
  steps = DEFAULT_STEPS,
  oldVersion = "<serving-version>",
  newVersion = "<new-version>",
  check,
  label = UNLABELLED,
}) {
  return {
    status: statusArgs(),
    upload: uploadArgs(label),
    steps: [0, ...steps].map((percent) => ({
      percent,
      deploy: deployStepArgs(newVersion, oldVersion, percent),
      readiness: { url: `${url}/readyz`, header: ["Cloudflare-Workers-Version-Overrides", overrideHeader(worker, newVersion)] },
      // The 0% step serves no one: only the new version's own readiness says anything yet.
      errorRate:
        percent === 0
          ? null
          : check
            ? { command: check }
            : { ask: true, tail: production(["tail", "--version-id", newVersion, "--status", "error", "--format", "pretty"]) },
      rollback: rollbackArgs(oldVersion),
    })),
  };
}

/** An argument as a POSIX shell reads it back: quoted when it holds anything but plain characters. */
export const shellQuote = (arg) => (/^[\w@%./:=,+-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`);

/** A wrangler command as the operator pastes it. */
export const shell = (args) => `npx wrangler ${args.map(shellQuote).join(" ")}`;

/** The plan in lines, as `npm run deploy -- --gradual --dry-run` prints it. */
export function describePlan(plan) {
  const lines = [
    `${shell(plan.status)}    the version serving now (a split deployment is refused)`,
    `${shell(plan.upload)}    the new version, serving nothing`,
  ];
  for (const step of plan.steps) {
    lines.push("", `${step.percent}%: ${shell(step.deploy)}`);
    lines.push(`  check: curl -s ${step.readiness.url} -H ${shellQuote(`${step.readiness.header[0]}: ${step.readiness.header[1]}`)}    answers 200`);
    if (step.errorRate?.command) lines.push(`  check: ${step.errorRate.command} exits 0 (ROLLOUT_PERCENT=${step.percent})`);
    else if (step.errorRate?.ask) lines.push(`  check: the operator confirms the new version's error rate (${shell(step.errorRate.tail)})`);
    lines.push(`  rollback: ${shell(step.rollback)}`);
  }
  return lines;
}

/**
 * Runs the plan. `io` is what it acts with: wrangler(args, {capture, env})
 * -> {status, stdout, stderr}; fetch; exec(command, env) -> exit status;
 * ask(question) -> answer; log(line); readOutput() -> the text of wrangler's
 * output file. `label` ({tag, message}) names the commit the upload is
 * built from. Returns the new version's id; throws RolloutError when it
 * stopped (rolled back, or left at a step the operator chose).
 */
export async function gradualRollout({ worker, url, steps, check, label = UNLABELLED, io }) {
  const status = io.wrangler(statusArgs(), { capture: true });
  if (status.status !== 0) {
    throw new RolloutError(
      `wrangler deployments status failed (${status.stderr.trim().split("\n").at(-1) ?? ""}); nothing changed. A first deploy has no version to roll out from: npm run deploy.`,
    );
  }
  const oldVersion = servingVersion(status.stdout);
  io.log(`  serving now: ${oldVersion}`);

  const upload = io.wrangler(uploadArgs(label), { output: true });
  if (upload.status !== 0) {
    throw new RolloutError(
      "wrangler versions upload failed; nothing serves the new code. A release with a Durable Object class migration ([[env.production.migrations]]) cannot be uploaded as a version: deploy it with npm run deploy (all at once).",
    );
  }
  const { versionId: newVersion } = uploadedVersion(io.readOutput());
  io.log(`  uploaded: ${newVersion} (serving nothing)`);

  const plan = rolloutPlan({ worker, url, steps, oldVersion, newVersion, check });
  for (const step of plan.steps) {
    io.log(`\n▶ ${step.percent}% of traffic to ${newVersion}: ${shell(step.deploy)}`);
    io.log(`  rollback at any time: ${shell(step.rollback)}`);
    if (io.wrangler(step.deploy).status !== 0)
      throw new RolloutError(`the ${step.percent}% step was not deployed; the deployment is as before it. Roll back with: ${shell(step.rollback)}`);
    const problem = await checkStep(step, { oldVersion, newVersion, worker, url, io });
    if (problem) {
      io.log(`  ✗ ${problem}`);
      io.log(`  rolling back: ${shell(step.rollback)}`);
      const back = io.wrangler(step.rollback);
      throw new RolloutError(
        back.status === 0
          ? `rolled back to ${oldVersion} after the ${step.percent}% step: ${problem}`
          : `the rollback failed: run it yourself, now: ${shell(step.rollback)}`,
      );
    }
  }
  return newVersion;
}

/** The checks after one step: the new version's /readyz, then the error rate. A reason to roll back, or null. */
async function checkStep(step, { oldVersion, newVersion, worker, url, io }) {
  const [name, value] = step.readiness.header;
  let ready = null;
  // A new deployment takes a few seconds to reach every location; the override is ignored until it has.
  for (let attempt = 0; attempt < 5 && ready?.status !== 200; attempt++) {
    try {
      const res = await io.fetch(step.readiness.url, { headers: { [name]: value }, signal: AbortSignal.timeout(10_000) });
      ready = { status: res.status, text: (await res.text()).slice(0, 300) };
    } catch (err) {
      ready = { status: 0, text: err instanceof Error ? err.message : String(err) };
    }
    if (ready.status !== 200) await io.pause(attempt);
  }
  io.log(`  /readyz of ${newVersion}: ${ready.status} ${ready.text}`);
  if (ready.status !== 200) return `the new version's /readyz answered ${ready.status}`;
  if (!step.errorRate) return null;
  if (step.errorRate.command) {
    const env = {
      ROLLOUT_WORKER: worker,
      ROLLOUT_URL: url,
      ROLLOUT_NEW_VERSION: newVersion,
      ROLLOUT_OLD_VERSION: oldVersion,
      ROLLOUT_PERCENT: String(step.percent),
    };
    const exit = io.exec(step.errorRate.command, env);
    return exit === 0 ? null : `the check \`${step.errorRate.command}\` exited ${exit}`;
  }
  io.log(`  watch the new version's errors: ${shell(step.errorRate.tail)}`);
  const answer = (
    await io.ask(
      `  Is ${newVersion}'s error rate at ${step.percent}% as low as ${oldVersion}'s? y: go on; n: roll back; s: stop here, as it is (y/n/s) `,
    )
  )
    .trim()
    .toLowerCase();
  if (answer === "y") return null;
  if (answer === "s")
    throw new RolloutError(
      `stopped at ${step.percent}%, as asked. Go on: ${shell(deployStepArgs(newVersion, oldVersion, 100))}; roll back: ${shell(step.rollback)}`,
    );
  return "the operator did not confirm the error rate";
}
