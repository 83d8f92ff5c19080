// The tests' main module (vitest.config.ts `main`): everything src/dev.ts
// exports, plus the scripted upstream the test configuration binds UPSTREAM
// to. Named re-exports, so the plugin's static look at the exports finds them.
export { AuditWriter, default, EventPager, ReceiptObject, RiskObject, SandboxObject, SandboxUpstream, StatementObject } from "../../src/dev";
export { ScriptedUpstream } from "./scripted-upstream";
