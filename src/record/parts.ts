/**
 * A record object's parts, wired once per incarnation: each owns its slice
 * of the record's row (RecordStore.slice refuses a column claimed twice) and
 * sees only the storage and the parts it works with, never the object.
 */

import { readConfig } from "../config/config";
import { retentionPolicy } from "../config/retention-policy";
import { lateReadSchedule } from "../rules/schedule";
import { Alarm } from "./alarm";
import { AuditExport } from "./audit-export";
import { Completion } from "./completion";
import { RecordEnd } from "./end";
import { Expiry } from "./expiry";
import { FiscalWatch } from "./fiscal";
import { Keys } from "./keys";
import { LateReads } from "./late-reads";
import { OtpLedger } from "./otp-ledger";
import { Outbox } from "./outbox";
import { Reconciler } from "./reconciler";
import { Recorder } from "./recorder";
import { RecordStore } from "./store";
import { WriteAhead } from "./write-ahead";

export function recordParts(storage: DurableObjectStorage, env: Env) {
  const { environment, upstreamTimeoutMs, holdEnabled, expiry: windows, fiscalReads } = readConfig(env);
  const store = new RecordStore(storage);
  const alarm = new Alarm(storage);
  const outbox = new Outbox(store, env);
  const ledger = new OtpLedger(store, outbox, env);
  const lateReads = new LateReads(store, lateReadSchedule(environment));
  const fiscal = new FiscalWatch(store, outbox, env, fiscalReads);
  const recorder = new Recorder(store, outbox, ledger, lateReads, fiscal);
  const writeAhead = new WriteAhead(store, storage, alarm, upstreamTimeoutMs);
  const reconciler = new Reconciler({ store, ledger, recorder, writeAhead, lateReads, fiscal, upstreamTimeoutMs, holdEnabled, env });
  const end = new RecordEnd(store, alarm, env, retentionPolicy(env).recordRetentionMs, fiscal);
  const completion = new Completion(store, env, upstreamTimeoutMs);
  const keys = new Keys(storage, store);
  const expiry = new Expiry(store, outbox, ledger, windows);
  // Rule 15: the trail's entries, exported to the audit trail in R2.
  const audit = new AuditExport(store, env);
  // The record's own time (src/shared/clock.ts): moved only by the sandbox's test clock.
  const time = store.slice("clock", ["clock_offset"]);
  return { time, audit, store, alarm, outbox, ledger, lateReads, fiscal, recorder, writeAhead, reconciler, end, completion, keys, expiry };
}

export type RecordParts = ReturnType<typeof recordParts>;
