import type { FileHandle } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { ResponseClosed } from '../errors.js';

/**
 * Sending a file with a fixed set of buffers. A read stream allocates a new buffer per chunk:
 * 50 MB of fresh memory outside the JavaScript heap per 50 MB download, which makes V8 run a
 * full mark-compact of the server's whole heap about once per download (bench workload 6: a
 * download cost 40–60 ms of CPU instead of 16, and took 4–5× as long as the same bytes from a
 * bare node:http server). Here a buffer is read into, written, and read into again only after
 * the write's callback, i.e. once the socket no longer needs it.
 */
/** 1 MiB reads, as the stream path had: with 256 KiB the thread-pool hand-offs cost more than the copies. */
const BUFFER_BYTES = 1024 * 1024;
/** Buffers one transfer uses: one being read while two are written (3 MiB, far below the 32 MB budget). */
const PER_TRANSFER = 3;
/** Idle buffers kept for the next transfers (8 MiB); more concurrent transfers allocate and drop extras. */
const POOL_MAX = 8;

const pool: Buffer[] = [];
const take = (): Buffer => pool.pop() ?? Buffer.allocUnsafeSlow(BUFFER_BYTES);
const give = (b: Buffer): void => {
  if (pool.length < POOL_MAX) pool.push(b);
};

/** Idle buffers in the pool (tests). */
export const pooledBuffers = (): number => pool.length;

/**
 * Writes bytes `start`..`end` (inclusive) of the open file `fh` to `out`, in order, then closes
 * `fh`. Reads run one at a time; at most PER_TRANSFER buffers are in use. Rejects if the file is
 * shorter than asked, if a read fails, if `out` fails, or (ResponseClosed) if `out` closes or
 * `signal` aborts first: a response still queued behind another on a pipelined connection never
 * calls back nor closes when the client goes, so the caller passes the connection's end as
 * `signal`. The caller ends or destroys `out`.
 */
export async function pumpFile(fh: FileHandle, start: number, end: number, out: Writable, signal?: AbortSignal): Promise<void> {
  const free: Buffer[] = [];
  let failure: Error | null = null;
  let outstanding = 0;
  let wake: (() => void) | null = null;
  const signalWaiter = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const onClose = () => {
    failure ??= new ResponseClosed();
    signalWaiter();
  };
  out.once('close', onClose);
  signal?.addEventListener('abort', onClose);
  if (signal?.aborted) onClose();
  try {
    for (let pos = start; pos <= end;) {
      while (!failure && free.length === 0 && outstanding >= PER_TRANSFER) await new Promise<void>((r) => { wake = r; });
      if (failure) throw failure;
      const buf = free.pop() ?? take();
      const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, end + 1 - pos), pos);
      if (bytesRead === 0) {
        free.push(buf);
        throw new Error(`the file ended at byte ${pos}, before byte ${end}`);
      }
      pos += bytesRead;
      outstanding++;
      out.write(buf.subarray(0, bytesRead), (err) => {
        outstanding--;
        free.push(buf);
        if (err) failure ??= err;
        signalWaiter();
      });
    }
    while (!failure && outstanding > 0) await new Promise<void>((r) => { wake = r; });
    if (failure) throw failure;
  } finally {
    out.off('close', onClose);
    signal?.removeEventListener('abort', onClose);
    await fh.close();
    // a buffer whose write never called back stays with the stream that holds it
    for (const b of free) give(b);
  }
}
