import type { Language } from "../errors/error-codes";
import type { Caller } from "../rules/caller";

/** Hono's environment for the gateway: bindings, and what middleware sets per request. */
export interface GatewayEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    caller: Caller;
    /** The language of error answers' user_message, from Accept-Language (src/errors/language.ts). */
    language: Language;
  };
}
