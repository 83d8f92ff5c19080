/**
 * The document's examples cannot drift: each validates against the schema
 * that validates requests or describes answers (src/api/schemas.ts, the
 * operations' own), every error status of every operation shows an example
 * of each code it lists, and each operation's documented request, sent to
 * the gateway (the sandbox behind it), answers what its documented answer
 * shows, but for the values that differ per call (ids, tids, dates, fiscal
 * signatures, request ids).
 */
import { exports } from "cloudflare:workers";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { ErrorBody } from "../../src/api/schemas";
import { Event } from "../../src/events/schemas";
import { EVENT_TYPE_NAMES } from "../../src/events/types";
import { APIS } from "../../src/operations";
import type { OperationDescription } from "../../src/operations/operation";
import { callAt } from "../helpers";

const served = async () => (await (await exports.default.fetch("http://gateway.test/openapi.json")).json()) as any;
const component = (doc: any, node: any): any => (node?.$ref ? doc.components.schemas[node.$ref.split("/").pop()] : node);

const OPERATIONS = APIS.flatMap((api) =>
  api.sections.flatMap((section) => section.operations.map((operation) => ({ url: `${api.prefix}${operation.path}`, operation }))),
);
const byId = (id: string): { url: string; operation: OperationDescription } => OPERATIONS.find(({ operation }) => operation.operationId === id)!;

/** The value `schema` makes of `example`, which must keep every field of it (valibot's objects drop unknown ones). */
function expectValid(schema: v.GenericSchema, example: unknown, label: string) {
  const result = v.safeParse(schema, example);
  expect(result.success ? [] : result.issues.map((issue) => `${v.getDotPath(issue)}: ${issue.message}`), label).toEqual([]);
  expect(result.output, `${label}: a field the schema does not know`).toMatchObject(example as object);
}

/** Values that differ on every call: kept only as "set" or as what they are when unset (0, null). */
const VARYING = new Set([
  "tid",
  "id",
  "receipt_id",
  "create_date",
  "created_date",
  "pay_date",
  "cancel_date",
  "rrn",
  "receiptId",
  "time",
  "fiscalSign",
  "qrCodeUrl",
  "partnerFiscaliztionUrl",
  "at",
  "request_id",
]);
function steady(value: unknown, key = ""): unknown {
  if (VARYING.has(key) && value !== null && value !== 0) return `<${typeof value}>`;
  if (Array.isArray(value)) return value.map((item) => steady(item));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, item]) => [k, steady(item, k)]));
  return value;
}

describe("the document's examples", () => {
  it("validate against the schemas: every request, every answer, every event", async () => {
    const doc = await served();
    for (const { url, operation } of OPERATIONS) {
      const post = doc.paths[url].post;
      const schema = post.requestBody.content["application/json"].schema;
      // A body with an alias (a2c/create's tId) is its own shape: valid once the alias is renamed, as the gateway does.
      for (const shape of schema.anyOf ?? [schema]) {
        const request = component(doc, shape);
        expect(request.examples, url).toHaveLength(1);
        const renamed = Object.fromEntries(Object.entries(request.examples[0]).map(([key, value]) => [operation.aliases?.[key] ?? key, value]));
        expectValid(operation.request, renamed, `${url} request (${request.title})`);
      }
      expectValid(
        operation.response,
        post.responses[String(operation.status ?? 200)].content["application/json"].examples.sandbox.value,
        `${url} answer`,
      );
    }
    for (const type of EVENT_TYPE_NAMES) {
      const example = doc.webhooks[type].post.requestBody.content["application/json"].examples[type].value;
      expectValid(Event, example, type);
      expect(example.type).toBe(type);
    }
    expectValid(Event, doc.components.schemas.Event.examples[0], "Event");
  });

  it("show each error code an answer lists, valid against Error", async () => {
    const doc = await served();
    let shown = 0;
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [status, response] of Object.entries<any>((item.post ?? item.get).responses)) {
        if (!/^[45]/.test(status)) continue;
        const media = response.content["application/json"];
        const codes: string[] = media.schema.allOf[1].properties.error.properties.code.enum;
        expect(Object.keys(media.examples), `${path} ${status}`).toEqual(codes);
        for (const code of codes) {
          expectValid(ErrorBody, media.examples[code].value, `${path} ${status} ${code}`);
          expect(media.examples[code].value.error.code).toBe(code);
          shown++;
        }
      }
    }
    expect(shown).toBeGreaterThan(200);
  });

  it("are what the sandbox answers to each documented request", async () => {
    const doc = await served();
    const request = (id: string) => {
      const schema = doc.paths[byId(id).url].post.requestBody.content["application/json"].schema;
      return structuredClone(component(doc, schema.anyOf?.[0] ?? schema).examples[0]);
    };
    const answer = (id: string) => doc.paths[byId(id).url].post.responses["200"].content["application/json"].examples.sandbox.value;
    /** Sends operation `id`'s documented request (with `changes`) and holds the answer to its documented one. */
    const send = async (id: string, changes: Record<string, unknown> = {}) => {
      const { url } = byId(id);
      const res = await callAt("http://gateway.test", url.slice(1), { ...request(id), ...changes });
      const body = (await res.json()) as any;
      expect(res.status, `${id}: ${JSON.stringify(body)}`).toBe(200);
      return body;
    };
    const expectAsDocumented = (id: string, body: unknown) => expect(steady(body), id).toEqual(steady(answer(id)));

    const receipt = await send("createReceipt", { tid: `example-${crypto.randomUUID()}` });
    expectAsDocumented("createReceipt", receipt);
    expectAsDocumented("authorizeReceipt", await send("authorizeReceipt", { id: receipt.id }));
    expectAsDocumented("payReceipt", await send("payReceipt", { id: receipt.id }));
    expectAsDocumented("checkReceiptById", await send("checkReceiptById", { id: receipt.id }));
    expectAsDocumented("checkReceiptByTid", await send("checkReceiptByTid", { tid: receipt.tid }));
    const trail = await send("auditReceipt", { id: receipt.id });
    expectAsDocumented("auditReceipt", { ...trail, entries: trail.entries.slice(0, 3) });
    expectAsDocumented("cancelReceipt", await send("cancelReceipt", { id: receipt.id }));

    const held = await send("createReceipt", { tid: `example-${crypto.randomUUID()}`, is_hold: true });
    await send("authorizeReceipt", { id: held.id });
    expect((await send("payReceipt", { id: held.id })).state).toBe(5);
    expectAsDocumented("confirmHold", await send("confirmHold", { id: held.id }));

    const anonymous = await send("createReceipt", { tid: `example-${crypto.randomUUID()}` });
    expectAsDocumented("authorizeReceiptAnonymous", await send("authorizeReceiptAnonymous", { id: anonymous.id }));
    expectAsDocumented("payReceiptAnonymous", await send("payReceiptAnonymous", { id: anonymous.id }));

    const transfer = await send("createTransfer", { tid: `example-${crypto.randomUUID()}` });
    expectAsDocumented("createTransfer", transfer);
    expectAsDocumented("payTransfer", await send("payTransfer", { id: transfer.receipt_id }));
    expectAsDocumented("getTransfer", await send("getTransfer", { id: transfer.receipt_id }));
  });
});
