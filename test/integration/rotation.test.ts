/**
 * Rotating the deployment's secrets (docs/production.md, "Rotating secrets")
 * breaks no replay, no user's tid and no caller: TID_SECRET accepts the new
 * value and the old one at once ("<new> <old>"), the upstream credential keys
 * nothing the tid index keeps, and partner keys overlap.
 */
import { createExecutionContext, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { receiptStub } from "../../src/record/receipt-object";
import { claimTid, fingerprint, leaseMs, upstreamTidFor } from "../../src/tids/tid-index";
import {
  API,
  expectError,
  expectStatus,
  newTid,
  newUser,
  productionEnv,
  receiptRequest,
  sandboxCalls,
  sha256Hex,
  tidDb,
  tidRow,
  userToken,
} from "../helpers";

const OLD = "tid-secret-before-the-rotation-0123456789";
const NEW = "tid-secret-after-the-rotation-9876543210";

/** The gateway as deployed with these settings (the development deployment, so creates reach the sandbox). */
function deployment(overrides: Record<string, unknown>) {
  const deployed = { ...env, ...overrides } as unknown as Env;
  return (path: string, body: unknown, credential = "sk_test_local_partner") =>
    createApp().fetch(
      new Request(`${API}/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${credential}` },
        body: JSON.stringify(body),
      }),
      deployed,
      createExecutionContext(),
    );
}

const beforeRotation = deployment({ TID_SECRET: OLD });
const duringRotation = deployment({ TID_SECRET: `${NEW} ${OLD}` });
const afterRotation = deployment({ TID_SECRET: NEW });

/** The upstream tids the sandbox received creates for, oldest first. */
const createdUpstream = async () => (await sandboxCalls()).filter((c) => c.path === "receipt/create").map((c) => c.tid);

async function expectReplay(response: Response | Promise<Response>, original: unknown) {
  const res = await response;
  expect(res.headers.get("idempotent-replayed")).toBe("true");
  expect(await expectStatus(res, 200)).toEqual(original);
}

describe("rotating TID_SECRET", () => {
  it("an identical retry of a create made under the old value replays, for the partner and for a user; nothing is created again", async () => {
    const user = newUser();
    const token = await userToken(user);
    const partnerRequest = receiptRequest();
    const userRequest = receiptRequest();
    const byPartner = await expectStatus(beforeRotation("receipt/create", partnerRequest), 200);
    const byUser = await expectStatus(beforeRotation("receipt/create", userRequest, token), 200);
    const before = await createdUpstream();

    await expectReplay(duringRotation("receipt/create", partnerRequest), byPartner);
    await expectReplay(duringRotation("receipt/create", userRequest, token), byUser);
    expect(await createdUpstream()).toEqual(before);
  });

  it("a different body with a tid claimed under the old value is still tid_conflict", async () => {
    const token = await userToken(newUser());
    for (const credential of [token, "sk_test_local_partner"]) {
      const request = receiptRequest();
      await expectStatus(beforeRotation("receipt/create", request, credential), 200);
      const before = await createdUpstream();
      await expectError(duringRotation("receipt/create", { ...request, amount: request.amount + 100 }, credential), 409, "tid_conflict");
      expect(await createdUpstream()).toEqual(before);
    }
  });

  it("new creates use the new value: a user's tid goes upstream as the UUID derived from it", async () => {
    const user = newUser();
    const request = receiptRequest();
    const created = await expectStatus(duringRotation("receipt/create", request, await userToken(user)), 200);
    expect(created.tid).toBe(request.tid);
    const derived = await upstreamTidFor(NEW, `user:${user}`, request.tid);
    expect((await createdUpstream()).at(-1)).toBe(derived);
    expect(derived).not.toBe(await upstreamTidFor(OLD, `user:${user}`, request.tid));
    // Its fingerprint is keyed with the new value, so it replays once the old one is gone.
    await expectReplay(afterRotation("receipt/create", request, await userToken(user)), created);
  });

  it("check-tid finds a user's receipt across the rotation, for the user and for the partner", async () => {
    const user = newUser();
    const token = await userToken(user);
    const request = receiptRequest();
    const created = await expectStatus(beforeRotation("receipt/create", request, token), 200);
    for (const call of [duringRotation, afterRotation]) {
      expect((await expectStatus(call("receipt/check-tid", { tid: request.tid }, token), 200)).id).toBe(created.id);
      expect((await expectStatus(call("receipt/check-tid", { tid: request.tid, user }), 200)).id).toBe(created.id);
    }
  });

  it("a lost create (pending, lease over) made under the old value, retried during the rotation, adopts the same upstream receipt under its first upstream tid", async () => {
    const user = newUser();
    const owner = `user:${user}`;
    const request = { ...receiptRequest({ merchant_id: 1003 }), is_hold: false, currency: 860 };
    const firstUpstreamTid = await upstreamTidFor(OLD, owner, request.tid);
    // The earlier attempt, before the rotation: the upstream created the receipt...
    const upstream = await env.UPSTREAM!.fetch("https://sandbox.upstream.invalid/api/v1/partner/receipt/create", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${env.UPSTREAM_API_KEY}` },
      body: JSON.stringify({ ...request, tid: firstUpstreamTid }),
    });
    const lost = (await upstream.json()) as { id: string };
    // ...and the gateway died holding only its claim, whose lease has run out since.
    const lease = leaseMs(Number(env.UPSTREAM_TIMEOUT_MS));
    const claim = await claimTid(
      await tidDb(owner, request.tid),
      {
        owner,
        tid: request.tid,
        upstreamTid: firstUpstreamTid,
        kind: "receipt",
        fingerprint: await fingerprint(OLD, { kind: "receipt", request }),
        leaseMs: lease,
      },
      Date.now() - lease - 1,
    );
    expect(claim.kind).toBe("claimed");

    const token = await userToken(user);
    const adopted = await expectStatus(duringRotation("receipt/create", request, token), 200);
    expect(adopted.id).toBe(lost.id);
    expect(adopted.tid).toBe(request.tid);
    // One receipt upstream: the retry was sent under the first upstream tid (and answered TID_DUPLICATE), never under a new one.
    const creates = await createdUpstream();
    expect(creates.filter((tid) => tid === firstUpstreamTid)).toHaveLength(2);
    expect(creates).not.toContain(await upstreamTidFor(NEW, owner, request.tid));
    expect((await tidRow(owner, request.tid))?.upstream_tid).toBe(firstUpstreamTid);
    const stored = await runInDurableObject(receiptStub(env, "receipt", lost.id), (_instance, state) =>
      state.storage.sql.exec<{ upstream_tid: string }>("SELECT upstream_tid FROM record").one(),
    );
    expect(stored.upstream_tid).toBe(firstUpstreamTid);
    await expectReplay(duringRotation("receipt/create", request, token), adopted);
  });

  it("once the old value is dropped, a retry of a create claimed under it is tid_conflict: nothing is ever created twice", async () => {
    const request = receiptRequest();
    await expectStatus(beforeRotation("receipt/create", request), 200);
    const before = await createdUpstream();
    await expectError(afterRotation("receipt/create", request), 409, "tid_conflict");
    expect(await createdUpstream()).toEqual(before);
  });

  it("the guard checks each value in production and never names one", async () => {
    const health = async (tidSecret: string) =>
      createApp().fetch(new Request("http://gateway.test/healthz"), await productionEnv({ TID_SECRET: tidSecret }), createExecutionContext());
    await expectStatus(health(`${NEW} ${OLD}`), 200);
    const refusals: [string, string][] = [
      [`${NEW} short`, "TID_SECRET entry 2 is shorter than 32 characters."],
      [`${NEW} local-dev-tid-secret`, "TID_SECRET entry 2 is the development secret"],
      [`live-upstream-credential ${NEW}`, "TID_SECRET entry 1 equals UPSTREAM_API_KEY"],
      [`${NEW} ${NEW}`, "TID_SECRET holds the same value twice."],
    ];
    for (const [value, named] of refusals) {
      const error = await expectError(health(value), 503, "service_misconfigured");
      expect(error.message).toContain(named);
      expect(error.message).not.toContain(NEW);
      expect(error.message).not.toContain("live-upstream-credential");
    }
  });
});

describe("rotating the upstream credential (UPSTREAM_API_KEY)", () => {
  it("changes neither the fingerprint nor a user's upstream tid: an identical retry after the change replays, check-tid still finds it", async () => {
    const user = newUser();
    const token = await userToken(user);
    const request = receiptRequest();
    const created = await expectStatus(beforeRotation("receipt/create", request, token), 200);
    const row = await tidRow(`user:${user}`, request.tid);
    const before = await createdUpstream();

    const rotated = deployment({ TID_SECRET: OLD, UPSTREAM_API_KEY: "the-rotated-upstream-credential" });
    await expectReplay(rotated("receipt/create", request, token), created);
    expect((await expectStatus(rotated("receipt/check-tid", { tid: request.tid }, token), 200)).id).toBe(created.id);
    expect(await tidRow(`user:${user}`, request.tid)).toEqual(row);
    expect(row?.upstream_tid).toBe(await upstreamTidFor(OLD, `user:${user}`, request.tid));
    expect(await createdUpstream()).toEqual(before);
  });
});

describe("rotating the partner's server key (PARTNER_KEY_HASHES)", () => {
  it("old only, then both, then new only: both work in between, and every receipt stays the partner's", async () => {
    const oldKey = `sk_live_${crypto.randomUUID()}`;
    const newKey = `sk_live_${crypto.randomUUID()}`;
    const [oldDigest, newDigest] = [await sha256Hex(oldKey), await sha256Hex(newKey)];
    const step1 = deployment({ PARTNER_KEY_HASHES: oldDigest });
    const step2 = deployment({ PARTNER_KEY_HASHES: `${oldDigest},${newDigest}` });
    const step3 = deployment({ PARTNER_KEY_HASHES: newDigest });

    const request = receiptRequest({ tid: newTid("rotation") });
    const created = await expectStatus(step1("receipt/create", request, oldKey), 200);
    await expectError(step1("receipt/check-id", { id: created.id }, newKey), 401, "unauthorized");
    for (const key of [oldKey, newKey]) {
      expect((await expectStatus(step2("receipt/check-id", { id: created.id }, key), 200)).id).toBe(created.id);
    }
    await expectReplay(step2("receipt/create", request, newKey), created);
    expect((await expectStatus(step3("receipt/check-tid", { tid: request.tid }, newKey), 200)).id).toBe(created.id);
    const refused = await expectError(step3("receipt/check-id", { id: created.id }, oldKey), 401, "unauthorized");
    expect(JSON.stringify(refused)).not.toContain(oldKey);
  });
});
