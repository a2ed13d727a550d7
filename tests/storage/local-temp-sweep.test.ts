/**
 * Temp files of killed uploads (issue 17 §1; src/apps/storage/backends/local/index.ts
 * `sweepTempFiles`, the storage app's boot). A local put writes `.<name>.<12 hex>.fwtmp` and renames
 * it; a process killed mid-upload leaves the temp file and its folders. The local backend removes
 * every such file last written before the cutoff — now − STORAGE_TEMP_GRACE_SECONDS, or the
 * process's start when the grace is 0 — with the folders it leaves empty: at boot (in the
 * background) and on a put once every SWEEP_EVERY_MS. An upload still being written (its temp file
 * is fresh), objects, and anything not named exactly like a temp file are never touched.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLocalBackend, SWEEP_EVERY_MS } from '../../src/apps/storage/backends/local/index.ts';
import { localBackendOf } from '../../src/apps/storage/router.ts';
import { bootTestKernel, PROVIDERS, tempDir } from '../helpers/kernel.ts';
import { emptyDirsUnder, filesUnder, STORAGE_MODULES, waitFor } from './helpers.ts';

const HOUR = 3600_000;
let scratch: string;
beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-temp-sweep-'));
});
afterAll(() => {
  fs.rmSync(scratch, { recursive: true, force: true });
});

const hex = () => crypto.randomBytes(6).toString('hex');
/** A fresh root under the scratch folder. */
const newRoot = () => fs.mkdtempSync(path.join(scratch, 'root-'));

/** Writes `rel` under `root` and sets its modification time `ageMs` in the past. */
function file(root: string, rel: string, ageMs = 0, content = 'x'): string {
  const full = path.join(root, rel);
  fs.mkdirSync(path.dirname(full), { recursive: true });
  fs.writeFileSync(full, content);
  const t = new Date(Date.now() - ageMs);
  fs.utimesSync(full, t, t);
  return rel;
}
const tempOf = (dir: string, name: string) => `${dir}/.${name}.${hex()}.fwtmp`;

describe('sweepTempFiles with a grace', () => {
  it('removes temp files not written to for longer than the grace, and the folders they leave empty; nothing else', async () => {
    const root = newRoot();
    const backend = createLocalBackend({ root, temp_grace_seconds: 3600 });
    const dead = file(root, tempOf('t/o/storage.document/d1/v1', 'crash.bin'), 2 * HOUR);
    const deadBeside = file(root, tempOf('t/o/storage.document/d2/v3', 'other.bin'), 2 * HOUR);
    const object = file(root, 't/o/storage.document/d2/v3/kept.bin', 2 * HOUR);
    const fresh = file(root, tempOf('t/o/storage.document/d3/v1', 'uploading.bin'), 10_000);
    const hidden = file(root, 't/o/storage.document/d4/v1/.hidden', 2 * HOUR);
    // shaped like a temp file but not one put() writes (no 12-hex part): not ours to remove
    const lookalike = file(root, 't/o/storage.document/d5/v1/.notes.fwtmp', 2 * HOUR);

    const removed = await backend.sweepTempFiles();
    expect(removed.sort()).toEqual([dead, deadBeside].sort());
    expect(filesUnder(root)).toEqual([object, fresh, hidden, lookalike].map((f) => f.split('/').join(path.sep)).sort());
    // the crashed upload's folders are gone up to the root; the others hold something
    expect(fs.existsSync(path.join(root, 't/o/storage.document/d1'))).toBe(false);
    expect(fs.existsSync(path.join(root, 't/o/storage.document/d2/v3'))).toBe(true);
    expect(emptyDirsUnder(root)).toEqual([]);
  });

  it('never removes the temp file of an upload in progress; the upload completes', async () => {
    const root = newRoot();
    const backend = createLocalBackend({ root, temp_grace_seconds: 1 });
    let push: (c: Buffer | null) => void = () => {};
    const source = new Readable({ read() {} });
    push = (c) => source.push(c);
    const put = backend.put('t/o/storage.document/d/v1/slow.bin', source);
    push(Buffer.alloc(1000, 1));
    await waitFor(() => filesUnder(root).some((f) => f.endsWith('.fwtmp')), 'the temp file');
    // written to a moment ago: within the grace, whatever the sweep finds
    for (let i = 0; i < 3; i++) {
      push(Buffer.alloc(1000, 2));
      expect(await backend.sweepTempFiles()).toEqual([]);
      await new Promise((r) => setTimeout(r, 400));
    }
    push(null);
    const ref = await put;
    expect(ref.size).toBe(4000);
    expect(filesUnder(root)).toEqual([path.join('t/o/storage.document/d/v1/slow.bin')]);
  });
});

describe('sweepTempFiles with grace 0: the temp files of earlier processes', () => {
  it('removes temp files last written before this process started, keeps those written since', async () => {
    const root = newRoot();
    const backend = createLocalBackend({ root, temp_grace_seconds: 0 });
    const sinceStart = Date.now() - performance.timeOrigin;
    const before = file(root, tempOf('t/o/storage.document/d1/v1', 'a.bin'), sinceStart + 5_000);
    const after = file(root, tempOf('t/o/storage.document/d2/v1', 'b.bin'), 0);
    expect(await backend.sweepTempFiles()).toEqual([before]);
    expect(filesUnder(root)).toEqual([path.join(after)]);
  });
});

describe('sweeps on put', () => {
  it('a backend with a grace sweeps on its first put, then at most once per interval', async () => {
    expect(SWEEP_EVERY_MS).toBe(HOUR);
    // the backend's clock only: file times stay real, the interval passes when the test says so
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now());
      const root = newRoot();
      const backend = createLocalBackend({ root, temp_grace_seconds: 60, sweep_every_ms: 10_000 });
      const first = file(root, tempOf('t/o/storage.document/d1/v1', 'a.bin'), 2 * HOUR);
      await backend.put('t/o/storage.document/x/v1/one.txt', Buffer.from('1'));
      await waitFor(() => !fs.existsSync(path.join(root, first)), 'the first put\'s sweep');
      await backend.sweepTempFiles(); // let it finish (pruning) before the next check

      vi.setSystemTime(Date.now() + 9_000);
      const second = file(root, tempOf('t/o/storage.document/d2/v1', 'b.bin'), 2 * HOUR);
      await backend.put('t/o/storage.document/x/v1/two.txt', Buffer.from('2'));
      await new Promise((r) => setTimeout(r, 100));
      expect(fs.existsSync(path.join(root, second))).toBe(true); // within the interval: no sweep

      vi.setSystemTime(Date.now() + 2_000);
      await backend.put('t/o/storage.document/x/v1/three.txt', Buffer.from('3'));
      await waitFor(() => !fs.existsSync(path.join(root, second)), 'the sweep after the interval');
      await backend.sweepTempFiles();
      expect(filesUnder(root).sort()).toEqual(['one.txt', 'three.txt', 'two.txt'].map((f) => path.join('t/o/storage.document/x/v1', f)));
      expect(emptyDirsUnder(root)).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a backend without a grace never sweeps on put', async () => {
    const root = newRoot();
    const backend = createLocalBackend({ root });
    const old = file(root, tempOf('t/o/storage.document/d1/v1', 'a.bin'), 2 * HOUR);
    await backend.put('t/o/storage.document/x/v1/one.txt', Buffer.from('1'));
    await new Promise((r) => setTimeout(r, 100));
    expect(fs.existsSync(path.join(root, old))).toBe(true);
  });
});

describe.each(PROVIDERS)('the sweep at boot (%s)', (provider) => {
  it('a kernel booting with the storage app removes the temp files older than STORAGE_TEMP_GRACE_SECONDS under STORAGE_LOCAL_ROOT', async () => {
    const dataDir = tempDir('sweep-boot');
    const root = path.join(dataDir, 'storage');
    const dead = file(root, tempOf(`default/${crypto.randomUUID()}/storage.document/${crypto.randomUUID()}/v1`, 'crash.bin'), 2 * HOUR);
    const fresh = file(root, tempOf(`default/${crypto.randomUUID()}/storage.document/${crypto.randomUUID()}/v1`, 'live.bin'), 1000);
    const object = file(root, `default/o/storage.document/${crypto.randomUUID()}/v1/kept.txt`, 2 * HOUR);
    const tk = await bootTestKernel({ provider, dataDir, settings: { ACTIVE_MODULES: STORAGE_MODULES, STORAGE_TEMP_GRACE_SECONDS: '600' } });
    try {
      // the sweep runs in the background: done once the file and its folders are gone
      await waitFor(() => !fs.existsSync(path.join(root, dead)) && emptyDirsUnder(root).length === 0, 'the boot sweep');
      expect(filesUnder(root)).toEqual([fresh, object].map((f) => path.join(f)).sort());
    } finally {
      await tk.cleanup();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('STORAGE_TEMP_GRACE_SECONDS below 0 stops the boot with STORAGE_SETTINGS_INVALID', async () => {
    await expect(bootTestKernel({ provider, settings: { ACTIVE_MODULES: STORAGE_MODULES, STORAGE_TEMP_GRACE_SECONDS: '-1' } }))
      .rejects.toMatchObject({ code: 'STORAGE_SETTINGS_INVALID' });
  });

  it('the default grace is one hour, and the process\'s local backend carries it', async () => {
    const tk = await bootTestKernel({ provider, settings: { ACTIVE_MODULES: STORAGE_MODULES } });
    try {
      const backend = localBackendOf(tk.kernel.settings);
      expect(backend.root).toBe(path.join(tk.dataDir, 'storage'));
      const root = backend.root;
      await backend.sweepTempFiles(); // joins the boot's sweep if it still runs
      const young = file(root, tempOf('default/o/storage.document/d/v1', 'a.bin'), HOUR - 60_000);
      const old = file(root, tempOf('default/o/storage.document/e/v1', 'b.bin'), HOUR + 60_000);
      expect(await backend.sweepTempFiles()).toEqual([old]);
      expect(filesUnder(root)).toEqual([path.join(young)]);
    } finally {
      await tk.cleanup();
    }
  });
});
