/**
 * The sandbox console's pages: plain HTML rendered on the server, inline CSS,
 * no script, nothing loaded from anywhere else. Every value goes through
 * hono/html's `html` tag, which escapes it: owners (a JWT's sub) and stored
 * strings are whatever callers sent. Functions of their data and of `now`,
 * so the tests need no clock.
 */
import { html, raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { EventRow } from "../events";
import type { AuditEntry } from "../record/receipt-object";
import { type KindName, STATE } from "../rules/lifecycle";
import type { SandboxCall } from "../sandbox/answers";
import type { RecordSummary, RecordView } from "./data";

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

export const CONSOLE_PATH = "/__sandbox/";

const STATE_NAMES: Record<number, string> = {
  [STATE.created]: "created",
  [STATE.paid]: "paid",
  [STATE.held]: "held",
  [STATE.cancelled]: "cancelled",
  [STATE.awaitingSupplier]: "awaiting supplier",
};

/** The path segment of each kind, as the JSON views (/__sandbox/receipts/{id}, /__sandbox/a2c/{id}) spell it. */
export const KIND_SEGMENTS: Record<KindName, string> = { receipt: "receipts", transfer: "a2c" };

export const recordPath = (kind: KindName, id: string): string => `${CONSOLE_PATH}${KIND_SEGMENTS[kind]}/${encodeURIComponent(id)}/view`;
export const resendPath = (eventId: string): string => `${CONSOLE_PATH}events/${encodeURIComponent(eventId)}/resend`;

const STYLE = `
  :root { color-scheme: light dark; --muted: #6b7280; --line: #d1d5db; --ok: #15803d; --warn: #b45309; --bad: #b91c1c; }
  body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5rem auto; max-width: 80rem; padding: 0 1rem; }
  header { display: flex; align-items: baseline; gap: 1rem; flex-wrap: wrap; border-bottom: 1px solid var(--line); margin-bottom: 1rem; }
  header h1 { font-size: 1.25rem; margin: .5rem 0; }
  header nav a { margin-right: .75rem; }
  .muted, small { color: var(--muted); }
  table { border-collapse: collapse; width: 100%; margin: .5rem 0 1.5rem; }
  th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
  th { font-weight: 600; white-space: nowrap; }
  td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
  code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; }
  pre { background: rgba(127,127,127,.1); padding: .75rem; overflow: auto; max-height: 30rem; }
  .tag { display: inline-block; padding: 0 .4rem; border-radius: .6rem; font-size: 12px; border: 1px solid currentColor; }
  .s-paid, .d-delivered, .ok { color: var(--ok); } .s-cancelled, .d-failed, .bad { color: var(--bad); }
  .s-awaiting-supplier, .s-held, .d-pending, .s-unsettled { color: var(--warn); }
  .s-ahead { color: #7c3aed; }
  .src-call { color: #2563eb; } .src-event { color: #7c3aed; } .src-audit { color: #0f766e; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
  dt { font-weight: 600; } dd { margin: 0; }
  .notice { border: 1px solid var(--ok); padding: .5rem .75rem; margin: 1rem 0; }
  .empty { padding: 1rem; border: 1px dashed var(--line); }
  form.inline { display: inline; margin: 0; }
  button { font: inherit; cursor: pointer; }
`;

function page(title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${title} · sandbox console</title>
    <link rel="icon" href="data:," />
    <style>${raw(STYLE)}</style>
  </head>
  <body>
    <header>
      <h1>Sandbox console</h1>
      <span class="muted">local development only: the gateway's records, as it stores them</span>
      <nav><a href="${CONSOLE_PATH}">Latest records</a><a href="/__sandbox/calls">Upstream calls (JSON)</a><a href="/docs">API reference</a></nav>
    </header>
    ${body}
  </body>
</html>`;
}

export function stateName(state: number | null): string {
  if (state === null) return "unknown";
  return STATE_NAMES[state] ?? "unknown";
}

function stateTag(state: number | null): Html {
  const name = stateName(state);
  return html`<span class="tag s-${name.replace(/ /g, "-")}">${state ?? "?"} ${name}</span>`;
}

/** "12 s", "4 min", "3 h", "2 d". */
export function age(since: number, now: number): string {
  const s = Math.max(0, Math.floor((now - since) / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86_400)} d`;
}

const time = (ms: number | null): string => (ms === null ? "" : new Date(ms).toISOString().replace("T", " ").replace("Z", " UTC"));

/** Tiyin as sum, with the tiyin the API speaks in beside it. */
function amount(tiyin: number | null): Html {
  if (tiyin === null) return html`<span class="muted">—</span>`;
  const sum = (tiyin / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return html`${sum} <small>sum (${tiyin} tiyin)</small>`;
}

/** How far a record's own time runs ahead of the deployment's (the test clock): "+25 h", or "now" when never advanced. */
function ahead(ms: number | null): Html {
  if (ms === null) return html`<span class="muted">—</span>`;
  return ms === 0 ? html`<span class="muted">now</span>` : html`<span class="tag s-ahead">+${age(0, ms)}</span>`;
}

/** The test clock's and the triggers' forms for one record (src/console/test-clock.ts), posted here and sent back to this page. */
function clockControls(view: RecordView): Html {
  const base = `/__sandbox/${KIND_SEGMENTS[view.kind]}/${encodeURIComponent(view.id)}`;
  const triggers = ["pay_late", "supplier_confirms", "supplier_fails", "fiscal_data_appears", "refund_fiscal_data_appears"];
  return html`<form method="post" action="${base}/advance" class="inline">
      <label>advance by <input name="by" value="25h" size="6" pattern="[1-9][0-9]{0,5}[smhd]" title="90s, 10m, 25h, 8d" required /></label>
      <button type="submit">Advance</button>
    </form>
    ${
      view.kind === "receipt"
        ? html`<form method="post" action="${base}/trigger" class="inline">
            <label>the upstream now <select name="what">${triggers.map((what) => html`<option value="${what}">${what}</option>`)}</select></label>
            <button type="submit">Trigger</button>
          </form>`
        : ""
    }`;
}

// --- the list ---------------------------------------------------------------------

export function listPage(records: readonly RecordSummary[], now: number, limit: number): Html {
  const body =
    records.length === 0
      ? html`<p class="empty">No receipts yet — run the README's walk-through ("A payment, step by step") against this gateway, then reload.</p>`
      : html`<table>
          <thead><tr><th>id</th><th>kind</th><th>owner</th><th>tid</th><th>state</th><th class="num">amount</th><th class="num">age</th><th class="num">own time</th></tr></thead>
          <tbody>
            ${records.map(
              (r) => html`<tr>
                <td class="mono">${r.id === null ? html`<span class="muted">create not settled</span>` : html`<a href="${recordPath(r.kind, r.id)}">${r.id}</a>`}</td>
                <td>${r.kind}</td>
                <td>${r.owner}</td>
                <td class="mono">${r.tid}</td>
                <td>${r.id === null ? html`<span class="tag s-unsettled">pending</span>` : stateTag(r.state)}</td>
                <td class="num">${amount(r.amount)}</td>
                <td class="num" title="${time(r.createdAt)}">${age(r.createdAt, now)}</td>
                <td class="num">${ahead(r.aheadMs)}</td>
              </tr>`,
            )}
          </tbody>
        </table>`;
  return page(
    "Latest records",
    html`<h2>Latest receipts and transfers</h2>
      <p class="muted">The ${limit} newest created through this gateway, newest first. Owner and tid from the tid index; state is the one the gateway last recorded (its audit trail, or a newer event). Reload to refresh.</p>
      ${body}`,
  );
}

// --- one record ---------------------------------------------------------------------

interface TimelineEntry {
  at: number;
  /** Sorts entries of the same millisecond in the order they happen: the call, the event it caused, the audit entry closing the operation. */
  rank: number;
  source: "call" | "event" | "audit";
  what: Html;
  detail: Html;
}

function timeline(view: RecordView): TimelineEntry[] {
  const entries: TimelineEntry[] = [
    ...view.calls.map((call) => ({
      at: call.at,
      rank: 0,
      source: "call" as const,
      what: html`<code>POST ${call.path}</code>`,
      detail: html`${callOutcome(call)}${call.otp ? html` <small>(with an OTP)</small>` : ""} <small class="mono">${call.request_id ?? ""}</small>`,
    })),
    ...view.events.map((event) => ({
      at: event.created,
      rank: 1,
      source: "event" as const,
      what: html`event <code>${event.type}</code> #${event.sequence}`,
      detail: html`${deliveryTag(event)} <small class="mono">${event.id}</small>`,
    })),
    ...view.audit.map((entry) => ({
      at: entry.at,
      rank: 2,
      source: "audit" as const,
      what: html`<code>${entry.op}</code> by ${entry.actor}`,
      detail: html`${auditOutcome(entry)} → ${stateTag(entry.state)} <small class="mono">${entry.request_id}</small>`,
    })),
  ];
  return entries.sort((a, b) => a.at - b.at || a.rank - b.rank);
}

function callOutcome(call: SandboxCall): Html {
  return html`<span class="${call.status < 300 ? "ok" : "bad"}">${call.status}${call.code ? ` ${call.code}` : ""}</span>`;
}

function auditOutcome(entry: AuditEntry): Html {
  return html`<span class="${entry.outcome === "ok" ? "ok" : "bad"}">${entry.outcome}</span>`;
}

function deliveryTag(event: EventRow): Html {
  return html`<span class="tag d-${event.delivery_status}">${event.delivery_status}</span> <small>${event.attempts} attempt${event.attempts === 1 ? "" : "s"}</small>`;
}

export function recordPage(view: RecordView, now: number, resent?: string): Html {
  const noun = view.kind === "receipt" ? "Receipt" : "Transfer";
  const entries = timeline(view);
  const start = entries[0]?.at ?? 0;
  const resentEvent = resent ? view.events.find((event) => event.id === resent) : undefined;
  return page(
    `${noun} ${view.id}`,
    html`<h2>${noun} <span class="mono">${view.id}</span> ${stateTag(view.state)}</h2>
      ${resentEvent ? html`<p class="notice" role="status">Event <code>${resentEvent.id}</code> (${resentEvent.type}) is queued for delivery again.</p>` : ""}
      <dl>
        <dt>kind</dt><dd>${view.kind}</dd>
        <dt>owner</dt><dd>${view.owner}</dd>
        <dt>tid</dt><dd class="mono">${view.tid ?? html`<span class="muted">not in the tid index</span>`}</dd>
        <dt>state</dt><dd>${stateTag(view.state)}</dd>
        <dt>created</dt><dd>${view.createdAt === null ? "" : html`${time(view.createdAt)} <small>(${age(view.createdAt, now)} ago)</small>`}</dd>
        <dt id="clock">own time</dt><dd>${time(view.ownTime)} ${ahead(view.aheadMs)} <small>(the test clock: docs/testing-your-app.md)</small><br />${clockControls(view)}</dd>
        <dt>the sandbox's view</dt><dd><a href="/__sandbox/${KIND_SEGMENTS[view.kind]}/${encodeURIComponent(view.id)}">JSON</a></dd>
      </dl>

      <h3 id="timeline">Timeline</h3>
      <p class="muted">Upstream calls (the sandbox's call log), events (the event log) and the audit trail (the record's Durable Object), in time order.</p>
      <table>
        <thead><tr><th>time</th><th class="num">+s</th><th>source</th><th>what</th><th>outcome</th></tr></thead>
        <tbody>
          ${entries.map(
            (entry) => html`<tr class="timeline-${entry.source}">
              <td class="mono">${time(entry.at)}</td>
              <td class="num">${((entry.at - start) / 1000).toFixed(3)}</td>
              <td class="src-${entry.source}">${entry.source === "call" ? "upstream" : entry.source}</td>
              <td>${entry.what}</td>
              <td>${entry.detail}</td>
            </tr>`,
          )}
        </tbody>
      </table>

      <h3 id="events">Events</h3>
      ${eventsTable(view.events)}

      <h3 id="calls">Upstream calls</h3>
      ${callsTable(view.calls)}

      <h3 id="audit">Audit trail</h3>
      ${auditTable(view.audit)}

      <h3 id="record">The record, as the API last answered it</h3>
      ${
        view.latest === null
          ? html`<p class="empty">Not known yet: it comes with the record's newest logged event.</p>`
          : html`<pre>${JSON.stringify(view.latest, null, 2)}</pre>`
      }`,
  );
}

function eventsTable(events: readonly EventRow[]): Html {
  if (events.length === 0) {
    return html`<p class="empty">No events in the event log yet: the receipt logs each one moments after it happened. Reload in a moment.</p>`;
  }
  return html`<table>
    <thead><tr><th>#</th><th>type</th><th>id</th><th>created</th><th>delivery</th><th class="num">attempts</th><th>last answer</th><th>delivered</th><th></th></tr></thead>
    <tbody>
      ${events.map(
        (event) => html`<tr>
          <td class="num">${event.sequence}</td>
          <td><code>${event.type}</code></td>
          <td class="mono">${event.id}</td>
          <td class="mono">${time(event.created)}</td>
          <td><span class="tag d-${event.delivery_status}">${event.delivery_status}</span></td>
          <td class="num">${event.attempts}</td>
          <td>${event.last_status ?? ""}${event.last_error ? html` <small>${event.last_error}</small>` : ""}</td>
          <td class="mono">${time(event.delivered_at)}</td>
          <td><form class="inline" method="post" action="${resendPath(event.id)}"><button type="submit">Resend</button></form></td>
        </tr>`,
      )}
    </tbody>
  </table>`;
}

function callsTable(calls: readonly SandboxCall[]): Html {
  if (calls.length === 0) return html`<p class="empty">No upstream call names this record.</p>`;
  return html`<table>
    <thead><tr><th>#</th><th>time</th><th>call</th><th>answer</th><th>OTP</th><th>request id</th></tr></thead>
    <tbody>
      ${calls.map(
        (call) => html`<tr>
          <td class="num">${call.seq}</td>
          <td class="mono">${time(call.at)}</td>
          <td><code>POST ${call.path}</code></td>
          <td>${callOutcome(call)}</td>
          <td>${call.otp ? "sent" : ""}</td>
          <td class="mono">${call.request_id ?? ""}</td>
        </tr>`,
      )}
    </tbody>
  </table>`;
}

function auditTable(audit: readonly AuditEntry[]): Html {
  return html`<table>
    <thead><tr><th>time</th><th>operation</th><th>actor</th><th>outcome</th><th>state after</th><th>request id</th></tr></thead>
    <tbody>
      ${audit.map(
        (entry) => html`<tr>
          <td class="mono">${time(entry.at)}</td>
          <td><code>${entry.op}</code></td>
          <td>${entry.actor}</td>
          <td>${auditOutcome(entry)}</td>
          <td>${stateTag(entry.state)}</td>
          <td class="mono">${entry.request_id}</td>
        </tr>`,
      )}
    </tbody>
  </table>`;
}

/** A page for a refusal or a miss: what happened, and the way back. */
export function problemPage(title: string, message: string): Html {
  return page(title, html`<h2>${title}</h2><p>${message}</p><p><a href="${CONSOLE_PATH}">Back to the latest records</a></p>`);
}
