#!/usr/bin/env node
// The client as a partner installs it (client's `npm run typecheck`, so `npm
// test` and CI): `npm pack` in client/ (its prepack builds dist/ from
// nothing), publint over the tarball (any message fails, suggestions too),
// then the tarball installed offline into a throw-away project outside the
// repository, where
//   - node imports it by name and runs it (a create through a stub fetch, a
//     webhook verified and one refused),
//   - every source map it ships points at a file it ships,
//   - client/test-types/consumer.ts (its @ts-expect-error lines prove the
//     bodies are typed) and each ```ts block of client/README.md, as a
//     module of its own, typecheck against it, strict, under nodenext,
//     node16 and bundler resolution, with the repository's TypeScript.
// Prints each step's time; exits non-zero naming what failed. The temporary
// directory is removed.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { publint } from "publint";
import { formatMessage } from "publint/utils";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const CLIENT = join(ROOT, "client");
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const NAME = JSON.parse(readFileSync(join(CLIENT, "package.json"), "utf8")).name;

// npm passes its own settings to the scripts it runs (npm_config_*, the
// workspace among them): the inner npm must act on the throw-away project alone.
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) || /^npm_config_(cache|userconfig)$/i.test(key)));
env.NO_COLOR = "1";

const failures = [];
const started = performance.now();
let last = started;
function step(what) {
  const now = performance.now();
  console.log(`client pack: ${what} (${((now - last) / 1000).toFixed(1)} s)`);
  last = now;
}

function run(what, command, args, cwd) {
  const result = spawnSync(command, args, { cwd, env, encoding: "utf8", shell: process.platform === "win32" && command === "npm" });
  if (result.status !== 0)
    failures.push(`${what} failed:\n${`${result.stdout ?? ""}${result.stderr ?? ""}${result.error ?? ""}`.trim().slice(-6000)}`);
  return result.status === 0;
}

const work = mkdtempSync(join(tmpdir(), "payments-gateway-client-"));
try {
  // 1. The tarball, as `npm publish` would upload it, from a client/ without
  //    dist/ (a fresh clone's): the package must not lean on an earlier build.
  rmSync(join(CLIENT, "dist"), { recursive: true, force: true });
  const packDir = join(work, "pack");
  mkdirSync(packDir);
  if (!run("npm pack", "npm", ["pack", "--pack-destination", packDir], CLIENT)) throw new Error("stop");
  const tarball = join(packDir, readdirSync(packDir).find((name) => name.endsWith(".tgz")) ?? "none.tgz");
  step(`npm pack (prepack builds dist/): ${relative(work, tarball)}`);

  // 2. publint over exactly those files: errors, warnings and suggestions alike.
  //    (A copy: a Buffer's .buffer may be a larger pool than the file.)
  const { messages, pkg } = await publint({ pack: { tarball: new Uint8Array(readFileSync(tarball)).buffer }, level: "suggestion", strict: true });
  for (const message of messages) failures.push(`publint (${message.type}): ${formatMessage(message, pkg, { color: false })}`);
  step(`publint: ${messages.length} message(s)`);

  // 3. Installed into a project of its own, as a partner does, from the tarball alone (no registry: the client has no dependency).
  const app = join(work, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), `${JSON.stringify({ name: "partner-app", private: true, type: "module" }, null, 2)}\n`);
  if (!run("npm install of the tarball", "npm", ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball], app))
    throw new Error("stop");
  const installed = join(app, "node_modules", NAME);
  step(`npm install --offline ${relative(work, tarball)}`);

  // 4. Node imports it by name and runs it.
  const program = `
    import assert from "node:assert/strict";
    import { createHmac } from "node:crypto";
    import { createGatewayClient, isRetriedPath, verifyWebhook, WebhookVerificationError } from ${JSON.stringify(NAME)};
    const seen = [];
    const gateway = createGatewayClient({
      baseUrl: "https://gateway.test",
      token: "sk_test_partner",
      fetch: async (request) => {
        seen.push([request.url, request.headers.get("authorization"), await request.json()]);
        return Response.json({ id: "r-1", state: 0 }, { headers: { "x-request-id": "req-1" } });
      },
    });
    const created = await gateway.receipts.create({ tid: "t-1", amount: 150000, merchant_id: 1001, account: [] });
    assert.equal(created.ok, true);
    assert.deepEqual([created.data.id, created.requestId], ["r-1", "req-1"]);
    assert.deepEqual(seen, [["https://gateway.test/api/v1/partner/receipt/create", "Bearer sk_test_partner", { tid: "t-1", amount: 150000, merchant_id: 1001, account: [] }]]);
    assert.equal(isRetriedPath("/api/v1/partner/receipt/pay"), true);
    const key = Buffer.from("a-webhook-secret-of-the-partner");
    const body = JSON.stringify({ id: "evt_1", type: "receipt.paid" });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = "v1," + createHmac("sha256", key).update("evt_1." + timestamp + "." + body).digest("base64");
    const headers = { "webhook-id": "evt_1", "webhook-timestamp": timestamp, "webhook-signature": signature };
    const event = await verifyWebhook("whsec_" + key.toString("base64"), headers, body);
    assert.equal(event.type, "receipt.paid");
    await assert.rejects(verifyWebhook("whsec_" + Buffer.from("another-secret").toString("base64"), headers, body), WebhookVerificationError);
  `;
  run(`node importing ${NAME}`, process.execPath, ["--input-type=module", "-e", program], app);
  step("node imports and runs it");

  // 5. Every source map names files the package ships (a debugger, or a bundler's source-map loader, opens them).
  const maps = (existsSync(join(installed, "dist")) ? readdirSync(join(installed, "dist")) : []).filter((name) => name.endsWith(".map"));
  if (maps.length === 0) failures.push("dist/ holds no source map.");
  for (const name of maps) {
    for (const source of JSON.parse(readFileSync(join(installed, "dist", name), "utf8")).sources) {
      if (!existsSync(join(installed, "dist", source))) failures.push(`dist/${name} names ${source}, which the package does not ship.`);
    }
  }
  step(`${maps.length} source maps resolve`);

  // 6. Against the installed package, under each resolution, with client/test-types/'s
  //    settings (strict), in one run each: the consumer program, and each ts block of
  //    the README as a module of its own, as a partner pastes it.
  const readme = readFileSync(join(CLIENT, "README.md"), "utf8");
  const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => ({
    file: `readme/README.md-line-${readme.slice(0, match.index).split("\n").length}.ts`,
    code: match[1],
  }));
  if (blocks.length === 0) failures.push("client/README.md has no ```ts block.");
  mkdirSync(join(app, "readme"));
  for (const { file, code } of blocks) writeFileSync(join(app, file), code);
  cpSync(join(CLIENT, "test-types"), join(app, "test-types"), {
    recursive: true,
    filter: (path) => !path.endsWith(".ts") || path.endsWith("consumer.ts"),
  });
  for (const resolution of ["nodenext", "node16", "bundler"]) {
    const config = {
      extends: `./test-types/tsconfig.${resolution}.json`,
      // The README's webhook receiver is a Node backend's: process.env.
      compilerOptions: { types: ["node"], typeRoots: [join(ROOT, "node_modules", "@types")] },
      files: ["test-types/consumer.ts", ...blocks.map((block) => block.file)],
    };
    writeFileSync(join(app, `tsconfig.${resolution}.json`), JSON.stringify(config, null, 2));
    run(
      `tsc (client/test-types/consumer.ts, client/README.md's ts blocks) under ${resolution}`,
      process.execPath,
      [TSC, "-p", `tsconfig.${resolution}.json`],
      app,
    );
  }
  step(`client/test-types/consumer.ts and client/README.md's ${blocks.length} ts blocks typecheck under nodenext, node16 and bundler`);
} catch (err) {
  if (err.message !== "stop") failures.push(err.stack ?? String(err));
} finally {
  rmSync(work, { recursive: true, force: true });
}

if (failures.length > 0) {
  for (const failure of failures) console.error(`✗ ${failure}`);
  console.error(`client pack: ${failures.length} failure(s)`);
  process.exit(1);
}
console.log(`client pack: the packed client installs, runs and typechecks (${((performance.now() - started) / 1000).toFixed(1)} s)`);
