/**
 * The prose of every operation, by operationId: what the OpenAPI document
 * and the /docs reference say of it beside its summary. Each operation's
 * description (src/operations/<section>.ts) names its own. One sentence a
 * line; the document joins them with a space.
 */
const prose = (...sentences: string[]): string => sentences.join(" ");

export const DOCS = {
  // --- Receipts
  createReceipt: prose(
    "Creates a receipt at the payment service.",
    "The `tid` is unique per caller (the partner's tids and each user's are separate spaces, rule 9): an identical retry by the same caller answers the original receipt with `Idempotent-Replayed: true` and creates nothing; any other use of a known tid is `tid_conflict`.",
    "The original answer is kept 7 days (`TID_REPLAY_DAYS`): later, an identical retry is `tid_conflict` naming the receipt to read with check-id or check-tid; after 90 days (`TID_RETENTION_DAYS`) the gateway forgets the tid and the payment service's own refusal of a used tid answers `tid_conflict`.",
    "`is_hold` needs the hold function enabled in the deployment.",
  ),
  authorizeReceipt: prose(
    "Sends a one-time code to the card owner.",
    "May be repeated to resend, once `wait` ms have passed (`otp_resend_too_soon` before), and at most 5 times per receipt.",
    "A user's send counts toward rule 13's limits: 20 a day for the user and 5 a day for the user and this card (`risk_limited` past either, with `Retry-After` from the user's own sends); the partner backend is exempt.",
  ),
  authorizeReceiptAnonymous: prose(
    "As authorize, with the card given by number and expiry.",
    "Neither is stored or logged.",
    "A user's call is also a use of the card as the payer's (rule 13, as anonymous pay's).",
  ),
  payReceipt: prose(
    "Debits the card.",
    "`otp` is required when the receipt's `is_verify` is true.",
    "The third wrong OTP cancels the receipt (`otp_attempts_exhausted`); OTP submissions for one receipt are serialized (`operation_in_progress` for one that arrives while another is in flight).",
    "A receipt created with `is_hold` ends in state 5 (held).",
  ),
  payReceiptAnonymous: prose(
    "As pay, with the card given by number and expiry; the OTP is always required.",
    "Answers the reduced receipt (no `cancel_date`, `is_verify`, `rrn`, `card_number`).",
    "Rule 13 counts a user's uses of a card number as the payer's: 5 an hour and 10 a day per user and card, 5 cards a day per user, and 3 users a day per card, where a user the card already admitted is never refused; past a limit, `risk_limited` with `rule` and `Retry-After` from the caller's own window, before the payment service is called.",
    "A request refused before the gateway acts (its body, its Idempotency-Key, the caller's rights, a replay, a rate limit, the receipt's state) counts nothing; the partner backend is exempt.",
  ),
  confirmHold: prose("Debits the held amount (state 5 to 4) and fiscalizes the sale.", "Needs the hold function enabled in the deployment."),
  cancelReceipt: prose(
    "Cancels a created, held or paid receipt (state 21).",
    "Refused in state 21 or 57 and for QR merchants (`cancel_not_allowed`).",
    "Users may cancel only unpaid receipts; cancelling a paid one is for the partner backend.",
    "A user's cancel tells the payment service the deployment's own name as `cancelledBy`, whatever the body says; the partner's sends the one it gives.",
  ),
  checkReceiptById: prose(
    "Asks the payment service for the receipt as it stands now and answers it (while another operation on it is in flight, the gateway's latest view).",
  ),
  checkReceiptByTid: prose(
    "Finds the receipt through the gateway's tid index, then answers it as check-id does.",
    "Transfer tids are not receipts: use a2c/get-by-id.",
  ),

  // --- Transfers (a2c)
  createTransfer: prose(
    "Creates a transfer receipt from the sender's card (token) to a receiver card (number).",
    "Transfer tids share the caller's tid space with receipts (same replay and conflict rules); `tId`, the upstream's spelling, is accepted for `tid`.",
    "When the answer's `is_verify` is true, a2c/pay needs the OTP sent to the sender.",
    "The sender's token is never echoed back.",
    "A user's `receiver_card` counts toward rule 13's distinct receiver cards of the user (20 a day, `risk_limited` past it) and toward nothing else: a card may receive from many people. Counted once the tid is the request's own, so a replay or a `tid_conflict` counts nothing, and a create refused by rule 13 frees its tid.",
  ),
  payTransfer: prose(
    "Sends the money.",
    "`otp` is required when the transfer's `is_verify` is true.",
    "The third wrong OTP closes the transfer at the gateway: that answer and every later pay are `otp_attempts_exhausted`, and get-by-id shows the state the payment service reports (it has no cancel for transfers); OTP submissions are serialized; a paid transfer is never paid twice.",
  ),
  getTransfer: prose(
    "Asks the payment service for the transfer as it stands now and answers it (while another operation on it is in flight, the gateway's latest view).",
  ),

  // --- The gateway's own (partner only)
  auditReceipt: prose(
    "Every operation on the record, oldest first: when, which operation, who (`partner`, `user:<sub>`, or `gateway` for its own reconciliation), the request id, the outcome (`ok` or the error code) and the state after it.",
    "No card data is ever in it.",
  ),
  searchAudit: prose(
    "The audit trail kept in R2 for `AUDIT_RETENTION_DAYS` (a year), oldest first (rule 15): a receipt's or transfer's entries (`receipt_id`: the same entries receipt/audit shows while its record lives, and after its end), a user's (`user`), or a staff member's views and actions in the back office (`staff`), between `from` and `to` (milliseconds, at most 31 days apart), and every call to the gateway's own operations naming them.",
    "Entries appear within about a minute (`AUDIT_FLUSH_SECONDS`); no card data, key or token is ever in one, and a user's erasure masks their account values and phone numbers in them.",
    "Page with `after`: the `next` of the page before; a page reads a bounded slice of the trail, so it may hold fewer than `limit` entries while `has_more` is true.",
  ),
  listStatements: prose(
    "The daily statements written (rule 16), newest first: each day in STATEMENT_TIMEZONE, its lines, checks and mismatches, and its totals per merchant and change.",
    "The files themselves: `GET /api/v1/gateway/statements/{date}.csv` and `.json`. Page with `after`: the last date of the page before.",
  ),
  rebuildStatement: prose(
    "Writes the day's statement again from the event log (rule 16): the nightly run writes each day once, after midnight in STATEMENT_TIMEZONE; this starts it over (today's too, as far as it has gone: `complete` false, and the nightly run writes it again).",
    "Answers 202 at once (`state` building): the statement is written in steps (a day of a few thousand receipts within a second or two), the day's previous files served meanwhile; statements/list shows it `ready` when done. A day older than the event log keeps whole (EVENTS_DELIVERED_RETENTION_DAYS) is refused. Every rebuild is in the audit trail.",
  ),
  listEvents: prose(
    "Events newest first, with how their delivery to WEBHOOK_URL stands, optionally only one receipt's (or transfer's), one type, or one delivery status.",
    "Page with `after`: the last id of the page before.",
  ),
  resendEvent: prose(
    "Sends the event again, whatever its delivery status (typically `failed`), with the same `webhook-id`: its status is `pending` until that delivery's outcome.",
    "An unknown id is 404 `not_found`.",
  ),
  eraseUser: prose(
    "Erases the user's personal data (rule 10): within 24 hours (in development within a minute) every phone number and `account` value of the receipts and transfers the user created is starred but its first and last two characters, in the tid index, the event log, the records and the audit trail in R2 (each batch's rewrite recorded in its chain); ids, amounts, states and times stay, and later events and answers carry the values erased.",
    "Answers 202 at once; asking again starts over (and takes in what the user created since).",
  ),
  listFiscalPending: prose(
    "The receipts whose fiscal receipt is still missing (rule 14), oldest first, so that they can be chased with the payment service: paid (state 4) with an `ofd` that shows no fiscal sign or QR address, or cancelled after they were paid (21) with no fiscal data of the refund.",
    "The gateway reads each again on its own (FISCAL_READS: in production 5 minutes, 1 hour and 24 hours after the payment or refund) until the data shows; then it stores it, sends `receipt.fiscalized` (or `receipt.refund_fiscalized`) and takes the receipt off the list. After the last scheduled read a receipt stays listed; a check-id that finds the data ends it the same way.",
    "Page with `after`: the last id of the page before (one that left the list meanwhile still marks the place).",
  ),
};
