/**
 * What a create is refused for before its tid is claimed: a hold where the
 * deployment cannot confirm one (src/operations/creation.ts). Nothing reaches the
 * upstream and the tid stays free.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { API, expectError, expectStatus, PARTNER_KEY, receiptRequest, sandboxCalls } from "../helpers";

/** This Worker's development deployment, with the hold function switched off. */
const noHolds = { ...env, HOLD_ENABLED: "false" } as Env;

const create = (deployment: Env, body: unknown) =>
  createApp().fetch(
    new Request(`${API}/receipt/create`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${PARTNER_KEY}` },
      body: JSON.stringify(body),
    }),
    deployment,
    createExecutionContext(),
  );

describe("a create with is_hold where the hold function is off", () => {
  it("is 403 hold_not_enabled, reaches no upstream, and leaves the tid free", async () => {
    const request = receiptRequest({ merchant_id: 1003, is_hold: true });
    const before = (await sandboxCalls()).length;
    const refused = await expectError(create(noHolds, request), 403, "hold_not_enabled");
    expect(refused.message).toBe("The hold function is not enabled in this deployment.");
    expect((await sandboxCalls()).length).toBe(before);
    // The same tid, without the hold, creates the receipt.
    const created = await expectStatus(create(noHolds, { ...request, is_hold: false }), 200);
    expect(created.tid).toBe(request.tid);
  });
});
