import { DurableObject } from "cloudflare:workers";

export class StatementObject extends DurableObject<Env> {}
