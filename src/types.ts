import type { Caller } from "./caller";

/** Hono's environment for the gateway: bindings, and what middleware sets per request. */
export interface GatewayEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    caller: Caller;
  };
}
