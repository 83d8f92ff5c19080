/**
 * Abuse limits on authorize and pay, per user and per client address, with
 * the Workers rate limiting binding (wrangler.toml: authorize 5/60 s per user
 * and 20/60 s per address; pay 10/60 s per user and 30/60 s per address), and
 * contract rule 6 (resend wait, at most 5 OTPs per receipt) for users.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import {
  API,
  CARD_OK,
  call,
  createReceipt,
  expectError,
  expectStatus,
  letOtpWaitPass,
  newUser,
  OTP_OK,
  PARTNER_KEY,
  sandboxCalls,
  userToken,
} from "../helpers";

const TOKEN_CARD = { token: "tok_sandbox_ok" };
const missingId = () => `missing-${crypto.randomUUID()}`;
const newAddress = () => `2001:db8::${crypto.randomUUID().slice(0, 4)}:${crypto.randomUUID().slice(0, 4)}`;

/**
 * The binding counts in windows aligned to the clock (60 s). A sequence that
 * straddles a window's end starts counting afresh halfway, so when one fails
 * having straddled it, it runs once more (with fresh users and addresses,
 * which `run` makes itself). A failure within one window is a failure.
 */
async function withinOneWindow(run: () => Promise<void>): Promise<void> {
  const windowOf = () => Math.floor(Date.now() / 60_000);
  const start = windowOf();
  try {
    await run();
  } catch (err) {
    if (windowOf() === start) throw err;
    await run();
  }
}

async function expectRateLimited(response: Promise<Response>) {
  const res = await response;
  await expectError(res.clone(), 429, "rate_limited");
  expect(res.headers.get("retry-after")).toBe("60");
}

describe("authorize limits", () => {
  it("a user's sixth authorization within a minute is 429 rate_limited, reaches nothing upstream, and another user is unaffected", async () => {
    await withinOneWindow(async () => {
      const token = await userToken(newUser());
      const receipts = await Promise.all(Array.from({ length: 7 }, () => createReceipt({ merchant_id: 1001 }, { token })));
      // Token and card-number authorizations share one budget.
      for (const [i, receipt] of receipts.slice(0, 5).entries()) {
        const res =
          i % 2
            ? call("receipt/anonymous/authorize", { id: receipt.id, card: CARD_OK }, { token })
            : call("receipt/authorize", { id: receipt.id, card: TOKEN_CARD }, { token });
        await expectStatus(res, 200);
      }

      const before = await sandboxCalls();
      await expectRateLimited(call("receipt/authorize", { id: receipts[5]!.id, card: TOKEN_CARD }, { token }));
      await expectRateLimited(call("receipt/anonymous/authorize", { id: receipts[6]!.id, card: CARD_OK }, { token }));
      expect(await sandboxCalls()).toEqual(before);

      const other = await userToken(newUser());
      const theirs = await createReceipt({ merchant_id: 1001 }, { token: other });
      await expectStatus(call("receipt/authorize", { id: theirs.id, card: TOKEN_CARD }, { token: other }), 200);
    });
  });

  it("one client address gets 20 authorizations a minute, whoever the users; another address is unaffected", async () => {
    await withinOneWindow(async () => {
      const address = newAddress();
      const from = (ip: string) => ({ headers: { "cf-connecting-ip": ip } });
      for (let i = 0; i < 20; i++) {
        const token = await userToken(newUser());
        await expectError(call("receipt/authorize", { id: missingId(), card: TOKEN_CARD }, { token, ...from(address) }), 404, "receipt_not_found");
      }
      const token = await userToken(newUser());
      const receipt = await createReceipt({ merchant_id: 1001 }, { token });
      const before = await sandboxCalls();
      await expectRateLimited(call("receipt/authorize", { id: receipt.id, card: TOKEN_CARD }, { token, ...from(address) }));
      expect(await sandboxCalls()).toEqual(before);
      await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN_CARD }, { token, ...from(newAddress()) }), 200);
    });
  });
});

describe("pay limits", () => {
  it("a user's eleventh pay within a minute is 429 rate_limited: receipt, anonymous and transfer pays share the budget", async () => {
    await withinOneWindow(async () => {
      const token = await userToken(newUser());
      const paths = ["receipt/pay", "receipt/anonymous/pay", "a2c/pay"] as const;
      const bodies = {
        "receipt/pay": (id: string) => ({ id, card: TOKEN_CARD, otp: OTP_OK }),
        "receipt/anonymous/pay": (id: string) => ({ id, card: CARD_OK, otp: OTP_OK }),
        "a2c/pay": (id: string) => ({ id }),
      };
      // Every attempt counts, found or not: guessing ids costs budget too.
      for (let i = 0; i < 10; i++) {
        const path = paths[i % 3]!;
        await expectError(call(path, bodies[path](missingId()), { token }), 404, "receipt_not_found");
      }
      const receipt = await createReceipt({ merchant_id: 1001 }, { token });
      const before = await sandboxCalls();
      for (const path of paths) await expectRateLimited(call(path, bodies[path](receipt.id), { token }));
      expect(await sandboxCalls()).toEqual(before);

      const other = await userToken(newUser());
      const theirs = await createReceipt({ merchant_id: 1001 }, { token: other });
      await expectStatus(call("receipt/authorize", { id: theirs.id, card: TOKEN_CARD }, { token: other }), 200);
      expect((await expectStatus(call("receipt/pay", bodies["receipt/pay"](theirs.id), { token: other }), 200)).state).toBe(4);
    });
  });

  it("one client address gets 30 pays a minute", async () => {
    await withinOneWindow(async () => {
      const headers = { "cf-connecting-ip": newAddress() };
      for (let i = 0; i < 30; i++) {
        const token = await userToken(newUser());
        await expectError(call("a2c/pay", { id: missingId() }, { token, headers }), 404, "receipt_not_found");
      }
      await expectRateLimited(call("a2c/pay", { id: missingId() }, { token: await userToken(newUser()), headers }));
    });
  });
});

describe("what the limits leave alone", () => {
  it("a malformed authorize or pay (not JSON, out of its schema, not an object) is 400 and spends none of the user's budget", async () => {
    await withinOneWindow(async () => {
      const token = await userToken(newUser());
      const options = { token, headers: { "cf-connecting-ip": newAddress() } };
      const malformed: [string, unknown, string | undefined, string][] = [
        ["receipt/authorize", undefined, "{not json", "invalid_json"],
        ["receipt/authorize", { id: "abc" }, undefined, "invalid_request"],
        ["receipt/anonymous/authorize", { id: "abc", card: { ...CARD_OK, number: "8600000000000008" } }, undefined, "invalid_request"],
        ["receipt/authorize", [{ id: "abc", card: TOKEN_CARD }], undefined, "invalid_request"],
        ["receipt/pay", { id: "abc", card: TOKEN_CARD, otp: "12" }, undefined, "invalid_request"],
        ["receipt/anonymous/pay", { id: "abc", card: CARD_OK }, undefined, "invalid_request"],
        ["a2c/pay", [{ id: "abc" }], undefined, "invalid_request"],
        ["a2c/pay", undefined, "", "invalid_json"],
      ];
      // Twelve of each kind: more than a minute's 5 authorizations and 10 pays.
      for (let i = 0; i < 12; i++) {
        for (const [path, body, raw, code] of malformed) {
          await expectError(call(path, body, { ...options, ...(raw === undefined ? {} : { raw }) }), 400, code);
        }
      }
      // The whole budget is left: five authorizations, then the sixth is refused.
      const receipts = await Promise.all(Array.from({ length: 6 }, () => createReceipt({ merchant_id: 1001 }, { token })));
      for (const receipt of receipts.slice(0, 5)) {
        await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN_CARD }, options), 200);
      }
      await expectRateLimited(call("receipt/authorize", { id: receipts[5]!.id, card: TOKEN_CARD }, options));
      for (let i = 0; i < 10; i++) {
        await expectError(call("a2c/pay", { id: missingId() }, options), 404, "receipt_not_found");
      }
      await expectRateLimited(call("a2c/pay", { id: missingId() }, options));
    });
  });

  it("the partner backend is exempt: it calls for many users from one address", async () => {
    const headers = { "cf-connecting-ip": newAddress() };
    for (let i = 0; i < 35; i++) {
      await expectError(
        call("receipt/pay", { id: missingId(), card: TOKEN_CARD, otp: OTP_OK }, { token: PARTNER_KEY, headers }),
        404,
        "receipt_not_found",
      );
      if (i < 25)
        await expectError(
          call("receipt/authorize", { id: missingId(), card: TOKEN_CARD }, { token: PARTNER_KEY, headers }),
          404,
          "receipt_not_found",
        );
    }
  });

  it("creates, reads and cancels are not limited", async () => {
    const token = await userToken(newUser());
    for (let i = 0; i < 12; i++) {
      const receipt = await createReceipt({ merchant_id: 1003 }, { token });
      await expectStatus(call("receipt/check-id", { id: receipt.id }, { token }), 200);
      await expectStatus(call("receipt/cancel", { id: receipt.id }, { token }), 200);
    }
  });

  it("a limiter that cannot answer lets the call through rather than stopping payments", async () => {
    const broken = { limit: async () => Promise.reject(new Error("limiter unavailable")) };
    const deployment = { ...env, LIMIT_AUTHORIZE_PER_USER: broken, LIMIT_AUTHORIZE_PER_IP: broken };
    const token = await userToken(newUser());
    const receipt = await createReceipt({ merchant_id: 1001 }, { token });
    const res = await createApp().fetch(
      new Request(`${API}/receipt/authorize`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}`, "cf-connecting-ip": newAddress() },
        body: JSON.stringify({ id: receipt.id, card: TOKEN_CARD }),
      }),
      deployment,
      createExecutionContext(),
    );
    await expectStatus(res, 200);
  });
});

describe("OTP resend for a user (contract rule 6)", () => {
  it("a resend before wait has passed is 429 otp_resend_too_soon, with Retry-After, and reaches nothing upstream", async () => {
    const token = await userToken(newUser());
    const receipt = await createReceipt({ merchant_id: 1001 }, { token });
    const sent = await expectStatus(call("receipt/authorize", { id: receipt.id, card: TOKEN_CARD }, { token }), 200);
    const before = await sandboxCalls();
    const res = await call("receipt/authorize", { id: receipt.id, card: TOKEN_CARD }, { token });
    await expectError(res.clone(), 429, "otp_resend_too_soon");
    const retryAfter = Number(res.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil(sent.wait / 1000));
    expect(await sandboxCalls()).toEqual(before);
  });

  it("at most 5 OTPs per receipt, for a user as for the partner", async () => {
    // The per-user limit (also 5 a minute) is lifted here, so the refusal seen is the receipt's own.
    const unlimited = { limit: async () => ({ success: true }) };
    const deployment = { ...env, LIMIT_AUTHORIZE_PER_USER: unlimited };
    const app = createApp();
    const token = await userToken(newUser());
    const receipt = await createReceipt({ merchant_id: 1001 }, { token });
    const authorize = () =>
      app.fetch(
        new Request(`${API}/receipt/authorize`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
          body: JSON.stringify({ id: receipt.id, card: TOKEN_CARD }),
        }),
        deployment,
        createExecutionContext(),
      );
    for (let i = 0; i < 5; i++) {
      await expectStatus(authorize(), 200);
      await letOtpWaitPass(receipt.id);
    }
    const before = await sandboxCalls();
    const res = await authorize();
    await expectError(res.clone(), 429, "rate_limited");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(60);
    expect(await sandboxCalls()).toEqual(before);
    expect((await sandboxCalls()).filter((c) => c.path === "receipt/authorize" && c.id === receipt.id)).toHaveLength(5);
  });
});
