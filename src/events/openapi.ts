/**
 * The events in the OpenAPI document: one entry per event type under the
 * top-level `webhooks` (OpenAPI 3.1), each a POST of its kind's event schema
 * (ReceiptEvent or TransferEvent, the two the Event component is one of)
 * with the Standard Webhooks headers. hono-openapi documents routes only, so
 * src/operations/openapi.ts adds them to the document it generated.
 */
import { resolver } from "hono-openapi";
import type { OpenAPIV3_1 } from "openapi-types";
import type { EventType } from "../rules/kinds";
import { eventExample } from "./examples";
import { Event } from "./schemas";
import { EVENT_TYPES, type EventKind, kindOfEvent } from "./types";

/** The component each kind's events are (src/events/schemas.ts titles them). */
const EVENT_SCHEMAS: Record<EventKind, string> = { receipt: "ReceiptEvent", transfer: "TransferEvent" };

const DELIVERY = [
  "POSTed as JSON to the partner's WEBHOOK_URL through a queue, at least once, in no guaranteed order (`sequence` orders one receipt's events).",
  "Headers as Standard Webhooks sign them: `webhook-id` (the event id: the same on every retry, so duplicates can be dropped), `webhook-timestamp` (seconds),",
  '`webhook-signature`: `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the bytes of the `whsec_` secret;',
  "during a secret rotation one signature per secret, space-separated. Verify with any Standard Webhooks library.",
  "Answer 2xx within 10 s; anything else is retried with exponential backoff for more than 24 hours, then the event shows `failed` in events/list",
  "and can be sent again with events/resend.",
].join(" ");

const header = (name: string, description: string, maxLength: number, pattern: string): OpenAPIV3_1.ParameterObject => ({
  name,
  in: "header",
  required: true,
  description,
  schema: { type: "string", maxLength, pattern },
});

const HEADERS = [
  header("webhook-id", "The event id (`evt_<ULID>`); the same on every delivery of this event.", 30, "^evt_[0-9A-HJKMNP-TV-Z]{26}$"),
  header("webhook-timestamp", "Seconds since the epoch when this delivery was signed; refuse one far from your clock.", 12, "^\\d{1,12}$"),
  header(
    "webhook-signature",
    "`v1,<base64 signature>`, one per configured secret, space-separated.",
    1024,
    "^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$",
  ),
];

/** The events as OpenAPI 3.1 `webhooks`, each a POST of its kind's event component; and the Event component's schema. */
export async function eventWebhooks(): Promise<{ webhooks: Record<string, OpenAPIV3_1.PathItemObject>; event: OpenAPIV3_1.SchemaObject }> {
  const { schema } = await resolver(Event).toOpenAPISchema();
  const webhooks = Object.fromEntries(
    Object.entries(EVENT_TYPES).map(([type, when]): [string, OpenAPIV3_1.PathItemObject] => [
      type,
      {
        post: {
          operationId: `event_${type.replace(/\W/g, "_")}`,
          summary: type,
          description: `${when}\n\n${DELIVERY}`,
          tags: ["Events (webhooks)"],
          // The gateway calls the partner: no caller credential, the body is signed instead (webhook-signature).
          security: [],
          parameters: HEADERS,
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  allOf: [
                    { $ref: `#/components/schemas/${EVENT_SCHEMAS[kindOfEvent(type as EventType)]}` },
                    { type: "object", properties: { type: { type: "string", const: type } } },
                  ],
                },
                examples: { [type]: { summary: type, value: eventExample(type as EventType) } },
              },
            },
          },
          responses: {
            "2XX": { description: "Received. Any 2xx ends this event's delivery." },
            default: { description: "Anything else, or no answer within 10 s: delivered again later, with the same webhook-id." },
          },
        },
      },
    ]),
  );
  return { webhooks, event: schema as OpenAPIV3_1.SchemaObject };
}
