/** The shape of scripts/restore-plan.mjs, for the test that holds it to the runbook (test/unit/restore-plan.test.ts). */
export declare const PITR_DAYS: number;
export declare const TRANSFER_EVENT_CODES: number[];
export declare const CREATED_EVENT_CODES: number[];
export declare class RestoreUsageError extends Error {}

export interface RestorePlan {
  mode: "d1" | "record" | "records";
  binding?: string;
  kind?: "receipt" | "transfer";
  id?: string;
  at: string;
  atMs: number;
  dryRun: boolean;
}

export interface WranglerCommand {
  args: string[];
  why: string;
}

export declare function restoreTime(at: string | undefined, now: number): number;
export declare function parseRestoreArgs(
  positionals: string[],
  values: { at?: string; "dry-run"?: boolean },
  context: { now: number; bindings: string[] },
): RestorePlan;
export declare function bookmarkCommand(binding: string, atIso: string): WranglerCommand;
export declare function currentBookmarkCommand(binding: string): WranglerCommand;
export declare function restoreCommand(binding: string, bookmark: string): WranglerCommand;
export declare function queryCommand(binding: string, sql: string): WranglerCommand;
export declare function fileCommand(binding: string, path: string): WranglerCommand;
export declare function erasuresSinceQuery(atMs: number): string;
export declare function erasuresReinsertSql(rows: { user: string; requested_at: number }[]): string;
export declare function firstEventIdAt(atMs: number): string;
export declare function changedRecordsQuery(atMs: number): string;
/** The tid index's tables, as src/tids/tid-index.ts TID_TABLES names them. */
export declare const CLAIM_TABLES: readonly string[];
/** The event log's tables: `events`, then the ring's slots. */
export declare const EVENT_TABLES: readonly string[];
export declare function recordsToRestore(rows: { record_id: string; types: string | null }[]): {
  restore: { kind: "receipt" | "transfer"; id: string }[];
  createdSince: { kind: "receipt" | "transfer"; id: string }[];
};
export declare function rowsOf(stdout: string): Record<string, unknown>[];
export declare function bookmarkOf(stdout: string): string;
export declare function claimsSinceQuery(atMs: number): string;
export declare function claimsReinsertSql(rows: Record<string, unknown>[]): string;
