/** Rule 16's days: a date in STATEMENT_TIMEZONE and the milliseconds it spans. */

/** STATEMENT_TIMEZONE, or Asia/Tashkent when unset or not a zone the runtime knows. */
export function statementTimezone(env: { STATEMENT_TIMEZONE?: string }): string {
  const zone = (env.STATEMENT_TIMEZONE ?? "").trim() || "Asia/Tashkent";
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return zone;
  } catch {
    return "Asia/Tashkent";
  }
}

/** STATEMENT_CHECK_SHARE: the share of lines compared with the payment service, 0 to 1 (1 in development, 0.01 elsewhere unless set). */
export function checkShare(env: { STATEMENT_CHECK_SHARE?: string; ENVIRONMENT?: string }): number {
  const n = Number(env.STATEMENT_CHECK_SHARE);
  if (env.STATEMENT_CHECK_SHARE !== undefined && env.STATEMENT_CHECK_SHARE.trim() !== "" && Number.isFinite(n) && n >= 0 && n <= 1) return n;
  return env.ENVIRONMENT === "development" ? 1 : 0.01;
}

function parts(at: number, zone: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(at)) {
    if (part.type !== "literal") out[part.type] = Number(part.value);
  }
  return out;
}

/** How far the zone's clock is ahead of UTC at `at`, in ms. */
function offsetMs(at: number, zone: string): number {
  const p = parts(at, zone);
  return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) - Math.floor(at / 1000) * 1000;
}

/** The date (`YYYY-MM-DD`) `at` falls on in the zone. */
export function dateIn(at: number, zone: string): string {
  const p = parts(at, zone);
  return `${String(p.year).padStart(4, "0")}-${String(p.month).padStart(2, "0")}-${String(p.day).padStart(2, "0")}`;
}

/** The local time of `at` in the zone, `YYYY-MM-DD HH:MM:SS` (what a spreadsheet reads as a time). */
export function localTime(at: number, zone: string): string {
  const p = parts(at, zone);
  const two = (n: number | undefined) => String(n).padStart(2, "0");
  return `${dateIn(at, zone)} ${two(p.hour)}:${two(p.minute)}:${two(p.second)}`;
}

/** The local midnight that starts `date` in the zone, in ms. */
function midnight(date: string, zone: string): number {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  const guess = Date.UTC(y, m - 1, d);
  let at = guess - offsetMs(guess, zone);
  // Once more, for a zone whose offset differs at the guess and at the answer (a DST change that night).
  at = guess - offsetMs(at, zone);
  return at;
}

/** [from, to): the milliseconds `date` spans in the zone. */
export function dayBounds(date: string, zone: string): { from: number; to: number } {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  const next = new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
  return { from: midnight(date, zone), to: midnight(next, zone) };
}

/** A real calendar date written `YYYY-MM-DD`. */
export function isDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  return new Date(`${text}T00:00:00Z`).toISOString().slice(0, 10) === text;
}
