/**
 * Bench target (a): the sandbox upstream on its own, its `SandboxUpstream`
 * entrypoint served as the worker's main fetch. This is the floor every other
 * target stands on: the same routes, validation and SandboxObject the gateway
 * reaches through its UPSTREAM binding, with nothing in front.
 *
 * The bare proxy (target b) binds to this same script's named entrypoint, so
 * both see the identical sandbox.
 */
import { SandboxUpstream } from "../../src/sandbox";

export { SandboxObject, SandboxUpstream } from "../../src/sandbox";
export default SandboxUpstream;
