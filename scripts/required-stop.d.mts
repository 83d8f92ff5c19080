/** The shape of scripts/required-stop.mjs, for the test that holds the required stop (test/unit/required-stop.test.ts). */
import type { ReleaseLabel } from "./rollout.mjs";

export declare function releaseLabel(commit: string, what?: string): Required<ReleaseLabel>;
export declare function labelArgs(label: Required<ReleaseLabel>): string[];
export declare function deployArgs(label: Required<ReleaseLabel>): string[];
export declare function statusArgs(): string[];
export declare function versionViewArgs(versionId: string): string[];
export declare function labelledCommit(versionJson: string | { annotations?: Record<string, string> }): string | null;
export declare function nothingDeployed(stderr: string): boolean;
export declare function dirtyTree(porcelain: string, ignore?: string[]): string[];
export declare function refusalAdvice(required: string): string[];
export declare const SKIP_WARNING: string[];

export interface StopIo {
  wrangler(args: string[], options?: { capture?: boolean }): { status: number; stdout: string; stderr: string };
  /** true, false, or null when git does not know a commit. */
  isAncestor(ancestor: string, descendant: string): boolean | null;
}
export interface StopResult {
  ok: boolean;
  firstDeploy: boolean;
  serving: { versionId: string; percentage: number; commit: string | null }[];
  problems: string[];
}
export declare function checkRequiredStop(options: { required: string; io: StopIo }): StopResult;
export declare function describeStop(options: { required: string; label: Required<ReleaseLabel>; gradual: boolean }): string[];
