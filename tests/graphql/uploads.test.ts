/**
 * Upload limits of GraphQL multipart requests (src/server/graphql/index.ts): each file is bound
 * by the smaller of STORAGE_MAX_UPLOAD_BYTES and STORAGE_MAX_FILE_SIZE_BYTES and the whole
 * request by GRAPHQL_UPLOAD_MAX_BYTES, counted while the body streams, with or without a
 * Content-Length. A refusal is 413 PAYLOAD_TOO_LARGE in GraphQL's error shape, answered before
 * the body has been read to its end, and leaves no document, version or file behind.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gqlOk, listen } from '../helpers/api.ts';
import type { TestServer } from '../helpers/server.ts';
import { filesUnder, sha256, startStorageServer, storageRoot } from '../storage/helpers.ts';

const KiB = 1024;
const UPLOAD = 'mutation($file: File!) { storageDocumentUploadFile(file: $file, name: "limited") { id file_size checksum } }';

interface Server { ts: TestServer; token: string; base: string }
async function start(overrides: Record<string, string>): Promise<Server> {
  const ts = await startStorageServer(overrides);
  const token = (await ts.loginAdmin()).access_token;
  return { ts, token, base: await listen(ts) };
}

/** upload limit smaller than file limit; file limit smaller than upload limit; a small request limit */
let uploadSmaller: Server;
let fileSmaller: Server;
let requestSmaller: Server;

beforeAll(async () => {
  [uploadSmaller, fileSmaller, requestSmaller] = await Promise.all([
    start({ STORAGE_MAX_UPLOAD_BYTES: String(64 * KiB), STORAGE_MAX_FILE_SIZE_BYTES: String(1024 * KiB) }),
    start({ STORAGE_MAX_UPLOAD_BYTES: String(1024 * KiB), STORAGE_MAX_FILE_SIZE_BYTES: String(64 * KiB) }),
    start({ GRAPHQL_UPLOAD_MAX_BYTES: String(256 * KiB) }),
  ]);
});
afterAll(async () => {
  await Promise.all([uploadSmaller?.ts.close(), fileSmaller?.ts.close(), requestSmaller?.ts.close()]);
});

/** What an upload could leave behind: document and version rows, files under the storage root. */
async function leftovers(s: Server): Promise<{ documents: number; versions: number; files: string[] }> {
  const count = async (model: string) => {
    const res = await s.ts.request('GET', `/api/data/${model}/count`, { token: s.token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.count as number;
  };
  return { documents: await count('storage.document'), versions: await count('storage.document_version'), files: filesUnder(storageRoot(s.ts)) };
}

/** A multipart upload with fetch (which sends a Content-Length); `files` are sent as parts 0, 1, … */
async function upload(s: Server, files: Buffer[]): Promise<{ status: number; json: any; headers: Headers }> {
  const form = new FormData();
  const query = files.length === 1 ? UPLOAD
    : `mutation(${files.map((_, i) => `$f${i}: File!`).join(', ')}) { ${files.map((_, i) => `d${i}: storageDocumentUploadFile(file: $f${i}, name: "many") { id }`).join(' ')} }`;
  const variables = Object.fromEntries(files.map((_, i) => [files.length === 1 ? 'file' : `f${i}`, null]));
  form.append('operations', JSON.stringify({ query, variables }));
  form.append('map', JSON.stringify(Object.fromEntries(files.map((_, i) => [String(i), [`variables.${files.length === 1 ? 'file' : `f${i}`}`]]))));
  files.forEach((f, i) => form.append(String(i), new Blob([new Uint8Array(f)], { type: 'application/octet-stream' }), `f${i}.bin`));
  const res = await fetch(`${s.base}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${s.token}`, 'x-graphql-csrf': '1' }, body: form });
  return { status: res.status, json: await res.json(), headers: res.headers };
}

/**
 * A chunked multipart upload (no Content-Length) whose file part goes on for up to `cap` bytes:
 * the client keeps writing until the server answers, so a response before `cap` proves the
 * server refused the body while it streamed instead of reading it to the end.
 */
function chunkedUpload(s: Server, cap: number, opts: { parts?: number } = {}): Promise<{ status: number; json: any; sent: number; ended: boolean; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const boundary = `fwtest${crypto.randomBytes(8).toString('hex')}`;
    // a keep-alive client: the server decides whether the connection ends with the answer
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const req = http.request(`${s.base}/graphql`, {
      method: 'POST', agent,
      headers: { authorization: `Bearer ${s.token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'transfer-encoding': 'chunked', 'x-graphql-csrf': '1' },
    });
    let answered = false;
    let ended = false;
    let sent = 0;
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        req.destroy();
        agent.destroy();
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : null, sent, ended, connection: res.headers.connection });
      });
    });
    // writing into a connection the server closed after answering fails: only a missing answer counts
    req.on('error', (e) => { if (!answered) reject(e); });
    const field = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const parts = opts.parts ?? 1;
    const names = Array.from({ length: parts }, (_, i) => `f${i}`);
    const query = `mutation(${names.map((n) => `$${n}: File!`).join(', ')}) { ${names.map((n) => `${n}: storageDocumentUploadFile(file: $${n}, name: "chunked") { id }`).join(' ')} }`;
    req.write(field('operations', JSON.stringify({ query, variables: Object.fromEntries(names.map((n) => [n, null])) })));
    req.write(field('map', JSON.stringify(Object.fromEntries(names.map((n, i) => [String(i), [`variables.${n}`]])))));
    const chunk = Buffer.alloc(16 * KiB, 0x61);
    const perPart = Math.floor(cap / parts);
    let part = 0;
    let inPart = 0;
    req.write(`--${boundary}\r\nContent-Disposition: form-data; name="0"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
    const pump = (): void => {
      while (!answered) {
        if (inPart >= perPart) {
          part += 1;
          inPart = 0;
          if (part >= parts) {
            ended = true;
            req.end(`\r\n--${boundary}--\r\n`);
            return;
          }
          req.write(`\r\n--${boundary}\r\nContent-Disposition: form-data; name="${part}"; filename="big${part}.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
        }
        const piece = chunk.subarray(0, Math.min(chunk.length, perPart - inPart));
        inPart += piece.length;
        sent += piece.length;
        if (!req.write(piece)) {
          req.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
}

function tooLarge(status: number, json: any, limit: number, setting: string): void {
  expect(status, JSON.stringify(json)).toBe(413);
  expect(json.error).toBeUndefined();
  expect(json.data ?? null).toBeNull();
  expect(json.errors).toHaveLength(1);
  expect(json.errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
  expect(json.errors[0].extensions.details).toEqual({ limit, setting });
  expect(json.errors[0].message).toContain(String(limit));
}

describe('each file: the smaller of STORAGE_MAX_UPLOAD_BYTES and STORAGE_MAX_FILE_SIZE_BYTES', () => {
  for (const [setting, server] of [['STORAGE_MAX_UPLOAD_BYTES', () => uploadSmaller], ['STORAGE_MAX_FILE_SIZE_BYTES', () => fileSmaller]] as const) {
    it(`${setting} smaller: a file of exactly the limit is stored, one byte more is 413 naming it and leaves nothing`, async () => {
      const s = server();
      const exact = crypto.randomBytes(64 * KiB);
      const ok = await upload(s, [exact]);
      expect(ok.status, JSON.stringify(ok.json)).toBe(200);
      expect(ok.json.data.storageDocumentUploadFile).toEqual({ id: expect.any(String), file_size: exact.length, checksum: sha256(exact) });

      const before = await leftovers(s);
      const res = await upload(s, [crypto.randomBytes(64 * KiB + 1)]);
      tooLarge(res.status, res.json, 64 * KiB, setting);
      expect(await leftovers(s)).toEqual(before);
    });
  }

  it('a second file over the limit refuses the whole request, the first one is not stored either', async () => {
    const before = await leftovers(uploadSmaller);
    const res = await upload(uploadSmaller, [crypto.randomBytes(1000), crypto.randomBytes(64 * KiB + 1)]);
    tooLarge(res.status, res.json, 64 * KiB, 'STORAGE_MAX_UPLOAD_BYTES');
    expect(await leftovers(uploadSmaller)).toEqual(before);
  });

  it('without a Content-Length the file is refused while it streams, and nothing is left', async () => {
    for (const [s, setting] of [[uploadSmaller, 'STORAGE_MAX_UPLOAD_BYTES'], [fileSmaller, 'STORAGE_MAX_FILE_SIZE_BYTES']] as const) {
      const before = await leftovers(s);
      const cap = 256 * 1024 * KiB;
      const res = await chunkedUpload(s, cap);
      tooLarge(res.status, res.json, 64 * KiB, setting);
      expect(res.ended).toBe(false);
      expect(res.sent).toBeLessThan(cap);
      // the unread rest is not drained on a kept-alive connection
      expect(res.connection).toBe('close');
      expect(await leftovers(s)).toEqual(before);
    }
  });

  it('a chunked upload within the limit is stored', async () => {
    const res = await chunkedUpload(uploadSmaller, 10 * KiB);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.connection).toBe('keep-alive');
    expect(res.json.data.f0.id).toEqual(expect.any(String));
  });
});

describe('the whole request: GRAPHQL_UPLOAD_MAX_BYTES', () => {
  it('a Content-Length over the limit is refused before the body is read, in GraphQL\'s shape', async () => {
    const before = await leftovers(requestSmaller);
    const res = await upload(requestSmaller, [crypto.randomBytes(300 * KiB)]);
    tooLarge(res.status, res.json, 256 * KiB, 'GRAPHQL_UPLOAD_MAX_BYTES');
    expect(await leftovers(requestSmaller)).toEqual(before);
  });

  it('without a Content-Length, files each under the file limit are cut off once the request passes it', async () => {
    const before = await leftovers(requestSmaller);
    const cap = 64 * 1024 * KiB;
    // 8 parts of 8 MiB: each far below the 25 MiB file limit, together over the 256 KiB request limit
    const res = await chunkedUpload(requestSmaller, cap, { parts: 8 });
    tooLarge(res.status, res.json, 256 * KiB, 'GRAPHQL_UPLOAD_MAX_BYTES');
    expect(res.ended).toBe(false);
    expect(res.sent).toBeLessThan(cap);
    expect(await leftovers(requestSmaller)).toEqual(before);
  });

  it('a non-file field (operations) over HTTP_BODY_LIMIT_BYTES is 413 naming that setting', async () => {
    const limit = uploadSmaller.ts.kernel.settings.HTTP_BODY_LIMIT_BYTES;
    const form = new FormData();
    form.append('operations', JSON.stringify({ query: `${UPLOAD} # ${'x'.repeat(limit)}`, variables: { file: null } }));
    form.append('map', JSON.stringify({ 0: ['variables.file'] }));
    form.append('0', new Blob([new Uint8Array(10)]), 'small.bin');
    const before = await leftovers(uploadSmaller);
    const res = await fetch(`${uploadSmaller.base}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${uploadSmaller.token}`, 'x-graphql-csrf': '1' }, body: form });
    tooLarge(res.status, await res.json(), limit, 'HTTP_BODY_LIMIT_BYTES');
    expect(await leftovers(uploadSmaller)).toEqual(before);
  });

  it('a malformed multipart body is 400 INVALID_MULTIPART, not a server error', async () => {
    const res = await fetch(`${requestSmaller.base}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${requestSmaller.token}`, 'content-type': 'multipart/form-data', 'x-graphql-csrf': '1' },
      body: 'not multipart at all',
    });
    const json = await res.json();
    expect(res.status, JSON.stringify(json)).toBe(400);
    expect(json.errors[0].extensions.code).toBe('INVALID_MULTIPART');
  });

  it('the server still serves after refused uploads', async () => {
    const ok = await upload(requestSmaller, [crypto.randomBytes(1000)]);
    expect(ok.status, JSON.stringify(ok.json)).toBe(200);
  });
});

describe('reading a stored file back', () => {
  it('storageDocumentReadText answers DocumentText with the current version as UTF-8', async () => {
    const text = 'Grüße aus fw\nzweite Zeile';
    const created = await gqlOk(requestSmaller.ts, 'mutation($b: String!) { storageDocumentCreate(input: { filename: "note.txt", content_b64: $b }) { id } }',
      { b: Buffer.from(text).toString('base64') }, { token: requestSmaller.token });
    const read = await gqlOk(requestSmaller.ts, 'query($id: ID!) { storageDocumentReadText(id: $id) { text } }', { id: created.storageDocumentCreate.id }, { token: requestSmaller.token });
    expect(read).toEqual({ storageDocumentReadText: { text } });
  });
});
