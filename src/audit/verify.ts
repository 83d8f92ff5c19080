/**
 * `npm run audit:verify`'s check of the audit trail (rule 15), over any
 * reader of the bucket: the local state, a deployment's bucket through R2's
 * S3 API (scripts/audit-verify.mjs), or the binding in the tests. Each chain
 * is walked from its oldest batch left (older ones end by retention) to its
 * head (`audit/heads/<chain>.json`):
 *
 * - **missing**: a seq with no batch, or a head that names a batch not there;
 * - **altered**: a batch whose SHA-256 is not what the next batch (or the
 *   head) names, and no rewrite in the chain leads from that hash to it;
 * - **out of order**: a batch whose header names another chain or seq than
 *   its key, or whose `prev` names another batch of the chain than the one
 *   before it;
 * - **rewritten** (not a problem): an erasure's rewrite, recorded in the
 *   chain (src/audit/writer.ts), leads from the hash the next batch names to
 *   the batch's hash now.
 *
 * Self-contained (Node runs it as it is, types stripped), so the script
 * needs nothing of the Worker.
 */

export interface BucketReader {
  /** Every key under `prefix`, in key order. */
  keys(prefix: string): Promise<string[]>;
  /** The object's bytes, or null when there is none. */
  get(key: string): Promise<Uint8Array | null>;
}

export type ProblemKind = "missing" | "altered" | "out_of_order";

export interface Problem {
  kind: ProblemKind;
  chain: string;
  seq: number;
  key: string;
  message: string;
}

export interface ChainReport {
  chain: string;
  first: number;
  last: number;
  batches: number;
  /** The chain's oldest batches ended by retention: it starts past seq 1. */
  trimmed: boolean;
}

export interface VerifyReport {
  chains: ChainReport[];
  problems: Problem[];
  /** Batches an erasure rewrote, each recorded in its chain. */
  rewritten: string[];
  entries: number;
  /** Entries found more than once (a record sent them again before its mark was written): the same entry, not a problem. */
  repeated: number;
}

const GENESIS = "0".repeat(64);
const BATCH_KEY = /^audit\/(\d{4}-\d{2}-\d{2})\/(\d{2})\/(w\d+)-(\d{10})\.ndjson$/;
const HEADS_PREFIX = "audit/heads/";
const HEAD_KEY = /^audit\/heads\/(w\d+)\.json$/;

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

interface Header {
  chain?: string;
  seq?: number;
  prev?: string;
  rewrite?: { key: string; seq: number; old: string; new: string };
}

interface Seen {
  key: string;
  hash: string;
  header: Header | null;
}

function parse(bytes: Uint8Array): { header: Header | null; ids: string[] } {
  const lines = new TextDecoder()
    .decode(bytes)
    .split("\n")
    .filter((line) => line !== "");
  let header: Header | null = null;
  const ids: string[] = [];
  lines.forEach((line, i) => {
    try {
      const value = JSON.parse(line);
      if (i === 0 && value && typeof value === "object" && "batch" in value) header = value.batch as Header;
      else if (value && typeof value.id === "string") ids.push(value.id);
    } catch {
      // Not JSON: the batch's hash says it was changed.
    }
  });
  return { header, ids };
}

/** Each chain's head (`audit/heads/<chain>.json`) as it reads now; a head that cannot be parsed names no batch. */
async function readHeads(reader: BucketReader): Promise<Map<string, { seq: number; hash: string; key: string }>> {
  const heads = new Map<string, { seq: number; hash: string; key: string }>();
  for (const key of await reader.keys(HEADS_PREFIX)) {
    const head = HEAD_KEY.exec(key);
    if (!head) continue;
    const bytes = await reader.get(key);
    try {
      const value = JSON.parse(new TextDecoder().decode(bytes ?? new Uint8Array()));
      heads.set(head[1]!, { seq: Number(value.seq), hash: String(value.hash), key: String(value.key) });
    } catch {
      heads.set(head[1]!, { seq: Number.NaN, hash: "", key: "" });
    }
  }
  return heads;
}

export async function verifyAudit(reader: BucketReader): Promise<VerifyReport> {
  // The heads are read before the batches are listed: a writer puts a batch before the head that names it, so
  // every batch a head read here names is in the listing after it, however busy the trail is meanwhile.
  const heads = await readHeads(reader);
  const listed = await reader.keys("audit/");
  const byChain = new Map<string, Map<number, string>>();
  for (const key of listed) {
    const batch = BATCH_KEY.exec(key);
    if (!batch) continue;
    const chain = batch[3]!;
    if (!byChain.has(chain)) byChain.set(chain, new Map());
    byChain.get(chain)!.set(Number(batch[4]), key);
  }
  const report: VerifyReport = { chains: [], problems: [], rewritten: [], entries: 0, repeated: 0 };
  const ids = new Set<string>();
  const problem = (kind: ProblemKind, chain: string, seq: number, key: string, message: string) =>
    report.problems.push({ kind, chain, seq, key, message });

  for (const chain of [...new Set([...byChain.keys(), ...heads.keys()])].sort()) {
    const batches = byChain.get(chain) ?? new Map<number, string>();
    const head = heads.get(chain);
    const seqs = [...batches.keys()].sort((a, b) => a - b);
    const first = seqs[0] ?? head?.seq ?? 0;
    const last = Math.max(seqs.at(-1) ?? 0, Number.isFinite(head?.seq) ? head!.seq : 0);
    const seen = new Map<number, Seen>();
    // A rewrite's record: from the hash a batch had to the one it has after (per batch key).
    const rewrites = new Map<string, Map<string, string>>();
    for (let seq = first; seq <= last; seq++) {
      const key = batches.get(seq);
      if (key === undefined) {
        problem(
          "missing",
          chain,
          seq,
          "",
          `${chain}: batch ${seq} is missing (between ${batches.get(seq - 1) ?? "the chain's start"} and ${batches.get(seq + 1) ?? "its head"})`,
        );
        continue;
      }
      const bytes = await reader.get(key);
      if (bytes === null) {
        problem("missing", chain, seq, key, `${key} is listed but cannot be read`);
        continue;
      }
      const { header, ids: entryIds } = parse(bytes);
      for (const id of entryIds) {
        report.entries++;
        if (ids.has(id)) report.repeated++;
        else ids.add(id);
      }
      seen.set(seq, { key, hash: await sha256Hex(bytes), header });
      if (header?.rewrite) {
        const to = rewrites.get(header.rewrite.key) ?? new Map<string, string>();
        to.set(header.rewrite.old, header.rewrite.new);
        rewrites.set(header.rewrite.key, to);
      }
    }
    /** Whether a batch that should hash to `expected` may now hash to `actual`: the same, or erasures recorded in turn. */
    const accounted = (key: string, expected: string, actual: string): "same" | "rewritten" | "altered" => {
      if (expected === actual) return "same";
      let hash = expected;
      const steps = rewrites.get(key);
      for (let i = 0; steps && i < 1000 && steps.has(hash); i++) {
        hash = steps.get(hash)!;
        if (hash === actual) return "rewritten";
      }
      return "altered";
    };
    const hashes = new Map([...seen].map(([seq, s]) => [s.hash, seq]));
    for (const [seq, batch] of seen) {
      const header = batch.header;
      if (!header || header.chain !== chain || header.seq !== seq) {
        problem(
          "out_of_order",
          chain,
          seq,
          batch.key,
          `${batch.key}: its header names ${header ? `${header.chain} batch ${header.seq}` : "no batch"}, not ${chain} batch ${seq}`,
        );
        continue;
      }
      if (seq === 1 && header.prev !== GENESIS)
        problem("out_of_order", chain, seq, batch.key, `${batch.key}: the chain's first batch names a batch before it`);
      // What the next batch (or the head, for the batch it names) says this one's hash is. A batch listed after
      // the head was read may be newer than the head: nothing names it yet.
      const next = seen.get(seq + 1);
      const expected = next ? next.header?.prev : head && seq === head.seq ? head.hash : undefined;
      if (expected === undefined) continue;
      const verdict = accounted(batch.key, expected, batch.hash);
      if (verdict === "rewritten") report.rewritten.push(batch.key);
      else if (verdict === "altered") {
        const other = hashes.get(expected);
        if (next && other !== undefined && other !== seq)
          problem("out_of_order", chain, seq + 1, next.key, `${next.key} names ${chain} batch ${other} as the one before it, not batch ${seq}`);
        else
          problem(
            "altered",
            chain,
            seq,
            batch.key,
            `${batch.key} was altered: its SHA-256 is not the one ${next ? next.key : "the chain's head"} names`,
          );
      }
    }
    report.chains.push({ chain, first, last, batches: seen.size, trimmed: first > 1 });
  }
  return report;
}
