import type { Caller } from "./caller";
import type { Language } from "./error-codes";

/** Hono's environment for the gateway: bindings, and what middleware sets per request. */
export interface GatewayEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    caller: Caller;
    /** The language of error answers' user_message, from Accept-Language (src/language.ts). */
    language: Language;
  };
}
