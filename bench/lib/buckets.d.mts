/** The shape of bench/lib/buckets.mjs, for the test that reads it (test/unit/bench-buckets.test.ts). */
export declare const OTHER: string;
export declare const BUCKETS: readonly { key: string; label: string; what: string }[];
export declare const RULES: readonly {
  bucket: string;
  files?: readonly string[];
  folders?: readonly string[];
  packages?: readonly string[];
  first?: boolean;
}[];
export declare const STUB_CALL: RegExp;
export declare function bucketOfPath(path: string): string;
export declare function bucketOfPackage(name: string): string;
