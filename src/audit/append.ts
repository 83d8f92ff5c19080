/** Appends entries to the audit trail from the Worker (gateway calls, staff): to the writer of the chain `key` hashes to, durable when it answers. */
import { type AuditLine, chainFor } from "./entries";

export async function appendAudit(env: Env, key: string, lines: readonly AuditLine[]): Promise<void> {
  const chain = chainFor(env, key);
  await env.AUDIT_WRITER.get(env.AUDIT_WRITER.idFromName(chain)).append(chain, lines);
}
