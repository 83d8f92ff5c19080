/**
 * Every link in README.md and docs/*.md stays inside the repository: a
 * relative link names a file that exists (and, for a markdown file, a heading
 * that exists), and a link that leaves the repository is an http(s) link to
 * the local gateway or to a well-known public documentation site. Nothing
 * points at files outside the repository (a contract or an upstream's
 * documentation kept beside it: docs/reference.md and docs/upstream.md are
 * the repository's own).
 *
 * The markdown is bundled by Vite (`?raw`); the repository's file list is the
 * keys of a lazy import.meta.glob, resolved by Vite at transform time, so no
 * file is read or loaded at run time and workerd needs no file system access.
 */
import { describe, expect, it } from "vitest";
import readme from "../../README.md?raw";

const docs = import.meta.glob("../../docs/*.md", { query: "?raw", import: "default", eager: true }) as Record<string, string>;

/** The repository's files, as paths from its root ("src/app.ts"); dot-directories and node_modules excluded. */
const FILES = new Set(
  Object.keys(import.meta.glob(["../../**/*", "../../.*", "!../../node_modules/**", "!../../dist/**"], { query: "?url", import: "default" })).map(
    (key) => key.replace(/^\.\.\/\.\.\//, ""),
  ),
);

/** Hosts a link may leave the repository for: the local gateway and its tools, and public documentation. */
const ALLOWED_HOSTS = new Set([
  "127.0.0.1",
  "localhost",
  "www.standardwebhooks.com",
  "standardwebhooks.com",
  "github.com",
  "developers.cloudflare.com",
  "spec.openapis.org",
  "datatracker.ietf.org",
  "www.rfc-editor.org",
  "hono.dev",
  "valibot.dev",
  "vitest.dev",
  "www.npmjs.com",
  // The conventional deployment's prices beside the edge's (docs/capacity.md).
  "aws.amazon.com",
  "docs.aws.amazon.com",
]);

/** Markdown files checked, by their path from the repository root. */
const MARKDOWN: Record<string, string> = {
  "README.md": readme,
  ...Object.fromEntries(Object.entries(docs).map(([key, text]) => [key.replace(/^\.\.\/\.\.\//, ""), text])),
};

/** The text without fenced code blocks and inline code, where a `[x](y)` is no link. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "");
}

/** Inline links and images, autolinks and reference definitions. */
function links(markdown: string): string[] {
  const text = prose(markdown);
  const found: string[] = [];
  for (const m of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) found.push(m[1]!);
  for (const m of text.matchAll(/<((?:https?|ftp|file|mailto):[^>\s]+)>/g)) found.push(m[1]!);
  for (const m of text.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)) found.push(m[1]!);
  return found;
}

/** GitHub's heading anchors of a markdown file. */
function anchors(markdown: string): Set<string> {
  const slugs = new Set<string>();
  const counts = new Map<string, number>();
  for (const m of markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = m[1]!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = counts.get(base) ?? 0;
    counts.set(base, n + 1);
    slugs.add(n === 0 ? base : `${base}-${n}`);
  }
  return slugs;
}

/** `target` as written in `from`, as a path from the repository root; null when it climbs out of it. */
function resolve(from: string, target: string): string | null {
  const parts = from.split("/").slice(0, -1);
  for (const part of decodeURIComponent(target).split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length === 0) return null;
      parts.pop();
    } else parts.push(part);
  }
  return parts.join("/");
}

function exists(path: string): boolean {
  return path === "" || FILES.has(path) || [...FILES].some((file) => file.startsWith(`${path.replace(/\/$/, "")}/`));
}

describe("links in README.md and docs/*.md", () => {
  it("finds the repository's files and the markdown to check", () => {
    for (const file of [
      "README.md",
      "docs/reference.md",
      "docs/upstream.md",
      "docs/upstream-wire.md",
      "docs/production.md",
      "src/app.ts",
      ".dev.vars.example",
    ]) {
      expect(FILES, file).toContain(file);
    }
    expect(Object.keys(MARKDOWN)).toEqual(expect.arrayContaining(["README.md", "docs/reference.md", "docs/upstream.md"]));
    expect(FILES.has("docs/no-such-file.md")).toBe(false);
  });

  for (const [file, markdown] of Object.entries(MARKDOWN)) {
    it(`${file}: every relative link names a file of the repository, and every anchor a heading`, () => {
      const relative = links(markdown).filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
      if (file === "README.md") expect(relative.length).toBeGreaterThan(5);
      const problems: string[] = [];
      for (const target of relative) {
        const [path, fragment] = target.split("#", 2) as [string, string | undefined];
        const resolved = path === "" ? file : resolve(file, path);
        if (resolved === null) problems.push(`${target}: climbs out of the repository`);
        else if (!exists(resolved)) problems.push(`${target}: ${resolved} does not exist`);
        else if (fragment && resolved.endsWith(".md")) {
          const text = MARKDOWN[resolved];
          if (text === undefined) problems.push(`${target}: ${resolved} is not a checked markdown file, its headings are unknown`);
          else if (!anchors(text).has(fragment)) problems.push(`${target}: ${resolved} has no heading #${fragment}`);
        }
      }
      expect(problems, file).toEqual([]);
    });

    it(`${file}: every link that leaves the repository is http(s) to the local gateway or public docs`, () => {
      const problems = links(markdown)
        .filter((target) => /^[a-z][a-z0-9+.-]*:/i.test(target))
        .filter((target) => {
          const url = URL.parse(target);
          return !url || !["http:", "https:"].includes(url.protocol) || !ALLOWED_HOSTS.has(url.hostname);
        });
      expect(problems, file).toEqual([]);
    });

    it(`${file}: names no contract or upstream documentation kept outside the repository`, () => {
      expect(markdown).not.toMatch(/CONTRACT\.md|shared\/seeds|000_8085d1b417e2f707|\.\.\/shared/);
    });
  }
});
