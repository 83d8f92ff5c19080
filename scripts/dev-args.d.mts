/** The shape of scripts/dev-args.mjs, for the test that reads it (test/unit/dev-args.test.ts). */
export declare function persistToOf(argv: readonly string[]): string | undefined;
export declare function portOf(argv: readonly string[]): string | undefined;
export declare function migrationsApplyArgs(binding: string, argv: readonly string[]): string[];
