/**
 * The README's walk-through ("A payment, step by step") is scripts/walkthrough.sh,
 * which CI runs against `npm run dev`: the README's block must be the script's
 * marked region without its `step` and `check...` lines, character for
 * character, so what the README shows is what CI ran and checked. Edit the
 * script, then copy its block into the README.
 */
import { describe, expect, it } from "vitest";
import ciRun from "../../.ci/run?raw";
import packageJson from "../../package.json?raw";
import readme from "../../README.md?raw";
import script from "../../scripts/walkthrough.sh?raw";

const SCRIPT_BEGIN = "# >>> README: A payment, step by step\n";
const SCRIPT_END = "# <<< README\n";
const README_MARKER = /<!-- scripts\/walkthrough\.sh's block[^\n]*-->\n```sh\n/;

/** Script-only lines: the step names and the checks of each answer. */
const SCRIPT_ONLY = /^(step|check\w*)( |$)/;

function between(text: string, begin: string, end: string): string {
  const start = text.indexOf(begin);
  expect(start, `marker ${JSON.stringify(begin)}`).toBeGreaterThanOrEqual(0);
  const stop = text.indexOf(end, start + begin.length);
  expect(stop, `marker ${JSON.stringify(end)}`).toBeGreaterThan(start);
  return text.slice(start + begin.length, stop);
}

const region = between(script, SCRIPT_BEGIN, SCRIPT_END);
const regionLines = region.replace(/\n$/, "").split("\n");

function readmeBlock(): string {
  const marker = README_MARKER.exec(readme);
  expect(marker, "the README's marker comment before the walk-through block").not.toBeNull();
  const start = marker!.index + marker![0].length;
  return readme.slice(start, readme.indexOf("```\n", start));
}

/** The lines that call the gateway (a curl at the start or in a `$(...)`). */
const isCall = (line: string) => /(^|\$\()curl /.test(line);

describe("the README walk-through is scripts/walkthrough.sh", () => {
  it("the README's block is the script's region without its step and check lines", () => {
    const expected = `${regionLines.filter((line) => !SCRIPT_ONLY.test(line)).join("\n")}\n`;
    expect(readmeBlock()).toBe(expected);
  });

  it("the README's block sits in the section 'A payment, step by step'", () => {
    const section = between(readme, "## A payment, step by step\n", "\n## ");
    expect(section).toMatch(README_MARKER);
  });

  it("every call in the script is checked before the next one", () => {
    const unchecked: string[] = [];
    let pending: string | null = null;
    for (const line of regionLines) {
      if (isCall(line)) {
        if (pending) unchecked.push(pending);
        pending = line;
      } else if (/^check(_within)? /.test(line)) pending = null;
    }
    if (pending) unchecked.push(pending);
    expect(unchecked).toEqual([]);
    expect(regionLines.filter(isCall).length).toBeGreaterThanOrEqual(15);
  });

  it("the block takes the port from PORT, captures every id with jq, and leaves nothing to paste by hand", () => {
    const block = readmeBlock();
    expect(block).toMatch(/^PORT=\$\{PORT:-8787\}/m);
    for (const url of block.match(/https?:\/\/[^\s"']+/g) ?? []) expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\$PORT\//);
    expect(block).not.toMatch(/<[A-Z][A-Z0-9_]*>/);
    expect(block).toMatch(/^ID=\$\(curl .* \| jq -r \.id\)/m);
  });

  it("covers every partner operation and the event list, with authorize before every OTP pay (the sandbox accepts an OTP only once sent)", () => {
    const calls = regionLines.filter(isCall);
    const paths = calls.map((line) => /\/((?:receipt|a2c|gateway\/events)\/[a-z/-]+)/.exec(line)?.[1]);
    for (const path of [
      "receipt/create",
      "receipt/authorize",
      "receipt/pay",
      "receipt/check-id",
      "receipt/check-tid",
      "receipt/cancel",
      "receipt/anonymous/authorize",
      "receipt/anonymous/pay",
      "receipt/hold-confirm",
      "a2c/create",
      "a2c/pay",
      "gateway/events/list",
    ]) {
      expect(paths, path).toContain(path);
    }
    calls.forEach((line, i) => {
      if (!/"otp":"111111"/.test(line) || !/\/receipt\//.test(line)) return;
      const id = /"id":"'(\$\w+)'"/.exec(line)?.[1];
      const authorize = line.includes("/anonymous/") ? "/receipt/anonymous/authorize" : "/receipt/authorize";
      expect(
        calls.slice(0, i).some((earlier) => earlier.includes(authorize) && earlier.includes(`"id":"'${id}'"`)),
        `authorize for ${id} before: ${line}`,
      ).toBe(true);
    });
  });

  it("fails on the first unexpected answer: strict bash, and checks that name the step", () => {
    expect(script).toMatch(/^set -euo pipefail$/m);
    expect(regionLines.filter((line) => /^step "/.test(line)).length).toBeGreaterThanOrEqual(10);
    expect(script).toMatch(/FAILED at step/);
  });

  it("npm run walkthrough runs it, and CI runs that after the tests", () => {
    const scripts = (JSON.parse(packageJson) as { scripts: Record<string, string> }).scripts;
    expect(scripts.walkthrough).toBe("node scripts/walkthrough-run.mjs");
    expect(scripts.reset).toBe("node scripts/reset.mjs");
    const test = ciRun.indexOf("npm test\n");
    const walkthrough = ciRun.search(/^timeout .*npm run walkthrough$/m);
    expect(test).toBeGreaterThan(0);
    expect(walkthrough).toBeGreaterThan(test);
  });
});
