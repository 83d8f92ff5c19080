// The sandbox upstream: a stateful simulation of the partner payment service
// (docs/upstream-wire.md), reached by the gateway only through the UPSTREAM
// service binding. Never part of the production bundle.
import { WorkerEntrypoint } from "cloudflare:workers";
import { routes } from "./routes";

export { SandboxObject } from "./sandbox-object";

export class SandboxUpstream extends WorkerEntrypoint<Env> {
  override async fetch(request: Request): Promise<Response> {
    // A network between gateway and upstream, as far away as SANDBOX_LATENCY_MS says (0: none).
    const latency = Number(this.env.SANDBOX_LATENCY_MS ?? 0);
    if (latency > 0) await scheduler.wait(latency);
    return routes.fetch(request, this.env, this.ctx);
  }
}
