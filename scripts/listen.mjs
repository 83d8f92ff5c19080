#!/usr/bin/env node
/**
 * `npm run listen`: a local webhook receiver for the gateway's events, on
 * http://127.0.0.1:4242/webhooks (the WEBHOOK_URL of `npm run dev`).
 *
 * Verifies each delivery's Standard Webhooks signature with the
 * `standardwebhooks` package, prints one line per delivery (time, type,
 * record id, state, sequence, the delivery's attempt number for that event),
 * and answers 204; a bad signature is printed and answered 400.
 *
 *   npm run listen                       # 127.0.0.1:4242/webhooks
 *   npm run listen -- --fail 3           # 500 to the first 3 deliveries of each event: watch the retries
 *
 * In development (`npm run dev`) a failed delivery is retried 1, 2, 4, 8, 16
 * and 32 s later (RETRY_SCHEDULES in src/events/delivery.ts), each after
 * about a second more that the queue adds: with --fail 3 the fourth attempt,
 * answered 204, comes about 10 s after the first. An event whose every attempt
 * fails is `failed` about a minute after the first (at most 3 minutes);
 * an event whose message was lost is sent again within a minute.
 *   npm run listen -- --port 5000 --path /hooks
 *
 * WEBHOOK_SECRET comes from the environment, else .dev.vars, else .dev.vars.example.
 */
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, parseEnv } from "node:util";
import { Webhook, WebhookVerificationError } from "standardwebhooks";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

let options;
try {
  ({ values: options } = parseArgs({
    options: {
      port: { type: "string", default: "4242" },
      host: { type: "string", default: "127.0.0.1" },
      path: { type: "string", default: "/webhooks" },
      fail: { type: "string", default: "0" },
      help: { type: "boolean", short: "h", default: false },
    },
  }));
} catch (err) {
  console.error(`${err.message}\nusage: npm run listen -- [--port 4242] [--host 127.0.0.1] [--path /webhooks] [--fail N]`);
  process.exit(2);
}
if (options.help) {
  console.log("usage: npm run listen -- [--port 4242] [--host 127.0.0.1] [--path /webhooks] [--fail N]");
  process.exit(0);
}
const port = Number(options.port);
const failFirst = Number(options.fail);
if (!Number.isInteger(port) || port < 1 || port > 65535 || !Number.isInteger(failFirst) || failFirst < 0) {
  console.error("--port must be a port number and --fail a count (0 or more).");
  process.exit(2);
}

function secretSource() {
  if (process.env.WEBHOOK_SECRET) return { secret: process.env.WEBHOOK_SECRET, from: "the environment" };
  for (const name of [".dev.vars", ".dev.vars.example"]) {
    const path = join(root, name);
    if (!existsSync(path)) continue;
    const secret = parseEnv(readFileSync(path, "utf8")).WEBHOOK_SECRET;
    if (secret) return { secret, from: name };
  }
  return null;
}

const source = secretSource();
if (!source) {
  console.error("No WEBHOOK_SECRET in the environment, .dev.vars or .dev.vars.example: nothing to verify signatures with.");
  process.exit(1);
}
// During a rotation WEBHOOK_SECRET holds several secrets: a delivery signed with any of them is accepted.
const webhooks = source.secret
  .split(/\s+/)
  .filter(Boolean)
  .map((secret) => new Webhook(secret));

/** Deliveries seen per webhook-id: the attempt number of each. */
const attempts = new Map();

const time = () => new Date().toISOString().slice(11, 23);

function verify(body, headers) {
  let lastError;
  for (const webhook of webhooks) {
    try {
      return webhook.verify(body, headers);
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError;
}

function describe(event) {
  const object = event?.data?.object ?? {};
  const recordId = event?.type?.startsWith("transfer.") ? object.receipt_id : object.id;
  return [
    String(event?.type ?? "?").padEnd(32),
    String(recordId ?? "?").padEnd(28),
    `state ${object.state ?? "?"}`.padEnd(9),
    `seq ${event?.sequence ?? "?"}`.padEnd(7),
  ].join(" ");
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://receiver");
  if (url.pathname !== options.path) {
    res.writeHead(404).end();
    return;
  }
  if (req.method !== "POST") {
    res.writeHead(405, { allow: "POST" }).end();
    return;
  }
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8");
    const id = String(req.headers["webhook-id"] ?? "");
    let event;
    try {
      event = verify(body, req.headers);
    } catch (err) {
      const why = err instanceof WebhookVerificationError ? err.message : `unreadable: ${err.message}`;
      console.log(`${time()}  BAD SIGNATURE  ${id || "(no webhook-id)"}  ${why}  -> 400`);
      res.writeHead(400, { "content-type": "text/plain" }).end(`bad signature: ${why}\n`);
      return;
    }
    const attempt = (attempts.get(id) ?? 0) + 1;
    attempts.set(id, attempt);
    const failing = attempt <= failFirst;
    const status = failing ? 500 : 204;
    console.log(`${time()}  ${describe(event)} attempt ${attempt}  -> ${status}${failing ? ` (--fail ${failFirst})` : ""}`);
    res.writeHead(status, failing ? { "content-type": "text/plain" } : {}).end(failing ? "failing on purpose (--fail)\n" : undefined);
  });
});

server.on("error", (err) => {
  console.error(`Cannot listen on ${options.host}:${port}: ${err.message}`);
  process.exit(1);
});
server.listen(port, options.host, () => {
  console.log(`Listening on http://${options.host}:${port}${options.path}; verifying with WEBHOOK_SECRET from ${source.from}.`);
  if (failFirst > 0) {
    console.log(
      `Answering 500 to the first ${failFirst} deliveries of each event; \`npm run dev\` retries each 1, 2, 4, 8, 16, 32 s later (plus about a second of queue latency each), then marks it failed.`,
    );
  }
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.close(() => process.exit(0)));
