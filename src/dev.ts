import type { EventMessage } from "./events";
import gateway from "./index";
export { ReceiptObject } from "./index";
export { SandboxObject, SandboxUpstream } from "./sandbox";
export default {
  fetch(request, env, ctx) {
    if (new URL(request.url).pathname.startsWith("/__sandbox/") && env.UPSTREAM) {
      return env.UPSTREAM.fetch(request);
    }
    return gateway.fetch(request, env, ctx);
  },
  queue: gateway.queue,
  scheduled: gateway.scheduled,
} satisfies ExportedHandler<Env, EventMessage>;
