/**
 * The version number of the download routes (`intParam` in src/apps/storage/routes.ts):
 * `GET /api/storage/documents/{id}/versions/{n}/download` and `GET /api/storage/download/{id}?version_number=n`
 * take a safe integer from 1 to 2^31 − 1 (`version_number` is a 32-bit integer column) only. A
 * larger integer (`9223372036854780000`, found by the fuzzer: `storage-version-number`) has no
 * exact value, and one past the column's range made PostgreSQL fail the query: both were a 500,
 * and are a 400 INVALID_PARAMETER like any other bad number, on both engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intParam, VERSION_NUMBER_MAX } from '../../src/apps/storage/routes.ts';
import { PROVIDERS } from '../helpers/kernel.ts';
import { expectError, type TestServer } from '../helpers/server.ts';
import { created, download, startStorageServer, uploadBase64 } from './helpers.ts';

describe('intParam', () => {
  it('accepts a safe integer from 1 to 2^31 − 1 and nothing else (INVALID_PARAMETER naming the parameter and the bound)', () => {
    expect(VERSION_NUMBER_MAX).toBe(2147483647);
    expect(intParam(undefined, 'n')).toBeUndefined();
    expect(intParam('', 'n')).toBeUndefined();
    expect(intParam('1', 'n')).toBe(1);
    expect(intParam('42', 'n')).toBe(42);
    expect(intParam('2147483647', 'n')).toBe(VERSION_NUMBER_MAX);
    expect(intParam(String(Number.MAX_SAFE_INTEGER), 'n', Number.MAX_SAFE_INTEGER)).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => intParam(String(Number.MAX_SAFE_INTEGER + 1), 'n', Number.MAX_SAFE_INTEGER)).toThrow(/whole number/);
    for (const bad of ['0', '-1', '1.5', 'abc', 'NaN', 'Infinity', '2147483648', String(Number.MAX_SAFE_INTEGER), String(Number.MAX_SAFE_INTEGER + 1), '9223372036854780000', '1e300']) {
      let err: any;
      try {
        intParam(bad, 'version_number');
      } catch (e) {
        err = e;
      }
      expect(err, bad).toBeDefined();
      expect(err.code, bad).toBe('INVALID_PARAMETER');
      expect(err.status, bad).toBe(400);
      expect(err.details, bad).toEqual({ parameter: 'version_number', max: VERSION_NUMBER_MAX });
    }
  });
});

describe.each(PROVIDERS)('download version numbers (%s)', (provider) => {
  let ts: TestServer;
  let admin: string;
  let doc: Record<string, any>;

  beforeAll(async () => {
    ts = await startStorageServer({}, { provider });
    admin = (await ts.loginAdmin()).access_token;
    doc = created(await uploadBase64(ts, admin, Buffer.from('one'), { filename: 'n.txt' }));
  });
  afterAll(async () => {
    await ts?.close();
  });

  it('a version number beyond the safe integers, or past 2^31 − 1, is 400 INVALID_PARAMETER on both download routes, not a 500', async () => {
    for (const n of ['9223372036854780000', String(Number.MAX_SAFE_INTEGER + 1), '1e300', String(Number.MAX_SAFE_INTEGER), String(2 ** 31)]) {
      expectError(await ts.request('GET', `/api/storage/download/${doc.id}?version_number=${n}`, { token: admin }), 400, 'INVALID_PARAMETER');
      expectError(await ts.request('GET', `/api/storage/documents/${doc.id}/versions/${n}/download`, { token: admin }), 400, 'INVALID_PARAMETER');
    }
  });

  it('a version number in range the document has no version of is 404 VERSION_NOT_FOUND, up to 2^31 − 1', async () => {
    for (const n of ['2', String(2 ** 31 - 1)]) {
      expectError(await ts.request('GET', `/api/storage/download/${doc.id}?version_number=${n}`, { token: admin }), 404, 'VERSION_NOT_FOUND');
      expectError(await ts.request('GET', `/api/storage/documents/${doc.id}/versions/${n}/download`, { token: admin }), 404, 'VERSION_NOT_FOUND');
    }
  });

  it('an existing version downloads by number on both routes', async () => {
    expect((await download(ts, admin, `/api/storage/download/${doc.id}?version_number=1`)).bytes.toString()).toBe('one');
    expect((await download(ts, admin, `/api/storage/documents/${doc.id}/versions/1/download`)).bytes.toString()).toBe('one');
  });
});
