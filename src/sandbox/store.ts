/**
 * The sandbox's rows and the rules every operation shares: a read of a
 * receipt or transfer settles what fell due (src/sandbox/clockwork.ts), one tid
 * space for both kinds, the OTP counters, and the log of the calls it
 * answered. The receipt and transfer operations (src/sandbox/receipts.ts,
 * src/sandbox/transfers.ts) work through it, inside one call of the
 * sandbox's Durable Object, so no two of them interleave.
 */
import { type Failure, fail, type OtpVerdict, type SandboxCall } from "./answers";
import { CORRECT_OTP, MAX_WRONG_OTPS } from "./catalog";
import { fiscalData, latePay, lateTransferPay, supplierAnswer } from "./clockwork";
import { ensureSchema } from "./schema";
import { type ReceiptRow, receiptBody, State, type TransferRow, transferBody, type WireReceipt, type WireTransfer } from "./wire";

export const randomHex = (bytes: number) =>
  Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join("");
/**
 * A record's own time: the sandbox's, plus how far its test clock moved it
 * (POST /__sandbox/receipts/{id}/advance). Every rule about one record reads
 * this, never Date.now() alone, so moving one record's time moves no other's.
 */
export const nowOf = (row: { clock_offset_ms: number }): number => Date.now() + row.clock_offset_ms;

export const rrn = () => String(100_000_000_000 + (Number.parseInt(randomHex(5), 16) % 900_000_000_000));

export class SandboxStore {
  readonly sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.sql = sql;
    ensureSchema(sql);
  }

  // --- rows -----------------------------------------------------------------

  /** Every read of a receipt settles a due supplier answer, then a due late pay, then due fiscal data, unless told not to. */
  receipt(id: string, settle = true): ReceiptRow | undefined {
    const read = () => this.sql.exec<ReceiptRow>("SELECT * FROM receipts WHERE id = ?", id).toArray()[0];
    let row = read();
    if (!row || !settle) return row;
    for (const due of [supplierAnswer, latePay, fiscalData] as const) {
      const fields = due(row, nowOf(row), rrn);
      if (fields) {
        this.update("receipts", id, fields);
        row = read()!;
      }
    }
    return row;
  }

  /** Every read of a transfer settles a due late pay first, unless told not to. */
  transfer(id: string, settle = true): TransferRow | undefined {
    const row = this.sql.exec<TransferRow>("SELECT * FROM transfers WHERE id = ?", id).toArray()[0];
    const fields = row && settle ? lateTransferPay(row, nowOf(row)) : null;
    if (!fields) return row;
    this.update("transfers", id, fields);
    return this.transfer(id, false);
  }

  receiptBody(id: string): WireReceipt {
    return receiptBody(this.receipt(id)!);
  }

  transferBody(id: string): WireTransfer {
    return transferBody(this.transfer(id)!);
  }

  /** Column names come from the sandbox's own modules only, never from a request. */
  update(table: "receipts", id: string, fields: Partial<ReceiptRow>): void;
  update(table: "transfers", id: string, fields: Partial<TransferRow>): void;
  update(table: string, id: string, fields: Record<string, unknown>): void {
    const entries = Object.entries(fields);
    const set = entries.map(([column]) => `${column} = ?`).join(", ");
    this.sql.exec(`UPDATE ${table} SET ${set} WHERE id = ?`, ...entries.map(([, value]) => value), id);
  }

  // --- shared rules ---------------------------------------------------------

  /** Receipts and transfers share one tid space, as the contract requires. */
  tidTaken(tid: string): Failure | null {
    const taken = this.sql.exec<{ kind: string; record_id: string }>("SELECT kind, record_id FROM tids WHERE tid = ?", tid).toArray()[0];
    if (!taken) return null;
    const existing = taken.kind === "receipt" ? { receipt: this.receiptBody(taken.record_id) } : { transfer: this.transferBody(taken.record_id) };
    return fail(409, "TID_DUPLICATE", "tid is already used", existing);
  }

  /**
   * Every submitted OTP counts as received; the third wrong one cancels the
   * record. One that is not `live` (never sent, or past its lifetime) is
   * refused unjudged, right or wrong. The failure carries the record as it
   * stands afterwards.
   */
  checkOtp(
    table: "receipts" | "transfers",
    record: { id: string; wrong_otps: number; clock_offset_ms: number },
    otp: string | undefined,
    live: boolean,
  ): Failure | null {
    const verdict = this.#submitOtp(table, record, otp, live);
    if (verdict === "correct") return null;
    const current = table === "receipts" ? { receipt: this.receiptBody(record.id) } : { transfer: this.transferBody(record.id) };
    switch (verdict) {
      case "missing":
        return fail(400, "OTP_REQUIRED", "An OTP is required to pay");
      case "expired":
        return fail(400, "OTP_EXPIRED", "No OTP was sent for this receipt, or it has expired; authorize again", current);
      case "wrong":
        return fail(400, "OTP_INVALID", "OTP is incorrect", { attempts_left: MAX_WRONG_OTPS - record.wrong_otps - 1, ...current });
      case "exceeded":
        return fail(400, "OTP_ATTEMPTS_EXCEEDED", "Too many incorrect OTPs; the receipt is cancelled", { attempts_left: 0, ...current });
    }
  }

  #submitOtp(
    table: "receipts" | "transfers",
    record: { id: string; wrong_otps: number; clock_offset_ms: number },
    otp: string | undefined,
    live: boolean,
  ): OtpVerdict {
    if (otp === undefined || otp === "") return "missing";
    if (!live) {
      // Only receipts have a send step, so only they are ever not live.
      this.sql.exec("UPDATE receipts SET otp_attempts = otp_attempts + 1, expired_otps = expired_otps + 1 WHERE id = ?", record.id);
      return "expired";
    }
    if (otp === CORRECT_OTP) {
      this.sql.exec(`UPDATE ${table} SET otp_attempts = otp_attempts + 1 WHERE id = ?`, record.id);
      return "correct";
    }
    const wrong = record.wrong_otps + 1;
    if (wrong < MAX_WRONG_OTPS) {
      this.sql.exec(`UPDATE ${table} SET otp_attempts = otp_attempts + 1, wrong_otps = ? WHERE id = ?`, wrong, record.id);
      return "wrong";
    }
    this.sql.exec(
      `UPDATE ${table} SET otp_attempts = otp_attempts + 1, wrong_otps = ?, state = ?, cancelled_ms = ?, error = ? WHERE id = ?`,
      wrong,
      State.cancelled,
      nowOf(record),
      "OTP attempts exceeded",
      record.id,
    );
    return "exceeded";
  }

  // --- call log (lets tests prove what did or did not reach the upstream) ---

  recordCall(call: Omit<SandboxCall, "seq" | "at">): void {
    this.sql.exec(
      "INSERT INTO calls (at, path, tid, id, status, code, request_id, otp) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      Date.now(),
      call.path,
      call.tid,
      call.id,
      call.status,
      call.code,
      call.request_id,
      call.otp ? 1 : 0,
    );
  }

  /** Oldest first; with `id`, only the calls naming that record. */
  calls(id?: string): SandboxCall[] {
    const rows =
      id === undefined
        ? this.sql.exec<Omit<SandboxCall, "otp"> & { otp: number }>("SELECT * FROM calls ORDER BY seq")
        : this.sql.exec<Omit<SandboxCall, "otp"> & { otp: number }>("SELECT * FROM calls WHERE id = ? ORDER BY seq", id);
    return rows.toArray().map((row) => ({ ...row, otp: row.otp === 1 }));
  }
}
