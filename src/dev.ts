import type { EventMessage } from "./events";
import gateway from "./index";
export { ReceiptObject } from "./index";
export { SandboxObject, SandboxUpstream } from "./sandbox";
export default {
  fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.pathname === "/__sandbox" && env.UPSTREAM) {
      // The console's address typed without its slash.
      url.pathname = "/__sandbox/";
      return Response.redirect(url.toString(), 301);
    }
    if (url.pathname.startsWith("/__sandbox/") && env.UPSTREAM) {
      return env.UPSTREAM.fetch(request);
    }
    return gateway.fetch(request, env, ctx);
  },
  queue: gateway.queue,
  scheduled: gateway.scheduled,
} satisfies ExportedHandler<Env, EventMessage>;
