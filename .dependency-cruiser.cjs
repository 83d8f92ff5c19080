/**
 * The import rules of src/, checked by `npm run lint:imports` (part of
 * `npm test`). Each rule says why it holds; a broken one fails the run with
 * the importing file, the imported one and that reason.
 *
 * @type {import('dependency-cruiser').IConfiguration}
 */

/**
 * src/'s folders (and its few loose files) in layers, the ground first: a
 * part imports only parts of the layers below its own, so the house reads
 * from the bottom up and nothing runs back up (docs/design.md, "The layout").
 * What two parts of one layer, or a lower and a higher part, both need goes
 * down into a part below both.
 */
const LAYERS = [
  ["shared", "config", "stores.ts", "sandbox", "build"],
  ["api"],
  ["errors"],
  ["metrics"],
  ["upstream"],
  ["rules"],
  ["risk", "record-stub.ts"],
  ["d1"],
  ["http", "tids"],
  ["audit", "events"],
  ["record", "statements", "cron"],
  ["operations", "backoffice", "console"],
  ["app.ts"],
  ["index.ts"],
  ["dev.ts"],
];
const pathOf = (part) => (part.endsWith(".ts") ? `^src/${part.replace(".", "[.]")}$` : `^src/${part}/`);
const layerRules = LAYERS.flatMap((layer, i) =>
  layer.flatMap((part) => {
    const above = LAYERS.slice(i).flat().filter((other) => other !== part);
    return above.length === 0 ? [] : [{
    name: `layer-${part.replace(".ts", "")}`,
    severity: "error",
    comment: `src/${part} stands on layer ${i + 1} of LAYERS: it imports only parts of the layers below it, never one of its own layer or above, so no import runs back up and no two parts lean on each other.`,
    from: { path: pathOf(part) },
    to: { path: above.map(pathOf) },
  }];
  }),
);

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: "loose-files-named",
      severity: "error",
      comment: "Every part of src/ has its place in LAYERS: a new folder or a file loose at the top of src/ is placed there first.",
      from: { path: "^src/" },
      to: { path: "^src/", pathNot: LAYERS.flat().map(pathOf) },
    },
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
          "^src/http/http[.]ts$",
          "^src/http/auth[.]ts$",
          "^src/http/guard[.]ts$",
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
