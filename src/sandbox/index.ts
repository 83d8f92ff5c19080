// The sandbox upstream: a stateful simulation of the partner payment service
// (docs/upstream-wire.md), reached by the gateway only through the UPSTREAM
// service binding. Never part of the production bundle.
import { WorkerEntrypoint } from "cloudflare:workers";
import { routes } from "./routes";

export { SandboxObject } from "./sandbox-object";

export class SandboxUpstream extends WorkerEntrypoint<Env> {
  override async fetch(request: Request): Promise<Response> {
    return routes.fetch(request, this.env, this.ctx);
  }
}
