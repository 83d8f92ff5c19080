/**
 * The command line of an operator's script (npm run deploy, npm run restore):
 * its options parsed, or the reason and the way to its help, exit 2; and
 * `--help`, the script's own header comment, so the help and the code's
 * description are one text.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

/** `parseArgs(config)` for the script at `url` (`npm run <name>`); prints its header and exits on --help. */
export function commandLine(name, url, config) {
  let parsed;
  try {
    parsed = parseArgs(config);
  } catch (err) {
    console.error(`${err.message}\nnpm run ${name} -- --help lists the options.`);
    process.exit(2);
  }
  if (parsed.values.help) {
    console.log(
      readFileSync(fileURLToPath(url), "utf8")
        .split("*/")[0]
        .replace(/^#!.*\n\/\*\*\n/, "")
        .replace(/^ \* ?/gm, ""),
    );
    process.exit(0);
  }
  return parsed;
}
