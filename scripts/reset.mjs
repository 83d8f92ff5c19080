#!/usr/bin/env node
// `npm run reset`: start over. Removes the local state `npm run dev` keeps
// (.wrangler/state: the D1 tid index and event log, every receipt's and the
// sandbox's Durable Object storage, the queue and the rate limits), so the
// next `npm run dev` applies the D1 migrations to an empty database. Refuses
// while this checkout's dev server runs: workerd holds those files open, and
// deleting them under it leaves it serving state that is no longer on disk.
import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = realpathSync(join(dirname(fileURLToPath(import.meta.url)), ".."));
// wrangler's default persistence directory; scripts/dev.mjs does not move it.
const state = join(root, ".wrangler", "state");
const port = process.env.PORT ?? "8787";

/**
 * This checkout's `wrangler dev` processes that use the default state (Linux:
 * /proc; elsewhere null, unknown). One started with --persist-to elsewhere
 * (`npm run walkthrough` does) keeps its state out of .wrangler/state.
 */
function devServersHere() {
  if (!existsSync("/proc/self/cmdline")) return null;
  const found = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      if (readlinkSync(`/proc/${pid}/cwd`) !== root) continue;
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      if (argv.some((arg) => /wrangler/.test(arg)) && argv.includes("dev") && !argv.some((arg) => arg.startsWith("--persist-to"))) {
        found.push(pid);
      }
    } catch {
      // Gone meanwhile, or another user's: not ours.
    }
  }
  return found;
}

/** Whether something answers GET /healthz on PORT as the gateway does. */
async function gatewayOnPort() {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1000) });
    return response.ok && (await response.json())?.ok === true;
  } catch {
    return false;
  }
}

const servers = devServersHere();
const onPort = await gatewayOnPort();
if (servers?.length || (servers === null && onPort)) {
  const which = servers?.length
    ? `\`npm run dev\` is running from this checkout (process ${servers.join(", ")})`
    : `a gateway answers on http://127.0.0.1:${port}`;
  console.error(`Not resetting: ${which}. Stop it first (Ctrl-C in its terminal), then run \`npm run reset\` again.`);
  process.exit(1);
}
if (onPort) console.log(`(The gateway on http://127.0.0.1:${port} is not run from this checkout: its state is elsewhere, untouched.)`);

if (!existsSync(state)) {
  console.log(`Nothing to reset: there is no local state in ${relative(root, state)}/.`);
} else {
  rmSync(state, { recursive: true, force: true });
  console.log(
    `Removed ${relative(root, state)}/: every local receipt, transfer, tid, event and sandbox record is gone.\n` +
      "The next `npm run dev` applies the D1 migrations again and starts empty.",
  );
}
