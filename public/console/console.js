// The back office's page (docs/console.md): one script, no framework, no build
// step. Every screen is a hash route (#/find, #/record/<id>, ...) drawn from the
// gateway's console operations (POST /console/api/<name>, the Access cookie
// sent as it is). Nothing is built from HTML strings: every value a record holds
// (a tid, an answer of a receiver) reaches the page as text only. The navigation
// shows what the signed-in role may do (me.can); a screen asked for directly
// still calls its operation, so a refusal is the gateway's 403, shown as it is.

(() => {
  const screen = document.getElementById("screen");
  const title = document.getElementById("title");
  const status = document.getElementById("status");
  const who = document.getElementById("who");
  const nav = document.getElementById("nav");

  /** @type {{email: string, role: string, environment: string, can: string[]} | null} */
  let me = null;

  // ---- helpers -------------------------------------------------------------

  /** An element with attributes (on* as listeners) and children (strings become text). */
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs ?? {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
      else if (name === "class") el.className = value;
      else el.setAttribute(name, value === true ? "" : String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === undefined || child === null || child === false) continue;
      el.append(child instanceof Node ? child : String(child));
    }
    return el;
  }

  class ApiFailure extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }

  /** POST /console/api/<name>; an error answer becomes an ApiFailure with the contract's code. */
  async function api(name, body = {}) {
    let res;
    try {
      res = await fetch(`/console/api/${name}`, {
        method: "POST",
        credentials: "same-origin",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify(body),
      });
    } catch {
      throw new ApiFailure(0, "network", "The gateway did not answer. Check the connection and try again.");
    }
    let json = null;
    try {
      json = await res.json();
    } catch {}
    if (!res.ok) {
      const error = json?.error ?? {};
      throw new ApiFailure(res.status, error.code ?? "error", error.message ?? `The gateway answered ${res.status}.`);
    }
    return json ?? {};
  }

  const can = (name) => Boolean(me?.can?.includes(name));

  /** Says something to everyone, screen readers included (the status region is aria-live). */
  function say(text, kind = "info") {
    status.className = kind === "error" ? "status error" : "status";
    status.textContent = text;
  }

  function failureText(err) {
    if (err instanceof ApiFailure) {
      if (err.status === 403) return `Refused (403 ${err.code}): your role (${me?.role ?? "none"}) may not do this. ${err.message}`;
      if (err.status === 401) return `Not signed in (401 ${err.code}): sign in again. ${err.message}`;
      return `${err.status ? `${err.status} ` : ""}${err.code}: ${err.message}`;
    }
    return String(err);
  }

  /** A time as the gateway gives it (ms, s or ISO text), shown in UTC so that everyone reads the same. */
  function when(value) {
    if (value === undefined || value === null || value === "") return "";
    let ms = value;
    if (typeof value === "string" && /^\d+$/.test(value)) ms = Number(value);
    if (typeof ms === "number") ms = ms < 1e11 ? ms * 1000 : ms;
    const date = new Date(ms);
    if (Number.isNaN(date.getTime())) return String(value);
    return `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
  }

  /** Tiyin as sum, two decimals, with the tiyin themselves for an exact reading. */
  function money(tiyin) {
    if (typeof tiyin !== "number") return tiyin === undefined || tiyin === null ? "" : String(tiyin);
    return `${(tiyin / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })} UZS`;
  }

  function text(value) {
    if (value === undefined || value === null) return "";
    if (typeof value === "object") return JSON.stringify(value);
    return String(value);
  }

  /** A table from rows; each column is [heading, row => cell, class?]. An empty list says so. */
  function table(caption, columns, rows, emptyText = "None.") {
    if (!rows || rows.length === 0) return h("p", { class: "empty" }, emptyText);
    return h(
      "table",
      {},
      h("caption", {}, caption),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          columns.map(([heading, , cls]) => h("th", { scope: "col", class: cls }, heading)),
        ),
      ),
      h(
        "tbody",
        {},
        rows.map((row) =>
          h(
            "tr",
            {},
            columns.map(([, cell, cls]) => h("td", { class: cls }, cell(row))),
          ),
        ),
      ),
    );
  }

  /** A list of facts (a definition list) from [label, value] pairs, the empty ones left out. */
  function facts(pairs) {
    return h(
      "dl",
      { class: "facts" },
      pairs
        .filter(([, value]) => value !== undefined && value !== null && value !== "")
        .map(([label, value]) => [h("dt", {}, label), h("dd", {}, value)]),
    );
  }

  /** Replaces an element's children, leaving out the absent ones (replaceChildren would write "null"). */
  const fill = (el, ...children) =>
    el.replaceChildren(...children.flat().filter((child) => child !== null && child !== undefined && child !== false));

  /** A form's submit handler: the page stays, the function runs. */
  const submitted = (fn) => (event) => {
    event.preventDefault();
    fn();
  };

  const tag = (label, kind) => h("span", { class: `tag ${kind}` }, label);

  /** Starts a screen: its heading (focused, so a screen reader reads where it is) and an empty body. */
  function begin(heading, { focus = true } = {}) {
    document.title = `${heading}: back office`;
    title.textContent = heading;
    screen.replaceChildren();
    status.textContent = "";
    status.className = "status";
    if (focus) title.focus();
  }

  async function attempt(fn) {
    try {
      return await fn();
    } catch (err) {
      say(failureText(err), "error");
      return undefined;
    }
  }

  // ---- navigation ----------------------------------------------------------

  /** Sections of the page: the operation a section needs decides whether the role sees its link. */
  const SECTIONS = [
    { route: "find", label: "Find a payment", needs: "find" },
    { route: "statements", label: "Statements", needs: "statements" },
    { route: "fiscal", label: "Fiscal pending", needs: "fiscal_pending" },
    { route: "events", label: "Resend events", needs: "resend" },
    { route: "erasures", label: "Erasure requests", needs: "erasures" },
    { route: "charts", label: "Charts", needs: "charts" },
  ];

  function drawNav(current) {
    nav.replaceChildren(
      ...SECTIONS.filter((s) => can(s.needs)).map((s) =>
        h("li", {}, h("a", { href: `#/${s.route}`, "aria-current": s.route === current ? "page" : undefined }, s.label)),
      ),
    );
  }

  const ROUTES = {
    find: findScreen,
    record: recordScreen,
    statements: statementsScreen,
    statement: statementScreen,
    fiscal: fiscalScreen,
    events: eventsScreen,
    erasures: erasuresScreen,
    charts: chartsScreen,
  };

  function route() {
    const [name = "find", ...rest] = location.hash.replace(/^#\/?/, "").split("/");
    const screenOf = ROUTES[name] ?? findScreen;
    const section = name === "record" ? "find" : name === "statement" ? "statements" : name;
    drawNav(section);
    return screenOf(...rest.map(decodeURIComponent));
  }

  // ---- Support: find -------------------------------------------------------

  function findScreen(query = "") {
    begin("Find a payment");
    const params = new URLSearchParams(query);
    const field = (name, label, hint) =>
      h(
        "label",
        {},
        label,
        h("input", {
          name,
          type: "search",
          value: params.get(name) ?? "",
          autocomplete: "off",
          "aria-describedby": hint ? `${name}-hint` : undefined,
        }),
      );
    const form = h(
      "form",
      { class: "bar", role: "search", "aria-label": "Find a receipt or transfer", onsubmit: submitted(submit) },
      field("id", "Receipt or transfer id"),
      field("tid", "tid (the partner's, or a user's with User)"),
      field("user", "User"),
      h(
        "label",
        {},
        "Kind",
        h(
          "select",
          { name: "kind" },
          ["any", "receipt", "transfer"].map((k) => h("option", { value: k, selected: params.get("kind") === k }, k)),
        ),
      ),
      h("button", { type: "submit" }, "Search"),
    );
    const results = h("div", { id: "results", "aria-live": "polite" });
    screen.append(
      h("p", {}, "By id; by the partner's tid; by a user's tid together with the user; or by user alone (most recent first)."),
      form,
      results,
    );

    async function submit() {
      const values = Object.fromEntries(new FormData(form));
      const id = values.id.trim();
      const tid = values.tid.trim();
      const user = values.user.trim();
      const body = id ? { id } : tid && user ? { user_tid: tid, user } : tid ? { tid } : user ? { user } : null;
      if (!body) {
        say("Give an id, a tid, or a user.", "error");
        return;
      }
      if (values.kind !== "any") body.kind = values.kind;
      history.replaceState(
        null,
        "",
        `#/find/${encodeURIComponent(new URLSearchParams(Object.entries(values).filter(([, v]) => v && v !== "any")).toString())}`,
      );
      results.replaceChildren(h("p", {}, "Searching…"));
      const answer = await attempt(() => api("find", body));
      if (!answer) {
        results.replaceChildren();
        return;
      }
      const found = answer.results ?? [];
      results.replaceChildren(
        h("p", {}, found.length === 1 ? "1 result." : `${found.length} results.`),
        table(
          "Results, most recent first",
          [
            ["Id", (r) => h("a", { href: `#/record/${encodeURIComponent(r.id)}` }, h("code", {}, r.id))],
            ["Kind", (r) => r.kind],
            ["State", (r) => `${text(r.state)} ${text(r.state_name)}`],
            ["Amount", (r) => money(r.amount), "num"],
            ["tid", (r) => h("code", {}, text(r.tid))],
            ["User", (r) => text(r.user_masked)],
            ["Created", (r) => when(r.created_at)],
            ["Updated", (r) => when(r.updated_at)],
          ],
          found,
          "Nothing found.",
        ),
      );
    }

    if ([...params.keys()].length > 0) submit();
  }

  // ---- Support: one receipt or transfer ------------------------------------

  async function recordScreen(id = "") {
    begin(`Payment ${id}`);
    screen.append(h("p", {}, "Loading…"));
    const answer = await attempt(() => api("record", { id }));
    screen.replaceChildren();
    if (!answer) return;
    const {
      record = {},
      states = [],
      audit = [],
      calls = [],
      events = [],
      refusals = [],
      fiscal = null,
      fiscal_pending: fiscalPending,
      user_saw: userSaw = [],
    } = answer;

    const known = new Set([
      "id",
      "kind",
      "state",
      "state_name",
      "amount",
      "commission",
      "merchant_id",
      "owner",
      "tid",
      "created_at",
      "updated_at",
      "body",
      "user_masked",
    ]);
    const extra = Object.entries(record).filter(([key]) => !known.has(key));
    screen.append(
      h(
        "section",
        { "aria-labelledby": "s-summary" },
        h("h2", { id: "s-summary" }, "Summary"),
        facts([
          ["Id", h("code", {}, text(record.id ?? id))],
          ["Kind", text(record.kind)],
          ["State", `${text(record.state)} ${text(record.state_name)}`],
          ["Amount", money(record.amount)],
          ["Commission", money(record.commission)],
          ["Merchant", text(record.merchant_id)],
          ["Owner", text(record.owner)],
          ["tid", text(record.tid)],
          ["Created", when(record.created_at)],
          ["Updated", when(record.updated_at)],
          ...extra.map(([key, value]) => [key.replace(/_/g, " "), /_at$/.test(key) ? when(value) : text(value)]),
        ]),
        revealControls(id, record.kind),
        record.body && typeof record.body === "object"
          ? h(
              "details",
              {},
              h("summary", {}, "The record as stored (phones and account values masked)"),
              h("pre", { class: "mono body" }, JSON.stringify(record.body, null, 2)),
            )
          : null,
      ),
    );

    const columns = h("div", { class: "columns" });
    screen.append(columns);
    columns.append(
      h(
        "section",
        { "aria-labelledby": "s-states" },
        h("h2", { id: "s-states" }, "States over time"),
        table(
          "The record's states, oldest first",
          [
            ["At", (s) => when(s.at)],
            ["State", (s) => `${text(s.state)} ${text(s.state_name)}`],
          ],
          states,
        ),
      ),
      h(
        "section",
        { "aria-labelledby": "s-saw" },
        h("h2", { id: "s-saw" }, "What the user saw"),
        table(
          "Errors answered, with the message shown to the user",
          [
            ["At", (s) => when(s.at)],
            ["Operation", (s) => text(s.op)],
            ["Code", (s) => h("code", {}, text(s.code))],
            ["Message shown", (s) => text(s.user_message)],
          ],
          userSaw,
          "No error was answered.",
        ),
      ),
    );

    screen.append(
      h(
        "section",
        { "aria-labelledby": "s-calls" },
        h("h2", { id: "s-calls" }, "Upstream calls"),
        table(
          "Each call to the payment service and its outcome",
          [
            ["At", (c) => when(c.at)],
            ["Call", (c) => h("code", {}, text(c.method))],
            ["Outcome", (c) => callOutcome(c)],
            ["Code", (c) => text(c.code)],
            ["Reconciliation", (c) => reconciliation(c)],
          ],
          calls,
          "No upstream call.",
        ),
      ),
      h("section", { "aria-labelledby": "s-events" }, h("h2", { id: "s-events" }, "Events and deliveries"), eventsTable(events, id)),
    );

    const lower = h("div", { class: "columns" });
    screen.append(lower);
    lower.append(
      h(
        "section",
        { "aria-labelledby": "s-refusals" },
        h("h2", { id: "s-refusals" }, "Rule 13 refusals"),
        table(
          "Refusals by the risk rules",
          [
            ["At", (r) => when(r.at)],
            ["Operation", (r) => text(r.op)],
            ["Code", (r) => h("code", {}, text(r.code))],
          ],
          refusals,
          "No refusal.",
        ),
      ),
      h(
        "section",
        { "aria-labelledby": "s-fiscal" },
        h("h2", { id: "s-fiscal" }, "Fiscal data"),
        fiscalPending ? h("p", {}, tag("fiscal pending", "warn"), " The fiscal data has not arrived yet; the gateway keeps reading it.") : null,
        fiscal && typeof fiscal === "object"
          ? facts(Object.entries(fiscal).map(([key, value]) => [key.replace(/_/g, " "), /_at$/.test(key) ? when(value) : text(value)]))
          : fiscalPending
            ? null
            : h("p", { class: "empty" }, "No fiscal data."),
      ),
    );

    screen.append(
      h(
        "section",
        { "aria-labelledby": "s-audit" },
        h("h2", { id: "s-audit" }, "Audit trail"),
        table(
          "Every entry of the record's audit trail, oldest first",
          [
            ["At", (a) => when(a.at)],
            ["What", (a) => h("code", {}, text(a.op))],
            ["By", (a) => text(a.actor)],
            ["Outcome", (a) => text(a.outcome)],
            ["State", (a) => text(a.state)],
            ["Details", (a) => h("code", {}, text(auditDetails(a)))],
          ],
          audit,
          "No entry.",
        ),
      ),
    );
  }

  function auditDetails(entry) {
    const shown = new Set(["id", "at", "op", "actor", "outcome", "state", "source", "receipt_id", "kind"]);
    const rest = Object.fromEntries(Object.entries(entry).filter(([key]) => !shown.has(key)));
    return Object.keys(rest).length ? rest : "";
  }

  function callOutcome(call) {
    if (call.outcome === "unknown") return tag("unknown", "warn");
    if (call.outcome === "error") return tag("error", "bad");
    if (call.outcome === "ok") return tag("ok", "good");
    return text(call.outcome);
  }

  /** What the reconciliation after an unknown outcome found: the state it read, or that it has not settled yet. */
  function reconciliation(call) {
    if (call.outcome !== "unknown") return "";
    if (!call.reconciled) return "not settled yet";
    const { found, found_name: name, at } = call.reconciled;
    return `reconciled ${when(at)}: found ${found === null || found === undefined ? "no state" : `${found} ${name ?? ""}`.trim()}`;
  }

  function deliveryTag(delivery) {
    if (delivery === "delivered") return tag("delivered", "good");
    if (delivery === "failed") return tag("failed", "bad");
    return tag(text(delivery ?? "pending"), "warn");
  }

  function eventsTable(events, recordId) {
    if (!events.length) return h("p", { class: "empty" }, "No event.");
    return h(
      "div",
      {},
      events.map((event) =>
        h(
          "div",
          { class: "event" },
          h(
            "h3",
            {},
            h("code", {}, text(event.type)),
            " ",
            h("span", { class: "mono" }, text(event.id)),
            " ",
            deliveryTag(event.delivery),
            event.attempts !== undefined ? ` ${event.attempts} attempt${event.attempts === 1 ? "" : "s"}` : "",
          ),
          table(
            `Delivery attempts of ${event.type} ${event.id}`,
            [
              ["At", (d) => when(d.at)],
              ["Status", (d) => text(d.status)],
              ["Result", (d) => (d.ok ? tag("delivered", "good") : tag("failed", "bad"))],
              ["Receiver's answer", (d) => h("code", {}, text(d.answer))],
            ],
            event.deliveries ?? [],
            "No attempt yet.",
          ),
          can("resend")
            ? h(
                "button",
                {
                  type: "button",
                  class: "quiet",
                  "aria-label": `Resend ${event.type} ${event.id}`,
                  onclick: async (e) => {
                    const button = e.currentTarget;
                    button.disabled = true;
                    const done = await attempt(() => api("resend", { event_id: event.id }));
                    if (done) {
                      await recordScreen(recordId);
                      say(`Event ${event.id} queued for delivery again.`);
                    } else button.disabled = false;
                  },
                },
                "Resend",
              )
            : null,
        ),
      ),
    );
  }

  /** Masked values stay masked; each reveal is its own audited operation, asked one at a time. */
  function revealControls(id, kind) {
    if (!can("reveal")) return null;
    const fields = [
      ["phone", "phone"],
      ["account", "account value"],
    ];
    return h(
      "div",
      { class: "reveal" },
      h("p", {}, "Phone numbers and account values are masked. Revealing one is recorded in the audit trail with your name."),
      fields.map(([field, label]) => {
        const out = h("output", { id: `reveal-${field}`, class: "mono", "aria-live": "polite" });
        return h(
          "p",
          {},
          h(
            "button",
            {
              type: "button",
              class: "quiet",
              onclick: async (e) => {
                const button = e.currentTarget;
                const answer = await attempt(() => api("reveal", kind ? { id, kind, field } : { id, field }));
                if (answer) {
                  out.textContent = ` ${label}: ${revealedText(answer.value)}`;
                  button.disabled = true;
                  say(`The ${label} was revealed; this is recorded in the audit trail.`);
                }
              },
            },
            `Reveal ${label}`,
          ),
          out,
        );
      }),
    );
  }

  /** A revealed value: a phone as it is, an account as its key: value pairs. */
  function revealedText(value) {
    if (value === null || value === undefined) return "none stored";
    if (Array.isArray(value)) return value.map((pair) => (pair && typeof pair === "object" ? `${pair.key}: ${pair.value}` : text(pair))).join(", ");
    return text(value);
  }

  // ---- Finance: statements and fiscal pending ------------------------------

  function totalsText(totals) {
    if (!Array.isArray(totals)) return text(totals);
    const count = totals.reduce((n, t) => n + (t.count ?? 0), 0);
    const amount = totals.reduce((n, t) => n + (t.amount ?? 0), 0);
    return `${count} changes, ${money(amount)}`;
  }

  const fileLink = (date, ext, href) =>
    h("a", { href: href ?? `/console/files/statements/${encodeURIComponent(date)}.${ext}`, download: `statement-${date}.${ext}` }, ext.toUpperCase());

  async function statementsScreen() {
    begin("Statements");
    const list = h("div", { "aria-live": "polite" });
    screen.append(h("p", {}, "One statement a day (rule 16), newest first: its totals, lines and mismatches with the payment service."), list);
    const rows = [];
    async function more(after) {
      const answer = await attempt(() => api("statements", after ? { after } : {}));
      if (!answer) return;
      const page = answer.statements ?? [];
      rows.push(...page);
      fill(
        list,
        h("p", {}, `${rows.length} statement${rows.length === 1 ? "" : "s"}.`),
        table(
          "Daily statements, newest first",
          [
            ["Date", (s) => h("a", { href: `#/statement/${encodeURIComponent(s.date)}` }, s.date)],
            ["Totals", (s) => totalsText(s.totals)],
            ["Lines", (s) => text(s.lines ?? s.lines_count), "num"],
            ["Checked", (s) => text(s.checked), "num"],
            ["Mismatches", (s) => mismatchesCell(s.mismatches ?? s.mismatches_count), "num"],
            ["State", (s) => (s.complete === false ? tag(text(s.state ?? "building"), "warn") : text(s.state))],
            ["Downloads", (s) => [fileLink(s.date, "csv", s.files?.csv), " ", fileLink(s.date, "json", s.files?.json)]],
          ],
          rows,
          "No statement written yet.",
        ),
        answer.has_more && page.length
          ? h("button", { type: "button", class: "quiet", onclick: () => more(page.at(-1).date) }, "Older statements")
          : null,
      );
    }
    await more();
  }

  const mismatchesCell = (count) =>
    typeof count === "number" && count > 0 ? tag(`${count} mismatch${count === 1 ? "" : "es"}`, "bad") : text(count ?? 0);

  async function statementScreen(date = "") {
    begin(`Statement of ${date}`);
    const answer = await attempt(() => api("statement", { date }));
    if (!answer) return;
    screen.append(
      h("p", {}, "Downloads: ", fileLink(date, "csv"), " ", fileLink(date, "json")),
      h("h2", {}, "Totals"),
      table(
        "Totals per merchant and state",
        [
          ["Merchant", (t) => text(t.merchant_id ?? "transfers")],
          ["Change", (t) => text(t.change ?? t.state)],
          ["Count", (t) => text(t.count), "num"],
          ["Amount", (t) => money(t.amount), "num"],
          ["Commission", (t) => money(t.commission), "num"],
        ],
        answer.totals ?? [],
        "No change that day.",
      ),
      h("h2", {}, "Mismatches"),
      table(
        "Lines where the gateway and the payment service disagree",
        [
          ["Id", (m) => (m.id ? h("a", { href: `#/record/${encodeURIComponent(m.id)}` }, h("code", {}, m.id)) : "")],
          ["Kind", (m) => text(m.kind)],
          ["Field", (m) => text(m.field)],
          ["Statement says", (m) => text(m.statement)],
          ["Payment service says", (m) => text(m.upstream)],
          ["Event", (m) => h("code", {}, text(m.event_id))],
        ],
        answer.mismatches ?? [],
        "No mismatch.",
      ),
    );
  }

  async function fiscalScreen() {
    begin("Fiscal pending");
    const list = h("div", { "aria-live": "polite" });
    screen.append(h("p", {}, "Paid receipts whose fiscal data has not arrived (rule 14), oldest first."), list);
    const rows = [];
    async function more(after) {
      const answer = await attempt(() => api("fiscal_pending", after ? { after, limit: 50 } : { limit: 50 }));
      if (!answer) return;
      const page = answer.receipts ?? answer.results ?? answer.items ?? [];
      rows.push(...page);
      fill(
        list,
        h("p", {}, `${rows.length} receipt${rows.length === 1 ? "" : "s"} pending.`),
        table(
          "Receipts still fiscal-pending",
          [
            ["Id", (r) => h("a", { href: `#/record/${encodeURIComponent(r.id ?? r.receipt_id)}` }, h("code", {}, r.id ?? r.receipt_id))],
            ["tid", (r) => h("code", {}, text(r.tid))],
            ["Missing", (r) => (r.state === 21 ? "the refund's fiscal data" : "the sale's fiscal data")],
            ["Since", (r) => when(r.since)],
            ["Reads done", (r) => text(r.reads), "num"],
            ["Amount", (r) => money(r.amount), "num"],
          ],
          rows,
          "Nothing pending.",
        ),
        answer.has_more && page.length
          ? h(
              "button",
              { type: "button", class: "quiet", onclick: () => more(answer.next ?? answer.after ?? page.at(-1).id ?? page.at(-1).receipt_id) },
              "More",
            )
          : null,
      );
    }
    await more();
  }

  // ---- Operator ------------------------------------------------------------

  function eventsScreen() {
    begin("Resend events");
    const one = h(
      "form",
      { class: "bar", "aria-label": "Resend one event", onsubmit: submitted(resendOne) },
      h("label", {}, "Event id", h("input", { name: "event_id", autocomplete: "off", required: true })),
      h("button", { type: "submit" }, "Resend event"),
    );
    const period = h(
      "form",
      { class: "bar", "aria-label": "Resend every failed event of a period", onsubmit: submitted(resendPeriod) },
      h("label", {}, "From (UTC)", h("input", { type: "datetime-local", name: "from", required: true })),
      h("label", {}, "To (UTC)", h("input", { type: "datetime-local", name: "to", required: true })),
      h("button", { type: "submit" }, "Resend failed events"),
    );
    screen.append(h("h2", {}, "One event"), one, h("h2", {}, "Every failed event of a period"), period);

    async function resendOne() {
      const id = new FormData(one).get("event_id").trim();
      const answer = await attempt(() => api("resend", { event_id: id }));
      if (answer) say(`Event ${id} queued for delivery again.`);
    }
    async function resendPeriod() {
      const values = Object.fromEntries(new FormData(period));
      const from = Date.parse(`${values.from}Z`);
      const to = Date.parse(`${values.to}Z`);
      const answer = await attempt(() => api("resend_failed", { from, to }));
      if (answer) say(`${answer.resent ?? 0} failed event${answer.resent === 1 ? "" : "s"} queued for delivery again.`);
    }
  }

  async function erasuresScreen() {
    begin("Erasure requests");
    const answer = await attempt(() => api("erasures", {}));
    if (!answer) return;
    const requests = answer.requests ?? [];
    screen.append(
      h("p", { "aria-live": "polite" }, `${requests.length} request${requests.length === 1 ? "" : "s"}.`),
      table(
        "Erasure requests (rule 10) and their progress",
        [
          ["User", (r) => text(r.user_masked)],
          ["Requested", (r) => when(r.requested_at)],
          ["State", (r) => (r.state === "done" ? tag("done", "good") : tag(text(r.state).replace(/_/g, " "), "warn"))],
          ["Done", (r) => when(r.done_at)],
          ["Progress", (r) => progressCell(r)],
        ],
        requests,
        "No erasure request.",
      ),
    );
  }

  /** An erasure's progress: the steps (stores walked) done of those started, as a bar with its words. */
  function progressCell(request) {
    const p = request.progress;
    if (!p || typeof p !== "object") return text(p);
    const label = `${p.steps_done} of ${p.steps_started} steps done`;
    if (!p.steps_started) return request.state === "done" ? "complete" : "not started";
    return h("span", {}, h("progress", { max: p.steps_started, value: p.steps_done, "aria-label": label }), ` ${label}`);
  }

  // ---- Operator: charts ----------------------------------------------------

  /** Each chart's title, by its series' name in the answer, in the order drawn; a series not named here is drawn after them. */
  const CHART_TITLES = {
    payments_by_outcome: "Payments by outcome",
    unknown_outcomes: "Unknown outcomes and how they resolved",
    upstream_refusals: "Refusals by the payment service (declines and the rest)",
    declines_by_reason: "Declines by reason",
    otp_exhausted: "OTP attempts exhausted",
    risk_refusals_by_rule: "Risk refusals by rule",
    webhook_failures: "Webhook delivery failures",
    queue_age_s: "Event queue age (seconds)",
    latency_ms: "Latency percentiles (ms)",
  };
  const PALETTE = ["#0b57d0", "#a3150f", "#146c2e", "#7a4b00", "#6f2da8", "#00796b", "#c2185b", "#37474f"];
  const plots = [];

  async function chartsScreen(hours = "1") {
    begin("Charts");
    const span = ["1", "6", "24"].includes(hours) ? Number(hours) : 1;
    screen.append(
      h(
        "div",
        { role: "group", "aria-label": "Time span", class: "bar" },
        [1, 6, 24].map((n) =>
          h(
            "button",
            { type: "button", class: "quiet", "aria-pressed": n === span ? "true" : "false", onclick: () => (location.hash = `#/charts/${n}`) },
            `Last ${n} h`,
          ),
        ),
      ),
    );
    for (const plot of plots.splice(0)) plot.destroy();
    const answer = await attempt(() => api("charts", { hours: span }));
    if (!answer) return;
    const grid = h("div", { class: "charts" });
    screen.append(h("p", {}, `From ${when(answer.from)} to ${when(answer.to)}, one point every ${answer.step_s} s.`), grid);
    const width = Math.max(480, Math.min(760, Math.floor((grid.clientWidth || 1200) / 2) - 40));
    const present = Object.keys(answer.series ?? {});
    const names = [...Object.keys(CHART_TITLES).filter((name) => present.includes(name)), ...present.filter((name) => !(name in CHART_TITLES))];
    if (answer.source)
      screen.insertBefore(
        h("p", {}, `Source: ${answer.source === "local" ? "this development server's own numbers" : "the gateway's Analytics Engine data"}.`),
        grid,
      );
    for (const name of names) {
      const label = CHART_TITLES[name] ?? name.replace(/_/g, " ");
      const series = answer.series[name];
      const figure = h("figure", { class: "chart", "data-chart": name }, h("figcaption", { id: `chart-${name}` }, label));
      grid.append(figure);
      if (!series || !Array.isArray(series.t)) {
        figure.append(h("p", { class: "empty" }, "No data."));
        continue;
      }
      const lines = Object.keys(series).filter((key) => key !== "t" && Array.isArray(series[key]));
      const sums = lines.map((key) => `${key.replace(/_/g, " ")} ${summary(name, series[key])}`);
      figure.setAttribute("aria-describedby", `chart-${name}-summary`);
      figure.append(h("p", { id: `chart-${name}-summary`, class: "sr-only" }, `${label}: ${sums.join("; ")}.`));
      const holder = h("div", { role: "img", "aria-labelledby": `chart-${name} chart-${name}-summary` });
      figure.append(holder);
      if (typeof uPlot !== "function") {
        holder.append(h("p", { class: "empty" }, "The chart library did not load."));
        continue;
      }
      const options = {
        width,
        height: 220,
        series: [{}, ...lines.map((key, i) => ({ label: key.replace(/_/g, " "), stroke: PALETTE[i % PALETTE.length], width: 2 }))],
        axes: [{}, { size: 60 }],
        scales: { x: { time: true } },
        // The axis reads UTC, as every time on the page does.
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
      };
      plots.push(new uPlot(options, [series.t, ...lines.map((key) => series[key])], holder));
    }
  }

  /** What a screen reader hears of a series: its total for counts, its highest for ages and latencies. */
  function summary(chart, values) {
    const numbers = values.filter((v) => typeof v === "number");
    if (chart === "queue_age_s" || chart === "latency_ms") return `highest ${numbers.length ? Math.max(...numbers) : 0}`;
    return `total ${numbers.reduce((a, b) => a + b, 0)}`;
  }

  // ---- start -----------------------------------------------------------------

  async function start() {
    try {
      me = await api("me", {});
    } catch (err) {
      who.textContent = "Not signed in.";
      begin("Back office");
      say(failureText(err), "error");
      if (err instanceof ApiFailure && err.status === 401) screen.append(h("p", {}, h("a", { href: "/console/" }, "Sign in again")));
      return;
    }
    who.replaceChildren(
      "Signed in as ",
      h("strong", {}, me.email),
      ` (${me.role})`,
      ...(me.environment && me.environment !== "production" ? [" · ", h("a", { href: "/console/dev-sign-in" }, "Switch user (development)")] : []),
    );
    window.addEventListener("hashchange", route);
    await route();
  }

  start();
})();
