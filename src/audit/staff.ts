/**
 * Rule 15 for the back office: every view and action of the partner's staff
 * is an entry of the audit trail, with the staff member's email and role.
 * The console calls `auditStaff` before it answers; it resolves once the
 * entry is durable in its writer, and throws when it could not be written,
 * so a console may refuse an action it cannot audit. `target` names what was
 * viewed or acted on (a receipt id, a user's sub, a date, "charts"), never a
 * revealed value; `receipt_id` and `user` make the entry found by
 * `audit/search` for that receipt or user too.
 */
import { redact } from "../shared/redact";
import { appendAudit } from "./append";

export interface StaffAction {
  email: string;
  /** "none": a verified identity STAFF_ROLES gives no role, refused (its refusal is audited too). */
  role: "support" | "finance" | "operator" | "none";
  /** What was done: `view_receipt`, `reveal_phone`, `resend_event`, `view_statement`, ... */
  action: string;
  target: string;
  /** `ok`, or the error code the console answered. */
  outcome: string;
  request_id: string;
  receipt_id?: string;
  user?: string;
  at?: number;
}

export async function auditStaff(env: Env, entry: StaffAction): Promise<void> {
  const at = entry.at ?? Date.now();
  const email = entry.email.trim().toLowerCase();
  await appendAudit(env, `staff:${email}`, [
    {
      id: `s:${redact(entry.request_id)}:${at}:${redact(entry.action)}`,
      at,
      source: "staff",
      op: entry.action,
      actor: `staff:${email}`,
      request_id: entry.request_id,
      outcome: entry.outcome,
      staff: email,
      role: entry.role,
      target: entry.target,
      ...(entry.receipt_id ? { receipt_id: entry.receipt_id } : {}),
      ...(entry.user ? { user: entry.user } : {}),
    },
  ]);
}
