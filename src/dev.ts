/**
 * The development entry (`npm run dev`, the tests): the gateway of
 * src/index.ts, and where the UPSTREAM binding is, the sandbox upstream
 * (src/sandbox/) at /__sandbox/ and the sandbox console's pages (src/console/)
 * beside its JSON views, and the gateway's metrics as the dev server wrote
 * them at /__sandbox/metrics (src/metrics/dev-metrics.ts; `npm run metrics`), and
 * the audit bucket's keys and objects at /__sandbox/audit/ (what `npm run
 * audit:verify` reads of the local state).
 * Production's entry has none of these.
 */
import { Hono } from "hono";
import { useLocalMetrics } from "./backoffice/charts";
import { sandboxConsole } from "./console/routes";
import { testClock } from "./console/test-clock";
import type { QueuedBody } from "./events";
import gateway from "./index";
import { devMetricPoints, devMetricsSummary, keepDevMetrics } from "./metrics/dev-metrics";

// Every data point this isolate writes (the Worker's and its objects': one isolate locally) is kept for /__sandbox/metrics.
keepDevMetrics();
// The back office's charts draw the same numbers here (production reads them from Analytics Engine).
useLocalMetrics(devMetricPoints);

export { AuditWriter, EventPager, ReceiptObject, RiskObject, StatementObject } from "./index";
export { SandboxObject, SandboxUpstream } from "./sandbox";

/** The test clocks and triggers, the console's pages, then everything else under /__sandbox/ from the sandbox itself, as the gateway reaches it. */
const sandboxPaths = new Hono<{ Bindings: Env }>()
  .route("/", testClock)
  .route("/", sandboxConsole)
  .all("/__sandbox/*", (c) => c.env.UPSTREAM!.fetch(c.req.raw));

/** The local audit bucket as `npm run audit:verify` reads it: a page of keys, or one object's bytes. */
async function auditBucketView(env: Env, url: URL): Promise<Response> {
  if (url.pathname === "/__sandbox/audit/keys") {
    const listed = await env.AUDIT.list({ prefix: url.searchParams.get("prefix") ?? "audit/", cursor: url.searchParams.get("cursor") ?? undefined });
    return Response.json({ keys: listed.objects.map((object) => object.key), cursor: listed.truncated ? listed.cursor : null });
  }
  if (url.pathname === "/__sandbox/audit/object") {
    const object = await env.AUDIT.get(url.searchParams.get("key") ?? "");
    return object ? new Response(object.body) : new Response("not found", { status: 404 });
  }
  return new Response("not found", { status: 404 });
}

export default {
  fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.pathname === "/__sandbox" && env.UPSTREAM) {
      // The console's address typed without its slash.
      url.pathname = "/__sandbox/";
      return Response.redirect(url.toString(), 301);
    }
    if (url.pathname === "/__sandbox/metrics" && request.method === "GET" && env.UPSTREAM) {
      return Response.json(devMetricsSummary());
    }
    if (url.pathname.startsWith("/__sandbox/audit/") && request.method === "GET" && env.UPSTREAM) return auditBucketView(env, url);
    if (url.pathname.startsWith("/__sandbox/") && env.UPSTREAM) {
      return sandboxPaths.fetch(request, env, ctx);
    }
    return gateway.fetch(request, env, ctx);
  },
  queue: gateway.queue,
  scheduled: gateway.scheduled,
} satisfies ExportedHandler<Env, QueuedBody>;
