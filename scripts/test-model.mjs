#!/usr/bin/env node
/**
 * Runs the model-based test (test/integration/model.test.ts) longer than `npm test` does:
 *
 *   npm run test:model -- --runs 200 [--steps 25] [--seed 42 | --seed random] [--verbose]
 *
 * vitest's CLI takes no flags of a test's own, so this passes them on as
 * MODEL_RUNS / MODEL_STEPS / MODEL_SEED (and MODEL_VERBOSE: print every run's
 * steps) in the environment; vitest.config.ts hands those to the test as
 * bindings. `--seed random` picks a seed and prints it before anything else,
 * so that a failure can be replayed. A failure prints fast-check's seed and
 * path; rerun it with `--seed <seed>` and the same `--runs` and `--steps`.
 */
import { spawn } from "node:child_process";

const usage = "usage: npm run test:model -- [--runs N] [--steps N] [--seed S | --seed random] [--verbose]";
const env = { ...process.env };
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const flag = args[i];
  const names = { "--runs": "MODEL_RUNS", "--steps": "MODEL_STEPS", "--seed": "MODEL_SEED" };
  if (flag === "--verbose") {
    env.MODEL_VERBOSE = "1";
  } else if (flag === "--seed" && args[i + 1] === "random") {
    i++;
    const seed = Math.floor(Math.random() * 2 ** 31);
    env.MODEL_SEED = String(seed);
    console.log(`model seed: ${seed} (random: replay with --seed ${seed} and the same --runs and --steps)`);
  } else if (flag in names) {
    const value = args[++i];
    if (value === undefined || !/^-?\d+$/.test(value)) {
      console.error(`${flag} needs an integer\n${usage}`);
      process.exit(2);
    }
    env[names[flag]] = value;
  } else {
    console.error(`unknown argument ${flag}\n${usage}`);
    process.exit(2);
  }
}

// --silent=false: the test prints what the runs exercised when it passes. The
// gateway's own JSON log lines, vitest's headers for them, and the runtime's
// reports of the crashes and lost connections the test scripts on purpose are
// dropped from that output to keep it short.
const noise = [
  /\{"level":/,
  /^(stdout|stderr) \| /,
  /uncaught exception.*(model test: crash|scripted upstream: connection lost)/,
  /^stack: .*workerd/,
  /^\s+at ScriptedUpstream\.fetch/,
];
// biome-ignore lint/suspicious/noControlCharactersInRegex: strips the terminal colour codes (ESC [ ... m) of a child's output
const plain = (line) => line.replace(/\x1b\[[0-9;]*m/g, "");
const child = spawn("npx", ["vitest", "run", "test/integration/model.test.ts", "--silent=false"], { env, stdio: ["inherit", "pipe", "pipe"] });
const relay = (from, to) => {
  let rest = "";
  let blank = false;
  from.on("data", (chunk) => {
    const lines = (rest + chunk).split("\n");
    rest = lines.pop() ?? "";
    for (const line of lines) {
      if (noise.some((re) => re.test(plain(line)))) continue;
      // What the dropped lines leave behind: runs of empty lines, written once.
      const empty = plain(line).trim() === "";
      if (empty && blank) continue;
      blank = empty;
      to.write(`${line}\n`);
    }
  });
  from.on("end", () => rest && to.write(rest));
};
relay(child.stdout, process.stdout);
relay(child.stderr, process.stderr);
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
