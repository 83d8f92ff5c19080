import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { parseEnv } from "node:util";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { unstable_readConfig } from "wrangler";
import { DEPLOYMENT_CONFIG_KEYS } from "./src/config/config-rules";

export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  // The tests run with the same development credentials `npm run dev` uses.
  const devVars = parseEnv(readFileSync(".dev.vars.example", "utf8"));
  // The queues as wrangler resolves them for each environment, for the test that
  // holds max_retries and the dead-letter queues to src/events/delivery.ts.
  const queuesOf = (env?: string) => unstable_readConfig({ config: "./wrangler.toml", env }, { hideWarnings: true }).queues;
  // Production's configuration as `npm run deploy` reads it, for test/unit/deploy-check.test.ts.
  const production = unstable_readConfig({ config: "./wrangler.toml", env: "production" }, { hideWarnings: true });
  const deploymentConfig = Object.fromEntries(DEPLOYMENT_CONFIG_KEYS.map((key) => [key, production[key]]));
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml", environment: "dev" },
        // src/dev.ts plus test/support/scripted-upstream.ts's ScriptedUpstream,
        // which UPSTREAM points at below instead of SandboxUpstream: it passes
        // every request to the sandbox unless a test scripts a fault.
        main: "./test/support/worker.ts",
        miniflare: {
          // The Worker's own name: the plugin points a binding to it at the
          // runner, so this is the runner's ScriptedUpstream entrypoint.
          serviceBindings: { UPSTREAM: { name: "payments-gateway-local", entrypoint: "ScriptedUpstream" } },
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
            // Nor does a tok_sandbox_pays_late pay take effect: a test that wants it calls letLatePayHappen.
            SANDBOX_LATE_MS: "600000",
            // Nor does the fiscal data of a tok_sandbox_fiscal_late sale or refund appear: a test that
            // wants it calls letFiscalDataAppear.
            SANDBOX_FISCAL_DELAY_MS: "600000",
            // The receiver that never answers is given up on this fast.
            WEBHOOK_TIMEOUT_MS: "300",
            TEST_WRANGLER_QUEUES: { development: queuesOf("dev"), production: queuesOf("production") },
            TEST_WRANGLER_PRODUCTION: JSON.parse(JSON.stringify(deploymentConfig)),
            // test/integration/model.test.ts's sizes, from the environment (scripts/test-model.mjs sets them).
            MODEL_RUNS: process.env.MODEL_RUNS ?? "",
            MODEL_STEPS: process.env.MODEL_STEPS ?? "",
            MODEL_SEED: process.env.MODEL_SEED ?? "",
            MODEL_VERBOSE: process.env.MODEL_VERBOSE ?? "",
          },
          // Events published in tests go to a queue nobody consumes: the tests call
          // the consumer themselves, so no delivery changes the log behind their back.
          queueProducers: { EVENTS: { queueName: "payments-gateway-events-test-unconsumed" } },
        },
      }),
      {
        // The previous release's bundle (test/releases/previous/worker.js, which a test of rule 13's
        // counters loads to run its RiskObject on this release's storage) names a source map that the
        // fixture does not ship: loaded without that comment, Vite does not look for it.
        name: "previous-release-without-source-map",
        load(id: string) {
          if (!id.endsWith("/test/releases/previous/worker.js")) return null;
          return readFileSync(id, "utf8").replace(/^\/\/# sourceMappingURL=.*$/m, "");
        },
      },
    ],
    test: {
      setupFiles: ["./test/setup.ts", "./test/support/reset-scripted-upstream.ts"],
      // Every test drives a real workerd. On a crowded 2-core host (half its CPU
      // taken by the hypervisor, /proc/stat's steal) ordinary tests of
      // test/integration/auth.test.ts took over vitest's default 5 s; a test that hangs still
      // fails, after 30 s.
      testTimeout: 30_000,
      // A test file spends most of its time waiting on workerd (a Durable
      // Object's storage, D1, the sandbox behind a service binding), not on
      // the CPU: on CI's 2 cores the suite used about a third of them with one
      // file per core. Four files at a time halve its wall time there
      // (bench: `/usr/bin/time npx vitest run --maxWorkers=N`); more cores, more files.
      maxWorkers: Math.max(4, availableParallelism()),
      hookTimeout: 30_000,
      // The gateway logs every upstream call; show that only for failing tests.
      silent: "passed-only",
      // vitest's summary, then one plain closing line (test/support/closing-line.ts).
      reporters: ["default", "./test/support/closing-line.ts"],
    },
  };
});
