import crypto from 'node:crypto';
import type { Readable } from 'node:stream';
import mime from 'mime-types';
import { delegateOf } from '../../kernel/data/delegate.js';
import type { Env } from '../../kernel/env.js';
import { BadRequest, NotFound, PayloadTooLarge, ValidationError } from '../../kernel/errors.js';
import { StoragePayloadTooLarge } from './backends/errors.js';
import { displayFilename, documentKey } from './backends/keys.js';
import type { GetResult, ObjectReference, StorageBackend } from './backends/types.js';
import { checkDocumentFolder } from './folders.js';
import { backendFor, uploadTarget } from './router.js';
import { uploadLimit } from './settings.js';
import { formatBytes } from '../../kernel/bytes.js';

type Rec = Record<string, unknown>;

export interface UploadInput {
  content: Readable | Buffer;
  filename: string;
  name?: string;
  content_type?: string;
  description?: string;
  tags?: string;
  owner_model?: string;
  owner_record_uuid?: string;
  /** Folder of a new document (empty = top level). */
  folder?: string;
  change_note?: string;
  /** Bytes the transport already knows it will send (Content-Length), to refuse early. */
  declared_size?: number;
}

const versions = (env: Env) => delegateOf(env.db, env.registry.model('storage.document_version'));

function contentTypeOf(input: UploadInput, filename: string): string {
  const t = input.content_type?.split(';')[0].trim();
  if (t && /^[\w.+-]+\/[\w.+-]+$/.test(t) && t.length <= 120) return t;
  return mime.lookup(filename) || 'application/octet-stream';
}

/** The uploading user's organization: documents belong to it and its storage connector stores them. */
function organizationOf(env: Env): string | null {
  return env.principal.organization_id ?? null;
}

/** The one refusal of an upload over the limit, whether it was declared or counted while streaming. */
function uploadTooLarge(env: Env): PayloadTooLarge {
  const { limit, setting } = uploadLimit(env.settings);
  // the setting's name is for administrators: it stays in `details`, the sentence is for people
  return new PayloadTooLarge(`the file is larger than ${formatBytes(limit)}, the most this server accepts`, { limit, setting });
}

/** 413 before any byte is stored, when the transport already says the upload is too large. */
export function checkUploadSize(env: Env, size: number | undefined): void {
  if (size !== undefined && size > uploadLimit(env.settings).limit) throw uploadTooLarge(env);
}

async function store(env: Env, docId: string, version: number, input: UploadInput, org: string | null) {
  // one limit for every entry point; a stream without a known length is cut off by the backend
  const { limit: max } = uploadLimit(env.settings);
  checkUploadSize(env, Buffer.isBuffer(input.content) ? input.content.length : input.declared_size);
  // the record keeps the name as given (made safe to show); the key, a shorter one that fits
  // every backend's name limits (UTF-8 bytes, the local backend's temp name)
  const filename = displayFilename(input.filename);
  const target = await uploadTarget(env, org);
  const key = documentKey(env.tenant, org ?? '', docId, version, filename);
  const ref: ObjectReference = await target.backend.put(key, input.content, { mime_type: contentTypeOf(input, filename), max_bytes: max })
    .catch((err: unknown) => {
      // cut off while streaming: the same refusal as a declared size over the limit
      throw err instanceof StoragePayloadTooLarge ? uploadTooLarge(env) : err;
    });
  return { ref, filename, target };
}

/** Version fields shared by the document (its current version) and the version row. */
const versionValues = (ref: ObjectReference, filename: string, contentType: string, target: { connector_id: string | null; storage_backend: string }) => ({
  original_filename: filename,
  content_type: contentType,
  file_size: ref.size,
  checksum: ref.checksum.replace(/^sha256:/, ''),
  storage_backend: target.storage_backend,
  connector_id: target.connector_id,
  storage_key: ref.key,
  storage_object_id: ref.object_id || null,
});

/**
 * Removes a stored object once, whoever asks first: the upload's own failure, or the rollback of
 * a surrounding transaction (a batch of creates whose later item fails) that takes the rows with it.
 */
function discardOnce(backend: StorageBackend, key: string): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= backend.delete(key));
}

/**
 * A new document: the content streams to the routed backend first (outside any transaction),
 * then document and version 1 are written in one transaction. If that fails, or a surrounding
 * transaction (a batch) rolls back later, the stored object is removed again, so nothing is left
 * behind either way.
 */
export async function createDocument(env: Env, input: UploadInput): Promise<Rec> {
  if (input.owner_model && !env.registry.models.has(input.owner_model)) {
    throw new ValidationError(`owner_model "${input.owner_model}" is not a model`, { field: 'owner_model' }, 'INVALID_OWNER');
  }
  const docId = crypto.randomUUID();
  const org = organizationOf(env);
  // checked as the caller before any byte is stored (the document is then written as the system)
  if (input.folder) await checkDocumentFolder(env, input.folder, org);
  const { ref, filename, target } = await store(env, docId, 1, input, org);
  const contentType = contentTypeOf(input, filename);
  const discard = discardOnce(target.backend, ref.key);
  try {
    return await env.transaction(async (tx) => {
      // registered on the transaction the rows are written in: the batch's, when there is one
      tx.onRollback(discard);
      const values = versionValues(ref, filename, contentType, target);
      const sys = tx.sudo();
      await sys.dispatch('fw.create', {
        model: 'storage.document',
        record_uuid: docId,
        values: {
          ...values,
          name: input.name || filename,
          description: input.description ?? null,
          tags: input.tags ?? null,
          owner_model: input.owner_model ?? null,
          owner_record_uuid: input.owner_record_uuid ?? null,
          folder: input.folder || null,
          owner_id: env.principal.user_id,
          organization_id: org,
          version_count: 1,
          current_version: 1,
        },
      });
      await sys.dispatch('fw.create', {
        model: 'storage.document_version',
        values: { ...values, document_id: docId, version_number: 1, change_note: input.change_note ?? null, uploaded_by: env.principal.user_id },
      });
      return tx.dispatch<Rec>('fw.read_one', { model: 'storage.document', id: docId });
    });
  } catch (err) {
    await discard().catch(() => undefined);
    throw err;
  }
}

/**
 * Version uploads of one document run one after another in this process: two at once would both
 * claim version N+1 and write the same key, so the second write replaced the first's object and
 * the loser's cleanup then deleted the object the winner's row points at.
 */
const versionQueues = new Map<string, Promise<unknown>>();
async function oneAtATime<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const run = (versionQueues.get(key) ?? Promise.resolve()).then(fn);
  const tail = run.catch(() => undefined);
  versionQueues.set(key, tail);
  try {
    return await run;
  } finally {
    if (versionQueues.get(key) === tail) versionQueues.delete(key);
  }
}

/** Version N+1: previous versions stay; the document points at the new one. */
export function addVersion(env: Env, documentId: string, input: UploadInput): Promise<Rec> {
  return oneAtATime(`${env.tenant}:${documentId}`, () => addVersionNow(env, documentId, input));
}

async function addVersionNow(env: Env, documentId: string, input: UploadInput): Promise<Rec> {
  // the command's record check already required update rights on the document
  const doc = await env.dispatch<Rec>('fw.read_one', { model: 'storage.document', id: documentId });
  const next = (doc.current_version as number) + 1;
  const { ref, filename, target } = await store(env, doc.id as string, next, input, (doc.organization_id as string) ?? null);
  const contentType = contentTypeOf(input, filename);
  const discard = discardOnce(target.backend, ref.key);
  try {
    return await env.transaction(async (tx) => {
      tx.onRollback(discard);
      const values = versionValues(ref, filename, contentType, target);
      await tx.sudo().dispatch('fw.create', {
        model: 'storage.document_version',
        values: { ...values, document_id: doc.id, version_number: next, change_note: input.change_note ?? null, uploaded_by: env.principal.user_id },
      });
      // across processes, the revision check makes two concurrent uploads of version N+1 fail one of them
      await tx.sudo().dispatch('fw.update', {
        model: 'storage.document', id: doc.id, revision: doc.revision,
        values: { ...values, current_version: next, version_count: (doc.version_count as number) + 1 },
      });
      return tx.dispatch<Rec>('fw.read_one', { model: 'storage.document', id: doc.id });
    });
  } catch (err) {
    await discard().catch(() => undefined);
    throw err;
  }
}

export interface StoredVersion {
  document_id: string;
  version_number: number;
  filename: string;
  content_type: string;
  size: number;
  checksum: string;
  storage_key: string;
  connector_id: string | null;
  storage_backend: string;
}

/** The version (latest by default) of a document the caller can read. */
export async function findVersion(env: Env, documentId: string, versionNumber?: number): Promise<StoredVersion> {
  const doc = await env.dispatch<Rec>('fw.read_one', { model: 'storage.document', id: documentId });
  const n = versionNumber ?? (doc.current_version as number);
  const row = await versions(env).findFirst({ where: { document_id: doc.id, version_number: n } });
  if (!row) throw new NotFound(`document ${documentId} has no version ${n}`, { id: documentId, version_number: n }, 'VERSION_NOT_FOUND');
  return {
    document_id: doc.id as string,
    version_number: n,
    filename: row.original_filename as string,
    content_type: (row.content_type as string) || 'application/octet-stream',
    size: row.file_size as number,
    checksum: row.checksum as string,
    storage_key: row.storage_key as string,
    connector_id: (row.connector_id as string) ?? null,
    storage_backend: row.storage_backend as string,
  };
}

/** Opens a version's content on the backend it was written to (routing rule 2). */
export async function openVersion(env: Env, v: StoredVersion, range?: { start: number; end: number }): Promise<GetResult> {
  return (await backendFor(env, v.connector_id, v.storage_backend)).get(v.storage_key, range);
}

/** Every stored object of a document, to delete after its rows are gone. */
export async function storedObjects(env: Env, documentId: string): Promise<Array<{ key: string; connector_id: string | null; storage_backend: string }>> {
  const rows = await versions(env).findMany({ where: { document_id: documentId }, select: { storage_key: true, connector_id: true, storage_backend: true } });
  return rows.map((r) => ({ key: r.storage_key as string, connector_id: (r.connector_id as string) ?? null, storage_backend: r.storage_backend as string }));
}

export async function readText(env: Env, documentId: string, maxBytes = 1024 * 1024): Promise<string> {
  const v = await findVersion(env, documentId);
  if (v.size > maxBytes) throw new BadRequest(`document ${documentId} is larger than ${maxBytes} bytes`, undefined, 'DOCUMENT_TOO_LARGE');
  const d = await openVersion(env, v);
  if (d.size > maxBytes) throw new BadRequest(`document ${documentId} is larger than ${maxBytes} bytes`, undefined, 'DOCUMENT_TOO_LARGE');
  const chunks: Buffer[] = [];
  for await (const c of d.stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
