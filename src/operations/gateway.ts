/**
 * The gateway's own operations (audit trails, events, erasure, the fiscal list), one description each
 * (src/operations/operation.ts says what a description holds; their prose is
 * in src/operations/docs.ts). Their API is partner-only (src/operations/index.ts).
 */
import * as v from "valibot";
import { AUDIT_SEARCH_PAGE, AUDIT_TRAIL, FISCAL_PENDING_PAGE } from "../api/examples";
import { AccountEntry, EXAMPLE_EVENT_ID, EXAMPLE_RECEIPT_ID, Int, int32, int64, MaxText, ReceiptId, ReceiptState } from "../api/schemas";
import { decodeAfter, MAX_SPAN_MS, searchAudit } from "../audit/search";
import { requestErasure } from "../cron/erasure";
import { fiscalPendingPage } from "../d1/fiscal-list";
import { ApiError } from "../errors/errors";
import { listEventPage, resendEvent } from "../events";
import { EVENT_PAGE, EVENT_RESENT } from "../events/examples";
import { DeliveryStatusName, Event, EventId, EventTypeName, ListEventsResult } from "../events/schemas";
import { receiptStub } from "../record-stub";
import { KIND_NAMES } from "../rules/kinds";
import { clock } from "../shared/clock";
import { listStatements, rebuildStatement } from "../statements/api";
import { DOCS } from "./docs";
import { describe, type Section } from "./operation";

const AuditTrailResult = v.pipe(
  v.object({
    id: v.string(),
    kind: v.picklist(KIND_NAMES),
    owner: v.pipe(v.string(), v.description('"partner", or the user\'s sub, as events show it.')),
    entries: v.array(
      v.object({
        at: Int("Milliseconds since the epoch."),
        op: v.pipe(
          v.string(),
          v.description(
            "create, authorize, pay, hold-confirm, cancel, read, reconcile (the gateway's own), or restore (an operator's point-in-time restore).",
          ),
        ),
        actor: v.pipe(v.string(), v.description("partner, user:<sub>, gateway (its own reconciliation), or operator (a restore).")),
        request_id: v.string(),
        outcome: v.pipe(v.string(), v.description("ok, or the error code answered.")),
        state: v.pipe(v.nullable(ReceiptState), v.description("The state of the receipt or transfer after it, as the gateway knew it.")),
      }),
    ),
  }),
  v.examples([
    {
      id: EXAMPLE_RECEIPT_ID,
      kind: "receipt",
      owner: "partner",
      entries: [
        { at: 1795334400000, op: "create", actor: "partner", request_id: "3f1c2a9e-7b4d-4e8a-9c1f-2d6b8e0a5f13", outcome: "ok", state: 0 },
        { at: 1795334430000, op: "authorize", actor: "partner", request_id: "8a2d4c6e-1f3b-4a5c-8e7d-9b0f1a2c3d4e", outcome: "ok", state: 0 },
        { at: 1795334460000, op: "pay", actor: "partner", request_id: "c4e6a8b0-2d1f-4e3a-9b5c-7d8e9f0a1b2c", outcome: "ok", state: 4 },
      ],
    },
  ]),
  v.title("AuditTrail"),
);

/** A page size of the gateway's lists: 1 to 100, 20 unless given. */
const PageLimit = v.optional(
  v.pipe(
    v.number("limit must be a number"),
    v.integer("limit must be an integer"),
    v.minValue(1, "limit must be 1 to 100"),
    v.maxValue(100, "limit must be 1 to 100"),
    int32(),
  ),
  20,
);

const ListEventsRequest = v.pipe(
  v.strictObject({
    receipt_id: v.optional(v.pipe(ReceiptId, v.description("Only this receipt's (or transfer's `receipt_id`) events."))),
    type: v.optional(EventTypeName),
    delivery: v.optional(DeliveryStatusName),
    after: v.optional(v.pipe(EventId, v.description("The last event id of the previous page: answers events older than it."))),
    limit: PageLimit,
  }),
  v.examples([{ type: "receipt.paid", delivery: "failed", limit: 20 }]),
  v.title("ListEventsRequest"),
);

const ListFiscalPendingRequest = v.pipe(
  v.strictObject({
    after: v.optional(v.pipe(ReceiptId, v.description("The last receipt id of the previous page: answers the receipts after it."))),
    limit: PageLimit,
  }),
  v.examples([{ limit: 20 }]),
  v.title("ListFiscalPendingRequest"),
);

const FiscalPendingReceipt = v.object({
  id: v.pipe(v.string(), v.description("The receipt's id.")),
  tid: v.pipe(v.string(), v.description("Its tid, as its owner chose it.")),
  amount: Int("Tiyin."),
  state: v.pipe(
    v.picklist([4, 21]),
    v.metadata<4 | 21, { type: "integer"; format: "int32" }>({ type: "integer", format: "int32" }),
    v.description("4: paid, the sale's fiscal data is missing; 21: cancelled after it was paid, the refund's fiscal data is missing."),
  ),
  since: Int("Milliseconds: the payment (or the refund) whose fiscal data is missing, as the gateway saw it."),
  reads: v.pipe(
    v.number(),
    v.integer(),
    int32(),
    v.description(
      "The scheduled reads of the payment service done since (FISCAL_READS); once all are done it stays listed, and check-id still reads it.",
    ),
  ),
});

const FiscalPendingPage = v.pipe(
  v.object({
    receipts: v.pipe(
      v.array(FiscalPendingReceipt),
      v.metadata<v.InferOutput<typeof FiscalPendingReceipt>[], { maxItems: number }>({ maxItems: 100 }),
      v.description("Oldest first (by `since`, then `id`); at most `limit`."),
    ),
    has_more: v.pipe(v.boolean(), v.description("More receipts follow: ask again with `after` set to the last id of this page.")),
  }),
  v.title("FiscalPendingPage"),
);

const UserSub = v.pipe(
  v.string(),
  v.minLength(1, "user must not be empty"),
  ...MaxText(255, "user must be at most 255 characters"),
  v.description("The user's `sub`, as in their JWT."),
);

/** A time of audit/search's window: milliseconds since the epoch. */
const SearchTime = (what: string) =>
  v.pipe(
    v.number(`${what} must be a number`),
    v.integer(`${what} must be an integer`),
    v.minValue(0, `${what} must not be negative`),
    v.safeInteger(),
    int64(),
    v.description("Milliseconds since the epoch."),
  );

const AuditSearchRequest = v.pipe(
  v.strictObject({
    receipt_id: v.optional(v.pipe(ReceiptId, v.description("A receipt's id or a transfer's `receipt_id`: its entries."))),
    user: v.optional(
      v.pipe(UserSub, v.description("A user's `sub`: the entries of their receipts and transfers, and of the gateway calls that named them.")),
    ),
    staff: v.optional(
      v.pipe(
        v.string(),
        v.minLength(3, "staff must be an email"),
        ...MaxText(255, "staff must be at most 255 characters"),
        v.description("A staff member's email: their views and actions in the back office."),
      ),
    ),
    from: SearchTime("from"),
    to: SearchTime("to"),
    after: v.optional(
      v.pipe(
        v.string(),
        v.minLength(1, "after must not be empty"),
        ...MaxText(400, "after must be at most 400 characters"),
        v.description("The `next` of the previous page."),
      ),
    ),
    limit: PageLimit,
  }),
  v.examples([{ receipt_id: EXAMPLE_RECEIPT_ID, from: 1795334400000 - 3600000, to: 1795334400000 + 86400000, limit: 20 }]),
  v.title("AuditSearchRequest"),
);

const AuditLineSchema = v.object({
  id: v.pipe(v.string(), v.description("The entry's id: the same entry is never given twice.")),
  at: Int("Milliseconds since the epoch."),
  source: v.pipe(
    v.picklist(["record", "gateway", "staff"]),
    v.description("A record's trail, a call to the gateway's own operations, or the back office."),
  ),
  op: v.pipe(
    v.string(),
    v.description("The record's operation (as receipt/audit shows it), the gateway operation's path (`events/list`), or the staff action."),
  ),
  actor: v.pipe(v.string(), v.description("partner, user:<sub>, gateway, operator, unauthenticated, or staff:<email>.")),
  request_id: v.string(),
  outcome: v.pipe(v.string(), v.description("ok, or the error code answered.")),
  state: v.optional(v.pipe(v.nullable(ReceiptState), v.description("A record's state after it, as the gateway knew it."))),
  kind: v.optional(v.picklist(KIND_NAMES)),
  receipt_id: v.optional(v.string()),
  user: v.optional(v.pipe(v.string(), v.description("The user the record belongs to, or the gateway call named."))),
  staff: v.optional(v.string()),
  role: v.optional(v.string()),
  target: v.optional(v.string()),
  detail: v.optional(
    v.pipe(
      v.looseObject({
        tid: v.optional(v.string()),
        amount: v.optional(Int("Tiyin.")),
        merchant_id: v.optional(Int("The merchant.")),
        account: v.optional(v.array(AccountEntry)),
        erased: v.optional(v.boolean()),
        method: v.optional(v.string()),
        status: v.optional(Int("The HTTP status answered.")),
      }),
      v.description("A record's create (and rebuild): what the payment was for; a gateway call: its status and the filters it was asked with."),
    ),
  ),
});

const AuditSearchPage = v.pipe(
  v.object({
    entries: v.pipe(
      v.array(AuditLineSchema),
      v.metadata<v.InferOutput<typeof AuditLineSchema>[], { maxItems: number }>({ maxItems: 100 }),
      v.description("Oldest first; at most `limit`."),
    ),
    has_more: v.pipe(
      v.boolean(),
      v.description(
        "More may follow: ask again with `after` set to `next`. A page may hold fewer than `limit` entries (each page reads a bounded slice of the trail).",
      ),
    ),
    next: v.optional(v.pipe(v.string(), v.description("Where the next page starts."))),
  }),
  v.title("AuditSearchPage"),
);

const StatementDate = v.pipe(
  v.string(),
  v.regex(/^\d{4}-\d{2}-\d{2}$/, "date must be a date, YYYY-MM-DD"),
  v.description("A day in STATEMENT_TIMEZONE, `YYYY-MM-DD`."),
);

const StatementStatusSchema = v.object({
  date: StatementDate,
  state: v.pipe(
    v.picklist(["building", "ready", "none"]),
    v.description("ready: written, the files are served; building: being written (the files served are the day's previous statement, if any)."),
  ),
  generation: Int("How many times the day was written (a rebuild adds one)."),
  complete: v.pipe(
    v.boolean(),
    v.description("false: built before the day ended (a rebuild of today); the nightly run writes it again after midnight."),
  ),
  lines: Int("Lines so far."),
  checked: Int("Lines compared with the payment service so far."),
  mismatches: Int("Lines the payment service disagrees with (listed in the files under mismatches)."),
  generated_at: v.nullable(Int("Milliseconds: when it was written; null while building.")),
});

const StatementSummarySchema = v.object({
  ...StatementStatusSchema.entries,
  totals: v.array(
    v.object({
      merchant_id: v.nullable(Int("The merchant; null: transfers.")),
      change: v.pipe(v.picklist(["paid", "held", "cancelled", "refunded", "expired", "closed_at_edge"]), v.description("What the lines changed to.")),
      count: Int("Lines."),
      amount: Int("Tiyin."),
      commission: Int("Tiyin."),
    }),
  ),
  csv_bytes: Int("The CSV's size."),
  json_bytes: Int("The JSON's size."),
});

export const GATEWAY: Section = {
  tag: "Gateway",
  operations: [
    describe({
      path: "/receipt/audit",
      operationId: "auditReceipt",
      example: { summary: "Created, authorized, paid", value: AUDIT_TRAIL },
      summary: "A receipt's or transfer's audit trail (partner only)",
      description: DOCS.auditReceipt,
      request: v.pipe(
        v.strictObject({
          id: ReceiptId,
          kind: v.optional(v.picklist(KIND_NAMES, "kind must be receipt or transfer"), "receipt"),
        }),
        v.examples([{ id: EXAMPLE_RECEIPT_ID, kind: "receipt" }]),
        v.title("AuditRequest"),
      ),
      response: AuditTrailResult,
      errors: ["forbidden", "receipt_not_found"],
      upstream: [],
      handle: async (c, { id, kind }) => {
        const trail = await receiptStub(c.env, kind, id).auditTrail();
        if (!trail) throw new ApiError("receipt_not_found", `No such ${kind}.`);
        return c.json(trail, 200);
      },
    }),
    describe({
      path: "/audit/search",
      operationId: "searchAudit",
      example: { summary: "A receipt's entries, from the audit trail in R2", value: AUDIT_SEARCH_PAGE },
      summary: "Search the audit trail of a year (partner only)",
      description: DOCS.searchAudit,
      request: AuditSearchRequest,
      response: AuditSearchPage,
      errors: ["forbidden"],
      upstream: [],
      handle: async (c, query) => {
        const named = (["receipt_id", "user", "staff"] as const).filter((field) => query[field] !== undefined);
        const details: { path: string; message: string }[] = [];
        if (named.length !== 1) details.push({ path: named[1] ?? "receipt_id", message: "give exactly one of receipt_id, user and staff" });
        if (query.to < query.from) details.push({ path: "to", message: "to must not be before from" });
        else if (query.to - query.from > MAX_SPAN_MS) details.push({ path: "to", message: "to must be at most 31 days after from" });
        if (query.after !== undefined && !decodeAfter(query.after))
          details.push({ path: "after", message: "after must be the next of a page this search gave" });
        if (details.length > 0) throw new ApiError("invalid_request", "The request does not match the schema.", { details });
        return c.json(await searchAudit(c.env.AUDIT, query), 200);
      },
    }),
    describe({
      path: "/statements/list",
      operationId: "listStatements",
      example: { summary: "Yesterday's statement", value: { statements: [], has_more: false } },
      summary: "List the daily statements written (partner only)",
      description: DOCS.listStatements,
      request: v.pipe(
        v.strictObject({
          after: v.optional(v.pipe(StatementDate, v.description("The last date of the previous page: answers the days before it."))),
          limit: PageLimit,
        }),
        v.examples([{ limit: 20 }]),
        v.title("ListStatementsRequest"),
      ),
      response: v.pipe(
        v.object({
          statements: v.pipe(v.array(StatementSummarySchema), v.description("Newest first; each with its totals per merchant and change.")),
          has_more: v.boolean(),
        }),
        v.title("StatementPage"),
      ),
      errors: ["forbidden"],
      upstream: [],
      handle: async (c, { after, limit }) => c.json(await listStatements(c.env, after, limit), 200),
    }),
    describe({
      path: "/statements/rebuild",
      operationId: "rebuildStatement",
      example: {
        summary: "Today's statement so far, written at once",
        value: {
          date: "2026-11-28",
          state: "ready",
          generation: 1,
          complete: false,
          lines: 3,
          checked: 3,
          mismatches: 0,
          generated_at: 1795334460000,
        },
      },
      summary: "Write a day's statement again (partner only)",
      description: DOCS.rebuildStatement,
      request: v.pipe(v.strictObject({ date: StatementDate }), v.examples([{ date: "2026-11-28" }]), v.title("RebuildStatementRequest")),
      response: v.pipe(StatementStatusSchema, v.title("StatementStatus")),
      status: 202,
      errors: ["forbidden"],
      // The build that follows (the object's alarms, not this request) compares lines with check-id and a2c/get-by-id.
      upstream: [],
      handle: async (c, { date }) => c.json(await rebuildStatement(c.env, date), 202),
    }),
    describe({
      path: "/events/list",
      operationId: "listEvents",
      example: { summary: "A receipt.paid event whose delivery failed", value: EVENT_PAGE },
      summary: "List events with their delivery status (partner only)",
      description: DOCS.listEvents,
      request: ListEventsRequest,
      response: ListEventsResult,
      errors: ["forbidden"],
      upstream: [],
      handle: async (c, { receipt_id, type, delivery, after, limit }) =>
        c.json(await listEventPage(c.env, { receiptId: receipt_id, type, delivery, after, limit }), 200),
    }),
    describe({
      path: "/events/resend",
      operationId: "resendEvent",
      example: { summary: "The event, queued again", value: EVENT_RESENT },
      summary: "Queue an event for delivery again (partner only)",
      description: DOCS.resendEvent,
      request: v.pipe(v.strictObject({ id: EventId }), v.examples([{ id: EXAMPLE_EVENT_ID }]), v.title("ResendEventRequest")),
      response: Event,
      errors: ["forbidden", "not_found"],
      upstream: [],
      handle: async (c, { id }) => c.json(await resendEvent(c.env, id), 200),
    }),
    describe({
      path: "/users/erase",
      operationId: "eraseUser",
      example: { summary: "Accepted: done within 24 hours", value: { user: "user-123", accepted_at: 1795536000000 } },
      summary: "Erase a user's personal data (partner only)",
      description: DOCS.eraseUser,
      request: v.pipe(v.strictObject({ user: UserSub }), v.examples([{ user: "user-123" }]), v.title("EraseUserRequest")),
      response: v.pipe(
        v.object({
          user: UserSub,
          accepted_at: Int("Milliseconds since the epoch: the erasure is done within 24 hours of it."),
        }),
        v.title("ErasureAccepted"),
      ),
      status: 202,
      errors: ["forbidden"],
      upstream: [],
      handle: async (c, { user }) => c.json(await requestErasure(c.env, user, clock.now()), 202),
    }),
    describe({
      path: "/fiscal/pending",
      operationId: "listFiscalPending",
      example: { summary: "A receipt paid an hour ago whose fiscal data is still missing", value: FISCAL_PENDING_PAGE },
      summary: "List the receipts whose fiscal receipt is still missing (partner only)",
      description: DOCS.listFiscalPending,
      request: ListFiscalPendingRequest,
      response: FiscalPendingPage,
      errors: ["forbidden"],
      upstream: [],
      handle: async (c, { after, limit }) => {
        const page = await fiscalPendingPage(c.env, { after, limit });
        if (!page) {
          throw new ApiError("invalid_request", "The request does not match the schema.", {
            details: [{ path: "after", message: "after must be the id of a receipt the list showed" }],
          });
        }
        return c.json(page, 200);
      },
    }),
  ],
};
