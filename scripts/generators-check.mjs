#!/usr/bin/env node
// The generators' gate (client's `npm run typecheck`, so `npm test` and CI):
// openapi.json through the three generators a partner's developer reaches for,
// offline: openapi-typescript (the client's own src/schema.ts, checked there),
// @hey-api/openapi-ts (types, sdk, fetch client) and orval (fetch client and
// zod schemas), into client/generated/ (not committed). Then `tsc --strict`
// over the outputs and client/test-types/generators.ts, whose @ts-expect-error
// lines prove each generator types a2c/create's body and create's currency.
// Prints each output's size. `node scripts/generators-check.mjs --sizes <openapi.json>`
// only generates from another document and prints the sizes (an older one's, to compare).
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { registerHooks } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const OUT = join(ROOT, "client", "generated");
const sizesOf = process.argv[2] === "--sizes" ? process.argv[3] : undefined;
const BIN = join(ROOT, "node_modules", ".bin");

function run(what, command, args, cwd = OUT) {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  if (result.status !== 0) {
    console.error(`${what} failed:\n${(result.stdout + result.stderr).slice(-4000)}`);
    process.exit(1);
  }
}

function size(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + size(join(path, name)), 0);
}

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
cpSync(sizesOf ?? join(ROOT, "openapi.json"), join(OUT, "openapi.json"));

// @hey-api/openapi-ts drives the TypeScript compiler's JavaScript API, which
// the root's TypeScript 7 (native) does not have: it gets the client's 5.x.
const typescript = pathToFileURL(join(ROOT, "client", "node_modules", "typescript", "lib", "typescript.js")).href;
registerHooks({
  resolve: (specifier, context, next) =>
    specifier === "typescript" ? { url: typescript, format: "commonjs", shortCircuit: true } : next(specifier, context),
});
const { createClient } = await import("@hey-api/openapi-ts");
await createClient({ input: join(OUT, "openapi.json"), output: join(OUT, "hey-api"), logs: { level: "silent" } });
writeFileSync(
  join(OUT, "orval.config.cjs"),
  `module.exports = {
  api: { input: { target: "./openapi.json" }, output: { target: "./orval/api.ts", client: "fetch", mode: "single" } },
  zod: { input: { target: "./openapi.json" }, output: { target: "./orval/zod.ts", client: "zod", mode: "single" } },
};
`,
);
run("orval", join(BIN, "orval"), ["--config", "orval.config.cjs"]);
if (sizesOf !== undefined) {
  console.log(`generators: from ${sizesOf}: @hey-api/openapi-ts ${size(join(OUT, "hey-api"))} bytes, orval ${size(join(OUT, "orval"))} bytes`);
  process.exit(0);
}
cpSync(join(ROOT, "client", "test-types", "generators.ts"), join(OUT, "check.ts"));
writeFileSync(
  join(OUT, "tsconfig.json"),
  JSON.stringify(
    {
      compilerOptions: {
        target: "es2022",
        lib: ["es2022", "dom"],
        module: "esnext",
        moduleResolution: "bundler",
        strict: true,
        noEmit: true,
        skipLibCheck: true,
      },
      include: ["hey-api/**/*.ts", "orval/**/*.ts", "check.ts", "../src/schema.ts"],
    },
    null,
    2,
  ),
);
run("tsc --strict over the generated code", join(ROOT, "client", "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"]);

const sizes = {
  "openapi-typescript (client/src/schema.ts)": size(join(ROOT, "client", "src", "schema.ts")),
  "@hey-api/openapi-ts": size(join(OUT, "hey-api")),
  orval: size(join(OUT, "orval")),
};
for (const [name, bytes] of Object.entries(sizes)) console.log(`generators: ${name} ${bytes} bytes, typechecks under --strict`);
