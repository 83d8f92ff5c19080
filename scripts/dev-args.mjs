// What `npm run dev`'s own arguments mean for the steps before `wrangler dev`
// (scripts/dev.mjs). `--persist-to DIR` moves the dev server's local state
// (D1, Durable Objects, queues) to DIR, so the D1 migrations must be applied
// there too: applied to the default state instead, DIR's databases have no
// tables and every create fails. `--port N` moves the server, and the
// cron ticks dev.mjs sends it, to port N (wrangler refuses two --port).

/** The value of the last of `flags` given (`--flag value` or `--flag=value`); undefined when none. */
function flagValue(argv, flags) {
  let value;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (flags.includes(arg) && i + 1 < argv.length) value = argv[++i];
    else {
      const flag = flags.find((name) => arg.startsWith(`${name}=`));
      if (flag) value = arg.slice(flag.length + 1);
    }
  }
  return value;
}

/** The directory `--persist-to DIR` (or `--persist-to=DIR`) names, the last one given; undefined when none. */
export const persistToOf = (argv) => flagValue(argv, ["--persist-to", "--persistTo"]);

/** The port `--port N` names, the last one given; undefined when none. */
export const portOf = (argv) => flagValue(argv, ["--port"]);

/** `wrangler d1 migrations apply` for one binding of [env.dev], into the state `wrangler dev` will get from the same argv. */
export function migrationsApplyArgs(binding, argv) {
  const dir = persistToOf(argv);
  return ["d1", "migrations", "apply", binding, "--local", "--env", "dev", ...(dir === undefined ? [] : ["--persist-to", dir])];
}
