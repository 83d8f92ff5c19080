/**
 * The required stop of `npm run deploy` (scripts/deploy.mjs; docs/production.md,
 * "Deploys"): a release is deployed only over one that `npm run test:deploy`
 * proved it safe against, so a rollback lands on a release that reads what
 * the new one stores.
 *
 * That test runs this checkout against one release, test/releases/previous/
 * (its meta.json names the commit). A release built from that commit or a
 * descendant of it reads everything the previous release reads, so production
 * may serve any of them; an older release, or a version with no commit named,
 * may not read what this checkout writes (a record stamped with a schema it
 * does not know is refused 503, every call about it). So:
 *
 * - every version `npm run deploy` uploads is labelled with the commit it was
 *   built from (`--tag`: the commit's first 12 hex digits, short enough for a
 *   version tag; `--message`: `commit <40 hex digits>`), and a dirty tree is
 *   refused, so the label names exactly the code uploaded;
 * - before anything changes (secrets, migrations, code), `wrangler deployments
 *   status` names the versions serving and `wrangler versions view` each one's
 *   label: each must name the required commit or a descendant of it
 *   (`git merge-base --is-ancestor`), or nothing is deployed yet.
 *
 * Everything here but the io handed in is pure, so test/unit/required-stop.test.ts
 * runs the check against a wrangler and a history played there.
 */

import { shell, statusArgs, uploadArgs } from "./rollout.mjs";

export { statusArgs };

/** A wrangler command of production. */
const production = (args) => [...args, "--env", "production"];

/** The label of a version built from `commit` (40 hex digits): a tag and a message, each naming it. */
export function releaseLabel(commit, what = "npm run deploy") {
  if (!/^[0-9a-f]{40}$/.test(commit)) throw new Error(`not a full commit id: ${commit}`);
  return { tag: commit.slice(0, 12), message: `${what}, commit ${commit}` };
}

/** The label as wrangler's `deploy` and `versions upload` take it. */
export const labelArgs = (label) => ["--tag", label.tag, "--message", label.message];

/** `npm run deploy`'s upload, all at once, labelled. */
export const deployArgs = (label) => production(["deploy", ...labelArgs(label)]);

export const versionViewArgs = (versionId) => production(["versions", "view", versionId, "--json"]);

/**
 * The commit a version is labelled with, from `wrangler versions view --json`:
 * the full id of its message, else its tag (the first 12 digits, which git
 * resolves). Null for a version with neither (uploaded before versions were
 * labelled, or by hand).
 */
export function labelledCommit(versionJson) {
  const version = typeof versionJson === "string" ? JSON.parse(versionJson.slice(versionJson.indexOf("{"))) : versionJson;
  const annotations = version?.annotations ?? {};
  const full = /\bcommit ([0-9a-f]{40})\b/.exec(String(annotations["workers/message"] ?? ""));
  if (full) return full[1];
  const tag = String(annotations["workers/tag"] ?? "").trim();
  return /^[0-9a-f]{7,40}$/.test(tag) ? tag : null;
}

/**
 * Whether `wrangler deployments status` failed because nothing is deployed
 * yet: the Worker has no deployment, or does not exist (Cloudflare's 10007).
 * Any other failure (no login, no network) is not a first deploy.
 */
export const nothingDeployed = (stderr) => /has no deployments|\[code: 10007\]|does not exist on your account/i.test(String(stderr));

/**
 * The paths `git status --porcelain` names: what differs from the commit, so
 * the label would not name the code uploaded. `ignore` is the configuration
 * file (wrangler.toml, or --config's), which holds production's own settings
 * in place of the committed placeholders and is checked offline on its own.
 */
export const dirtyTree = (porcelain, ignore = []) =>
  String(porcelain)
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => line.slice(3).split(" -> ").at(-1).replace(/^"|"$/g, ""))
    .filter((path) => !ignore.includes(path));

/** What to do when refused, in the order docs/production.md gives it. */
export const refusalAdvice = (required) => {
  const label = releaseLabel(required);
  return [
    `Deploy the required release first: git checkout ${required} && npm ci && npm run deploy`,
    `(a release older than the stop labels nothing: then also ${shell(deployArgs(label))}),`,
    "wait out the window in which you would roll it back, then check this release out again and npm run deploy.",
    "npm run deploy -- --skip-required-stop deploys anyway (it says what that risks).",
  ];
};

/** Why skipping the stop is dangerous: printed whenever --skip-required-stop is given. */
export const SKIP_WARNING = [
  "--skip-required-stop: deploying without knowing the release it replaces was tested against this one.",
  "A rollback would then land on code that may not read what this release stores: records stamped with a",
  "schema it refuses (503 not_ready on every call about them), event types its consumer drops, migrations",
  "it was never run against. Use it only when production serves nothing of value, or the release serving",
  "is known to read this one's storage.",
];

/**
 * Asks Cloudflare what production serves and judges it against `required`
 * (test/releases/previous/meta.json's commit). `io.wrangler(args)` ->
 * {status, stdout, stderr}; `io.isAncestor(ancestor, descendant)` -> true,
 * false, or null when git does not know a commit. Returns {ok, firstDeploy,
 * serving: [{versionId, percentage, commit}], problems: [line]}.
 */
export function checkRequiredStop({ required, io }) {
  const status = io.wrangler(statusArgs(), { capture: true });
  if (status.status !== 0) {
    if (nothingDeployed(status.stderr)) return { ok: true, firstDeploy: true, serving: [], problems: [] };
    const reason = status.stderr.trim().split("\n").at(-1) ?? "";
    return {
      ok: false,
      firstDeploy: false,
      serving: [],
      problems: [
        `could not ask Cloudflare what production serves (wrangler deployments status: ${reason}); nothing was deployed.`,
        "Log in (npx wrangler login) or set CLOUDFLARE_API_TOKEN.",
      ],
    };
  }
  let versions;
  try {
    versions = JSON.parse(status.stdout.slice(status.stdout.indexOf("{"))).versions ?? [];
  } catch {
    return { ok: false, firstDeploy: false, serving: [], problems: ["wrangler deployments status --json answered no JSON; nothing was deployed."] };
  }
  if (versions.length === 0) return { ok: true, firstDeploy: true, serving: [], problems: [] };

  const serving = [];
  const problems = [];
  for (const { version_id: versionId, percentage } of versions) {
    const view = io.wrangler(versionViewArgs(versionId), { capture: true });
    let commit = null;
    if (view.status !== 0) {
      problems.push(`could not read version ${versionId} (wrangler versions view failed); nothing was deployed.`);
      serving.push({ versionId, percentage, commit });
      continue;
    }
    try {
      commit = labelledCommit(view.stdout);
    } catch {
      problems.push(`wrangler versions view ${versionId} --json answered no JSON; nothing was deployed.`);
      serving.push({ versionId, percentage, commit });
      continue;
    }
    serving.push({ versionId, percentage, commit });
    const at = `version ${versionId} (${percentage}% of traffic)`;
    if (commit === null) {
      problems.push(`${at} names no commit: it was deployed before releases were labelled, or by hand, so it may be older than ${required}.`);
      continue;
    }
    const descends = io.isAncestor(required, commit);
    if (descends === null) problems.push(`${at} runs commit ${commit}, which this clone does not have (git fetch, then try again).`);
    else if (!descends) problems.push(`${at} runs commit ${commit}, which is not ${required} nor a descendant of it.`);
  }
  if (problems.length > 0) {
    problems.unshift(
      `production must serve the required release, ${required} (test/releases/previous/meta.json: the release npm run test:deploy proved this one safe against), or a later one:`,
    );
    problems.push(...refusalAdvice(required));
  }
  return { ok: problems.length === 0, firstDeploy: false, serving, problems };
}

/** What the check would do, as `npm run deploy -- --dry-run` prints it (no network). */
export function describeStop({ required, label, gradual }) {
  return [
    `${shell(statusArgs())}    the versions serving (none: a first deploy, allowed)`,
    `${shell(versionViewArgs("<version>"))}    each one's label: its commit`,
    `git merge-base --is-ancestor ${required} <its commit>    each must be the required release (test/releases/previous/meta.json) or a descendant`,
    `${gradual ? shell(uploadArgs(label)) : shell(deployArgs(label))}    the version uploaded, labelled`,
  ];
}
