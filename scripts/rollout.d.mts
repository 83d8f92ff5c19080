/** The shape of scripts/rollout.mjs, for the test that holds the gradual rollout to the runbook (test/unit/rollout-plan.test.ts). */
export declare const DEFAULT_STEPS: number[];
export declare class RolloutError extends Error {}
export declare function parseSteps(text: string | undefined): number[];
export declare function versionSpecs(newVersion: string, oldVersion: string, percent: number): string[];
export declare function deployStepArgs(newVersion: string, oldVersion: string, percent: number): string[];
export declare function rollbackArgs(oldVersion: string): string[];
export declare function overrideHeader(worker: string, version: string): string;
export declare function statusArgs(): string[];
export interface ReleaseLabel {
  tag?: string;
  message: string;
}
export declare function uploadArgs(label: ReleaseLabel): string[];
export declare function servingVersion(statusJson: string | { versions?: { version_id: string; percentage: number }[] }): string;
export declare function uploadedVersion(outputFile: string): { versionId: string; previewUrl: string | null };
export declare function shellQuote(arg: string): string;
export declare function shell(args: string[]): string;

export interface RolloutStep {
  percent: number;
  deploy: string[];
  readiness: { url: string; header: [string, string] };
  errorRate: null | { command: string } | { ask: true; tail: string[] };
  rollback: string[];
}
export interface RolloutPlan {
  status: string[];
  upload: string[];
  steps: RolloutStep[];
}
export declare function rolloutPlan(options: {
  worker: string;
  url: string;
  steps?: number[];
  oldVersion?: string;
  newVersion?: string;
  check?: string;
  label?: ReleaseLabel;
}): RolloutPlan;
export declare function describePlan(plan: RolloutPlan): string[];

export interface RolloutIo {
  wrangler(args: string[], options?: { capture?: boolean; output?: boolean }): { status: number; stdout: string; stderr: string };
  readOutput(): string;
  fetch(url: string, init: { headers: Record<string, string>; signal?: AbortSignal }): Promise<Response>;
  exec(command: string, env: Record<string, string>): number;
  ask(question: string): Promise<string>;
  pause(attempt: number): Promise<unknown>;
  log(line: string): void;
}
export declare function gradualRollout(options: {
  worker: string;
  url: string;
  steps: number[];
  check?: string;
  label?: ReleaseLabel;
  io: RolloutIo;
}): Promise<string>;
