import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import committed from "../../openapi.json";
import { ERROR_CODES } from "../../src/errors/error-codes";
import { COMMON, RETRY_CODES } from "../../src/operations/openapi";
import { CARD_OK, call, expectError, OPERATION_PATHS as OPERATIONS } from "../helpers";

const served = async () => (await (await exports.default.fetch("http://gateway.test/openapi.json")).json()) as any;
const resolveHeader = (doc: any, node: any): any => (node?.$ref ? doc.components.headers[node.$ref.split("/").pop()] : node);
const resolve = (doc: any, node: any): any => (node?.$ref ? resolve(doc, doc.components.schemas[node.$ref.split("/").pop()]) : node);
/** The shapes an operation's body may take: its request component, or each one it is any of (a2c/create's tid and tId). */
const bodyShapes = (doc: any, post: any): any[] => {
  const schema = post.requestBody.content["application/json"].schema;
  return (schema.anyOf ?? [schema]).map((shape: any) => resolve(doc, shape));
};

describe("the OpenAPI document", () => {
  it("is OpenAPI 3.1 and documents every operation with its request schema, answer and errors", async () => {
    const res = await exports.default.fetch("http://gateway.test/openapi.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as any;
    expect(doc.openapi).toMatch(/^3\.1/);
    const partnerPaths = Object.keys(doc.paths).filter((path) => path.startsWith("/api/v1/partner/"));
    expect(partnerPaths.sort()).toEqual(OPERATIONS.map((op) => `/api/v1/partner/${op}`).sort());
    for (const op of OPERATIONS) {
      const post = doc.paths[`/api/v1/partner/${op}`].post;
      for (const shape of bodyShapes(doc, post)) expect(shape.type, op).toBe("object");
      expect(post.responses["200"].content["application/json"].schema, op).toBeTruthy();
      expect(post.responses["400"].description, op).toContain("invalid_request");
      expect(post.responses["401"].description, op).toContain("unauthorized");
      expect(post.responses["503"].description, op).toContain("service_misconfigured");
    }
  });

  it("is generated from the validating schemas: the rules the edge enforces are in it", async () => {
    const doc = (await (await exports.default.fetch("http://gateway.test/openapi.json")).json()) as any;
    const create = resolve(doc, doc.paths["/api/v1/partner/receipt/create"].post.requestBody.content["application/json"].schema);
    expect(create.required).toEqual(expect.arrayContaining(["tid", "amount", "merchant_id", "account"]));
    expect(create.properties.amount).toMatchObject({ type: "integer", minimum: 1, maximum: 2 ** 53 - 1 });
    const pay = resolve(doc, doc.paths["/api/v1/partner/receipt/anonymous/pay"].post.requestBody.content["application/json"].schema);
    expect(pay.required).toEqual(expect.arrayContaining(["id", "card", "otp"]));
    expect(pay.properties.otp.pattern).toBe("^\\d{4,8}$");
    expect(resolve(doc, pay.properties.card).properties.number.pattern).toBe("^\\d{16,19}$");
    const conflicts = doc.paths["/api/v1/partner/receipt/create"].post.responses["409"].description;
    expect(conflicts).toContain("tid_conflict");
    expect(conflicts).toContain("tid_in_progress");
    // Creates are not rate-limited, and the document does not claim they are.
    expect(doc.paths["/api/v1/partner/receipt/create"].post.responses["429"]).toBeUndefined();
    expect(doc.paths["/api/v1/partner/receipt/pay"].post.responses["429"].description).toContain("rate_limited");
  });

  it("says every request object, at every depth, takes no field it does not define; answers stay open", async () => {
    const doc = await served();
    const objects: { at: string; additionalProperties: unknown }[] = [];
    const visit = (node: any, at: string, seen: Set<string>): void => {
      if (node === null || typeof node !== "object") return;
      if (Array.isArray(node)) {
        for (const [index, item] of node.entries()) visit(item, `${at}[${index}]`, seen);
        return;
      }
      if (node.$ref) {
        const name = node.$ref.split("/").pop();
        if (!seen.has(name)) visit(doc.components.schemas[name], `${at}>${name}`, new Set([...seen, name]));
        return;
      }
      if (node.type === "object" || node.properties) objects.push({ at, additionalProperties: node.additionalProperties });
      for (const [key, value] of Object.entries(node)) if (key !== "examples") visit(value, `${at}.${key}`, seen);
    };
    for (const [path, item] of Object.entries<any>(doc.paths)) if (item.post) visit(item.post.requestBody, path, new Set());
    // The create's account entries and both cards are among them.
    expect(objects.map(({ at }) => at).join(" ")).toMatch(/AccountEntryInput.*TokenCard.*NumberCard/);
    for (const { at, additionalProperties } of objects) expect(additionalProperties, at).toBe(false);
    // An answer passes through what the payment service adds: no answer shape says otherwise.
    for (const name of ["Receipt", "ReducedReceipt", "TransferReceipt", "AccountEntry", "MerchantDetails", "AuthorizeResult"]) {
      expect(doc.components.schemas[name].additionalProperties, name).toBeUndefined();
    }
  });

  it("is the committed openapi.json (run npm run openapi)", async () => {
    expect(await served(), "openapi.json is out of date: run npm run openapi").toEqual(committed);
  });

  it("names its shapes as components, referenced by $ref", async () => {
    const doc = await served();
    const names = ["Receipt", "ReducedReceipt", "TransferReceipt", "Party", "MerchantDetails", "OfdDetails", "AuthorizeResult", "Event", "Error"];
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(names));
    const answer = (path: string) => doc.paths[`/api/v1/partner/${path}`].post.responses["200"].content["application/json"].schema;
    expect(answer("receipt/create")).toEqual({ $ref: "#/components/schemas/Receipt" });
    expect(answer("receipt/anonymous/pay")).toEqual({ $ref: "#/components/schemas/ReducedReceipt" });
    expect(answer("receipt/authorize")).toEqual({ $ref: "#/components/schemas/AuthorizeResult" });
    expect(answer("a2c/create")).toEqual({ $ref: "#/components/schemas/TransferReceipt" });
    const receipt = doc.components.schemas.Receipt;
    expect(receipt.properties.merchant).toEqual({ $ref: "#/components/schemas/MerchantDetails" });
    expect(receipt.properties.amount).toMatchObject({ type: "integer", format: "int64" });
    expect(receipt.properties.create_date).toMatchObject({ type: "integer", format: "int64" });
    expect(resolve(doc, receipt.properties.state).enum).toEqual([0, 4, 5, 21, 57]);
    expect(JSON.stringify(receipt.properties.ofd)).toContain("#/components/schemas/OfdDetails");
    expect(doc.components.schemas.TransferReceipt.properties.sender).toEqual({ $ref: "#/components/schemas/Party" });
    const items = JSON.stringify(doc.components.schemas.OfdDetails.properties.items);
    for (const field of ["unit_price", "vat_percent", "package_code", "quantity", "sum"]) expect(items).toContain(field);
    // Every event is its kind's event component, one of the two the Event component is.
    for (const [type, item] of Object.entries<any>(doc.webhooks)) {
      const kind = type.startsWith("transfer.") ? "TransferEvent" : "ReceiptEvent";
      expect(item.post.requestBody.content["application/json"].schema.allOf[0], type).toEqual({ $ref: `#/components/schemas/${kind}` });
    }
    // Examples from the sandbox on every request body and every 2xx answer.
    for (const op of OPERATIONS) {
      const post = doc.paths[`/api/v1/partner/${op}`].post;
      for (const shape of bodyShapes(doc, post)) expect(shape.examples, op).toHaveLength(1);
      expect(resolve(doc, post.responses["200"].content["application/json"].schema).examples, op).toHaveLength(1);
    }
    const create = resolve(doc, doc.paths["/api/v1/partner/receipt/create"].post.requestBody.content["application/json"].schema);
    expect(create.examples[0].merchant_id).toBe(1001);
    const pay = resolve(doc, doc.paths["/api/v1/partner/receipt/pay"].post.requestBody.content["application/json"].schema);
    expect(pay.examples[0]).toMatchObject({ card: { token: "tok_sandbox_ok" }, otp: "111111" });
    const anonymous = resolve(doc, doc.paths["/api/v1/partner/receipt/anonymous/pay"].post.requestBody.content["application/json"].schema);
    expect(anonymous.examples[0].card).toEqual(CARD_OK);
  });

  it("lists, per status, exactly the codes the error table gives that status among the operation's codes", async () => {
    const doc = await served();
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      // The operations (POST); rule 16's files are GETs, documented apart (src/operations/openapi.ts, statementFile).
      if (!path.startsWith("/api/v1/") || !item.post) continue;
      const responses = item.post.responses;
      // The success answer: 200, or 202 for a request carried out later (users/erase).
      const success = responses["200"] ? "200" : "202";
      const documented = Object.entries<any>(responses).filter(([status]) => status !== success);
      const all = documented.flatMap(([, response]) => response.content["application/json"].schema.allOf[1].properties.error.properties.code.enum);
      expect(all, path).toEqual(expect.arrayContaining(COMMON));
      for (const [status, response] of documented) {
        const codes: string[] = response.content["application/json"].schema.allOf[1].properties.error.properties.code.enum;
        expect(response.content["application/json"].schema.allOf[0]).toEqual({ $ref: "#/components/schemas/Error" });
        for (const code of codes) expect(ERROR_CODES[code as keyof typeof ERROR_CODES].status, `${path} ${code}`).toBe(Number(status));
        expect(response.headers["X-Request-Id"], `${path} ${status}`).toBeTruthy();
        // Retry-After is documented where a code of the status sends it, and required only where every code does.
        const retrying = codes.filter((code) => RETRY_CODES.has(code as never));
        expect(Boolean(response.headers["Retry-After"]), `${path} ${status} Retry-After`).toBe(retrying.length > 0);
        if (retrying.length > 0) {
          const header = resolveHeader(doc, response.headers["Retry-After"]);
          expect(header.required, `${path} ${status} Retry-After required`).toBe(retrying.length === codes.length);
        }
      }
      expect(responses[success].headers["X-Request-Id"], path).toBeTruthy();
      expect(responses["401"].headers["WWW-Authenticate"], path).toBeTruthy();
      expect(responses["405"].headers.Allow, path).toBeTruthy();
      expect(responses["405"].content["application/json"].schema.allOf[1].properties.error.properties.code.enum).toEqual(["method_not_allowed"]);
    }
    const create = doc.paths["/api/v1/partner/receipt/create"].post.responses;
    expect(create["409"].content["application/json"].schema.allOf[1].properties.error.properties.code.enum).toEqual([
      "tid_conflict",
      "tid_in_progress",
    ]);
    expect(create["200"].headers["Idempotent-Replayed"]).toBeTruthy();
    expect(create["200"].links.authorize).toMatchObject({ operationId: "authorizeReceipt", requestBody: { id: "$response.body#/id" } });
    expect(Object.keys(create["200"].links).sort()).toEqual(["authorize", "checkById", "pay"]);
    const transfer = doc.paths["/api/v1/partner/a2c/create"].post;
    expect(transfer.responses["200"].links.pay).toMatchObject({ operationId: "payTransfer", requestBody: { id: "$response.body#/receipt_id" } });
    expect(doc.servers[0].url).toBe("/");
  });

  it("means by expire a real month, and by maxLength code points, as the server does", async () => {
    const doc = await served();
    const card = resolve(
      doc,
      resolve(doc, doc.paths["/api/v1/partner/receipt/anonymous/pay"].post.requestBody.content["application/json"].schema).properties.card,
    );
    expect(card.properties.expire.pattern).toBe("^\\d{2}(0[1-9]|1[0-2])$");
    await expectError(call("receipt/anonymous/authorize", { id: "r1", card: { ...CARD_OK, expire: "3013" } }), 400, "invalid_request");
    const cancel = resolve(doc, doc.paths["/api/v1/partner/receipt/cancel"].post.requestBody.content["application/json"].schema);
    expect(cancel.properties.reason.maxLength).toBe(256);
    // 256 emoji are 256 characters to JSON Schema (512 UTF-16 units): accepted, then not found.
    await expectError(call("receipt/cancel", { id: "no-such-receipt", reason: "😀".repeat(256) }), 404, "receipt_not_found");
    const refused = await expectError(call("receipt/cancel", { id: "no-such-receipt", reason: "😀".repeat(257) }), 400, "invalid_request");
    expect(refused.details[0].path).toBe("reason");
  });

  it("is rendered as an interactive reference at /docs", async () => {
    const res = await exports.default.fetch("http://gateway.test/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(await res.text()).toContain("/openapi.json");
  });
});

describe("health", () => {
  it("GET /healthz answers ok", async () => {
    const res = await exports.default.fetch("http://gateway.test/healthz");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });

  it("the document lists what the probes answer: GET, HEAD (no body), and 405 with Allow: GET, HEAD to any other method", async () => {
    const doc = await served();
    for (const path of ["/healthz", "/readyz"]) {
      const item = doc.paths[path];
      expect(Object.keys(item).sort(), path).toEqual(["get", "head"]);
      const head = await exports.default.fetch(`http://gateway.test${path}`, { method: "HEAD" });
      expect(head.status, path).toBe(200);
      expect(head.headers.get("x-request-id")).toBeTruthy();
      expect(await head.text()).toBe("");
      expect(item.head.responses["200"].content, path).toBeUndefined();
      expect(item.head.responses["200"].headers["X-Request-Id"]).toBeTruthy();
      const refused = await exports.default.fetch(`http://gateway.test${path}`, { method: "POST" });
      await expectError(refused, 405, "method_not_allowed");
      for (const operation of [item.get, item.head]) {
        const allow = operation.responses["405"].headers.Allow;
        expect(allow.required).toBe(true);
        expect(allow.schema.enum).toEqual([refused.headers.get("allow")]);
      }
      expect(item.get.responses["405"].content["application/json"].schema.allOf[1].properties.error.properties.code.enum).toEqual([
        "method_not_allowed",
      ]);
    }
  });
});

describe("the Idempotency-Key the document admits", () => {
  it("is the one the gateway accepts: printable ASCII, 1 to 255, not all spaces, no space at either end", async () => {
    const doc = await served();
    const { schema } = doc.components.parameters.IdempotencyKey;
    const admits = (key: string) => key.length >= schema.minLength && key.length <= schema.maxLength && new RegExp(schema.pattern).test(key);
    // Keys HTTP carries as they are, and spaces only, which it trims to nothing (the gateway then refuses the empty key).
    const keys = ["   ", "a", "a b", "pay 1 of order 7", "~!@#$%^&*()_+{}|:<>?", "k".repeat(255), "k".repeat(256), "key\tone", "key\u007fone"];
    for (const key of keys) {
      const res = await call("receipt/cancel", { id: `missing-${crypto.randomUUID()}` }, { headers: { "Idempotency-Key": key } });
      const body = (await res.json()) as any;
      // A key the gateway accepts reaches the record, here an unknown one: receipt_not_found.
      const accepted = res.status === 404;
      if (!accepted) expect(body.error.details[0].path, JSON.stringify(key)).toBe("Idempotency-Key");
      expect(accepted, JSON.stringify(key)).toBe(admits(key));
    }
    // A space at either end is trimmed by HTTP, so the gateway would see another key: the document refuses it.
    for (const key of [" a", "a ", " "]) expect(admits(key), JSON.stringify(key)).toBe(false);
  });
});
