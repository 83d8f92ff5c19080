#!/usr/bin/env node
/**
 * Prints a development JWT for a user: `npm run token -- <user>`.
 *
 * HS256 with the JWT_SECRET the local gateway verifies with (.dev.vars when it
 * exists, else .dev.vars.example), `sub` = the user, valid for one hour, with
 * JWT_ISSUER / JWT_AUDIENCE when those are set. Only a development deployment
 * accepts it: production verifies users' JWTs against the identity
 * provider's JWKS and refuses to run with a JWT_SECRET at all.
 *
 *   TOKEN=$(npm run --silent token -- alice)
 *   curl -H "Authorization: Bearer $TOKEN" ...
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseEnv } from "node:util";
import { SignJWT } from "jose";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const user = process.argv[2];
if (!user || user.startsWith("-")) {
  console.error("usage: npm run token -- <user>   (prints a development JWT whose sub is <user>)");
  process.exit(2);
}

const varsFile = [".dev.vars", ".dev.vars.example"].map((name) => join(root, name)).find((path) => existsSync(path));
const vars = varsFile ? parseEnv(readFileSync(varsFile, "utf8")) : {};
if (!vars.JWT_SECRET) {
  console.error(`No JWT_SECRET in ${varsFile ?? ".dev.vars or .dev.vars.example"}: the gateway would not accept a development token.`);
  process.exit(1);
}

// Issuer and audience come from wrangler.toml's [env.dev.vars] unless the vars file overrides them.
const toml = /^\[env\.dev\.vars\]$([\s\S]*?)(?=^\[)/m.exec(readFileSync(join(root, "wrangler.toml"), "utf8"))?.[1] ?? "";
const tomlVar = (name) => new RegExp(`^${name}\\s*=\\s*"([^"]*)"`, "m").exec(toml)?.[1] ?? "";
const issuer = vars.JWT_ISSUER ?? tomlVar("JWT_ISSUER");
const audience = vars.JWT_AUDIENCE ?? tomlVar("JWT_AUDIENCE");

let jwt = new SignJWT({}).setProtectedHeader({ alg: "HS256", typ: "JWT" }).setSubject(user).setIssuedAt().setExpirationTime("1h");
if (issuer) jwt = jwt.setIssuer(issuer);
if (audience) jwt = jwt.setAudience(audience);
console.log(await jwt.sign(new TextEncoder().encode(vars.JWT_SECRET)));
