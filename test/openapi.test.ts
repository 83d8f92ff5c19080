import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { OPERATION_PATHS as OPERATIONS } from "./helpers";


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
      expect(post.requestBody.content["application/json"].schema.type, op).toBe("object");
      expect(post.responses["200"].content["application/json"].schema, op).toBeTruthy();
      expect(post.responses["400"].description, op).toContain("invalid_request");
      expect(post.responses["401"].description, op).toContain("unauthorized");
      expect(post.responses["503"].description, op).toContain("service_misconfigured");
    }
  });

  it("is generated from the validating schemas: the rules the edge enforces are in it", async () => {
    const doc = (await (await exports.default.fetch("http://gateway.test/openapi.json")).json()) as any;
    const create = doc.paths["/api/v1/partner/receipt/create"].post.requestBody.content["application/json"].schema;
    expect(create.required).toEqual(expect.arrayContaining(["tid", "amount", "merchant_id", "account"]));
    expect(create.properties.amount).toMatchObject({ type: "integer", minimum: 1, maximum: 2 ** 53 - 1 });
    const pay = doc.paths["/api/v1/partner/receipt/anonymous/pay"].post.requestBody.content["application/json"].schema;
    expect(pay.required).toEqual(expect.arrayContaining(["id", "card", "otp"]));
    expect(pay.properties.otp.pattern).toBe("^\\d{4,8}$");
    expect(pay.properties.card.properties.number.pattern).toBe("^\\d{16,19}$");
    const conflicts = doc.paths["/api/v1/partner/receipt/create"].post.responses["409"].description;
    expect(conflicts).toContain("tid_conflict");
    expect(conflicts).toContain("tid_in_progress");
    // Creates are not rate-limited, and the document does not claim they are.
    expect(doc.paths["/api/v1/partner/receipt/create"].post.responses["429"]).toBeUndefined();
    expect(doc.paths["/api/v1/partner/receipt/pay"].post.responses["429"].description).toContain("rate_limited");
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
});
