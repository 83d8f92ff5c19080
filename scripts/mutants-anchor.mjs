/**
 * Where a mutation of scripts/mutants.list.mjs lands: in a named definition
 * of src/ (a function, a class's method, a top-level constant such as a rule
 * table), at a snippet that occurs exactly once inside it. A definition is
 * found by its name wherever its file is, so moving files or rewriting other
 * functions never makes a mutation stale; only a change of the rule's own
 * code does, and then loudly.
 *
 *   "Settlement.settle"   a class's method ("Moves.#load" for a private one)
 *   "admitRisk"           a function, or a top-level const / let
 *
 * Definitions are read with swc (@swc/core, already the import linter's
 * parser), so strings, comments, templates and regular expressions are
 * never mistaken for braces.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parseSync } from "@swc/core";

/** Every .ts file under `dir`, as paths relative to `root`. */
export function sourceFiles(root, dir = "src") {
  const out = [];
  const walk = (d) => {
    for (const entry of readdirSync(join(root, d), { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) out.push(path);
    }
  };
  walk(dir);
  return out.sort();
}

const nameOfKey = (key) =>
  key?.type === "Identifier"
    ? key.value
    : key?.type === "PrivateName"
      ? `#${key.id?.value ?? key.value}`
      : key?.type === "StringLiteral"
        ? key.value
        : null;

/**
 * The named definitions of one source text: [{ name, start, end }], where
 * start and end are indexes into the text (swc counts UTF-8 bytes from 1;
 * the texts hold Uzbek and Russian, so the bytes are turned into indexes).
 */
export function definitionsOf(text, file = "<text>") {
  const bytes = Buffer.from(text, "utf8");
  const index = bytes.length === text.length ? (b) => b : (b) => bytes.subarray(0, b).toString("utf8").length;
  const module = parseSync(text, { syntax: "typescript", target: "es2022", comments: false });
  const at = (span) => ({ start: index(span.start - 1), end: index(span.end - 1) });
  const defs = [];
  const add = (name, span, idSpan, idText) => {
    if (!name) return;
    const where = at(span);
    // swc's spans must point at the name they carry: if a version ever counts otherwise, say so instead of mis-anchoring.
    if (idSpan && text.slice(index(idSpan.start - 1), index(idSpan.end - 1)) !== idText) {
      throw new Error(`${file}: swc's positions do not match the text (at ${name}); the anchor reader needs updating`);
    }
    defs.push({ name, ...where });
  };
  // A definition's span takes in its `export` and `const`, so that a snippet may start with them.
  const declaration = (node, outer = node?.span) => {
    if (!node) return;
    if (node.type === "ExportDeclaration") return declaration(node.declaration, node.span);
    if (node.type === "ExportDefaultDeclaration") return declaration(node.decl, node.span);
    if (node.type === "FunctionDeclaration" || node.type === "FunctionExpression") {
      if (node.identifier) add(node.identifier.value, outer, node.identifier.span, node.identifier.value);
      return;
    }
    if (node.type === "ClassDeclaration" || node.type === "ClassExpression") {
      const cls = node.identifier?.value;
      if (!cls) return;
      add(cls, outer, node.identifier.span, cls);
      for (const member of node.body ?? []) {
        const name = member.type === "Constructor" ? "constructor" : nameOfKey(member.key);
        if (name) add(`${cls}.${name}`, member.span);
      }
      return;
    }
    if (node.type === "VariableDeclaration") {
      const one = node.declarations.length === 1;
      for (const d of node.declarations) {
        if (d.id?.type === "Identifier") add(d.id.value, one ? outer : d.span, d.id.span, d.id.value);
      }
    }
  };
  for (const item of module.body) declaration(item);
  return defs;
}

/** Every definition of src/: name -> [{ file, start, end }]. */
export function indexDefinitions(root, files = sourceFiles(root)) {
  const byName = new Map();
  const texts = new Map();
  for (const file of files) {
    const text = readFileSync(join(root, file), "utf8");
    texts.set(file, text);
    for (const def of definitionsOf(text, file)) {
      const list = byName.get(def.name) ?? [];
      list.push({ file, start: def.start, end: def.end });
      byName.set(def.name, list);
    }
  }
  return { byName, texts };
}

/**
 * Where a mutation lands: { file, text, index } (index of `find` in the file's
 * text), or { error } saying why it cannot: no such definition, a name defined
 * in several files (the entry's optional `file` then says which), or a
 * snippet that does not occur exactly once inside the definition.
 */
export function locate(index, m) {
  // The sandbox simulates the upstream and shares names with the gateway (maskPan, NumberCard): a mutation is the
  // gateway's unless its `file` says otherwise. `file`, for a name defined in more than one file, is the end of
  // the path (`redact.ts`, `sandbox/catalog.ts`), so that moving folders keeps it.
  const sandbox = (d) => d.file.startsWith("src/sandbox/");
  const found = (index.byName.get(m.at) ?? []).filter((d) => (m.file ? d.file === m.file || d.file.endsWith(`/${m.file}`) : !sandbox(d)));
  if (found.length === 0) return { error: `no definition named ${m.at}${m.file ? ` in ${m.file}` : ""} in src/` };
  if (found.length > 1) return { error: `${m.at} is defined in ${found.map((d) => d.file).join(", ")}: name one with file` };
  const def = found[0];
  const text = index.texts.get(def.file);
  const body = text.slice(def.start, def.end);
  const count = body.split(m.find).length - 1;
  if (count !== 1) return { error: `its find text occurs ${count} times in ${m.at} (${def.file}), not once` };
  if (m.find === m.replace) return { error: "find and replace are the same" };
  return { file: def.file, text, index: def.start + body.indexOf(m.find) };
}

/** The mutated text of a located mutation. */
export const mutated = (where, m) => where.text.slice(0, where.index) + m.replace + where.text.slice(where.index + m.find.length);

/** The smallest named definition of `file` that holds text[index, index + length): what an entry's `at` should say. */
export function enclosing(root, file, index, length) {
  const text = readFileSync(join(root, file), "utf8");
  const defs = definitionsOf(text, relative(root, join(root, file))).filter((d) => d.start <= index && index + length <= d.end);
  defs.sort((a, b) => a.end - a.start - (b.end - b.start));
  return defs[0]?.name ?? null;
}
