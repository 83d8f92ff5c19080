/**
 * `npm run deploy -- --gradual` (scripts/deploy.mjs, scripts/rollout.mjs),
 * offline: the plan its --dry-run prints, and the rollout run against a
 * wrangler, a gateway and an operator played here, so what it asks
 * Cloudflare to do, in which order, and when it rolls back is what the
 * runbook says (docs/production.md, "Gradual rollout").
 */
import { describe, expect, it } from "vitest";
import {
  DEFAULT_STEPS,
  describePlan,
  gradualRollout,
  parseSteps,
  type RolloutIo,
  rolloutPlan,
  servingVersion,
  uploadedVersion,
} from "../../scripts/rollout.mjs";

const WORKER = "payments-gateway";
const URL = "https://payments.partner.uz";
const OLD = "0f1e2d3c-0000-4000-8000-000000000001";
const NEW = "9a8b7c6d-0000-4000-8000-000000000002";
const env = ["--env", "production"];

describe("the steps of a gradual rollout", () => {
  it("are 10%, 50% and 100% unless --steps says otherwise: rising, ending at 100", () => {
    expect(DEFAULT_STEPS).toEqual([10, 50, 100]);
    expect(parseSteps(undefined)).toEqual([10, 50, 100]);
    expect(parseSteps("5, 25,100")).toEqual([5, 25, 100]);
    expect(() => parseSteps("50,10,100")).toThrow("each step must be larger than the one before");
    expect(() => parseSteps("10,50")).toThrow("the last step must be 100");
    expect(() => parseSteps("0,100")).toThrow("whole percentages from 1 to 100");
    expect(() => parseSteps("10,half,100")).toThrow("whole percentages from 1 to 100");
  });
});

describe("the plan --dry-run prints", () => {
  const plan = rolloutPlan({ worker: WORKER, url: URL, oldVersion: OLD, newVersion: NEW });

  it("uploads the version, puts it in the deployment at 0%, then gives it 10%, 50% and 100%", () => {
    expect(plan.upload.slice(0, 2)).toEqual(["versions", "upload"]);
    expect(plan.steps.map((step) => step.deploy)).toEqual([
      ["versions", "deploy", `${NEW}@0%`, `${OLD}@100%`, "--yes", "--message", "gradual rollout: 0%", ...env],
      ["versions", "deploy", `${NEW}@10%`, `${OLD}@90%`, "--yes", "--message", "gradual rollout: 10%", ...env],
      ["versions", "deploy", `${NEW}@50%`, `${OLD}@50%`, "--yes", "--message", "gradual rollout: 50%", ...env],
      ["versions", "deploy", `${NEW}@100%`, "--yes", "--message", "gradual rollout: 100%", ...env],
    ]);
  });

  it("checks the new version's /readyz at each step, asking for it by Cloudflare-Workers-Version-Overrides, and its error rate once it serves", () => {
    for (const step of plan.steps) {
      expect(step.readiness).toEqual({ url: `${URL}/readyz`, header: ["Cloudflare-Workers-Version-Overrides", `${WORKER}="${NEW}"`] });
    }
    expect(plan.steps.map((step) => step.errorRate === null)).toEqual([true, false, false, false]);
    const checked = rolloutPlan({ worker: WORKER, url: URL, check: "node errors-check.mjs" });
    expect(checked.steps.slice(1).map((step) => step.errorRate)).toEqual([1, 2, 3].map(() => ({ command: "node errors-check.mjs" })));
  });

  it("prints at every step the command that rolls back: the serving version at 100%, pasteable as it is", () => {
    for (const step of plan.steps)
      expect(step.rollback).toEqual(["versions", "deploy", `${OLD}@100%`, "--yes", "--message", "gradual rollout: rolled back", ...env]);
    const lines = describePlan(rolloutPlan({ worker: WORKER, url: URL }));
    expect(lines.filter((line) => line.startsWith("  rollback: "))).toEqual(
      Array(4).fill(
        "  rollback: npx wrangler versions deploy '<serving-version>@100%' --yes --message 'gradual rollout: rolled back' --env production",
      ),
    );
  });
});

describe("what wrangler answers", () => {
  it("the serving version is the one at 100%; a split deployment (an earlier rollout unfinished) is refused", () => {
    expect(servingVersion(JSON.stringify({ versions: [{ version_id: OLD, percentage: 100 }] }))).toBe(OLD);
    expect(() =>
      servingVersion({
        versions: [
          { version_id: OLD, percentage: 90 },
          { version_id: NEW, percentage: 10 },
        ],
      }),
    ).toThrow("an earlier rollout is not finished");
  });

  it("the uploaded version is read from wrangler's output file", () => {
    const output = [
      JSON.stringify({ type: "wrangler-session", version: 1 }),
      JSON.stringify({ type: "version-upload", version: 1, worker_name: WORKER, version_id: NEW, preview_url: null }),
    ].join("\n");
    expect(uploadedVersion(output)).toEqual({ versionId: NEW, previewUrl: null });
  });
});

/** A wrangler, a gateway and an operator, played: what the rollout asked of each. */
function world(options: { readyz?: (percent: number) => number; check?: (percent: number) => number; answers?: string[] } = {}) {
  const calls: string[][] = [];
  let percent = -1;
  const asked: string[] = [];
  const overrides: string[] = [];
  const io: RolloutIo = {
    wrangler(args) {
      calls.push(args);
      if (args[0] === "deployments") return { status: 0, stdout: JSON.stringify({ versions: [{ version_id: OLD, percentage: 100 }] }), stderr: "" };
      const share = args[0] === "versions" && args[1] === "deploy" ? /@(\d+)%$/.exec(args[2]!) : null;
      if (share && args[2]!.startsWith(NEW)) percent = Number(share[1]);
      return { status: 0, stdout: "", stderr: "" };
    },
    readOutput: () => JSON.stringify({ type: "version-upload", version_id: NEW }),
    async fetch(_url, init) {
      overrides.push(init.headers["Cloudflare-Workers-Version-Overrides"]!);
      return new Response("{}", { status: options.readyz?.(percent) ?? 200 });
    },
    exec: () => options.check?.(percent) ?? 0,
    async ask(question) {
      asked.push(question);
      return options.answers?.shift() ?? "y";
    },
    pause: async () => undefined,
    log: () => undefined,
  };
  const deploys = () => calls.filter((args) => args[1] === "deploy").map((args) => args.slice(2, args.indexOf("--yes")).join(" "));
  return { io, calls, deploys, asked, overrides };
}

describe("a gradual rollout, run", () => {
  it("reads the serving version, uploads, and goes 0%, 10%, 50%, 100% while every check passes", async () => {
    const w = world();
    await expect(gradualRollout({ worker: WORKER, url: URL, steps: [10, 50, 100], check: "true", io: w.io })).resolves.toBe(NEW);
    expect(w.calls.slice(0, 2).map((args) => args.slice(0, 2))).toEqual([
      ["deployments", "status"],
      ["versions", "upload"],
    ]);
    expect(w.deploys()).toEqual([`${NEW}@0% ${OLD}@100%`, `${NEW}@10% ${OLD}@90%`, `${NEW}@50% ${OLD}@50%`, `${NEW}@100%`]);
    expect(new Set(w.overrides)).toEqual(new Set([`${WORKER}="${NEW}"`]));
  });

  it("rolls back to the serving version when the error-rate check fails, and goes no further", async () => {
    const w = world({ check: (percent) => (percent === 50 ? 1 : 0) });
    await expect(gradualRollout({ worker: WORKER, url: URL, steps: [10, 50, 100], check: "errors-below-1%", io: w.io })).rejects.toThrow(
      `rolled back to ${OLD} after the 50% step`,
    );
    expect(w.deploys()).toEqual([`${NEW}@0% ${OLD}@100%`, `${NEW}@10% ${OLD}@90%`, `${NEW}@50% ${OLD}@50%`, `${OLD}@100%`]);
  });

  it("rolls back when the new version is not ready, before it serves anyone", async () => {
    const w = world({ readyz: () => 503 });
    await expect(gradualRollout({ worker: WORKER, url: URL, steps: [10, 50, 100], io: w.io })).rejects.toThrow("after the 0% step");
    expect(w.deploys()).toEqual([`${NEW}@0% ${OLD}@100%`, `${OLD}@100%`]);
  });

  it("without --check, asks the operator at each step that serves: n rolls back, s stops where it is", async () => {
    const back = world({ answers: ["y", "n"] });
    await expect(gradualRollout({ worker: WORKER, url: URL, steps: [10, 50, 100], io: back.io })).rejects.toThrow("rolled back");
    expect(back.asked).toHaveLength(2);
    expect(back.deploys().at(-1)).toBe(`${OLD}@100%`);

    const stop = world({ answers: ["s"] });
    await expect(gradualRollout({ worker: WORKER, url: URL, steps: [10, 50, 100], io: stop.io })).rejects.toThrow("stopped at 10%");
    expect(stop.deploys()).toEqual([`${NEW}@0% ${OLD}@100%`, `${NEW}@10% ${OLD}@90%`]);
  });
});
