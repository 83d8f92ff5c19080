/**
 * The log lines the gateway prints, as Workers Logs would take them: each
 * console call one JSON line, parsed. The Worker and its objects run in the
 * tests' isolate, so a spy on console sees every line of both.
 */
import { vi } from "vitest";

/** Every line the gateway prints from now on, parsed (the spies go with vi.restoreAllMocks). */
export function printedLines(): Record<string, any>[] {
  const lines: Record<string, any>[] = [];
  for (const method of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      lines.push(JSON.parse(args.map(String).join(" ")));
    });
  }
  return lines;
}
