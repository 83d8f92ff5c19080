/**
 * Our signatures are Standard Webhooks signatures: the reference library
 * verifies them, with one secret and during a rotation with either of two.
 */
import { env } from "cloudflare:workers";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { DEVELOPMENT_WEBHOOK_SECRET } from "../../src/config/config";
import { parseWebhookSecrets } from "../../src/config/config-lists";
import { signWebhook } from "../../src/events";
import { makeEvent, newRecordId } from "../events";

const secretOf = (text: string) => `whsec_${btoa(text)}`;
const OLD = secretOf("the-old-secret-of-24-bytes-or-more");
const NEW = secretOf("the-new-secret-of-24-bytes-or-more");
const OTHER = secretOf("a-secret-nobody-configured-here");

async function signed(secrets: string) {
  const { keys, problems } = parseWebhookSecrets(secrets);
  expect(problems).toEqual([]);
  const event = makeEvent(newRecordId());
  const body = JSON.stringify(event);
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    "webhook-id": event.id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": await signWebhook(keys, event.id, timestamp, body),
  };
  return { event, body, headers };
}

describe("webhook signatures", () => {
  it("are verified by the standardwebhooks library, which answers the event", async () => {
    const { event, body, headers } = await signed(DEVELOPMENT_WEBHOOK_SECRET);
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(DEVELOPMENT_WEBHOOK_SECRET).verify(body, headers)).toEqual(event);
  });

  it("are refused by the library for another secret, another body, id or timestamp", async () => {
    const { body, headers } = await signed(OLD);
    const webhook = new Webhook(OLD);
    expect(() => new Webhook(OTHER).verify(body, headers)).toThrow(WebhookVerificationError);
    expect(() => webhook.verify(body.replace('"state":4', '"state":21'), headers)).toThrow(WebhookVerificationError);
    expect(() => webhook.verify(body, { ...headers, "webhook-id": "evt_01ARZ3NDEKTSV4RRFFQ69G5FAV" })).toThrow(WebhookVerificationError);
    const later = String(Number(headers["webhook-timestamp"]) + 1);
    expect(() => webhook.verify(body, { ...headers, "webhook-timestamp": later })).toThrow(WebhookVerificationError);
  });

  it("during a rotation carry one signature per secret, and a receiver that knows either accepts them", async () => {
    const { event, body, headers } = await signed(`${OLD} ${NEW}`);
    const signatures = headers["webhook-signature"].split(" ");
    expect(signatures).toHaveLength(2);
    expect(signatures.every((s) => s.startsWith("v1,"))).toBe(true);
    expect(new Webhook(OLD).verify(body, headers)).toEqual(event);
    expect(new Webhook(NEW).verify(body, headers)).toEqual(event);
    expect(() => new Webhook(OTHER).verify(body, headers)).toThrow(WebhookVerificationError);
  });

  it("a rotation step by step: old, then '<old> <new>', then new; a receiver on either key verifies at every step it should", async () => {
    const before = await signed(OLD);
    expect(new Webhook(OLD).verify(before.body, before.headers)).toEqual(before.event);
    // Step 1: the gateway signs with both; the receiver still on OLD verifies, one moved to NEW too.
    const during = await signed(`${OLD} ${NEW}`);
    expect(new Webhook(OLD).verify(during.body, during.headers)).toEqual(during.event);
    expect(new Webhook(NEW).verify(during.body, during.headers)).toEqual(during.event);
    // Step 3: NEW alone; only a receiver on NEW verifies, so the receiver moves before this step.
    const after = await signed(NEW);
    expect(new Webhook(NEW).verify(after.body, after.headers)).toEqual(after.event);
    expect(() => new Webhook(OLD).verify(after.body, after.headers)).toThrow(WebhookVerificationError);
  });

  it("the development secret is the one .dev.vars.example configures, the base64 of local-dev-webhook-secret", () => {
    expect(env.WEBHOOK_SECRET).toBe(DEVELOPMENT_WEBHOOK_SECRET);
    const { keys } = parseWebhookSecrets(DEVELOPMENT_WEBHOOK_SECRET);
    expect(new TextDecoder().decode(keys[0])).toBe("local-dev-webhook-secret");
  });
});

describe("WEBHOOK_SECRET", () => {
  it("accepts one or more whsec_<base64> secrets, space-separated", () => {
    expect(parseWebhookSecrets(OLD).keys).toHaveLength(1);
    expect(parseWebhookSecrets(`  ${OLD}   ${NEW} `).keys).toHaveLength(2);
    expect(parseWebhookSecrets("").keys).toEqual([]);
  });

  it("names each malformed entry without quoting it", () => {
    const malformed = ["local-dev-webhook-secret", "whsec_not-base64!", "whsec_", `whsec_${btoa("short")}`, OLD.slice(0, -1)];
    for (const secret of malformed) {
      const { keys, problems } = parseWebhookSecrets(secret);
      expect(keys, secret).toEqual([]);
      expect(problems, secret).toHaveLength(1);
      expect(problems[0]).toMatch(/^WEBHOOK_SECRET (is not of the form whsec_<base64>|encodes fewer than 24 bytes)/);
      if (secret.length > 6) expect(problems[0]).not.toContain(secret.slice(6));
    }
    const { keys, problems } = parseWebhookSecrets(`${OLD} whsec_%%%`);
    expect(keys).toHaveLength(1);
    expect(problems).toEqual(["WEBHOOK_SECRET entry 2 is not of the form whsec_<base64>."]);
  });
});
