/**
 * Durability §1 (issue 17), crash during an upload: a real `fw serve` receives a slowly streamed
 * binary upload (POST /api/storage/documents) and is killed with SIGKILL mid-body, once the local
 * backend's temp file exists. After a restart:
 * - no document or version row points at a missing object (no orphan row);
 * - no visible object exists without its version row (no partial object);
 * - the only thing the crash leaves is the backend's hidden temp file (`.<name>.<hex>.fwtmp`,
 *   ignored by `list`), and the restarted server's boot sweeps it with its folders (pinned below:
 *   the servers run with STORAGE_TEMP_GRACE_SECONDS=0, "every temp file last written before this
 *   process started"; with the default grace of an hour the same sweep takes it an hour later);
 * - the same for a killed upload of a new version (POST …/documents/{id}/versions): the document
 *   stays at version 1 and its content downloads unchanged;
 * - a new upload works and downloads back byte for byte.
 * Both engines (the object store is the local folder `<DATA_DIR>/storage` on both).
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, login, makeEnv, openDb, serve, sleep, walkFiles, type Env, type Provider, type Server } from './proc.ts';

const TMP = /(^|\/)\.[^/]*\.fwtmp$/;
/** Declared body size: under the 25 MiB upload limit; the writer stops short of it, so the body never ends. */
const TOTAL = 20 * 1024 * 1024;

/** Starts a binary upload and streams `chunk`-sized writes every `everyMs` until aborted. */
function slowUpload(base: string, token: string, filename: string, route = '/api/storage/documents') {
  const url = new URL(`${route}?filename=${encodeURIComponent(filename)}`, base);
  const req = http.request(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream', 'content-length': String(TOTAL) },
  });
  let sent = 0;
  const result = new Promise<string>((resolve) => {
    req.on('error', (e) => resolve(`error:${(e as NodeJS.ErrnoException).code ?? e.message}`));
    req.on('response', (res) => resolve(`status:${res.statusCode}`));
  });
  const chunk = Buffer.alloc(64 * 1024, 7);
  const timer = setInterval(() => {
    if (req.destroyed || sent + chunk.length >= TOTAL) return clearInterval(timer);
    req.write(chunk);
    sent += chunk.length;
  }, 20);
  return { result, sent: () => sent, stop: () => clearInterval(timer) };
}

/** The boot's sweep runs in the background: waits (up to 10 s) until no temp file is left, and lets the test judge what is. */
async function bootSweep(storage: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (walkFiles(storage).some((f) => TMP.test(f)) && Date.now() < deadline) await sleep(50);
}

/** Folders under `dir` that hold nothing (relative paths). */
function emptyDirs(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => fs.statSync(path.join(dir, f)).isDirectory() && fs.readdirSync(path.join(dir, f)).length === 0).map((f) => `${f}/`);
}

async function upload(base: string, token: string, name: string, body: Buffer) {
  const r = await fetch(`${base}/api/storage/documents?filename=${name}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
    body: new Uint8Array(body),
  });
  return { status: r.status, body: (await r.json()) as Record<string, any> };
}

describe.each(['sqlite', 'postgresql'] as Provider[])('kill -9 during a streamed upload (%s)', (provider) => {
  let env: Env;
  let server: Server | undefined;
  const leftovers: string[] = [];

  afterAll(async () => {
    await server?.kill9();
    if (env) await cleanup(env);
  });

  it('leaves no partial object and no orphan row, and a new upload works after the restart', async () => {
    env = makeEnv(provider, { EVENT_POLL_INTERVAL_MS: '200', STORAGE_TEMP_GRACE_SECONDS: '0', REDIS_URL: '' });
    const storage = path.join(env.dataDir, 'storage');
    server = await serve(env);
    let token = await login(server.base);

    // one complete upload before the crash, which must survive it
    const before = await upload(server.base, token, 'before.bin', Buffer.from('kept across the crash'));
    expect(before.status).toBe(201);

    const up = slowUpload(server.base, token, 'crash.bin');
    // wait until the backend is writing (its temp file exists) and some MiB went through
    const deadline = Date.now() + 20_000;
    while (!(walkFiles(storage).some((f) => TMP.test(f)) && up.sent() > 2 * 1024 * 1024)) {
      if (Date.now() > deadline) throw new Error(`the upload never reached the backend (sent ${up.sent()}, ${await Promise.race([up.result, sleep(10).then(() => 'pending')])}): ${server.out()}`);
      await sleep(20);
    }
    await server.kill9();
    up.stop();
    expect(await up.result).toMatch(/^error:/); // the client saw the connection die, never a 201

    server = await serve(env);
    token = await login(server.base);
    await bootSweep(storage);
    const db = await openDb(env, 'default');
    try {
      const docs = await db.all(`SELECT record_uuid, name FROM storage_document`);
      const versions = await db.all(`SELECT document_id, storage_key, version_number FROM storage_document_version`);
      // only the complete upload has rows: the killed one wrote none
      expect(docs.map((d) => d.name)).toEqual(['before.bin']);
      expect(versions).toHaveLength(1);
      // no orphan row: every version's object exists
      const files = walkFiles(storage);
      for (const v of versions) expect(files).toContain(v.storage_key);
      // no partial object: every visible file is a recorded version
      const visible = files.filter((f) => !TMP.test(f));
      expect(visible.sort()).toEqual(versions.map((v) => v.storage_key).sort());
      leftovers.push(...files.filter((f) => TMP.test(f)), ...emptyDirs(storage));
      // the crashed upload is not listed
      const list = await fetch(`${server.base}/api/storage/documents`, { headers: { authorization: `Bearer ${token}` } });
      expect(((await list.json()) as any).items.map((d: any) => d.name)).toEqual(['before.bin']);
    } finally {
      await db.close();
    }

    // the same for a new version of the existing document: killed mid-body, the document keeps
    // its version 1, and no row or visible object of a version 2 exists
    const tmpsBefore = walkFiles(storage).filter((f) => TMP.test(f)).length;
    const upv = slowUpload(server.base, token, 'v2.bin', `/api/storage/documents/${before.body.id}/versions`);
    const deadline2 = Date.now() + 20_000;
    while (!(walkFiles(storage).filter((f) => TMP.test(f)).length > tmpsBefore && upv.sent() > 2 * 1024 * 1024)) {
      if (Date.now() > deadline2) throw new Error(`the version upload never reached the backend (sent ${upv.sent()}): ${server.out()}`);
      await sleep(20);
    }
    await server.kill9();
    upv.stop();
    expect(await upv.result).toMatch(/^error:/);
    server = await serve(env);
    token = await login(server.base);
    await bootSweep(storage);
    const db2 = await openDb(env, 'default');
    try {
      const doc = (await db2.all(`SELECT current_version, version_count FROM storage_document WHERE record_uuid = ?`, [before.body.id]))[0];
      expect([Number(doc.current_version), Number(doc.version_count)]).toEqual([1, 1]);
      const versions = await db2.all(`SELECT storage_key FROM storage_document_version`);
      expect(versions).toHaveLength(1);
      const files = walkFiles(storage);
      expect(files.filter((f) => !TMP.test(f))).toEqual(versions.map((v) => v.storage_key));
      leftovers.splice(0, leftovers.length, ...files.filter((f) => TMP.test(f)), ...emptyDirs(storage));
      console.log(`[crash/upload ${provider}] left after two killed uploads: ${leftovers.join(', ') || 'nothing'}`);
    } finally {
      await db2.close();
    }
    const dl1 = await fetch(`${server.base}/api/storage/documents/${before.body.id}/download`, { headers: { authorization: `Bearer ${token}` } });
    expect(await dl1.text()).toBe('kept across the crash');

    // a new upload works and reads back
    const payload = Buffer.alloc(3 * 1024 * 1024 + 17, 'x');
    const after = await upload(server.base, token, 'after.bin', payload);
    expect(after.status).toBe(201);
    const dl = await fetch(`${server.base}/api/storage/documents/${after.body.id}/download`, { headers: { authorization: `Bearer ${token}` } });
    expect(dl.status).toBe(200);
    expect(Buffer.from(await dl.arrayBuffer()).equals(payload)).toBe(true);
  }, 90_000); // three boots of `fw serve`, and up to 10 s for each boot sweep

  // after a kill -9 the hidden `.<file>.<hex>.fwtmp` (holding the bytes received so far) and its
  // folders `<tenant>/<org>/storage.document/<uuid>/v1/` were left for ever; the local backend now
  // sweeps temp files older than STORAGE_TEMP_GRACE_SECONDS at boot (src/apps/storage/index.ts,
  // `sweepTempFiles` in src/apps/storage/backends/local/index.ts) and removes the folders they leave empty
  it('the crashed upload leaves no temp file and no empty folder after the restart', () => {
    expect(leftovers).toEqual([]);
  });
});
