/**
 * Bench target (b): the least a gateway could be. A Hono worker that forwards
 * every partner call to the sandbox the way the gateway does (a service
 * binding to the `SandboxUpstream` entrypoint, the partner's upstream
 * credential swapped in) and hands the answer back untouched: no validation,
 * no Durable Object, no D1, no logging, no body parsing.
 *
 * The gap between this and the gateway is what the gateway's own rules cost;
 * the gap between this and the sandbox called directly is the price of any
 * proxy hop at all.
 */
import { Hono } from "hono";

interface ProxyEnv {
  UPSTREAM: Fetcher;
  UPSTREAM_API_KEY: string;
  UPSTREAM_BASE_URL: string;
}

const app = new Hono<{ Bindings: ProxyEnv }>();

app.get("/healthz", (c) => c.json({ ok: true }));

app.post("/api/v1/partner/*", (c) => {
  const path = new URL(c.req.url).pathname;
  // Same headers the gateway's upstream client sends, minus its request id.
  return c.env.UPSTREAM.fetch(`${c.env.UPSTREAM_BASE_URL}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json",
      authorization: `Bearer ${c.env.UPSTREAM_API_KEY}`,
    },
    // Streamed through: the floor does not even read the body.
    body: c.req.raw.body,
  });
});

export default app;
