/**
 * The receipt object's parts, wired once per incarnation: each sees only the
 * storage and the parts it works with, never the object.
 */
import { readConfig } from "../config";
import { lateReadSchedule } from "../lifecycle";
import { retentionPolicy } from "../retention";
import { Alarm } from "./alarm";
import { Completion } from "./completion";
import { RecordEnd } from "./end";
import { OtpLedger } from "./otp-ledger";
import { Outbox } from "./outbox";
import { Outcomes } from "./outcomes";
import { Reconciler } from "./reconciler";
import { Recorder } from "./recorder";
import { RecordStore } from "./store";
import { WriteAhead } from "./write-ahead";

export function recordParts(storage: DurableObjectStorage, env: Env) {
  const { environment, upstreamTimeoutMs, holdEnabled } = readConfig(env);
  const lateReads = lateReadSchedule(environment);
  const store = new RecordStore(storage);
  const alarm = new Alarm(storage);
  const outbox = new Outbox(store, env);
  const ledger = new OtpLedger(store, outbox);
  const recorder = new Recorder(store, outbox, ledger, lateReads);
  const writeAhead = new WriteAhead(store, storage, alarm, upstreamTimeoutMs);
  const reconciler = new Reconciler({ store, ledger, recorder, writeAhead, upstreamTimeoutMs, lateReads, holdEnabled });
  const outcomes = new Outcomes({ store, writeAhead, ledger, recorder, reconciler });
  const end = new RecordEnd(store, alarm, env, retentionPolicy(env).recordRetentionMs);
  const completion = new Completion(store, env);
  return { store, alarm, outbox, ledger, recorder, writeAhead, reconciler, outcomes, end, completion };
}
