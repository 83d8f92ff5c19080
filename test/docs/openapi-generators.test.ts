/**
 * What code generators (openapi-typescript, @hey-api/openapi-ts, orval) read
 * in the document and linters do not check: every number an integer where the
 * gateway answers integers, every `const` with its type, a2c/create's body one
 * of two closed objects (`tid`, or the upstream's `tId`), named states, one ErrorCode component
 * whose every code has a meaning and which says more will come, events told
 * apart by `type` (a discriminator) and `data.object_type`, request bodies
 * and shared shapes as components, and a server that is wherever the
 * document was served from.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ERROR_CODE_NAMES, ERROR_CODES } from "../../src/errors/error-codes";
import { EVENT_TYPE_NAMES, kindOfEvent } from "../../src/events/types";
import { call } from "../helpers";

const served = async () => (await (await exports.default.fetch("http://gateway.test/openapi.json")).json()) as any;
const component = (doc: any, node: any): any => (node?.$ref ? doc.components.schemas[node.$ref.split("/").pop()] : node);

/** Every schema-like node of the document, with where it is. */
function* nodes(node: unknown, at = "#"): Generator<[string, Record<string, unknown>]> {
  if (Array.isArray(node)) for (const [i, item] of node.entries()) yield* nodes(item, `${at}/${i}`);
  else if (node !== null && typeof node === "object") {
    yield [at, node as Record<string, unknown>];
    for (const [key, value] of Object.entries(node)) yield* nodes(value, `${at}/${key}`);
  }
}

describe("the document, as generators read it", () => {
  it("types every number as an integer and every const with its type", async () => {
    const doc = await served();
    const numbers: string[] = [];
    const untypedConsts: string[] = [];
    for (const [at, node] of nodes(doc)) {
      const type = node.type;
      if (type === "number" || (Array.isArray(type) && type.includes("number"))) numbers.push(at);
      if ("const" in node && node.type === undefined) untypedConsts.push(at);
    }
    expect(numbers).toEqual([]);
    expect(untypedConsts).toEqual([]);
    const create = component(doc, doc.paths["/api/v1/partner/receipt/create"].post.requestBody.content["application/json"].schema);
    expect(create.properties.currency).toMatchObject({ type: "integer", const: 860 });
    expect(doc.components.schemas.AuthorizeResult.properties.sent).toEqual({ type: "boolean", const: true });
    for (const [type, item] of Object.entries<any>(doc.webhooks)) {
      expect(item.post.requestBody.content["application/json"].schema.allOf[1].properties.type, type).toEqual({ type: "string", const: type });
    }
  });

  it("makes a2c/create's body one of two closed objects: tid required, or the upstream's tId (deprecated) in its place", async () => {
    const doc = await served();
    const body = doc.paths["/api/v1/partner/a2c/create"].post.requestBody.content["application/json"].schema;
    expect(body).toEqual({
      anyOf: [{ $ref: "#/components/schemas/CreateTransferRequest" }, { $ref: "#/components/schemas/CreateTransferRequestTId" }],
    });
    const { CreateTransferRequest: plain, CreateTransferRequestTId: aliased } = doc.components.schemas;
    for (const schema of [plain, aliased]) {
      expect(schema.type).toBe("object");
      expect(schema.additionalProperties).toBe(false);
      // Each shape on its own: no required-only subschemas, which generators type as unknown.
      expect(JSON.stringify(schema)).not.toMatch(/anyOf|oneOf|allOf/);
    }
    expect(plain.required.sort()).toEqual(["amount", "rate_id", "receiver_card", "tid", "token"]);
    expect(Object.keys(plain.properties)).not.toContain("tId");
    expect(aliased.required.sort()).toEqual(["amount", "rate_id", "receiver_card", "tId", "token"]);
    expect(aliased.properties.tId).toMatchObject({ ...plain.properties.tid, deprecated: true, description: expect.stringContaining("`tid`") });
    expect(aliased.properties.tid).toMatchObject({ type: "string", pattern: plain.properties.tid.pattern });
    expect(aliased.examples).toEqual(plain.examples.map(({ tid, ...rest }: any) => ({ tId: tid, ...rest })));
    // No other operation has a second shape, and no trace of the alias's mechanics is left in the document.
    expect(JSON.stringify(doc)).not.toContain("x-gateway-aliases");
  });

  it("admits the tId body the gateway accepts: the document's own example creates a transfer", async () => {
    const doc = await served();
    const [example] = doc.components.schemas.CreateTransferRequestTId.examples;
    const res = await call("a2c/create", { ...example, tId: `alias-${crypto.randomUUID()}` });
    const created = (await res.json()) as any;
    expect(res.status, JSON.stringify(created)).toBe(200);
    expect(created).toMatchObject({ state: 0, tid: expect.stringMatching(/^alias-/) });
  });

  it("names the states, per kind", async () => {
    const doc = await served();
    const { ReceiptState, TransferState, Receipt, ReducedReceipt, TransferReceipt } = doc.components.schemas;
    expect(ReceiptState).toMatchObject({ type: "integer", enum: [0, 4, 5, 21, 57] });
    expect(ReceiptState["x-enum-varnames"]).toEqual(["created", "paid", "held", "cancelled", "awaiting_supplier"]);
    expect(TransferState).toMatchObject({ type: "integer", enum: [0, 4, 21] });
    expect(TransferState["x-enum-varnames"]).toEqual(["created", "paid", "cancelled"]);
    expect(Receipt.properties.state).toEqual({ $ref: "#/components/schemas/ReceiptState" });
    expect(ReducedReceipt.properties.state).toEqual({ $ref: "#/components/schemas/ReceiptState" });
    expect(TransferReceipt.properties.state).toEqual({ $ref: "#/components/schemas/TransferState" });
  });

  it("has one ErrorCode component: every code of the contract with its meaning, shown beside each error answer", async () => {
    const doc = await served();
    const codes = ERROR_CODE_NAMES;
    const { ErrorCode, Error: ErrorSchema } = doc.components.schemas;
    expect(ErrorCode.enum).toEqual(codes);
    expect(ErrorCode["x-enum-descriptions"]).toEqual(codes.map((code) => ERROR_CODES[code].meaning));
    for (const code of codes) {
      expect(ERROR_CODES[code].meaning.length, code).toBeGreaterThan(10);
      expect(ErrorCode.description, code).toContain(`| \`${code}\` | ${ERROR_CODES[code].status} |`);
    }
    // Open: a known code or any other string, and the document says a client must expect one it does not know.
    expect(ErrorSchema.properties.error.properties.code.anyOf).toEqual([
      { $ref: "#/components/schemas/ErrorCode" },
      expect.objectContaining({ type: "string" }),
    ]);
    expect(ErrorCode.description).toContain("a client must expect a code it does not know");
    expect(ErrorSchema.properties.error.properties.code.description).toContain("a client must expect a code it does not know");
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [status, response] of Object.entries<any>((item.post ?? item.get).responses)) {
        if (!/^[45]/.test(status)) continue;
        const listed: string[] = response.content["application/json"].schema.allOf[1].properties.error.properties.code.enum;
        for (const code of listed) {
          expect(response.description, `${path} ${status}`).toContain(`\`${code}\`: ${ERROR_CODES[code as keyof typeof ERROR_CODES].meaning}`);
        }
      }
    }
  });

  it("tells a receipt's event from a transfer's by type (a discriminator) and by data.object_type", async () => {
    const doc = await served();
    const { Event, ReceiptEvent, TransferEvent } = doc.components.schemas;
    const ref = (name: string) => `#/components/schemas/${name}`;
    expect(Event.oneOf).toEqual([{ $ref: ref("ReceiptEvent") }, { $ref: ref("TransferEvent") }]);
    expect(Event.discriminator.propertyName).toBe("type");
    expect(Event.discriminator.mapping).toEqual(
      Object.fromEntries(EVENT_TYPE_NAMES.map((type) => [type, ref(kindOfEvent(type) === "receipt" ? "ReceiptEvent" : "TransferEvent")])),
    );
    for (const [schema, kind, object] of [
      [ReceiptEvent, "receipt", "Receipt"],
      [TransferEvent, "transfer", "TransferReceipt"],
    ]) {
      expect(schema.properties.type.enum).toEqual(EVENT_TYPE_NAMES.filter((type) => kindOfEvent(type) === kind));
      expect(schema.properties.data.properties.object_type).toMatchObject({ type: "string", const: kind });
      expect(schema.properties.data.properties.object).toEqual({ $ref: ref(object) });
      expect(schema.properties.data.required).toEqual(expect.arrayContaining(["object_type", "object"]));
    }
  });

  it("makes every request body and the account entry components", async () => {
    const doc = await served();
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      if (!item.post) continue;
      const schema = item.post.requestBody.content["application/json"].schema;
      for (const shape of schema.anyOf ?? [schema]) expect(shape.$ref, path).toMatch(/^#\/components\/schemas\/\w+Request(TId)?$/);
    }
    // The answer's entry passes through what the payment service adds; the create's takes its three fields only.
    expect(doc.components.schemas.Receipt.properties.account.items).toEqual({ $ref: "#/components/schemas/AccountEntry" });
    expect(doc.components.schemas.CreateReceiptRequest.properties.account.items).toEqual({ $ref: "#/components/schemas/AccountEntryInput" });
  });

  it("serves try-it requests to wherever it was served from", async () => {
    const doc = await served();
    expect(doc.servers[0].url).toBe("/");
    expect(doc.servers.map((server: any) => server.url).join(" ")).not.toContain("127.0.0.1");
  });
});
