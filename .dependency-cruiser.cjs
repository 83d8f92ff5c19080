/**
 * The import rules of src/, checked by `npm run lint:imports` (part of
 * `npm test`). Each rule says why it holds; a broken one fails the run with
 * the importing file, the imported one and that reason.
 *
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment:
        "Modules that import each other, even only for types, cannot be read, tested or moved one at a time, and a circle of values can meet a half-initialised module at load time. Move what both need into a module below both.",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "sandbox-stands-alone",
      severity: "error",
      comment:
        "src/sandbox/ simulates the partner's payment service: the gateway reaches it only over the UPSTREAM binding, as it reaches the real one. Code of the gateway inside it would let the simulation agree with the gateway by construction instead of by the wire contract (docs/upstream-wire.md).",
      from: { path: "^src/sandbox/" },
      to: { path: "^src/", pathNot: "^src/sandbox/" },
    },
    {
      name: "record-knows-no-http",
      severity: "error",
      comment:
        "The record's parts (src/record/) decide a receipt's or transfer's life inside its Durable Object, whoever asked. Routes, operations, the HTTP helpers, authentication, the guard, the console and hono stay in front of it, so the record answers plain data and its rules hold for every caller.",
      from: { path: "^src/record/" },
      to: {
        path: [
          "^src/operations/",
          "^src/app[.]ts$",
          "^src/http[.]ts$",
          "^src/auth[.]ts$",
          "^src/guard[.]ts$",
          "^src/console/",
          "(^|/)node_modules/hono/",
        ],
      },
    },
    {
      name: "src-imports-no-tooling",
      severity: "error",
      comment:
        "test/, scripts/ and bench/ are run by Node or vitest around the Worker, never deployed with it: an import of them from src/ would pull test support or tooling into the bundle, or fail to build.",
      from: { path: "^src/" },
      to: { path: "^(test|scripts|bench)/" },
    },
  ],
  options: {
    // Type-only imports are dependencies too: a circle of types is a circle.
    // swc parses the sources as written, so it sees them. (tsPreCompilationDeps
    // would ask for the TypeScript API, which TypeScript 7 does not have: with
    // it set, every run warns that sources may have been missed.)
    parser: "swc",
    doNotFollow: { path: "(^|/)node_modules/" },
    // The workerd modules (cloudflare:workers) resolve to nothing on disk.
    exclude: { path: "^cloudflare:" },
    moduleSystems: ["es6"],
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "workerd", "worker", "browser", "default", "types"],
      mainFields: ["module", "main", "types"],
      extensions: [".ts", ".js", ".mjs", ".json"],
    },
  },
};
