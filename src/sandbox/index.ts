import { DurableObject, WorkerEntrypoint } from "cloudflare:workers";
export class SandboxObject extends DurableObject<Env> {}
export class SandboxUpstream extends WorkerEntrypoint<Env> {
  override async fetch(_request: Request): Promise<Response> {
    return new Response("todo", { status: 501 });
  }
}
