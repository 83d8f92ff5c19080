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

/**
 * Who a cancel tells the upstream cancelled (`cancelledBy`): the partner
 * speaks for itself and sends what it gives; a user cannot speak for anyone
 * upstream, so their cancel names the deployment (`deploymentName`), whatever
 * its body says. The user is named in the record's audit trail instead.
 */
export const cancelledByFor = (caller: Caller, asked: string | undefined, deploymentName: string): string | undefined =>
  caller.kind === "partner" ? asked : deploymentName;
