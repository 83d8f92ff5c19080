/** The shape of scripts/trigger.mjs, for the test that reads it (test/unit/trigger-recipes.test.ts). */
export declare const RECIPES: Readonly<Record<string, { kind: "receipt" | "transfer"; make(client: unknown): Promise<string> }>>;
export declare function triggerEvent(
  origin: string,
  type: string,
  waitMs?: number,
): Promise<{
  id: string;
  kind: "receipt" | "transfer";
  event: { id: string; type: string; delivery: { status: string } } | null;
  delivered: boolean;
}>;
