import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import mime from 'mime-types';
import { StorageIntegrityError, StorageKeyError, StorageNotFoundError, StoragePayloadTooLarge, StorageTransientError, type StorageContext } from '../errors.js';
import { checkKey, checkPrefix, cutText, TEMP_NAME } from '../keys.js';
import type { ObjectReference, PutMetadata, StorageBackend } from '../types.js';
import { pumpFile } from './pump.js';

/** Longest file or folder name most file systems allow (ext4, XFS, btrfs, APFS, NTFS): 255 bytes. */
export const NAME_MAX_BYTES = 255;
/** Bytes a temp name adds to the object's name: `.` + `.` + 12 hex + `.fwtmp`. */
const TEMP_EXTRA_BYTES = 20;
/** Exactly what put() names its temp files; the sweep removes nothing else. */
const SWEPT = /^\..*\.[0-9a-f]{12}\.fwtmp$/;
/** A backend that writes sweeps at most this often (on a put), besides the sweep at boot. */
export const SWEEP_EVERY_MS = 60 * 60 * 1000;
/** When this process started (ms since the epoch): with no grace, temp files older than it are a dead process's. */
const PROCESS_START = Math.floor(performance.timeOrigin);

const tempNameOf = (target: string): string =>
  path.join(path.dirname(target), `.${cutText(path.basename(target), NAME_MAX_BYTES - TEMP_EXTRA_BYTES)}.${crypto.randomBytes(6).toString('hex')}.fwtmp`);

/** Counts bytes and hashes them as they pass; fails once over `max`; `onSize` sees the running total. */
export function hashingCounter(ctx: StorageContext, max?: number, onSize?: (size: number) => void) {
  const hash = crypto.createHash('sha256');
  let size = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      size += chunk.length;
      if (max !== undefined && size > max) return cb(new StoragePayloadTooLarge(ctx, max));
      hash.update(chunk);
      onSize?.(size);
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
 * While an upload still arrives, every FLUSH_EVERY bytes start an fdatasync of what is written so
 * far: the disk writes back during the transfer, and the fsync before the rename only has the
 * tail left (on this project's machines it took 15–90 ms of a 50 MB upload's time when it ran last).
 */
const FLUSH_EVERY = 8 * CHUNK;

/**
 * Flush-behind for one open file: at most one fdatasync in flight. The first error is kept and
 * thrown by `done()`: after a failed fsync Linux may report the next one as clean, though the
 * pages it failed to write are gone.
 */
export function flushBehind(fh: Pick<FileHandle, 'datasync' | 'sync'>) {
  let started = 0;
  let inFlight: Promise<void> | null = null;
  let failed: unknown = null;
  return {
    wrote(size: number) {
      if (inFlight || size - started < FLUSH_EVERY) return;
      started = size;
      inFlight = fh.datasync().catch((err: unknown) => { failed ??= err; }).finally(() => { inFlight = null; });
    },
    async done(): Promise<void> {
      await inFlight;
      if (failed) throw failed;
      await fh.sync();
    },
    /** Waits for a flush still in flight (before the handle closes, also when the write failed). */
    settled: async (): Promise<void> => { await inFlight; },
  };
}

/**
 * Removes `dir` and then each parent up to (not including) `root` while they are empty: a
 * document's key path (`tenant/org/storage.document/<uuid>/v1/`) would otherwise stay behind,
 * empty, after its object is deleted or its upload refused. A folder that is not empty, or is
 * already gone, ends the walk.
 */
async function pruneEmpty(root: string, dir: string): Promise<void> {
  for (let d = dir; d.startsWith(root + path.sep); d = path.dirname(d)) {
    try {
      await fsp.rmdir(d);
    } catch {
      return;
    }
  }
}

/**
 * Creates the temp file, and its folder first. A concurrent prune may remove a folder just made
 * (it was still empty): the open then finds no folder and makes it again.
 */
async function openTemp(tmp: string): Promise<FileHandle> {
  for (let attempt = 1; ; attempt++) {
    await fsp.mkdir(path.dirname(tmp), { recursive: true });
    try {
      return await fsp.open(tmp, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt === 5) throw err;
    }
  }
}

/** A rename is durable once its directory is synced (Linux: fsync on a read-only handle of it). */
async function syncDirectory(dir: string): Promise<void> {
  const dh = await fsp.open(dir, 'r');
  try {
    await dh.sync();
  } finally {
    await dh.close();
  }
}

export interface LocalBackendOptions {
  root: string;
  backend_key?: string;
  /**
   * Temp files (`.<name>.<hex>.fwtmp`) not written to for this many seconds are a dead upload's
   * (its process was killed) and are swept: by `sweepTempFiles()`, and on a put once every
   * SWEEP_EVERY_MS. 0 = those not written to since this process started. Unset = the same for
   * `sweepTempFiles()`, and no sweeps on put.
   */
  temp_grace_seconds?: number;
  /** Overrides SWEEP_EVERY_MS (tests). */
  sweep_every_ms?: number;
}

export interface LocalBackend extends StorageBackend {
  readonly root: string;
  /**
   * Removes the temp files a killed upload left behind: every `.<name>.<hex>.fwtmp` under the
   * root last written before the cutoff (now − `temp_grace_seconds`, or this process's start when
   * the grace is 0), and the folders that are empty once they are gone. Resolves with the keys of
   * the removed files. One sweep at a time: a call during a sweep gets that sweep's result.
   */
  sweepTempFiles(): Promise<string[]>;
}

/**
 * The built-in filesystem backend. Writes stream into a temp file in the target directory,
 * hashing and flushing behind on the way, then fsync, rename and a sync of the directory: a reader
 * sees the whole object or none, an object whose put returned survives a crash, and a crash
 * mid-write leaves only a hidden temp file that listings ignore, and sweeps remove (above).
 */
export function createLocalBackend(opts: LocalBackendOptions): LocalBackend {
  const backend_key = opts.backend_key ?? 'local';
  const root = path.resolve(opts.root);
  const resolve = (key: string, operation: string): string => {
    checkKey(key, backend_key, operation);
    const full = path.resolve(root, key);
    if (!full.startsWith(root + path.sep)) throw new StorageKeyError({ backend_key, key, operation }, 'the key resolves outside the storage root');
    if (key.split('/').some((s) => Buffer.byteLength(s) > NAME_MAX_BYTES)) {
      throw new StorageKeyError({ backend_key, key, operation }, `a key segment has at most ${NAME_MAX_BYTES} bytes (UTF-8) on the local file system`);
    }
    return full;
  };

  const grace = opts.temp_grace_seconds;
  const sweepEvery = opts.sweep_every_ms ?? SWEEP_EVERY_MS;
  let sweeping: Promise<string[]> | null = null;
  let lastSweep = -Infinity;
  const sweepTempFiles = (): Promise<string[]> => {
    if (sweeping) return sweeping;
    lastSweep = Date.now();
    const cutoff = grace ? lastSweep - grace * 1000 : PROCESS_START;
    sweeping = sweepTemp(root, cutoff).finally(() => { sweeping = null; });
    return sweeping;
  };
  /** On a put: a sweep in the background when the last one is SWEEP_EVERY_MS old (or there was none). */
  const sweepIfDue = (): void => {
    if (grace === undefined || sweeping || Date.now() - lastSweep < sweepEvery) return;
    sweepTempFiles().catch((err: unknown) => console.warn(`[fw] storage: sweeping temp files under ${root} failed: ${String(err)}`));
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
    root,
    sweepTempFiles,
    capabilities: { directories: true, atomic_put: true, resumable_upload: false, integrity_checksum: true, native_sharing: false },

    async put(key: string, content: Readable | Buffer, meta: PutMetadata = {}): Promise<ObjectReference> {
      const ctx = { backend_key, key, operation: 'put' };
      const target = resolve(key, 'put');
      // an object named like a temp file would be hidden from listings and swept
      if (TEMP_NAME.test(path.basename(target))) throw new StorageKeyError(ctx, 'a key may not name a temp file (.….fwtmp)');
      sweepIfDue();
      const tmp = tempNameOf(target);
      // this handle creates the file and syncs it; the write stream opens its own descriptor, so
      // each side closes what it opened, and only after its own pending I/O
      const fh = await openTemp(tmp);
      const flush = flushBehind(fh);
      const counter = hashingCounter(ctx, meta.max_bytes, flush.wrote);
      try {
        const source = Buffer.isBuffer(content) ? Readable.from([content]) : content;
        try {
          await pipeline(source, counter.stream, fs.createWriteStream(tmp, { flags: 'r+', highWaterMark: CHUNK }));
          await flush.done();
        } finally {
          await flush.settled();
          await fh.close();
        }
        const { size, checksum } = counter.result();
        if (meta.checksum && meta.checksum !== checksum) throw new StorageIntegrityError(ctx);
        await fsp.rename(tmp, target);
        await syncDirectory(path.dirname(target));
        return { backend_key, key, object_id: '', checksum, size, mime_type: mimeOf(key, meta.mime_type) };
      } catch (err) {
        await fsp.rm(tmp, { force: true });
        // a refused or failed put leaves no folders behind either
        await pruneEmpty(root, path.dirname(target));
        throw err;
      }
    },

    async get(key, range) {
      const ctx = { backend_key, key, operation: 'get' };
      const file = resolve(key, 'get');
      const stat = await fsp.stat(file).catch((e) => notFound(e, ctx));
      const [start, end] = range ? [range.start, range.end] : [0, stat.size - 1];
      let stream: Readable | undefined;
      return {
        // opened only by readers that want a stream; the HTTP download uses open()
        get stream() {
          // an empty object has end = -1, which a read stream refuses
          return (stream ??= fs.createReadStream(file, { highWaterMark: CHUNK, start, ...(end >= start ? { end } : {}) }));
        },
        size: end - start + 1,
        mime_type: mimeOf(key),
        async open() {
          const fh = await fsp.open(file, 'r').catch((e) => notFound(e, ctx));
          return { writeTo: (out, signal) => pumpFile(fh, start, end, out, signal), close: () => fh.close() };
        },
      };
    },

    async delete(key) {
      const file = resolve(key, 'delete');
      try {
        await fsp.unlink(file).catch((e) => notFound(e, { backend_key, key, operation: 'delete' }));
      } finally {
        // also when the object was already gone: its folders are not wanted either way
        await pruneEmpty(root, path.dirname(file));
      }
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
          if (TEMP_NAME.test(e.name)) continue;
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

/**
 * Removes every temp file under `root` last modified before `cutoff` (ms since the epoch), then
 * the folders left empty (up to, not including, `root`). One folder at a time, depth first: a
 * sweep costs one readdir per folder and one stat per temp file, never more than one at once.
 * Errors on single entries (gone meanwhile, no permission) skip them.
 */
async function sweepTemp(root: string, cutoff: number): Promise<string[]> {
  const removed: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) {
        await walk(full);
      } else if (e.isFile() && SWEPT.test(e.name)) {
        try {
          if ((await fsp.stat(full)).mtimeMs >= cutoff) continue;
          await fsp.unlink(full);
          removed.push(path.relative(root, full).split(path.sep).join('/'));
          await pruneEmpty(root, dir);
        } catch {
          // finished or removed meanwhile: nothing to sweep
        }
      }
    }
  };
  await walk(root);
  return removed;
}
