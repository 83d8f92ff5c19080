/**
 * Who is calling. Set once per request by the authentication middleware and
 * passed, as plain data, to every rule that depends on it.
 */
export type Caller = { kind: "partner"; id: string } | { kind: "user"; id: string };

/** The owner recorded with a receipt, transfer and tid. */
export const ownerOf = (caller: Caller): string => `${caller.kind}:${caller.id}`;

/** The owner as events and the audit trail show it: the recorded owner is `partner:partner` or `user:<sub>`. */
export const eventOwner = (owner: string): string => (owner.startsWith("user:") ? owner.slice("user:".length) : "partner");

/** Partners may act on every receipt; a user only on their own. */
export const mayAccess = (caller: Caller, owner: string): boolean => caller.kind === "partner" || ownerOf(caller) === owner;
