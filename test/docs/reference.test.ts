/**
 * docs/reference.md against what the Worker serves and the code: the error
 * table against src/errors/error-codes.ts and the OpenAPI document, its operations against
 * the document's paths, its events against EVENT_TYPES and the document's
 * webhooks, its sandbox values against src/sandbox/catalog.ts, its list of
 * every store against src/stores.ts. The markdown is
 * bundled into the test by Vite (`?raw`), so this reads what is committed.
 */
import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import reference from "../../docs/reference.md?raw";
import { DECLINE_REASON_NAMES, ERROR_CODE_NAMES, ERROR_CODES, LANGUAGES } from "../../src/errors/error-codes";
import { EVENT_TYPES } from "../../src/events/types";
import { A2C_VERIFY_FROM, CORRECT_OTP, cardByNumber, cardByToken, findMerchant, UNAVAILABLE_RECEIVER } from "../../src/sandbox/catalog";
import { STORES, storesTable } from "../../src/stores";

/** Served by the Worker but not operations of the document: GET, no credentials. */
const SERVICE_PATHS = ["/", "/healthz", "/readyz", "/openapi.json", "/docs"];

/** The text of one `## heading` section of the reference. */
function section(heading: string): string {
  const start = reference.indexOf(`\n## ${heading}\n`);
  expect(start, `docs/reference.md has a "## ${heading}" section`).toBeGreaterThanOrEqual(0);
  const end = reference.indexOf("\n## ", start + 1);
  return reference.slice(start, end === -1 ? undefined : end);
}

/** `| 409 | \`tid_conflict\` | when |` rows of the error table. */
function errorTable(): Map<string, number> {
  const rows = new Map<string, number>();
  for (const match of section("Errors").matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)) {
    expect(rows.has(match[2]!), `${match[2]} appears once in the error table`).toBe(false);
    rows.set(match[2]!, Number(match[1]));
  }
  return rows;
}

/** Every `METHOD /path` the reference names, except the sandbox's dev-only views. */
function referencePaths(): Set<string> {
  const paths = new Set<string>();
  for (const match of reference.matchAll(/`(GET|POST) (\/[^`\s]*)`/g)) {
    if (!match[2]!.startsWith("/__sandbox")) paths.add(`${match[1]} ${match[2]}`);
  }
  return paths;
}

/** Every string an error code may be named in: response descriptions and enums. */
function codeMentions(doc: any): string[] {
  const found: string[] = [];
  const walk = (node: unknown, inResponses: boolean) => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item, inResponses);
      return;
    }
    if (!node || typeof node !== "object") return;
    for (const [key, value] of Object.entries(node)) {
      if (key === "enum" && Array.isArray(value)) found.push(...value.filter((v): v is string => typeof v === "string"));
      else if (key === "description" && inResponses && typeof value === "string") found.push(value);
      else walk(value, inResponses || key === "responses");
    }
  };
  walk(doc, false);
  return found;
}

let doc: any;
beforeAll(async () => {
  const res = await exports.default.fetch("http://gateway.test/openapi.json");
  expect(res.status).toBe(200);
  doc = await res.json();
});

describe("docs/reference.md: errors", () => {
  it("names every code of the error table, with its status, and no other", () => {
    const table = errorTable();
    expect(Object.fromEntries([...table].sort())).toEqual(
      Object.fromEntries(ERROR_CODE_NAMES.map((code) => [code, ERROR_CODES[code].status]).sort()),
    );
  });

  it("names every code the OpenAPI document names", () => {
    const mentions = codeMentions(doc).join("\n");
    const table = errorTable();
    for (const code of ERROR_CODE_NAMES) {
      // A code word that appears in the document must be in the table: the error table is the only list.
      if (new RegExp(`\\b${code}\\b`).test(mentions)) expect(table.has(code), code).toBe(true);
    }
  });

  for (const code of errorTable().keys()) {
    it(`${code} is in the OpenAPI document (a response description or a code enum)`, () => {
      const named = codeMentions(doc).some((text) => new RegExp(`\\b${code}\\b`).test(text));
      expect(named, `${code} is named by the OpenAPI document`).toBe(true);
    });
  }

  it("documents every extra field and header an error may carry", () => {
    const errors = section("Errors");
    for (const extra of [
      "user_message",
      "details",
      "attempts_left",
      "min_amount",
      "max_amount",
      "upstream_code",
      "decline_reason",
      "Retry-After",
      "X-Request-Id",
      "Content-Language",
    ]) {
      expect(errors, extra).toContain(`\`${extra}\``);
    }
  });

  it("names every decline_reason that has a user_message, and says where the texts live", () => {
    const errors = section("Errors");
    for (const reason of DECLINE_REASON_NAMES) expect(errors, reason).toContain(`\`${reason}\``);
    for (const language of LANGUAGES) expect(errors, language).toContain(`\`${language}\``);
    expect(errors).toContain("src/errors/error-codes.ts");
    expect(errors).toContain("x-user-messages");
  });
});

describe("docs/reference.md: paths", () => {
  it("names every path of the OpenAPI document with its method", () => {
    const named = referencePaths();
    const documented = Object.entries(doc.paths as Record<string, object>).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => ["get", "post", "put", "patch", "delete"].includes(key))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.length).toBeGreaterThanOrEqual(15);
    for (const operation of documented) expect(named, operation).toContain(operation);
  });

  it("names only paths that the document has or the Worker serves", async () => {
    for (const operation of referencePaths()) {
      const [method, path] = operation.split(" ") as [string, string];
      if (SERVICE_PATHS.includes(path) && method === "GET") {
        const res = await exports.default.fetch(`http://gateway.test${path}`);
        expect(res.status, `${operation} is served`).not.toBe(404);
        await res.body?.cancel();
      } else {
        expect(doc.paths[path]?.[method.toLowerCase()], `${operation} is in the OpenAPI document`).toBeTruthy();
      }
    }
  });

  it.each(SERVICE_PATHS)("names GET %s if the Worker serves it", async (path) => {
    const res = await exports.default.fetch(`http://gateway.test${path}`);
    await res.body?.cancel();
    if (res.status !== 404) expect(referencePaths()).toContain(`GET ${path}`);
  });
});

describe("docs/reference.md: events", () => {
  it("names every event type, and each is a webhook of the OpenAPI document", () => {
    const events = section("Events");
    const rows = [...events.matchAll(/^\| `([a-z_]+\.[a-z_]+)` \|/gm)].map((m) => m[1]);
    expect(rows.sort()).toEqual(Object.keys(EVENT_TYPES).sort());
    expect(Object.keys(doc.webhooks ?? {}).sort()).toEqual(Object.keys(EVENT_TYPES).sort());
    for (const header of ["webhook-id", "webhook-timestamp", "webhook-signature", "whsec_", "sequence", "previous_state"]) {
      expect(events, header).toContain(header);
    }
  });
});

describe("docs/reference.md: every store (rule 10)", () => {
  it("lists every store of src/stores.ts, with where it lives, its personal data, its erasure and its end, as the list says", () => {
    const rules = section("Rules the gateway enforces");
    // On a mismatch, the expected text is the table to paste: src/stores.ts storesTable().
    expect(rules).toContain(storesTable());
    for (const store of STORES) expect(storesTable(), store.name).toContain(`| ${store.title} |`);
    expect(rules).toContain("(#where-the-gateway-keeps-data)");
  });
});

describe("docs/reference.md: the sandbox", () => {
  const sandbox = () => section("The sandbox");

  it("gives the sandbox's OTP and a2c threshold", () => {
    expect(sandbox()).toContain(`\`${CORRECT_OTP}\``);
    expect(sandbox()).toContain(`at least ${A2C_VERIFY_FROM} tiyin`);
    expect(sandbox()).toContain(`\`${UNAVAILABLE_RECEIVER}\``);
  });

  it("gives each merchant as the catalog has it", () => {
    for (const id of [1001, 1002, 1003]) {
      const merchant = findMerchant(id)!;
      const row = sandbox().match(new RegExp(`^\\| ${id} \\|.*$`, "m"))?.[0];
      expect(row, `merchant ${id}`).toBeTruthy();
      const cells = row!.split("|").map((cell) => cell.trim());
      expect(cells[2]).toBe(merchant.merchant_name);
      expect(cells[3]!.startsWith(merchant.kind === "qr" ? "QR" : "regular"), `${id} kind`).toBe(true);
      expect(cells[4]).toBe(String(merchant.is_verify));
      expect(cells[5]).toBe(String(merchant.min_amount));
      expect(cells[6]).toBe(String(merchant.max_amount));
    }
  });

  it("names every sandbox token, each one the sandbox knows", () => {
    const tokens = new Set([...reference.matchAll(/tok_sandbox_[a-z_]+/g)].map((m) => m[0]));
    for (const behaviour of [
      "ok",
      "insufficient",
      "supplier_pending",
      "supplier_fails",
      "timeout",
      "paid_timeout",
      "error",
      "busy",
      "pays_late",
      "judges_unknown",
    ]) {
      expect(tokens).toContain(`tok_sandbox_${behaviour}`);
    }
    for (const token of tokens) expect(cardByToken(token), token).toBeDefined();
  });

  it("gives the test card numbers as the sandbox treats them", () => {
    expect(cardByNumber("8600000000000007", "9912")?.behaviour).toBe("ok");
    expect(cardByNumber("9860000000000018", "9912")?.behaviour).toBe("ok");
    expect(cardByNumber("8600000000000015", "9912")?.behaviour).toBe("insufficient");
    for (const number of ["8600000000000007", "9860000000000018", "8600000000000015"]) expect(sandbox()).toContain(`\`${number}\``);
  });
});
