/**
 * Every operation the gateway serves, by API and section: the table of
 * contents. A section's file describes its operations in the order the
 * document lists them; src/app.ts mounts each API with apiRouter.
 *
 * Adding an operation: a description in its section's file (path, request,
 * answer, errors, who may call it, its limit, its lifecycle operation, its
 * upstream calls, what it does), its prose in docs.ts, and the receipt
 * object's or the upstream client's method if it needs a new one.
 */
import { GATEWAY } from "./gateway";
import { RECEIPTS } from "./receipts";
import type { Api } from "./router";
import { TRANSFERS } from "./transfers";

/** The partner receipt API: the upstream's paths, for the partner backend and its users. */
export const PARTNER_API: Api = { prefix: "/api/v1/partner", name: "Partner", sections: [RECEIPTS, TRANSFERS] };

/** The gateway's own operations (audit trails, events): the partner's server key only. */
export const GATEWAY_API: Api = { prefix: "/api/v1/gateway", name: "Gateway", callers: "partner", sections: [GATEWAY] };

export const APIS: readonly Api[] = [PARTNER_API, GATEWAY_API];

export { apiRouter } from "./router";
