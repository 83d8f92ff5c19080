// A setup file (vitest.config.ts): after every test in every file, the
// scripted upstream forgets its rules and lets held requests go, so a fault
// scripted by one test can never reach the next.
import { afterEach } from "vitest";
import { scriptedUpstream } from "./scripted-upstream";

afterEach(() => scriptedUpstream.reset());
