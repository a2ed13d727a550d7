/**
 * An XLSX import is a ZIP archive that ExcelJS unzips whole in memory: a small upload that
 * inflates past IMPORT_MAX_UNZIPPED_BYTES (100 MiB by default) is refused with 413
 * IMPORT_TOO_LARGE_UNZIPPED before ExcelJS sees it, whether its central directory declares the
 * real sizes or lies about them, and nothing is imported. The archives are built here byte by byte.
 */
import { deflateRawSync } from 'node:zlib';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken } from '../../helpers/api.ts';
import { expectError, startTestServer, type TestServer } from '../../helpers/server.ts';

let ts: TestServer;
let admin: string;

interface ZipEntry { name: string; data: Buffer; declaredSize?: number }

/** A ZIP archive of deflated entries; `declaredSize` overrides the uncompressed size the headers state. CRCs are left 0. */
function zip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const packed = deflateRawSync(e.data, { level: 9 });
    const size = e.declaredSize ?? e.data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    centrals.push(central, name);
    offset += 30 + name.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 8);
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const CONTENT_TYPES = Buffer.from('<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>');
/** A worksheet of 150 MiB: its header row, then spaces (valid XML whitespace), deflated to about 150 KB. */
const hugeSheet = () => Buffer.concat([
  Buffer.from('<?xml version="1.0"?><worksheet><sheetData><row r="1"><c t="inlineStr"><is><t>Name</t></is></c></row>'),
  Buffer.alloc(150 * 1024 * 1024, 0x20),
  Buffer.from('</sheetData></worksheet>'),
]);

const upload = (url: string, file: Buffer) =>
  ts.request('POST', url, { token: admin, body: file, headers: { 'content-type': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' } });
const leadCount = async () => (await ts.request('GET', '/api/data/crm.lead?limit=500', { token: admin })).body.items.length as number;

beforeAll(async () => {
  ts = await startTestServer();
  admin = await adminToken(ts);
});

afterAll(async () => {
  await ts?.close();
});

describe('XLSX zip bombs', () => {
  it('a workbook whose entries declare 150 MiB unzipped is refused with 413 IMPORT_TOO_LARGE_UNZIPPED, on inspect and import, nothing imported', async () => {
    const file = zip([{ name: '[Content_Types].xml', data: CONTENT_TYPES }, { name: 'xl/worksheets/sheet1.xml', data: hugeSheet() }]);
    expect(file.length).toBeLessThan(1024 * 1024);
    const before = await leadCount();
    for (const url of ['/api/import/crm.lead/inspect', '/api/import/crm.lead?dry_run=false']) {
      const res = await upload(url, file);
      expectError(res, 413, 'IMPORT_TOO_LARGE_UNZIPPED');
      expect(res.body.error.details).toMatchObject({ max: 100 * 1024 * 1024, declared_bytes: expect.any(Number) });
      expect(res.body.error.details.declared_bytes).toBeGreaterThan(150 * 1024 * 1024);
    }
    expect(await leadCount()).toEqual(before);
  });

  it('a workbook whose directory lies (declares 1 KB for 150 MiB) is refused too: the inflated bytes are counted', async () => {
    const file = zip([{ name: '[Content_Types].xml', data: CONTENT_TYPES }, { name: 'xl/worksheets/sheet1.xml', data: hugeSheet(), declaredSize: 1024 }]);
    const res = await upload('/api/import/crm.lead?dry_run=false', file);
    expectError(res, 413, 'IMPORT_TOO_LARGE_UNZIPPED');
    expect(res.body.error.details).toMatchObject({ entry: 'xl/worksheets/sheet1.xml' });
  });

  it('an archive of more than 10000 entries is refused with 413 IMPORT_TOO_LARGE_UNZIPPED', async () => {
    const file = zip(Array.from({ length: 10_001 }, (_, i) => ({ name: `x/${i}.xml`, data: Buffer.from('<a/>') })));
    const res = await upload('/api/import/crm.lead/inspect', file);
    expectError(res, 413, 'IMPORT_TOO_LARGE_UNZIPPED');
    expect(res.body.error.details).toMatchObject({ max_entries: 10_000 });
  });

  it('a file with the ZIP signature but no central directory is 400 IMPORT_INVALID_FILE', async () => {
    const whole = zip([{ name: '[Content_Types].xml', data: CONTENT_TYPES }]);
    expectError(await upload('/api/import/crm.lead/inspect', whole.subarray(0, whole.length - 22)), 400, 'IMPORT_INVALID_FILE');
  });

  it('an ordinary workbook passes the check and is read', async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Leads');
    ws.addRow(['Name', 'Stage']);
    ws.addRow(['Zip honest', 'new']);
    const res = await upload('/api/import/crm.lead/inspect', Buffer.from(await wb.xlsx.writeBuffer()));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ format: 'xlsx', rows: 1, sample: [['Zip honest', 'new']] });
  });
});
