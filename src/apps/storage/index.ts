import type { Readable } from 'node:stream';
import { defineApp, type CommandDecl, type HookDecl } from '../../kernel/app.js';
import { f } from '../../kernel/declare.js';
import { o } from '../../kernel/output.js';
import type { Env } from '../../kernel/env.js';
import type { KernelHandle } from '../../kernel/kernel-handle.js';
import { BadRequest, ValidationError } from '../../kernel/errors.js';
import { addVersion, checkUploadSize, createDocument, readText, storedObjects, type UploadInput } from './documents.js';
import { folderHooks } from './folders.js';
import manifest from './manifest.js';
import type { StorageBackend } from './backends/types.js';
import { backendFor, localBackendOf } from './router.js';
import { storageRoutes } from './routes.js';

type Rec = Record<string, unknown>;

/**
 * Base64 mode: the JSON body carries the content; the decoded content is bounded like any upload.
 * Form buttons with `special=file_upload` send the spec's `file_content` / `file_name` /
 * `file_mime`, which are accepted as synonyms.
 */
function decodeBase64(env: Env, p: Rec): Buffer {
  if (p.content_b64 === undefined && p.file_content === undefined) {
    // a missing field, like any other required one: 422 with the field named
    throw new ValidationError('"content_b64" (or "file_content") is required', {
      errors: [{ field: 'content_b64', code: 'REQUIRED', message: '"content_b64" is required' }],
    });
  }
  const b64 = String(p.content_b64 ?? p.file_content);
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(b64.replace(/\s/g, ''))) throw new BadRequest('content_b64 is not base64', { field: 'content_b64' }, 'INVALID_BASE64');
  const buf = Buffer.from(b64, 'base64');
  checkUploadSize(env, buf.length);
  return buf;
}

const meta = (p: Rec): Omit<UploadInput, 'content'> => ({
  filename: String(p.filename ?? p.file_name ?? p.name ?? 'file'),
  name: p.name as string | undefined,
  content_type: (p.content_type ?? p.file_mime) as string | undefined,
  description: p.description as string | undefined,
  tags: p.tags as string | undefined,
  owner_model: p.owner_model as string | undefined,
  owner_record_uuid: p.owner_record_uuid as string | undefined,
  folder: p.folder as string | undefined,
  change_note: p.change_note as string | undefined,
  declared_size: p.declared_size as number | undefined,
});

function streamOf(p: Rec): Readable {
  const s = p.stream as Readable | undefined;
  if (!s || typeof s.pipe !== 'function') throw new BadRequest('no content stream', undefined, 'NO_CONTENT');
  return s;
}

const uploadInput = {
  name: f.char(255),
  filename: f.char(255),
  content_b64: f.text({ description: 'File content, base64' }),
  content_type: f.char(120),
  // the names a form's file_upload button sends
  file_name: f.char(255),
  file_content: f.text(),
  file_mime: f.char(120),
  description: f.text(),
  tags: f.char(512),
  owner_model: f.char(100),
  owner_record_uuid: f.uuid(),
  folder: f.uuid({ description: 'Folder (empty = top level)' }),
};

const commands: CommandDecl[] = [
  {
    name: 'storage.document.upload',
    op: 'create',
    transaction: false,
    returns: 'record',
    description: 'Upload a new document (base64 content)',
    input: uploadInput,
    handler: (env, p) => createDocument(env, { ...meta(p), content: decodeBase64(env, p) }),
  },
  {
    name: 'storage.document.upload_stream',
    model: 'storage.document',
    op: 'create',
    transaction: false,
    file_upload: true,
    graphql_name: 'storageDocumentUploadFile',
    input: {
      name: f.char(255), description: f.text(), tags: f.char(512), owner_model: f.char(100), owner_record_uuid: f.uuid(),
      folder: f.uuid({ description: 'Folder (empty = top level)' }),
    },
    returns: 'record',
    description: 'Upload a new document from a byte stream (binary HTTP body)',
    handler: (env, p) => createDocument(env, { ...meta(p), content: streamOf(p) }),
  },
  {
    name: 'storage.document.add_version',
    op: 'update',
    record: true,
    transaction: false,
    returns: 'record',
    description: 'Upload a new version (base64 content); previous versions are kept',
    input: {
      filename: f.char(255), content_b64: f.text(), content_type: f.char(120), change_note: f.char(512),
      file_name: f.char(255), file_content: f.text(), file_mime: f.char(120),
    },
    handler: (env, p) => addVersion(env, String(p.id), { ...meta(p), content: decodeBase64(env, p) }),
  },
  {
    name: 'storage.document.add_version_stream',
    model: 'storage.document',
    op: 'update',
    record: true,
    transaction: false,
    file_upload: true,
    graphql_name: 'storageDocumentAddVersionFile',
    input: { change_note: f.char(512) },
    returns: 'record',
    description: 'Upload a new version from a byte stream',
    handler: (env, p) => addVersion(env, String(p.id), { ...meta(p), content: streamOf(p) }),
  },
  {
    name: 'storage.document.archive',
    op: 'update',
    record: true,
    returns: 'record',
    description: 'Soft delete: hide the document, keep its content',
    handler: (env, p) => env.sudo().dispatch('fw.update', { model: 'storage.document', id: p.id, values: { is_active: false } }),
  },
  {
    name: 'storage.document.unarchive',
    op: 'update',
    record: true,
    returns: 'record',
    description: 'Restore an archived document',
    handler: (env, p) => env.sudo().dispatch('fw.update', { model: 'storage.document', id: p.id, values: { is_active: true } }),
  },
  {
    name: 'storage.document.read_text',
    op: 'read',
    record: true,
    mutates: false,
    returns: 'json',
    output: o.object('DocumentText', { text: o.string({ description: 'The current version\'s content, decoded as UTF-8' }) }),
    description: 'Content of the current version as UTF-8 text (at most 1 MiB); used for connector file params',
    handler: async (env, p) => ({ text: await readText(env, String(p.id)) }),
  },
];

const hooks: HookDecl[] = [
  {
    // the stored objects go once the rows are gone: a rolled-back delete must not lose content,
    // and a backend failure is logged, never a veto
    point: 'pre.storage.document.delete',
    async handler(ctx) {
      const env = ctx.env.sudo();
      const objects = await storedObjects(env, String(ctx.before!.id));
      // backends are resolved now, while the transaction is open: connector backends read their
      // config from the database, and this env's transaction is closed once afterCommit runs
      const targets: Array<{ key: string; backend: StorageBackend | null; error?: unknown }> = [];
      for (const o of objects) {
        try {
          targets.push({ key: o.key, backend: await backendFor(env, o.connector_id, o.storage_backend) });
        } catch (error) {
          targets.push({ key: o.key, backend: null, error });
        }
      }
      ctx.env.afterCommit(() => {
        void (async () => {
          for (const t of targets) {
            try {
              if (!t.backend) throw t.error;
              await t.backend.delete(t.key);
            } catch (err) {
              console.warn(`[fw] storage: could not delete ${t.key}: ${String(err)}`);
            }
          }
        })();
      });
    },
  },
  ...folderHooks,
];

/**
 * Temp files of uploads a killed process left (issue 17 §1): swept in the background at boot, so a
 * large storage tree never delays it; the settings are read (and checked) now, so a bad
 * STORAGE_TEMP_GRACE_SECONDS stops the boot.
 */
function sweepAtBoot(kernel: KernelHandle): void {
  const backend = localBackendOf(kernel.settings);
  backend.sweepTempFiles().then(
    (removed) => {
      if (removed.length) kernel.log('info', `storage: removed ${removed.length} temp file(s) of interrupted uploads under ${backend.root}`, { files: removed.slice(0, 20) });
    },
    (err: unknown) => kernel.log('warn', `storage: sweeping the temp files under ${backend.root} failed`, { err: String(err) }),
  );
}

export const app = defineApp({ manifest, commands, hooks, routes: storageRoutes, boot: sweepAtBoot });
