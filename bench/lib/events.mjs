/**
 * The events run (the partner backend hears about every payment by webhook):
 * does the payment path wait for webhooks? The same pays, on a fresh gateway
 * runtime each time, with the partner's receiver down (WEBHOOK_URL points at
 * a port nobody listens on: every delivery fails and is retried) and then up
 * (a local receiver answering 204 at once). Pays at concurrency 1, timed from
 * the client, after the receipts' own `created` events have been delivered or
 * given up on. If the receiver's state showed in pay latency, the payment path
 * would be waiting for webhooks.
 */
import http from "node:http";
import { listenPort, PARTNER_KEY, PLAN } from "./config.mjs";
import { summarize } from "./load.mjs";
import { startReceiver, unansweredUrl } from "./receiver.mjs";
import { applyMigrations, startRuntime, workerFromBuild } from "./runtime.mjs";

const RECEIPTS = PLAN.events.receipts;

/** A partner POST to the gateway at `url` (`agent`: a keep-alive agent, or undefined; `headers`: more of them, e.g. an Idempotency-Key). */
export function post(agent, url, path, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = http.request(
      `${url}/api/v1/partner/${path}`,
      {
        method: "POST",
        agent,
        headers: {
          ...headers,
          "content-type": "application/json",
          authorization: `Bearer ${PARTNER_KEY}`,
          "content-length": Buffer.byteLength(data),
        },
      },
      (res) => {
        let text = "";
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode, body: text }));
      },
    );
    req.on("error", reject);
    req.end(data);
  });
}

async function payRun(built, receiverUp) {
  const receiver = receiverUp ? await startReceiver(listenPort("receiver")) : null;
  const worker = workerFromBuild(built.gateway);
  worker.bindings = { ...worker.bindings, WEBHOOK_URL: receiver?.url ?? (await unansweredUrl()) };
  const runtime = await startRuntime({ key: `events-${receiverUp ? "up" : "down"}`, workers: [worker], port: listenPort("events") });
  try {
    await applyMigrations(runtime, built.gateway);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const ids = [];
    for (let i = 0; i < RECEIPTS; i++) {
      const created = await post(agent, runtime.url, "receipt/create", {
        tid: `events-${receiverUp ? "up" : "down"}-${i}-${Date.now()}`,
        amount: 150000,
        merchant_id: 1003,
        account: [],
      });
      if (created.status !== 200) throw new Error(`events run: create answered ${created.status}`);
      ids.push(JSON.parse(created.body).id);
    }
    // Let the created events' first deliveries happen (or fail) before timing.
    await new Promise((resolve) => setTimeout(resolve, PLAN.events.settleMs));
    const times = [];
    for (const id of ids) {
      const started = performance.now();
      const paid = await post(agent, runtime.url, "receipt/pay", { id, card: { token: "tok_sandbox_ok" } });
      times.push(performance.now() - started);
      if (paid.status !== 200) throw new Error(`events run: pay answered ${paid.status}`);
    }
    agent.destroy();
    return { ...summarize(times.sort((a, b) => a - b)), delivered: receiver ? receiver.received() : 0 };
  } finally {
    await runtime.stop();
    receiver?.server.close();
  }
}

export async function eventsRun(built) {
  const receiverDown = await payRun(built, false);
  const receiverUp = await payRun(built, true);
  return {
    note: `${RECEIPTS} pays at concurrency 1 on a fresh gateway runtime, each paid receipt's events queued; receiver down (every delivery fails and is retried), then up (answers 204)`,
    receiverDown,
    receiverUp,
  };
}
