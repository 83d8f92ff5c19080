// What `npm run dev`'s own arguments mean for the steps before `wrangler dev`
// (scripts/dev.mjs). `--persist-to DIR` moves the dev server's local state
// (D1, Durable Objects, queues) to DIR, so the D1 migrations must be applied
// there too: applied to the default state instead, DIR's databases have no
// tables and every create fails.

const FLAGS = ["--persist-to", "--persistTo"];

/** The directory `--persist-to DIR` (or `--persist-to=DIR`) names, the last one given; undefined when none. */
export function persistToOf(argv) {
  let dir;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (FLAGS.includes(arg) && i + 1 < argv.length) dir = argv[++i];
    else {
      const flag = FLAGS.find((name) => arg.startsWith(`${name}=`));
      if (flag) dir = arg.slice(flag.length + 1);
    }
  }
  return dir;
}

/** `wrangler d1 migrations apply` for one binding of [env.dev], into the state `wrangler dev` will get from the same argv. */
export function migrationsApplyArgs(binding, argv) {
  const dir = persistToOf(argv);
  return ["d1", "migrations", "apply", binding, "--local", "--env", "dev", ...(dir === undefined ? [] : ["--persist-to", dir])];
}
