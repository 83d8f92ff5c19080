/**
 * What events need from a deployment: the guard refuses a production one
 * that would send events nowhere, in clear, or signed with the development
 * secret; and wrangler.toml's queues match the consumer's retry schedules,
 * which with the event sweep's thresholds keep the contract's times.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import devScript from "../../scripts/dev.mjs?raw";
import { createApp } from "../../src/app";
import { DEVELOPMENT_WEBHOOK_SECRET } from "../../src/config/config";
import { DEAD_LETTER_SUFFIX, RETRY_SCHEDULES, SWEEP_SETTINGS } from "../../src/events";
import { DELIVERY_PARALLELISM } from "../../src/events/delivery";
import { PAGE_EVENTS } from "../../src/events/pager";
import { PRODUCTION_WEBHOOK_SECRET, productionEnv } from "../events";
import { expectError, expectStatus } from "../helpers";

const health = (deployment: Env) => createApp().fetch(new Request("http://gateway.test/healthz"), deployment, createExecutionContext());

const ROTATED_IN = `whsec_${btoa("the-next-production-secret-32by")}`;

describe("the misconfiguration guard, for events", () => {
  it("a production deployment with an https WEBHOOK_URL and its own secret (or two, rotating) serves", async () => {
    await expectStatus(health(await productionEnv()), 200);
    await expectStatus(health(await productionEnv({ WEBHOOK_SECRET: `${PRODUCTION_WEBHOOK_SECRET} ${ROTATED_IN}` })), 200);
  });

  const problems: [string, Record<string, unknown>, string][] = [
    ["has no WEBHOOK_URL", { WEBHOOK_URL: "" }, "WEBHOOK_URL is not set"],
    ["sends events over plain http", { WEBHOOK_URL: "http://hooks.partner.test/payments" }, "WEBHOOK_URL must be an https URL"],
    [
      "kept the placeholder WEBHOOK_URL",
      { WEBHOOK_URL: "https://webhooks.partner.example.invalid/payments-gateway" },
      "WEBHOOK_URL is still the placeholder",
    ],
    ["has a WEBHOOK_URL that is not a URL", { WEBHOOK_URL: "hooks.partner.test" }, "WEBHOOK_URL is not a URL"],
    ["has no WEBHOOK_SECRET", { WEBHOOK_SECRET: undefined }, "WEBHOOK_SECRET is not set"],
    ["signs with the development secret", { WEBHOOK_SECRET: DEVELOPMENT_WEBHOOK_SECRET }, "WEBHOOK_SECRET holds the development secret"],
    [
      "keeps the development secret beside its own",
      { WEBHOOK_SECRET: `${PRODUCTION_WEBHOOK_SECRET} ${DEVELOPMENT_WEBHOOK_SECRET}` },
      "WEBHOOK_SECRET holds the development secret",
    ],
    ["has a secret that is not whsec_<base64>", { WEBHOOK_SECRET: "a-plain-production-secret" }, "WEBHOOK_SECRET is not of the form whsec_<base64>"],
    [
      "has a rotated-in secret that is not whsec_<base64>",
      { WEBHOOK_SECRET: `${PRODUCTION_WEBHOOK_SECRET} whsec_not-base64!` },
      "WEBHOOK_SECRET entry 2 is not of the form whsec_<base64>",
    ],
    ["has a secret of a few bytes", { WEBHOOK_SECRET: `whsec_${btoa("short")}` }, "WEBHOOK_SECRET encodes fewer than 24 bytes"],
    ["lacks the events queue binding", { EVENTS: undefined }, "The queue binding EVENTS is missing"],
  ];

  it.each(problems)("a production deployment that %s answers 503 naming it, never the secret", async (_name, overrides, named) => {
    const error = await expectError(health(await productionEnv(overrides)), 503, "service_misconfigured");
    expect(error.message).toContain(named);
    for (const secret of [PRODUCTION_WEBHOOK_SECRET, DEVELOPMENT_WEBHOOK_SECRET, "a-plain-production-secret", "not-base64!"]) {
      expect(error.message).not.toContain(secret);
      expect(error.message).not.toContain(secret.replace(/^whsec_/, ""));
    }
  });

  it("development may use the local http receiver and the development secret, but not a malformed one or no queue", async () => {
    await expectStatus(health(env), 200);
    const malformed = await expectError(
      health({ ...env, WEBHOOK_SECRET: "local-dev-webhook-secret" } as unknown as Env),
      503,
      "service_misconfigured",
    );
    expect(malformed.message).toContain("WEBHOOK_SECRET is not of the form whsec_<base64>");
    expect(malformed.message).not.toContain("local-dev-webhook-secret");
    const noQueue = await expectError(health({ ...env, EVENTS: undefined } as unknown as Env), 503, "service_misconfigured");
    expect(noQueue.message).toContain("The queue binding EVENTS is missing");
  });
});

describe("wrangler.toml's queues", () => {
  const environments = [
    ["development", RETRY_SCHEDULES.development],
    ["production", RETRY_SCHEDULES.production],
  ] as const;

  it("production's consumer delivers 400 events/s (the peak at 1,000,000 creates a day) to a receiver that takes 200 ms, within the Queues maximum of 250 invocations", () => {
    const queues = env.TEST_WRANGLER_QUEUES.production;
    const consumer = queues.consumers.find((c) => c.queue === queues.producers.find((p) => p.binding === "EVENTS")!.queue)!;
    const receiverSeconds = 0.2;
    // Each invocation: its batch in rounds of DELIVERY_PARALLELISM POSTs, each round a POST and a log write (D1, ~30 ms).
    const rounds = Math.ceil(consumer.max_batch_size! / DELIVERY_PARALLELISM);
    const perInvocation = consumer.max_batch_size! / (rounds * (receiverSeconds + 0.03) + 0.03);
    expect(consumer.max_concurrency! * perInvocation).toBeGreaterThanOrEqual(400);
    expect(consumer.max_concurrency!).toBeLessThanOrEqual(250);
  });

  it("production's consumer ends a batch of full pages to a receiver that answers nothing before the sweep would send them again", () => {
    const queues = env.TEST_WRANGLER_QUEUES.production;
    const consumer = queues.consumers.find((c) => c.queue === queues.producers.find((p) => p.binding === "EVENTS")!.queue)!;
    // Every POST of the batch waits WEBHOOK_TIMEOUT_MS (production's 10 s), six at a time.
    const rounds = Math.ceil((consumer.max_batch_size! * PAGE_EVENTS) / DELIVERY_PARALLELISM);
    expect(rounds * 10_000).toBeLessThan(SWEEP_SETTINGS.production.staleMs);
    // Its read of the log binds every event id of the batch in one statement (log-database.ts eventStatuses), and
    // D1 binds at most 100 (the local database takes more, so only this holds it).
    expect(consumer.max_batch_size! * PAGE_EVENTS).toBeLessThanOrEqual(100);
    // And the dead letters' batch: its events' log reads and marks, a few statements a database each.
    const deadLetters = queues.consumers.find((c) => c.queue === consumer.dead_letter_queue)!;
    expect(deadLetters.max_batch_size! * PAGE_EVENTS).toBeLessThanOrEqual(100);
  });

  it.each(environments)(
    "%s: EVENTS feeds a consumer whose max_retries is the retry schedule's length, then a dead-letter queue with its own consumer",
    (name, schedule) => {
      const queues = env.TEST_WRANGLER_QUEUES[name];
      const producer = queues.producers.find((p) => p.binding === "EVENTS");
      expect(producer, "an EVENTS producer").toBeTruthy();
      const consumer = queues.consumers.find((c) => c.queue === producer!.queue);
      expect(consumer, "a consumer of the events queue").toBeTruthy();
      expect(consumer!.max_retries).toBe(schedule.length);
      expect(consumer!.retry_delay).toBe(schedule[0]);
      expect(consumer!.max_batch_size).toBeLessThanOrEqual(100);
      expect(consumer!.max_batch_timeout).toBeLessThanOrEqual(60);
      expect(consumer!.dead_letter_queue).toBe(`${producer!.queue}${DEAD_LETTER_SUFFIX}`);
      const deadLetters = queues.consumers.find((c) => c.queue === consumer!.dead_letter_queue);
      expect(deadLetters, "a consumer of the dead-letter queue").toBeTruthy();
      expect(deadLetters!.dead_letter_queue).toBeUndefined();
      expect(queues.consumers).toHaveLength(2);
    },
  );

  it("the schedules: production retries for more than 24 hours, development's first three retries come within 15 s", () => {
    const sum = (delays: readonly number[]) => delays.reduce((a, b) => a + b, 0);
    expect(sum(RETRY_SCHEDULES.production)).toBeGreaterThanOrEqual(24 * 3600);
    expect(Math.max(...RETRY_SCHEDULES.production)).toBeLessThanOrEqual(24 * 3600);
    expect(sum(RETRY_SCHEDULES.development.slice(0, 3))).toBeLessThanOrEqual(15);
    for (const schedule of [RETRY_SCHEDULES.production, RETRY_SCHEDULES.development]) {
      for (let i = 1; i < schedule.length; i++) expect(schedule[i]).toBeGreaterThanOrEqual(schedule[i - 1]!);
    }
  });
});

describe("the contract's times, computed from the schedules, the queues and the sweep", () => {
  const sum = (delays: readonly number[]) => delays.reduce((a, b) => a + b, 0);
  /** The contract's "a 2xx within 10 s": the longest one attempt may take. */
  const ATTEMPT_S = 10;
  /**
   * What the queue adds before each delivery: its batch timeout, and a second
   * for the runtime (delays of 1, 3, 9, 27 and 81 s were measured as 2, 4,
   * 10, 28 and 82 s locally: one second each).
   */
  const latency = (name: "development" | "production", queue: "events" | "dead letters" = "events") => {
    const queues = env.TEST_WRANGLER_QUEUES[name];
    const events = queues.consumers.find((c) => c.queue === queues.producers.find((p) => p.binding === "EVENTS")!.queue)!;
    const consumer = queue === "events" ? events : queues.consumers.find((c) => c.queue === events.dead_letter_queue)!;
    return (consumer.max_batch_timeout ?? 5) + 1;
  };
  /** The longest a round of delivery lasts through the queue alone: every attempt fails as slowly as it may, then the dead letter. */
  const longestRound = (name: "development" | "production") =>
    sum(RETRY_SCHEDULES[name]) + (RETRY_SCHEDULES[name].length + 1) * (ATTEMPT_S + latency(name)) + latency(name, "dead letters");
  /** How often the sweep runs: wrangler.toml's cron (every minute) in production, scripts/dev.mjs's tick in development. */
  const devTick = Number(/const CRON_TICK_SECONDS = (\d+);/.exec(devScript)?.[1]);
  const tick = { development: devTick, production: 60 };

  it("development: the first three retries within 15 s of the first attempt, with the queue's latency", () => {
    const [first, second, third] = RETRY_SCHEDULES.development;
    expect(first! + second! + third! + 3 * latency("development")).toBeLessThanOrEqual(15);
  });

  it("development: failed within 3 minutes, by the dead-letter queue or, its message lost, by the sweep", () => {
    expect(devTick).toBeGreaterThan(0);
    expect(longestRound("development")).toBeLessThanOrEqual(180);
    expect(SWEEP_SETTINGS.development.horizonMs / 1000 + tick.development).toBeLessThanOrEqual(180);
  });

  it("production: retried for at least 24 hours; the sweep fails an event only after the queue's retries are over", () => {
    expect(sum(RETRY_SCHEDULES.production)).toBeGreaterThanOrEqual(24 * 3600);
    for (const name of ["development", "production"] as const) {
      expect(SWEEP_SETTINGS[name].horizonMs / 1000, name).toBeGreaterThanOrEqual(longestRound(name));
    }
  });

  it("an event whose attempt is overdue is sent again within a few minutes (development: one), never while an attempt may be under way", () => {
    expect(SWEEP_SETTINGS.development.staleMs / 1000 + tick.development).toBeLessThanOrEqual(60);
    expect(SWEEP_SETTINGS.production.staleMs / 1000 + tick.production).toBeLessThanOrEqual(10 * 60);
    for (const name of ["development", "production"] as const) {
      expect(SWEEP_SETTINGS[name].staleMs / 1000, name).toBeGreaterThanOrEqual(ATTEMPT_S + latency(name));
    }
  });
});
