/**
 * pumpFile: the local backend sends a file with a few reused buffers instead of a new buffer per
 * chunk. A buffer may be read into again only after the write that carried it has called back;
 * a short file, a failing writer, a response that closes early or an aborted signal ends the
 * transfer with an error and closes the file. `open()` fails before anything is sent.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResponseClosed, StorageNotFoundError } from '../../src/apps/storage/backends/errors.ts';
import { createLocalBackend } from '../../src/apps/storage/backends/local/index.ts';
import { pooledBuffers, pumpFile } from '../../src/apps/storage/backends/local/pump.ts';
import { openFiles } from './helpers.ts';

let dir: string;
let file: string;
let bytes: Buffer;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-pump-'));
  file = path.join(dir, 'content.bin');
  bytes = crypto.randomBytes(5 * 1024 * 1024 + 4321); // 6 buffers of 1 MiB, the last one partial
  fs.writeFileSync(file, bytes);
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * A writer like a socket under load: it keeps each chunk (not a copy) and calls back later. The
 * chunk is copied only at callback time, so a buffer refilled before its callback shows up as
 * wrong bytes.
 */
function slowWriter(o: { failAt?: number; destroyAt?: number } = {}) {
  const got: Buffer[] = [];
  let writes = 0;
  const w = new Writable({
    highWaterMark: 1, // every write reports backpressure; the pump bounds itself regardless
    write(chunk: Buffer, _enc, cb) {
      writes++;
      if (o.destroyAt === writes) {
        setImmediate(() => w.destroy());
        return;
      }
      // 5 ms, slower than a cached 1 MiB read even on a loaded machine: with 1 ms, a run beside
      // a browser test saw each read finish after the write before it, and no read ran ahead
      setTimeout(() => {
        if (o.failAt === writes) return cb(new Error('disk on fire'));
        got.push(Buffer.from(chunk));
        cb();
      }, 5);
    },
  });
  // writes handed to the stream whose callback has not run yet (the stream queues them)
  let outstanding = 0;
  let maxOutstanding = 0;
  const write = w.write.bind(w) as (chunk: Buffer, cb: (err?: Error | null) => void) => boolean;
  w.write = ((chunk: Buffer, cb: (err?: Error | null) => void) => {
    maxOutstanding = Math.max(maxOutstanding, ++outstanding);
    return write(chunk, (err) => {
      outstanding--;
      cb(err);
    });
  }) as typeof w.write;
  return { w, got, max: () => maxOutstanding };
}

describe('pumpFile', () => {
  it('sends the whole file in order, with at most 3 writes outstanding and buffers reused only after their callback', async () => {
    const { w, got, max } = slowWriter();
    await pumpFile(await fsp.open(file), 0, bytes.length - 1, w);
    expect(Buffer.concat(got).equals(bytes)).toBe(true);
    expect(max()).toBeLessThanOrEqual(3);
    expect(max()).toBeGreaterThan(1); // reads run ahead of the writes
  });

  it('sends exactly the bytes of a range that starts and ends inside buffers', async () => {
    const { w, got } = slowWriter();
    await pumpFile(await fsp.open(file), 1000, 2_600_000, w);
    expect(Buffer.concat(got).equals(bytes.subarray(1000, 2_600_001))).toBe(true);
  });

  it('an empty range (an empty object) writes nothing', async () => {
    const { w, got } = slowWriter();
    await pumpFile(await fsp.open(file), 0, -1, w);
    expect(got).toHaveLength(0);
  });

  it('its buffers go back to the pool, so the next transfer allocates none', async () => {
    await pumpFile(await fsp.open(file), 0, bytes.length - 1, slowWriter().w);
    const pooled = pooledBuffers();
    expect(pooled).toBeGreaterThanOrEqual(3);
    await pumpFile(await fsp.open(file), 0, bytes.length - 1, slowWriter().w);
    expect(pooledBuffers()).toBe(pooled);
  });

  it('a file shorter than the range asked for is an error, and the file is closed', async () => {
    const fds = openFiles();
    const { w } = slowWriter();
    await expect(pumpFile(await fsp.open(file), 0, bytes.length + 10, w)).rejects.toThrow(/ended at byte \d+/);
    expect(openFiles()).toBe(fds);
  });

  it('a write that fails ends the transfer with its error, and the file is closed', async () => {
    const fds = openFiles();
    const { w } = slowWriter({ failAt: 3 });
    w.on('error', () => undefined);
    await expect(pumpFile(await fsp.open(file), 0, bytes.length - 1, w)).rejects.toThrow('disk on fire');
    expect(openFiles()).toBe(fds);
  });

  it('a response that closes mid-transfer (client gone) ends it with ResponseClosed, and the file is closed', async () => {
    const fds = openFiles();
    const { w } = slowWriter({ destroyAt: 2 });
    await expect(pumpFile(await fsp.open(file), 0, bytes.length - 1, w)).rejects.toBeInstanceOf(ResponseClosed);
    expect(openFiles()).toBe(fds);
  });

  it('an aborted signal (the connection of a queued response ended) stops it even when no write ever calls back', async () => {
    const fds = openFiles();
    // a response queued on a pipelined connection: writes are kept, never called back, never closed
    const stuck = new Writable({ write() {} });
    const gone = new AbortController();
    const sending = pumpFile(await fsp.open(file), 0, bytes.length - 1, stuck, gone.signal);
    await new Promise((r) => setTimeout(r, 20));
    gone.abort();
    await expect(sending).rejects.toBeInstanceOf(ResponseClosed);
    expect(openFiles()).toBe(fds);
  });

  it('open() of an object removed after get() is StorageNotFoundError, before anything is sent', async () => {
    const backend = createLocalBackend({ root: path.join(dir, 'store'), backend_key: 'pump-test' });
    await backend.put('a/b/c.bin', Buffer.from('content'));
    const got = await backend.get('a/b/c.bin');
    fs.rmSync(path.join(dir, 'store', 'a/b/c.bin'));
    await expect(got.open!()).rejects.toBeInstanceOf(StorageNotFoundError);
  });

  it('close() releases content that is not sent', async () => {
    const backend = createLocalBackend({ root: path.join(dir, 'store'), backend_key: 'pump-test' });
    await backend.put('a/b/d.bin', Buffer.from('content'));
    const fds = openFiles();
    const content = await (await backend.get('a/b/d.bin')).open!();
    expect(openFiles()).toBe(fds + 1);
    await content.close();
    expect(openFiles()).toBe(fds);
  });
});
