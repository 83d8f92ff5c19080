/**
 * The event pager: events queued a page at a time. Queues bills three
 * operations (a write, a read, a delete) per message of up to 64 KB, and an
 * event is ~1 KB: one message an event paid for 64 KB each time. A record's
 * drain logs its events in D1 (src/events/publish.ts), then hands their
 * messages to a pager (`add`), which answers as soon as they are in its memory
 * (the record does not wait for the page: its own duration is billed) and
 * sends one queue message `{page: EventMessage[]}` per page: when the page
 * holds PAGE_EVENTS events, or PAGE_BYTES of them (one billing unit, under
 * the 128 KB message limit), or PAGE_WAIT_MS after its first event, whichever
 * comes first. The wait is a timer, not an alarm: an alarm is a row written.
 *
 * Nothing is stored here, on purpose: each event is in the D1 log, `pending`,
 * before it reaches a pager, so a page the pager loses (evicted, a deploy, a
 * crash, a send that fails) is one component losing a message, which the
 * sweep answers (src/events/sweep.ts): an event still pending with no attempt
 * under way is queued again once its first attempt is `staleMs` overdue. A
 * lost page costs its events that latency (docs/events.md), never an event.
 *
 * A deployment has EVENT_PAGERS of them (named `pager:0`, `pager:1`, ...); a
 * record's events always go to the same one (a hash of its record id), so a
 * drain's events travel together, in as few pages as PAGE_EVENTS and
 * PAGE_BYTES allow.
 */
import { DurableObject } from "cloudflare:workers";
import { fnv1a } from "../shared/fnv1a";
import { log } from "../shared/log";
import type { EventMessage, EventPage } from "./types";

/**
 * Events a page holds at most: a full page is sent at once. It bounds a consumer's batch (wrangler.toml's
 * max_batch_size messages, 6): at most 96 events, 16 rounds of six POSTs, each up to WEBHOOK_TIMEOUT_MS, so a
 * batch to a receiver that answers nothing still ends in under 3 minutes, inside the sweep's staleMs (5 in
 * production) and far inside a consumer's 15 minutes; and its log reads and marks stay a few statements a
 * database, inside D1's 1,000 queries an invocation. At 10M payments a day a pager's second holds ~26 events:
 * 16 costs ~$17 a month of queue operations there, nothing at 1M.
 */
export const PAGE_EVENTS = 16;
/** Bytes of its events' messages a page holds at most (1 KB = 1000 bytes): inside one 64 KB billing unit of Queues. */
export const PAGE_BYTES = 60_000;
/** How long a page waits for more events after its first: an event reaches the queue at most this much later than it would alone. */
export const PAGE_WAIT_MS = 1_000;

/** An event's share of its page's bytes: its message as the page's JSON carries it, and the comma between. */
export const pagedBytes = (message: EventMessage): number => new TextEncoder().encode(JSON.stringify(message)).length + 1;

/** EVENT_PAGERS: how many pagers a deployment has; 1 unless set to a whole number from 1 to 64 (the guard refuses others). */
export function pagerCount(env: Env): number {
  const n = Number(env.EVENT_PAGERS);
  return Number.isInteger(n) && n >= 1 && n <= 64 ? n : 1;
}

/** The pager a record's events go through: one of pagerCount, by a hash of the record id. */
export const pagerName = (recordId: string, pagers: number): string => `pager:${fnv1a(recordId) % pagers}`;

export class EventPager extends DurableObject<Env> {
  /** The page being filled. */
  #page: EventMessage[] = [];
  #bytes = 0;
  /** Sends the page PAGE_WAIT_MS after its first event (null: the page is empty). */
  #timer: ReturnType<typeof setTimeout> | null = null;

  /**
   * Takes a drain's messages into the page and answers at once: each is sent
   * within PAGE_WAIT_MS, in a page that fills up (by count or bytes) sooner.
   * An event that would take the page past PAGE_BYTES starts the next one.
   */
  async add(messages: readonly EventMessage[]): Promise<void> {
    for (const message of messages) {
      const bytes = pagedBytes(message);
      if (this.#page.length > 0 && this.#bytes + bytes > PAGE_BYTES) this.#send();
      this.#page.push(message);
      this.#bytes += bytes;
      if (this.#page.length >= PAGE_EVENTS || this.#bytes >= PAGE_BYTES) this.#send();
    }
    if (this.#page.length > 0) this.#timer ??= setTimeout(() => this.#send(), PAGE_WAIT_MS);
  }

  /** Sends the page as one queue message, and starts an empty one. A send that fails is left to the sweep. */
  #send(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const page = this.#page;
    this.#page = [];
    this.#bytes = 0;
    if (page.length === 0) return;
    const body: EventPage = { page };
    const sent = (this.env.EVENTS as Queue<EventPage>).send(body, { contentType: "json" }).catch((err: unknown) => {
      log("warn", "event_page_send_failed", {
        events: page.length,
        ids: page.map((message) => message.id).join(" "),
        error: err instanceof Error ? err.message : String(err),
      });
    });
    // The object stays in memory until the send is done, whoever's call started it.
    this.ctx.waitUntil(sent);
  }
}
