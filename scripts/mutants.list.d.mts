/** The shape of scripts/mutants.list.mjs, for the test that reads it (test/docs/mutants-list.test.ts). */
export interface Mutant {
  name: string;
  file: string;
  find: string;
  replace: string;
  tests: string[];
  grep?: string;
  why: string;
}
export declare const MUTANTS: Mutant[];
