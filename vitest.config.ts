import { readFileSync } from "node:fs";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { parseEnv } from "node:util";
import { defineConfig } from "vitest/config";

export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  // The tests run with the same development credentials `npm run dev` uses.
  const devVars = parseEnv(readFileSync(".dev.vars.example", "utf8"));
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            ...devVars,
            TEST_MIGRATIONS: migrations,
            // Short enough that the timeout test is quick, long enough that a
            // loaded 2-core CI machine does not trip it on ordinary calls.
            UPSTREAM_TIMEOUT_MS: "2000",
            SANDBOX_TIMEOUT_DELAY_MS: "4000",
            // The supplier of a 57 receipt never answers on its own during a
            // test run: a test that wants its answer calls letSupplierAnswer.
            SANDBOX_SUPPLIER_DELAY_MS: "600000",
          },
        },
      }),
    ],
    test: {
      setupFiles: ["./test/setup.ts"],
      // The gateway logs every upstream call; show that only for failing tests.
      silent: "passed-only",
      // CI also writes a JSON report to print a plain closing count from.
      reporters: process.env.VITEST_JSON ? ["default", ["json", { outputFile: process.env.VITEST_JSON }]] : ["default"],
    },
  };
});
