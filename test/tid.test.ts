import { env } from "cloudflare:workers";
import { fingerprint } from "../src/tid-index";
import { describe, expect, it } from "vitest";
import { call, expectError, expectStatus, newTid, receiptRequest, sandboxCalls } from "./helpers";

const createCalls = async (tid: string) => (await sandboxCalls()).filter((c) => c.path === "receipt/create" && c.tid === tid).length;

describe("tid uniqueness", () => {
  it("an identical retry replays the original receipt with Idempotent-Replayed and creates nothing upstream", async () => {
    const request = receiptRequest();
    const first = await call("receipt/create", request);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const original = await expectStatus(first, 200);

    const retry = await call("receipt/create", request);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await expectStatus(retry, 200)).toEqual(original);
    expect(await createCalls(request.tid)).toBe(1);
  });

  it("a different body with the same tid is tid_conflict", async () => {
    const request = receiptRequest();
    await expectStatus(call("receipt/create", request), 200);
    const error = await expectError(call("receipt/create", { ...request, amount: request.amount + 100 }), 409, "tid_conflict");
    expect(Object.keys(error).sort()).toEqual(["code", "message", "request_id"]);
    expect(await createCalls(request.tid)).toBe(1);
  });

  it("the defaults count as sent: omitting currency and is_hold replays a create that sent them", async () => {
    const request = receiptRequest();
    await expectStatus(call("receipt/create", { ...request, currency: 860, is_hold: false }), 200);
    const retry = await call("receipt/create", request);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
  });

  it("20 concurrent creates with one tid: one receipt upstream, every other answer a replay or tid_in_progress", async () => {
    const request = receiptRequest();
    const answers = await Promise.all(Array.from({ length: 20 }, () => call("receipt/create", request)));
    const outcomes = await Promise.all(
      answers.map(async (res) => ({
        status: res.status,
        replayed: res.headers.get("idempotent-replayed") === "true",
        retryAfter: res.headers.get("retry-after"),
        body: (await res.json()) as any,
      })),
    );
    const originals = outcomes.filter((o) => o.status === 200 && !o.replayed);
    expect(originals).toHaveLength(1);
    const receiptId = originals[0]!.body.id;
    for (const o of outcomes) {
      if (o.status === 200) {
        expect(o.body.id).toBe(receiptId);
      } else {
        expect(o.status).toBe(409);
        expect(o.body.error.code).toBe("tid_in_progress");
        expect(Number(o.retryAfter)).toBeGreaterThan(0);
      }
    }
    expect(await createCalls(request.tid)).toBe(1);

    const row = await env.DB.prepare("SELECT status, receipt_id FROM tid_index WHERE tid = ?").bind(request.tid).first();
    expect(row).toEqual({ status: "completed", receipt_id: receiptId });
  });

  it("a create the upstream refused frees its tid for a corrected request", async () => {
    const tid = newTid();
    await expectError(call("receipt/create", receiptRequest({ tid, merchant_id: 9999 })), 400, "invalid_request");
    const created = await expectStatus(call("receipt/create", receiptRequest({ tid })), 200);
    expect(created.tid).toBe(tid);
  });

  it("keeps the request only as a fingerprint keyed with the deployment's secret", async () => {
    const request = receiptRequest();
    await expectStatus(call("receipt/create", request), 200);
    const row = await env.DB.prepare("SELECT * FROM tid_index WHERE tid = ?").bind(request.tid).first<Record<string, unknown>>();
    const validated = { kind: "receipt", request: { ...request, is_hold: false, currency: 860 } };
    expect(row?.fingerprint).toBe(await fingerprint(env.UPSTREAM_API_KEY, validated));
    expect(row?.fingerprint).not.toBe(await fingerprint("another-deployment", validated));
    expect(Object.keys(row ?? {}).sort()).toEqual(
      ["claim_token", "created_at", "fingerprint", "kind", "owner", "receipt_id", "response", "status", "tid", "updated_at"].sort(),
    );
  });

  it("a create that reached the upstream but whose answer was lost is adopted by an identical retry", async () => {
    const request = { ...receiptRequest({ merchant_id: 1003 }), is_hold: false, currency: 860 };
    // The earlier attempt: the upstream created the receipt...
    const upstream = await env.UPSTREAM!.fetch("https://sandbox.upstream.invalid/api/v1/partner/receipt/create", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${env.UPSTREAM_API_KEY}` },
      body: JSON.stringify(request),
    });
    const lost = (await upstream.json()) as any;
    // ...and the gateway kept only its claim, released for an immediate takeover.
    const fp = await fingerprint(env.UPSTREAM_API_KEY, { kind: "receipt", request });
    await env.DB.prepare(
      "INSERT INTO tid_index (tid, kind, owner, fingerprint, status, claim_token, created_at, updated_at) VALUES (?, 'receipt', 'partner:partner', ?, 'pending', 'lost-attempt', 0, 0)",
    )
      .bind(request.tid, fp)
      .run();

    const adopted = await expectStatus(call("receipt/create", request), 200);
    expect(adopted.id).toBe(lost.id);
    const paid = await expectStatus(call("receipt/pay", { id: adopted.id, card: { token: "tok_sandbox_ok" } }), 200);
    expect(paid.state).toBe(4);
    const replay = await call("receipt/create", request);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
  });

  it("a pending claim of another request is a conflict, and of the same one tid_in_progress with Retry-After", async () => {
    const request = receiptRequest();
    await env.DB.prepare(
      "INSERT INTO tid_index (tid, kind, owner, fingerprint, status, claim_token, created_at, updated_at) VALUES (?, 'receipt', 'partner:partner', ?, 'pending', 'in-flight', ?, ?)",
    )
      .bind(request.tid, await fingerprint(env.UPSTREAM_API_KEY, { kind: "receipt", request: { ...request, is_hold: false, currency: 860 } }), Date.now(), Date.now())
      .run();
    const res = await call("receipt/create", request);
    await expectError(res.clone(), 409, "tid_in_progress");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    await expectError(call("receipt/create", { ...request, amount: 999_999 }), 409, "tid_conflict");
    expect(await createCalls(request.tid)).toBe(0);
  });
});
