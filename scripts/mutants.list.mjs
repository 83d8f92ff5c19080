/**
 * The mutations `npm run test:mutants` (scripts/mutants.mjs) applies, one at a
 * time: each is a one-line change of a money rule that a tired engineer could
 * make, and the tests named must fail with it.
 *
 *   name     what to call it on the command line (`npm run test:mutants -- <part of a name>`)
 *   file     the file changed
 *   find     text that must occur exactly once in that file (it may take the
 *            line before as context when the changed line is not unique);
 *            a refactor that moves or rewrites it makes the run fail, loudly
 *   replace  what it becomes
 *   tests    the test files that must catch it
 *   grep     optional: only the tests whose name matches (vitest -t), to keep a run short
 *   why      the rule it breaks
 *
 * The entries marked "issue 18" are the five mutations issue 18 found
 * surviving `npm test`; the others cover the rest of the money rules.
 */
export const MUTANTS = [
  // --- write-ahead (rule 8) ---------------------------------------------------
  {
    name: "unknown-pay-clears-note",
    file: "src/record/outcomes.ts",
    find: `    const { store, writeAhead, ledger, recorder, reconciler } = this.#parts;
    if (!result.ok && result.outcome === "unknown") return { ok: false, error: result.failure };`,
    replace: `    const { store, writeAhead, ledger, recorder, reconciler } = this.#parts;
    if (!result.ok && result.outcome === "unknown") { store.change(() => writeAhead.clear()); return { ok: false, error: result.failure }; }`,
    tests: ["test/integration/faults.test.ts", "test/integration/otp.test.ts"],
    grep: "lost|unknown|timeout",
    why: "issue 18 (a): a pay whose outcome is unknown must leave its write-ahead note, so the OTP counts and the record is read again",
  },
  {
    name: "unknown-pay-settled-as-guess",
    file: "src/record/outcomes.ts",
    find: `    const { store, writeAhead, ledger, recorder, reconciler } = this.#parts;
    if (!result.ok && result.outcome === "unknown") return { ok: false, error: result.failure };`,
    replace: `    const { store, writeAhead, ledger, recorder, reconciler } = this.#parts;
    if (!result.ok && result.outcome === "unknown") { store.change(() => { writeAhead.clear(); if (withOtp) ledger.count("unconfirmed", requestId); }); return { ok: false, error: result.failure }; }`,
    tests: ["test/integration/faults.test.ts", "test/integration/otp.test.ts"],
    grep: "lost|unknown|timeout",
    why: "issue 18 (a): a pay whose outcome is unknown is settled from what the upstream shows, not guessed: it may have paid",
  },
  {
    name: "unknown-cancel-clears-note",
    file: "src/record/outcomes.ts",
    find: `    const { store, writeAhead, recorder } = this.#parts;
    if (!result.ok && result.outcome === "unknown") return { ok: false, error: result.failure };`,
    replace: `    const { store, writeAhead, recorder } = this.#parts;
    if (!result.ok && result.outcome === "unknown") { store.change(() => writeAhead.clear()); return { ok: false, error: result.failure }; }`,
    tests: ["test/integration/faults.test.ts", "test/integration/crash.test.ts"],
    grep: "lost|unknown|timeout|crash",
    why: "issue 18 (a): a cancel or hold-confirm whose outcome is unknown must leave its note: the upstream may have refunded or confirmed",
  },
  {
    name: "note-not-written",
    file: "src/record/write-ahead.ts",
    find: "this.#store.update({ pending_op: op, pending_otp: withOtp ? 1 : 0, pending_since: now, pending_request_id: requestId });",
    replace: "this.#store.update({ pending_op: null, pending_otp: withOtp ? 1 : 0, pending_since: now, pending_request_id: requestId });",
    tests: ["test/integration/crash.test.ts"],
    why: "rule 8: before a call that may move money leaves, a note of it is stored",
  },
  {
    name: "note-forgets-otp",
    file: "src/record/write-ahead.ts",
    find: "this.#store.update({ pending_op: op, pending_otp: withOtp ? 1 : 0, pending_since: now, pending_request_id: requestId });",
    replace: "this.#store.update({ pending_op: op, pending_otp: 0, pending_since: now, pending_request_id: requestId });",
    tests: ["test/integration/crash.test.ts"],
    why: "rule 2 with rule 8: an OTP sent in a call lost to a crash is an unconfirmed guess",
  },

  // --- the exhaustion cancel (rule 2) -------------------------------------------
  {
    name: "third-wrong-otp-cancel-deferred",
    file: "src/record/outcomes.ts",
    find: "      await reconciler.finishExhaustion(upstream, requestId);\n",
    replace: "",
    tests: ["test/integration/otp.test.ts"],
    grep: "three-wrong-OTPs",
    why: "issue 18 (e): the third wrong OTP cancels the receipt upstream before it is answered, not at the next alarm",
  },
  {
    name: "exhaustion-cancel-not-retried",
    file: "src/lifecycle.ts",
    find: "  if (facts.exhaustionCancelPending) return now + backoffMs(facts.attempts);",
    replace: "",
    tests: ["test/integration/faults.test.ts"],
    grep: "cancel",
    why: "issue 18 (b): an exhaustion cancel that did not go through is sent again by the alarm, with no caller",
  },
  {
    name: "exhaustion-cancel-busy-gives-up",
    file: "src/record/reconciler.ts",
    find: 'if (result.failure.code !== "upstream_unavailable" && store.current!.state !== STATE.cancelled) {',
    replace: "if (store.current!.state !== STATE.cancelled) {",
    tests: ["test/integration/faults.test.ts"],
    grep: "cancel",
    why: "issue 18 (b): a busy answer to the exhaustion cancel is tried again; only a refusal for good closes the receipt at the edge",
  },
  // --- rule 2's unknown refusals and rule 8's late upstream (issue 18, items 1 and 2) ---
  {
    name: "unknown-code-not-a-guess",
    file: "src/lifecycle.ts",
    find: `  if (answer.code === "upstream_refused") return "unconfirmed";\n`,
    replace: "",
    tests: ["test/integration/faults.test.ts"],
    grep: "does not know|judges_unknown",
    why: "rule 2: an OTP refused in a code the gateway does not know may have been judged; without counting it, six OTPs reached the upstream",
  },
  {
    name: "uncoded-refusal-read-as-validation-error",
    file: "src/upstream/client.ts",
    find: 'const upstreamCode = typeof envelope.error?.code === "string" ? envelope.error.code : `HTTP_${response.status}`;',
    replace: 'const upstreamCode = typeof envelope.error?.code === "string" ? envelope.error.code : "VALIDATION_ERROR";',
    tests: ["test/integration/faults.test.ts"],
    grep: "no code",
    why: "rule 2: a 4xx refusal in no code may have judged the OTP: it is upstream_refused and counts as a guess, not a validation error that judged nothing",
  },
  {
    name: "validation-refusal-counted-as-guess",
    file: "src/upstream/client.ts",
    find: `  VALIDATION_ERROR: { code: "invalid_request" },\n`,
    replace: "",
    tests: ["test/integration/faults.test.ts"],
    grep: "VALIDATION_ERROR refusal",
    why: "rule 2: the upstream's VALIDATION_ERROR refuses a request before any OTP is judged: invalid_request, and no guess",
  },
  {
    name: "lost-call-not-suspect",
    file: "src/record/reconciler.ts",
    find: "if (STATE_CHANGING_CALLS.has(pending.pending_op)) {",
    replace: "if (false && STATE_CHANGING_CALLS.has(pending.pending_op)) {",
    tests: ["test/integration/faults.test.ts"],
    grep: "late upstream",
    why: "rule 8: a call whose outcome was unknown stays suspect after its first look; else a late payment is never found nor sent as an event",
  },
  {
    name: "late-reads-never-due",
    file: "src/lifecycle.ts",
    find: "  return offset === undefined ? null : suspect.since + offset;",
    replace: "  return null;",
    tests: ["test/integration/faults.test.ts", "test/unit/lifecycle.test.ts"],
    grep: "late",
    why: "rule 8: the late reads are scheduled (1 min, 10 min, 1 h, 24 h), so a change after the first look is found with no caller",
  },
  {
    name: "lost-hold-confirm-not-suspect",
    file: "src/lifecycle.ts",
    find: `export const STATE_CHANGING_CALLS: ReadonlySet<string> = new Set(["pay", "hold-confirm", "cancel"]);`,
    replace: `export const STATE_CHANGING_CALLS: ReadonlySet<string> = new Set(["pay", "cancel"]);`,
    tests: ["test/integration/faults.test.ts"],
    grep: "hold-confirm lost before",
    why: "rule 8: a hold-confirm whose outcome was unknown stays suspect after its first look; a confirm the upstream makes later is found and sent as receipt.paid",
  },
  {
    name: "suspect-pay-not-asked-first",
    file: "src/lifecycle.ts",
    find: "  { when: (ctx) => ctx.suspect && !ctx.fresh, then: ASK_FIRST },",
    replace: "",
    tests: ["test/integration/faults.test.ts"],
    grep: "late upstream",
    why: "rule 8: while a record is suspect, money moves only after a fresh look at the upstream",
  },
  {
    name: "user-cancel-from-stored-copy",
    file: "src/lifecycle.ts",
    find: `    { when: (ctx) => ctx.caller === "user" && !ctx.fresh, then: ASK_FIRST },`,
    replace: "",
    tests: ["test/integration/faults.test.ts"],
    grep: "late upstream",
    why: "rule 8: a user's cancel is never decided from a stored copy; a late payment would be refunded by a user",
  },
  {
    name: "late-paid-otp-still-a-guess",
    file: "src/record/recorder.ts",
    find: "const proven = rec.suspect_otp === 1 && isPaid(state);",
    replace: "const proven = false;",
    tests: ["test/integration/faults.test.ts"],
    grep: "late upstream",
    why: "rule 2: an OTP whose lost call turned out to pay was right, no guess",
  },
  {
    name: "lost-cancel-not-completed",
    file: "src/record/reconciler.ts",
    find: "    if (lostCancel && store.current!.state !== STATE.cancelled) await this.#finishCancel(upstream, requestId);",
    replace: "",
    tests: ["test/integration/faults.test.ts"],
    grep: "completed by the gateway",
    why: "rule 8: a lost cancel could land later on a receipt paid meanwhile and refund it; the gateway completes it first",
  },
  {
    name: "exhaustion-cancel-not-scheduled",
    file: "src/lifecycle.ts",
    find: "if (facts.exhaustionCancelPending) return now + backoffMs(facts.attempts);",
    replace: "if (facts.exhaustionCancelPending) return null;",
    tests: ["test/unit/lifecycle.test.ts"],
    why: "rule 2 with rule 8: the alarm is set for an exhaustion cancel not yet confirmed",
  },
  {
    name: "transfer-cancelled-upstream",
    file: "src/kinds.ts",
    find: "  cancellable: false,",
    replace: "  cancellable: true,",
    tests: ["test/integration/faults.test.ts"],
    grep: "transfer",
    why: "rule 2: a transfer has no cancel upstream; three failed guesses close it at the edge",
  },

  // --- guess counting (rule 2) ------------------------------------------------------
  {
    name: "wrong-otp-not-counted",
    file: "src/lifecycle.ts",
    find: `if (verdict === "wrong") return { ...counts, wrong: counts.wrong + 1 };`,
    replace: `if (verdict === "wrong") return { ...counts, wrong: counts.wrong };`,
    tests: ["test/integration/otp.test.ts"],
    grep: "three-wrong-OTPs",
    why: "rule 2: a wrong OTP is a guess",
  },
  {
    name: "lost-otp-not-counted",
    file: "src/lifecycle.ts",
    find: `if (verdict === "unconfirmed") return { ...counts, unconfirmed: counts.unconfirmed + 1 };`,
    replace: `if (verdict === "unconfirmed") return { ...counts, unconfirmed: counts.unconfirmed };`,
    tests: ["test/integration/faults.test.ts"],
    grep: "is a guess",
    why: "rule 2: an OTP whose answer was lost and that did not pay is a guess",
  },
  {
    name: "four-guesses",
    file: "src/lifecycle.ts",
    find: "export const MAX_GUESSES = 3;",
    replace: "export const MAX_GUESSES = 4;",
    tests: ["test/integration/otp.test.ts"],
    grep: "three-wrong-OTPs",
    why: "rule 2: three failed guesses, not four",
  },
  {
    name: "exhausted-one-guess-late",
    file: "src/lifecycle.ts",
    find: `if (facts.guesses >= MAX_GUESSES) return "exhausted";`,
    replace: `if (facts.guesses > MAX_GUESSES) return "exhausted";`,
    tests: ["test/integration/otp.test.ts"],
    grep: "three-wrong-OTPs",
    why: "rule 2: after the third failed guess no OTP reaches the upstream",
  },
  {
    name: "upstream-exhaustion-ignored",
    file: "src/record/otp-ledger.ts",
    find: "if (upstreamSaysExhausted && guessesOf(counts) < MAX_GUESSES) counts = { ...counts, wrong: MAX_GUESSES - counts.unconfirmed };",
    replace: "",
    tests: ["test/integration/otp.test.ts"],
    grep: "three-wrong-OTPs",
    why: "rule 2: when the upstream says the guesses are used up, the receipt is closed: no further OTP reaches it",
  },
  {
    name: "held-otp-counted-as-guess",
    file: "src/lifecycle.ts",
    find: "export const isPaid = (state: UpstreamState): boolean => state === STATE.paid || state === STATE.held || state === STATE.awaitingSupplier;",
    replace: "export const isPaid = (state: UpstreamState): boolean => state === STATE.paid || state === STATE.awaitingSupplier;",
    tests: ["test/integration/crash.test.ts"],
    why: "rule 2 with rule 8: an OTP lost in a call that held the amount was right: no guess (else the held receipt is cancelled)",
  },

  // --- user refunds (rule 4) ----------------------------------------------------------
  {
    name: "user-cancels-paid",
    file: "src/lifecycle.ts",
    find: `      phases: ["held", "paid"],\n      when: (ctx) => ctx.caller !== "partner",`,
    replace: `      phases: ["held"],\n      when: (ctx) => ctx.caller !== "partner",`,
    tests: ["test/unit/lifecycle.test.ts", "test/integration/crash.test.ts"],
    why: "rule 4: a user may cancel only an unpaid receipt; refunding a paid one is the partner's",
  },
  {
    name: "user-cancels-held",
    file: "src/lifecycle.ts",
    find: `      phases: ["held", "paid"],\n      when: (ctx) => ctx.caller !== "partner",`,
    replace: `      phases: ["paid"],\n      when: (ctx) => ctx.caller !== "partner",`,
    tests: ["test/unit/lifecycle.test.ts"],
    why: "rule 4: a user may not release a held amount",
  },

  // --- ownership ------------------------------------------------------------------------
  {
    name: "any-user-any-receipt",
    file: "src/caller.ts",
    find: `caller.kind === "partner" || ownerOf(caller) === owner;`,
    replace: `caller.kind === "partner" || owner.startsWith("user:");`,
    tests: ["test/integration/auth.test.ts"],
    why: "a user acts only on their own receipts",
  },

  {
    name: "user-tid-sent-as-is",
    file: "src/tid-index.ts",
    find: `if (!owner.startsWith("user:")) return tid;`,
    replace: "return tid;",
    tests: ["test/integration/auth.test.ts"],
    grep: "tid",
    why: "rule 9: a user's tid goes upstream derived, so a user can neither take nor block a partner's tid or another user's",
  },

  // --- redaction --------------------------------------------------------------------------
  {
    name: "upstream-message-unredacted",
    file: "src/upstream/client.ts",
    find: "String(redact(envelope.error.message))",
    replace: "String(envelope.error.message)",
    tests: ["test/integration/card-data.test.ts"],
    why: "issue 18 (d): a message the upstream sends back is masked before it reaches a caller (no raw card number in an error)",
  },
  {
    name: "log-fields-unredacted",
    file: "src/log.ts",
    find: "const line = JSON.stringify({ level, event, ...(redact(fields) as Record<string, unknown>) });",
    replace: "const line = JSON.stringify({ level, event, ...fields });",
    tests: ["test/unit/log.test.ts", "test/integration/card-data.test.ts"],
    why: "every field of a log line passes through redact: a card number comes out masked, an OTP, expiry, token, credential or JWT redacted",
  },
  {
    name: "card-numbers-not-masked",
    file: "src/redact.ts",
    find: "    .replace(PAN_RUN, maskPan);",
    replace: "    ;",
    tests: ["test/integration/card-data.test.ts"],
    why: "card numbers in anything logged or answered are masked",
  },
  {
    name: "mask-keeps-too-much",
    file: "src/redact.ts",
    find: 'return `${pan.slice(0, 6)}${"*".repeat(pan.length - 10)}${pan.slice(-4)}`;',
    replace: 'return `${pan.slice(0, 6)}${"*".repeat(pan.length - 12)}${pan.slice(-6)}`;',
    tests: ["test/integration/card-data.test.ts"],
    why: "a masked card number shows the first 6 and last 4 digits, no more",
  },

  // --- tid adoption and conflicts (rule 9) --------------------------------------------------
  {
    name: "tid-duplicate-adopted-unchecked",
    file: "src/creation.ts",
    find: `result.upstreamCode === "TID_DUPLICATE" && existing && kind.matches(existing, input)`,
    replace: `result.upstreamCode === "TID_DUPLICATE" && existing`,
    tests: ["test/integration/tid.test.ts"],
    why: "issue 18 (c): a retried create adopts the upstream's receipt for its tid only if it is the one the create asked for",
  },
  {
    name: "tid-duplicate-amount-unchecked",
    file: "src/kinds.ts",
    find: "matches: (existing, input) => existing.amount === input.amount && existing.merchant.merchant_id === input.merchant_id,",
    replace: "matches: (existing, input) => existing.merchant.merchant_id === input.merchant_id,",
    tests: ["test/integration/tid.test.ts"],
    why: "rule 9: a receipt of another amount under our tid is not ours to adopt",
  },
  {
    name: "transfer-adopted-on-amount-only",
    file: "src/kinds.ts",
    find: "matches: (existing, input) => existing.receiver.amount === input.amount && existing.receiver.masked_pan === maskPan(input.receiver_card),",
    replace: "matches: (existing, input) => existing.receiver.amount === input.amount,",
    tests: ["test/integration/tid.test.ts"],
    grep: "lost transfer create",
    why: "rule 9: a transfer to another receiver card under our tid is not ours to adopt, whatever its amount",
  },
  {
    name: "transfer-adopted-on-card-only",
    file: "src/kinds.ts",
    find: "matches: (existing, input) => existing.receiver.amount === input.amount && existing.receiver.masked_pan === maskPan(input.receiver_card),",
    replace: "matches: (existing, input) => existing.receiver.masked_pan === maskPan(input.receiver_card),",
    tests: ["test/integration/tid.test.ts"],
    grep: "lost transfer create",
    why: "rule 9: a transfer of another amount under our tid is not ours to adopt, though it goes to the same card",
  },
  {
    name: "transfer-card-compared-unmasked",
    file: "src/kinds.ts",
    find: "matches: (existing, input) => existing.receiver.amount === input.amount && existing.receiver.masked_pan === maskPan(input.receiver_card),",
    replace: "matches: (existing, input) => existing.receiver.amount === input.amount && existing.receiver.masked_pan === input.receiver_card,",
    tests: ["test/integration/tid.test.ts"],
    grep: "lost transfer create",
    why: "rule 9: the upstream shows the receiver card masked; the very transfer a lost create made is adopted, not refused as a conflict",
  },
  {
    name: "tid-changed-body-replayed",
    file: "src/tid-index.ts",
    find: `if (!same || row.kind !== req.kind) return { kind: "conflict", row };`,
    replace: `if (row.kind !== req.kind) return { kind: "conflict", row };`,
    tests: ["test/integration/tid.test.ts"],
    why: "rule 9: another request with a known tid is tid_conflict, never a replay of the first",
  },
  {
    name: "tid-lease-zero",
    file: "src/creation.ts",
    find: "export const leaseMs = (upstreamTimeoutMs: number): number => Math.min(5 * 60_000, Math.max(30_000, 3 * upstreamTimeoutMs));",
    replace: "export const leaseMs = (_upstreamTimeoutMs: number): number => 0;",
    tests: ["test/integration/tid.test.ts"],
    grep: "concurrent",
    why: "rule 9: a create in flight holds its tid; an identical create meanwhile is tid_in_progress, not a second create upstream",
  },

  // --- retention ------------------------------------------------------------------------------
  {
    name: "replay-window-in-hours",
    file: "src/retention.ts",
    find: "const replayMs = positive(env.TID_REPLAY_DAYS, d.replayDays) * DAY_MS;",
    replace: "const replayMs = positive(env.TID_REPLAY_DAYS, d.replayDays) * 3_600_000;",
    tests: ["test/integration/retention.test.ts"],
    why: "TID_REPLAY_DAYS is days: an identical retry is replayed for that long",
  },
  {
    name: "pending-claims-deleted",
    file: "src/tid-index.ts",
    find: "SELECT rowid FROM tid_index WHERE status = 1 AND updated_at < ?1 ORDER BY updated_at LIMIT ?2)`,",
    replace: "SELECT rowid FROM tid_index WHERE updated_at < ?1 ORDER BY updated_at LIMIT ?2)`,",
    tests: ["test/integration/retention.test.ts"],
    why: "retention never deletes a pending claim: a create whose outcome is unknown still owns its tid",
  },
  {
    name: "replay-past-its-window",
    file: "src/creation.ts",
    find: "if (row.receipt_id !== null && now - row.updated_at <= replayMs) {",
    replace: "if (row.receipt_id !== null) {",
    tests: ["test/integration/retention.test.ts"],
    why: "issue 20: a replay is answered within TID_REPLAY_DAYS of the create, by the row's own time; past it, 409 naming the record",
  },
  {
    name: "tid-completion-not-owed",
    file: "src/receipt-object.ts",
    find: "if (rec.owed_completion !== null) {",
    replace: 'if (rec.owed_completion === "never") {',
    tests: ["test/integration/tid-replay.test.ts"],
    why: "issue 22: the tid row is completed after the answer; when the request's waitUntil did not, the record's alarm does",
  },
  {
    name: "tid-cache-believed-forever",
    file: "src/tid-cache.ts",
    find: "return now - entry.answered_at < retentionMs ? entry : null;",
    replace: "return entry;",
    tests: ["test/integration/tid-cache.test.ts"],
    why: "issue 22: a data center's memory of a tid stands for a row retention may have deleted: believed only inside its window",
  },
  {
    name: "tid-cache-not-remembered",
    file: "src/creation.ts",
    find: "return rememberTid(row.owner, row.tid, entry, retentionPolicy(env).tidRetentionMs);",
    replace: "return Promise.resolve(void entry);",
    tests: ["test/integration/tid-cache.test.ts"],
    why: "issue 22: check-tid and a retried create in the data center that answered the create need no D1 round trip",
  },
  {
    name: "sweep-record-calls-unbounded",
    file: "src/events/sweep.ts",
    find: "Math.max(1, Math.min(REQUEUE_LIMIT, Math.floor(SWEEP_RECORD_CALLS / Math.max(1, databases))));",
    replace: "REQUEUE_LIMIT + 0 * databases;",
    tests: ["test/integration/fanout.test.ts"],
    why: "issue 20: a cron run's calls to records for bodies stay bounded whatever the number of databases",
  },
  {
    name: "undelivered-events-pruned-early",
    file: "src/retention.ts",
    find: `pruneEvents(db, "pending", policy.undeliveredEventsMs, limit, now)`,
    replace: `pruneEvents(db, "pending", policy.deliveredEventsMs, limit, now)`,
    tests: ["test/integration/retention.test.ts"],
    why: "an event not yet delivered is kept for the longer window, so it can still be listed and resent",
  },

  // --- webhook signing ---------------------------------------------------------------------------
  {
    name: "signature-without-id",
    file: "src/events/signing.ts",
    find: "const content = new TextEncoder().encode(`${id}.${timestamp}.${body}`);",
    replace: "const content = new TextEncoder().encode(`${timestamp}.${body}`);",
    tests: ["test/unit/events-signing.test.ts"],
    why: 'Standard Webhooks signs "<id>.<timestamp>.<body>"',
  },
  {
    name: "signed-with-secret-text",
    file: "src/config-rules.ts",
    find: "decodeBase64(entry.slice(WEBHOOK_SECRET_PREFIX.length))",
    replace: "new TextEncoder().encode(entry.slice(WEBHOOK_SECRET_PREFIX.length))",
    tests: ["test/unit/events-signing.test.ts"],
    why: "the key is the bytes whsec_<base64> encodes, not its text",
  },
  {
    name: "rotation-signs-first-secret-only",
    file: "src/events/signing.ts",
    find: "  const signatures = await Promise.all(\n    keys.map(",
    replace: "  const signatures = await Promise.all(\n    keys.slice(0, 1).map(",
    tests: ["test/unit/events-signing.test.ts"],
    why: "during a rotation every delivery is signed with each secret",
  },
];
