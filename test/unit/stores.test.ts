/**
 * Every place the gateway stores data is in src/stores.ts's list (rule 10):
 * this reads the repository as committed (Vite's `?raw` and import.meta.glob)
 * and fails on any touch of storage that no entry names: a binding of a
 * storage kind in wrangler.toml, a table made by a D1 migration or by a
 * Durable Object's schema, a table any statement names, the Cache API, a
 * Durable Object's key-value storage. The sandbox (src/sandbox/, its
 * SANDBOX object) is the payment service's stand-in, not the gateway's.
 */
import { describe, expect, it } from "vitest";
import { type Place, STORES, type Store } from "../../src/stores";
import wranglerToml from "../../wrangler.toml?raw";

const sources = import.meta.glob("../../src/**/*.ts", { query: "?raw", import: "default", eager: true }) as Record<string, string>;
const migrations = import.meta.glob("../../migrations/*.sql", { query: "?raw", import: "default", eager: true }) as Record<string, string>;

/** The gateway's own modules, by their path in the repository (src/...): not the sandbox, and not the list itself. */
const gateway: [string, string][] = Object.entries(sources)
  .map(([path, text]): [string, string] => [path.replace("../../", ""), text])
  .filter(([path]) => !path.startsWith("src/sandbox/") && path !== "src/stores.ts");

/** Not the gateway's stores: the sandbox's object, and bindings that store nothing (a service, static files). */
const NOT_STORES = new Set(["SANDBOX", "UPSTREAM", "ASSETS"]);

/** Tables a statement may name that are no store: SQLite's and D1's own, a table function, and the outbox table record schema 3 folded into the record's row (only that migration names it). */
const NOT_TABLES = new Set(["sqlite_master", "d1_migrations", "json_each", "outbox"]);

/** Source text without comments, so that words in prose are not read as statements. */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");

const places = (kind: Place["kind"]) => STORES.filter((store: Store) => store.place.kind === kind).map((store: Store) => store.place);

/** Every table a D1 store or a Durable Object store names (with `madeBefore`, also the tables only a release before made). */
function registeredTables(kind: "d1" | "durable-object", madeBefore = false): Set<string> {
  return new Set(
    places(kind).flatMap((place) => [
      ...("tables" in place ? (place.tables ?? []) : []),
      ...(madeBefore && "madeBefore" in place ? (place.madeBefore ?? []) : []),
    ]),
  );
}

/** The storage bindings of every environment of wrangler.toml: [[...d1_databases]], [[...durable_objects.bindings]] and the rest. */
function storageBindings(): { section: string; name: string }[] {
  const kinds =
    /^\[\[(?:env\.[a-z]+\.)?(d1_databases|durable_objects\.bindings|kv_namespaces|r2_buckets|queues\.producers|analytics_engine_datasets|ratelimits)\]\]$/;
  const found: { section: string; name: string }[] = [];
  let section: string | null = null;
  for (const line of wranglerToml.split("\n")) {
    const header = line.trim();
    if (header.startsWith("[")) {
      section = kinds.exec(header)?.[1] ?? null;
      continue;
    }
    const name = section && /^(binding|name)\s*=\s*"([^"]+)"/.exec(header);
    if (section && name) found.push({ section, name: name[2]! });
  }
  return found;
}

/** The named bindings of non-D1 stores. */
function registeredBindings(): Set<string> {
  const names = new Set<string>();
  for (const store of STORES as readonly Store[]) {
    const place = store.place;
    if ("binding" in place) names.add(place.binding);
    if ("bindings" in place) for (const binding of place.bindings) names.add(binding);
  }
  return names;
}

describe("src/stores.ts: every store in one list (rule 10)", () => {
  it("each entry has its own name, says what ends it, and names modules that exist", () => {
    const names = STORES.map((store) => store.name);
    expect(new Set(names).size).toBe(names.length);
    for (const store of STORES as readonly Store[]) {
      expect(store.code.length, store.name).toBeGreaterThan(0);
      for (const file of store.code) expect(sources[`../../${file}`], `${store.name}: ${file}`).toBeDefined();
      expect(store.end.how.length, store.name).toBeGreaterThan(0);
    }
  });

  it("a store that may hold a phone number or an account value is erased (by the record or the cron), or says why it cannot be", () => {
    const erasable = (STORES as readonly Store[]).filter((store) => store.personal.includes("phone") || store.personal.includes("account values"));
    expect(erasable.map((store) => store.name)).toEqual(expect.arrayContaining(["record", "record_events", "idempotency_keys"]));
    for (const store of erasable) expect(["record", "cron", "unreachable"], store.name).toContain(store.erasure.by);
  });

  it("names every storage binding of wrangler.toml (but D1's: every database holds the D1 stores' tables)", () => {
    const bindings = storageBindings();
    expect(bindings.map((b) => b.name)).toEqual(expect.arrayContaining(["DB", "RECEIPTS", "RISK", "EVENTS", "METRICS", "LIMIT_PAY_PER_USER"]));
    const registered = registeredBindings();
    const missing = bindings.filter(({ section, name }) => section !== "d1_databases" && !NOT_STORES.has(name) && !registered.has(name));
    expect(missing, "bindings no entry of src/stores.ts names").toEqual([]);
    // And no entry names a binding the deployment does not have.
    const declared = new Set(bindings.map((b) => b.name));
    expect([...registered].filter((name) => !declared.has(name))).toEqual([]);
  });

  it("names every table the D1 migrations make, and only those", () => {
    const made = new Set(
      Object.values(migrations).flatMap((sql) => [...sql.matchAll(/^CREATE TABLE (?:IF NOT EXISTS )?([a-z_][a-z0-9_]*)/gim)].map((m) => m[1]!)),
    );
    expect(made).toContain("tid_index");
    expect(
      [...made].filter((table) => !registeredTables("d1").has(table)),
      "tables no D1 entry names",
    ).toEqual([]);
    expect(
      [...registeredTables("d1")].filter((table) => !made.has(table)),
      "D1 entries naming no migration's table",
    ).toEqual([]);
  });

  it("names every table a Durable Object of the gateway makes, with the module that makes it", () => {
    const objects = STORES.filter((store: Store) => store.place.kind === "durable-object") as readonly Store[];
    const made: { file: string; table: string }[] = [];
    for (const [file, text] of gateway) {
      for (const m of code(text).matchAll(/CREATE TABLE (?:IF NOT EXISTS )?([a-z_]+)/g)) made.push({ file, table: m[1]! });
    }
    expect(made.map((m) => m.table)).toEqual(expect.arrayContaining(["record"]));
    const unregistered = made.filter(
      ({ file, table }) => !objects.some((store) => store.code.includes(file) && "tables" in store.place && store.place.tables?.includes(table)),
    );
    expect(unregistered, "tables no Durable Object entry names with the module that makes them").toEqual([]);
    for (const table of registeredTables("durable-object"))
      expect(
        made.map((m) => m.table),
        table,
      ).toContain(table);
  });

  it("every table a statement of the gateway names is a store's", () => {
    const known = new Set([...registeredTables("d1"), ...registeredTables("durable-object", true), ...NOT_TABLES]);
    const named: { file: string; table: string }[] = [];
    for (const [file, text] of gateway) {
      // A common table expression's name (WITH name AS (...), name AS (...)) is the statement's own, not a table.
      const ctes = new Set([...code(text).matchAll(/(?:\bWITH|,)\s*([a-z_][a-z0-9_]*)\s+AS\s+\(/g)].map((m) => m[1]!));
      for (const m of code(text).matchAll(/\b(?:FROM|INTO|UPDATE|JOIN|TABLE(?: IF NOT EXISTS)?|table_info\()\s*([a-z_][a-z0-9_]*)/g)) {
        if (!ctes.has(m[1]!)) named.push({ file, table: m[1]! });
      }
    }
    expect(named.length).toBeGreaterThan(20);
    expect(
      named.filter(({ table }) => !known.has(table)),
      "tables named in src/ that no entry of src/stores.ts names",
    ).toEqual([]);
  });

  it("every module that uses the Cache API or a Durable Object's key-value storage is the code of a store there", () => {
    const codeOf = (kind: Place["kind"], keys?: boolean) =>
      new Set(
        (STORES as readonly Store[])
          .filter((store) => store.place.kind === kind && (keys === undefined || ("keys" in store.place && store.place.keys !== undefined) === keys))
          .flatMap((store) => store.code),
      );
    const cache = codeOf("cache");
    const kv = codeOf("durable-object", true);
    const touches = (pattern: RegExp) => gateway.filter(([, text]) => pattern.test(code(text))).map(([file]) => file);
    const caching = touches(/\bcaches\./);
    expect(caching).toContain("src/tids/tid-cache.ts");
    expect(caching.filter((file) => !cache.has(file))).toEqual([]);
    const keyValue = touches(/\.storage\.(kv\b|put\(|get\(|list\()/);
    expect(keyValue).toContain("src/risk/risk-object.ts");
    expect(keyValue.filter((file) => !kv.has(file))).toEqual([]);
  });

  it("every setting an end names is a variable of both environments", () => {
    const settings = new Set((STORES as readonly Store[]).flatMap((store) => ("settings" in store.end ? (store.end.settings ?? []) : [])));
    expect(settings).toContain("RECORD_RETENTION_DAYS");
    for (const setting of settings) {
      expect(wranglerToml.match(new RegExp(`^${setting} = `, "gm"))?.length, setting).toBe(2);
    }
  });
});
