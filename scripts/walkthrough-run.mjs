#!/usr/bin/env node
// `npm run walkthrough`: the README walk-through in one command, as CI runs it.
// Starts `npm run dev` on a free port with its own empty state (a temporary
// --persist-to directory, so neither a dev server already running here nor
// your local receipts are touched), waits for GET /healthz, runs
// scripts/walkthrough.sh against it, and always stops the dev server and
// everything it started. Exits with the walk-through's status.
import { spawn } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const READY_WITHIN_MS = 90_000; // a cold start on 2 busy cores takes 20-40 s
const WALKTHROUGH_WITHIN_MS = 180_000;
const STOP_WITHIN_MS = 10_000;

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const work = mkdtempSync(join(tmpdir(), "walkthrough-"));
const persist = join(work, "state");
const logFile = join(work, "dev.log");
const port = String(await freePort());
let dev;

const exited = (child) => new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", resolve)));

/** Stops the dev server's whole process group (npm, dev.mjs, wrangler, workerd), politely first. */
async function stopDev() {
  if (!dev || dev.exitCode !== null || dev.signalCode !== null) return;
  const group = (signal) => {
    try {
      process.kill(-dev.pid, signal);
    } catch {
      // Already gone.
    }
  };
  group("SIGTERM");
  const stopped = await Promise.race([exited(dev).then(() => true), new Promise((resolve) => setTimeout(resolve, STOP_WITHIN_MS, false))]);
  // Whatever is left of the group (workerd outliving wrangler): killed, not left behind.
  group("SIGKILL");
  if (!stopped) await exited(dev);
}

function devLogTail() {
  try {
    return readFileSync(logFile, "utf8").split("\n").slice(-40).join("\n");
  } catch {
    return "(no log)";
  }
}

let finishing = false;
async function finish(code, message) {
  if (finishing) return new Promise(() => {});
  finishing = true;
  await stopDev();
  if (message) console.error(`\nwalkthrough: ${message}`);
  if (code !== 0) console.error(`\nThe last lines of \`npm run dev\`:\n${devLogTail()}`);
  rmSync(work, { recursive: true, force: true });
  process.exit(code);
}

for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => finish(signal === "SIGINT" ? 130 : 143, `stopped by ${signal}`));

// The temporary state starts empty: `npm run dev -- --persist-to` applies the D1 migrations to it first.
console.log(`walkthrough: starting \`npm run dev\` on http://127.0.0.1:${port} (log: ${logFile})`);
const log = openSync(logFile, "a");
// detached: a process group of its own, so stopDev reaches every process it starts.
dev = spawn("npm", ["run", "dev", "--", "--persist-to", persist], {
  cwd: root,
  env: { ...process.env, PORT: port },
  detached: true,
  stdio: ["ignore", log, log],
});
dev.once("error", (err) => finish(1, `could not start npm run dev: ${err.message}`));

const deadline = Date.now() + READY_WITHIN_MS;
for (;;) {
  if (dev.exitCode !== null || dev.signalCode !== null)
    await finish(1, `npm run dev exited (${dev.exitCode ?? dev.signalCode}) before it answered /healthz`);
  try {
    const response = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) });
    if (response.ok) break;
  } catch {
    // Not listening yet.
  }
  if (Date.now() > deadline) await finish(1, `no answer from http://127.0.0.1:${port}/healthz within ${READY_WITHIN_MS / 1000} s`);
  await new Promise((resolve) => setTimeout(resolve, 500));
}

const walk = spawn("bash", [join(root, "scripts", "walkthrough.sh")], { cwd: root, env: { ...process.env, PORT: port }, stdio: "inherit" });
const timer = setTimeout(() => {
  walk.kill("SIGTERM");
  finish(1, `scripts/walkthrough.sh did not finish within ${WALKTHROUGH_WITHIN_MS / 1000} s`);
}, WALKTHROUGH_WITHIN_MS);
const [code, signal] = await new Promise((resolve) => walk.once("exit", (...result) => resolve(result)));
clearTimeout(timer);
await finish(code ?? 1, code === 0 ? null : `scripts/walkthrough.sh failed (${code ?? signal})`);
