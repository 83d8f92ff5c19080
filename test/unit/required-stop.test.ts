/**
 * `npm run deploy`'s required stop (scripts/required-stop.mjs,
 * scripts/deploy.mjs), offline: what it asks Cloudflare, against a wrangler
 * and a git history played here, and what it lets through. A release is
 * deployed only over the one `npm run test:deploy` proved it safe against
 * (test/releases/previous/meta.json's commit) or a later one, or over
 * nothing; each version it uploads names the commit it was built from
 * (docs/production.md, "Deploys").
 */
import { describe, expect, it } from "vitest";
import {
  checkRequiredStop,
  deployArgs,
  describeStop,
  dirtyTree,
  labelledCommit,
  releaseLabel,
  SKIP_WARNING,
  type StopIo,
} from "../../scripts/required-stop.mjs";
import { gradualRollout, type RolloutIo, rolloutPlan } from "../../scripts/rollout.mjs";
import meta from "../releases/previous/meta.json";

const commitId = (n: number) => n.toString(16).padStart(40, "c");
/** A history played here: OLDER, then REQUIRED (the fixture's commit), then LATER and LATEST; ASIDE branches off before REQUIRED. */
const OLDER = commitId(1);
const REQUIRED = meta.commit;
const LATER = commitId(3);
const LATEST = commitId(4);
const ASIDE = commitId(5);
const PARENT: Record<string, string | undefined> = { [REQUIRED]: OLDER, [LATER]: REQUIRED, [LATEST]: LATER, [ASIDE]: OLDER };

function isAncestor(ancestor: string, descendant: string): boolean | null {
  const known = (id: string) => id in PARENT || id === OLDER;
  const full = Object.keys(PARENT)
    .concat(OLDER)
    .find((id) => id.startsWith(descendant));
  if (!known(ancestor) || !full) return null;
  for (let at: string | undefined = full; at; at = PARENT[at]) if (at === ancestor) return true;
  return false;
}

const V1 = "0f1e2d3c-0000-4000-8000-000000000001";
const V2 = "9a8b7c6d-0000-4000-8000-000000000002";
/** A version as `wrangler versions view --json` shows it, labelled with `annotations`. */
const version = (annotations: Record<string, string>) => JSON.stringify({ id: "x", annotations, metadata: {} });
const labelled = (commit: string) => {
  const { tag, message } = releaseLabel(commit);
  return { "workers/tag": tag, "workers/message": message, "workers/triggered_by": "upload" };
};

/** Cloudflare as wrangler answers: `deployed` the versions serving (each with its share and annotations), or a failure of `deployments status`. */
function cloudflare(deployed: { id: string; percentage: number; annotations: Record<string, string> }[] | { stderr: string }) {
  const calls: string[][] = [];
  const io: StopIo = {
    wrangler(args) {
      calls.push(args);
      if (!Array.isArray(deployed)) return { status: 1, stdout: "", stderr: deployed.stderr };
      if (args[0] === "deployments")
        return { status: 0, stdout: JSON.stringify({ versions: deployed.map((v) => ({ version_id: v.id, percentage: v.percentage })) }), stderr: "" };
      const found = deployed.find((v) => v.id === args[2]);
      return found ? { status: 0, stdout: version(found.annotations), stderr: "" } : { status: 1, stdout: "", stderr: "not found" };
    },
    isAncestor,
  };
  return { io, calls };
}

describe("the required stop", () => {
  it("is the commit of the release npm run test:deploy runs against", () => {
    expect(REQUIRED).toMatch(/^[0-9a-f]{40}$/);
  });

  it("lets a first deploy through: the Worker has no deployment, or does not exist yet", () => {
    for (const stderr of [
      "✘ [ERROR] The Worker payments-gateway has no deployments.",
      "✘ [ERROR] A request to the Cloudflare API (/accounts/abc/workers/scripts/payments-gateway/deployments) failed.\n\n  This Worker does not exist on your account. [code: 10007]",
    ]) {
      const { io } = cloudflare({ stderr });
      expect(checkRequiredStop({ required: REQUIRED, io })).toEqual({ ok: true, firstDeploy: true, serving: [], problems: [] });
    }
  });

  it("refuses when it cannot ask Cloudflare: no answer is not a first deploy", () => {
    const { io } = cloudflare({ stderr: "✘ [ERROR] Authentication error [code: 10000]" });
    const result = checkRequiredStop({ required: REQUIRED, io });
    expect(result.ok).toBe(false);
    expect(result.firstDeploy).toBe(false);
    expect(result.problems[0]).toContain("could not ask Cloudflare what production serves");
  });

  it("lets the deploy through over the required release, or a descendant of it, asking wrangler for each version's label", () => {
    for (const commit of [REQUIRED, LATER, LATEST]) {
      const { io, calls } = cloudflare([{ id: V1, percentage: 100, annotations: labelled(commit) }]);
      expect(checkRequiredStop({ required: REQUIRED, io })).toEqual({
        ok: true,
        firstDeploy: false,
        serving: [{ versionId: V1, percentage: 100, commit }],
        problems: [],
      });
      expect(calls).toEqual([
        ["deployments", "status", "--json", "--env", "production"],
        ["versions", "view", V1, "--json", "--env", "production"],
      ]);
    }
  });

  it("reads the commit from the tag alone when the message no longer names it (a version made by a secret change)", () => {
    const { io } = cloudflare([
      { id: V1, percentage: 100, annotations: { "workers/tag": LATER.slice(0, 12), "workers/message": 'Updated secret "TID_SECRET"' } },
    ]);
    expect(checkRequiredStop({ required: REQUIRED, io }).ok).toBe(true);
  });

  it("refuses an older release, naming both commits and what to run", () => {
    const { io } = cloudflare([{ id: V1, percentage: 100, annotations: labelled(OLDER) }]);
    const result = checkRequiredStop({ required: REQUIRED, io });
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([
      `production must serve the required release, ${REQUIRED} (test/releases/previous/meta.json: the release npm run test:deploy proved this one safe against), or a later one:`,
      `version ${V1} (100% of traffic) runs commit ${OLDER}, which is not ${REQUIRED} nor a descendant of it.`,
      `Deploy the required release first: git checkout ${REQUIRED} && npm ci && npm run deploy`,
      `(a release older than the stop labels nothing: then also npx wrangler deploy --tag ${REQUIRED.slice(0, 12)} --message 'npm run deploy, commit ${REQUIRED}' --env production),`,
      "wait out the window in which you would roll it back, then check this release out again and npm run deploy.",
      "npm run deploy -- --skip-required-stop deploys anyway (it says what that risks).",
    ]);
  });

  it("refuses a release on another branch, and one this clone does not know", () => {
    const aside = checkRequiredStop({ required: REQUIRED, io: cloudflare([{ id: V1, percentage: 100, annotations: labelled(ASIDE) }]).io });
    expect(aside.problems[1]).toBe(`version ${V1} (100% of traffic) runs commit ${ASIDE}, which is not ${REQUIRED} nor a descendant of it.`);
    const unknown = commitId(9);
    const stranger = checkRequiredStop({ required: REQUIRED, io: cloudflare([{ id: V1, percentage: 100, annotations: labelled(unknown) }]).io });
    expect(stranger.ok).toBe(false);
    expect(stranger.problems[1]).toBe(
      `version ${V1} (100% of traffic) runs commit ${unknown}, which this clone does not have (git fetch, then try again).`,
    );
  });

  it("refuses a version that names no commit (deployed before releases were labelled, or by hand)", () => {
    const unlabelled: Record<string, string>[] = [{}, { "workers/message": "hotfix", "workers/tag": "v1.2" }, { "workers/triggered_by": "secret" }];
    for (const annotations of unlabelled) {
      const result = checkRequiredStop({ required: REQUIRED, io: cloudflare([{ id: V1, percentage: 100, annotations }]).io });
      expect(result.ok).toBe(false);
      expect(result.serving).toEqual([{ versionId: V1, percentage: 100, commit: null }]);
      expect(result.problems[1]).toBe(
        `version ${V1} (100% of traffic) names no commit: it was deployed before releases were labelled, or by hand, so it may be older than ${REQUIRED}.`,
      );
      expect(result.problems).toContain(`Deploy the required release first: git checkout ${REQUIRED} && npm ci && npm run deploy`);
    }
  });

  it("judges every version of a gradual deployment: one older than the required release is refused, whatever its share", () => {
    const split = (older: number) =>
      cloudflare([
        { id: V1, percentage: 100 - older, annotations: labelled(LATEST) },
        { id: V2, percentage: older, annotations: labelled(OLDER) },
      ]);
    for (const older of [90, 1]) {
      const { io, calls } = split(older);
      const result = checkRequiredStop({ required: REQUIRED, io });
      expect(result.ok).toBe(false);
      expect(result.problems.filter((line) => line.startsWith("version "))).toEqual([
        `version ${V2} (${older}% of traffic) runs commit ${OLDER}, which is not ${REQUIRED} nor a descendant of it.`,
      ]);
      expect(calls.filter((args) => args[1] === "view").map((args) => args[2])).toEqual([V1, V2]);
    }
    const both = cloudflare([
      { id: V1, percentage: 50, annotations: labelled(LATEST) },
      { id: V2, percentage: 50, annotations: labelled(REQUIRED) },
    ]);
    expect(checkRequiredStop({ required: REQUIRED, io: both.io }).ok).toBe(true);
  });

  it("says why skipping it is dangerous", () => {
    expect(SKIP_WARNING.join(" ")).toContain("A rollback would then land on code that may not read what this release stores");
  });
});

describe("the label of what npm run deploy uploads", () => {
  const label = releaseLabel(LATEST);

  it("names the commit in the tag and the message, and reads back as that commit", () => {
    expect(label).toEqual({ tag: LATEST.slice(0, 12), message: `npm run deploy, commit ${LATEST}` });
    expect(labelledCommit(version({ "workers/tag": label.tag, "workers/message": label.message }))).toBe(LATEST);
    expect(() => releaseLabel("HEAD")).toThrow("not a full commit id");
  });

  it("is passed to wrangler deploy", () => {
    expect(deployArgs(label)).toEqual(["deploy", "--tag", label.tag, "--message", label.message, "--env", "production"]);
  });

  it("is passed to wrangler versions upload by a gradual rollout, and printed by its dry run", async () => {
    const gradual = releaseLabel(LATEST, "npm run deploy --gradual");
    const plan = rolloutPlan({ worker: "payments-gateway", url: "https://payments.partner.uz", label: gradual });
    expect(plan.upload).toEqual(["versions", "upload", "--tag", gradual.tag, "--message", gradual.message, "--env", "production"]);

    const calls: string[][] = [];
    const io: RolloutIo = {
      wrangler(args) {
        calls.push(args);
        if (args[0] === "deployments") return { status: 0, stdout: JSON.stringify({ versions: [{ version_id: V1, percentage: 100 }] }), stderr: "" };
        return { status: 0, stdout: "", stderr: "" };
      },
      readOutput: () => JSON.stringify({ type: "version-upload", version_id: V2 }),
      fetch: async () => new Response("{}"),
      exec: () => 0,
      ask: async () => "y",
      pause: async () => undefined,
      log: () => undefined,
    };
    await gradualRollout({ worker: "payments-gateway", url: "https://payments.partner.uz", steps: [100], check: "true", label: gradual, io });
    expect(calls.find((args) => args[1] === "upload")).toEqual(plan.upload);

    expect(describeStop({ required: REQUIRED, label: gradual, gradual: true })).toEqual([
      "npx wrangler deployments status --json --env production    the versions serving (none: a first deploy, allowed)",
      "npx wrangler versions view '<version>' --json --env production    each one's label: its commit",
      `git merge-base --is-ancestor ${REQUIRED} <its commit>    each must be the required release (test/releases/previous/meta.json) or a descendant`,
      `npx wrangler versions upload --tag ${gradual.tag} --message 'npm run deploy --gradual, commit ${LATEST}' --env production    the version uploaded, labelled`,
    ]);
  });
});

describe("a dirty tree", () => {
  it("names what differs from the commit, untracked files too, but not the configuration file being deployed", () => {
    const porcelain = [" M wrangler.toml", " M src/index.ts", "?? src/new-rule.ts", 'R  "docs/a b.md" -> docs/c.md', ""].join("\n");
    expect(dirtyTree(porcelain, ["wrangler.toml"])).toEqual(["src/index.ts", "src/new-rule.ts", "docs/c.md"]);
    expect(dirtyTree(" M wrangler.toml\n", ["wrangler.toml"])).toEqual([]);
    expect(dirtyTree("")).toEqual([]);
  });
});
