import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import mime from 'mime-types';
import { StorageIntegrityError, StorageKeyError, StorageNotFoundError, StoragePayloadTooLarge, StorageTransientError, type StorageContext } from '../errors.js';
import { checkKey, checkPrefix } from '../keys.js';
import type { ObjectReference, PutMetadata, StorageBackend } from '../types.js';

const TMP = /^\..*\.fwtmp$/;

/** Counts bytes and hashes them as they pass; fails once over `max`. */
export function hashingCounter(ctx: StorageContext, max?: number) {
  const hash = crypto.createHash('sha256');
  let size = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      size += chunk.length;
      if (max !== undefined && size > max) return cb(new StoragePayloadTooLarge(ctx, max));
      hash.update(chunk);
      cb(null, chunk);
    },
  });
  return { stream, result: () => ({ size, checksum: `sha256:${hash.digest('hex')}` }) };
}

/**
 * Bytes per file read and per buffered write: 1 MiB instead of Node's 64 KiB (reads) and 16 KiB
 * (writes) cuts the system calls and thread-pool round trips of a 50 MB object by 16×, and
 * stays far below the 32 MB memory budget of a transfer.
 */
const CHUNK = 1024 * 1024;

/**
 * The built-in filesystem backend. Writes stream into a temp file in the target directory,
 * hashing on the way, then fsync and rename: a reader sees the whole object or none, and a
 * crash mid-write leaves only a hidden temp file that listings ignore.
 */
export function createLocalBackend(opts: { root: string; backend_key?: string }): StorageBackend {
  const backend_key = opts.backend_key ?? 'local';
  const root = path.resolve(opts.root);
  const resolve = (key: string, operation: string): string => {
    checkKey(key, backend_key, operation);
    const full = path.resolve(root, key);
    if (!full.startsWith(root + path.sep)) throw new StorageKeyError({ backend_key, key, operation }, 'the key resolves outside the storage root');
    return full;
  };
  const mimeOf = (key: string, given?: string) => given || (mime.lookup(key) || 'application/octet-stream');
  const notFound = (err: unknown, ctx: StorageContext): never => {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new StorageNotFoundError(ctx);
    if (code === 'EMFILE' || code === 'EAGAIN' || code === 'EBUSY') throw new StorageTransientError(ctx);
    throw err;
  };

  return {
    backend_key,
    capabilities: { directories: true, atomic_put: true, resumable_upload: false, integrity_checksum: true, native_sharing: false },

    async put(key: string, content: Readable | Buffer, meta: PutMetadata = {}): Promise<ObjectReference> {
      const ctx = { backend_key, key, operation: 'put' };
      const target = resolve(key, 'put');
      await fsp.mkdir(path.dirname(target), { recursive: true });
      const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${crypto.randomBytes(6).toString('hex')}.fwtmp`);
      const counter = hashingCounter(ctx, meta.max_bytes);
      try {
        const source = Buffer.isBuffer(content) ? Readable.from([content]) : content;
        await pipeline(source, counter.stream, fs.createWriteStream(tmp, { flags: 'wx', highWaterMark: CHUNK }));
        const fh = await fsp.open(tmp, 'r');
        await fh.sync();
        await fh.close();
        const { size, checksum } = counter.result();
        if (meta.checksum && meta.checksum !== checksum) throw new StorageIntegrityError(ctx);
        await fsp.rename(tmp, target);
        return { backend_key, key, object_id: '', checksum, size, mime_type: mimeOf(key, meta.mime_type) };
      } catch (err) {
        await fsp.rm(tmp, { force: true });
        throw err;
      }
    },

    async get(key, range) {
      const ctx = { backend_key, key, operation: 'get' };
      const file = resolve(key, 'get');
      const stat = await fsp.stat(file).catch((e) => notFound(e, ctx));
      const stream = fs.createReadStream(file, { highWaterMark: CHUNK, ...(range ? { start: range.start, end: range.end } : {}) });
      return { stream, size: range ? range.end - range.start + 1 : stat.size, mime_type: mimeOf(key) };
    },

    async delete(key) {
      await fsp.unlink(resolve(key, 'delete')).catch((e) => notFound(e, { backend_key, key, operation: 'delete' }));
    },

    async exists(key) {
      return fsp.stat(resolve(key, 'exists')).then((s) => s.isFile(), () => false);
    },

    async list(prefix, max_results = 1000) {
      checkPrefix(prefix, backend_key);
      const out: ObjectReference[] = [];
      const walk = async (dir: string, rel: string): Promise<void> => {
        const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
        for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
          if (out.length >= max_results) return;
          if (TMP.test(e.name)) continue;
          const key = rel ? `${rel}/${e.name}` : e.name;
          if (e.isDirectory()) await walk(path.join(dir, e.name), key);
          else {
            const st = await fsp.stat(path.join(dir, e.name));
            out.push({ backend_key, key, object_id: '', checksum: '', size: st.size, mime_type: mimeOf(key) });
          }
        }
      };
      await walk(prefix ? path.join(root, prefix) : root, prefix.replace(/\/$/, ''));
      return out;
    },
  };
}
