#!/usr/bin/env node
// The generators' gate (client's `npm run typecheck`, so `npm test` and CI):
// openapi.json through the three generators a partner's developer reaches for,
// offline: openapi-typescript (the client's own src/schema.ts, checked there),
// @hey-api/openapi-ts (types, sdk, fetch client) and orval (fetch client and
// zod schemas), into client/generated/ (not committed). Then the TypeScript
// compiler (the client's 5.x, strict) over the outputs and
// client/test-types/generators.ts, whose @ts-expect-error lines prove each
// generator types a2c/create's body (tid, or the upstream's tId), create's
// currency and an event's object.
// Then, in the same program, every request body and every success body of
// every operation, and every webhook's body, as each generator types it
// (openapi-typescript's paths and webhooks, hey-api's *Data bodies,
// *Responses and *WebhookPayload, orval's functions' parameters, their
// *ResponseSuccess data, but for a HEAD's, which has no body, and its Event),
// walked property by property, item by item: none may be `unknown` or `any`, or a generated client would not be
// typed there. One kind of `unknown` is allowed, a pass-through open object:
// an object whose known properties are typed and whose index signature (the
// fields the payment service may add) is `unknown`; and one place, where the
// payment service publishes nothing: the entries of a merchant's `fields`
// (MerchantField). Prints each output's size.
// `node scripts/generators-check.mjs --sizes <openapi.json>` only generates
// from another document and prints the sizes (an older one's, to compare).
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire, registerHooks } from "node:module";
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

const ts = createRequire(join(ROOT, "client", "package.json"))("typescript");
const config = ts.parseJsonConfigFileContent(JSON.parse(readFileSync(join(OUT, "tsconfig.json"), "utf8")), ts.sys, OUT);
const program = ts.createProgram(config.fileNames, config.options);
const diagnostics = ts.getPreEmitDiagnostics(program);
if (diagnostics.length > 0) {
  const host = { getCanonicalFileName: (name) => name, getCurrentDirectory: () => OUT, getNewLine: () => "\n" };
  console.error(`tsc --strict over the generated code failed:\n${ts.formatDiagnostics(diagnostics.slice(0, 20), host)}`);
  process.exit(1);
}

const checker = program.getTypeChecker();
/** Where the payment service publishes nothing, so the generated type is an open object of unknown values (see the top of this file). */
const UNPUBLISHED = /\.merchant\.fields\[\]\[key\]$/;
const untyped = [];
/** The types walked, per generator (each generator's places are reported, though two may share a type such as unknown[]). */
const walked = new Map();

/** Reports every place under `type` that is unknown or any, as a path from `where` (which begins with the generator's name). */
function walk(type, where) {
  if (!type) {
    untyped.push(`${where}: not found in the generated code`);
    return;
  }
  const generator = where.split(" ")[0];
  const seen = walked.get(generator) ?? walked.set(generator, new Set()).get(generator);
  if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) {
    if (!UNPUBLISHED.test(where)) untyped.push(where);
    return;
  }
  if (seen.has(type)) return;
  seen.add(type);
  if (type.isUnion() || type.isIntersection()) {
    for (const member of type.types) walk(member, where);
    return;
  }
  if (!(type.flags & ts.TypeFlags.Object)) return;
  if (checker.isArrayType(type) || checker.isTupleType(type)) {
    for (const item of checker.getTypeArguments(type)) walk(item, `${where}[]`);
    return;
  }
  const properties = checker.getPropertiesOfType(type);
  for (const property of properties) walk(checker.getTypeOfSymbol(property), `${where}.${property.name}`);
  for (const index of checker.getIndexInfosOfType(type)) {
    // A pass-through open object: its known properties are typed, the rest is what the payment service may add.
    if (index.type.flags & ts.TypeFlags.Unknown && properties.length > 0) continue;
    walk(index.type, `${where}[key]`);
  }
}

const moduleOf = (file) => checker.getSymbolAtLocation(program.getSourceFile(join(OUT, file)));
const exportsOf = (file) => checker.getExportsOfModule(moduleOf(file));
const declared = (symbol) => checker.getDeclaredTypeOfSymbol(symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);
/** The type of property `path[0]`, then of its `path[1]`, ... (undefined and null dropped); undefined when one is missing. */
function at(type, ...path) {
  let current = type;
  for (const name of path) {
    const property = current && checker.getPropertyOfType(checker.getNonNullableType(current), String(name));
    if (!property) return undefined;
    current = checker.getNonNullableType(checker.getTypeOfSymbol(property));
  }
  return current && current.flags & ts.TypeFlags.Never ? undefined : current;
}
const SUCCESS = ["200", "201", "202", "2XX"];

// openapi-typescript: paths[P][method].requestBody and .responses[2xx], each's application/json; webhooks' request bodies.
const schema = new Map(exportsOf("../src/schema.ts").map((symbol) => [symbol.name, declared(symbol)]));
for (const path of checker.getPropertiesOfType(schema.get("paths"))) {
  const item = checker.getTypeOfSymbol(path);
  for (const method of ["get", "post"]) {
    const operation = at(item, method);
    if (!operation) continue;
    const name = `openapi-typescript paths["${path.name}"].${method}`;
    const body = at(operation, "requestBody", "content", "application/json");
    if (body) walk(body, `${name} request`);
    for (const status of SUCCESS) {
      const answer = at(operation, "responses", status, "content", "application/json");
      if (answer) walk(answer, `${name} ${status}`);
    }
  }
}
for (const hook of checker.getPropertiesOfType(schema.get("webhooks"))) {
  walk(at(checker.getTypeOfSymbol(hook), "post", "requestBody", "content", "application/json"), `openapi-typescript webhooks["${hook.name}"]`);
}

// @hey-api/openapi-ts: each operation's *Data body and *Responses' 2xx, each webhook's payload.
for (const symbol of exportsOf("hey-api/types.gen.ts")) {
  const type = declared(symbol);
  if (symbol.name.endsWith("Data") && at(type, "body")) walk(at(type, "body"), `hey-api ${symbol.name}.body`);
  if (symbol.name.endsWith("Responses"))
    for (const status of SUCCESS) if (at(type, status)) walk(at(type, status), `hey-api ${symbol.name}[${status}]`);
  if (symbol.name.endsWith("WebhookPayload")) walk(type, `hey-api ${symbol.name}`);
}

// orval: each operation function's parameters (its body), each *ResponseSuccess's data, and the Event model (orval makes no webhooks).
// A HEAD answer has no body: its *ResponseSuccess has no data to walk.
const document = JSON.parse(readFileSync(join(OUT, "openapi.json"), "utf8"));
const bodiless = new Set(
  Object.values(document.paths).flatMap((item) => (item.head?.operationId ? [`${item.head.operationId}ResponseSuccess`] : [])),
);
for (const symbol of exportsOf("orval/api.ts")) {
  if (symbol.flags & ts.SymbolFlags.Variable) {
    for (const signature of checker.getTypeOfSymbol(symbol).getCallSignatures()) {
      for (const parameter of signature.getParameters()) {
        if (parameter.name !== "options") walk(checker.getTypeOfSymbol(parameter), `orval ${symbol.name}(${parameter.name})`);
      }
    }
  } else if (symbol.name.endsWith("ResponseSuccess") && !bodiless.has(symbol.name)) walk(at(declared(symbol), "data"), `orval ${symbol.name}.data`);
  else if (symbol.name === "Event") walk(declared(symbol), "orval Event");
}

for (const generator of ["openapi-typescript", "hey-api", "orval"]) {
  if ((walked.get(generator)?.size ?? 0) < 50) {
    console.error(`generators: few types of ${generator}'s walked: its output is not where this script looks for it.`);
    process.exit(1);
  }
}
if (untyped.length > 0) {
  console.error(`generators: ${untyped.length} places of request or success bodies typed unknown or any:\n${untyped.slice(0, 40).join("\n")}`);
  process.exit(1);
}

const sizes = {
  "openapi-typescript (client/src/schema.ts)": size(join(ROOT, "client", "src", "schema.ts")),
  "@hey-api/openapi-ts": size(join(OUT, "hey-api")),
  orval: size(join(OUT, "orval")),
};
for (const [name, bytes] of Object.entries(sizes)) console.log(`generators: ${name} ${bytes} bytes, typechecks under --strict`);
