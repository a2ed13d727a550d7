import { createInflateRaw } from 'node:zlib';
import { BadRequest, FwError } from '../../kernel/errors.js';

/**
 * The check an uploaded XLSX passes before ExcelJS sees it. ExcelJS (through JSZip) inflates
 * every entry of the archive in memory, so a file well under IMPORT_MAX_BYTES can inflate to
 * gigabytes (a sheet of many MB of one repeated byte deflates about 1000 to 1). Two passes:
 *
 * 1. the central directory: at most MAX_ZIP_ENTRIES entries and the sum of their declared
 *    uncompressed sizes at most the cap (a ZIP64 size, 0xFFFFFFFF, is over any cap here);
 * 2. every entry inflated as a stream, its output counted and thrown away, stopping as soon as
 *    the real total passes the cap: declared sizes can lie, the inflated bytes cannot.
 *
 * Both read the central directory's offsets and compressed sizes, as JSZip does; an archive
 * whose entries cannot be found or inflated is 400 IMPORT_INVALID_FILE. Over the cap: 413
 * IMPORT_TOO_LARGE_UNZIPPED, and nothing is imported.
 */
export const MAX_ZIP_ENTRIES = 10_000;

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

const invalid = (why: string) => new BadRequest(`the XLSX workbook cannot be read: ${why}`, undefined, 'IMPORT_INVALID_FILE');
const tooLarge = (max: number, details: Record<string, unknown>) => new FwError('IMPORT_TOO_LARGE_UNZIPPED', 413,
  `the XLSX workbook unzips to more than ${max} bytes (IMPORT_MAX_UNZIPPED_BYTES); save it as CSV or split it`, { max, ...details });

interface Entry { name: string; method: number; compressed: number; size: number; localOffset: number }

/** The end-of-central-directory record: the last 22 bytes, or earlier when a comment (≤ 65535 bytes) follows it. */
function findEnd(buf: Buffer): number {
  for (let at = buf.length - 22; at >= Math.max(0, buf.length - 22 - 0xffff); at--) {
    if (buf.readUInt32LE(at) === EOCD) return at;
  }
  throw invalid('no ZIP central directory');
}

export function zipEntries(buf: Buffer): Entry[] {
  const end = findEnd(buf);
  const count = buf.readUInt16LE(end + 10);
  const start = buf.readUInt32LE(end + 16);
  if (count > MAX_ZIP_ENTRIES) throw new FwError('IMPORT_TOO_LARGE_UNZIPPED', 413, `the XLSX archive has ${count} entries; at most ${MAX_ZIP_ENTRIES} are read`, { entries: count, max_entries: MAX_ZIP_ENTRIES });
  const entries: Entry[] = [];
  let at = start;
  // walked to the end of the directory, not `count` times: the count field (16 bits) can lie too
  while (at + 46 <= end && buf.readUInt32LE(at) === CENTRAL) {
    if (entries.length >= MAX_ZIP_ENTRIES) {
      throw new FwError('IMPORT_TOO_LARGE_UNZIPPED', 413, `the XLSX archive has more than ${MAX_ZIP_ENTRIES} entries`, { max_entries: MAX_ZIP_ENTRIES });
    }
    const nameLen = buf.readUInt16LE(at + 28);
    entries.push({
      method: buf.readUInt16LE(at + 10),
      compressed: buf.readUInt32LE(at + 20),
      size: buf.readUInt32LE(at + 24),
      name: buf.toString('utf8', at + 46, at + 46 + nameLen),
      localOffset: buf.readUInt32LE(at + 42),
    });
    at += 46 + nameLen + buf.readUInt16LE(at + 30) + buf.readUInt16LE(at + 32);
  }
  if (!entries.length) throw invalid('the ZIP central directory lists no entry');
  return entries;
}

/** Inflates `data` (raw deflate), counting the output; rejects with `over` once more than `budget` bytes came out. */
function inflatedSize(data: Buffer, budget: number, over: () => Error): Promise<number> {
  return new Promise((resolve, reject) => {
    const z = createInflateRaw();
    let n = 0;
    z.on('data', (chunk: Buffer) => {
      n += chunk.length;
      if (n > budget) {
        z.destroy();
        reject(over());
      }
    });
    z.on('error', (err) => reject(invalid(err.message)));
    z.on('end', () => resolve(n));
    z.end(data);
  });
}

export async function checkZipSize(buf: Buffer, max: number): Promise<void> {
  const entries = zipEntries(buf);
  const declared = entries.reduce((s, e) => s + e.size, 0);
  if (declared > max) throw tooLarge(max, { declared_bytes: declared });
  let total = 0;
  for (const e of entries) {
    const at = e.localOffset;
    if (at + 30 > buf.length || buf.readUInt32LE(at) !== LOCAL) throw invalid(`entry ${e.name} is not where the directory says`);
    const from = at + 30 + buf.readUInt16LE(at + 26) + buf.readUInt16LE(at + 28);
    const data = buf.subarray(from, from + e.compressed);
    if (e.method === 0) total += data.length;
    else if (e.method === 8) total += await inflatedSize(data, max - total, () => tooLarge(max, { entry: e.name }));
    else throw invalid(`entry ${e.name} uses compression method ${e.method}`);
    if (total > max) throw tooLarge(max, { entry: e.name });
  }
}
