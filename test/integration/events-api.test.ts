/**
 * The gateway's own event operations through the Worker: events/list and
 * events/resend, who may call them, and how they are documented.
 */
import { createExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { ulid } from "ulid";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { EVENT_TYPE_NAMES, type EventMessage } from "../../src/events";
import { recordDeadLettered, recordDeliveries, recordFailedAttempt } from "../../src/events/log-database";
import { callGateway, eventDb, eventRow, GATEWAY, lifecycle, makeEvent, messageOf, newRecordId, publishKept } from "../events";
import { expectError, expectStatus, newUser, sandboxCalls, userToken } from "../helpers";

const list = (body: Record<string, unknown>) => expectStatus<any>(callGateway("events/list", body), 200);
const idsOf = (page: { events: { id: string }[] }) => page.events.map((e) => e.id);

describe("events/list", () => {
  it("answers a receipt's events newest first, each with its delivery, and pages with after / has_more", async () => {
    const recordId = newRecordId();
    const events = lifecycle(recordId, ["receipt.created", "receipt.awaiting_supplier", "receipt.paid"]);
    await publishKept(events);
    await recordDeliveries(await eventDb(events[0]!.id), [{ id: events[0]!.id, status: 200, at: 1_700_000_000_000 }]);
    await recordFailedAttempt(await eventDb(events[1]!.id), events[1]!.id, { status: 502, error: "HTTP 502", nextAttemptAt: Date.now() + 1000 });

    const all = await list({ receipt_id: recordId });
    expect(all.has_more).toBe(false);
    expect(all.events).toEqual([
      { ...events[2], delivery: { status: "pending", attempts: 0, last_status: null, last_error: null, delivered_at: null } },
      { ...events[1], delivery: { status: "pending", attempts: 1, last_status: 502, last_error: "HTTP 502", delivered_at: null } },
      { ...events[0], delivery: { status: "delivered", attempts: 1, last_status: 200, last_error: null, delivered_at: 1_700_000_000_000 } },
    ]);

    const first = await list({ receipt_id: recordId, limit: 2 });
    expect(idsOf(first)).toEqual([events[2]!.id, events[1]!.id]);
    expect(first.has_more).toBe(true);
    const second = await list({ receipt_id: recordId, limit: 2, after: first.events[1].id });
    expect(idsOf(second)).toEqual([events[0]!.id]);
    expect(second.has_more).toBe(false);
  });

  it("filters by type and by delivery status, alone or together", async () => {
    const recordId = newRecordId();
    const transferId = newRecordId("a2c");
    const events = lifecycle(recordId, ["receipt.created", "receipt.paid", "receipt.cancelled"]);
    const transfer = makeEvent(transferId, { type: "transfer.paid" });
    await publishKept([...events, transfer]);
    await recordDeadLettered(await eventDb(events[2]!.id), [events[2]!.id]);

    expect(idsOf(await list({ receipt_id: recordId, type: "receipt.paid" }))).toEqual([events[1]!.id]);
    expect(idsOf(await list({ receipt_id: recordId, delivery: "failed" }))).toEqual([events[2]!.id]);
    expect(idsOf(await list({ receipt_id: recordId, delivery: "pending" }))).toEqual([events[1]!.id, events[0]!.id]);
    expect(idsOf(await list({ receipt_id: transferId }))).toEqual([transfer.id]);

    const failed = await list({ delivery: "failed", limit: 100 });
    expect(failed.events.every((e: any) => e.delivery.status === "failed")).toBe(true);
    expect(idsOf(failed)).toContain(events[2]!.id);
    const paid = await list({ type: "transfer.paid", limit: 100 });
    expect(paid.events.every((e: any) => e.type === "transfer.paid")).toBe(true);
    expect(idsOf(paid)).toContain(transfer.id);
  });

  it("by every type, alone and with each delivery status: that type's events newest first, paged with after and has_more", async () => {
    // Three events of each type, a round each, interleaved with the other types in time (a walk of the log passes
    // them), at a time of their own, older than every other test's; each round in its own delivery status.
    const at = Date.UTC(2003, 0, 1);
    const rounds = [0, 1, 2].map((round) =>
      EVENT_TYPE_NAMES.map((type, i) => ({
        ...makeEvent(newRecordId(type.startsWith("transfer.") ? "a2c" : undefined), { type }),
        id: `evt_${ulid(at + round * 100 + i)}`,
        created: at + round * 100 + i,
      })),
    );
    await publishKept(rounds.flat());
    for (const event of rounds[0]!) await recordDeliveries(await eventDb(event.id), [{ id: event.id, status: 200, at: event.created + 1 }]);
    for (const event of rounds[1]!) await recordDeadLettered(await eventDb(event.id), [event.id]);
    const after = `evt_${ulid(at + 1000)}`;

    for (const [i, type] of EVENT_TYPE_NAMES.entries()) {
      const newestFirst = [rounds[2]![i]!.id, rounds[1]![i]!.id, rounds[0]![i]!.id];
      const first = await list({ type, after, limit: 2 });
      expect([type, idsOf(first), first.has_more]).toEqual([type, newestFirst.slice(0, 2), true]);
      expect(first.events.every((e: any) => e.type === type)).toBe(true);
      const second = await list({ type, after: first.events[1].id, limit: 2 });
      expect([type, idsOf(second)[0]]).toEqual([type, newestFirst[2]]);
      for (const [round, delivery] of ["delivered", "failed", "pending"].entries()) {
        const page = await list({ type, delivery, after, limit: 1 });
        expect([type, delivery, idsOf(page)]).toEqual([type, delivery, [rounds[round]![i]!.id]]);
        expect(page.events[0].delivery.status).toBe(delivery);
      }
    }
  });

  it("defaults to 20 events, takes 1 to 100, and refuses what is not a filter", async () => {
    const recordId = newRecordId();
    await publishKept(Array.from({ length: 21 }, (_, i) => makeEvent(recordId, { sequence: i + 1 })));
    const page = await list({ receipt_id: recordId });
    expect(page.events).toHaveLength(20);
    expect(page.has_more).toBe(true);

    for (const body of [
      { limit: 0 },
      { limit: 101 },
      { limit: 2.5 },
      { type: "receipt.refunded" },
      { delivery: "lost" },
      { after: "not-an-event-id" },
      { receipt_id: "" },
    ]) {
      const error = await expectError(callGateway("events/list", body), 400, "invalid_request");
      expect(error.details.length, JSON.stringify(body)).toBeGreaterThan(0);
    }
  });

  it("refuses a filter sent as a JSON array (or any body that is not an object) instead of answering every event", async () => {
    const recordId = newRecordId();
    await publishKept(lifecycle(recordId, ["receipt.created", "receipt.paid"]));
    for (const [body, kind] of [
      [[{ receipt_id: recordId, limit: 1 }], "an array"],
      [[], "an array"],
      [null, "null"],
      [20, "a number"],
    ] as const) {
      const error = await expectError(callGateway("events/list", body), 400, "invalid_request");
      expect(error.details).toEqual([{ path: "", message: `the body must be a JSON object, not ${kind}` }]);
    }
    // The object form is the filter.
    expect((await list({ receipt_id: recordId, limit: 1 })).events).toHaveLength(1);
  });
});

describe("events/resend", () => {
  /** The gateway with a queue that records what it is sent (or refuses). */
  function gatewayWithQueue(down = false) {
    const sent: EventMessage[] = [];
    const queue = {
      async send() {
        throw new Error("resend uses sendBatch");
      },
      async sendBatch(messages: Iterable<MessageSendRequest<EventMessage>>) {
        if (down) throw new Error("Queue send failed: service unavailable");
        for (const message of messages) sent.push(message.body);
      },
    };
    const deployment = { ...env, EVENTS: queue } as unknown as Env;
    const resend = (id: string) =>
      createApp().fetch(
        new Request(`${GATEWAY}/events/resend`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: "Bearer sk_test_local_partner" },
          body: JSON.stringify({ id }),
        }),
        deployment,
        createExecutionContext(),
      );
    return { sent, resend };
  }

  it("queues the logged event again, as its record keeps it, and sets it pending", async () => {
    const recordId = newRecordId();
    const [event] = lifecycle(recordId, ["receipt.created"]);
    await publishKept([event!]);
    await recordFailedAttempt(await eventDb(event!.id), event!.id, { status: 500, error: "HTTP 500", nextAttemptAt: Date.now() + 1000 });
    await recordDeadLettered(await eventDb(event!.id), [event!.id]);

    const { sent, resend } = gatewayWithQueue();
    expect(await expectStatus(resend(event!.id), 200)).toEqual(event);
    expect(sent).toEqual([messageOf(event!)]);
    expect(await eventRow(event!.id)).toMatchObject({ delivery_status: "pending", attempts: 1, last_status: 500 });
  });

  it("resends a delivered event too (a receiver that lost it asks again)", async () => {
    const [event] = lifecycle(newRecordId(), ["receipt.paid"]);
    await publishKept([event!]);
    await recordDeliveries(await eventDb(event!.id), [{ id: event!.id, status: 200, at: Date.now() }]);
    const { sent, resend } = gatewayWithQueue();
    await expectStatus(resend(event!.id), 200);
    expect(sent.map((m) => m.id)).toEqual([event!.id]);
    expect(await eventRow(event!.id)).toMatchObject({ delivery_status: "pending", delivered_at: null });
  });

  it("when the queue refuses, leaves the event as it was and fails the call", async () => {
    const [event] = lifecycle(newRecordId(), ["receipt.paid"]);
    await publishKept([event!]);
    await recordDeadLettered(await eventDb(event!.id), [event!.id]);
    const { resend } = gatewayWithQueue(true);
    await expectError(resend(event!.id), 500, "internal_error");
    expect((await eventRow(event!.id))!.delivery_status).toBe("failed");
  });

  it("an unknown or malformed id", async () => {
    await expectError(callGateway("events/resend", { id: "evt_01ARZ3NDEKTSV4RRFFQ69G5FAV" }), 404, "not_found");
    await expectError(callGateway("events/resend", { id: "rcpt-1" }), 400, "invalid_request");
    await expectError(callGateway("events/resend", {}), 400, "invalid_request");
  });
});

describe("who may call the gateway's operations", () => {
  const PATHS = ["events/list", "events/resend"];

  it.each(PATHS)("%s: a user's JWT is 403 forbidden, before the body is read", async (path) => {
    const token = await userToken(newUser());
    const before = await sandboxCalls();
    await expectError(callGateway(path, { id: "evt_01ARZ3NDEKTSV4RRFFQ69G5FAV" }, { token }), 403, "forbidden");
    await expectError(callGateway(path, null, { token, raw: "{not json" }), 403, "forbidden");
    expect(await sandboxCalls()).toEqual(before);
  });

  it.each(PATHS)("%s: no or a wrong credential is 401 unauthorized; another method is 405 with Allow: POST", async (path) => {
    await expectError(callGateway(path, {}, { token: null }), 401, "unauthorized");
    await expectError(callGateway(path, {}, { token: "sk_live_not_a_key_of_ours" }), 401, "unauthorized");
    await expectError(exports.default.fetch(`${GATEWAY}/${path}`), 405, "method_not_allowed");
  });

  it("the partner's calls need JSON: another content type is 415", async () => {
    await expectError(callGateway("events/list", null, { raw: "{}", headers: { "content-type": "text/plain" } }), 415, "unsupported_media_type");
  });
});

/** A schema, or the component its $ref names. */
const component = (doc: any, node: any): any => (node?.$ref ? doc.components.schemas[node.$ref.split("/").pop()] : node);

describe("the OpenAPI document", () => {
  it("documents events/list and events/resend as partner-only operations", async () => {
    const doc = (await (await exports.default.fetch("http://gateway.test/openapi.json")).json()) as any;
    for (const path of ["/api/v1/gateway/events/list", "/api/v1/gateway/events/resend"]) {
      const post = doc.paths[path]?.post;
      expect(post, path).toBeTruthy();
      expect(post.security).toEqual([{ partnerKey: [] }]);
      expect(post.responses["403"].description).toContain("forbidden");
      expect(component(doc, post.requestBody.content["application/json"].schema).type).toBe("object");
    }
    const listRequest = component(doc, doc.paths["/api/v1/gateway/events/list"].post.requestBody.content["application/json"].schema);
    expect(listRequest.properties.limit).toMatchObject({ minimum: 1, maximum: 100, default: 20 });
    expect(listRequest.properties.delivery.enum).toEqual(["pending", "delivered", "failed"]);
    expect(doc.paths["/api/v1/gateway/events/resend"].post.responses["404"].description).toContain("not_found");
  });

  it("declares every event type under webhooks, each a POST of its kind's event schema with the signature headers", async () => {
    const doc = (await (await exports.default.fetch("http://gateway.test/openapi.json")).json()) as any;
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPE_NAMES].sort());
    for (const type of EVENT_TYPE_NAMES) {
      const post = doc.webhooks[type].post;
      const schema = type.startsWith("transfer.") ? "TransferEvent" : "ReceiptEvent";
      expect(post.requestBody.content["application/json"].schema.allOf[0]).toEqual({ $ref: `#/components/schemas/${schema}` });
      expect(post.parameters.map((p: any) => p.name)).toEqual(["webhook-id", "webhook-timestamp", "webhook-signature"]);
      expect(post.responses["2XX"]).toBeTruthy();
    }
    const { ReceiptEvent, TransferEvent } = doc.components.schemas;
    for (const event of [ReceiptEvent, TransferEvent]) {
      expect(event.required).toEqual(expect.arrayContaining(["id", "type", "created", "sequence", "request_id", "data"]));
      expect(JSON.stringify(event.properties.data)).toContain("previous_state");
    }
    expect([...ReceiptEvent.properties.type.enum, ...TransferEvent.properties.type.enum].sort()).toEqual([...EVENT_TYPE_NAMES].sort());
  });
});
