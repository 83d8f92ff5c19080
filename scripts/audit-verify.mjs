#!/usr/bin/env node
/**
 * `npm run audit:verify`: walks every chain of the audit trail (rule 15) and
 * names any batch missing, altered or out of order; exits 1 if there is one
 * (src/audit/verify.ts says how; docs/design.md, "The chain").
 *
 *   npm run audit:verify                               the local state, through the running `npm run dev` (PORT, else 8787)
 *   npm run audit:verify -- --url http://127.0.0.1:8799
 *   npm run audit:verify -- --remote                   a deployment's bucket, through R2's S3-compatible API, with the
 *                                                      operator's R2 API token: R2_ACCOUNT_ID, R2_ACCESS_KEY_ID,
 *                                                      R2_SECRET_ACCESS_KEY in the environment (read only is enough)
 *   npm run audit:verify -- --remote --bucket <name>   another bucket than [env.production]'s AUDIT
 *   npm run audit:verify -- --json                     the report as JSON
 *
 * An erasure's rewrite (rule 10) is recorded in its chain and is reported as
 * rewritten, not as a problem; entries sent twice are counted as repeated.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { AwsClient } from "aws4fetch";
import { unstable_readConfig } from "wrangler";
import { verifyAudit } from "../src/audit/verify.ts";
import { commandLine } from "./cli.mjs";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const { values: options } = commandLine("audit:verify", import.meta.url, {
  options: {
    url: { type: "string" },
    remote: { type: "boolean", default: false },
    bucket: { type: "string" },
    json: { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  },
});

/** The dev server's bucket, through its development-only /__sandbox/audit/ views. */
function devServer(base) {
  return {
    async keys(prefix) {
      const keys = [];
      let cursor = null;
      do {
        const res = await fetch(
          `${base}/__sandbox/audit/keys?prefix=${encodeURIComponent(prefix)}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        );
        if (!res.ok) throw new Error(`${base} answered ${res.status}: is npm run dev serving there?`);
        const page = await res.json();
        keys.push(...page.keys);
        cursor = page.cursor;
      } while (cursor);
      return keys;
    },
    async get(key) {
      const res = await fetch(`${base}/__sandbox/audit/object?key=${encodeURIComponent(key)}`);
      return res.status === 404 ? null : new Uint8Array(await res.arrayBuffer());
    },
  };
}

/** A deployment's bucket through R2's S3-compatible API, each request signed (SigV4) by aws4fetch. */
function s3(bucket) {
  const { R2_ACCOUNT_ID: account, R2_ACCESS_KEY_ID: accessKeyId, R2_SECRET_ACCESS_KEY: secretAccessKey } = process.env;
  if (!account || !accessKeyId || !secretAccessKey) {
    console.error("--remote needs R2_ACCOUNT_ID, R2_ACCESS_KEY_ID and R2_SECRET_ACCESS_KEY (an R2 API token: docs/production.md).");
    process.exit(2);
  }
  const client = new AwsClient({ accessKeyId, secretAccessKey, service: "s3", region: "auto" });
  const base = `https://${account}.r2.cloudflarestorage.com/${bucket}`;
  return {
    async keys(prefix) {
      const keys = [];
      let token = null;
      do {
        const query = new URLSearchParams({ "list-type": "2", prefix, ...(token ? { "continuation-token": token } : {}) });
        const res = await client.fetch(`${base}?${query}`);
        if (!res.ok) throw new Error(`listing ${bucket} answered ${res.status}`);
        const xml = await res.text();
        keys.push(...[...xml.matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1].replaceAll("&amp;", "&")));
        token = /<IsTruncated>true<\/IsTruncated>/.test(xml) ? (/<NextContinuationToken>([^<]*)</.exec(xml)?.[1] ?? null) : null;
      } while (token);
      return keys;
    },
    async get(key) {
      const res = await client.fetch(`${base}/${key.split("/").map(encodeURIComponent).join("/")}`);
      if (res.status === 404) return null;
      if (!res.ok) throw new Error(`reading ${key} answered ${res.status}`);
      return new Uint8Array(await res.arrayBuffer());
    },
  };
}

let reader;
let where;
if (options.remote) {
  const production = unstable_readConfig({ config: join(ROOT, "wrangler.toml"), env: "production" }, { hideWarnings: true });
  const bucket = options.bucket ?? production.r2_buckets?.find((b) => b.binding === "AUDIT")?.bucket_name;
  if (!bucket) {
    console.error("No AUDIT bucket in [env.production] of wrangler.toml; name one with --bucket.");
    process.exit(2);
  }
  reader = s3(bucket);
  where = `the bucket ${bucket}`;
} else {
  const base = (options.url ?? `http://127.0.0.1:${process.env.PORT ?? "8787"}`).replace(/\/+$/, "");
  reader = devServer(base);
  where = `the local state (npm run dev on port ${new URL(base).port || "80"})`;
}

let report;
try {
  report = await verifyAudit(reader);
} catch (err) {
  console.error(`audit:verify: ${err instanceof Error ? err.message : err}`);
  process.exit(2);
}
if (options.json) console.log(JSON.stringify(report, null, 2));
else {
  console.log(`The audit trail in ${where}: ${report.chains.length} chain(s), ${report.entries} entries.`);
  for (const chain of report.chains) {
    console.log(
      `  ${chain.chain}: batches ${chain.first}..${chain.last} (${chain.batches} read)${chain.trimmed ? ", its older ones ended by retention" : ""}`,
    );
  }
  for (const key of report.rewritten) console.log(`  rewritten by an erasure, as its chain records: ${key}`);
  if (report.repeated > 0) console.log(`  ${report.repeated} entries sent twice (the same entries, given once by audit/search)`);
  for (const problem of report.problems) console.log(`  ✗ ${problem.kind}: ${problem.message}`);
  console.log(report.problems.length === 0 ? "✓ every chain is whole." : `✗ ${report.problems.length} problem(s).`);
}
process.exit(report.problems.length === 0 ? 0 : 1);
