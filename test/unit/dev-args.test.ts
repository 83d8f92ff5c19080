/**
 * `npm run dev -- --persist-to DIR` (scripts/dev.mjs): the D1 migrations go to
 * the state wrangler dev will use, DIR, not the default one. Applied to the
 * default state, DIR's databases have no tables and every create fails.
 */
import { describe, expect, it } from "vitest";
import { migrationsApplyArgs, persistToOf, portOf } from "../../scripts/dev-args.mjs";

describe("npm run dev's migrations", () => {
  it("go to the directory --persist-to names, in either spelling, the last one given", () => {
    const base = ["d1", "migrations", "apply", "DB_TID_1", "--local", "--env", "dev"];
    expect(migrationsApplyArgs("DB_TID_1", ["--persist-to", "/tmp/state"])).toEqual([...base, "--persist-to", "/tmp/state"]);
    expect(migrationsApplyArgs("DB_TID_1", ["--port", "9000", "--persist-to=/tmp/a b", "--log-level", "warn"])).toEqual([
      ...base,
      "--persist-to",
      "/tmp/a b",
    ]);
    expect(persistToOf(["--persistTo", "one", "--persist-to=two"])).toBe("two");
  });

  it("go to wrangler's default state when dev is given no --persist-to", () => {
    expect(migrationsApplyArgs("DB", ["--port", "9000"])).toEqual(["d1", "migrations", "apply", "DB", "--local", "--env", "dev"]);
    expect(persistToOf(["--persist-to"])).toBeUndefined();
  });

  it("leave the port to --port when dev is given one (wrangler refuses two), in either spelling, the last one given", () => {
    expect(portOf(["--port", "18787", "--persist-to", "/tmp/state"])).toBe("18787");
    expect(portOf(["--port=9000", "--port", "9001"])).toBe("9001");
    expect(portOf(["--persist-to", "/tmp/state"])).toBeUndefined();
  });
});
