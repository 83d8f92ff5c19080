/**
 * The operations' descriptions (src/operations/) against what the gateway
 * does: the upstream calls a description names are the ones a successful
 * request makes (the sandbox's call log); the document lists every refusal
 * its lifecycle operation can answer; and what the document gives to the
 * partner only, a user is refused.
 */
import { describe, expect, it } from "vitest";
import committed from "../../openapi.json";
import type { ErrorCode } from "../../src/errors/errors";
import { APIS } from "../../src/operations";
import { COMMON } from "../../src/operations/openapi";
import { type DecisionContext, decide, type Phase } from "../../src/rules/lifecycle";
import { makeEvent, newRecordId, publishKept } from "../events";
import {
  CARD_OK,
  call,
  callAt,
  createReceipt,
  expectError,
  expectStatus,
  newUser,
  OTP_OK,
  receiptRequest,
  sandboxCalls,
  transferRequest,
  userToken,
} from "../helpers";

const OPERATIONS = APIS.flatMap((api) => api.sections.flatMap((section) => section.operations.map((operation) => ({ api, operation }))));
const TOKEN = { token: "tok_sandbox_ok" };
const PHASES: Phase[] = ["created", "held", "paid", "awaiting_supplier", "cancelled", "in_flight", "exhausted"];

/** Every context the lifecycle decides in, for one caller. */
function contexts(caller: DecisionContext["caller"]): DecisionContext[] {
  const all: DecisionContext[] = [];
  for (const kind of ["receipt", "transfer"] as const) {
    for (let bits = 0; bits < 128; bits++) {
      const flag = (n: number) => (bits & (1 << n)) !== 0;
      const guesses = { wrong: flag(6) ? 3 : 0, unconfirmed: 0 };
      all.push({
        kind,
        caller,
        isHold: flag(0),
        qrMerchant: flag(1),
        holdEnabled: flag(2),
        fresh: flag(3),
        suspect: flag(4),
        otpMissing: flag(5),
        guesses,
        closedAtEdge: flag(6) && kind === "transfer",
      });
    }
  }
  return all;
}

/**
 * A successful request of each operation, after whatever it needs first:
 * the path under its API and the body. Every described operation has one.
 */
const SUCCESSFUL: Record<string, () => Promise<{ path: string; body: unknown }>> = {
  createReceipt: async () => ({ path: "receipt/create", body: receiptRequest() }),
  authorizeReceipt: async () => ({ path: "receipt/authorize", body: { id: (await createReceipt({ merchant_id: 1001 })).id, card: TOKEN } }),
  authorizeReceiptAnonymous: async () => ({ path: "receipt/anonymous/authorize", body: { id: (await createReceipt()).id, card: CARD_OK } }),
  payReceipt: async () => {
    const { id } = await createReceipt({ merchant_id: 1001 });
    await expectStatus(call("receipt/authorize", { id, card: TOKEN }), 200);
    return { path: "receipt/pay", body: { id, card: TOKEN, otp: OTP_OK } };
  },
  payReceiptAnonymous: async () => {
    const { id } = await createReceipt();
    await expectStatus(call("receipt/anonymous/authorize", { id, card: CARD_OK }), 200);
    return { path: "receipt/anonymous/pay", body: { id, card: CARD_OK, otp: OTP_OK } };
  },
  confirmHold: async () => {
    const { id } = await createReceipt({ merchant_id: 1003, is_hold: true });
    await expectStatus(call("receipt/pay", { id, card: TOKEN }), 200);
    return { path: "receipt/hold-confirm", body: { id } };
  },
  cancelReceipt: async () => ({ path: "receipt/cancel", body: { id: (await createReceipt()).id } }),
  checkReceiptById: async () => ({ path: "receipt/check-id", body: { id: (await createReceipt()).id } }),
  checkReceiptByTid: async () => ({ path: "receipt/check-tid", body: { tid: (await createReceipt()).tid } }),
  createTransfer: async () => ({ path: "a2c/create", body: transferRequest() }),
  payTransfer: async () => ({ path: "a2c/pay", body: { id: (await expectStatus(call("a2c/create", transferRequest()), 200)).receipt_id } }),
  getTransfer: async () => ({ path: "a2c/get-by-id", body: { id: (await expectStatus(call("a2c/create", transferRequest()), 200)).receipt_id } }),
  auditReceipt: async () => ({ path: "receipt/audit", body: { id: (await createReceipt()).id } }),
  listEvents: async () => ({ path: "events/list", body: { limit: 1 } }),
  resendEvent: async () => {
    const event = makeEvent(newRecordId());
    await publishKept([event]);
    return { path: "events/resend", body: { id: event.id } };
  },
  eraseUser: async () => ({ path: "users/erase", body: { user: `user-${crypto.randomUUID()}` } }),
  listFiscalPending: async () => ({ path: "fiscal/pending", body: { limit: 1 } }),
  searchAudit: async () => ({ path: "audit/search", body: { user: `user-${crypto.randomUUID()}`, from: Date.now() - 3_600_000, to: Date.now() } }),
  listStatements: async () => ({ path: "statements/list", body: { limit: 1 } }),
  rebuildStatement: async () => ({
    path: "statements/rebuild",
    body: { date: new Intl.DateTimeFormat("en-CA", { timeZone: "Asia/Tashkent" }).format(new Date()) },
  }),
};

describe("every operation's description", () => {
  it.each(OPERATIONS.map(({ api, operation }) => [operation.operationId, api, operation] as const))(
    "%s: a successful request calls the upstream as its description says",
    async (operationId, api, operation) => {
      const prepare = SUCCESSFUL[operationId];
      expect(prepare, `test/integration/operations.test.ts has no successful request of ${operationId}`).toBeDefined();
      const { path, body } = await prepare!();
      expect(`/${path}`).toBe(operation.path);
      const before = (await sandboxCalls()).length;
      await expectStatus(callAt(`http://gateway.test${api.prefix}`, path, body), operation.status ?? 200);
      expect((await sandboxCalls()).slice(before).map((c) => c.path)).toEqual(operation.upstream);
    },
  );

  it.each(OPERATIONS.filter(({ operation }) => operation.lifecycle).map(({ operation }) => [operation.operationId, operation] as const))(
    "%s: the document lists every refusal of its lifecycle operation",
    (operationId, operation) => {
      const documented = new Set<ErrorCode>([...COMMON, ...operation.errors]);
      const refusals = new Set<ErrorCode>();
      for (const caller of ["partner", "user"] as const) {
        for (const ctx of contexts(caller)) {
          for (const phase of PHASES) {
            const decision = decide(operation.lifecycle!, phase, ctx);
            if (decision.do === "refuse") refusals.add(decision.code);
          }
        }
      }
      expect(
        [...refusals].filter((code) => !documented.has(code)),
        operationId,
      ).toEqual([]);
    },
  );

  it("an operation the document gives to the partner only is 403 forbidden for a user, even on the user's own receipt", async () => {
    const user = newUser();
    const token = await userToken(user);
    const { id } = await createReceipt({ merchant_id: 1003, is_hold: true }, { token });
    await expectStatus(call("receipt/pay", { id, card: TOKEN }, { token }), 200);
    const partnerOnly = Object.entries<any>(committed.paths).filter(([, item]) => JSON.stringify(item.post?.security) === '[{"partnerKey":[]}]');
    expect(partnerOnly.map(([path]) => path).sort()).toEqual(
      OPERATIONS.filter(({ api, operation }) => api.callers === "partner" || operation.callers === "partner")
        .map(({ api, operation }) => `${api.prefix}${operation.path}`)
        .sort(),
    );
    for (const [path] of partnerOnly) {
      const error = await expectError(callAt("http://gateway.test", path.slice(1), { id }, { token }), 403, "forbidden");
      expect(error.message, path).toMatch(/partner/);
    }
  });
});
