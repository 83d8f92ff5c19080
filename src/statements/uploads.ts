/**
 * The statement's two files in R2 (`STATEMENTS`), each a multipart upload
 * written a part of PART_BYTES at a time (R2 wants every part but the last
 * of one size); what is short of a part is the caller's to keep.
 */
import type { Upload } from "./run";

export const PART_BYTES = 5 * 1024 * 1024;

export async function openUpload(bucket: R2Bucket, key: string, contentType: string): Promise<Upload> {
  const upload = await bucket.createMultipartUpload(key, { httpMetadata: { contentType } });
  return { key, uploadId: upload.uploadId, parts: [], bytes: 0 };
}

/** Appends text to a file: every full part uploaded, the rest given back to keep for the next; the last call completes the file. */
export async function appendToUpload(bucket: R2Bucket, upload: Upload, tail: Uint8Array, text: string, last: boolean): Promise<Uint8Array> {
  const added = new TextEncoder().encode(text);
  let bytes = new Uint8Array(tail.length + added.length);
  bytes.set(tail);
  bytes.set(added, tail.length);
  const multipart = bucket.resumeMultipartUpload(upload.key, upload.uploadId);
  while (bytes.length >= PART_BYTES) {
    upload.parts.push(await multipart.uploadPart(upload.parts.length + 1, bytes.slice(0, PART_BYTES)));
    upload.bytes += PART_BYTES;
    bytes = bytes.slice(PART_BYTES);
  }
  if (last) {
    if (bytes.length > 0 || upload.parts.length === 0) {
      upload.parts.push(await multipart.uploadPart(upload.parts.length + 1, bytes));
      upload.bytes += bytes.length;
    }
    await multipart.complete(upload.parts);
    return new Uint8Array(0);
  }
  return bytes;
}

export async function abortUploads(bucket: R2Bucket, uploads: readonly Upload[]): Promise<void> {
  for (const upload of uploads) {
    try {
      await bucket.resumeMultipartUpload(upload.key, upload.uploadId).abort();
    } catch {
      // Gone already: R2 aborts an upload left incomplete by itself after a while.
    }
  }
}
