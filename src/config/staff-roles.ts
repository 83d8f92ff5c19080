/**
 * The back office's roles (the contract, "The back office"): who is which
 * (STAFF_ROLES) and what each may do. One table, read by the routes before
 * any operation runs and by `me`, so the page shows exactly what the server
 * allows.
 *
 * STAFF_ROLES is JSON: `{"support": ["ana@partner.uz", "@support.partner.uz"],
 * "finance": [...], "operator": [...]}`, each entry an email or an `@domain`
 * (every address of that domain). An email named under a role wins over a
 * domain; of two roles that name the same person (or domain), the one that
 * may do more wins (operator, then finance, then support), so a promotion is
 * adding a line, never removing one first.
 */

export const ROLES = ["support", "finance", "operator"] as const;
export type Role = (typeof ROLES)[number];

/** Every operation of the console's API (POST /console/api/<name>), and the GET of a statement's file. */
export const OPERATIONS = [
  "me",
  "find",
  "record",
  "reveal",
  "statements",
  "statement",
  "statement_file",
  "fiscal_pending",
  "resend",
  "resend_failed",
  "erasures",
  "charts",
] as const;
export type Operation = (typeof OPERATIONS)[number];

/**
 * What each role may do. Support finds and reads payments and may reveal a
 * masked value; finance reads statements and the fiscal list, and finds and
 * reads payments (a statement's mismatch is a payment to look at) without
 * revealing anything; the operator may do everything.
 */
export const CAN: Readonly<Record<Role, readonly Operation[]>> = {
  support: ["me", "find", "record", "reveal"],
  finance: ["me", "find", "record", "statements", "statement", "statement_file", "fiscal_pending"],
  operator: OPERATIONS,
};

export const may = (role: Role, operation: Operation): boolean => CAN[role].includes(operation);

/** STAFF_ROLES parsed: each role's emails and domains, lowercased. */
export interface StaffRoles {
  emails: ReadonlyMap<string, Role>;
  domains: ReadonlyMap<string, Role>;
}

/** The role that may do more, of two. */
const stronger = (a: Role | undefined, b: Role): Role => (a && ROLES.indexOf(a) > ROLES.indexOf(b) ? a : b);

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DOMAIN = /^@[^\s@]+\.[^\s@]+$/;

/** STAFF_ROLES, or what is wrong with it (a sentence naming the setting, never its entries). */
export function parseStaffRoles(text: string | undefined): { roles: StaffRoles } | { problem: string } {
  const value = (text ?? "").trim();
  if (value === "") return { roles: { emails: new Map(), domains: new Map() } };
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return { problem: 'STAFF_ROLES is not JSON: set it to {"support": [...], "finance": [...], "operator": [...]} of emails or @domains.' };
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    return { problem: "STAFF_ROLES is not a JSON object of roles (support, finance, operator)." };
  }
  const emails = new Map<string, Role>();
  const domains = new Map<string, Role>();
  for (const [role, entries] of Object.entries(parsed)) {
    if (!(ROLES as readonly string[]).includes(role))
      return { problem: `STAFF_ROLES names a role the console does not know; the roles are ${ROLES.join(", ")}.` };
    if (!Array.isArray(entries)) return { problem: `STAFF_ROLES's ${role} is not a list of emails or @domains.` };
    for (const [i, entry] of entries.entries()) {
      const name = typeof entry === "string" ? entry.trim().toLowerCase() : "";
      if (DOMAIN.test(name)) domains.set(name.slice(1), stronger(domains.get(name.slice(1)), role as Role));
      else if (EMAIL.test(name)) emails.set(name, stronger(emails.get(name), role as Role));
      else return { problem: `STAFF_ROLES's ${role} entry ${i + 1} is neither an email nor an @domain.` };
    }
  }
  return { roles: { emails, domains } };
}

/** The role of a verified email, or null: a person STAFF_ROLES does not name has none. */
export function roleOf(roles: StaffRoles, email: string): Role | null {
  const address = email.trim().toLowerCase();
  const named = roles.emails.get(address);
  if (named) return named;
  const domain = address.slice(address.lastIndexOf("@") + 1);
  return (address.includes("@") && roles.domains.get(domain)) || null;
}

/** What is wrong with STAFF_ROLES in every environment: a value the console could not read would give everyone no role, silently. */
export function staffRoleProblems(env: { STAFF_ROLES?: string }): string[] {
  const parsed = parseStaffRoles(env.STAFF_ROLES);
  return "problem" in parsed ? [parsed.problem] : [];
}
