/**
 * Before anything is timed: every operation answers 200 on every target (a
 * benchmark of error answers would be worthless), and, through the sandbox's
 * call log, how many upstream calls each gateway operation makes.
 */
import { request } from "./load.mjs";
import { API, TARGETS } from "./scenarios.mjs";

async function call(runtime, target, op, body) {
  const res = await request(`the check of every operation, ${op} on the ${target.label}`, `${runtime.url}${API}/${op}`, {
    method: "POST",
    headers: target.headers,
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${target.key} ${op}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

async function upstreamCalls(runtime) {
  const res = await request("the sandbox's call log", `${runtime.url}/__sandbox/calls`);
  if (!res.ok) {
    await res.body?.cancel();
    return null;
  }
  return (await res.json()).length;
}

export async function checkEachOperation(runtimes) {
  const upstreamCallsPerGatewayOperation = {};
  for (const target of TARGETS) {
    const rt = runtimes[target.key];
    const counting = target.key === "gateway";
    let before = counting ? await upstreamCalls(rt) : null;
    const step = async (name, op, body) => {
      const answer = await call(rt, target, op, body);
      if (counting && before !== null) {
        const after = await upstreamCalls(rt);
        upstreamCallsPerGatewayOperation[name] = after - before;
        before = after;
      }
      return answer;
    };
    const tid = (n) => `sanity-${Date.now().toString(36)}-${target.key}-${n}`;
    const card = { token: "tok_sandbox_ok" };
    const account = [{ key: "phone", value: "998901234567" }];

    const plain = await step("create", "receipt/create", { tid: tid(1), amount: 150_000, merchant_id: 1003, account });
    await step("check-id", "receipt/check-id", { id: plain.id });
    await step("pay", "receipt/pay", { id: plain.id, card });
    const verify = await step("create", "receipt/create", { tid: tid(2), amount: 150_000, merchant_id: 1001, account });
    await step("authorize", "receipt/authorize", { id: verify.id, card });
    const paid = await step("pay (OTP)", "receipt/pay", { id: verify.id, card, otp: "111111" });
    if (paid.state !== 4) throw new Error(`${target.key}: a paid receipt is in state ${paid.state}, not 4`);
  }
  return { upstreamCallsPerGatewayOperation };
}
