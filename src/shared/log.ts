/**
 * The gateway's one structured logger: a JSON line per log event, every
 * field passed through `redact` first (src/shared/redact.ts), so no card number,
 * OTP, token, key or JWT reaches a log line.
 */
import { redact } from "./redact";

export type LogLevel = "debug" | "info" | "warn" | "error";

/** One structured log line. The only way the gateway writes to the console. */
export function log(level: LogLevel, event: string, fields: Record<string, unknown> = {}): void {
  const line = JSON.stringify({ level, event, ...(redact(fields) as Record<string, unknown>) });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}
