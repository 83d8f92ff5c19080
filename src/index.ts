import { DurableObject } from "cloudflare:workers";
export class ReceiptObject extends DurableObject<Env> {}
export default {
  async fetch(): Promise<Response> {
    return Response.json({ ok: true });
  },
} satisfies ExportedHandler<Env>;
