/**
 * Bundles every target with wrangler itself (`wrangler deploy --dry-run`), so
 * the bench runs exactly the code a deploy would upload: same esbuild
 * settings, same nodejs_compat polyfills, same conditions. The two bench-only
 * workers get a wrangler config generated from wrangler.toml's compatibility
 * settings and vars, so they cannot drift from the gateway's.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { gzipSync } from "node:zlib";
import { unstable_readConfig } from "wrangler";
import { BENCH_DIR, BUILD_DIR, PLAN, ROOT, WRANGLER_BIN } from "./config.mjs";

/** Children still running, so an interrupted bench can end them. */
export const children = new Set();

function wrangler(args, label) {
  return new Promise((resolve, reject) => {
    // process.execPath: the project's node 24, whatever `node` is on PATH.
    const child = spawn(process.execPath, [WRANGLER_BIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1", FORCE_COLOR: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.add(child);
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const timer = setTimeout(() => child.kill("SIGTERM"), 120_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      children.delete(child);
      if (code === 0) resolve(out);
      else reject(new Error(`wrangler ${label} failed (exit ${code}):\n${out}`));
    });
  });
}

/** The worker module wrangler wrote for `main` (name.ts -> name.js). */
function mainModule(outdir, main) {
  const file = join(outdir, `${basename(main).replace(/\.[cm]?[jt]sx?$/, "")}.js`);
  statSync(file);
  return file;
}

/** Everything a deploy would upload: the modules, not the source map or README. */
function uploadedBytes(outdir) {
  let raw = 0;
  let gzip = 0;
  for (const name of readdirSync(outdir)) {
    if (name.endsWith(".map") || name === "README.md" || name.endsWith(".json")) continue;
    const bytes = readFileSync(join(outdir, name));
    raw += bytes.length;
    // zlib's default level, as wrangler uses for the "gzip:" figure it prints.
    gzip += gzipSync(bytes).length;
  }
  return { raw, gzip };
}

/** Writes a wrangler config for a bench-only worker that shares the gateway's compatibility settings. */
function benchConfig(name, main, extra, base) {
  const dir = join(BUILD_DIR, name);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "wrangler.json");
  const config = {
    name,
    main: relative(dir, join(BENCH_DIR, "workers", main)),
    compatibility_date: base.compatibility_date,
    compatibility_flags: base.compatibility_flags,
    workers_dev: false,
    vars: base.vars,
    ...extra,
  };
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`);
  return path;
}

export const SANDBOX_SCRIPT = "bench-sandbox";
export const BARE_PROXY_SCRIPT = "bench-bare-proxy";

/**
 * Builds the three targets, the production bundle and the traced gateway
 * (`only`: just those keys). Returns, per build, the wrangler config the
 * runtime reads bindings from and the bundled module.
 */
export async function buildAll({ only } = {}) {
  rmSync(BUILD_DIR, { recursive: true, force: true });
  mkdirSync(BUILD_DIR, { recursive: true });
  const base = unstable_readConfig({ config: join(ROOT, "wrangler.toml"), env: "dev" }, { hideWarnings: true });

  const sandboxConfig = benchConfig(
    SANDBOX_SCRIPT,
    "sandbox-direct.ts",
    {
      durable_objects: { bindings: [{ name: "SANDBOX", class_name: "SandboxObject" }] },
      migrations: [{ tag: "v1", new_sqlite_classes: ["SandboxObject"] }],
    },
    base,
  );
  const proxyConfig = benchConfig(
    BARE_PROXY_SCRIPT,
    "bare-proxy.ts",
    { services: [{ binding: "UPSTREAM", service: SANDBOX_SCRIPT, entrypoint: "SandboxUpstream" }] },
    base,
  );

  const jobs = {
    gateway: { config: join(ROOT, "wrangler.toml"), env: "dev", name: base.name, main: base.main },
    sandbox: { config: sandboxConfig, env: undefined, name: SANDBOX_SCRIPT, main: "sandbox-direct.ts" },
    bareProxy: { config: proxyConfig, env: undefined, name: BARE_PROXY_SCRIPT, main: "bare-proxy.ts" },
    production: { config: join(ROOT, "wrangler.toml"), env: "production", name: base.name, main: "index.ts" },
    // The gateway of `gateway` with its bindings wrapped: the round-trip counts and the @platform rows.
    traced: {
      config: join(ROOT, "wrangler.toml"),
      env: "dev",
      name: base.name,
      main: "traced-gateway.ts",
      script: join(BENCH_DIR, "workers", "traced-gateway.ts"),
    },
  };

  const built = {};
  const started = performance.now();
  // Two at a time: the machine has two cores. The quick run starts them all at once: much of a build is wrangler
  // starting up and waiting, and it measures nothing while it builds.
  const entries = Object.entries(jobs).filter(([key]) => !only || only.includes(key));
  const atOnce = PLAN.quick ? entries.length : 2;
  for (let i = 0; i < entries.length; i += atOnce) {
    await Promise.all(
      entries.slice(i, i + atOnce).map(async ([key, job]) => {
        const outdir = join(BUILD_DIR, "out", key);
        // `script`: another entry than the config's main, with the config's bindings.
        const args = ["deploy", ...(job.script ? [job.script] : []), "--dry-run", "--outdir", outdir, "--config", job.config];
        if (job.env !== undefined) args.push(`--env=${job.env}`);
        if (key === "production") args.push("--metafile", join(BUILD_DIR, "production-meta.json"));
        const log = await wrangler(args, key);
        built[key] = { ...job, outdir, module: mainModule(outdir, job.main), log };
      }),
    );
  }
  return { built, seconds: (performance.now() - started) / 1000 };
}

/**
 * The production bundle's size, and what it is made of: bytes in the output
 * per package (from esbuild's metafile), so a miss on the size target says
 * where to cut. Also a minified build, to show what `minify = true` would buy.
 */
export async function bundleReport(production) {
  const size = uploadedBytes(production.outdir);
  const reported = /Total Upload:\s*([\d.]+) KiB \/ gzip:\s*([\d.]+) KiB/.exec(production.log);

  const meta = JSON.parse(readFileSync(join(BUILD_DIR, "production-meta.json"), "utf8"));
  const output = Object.values(meta.outputs).find((o) => Object.keys(o.inputs ?? {}).length > 0);
  const byPackage = {};
  for (const [file, info] of Object.entries(output?.inputs ?? {})) {
    const at = file.lastIndexOf("node_modules/");
    let key = "src (the gateway)";
    if (at >= 0) {
      const parts = file.slice(at + "node_modules/".length).split("/");
      key = parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0];
    } else if (!file.startsWith("src/")) {
      key = "other (wrangler shims)";
    }
    byPackage[key] = (byPackage[key] ?? 0) + info.bytesInOutput;
  }
  const composition = Object.entries(byPackage)
    .sort((a, b) => b[1] - a[1])
    .map(([name, bytes]) => ({ name, bytes, share: Math.round((bytes / size.raw) * 1000) / 10 }));

  // Who pulls in the biggest package: the import chain is the fix's address.
  const biggest = composition[0]?.name;
  const importedBy = [];
  if (biggest) {
    for (const [file, info] of Object.entries(meta.inputs)) {
      if (file.includes(`node_modules/${biggest}/`)) continue;
      for (const imp of info.imports ?? []) {
        if (imp.path.includes(`node_modules/${biggest}/`) || imp.path === biggest || imp.path.startsWith(`${biggest}/`)) {
          importedBy.push({ from: file, import: imp.path, kind: imp.kind });
        }
      }
    }
  }

  // What `minify = true` would buy, a build of its own: the quick run, whose numbers are not kept, skips it.
  let minified = null;
  if (!PLAN.quick) {
    const minDir = join(BUILD_DIR, "out", "production-minified");
    await wrangler(["deploy", "--dry-run", "--minify", "--outdir", minDir, "--config", production.config, "--env=production"], "production --minify");
    minified = uploadedBytes(minDir);
  }

  return {
    command: "wrangler deploy --dry-run --env production --outdir <tmp>",
    rawBytes: size.raw,
    gzipBytes: size.gzip,
    gzipKiB: Math.round((size.gzip / 1024) * 100) / 100,
    wranglerReported: reported ? { rawKiB: Number(reported[1]), gzipKiB: Number(reported[2]) } : null,
    minified: minified && { rawBytes: minified.raw, gzipBytes: minified.gzip, gzipKiB: Math.round((minified.gzip / 1024) * 100) / 100 },
    composition,
    biggestImportedBy: importedBy,
  };
}
