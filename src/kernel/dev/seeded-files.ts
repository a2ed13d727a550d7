import fs from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '../migrate/runner.js';

/**
 * Under `fw dev` data files are loaded again when a tenant is opened, without a version bump;
 * loading every file of every app would cost seconds per restart, so the digests of the files as
 * last loaded into each tenant are kept in `<DATA_DIR>/dev/seeded-<tenant>.json` and only files
 * that changed since are loaded again. Dev servers only: a deployed tenant seeds by app version.
 */
export class DevSeededFiles {
  private readonly file: string;
  private readonly digests: Record<string, string>;

  constructor(dataDir: string, tenant: string) {
    this.file = path.join(dataDir, 'dev', `seeded-${tenant}.json`);
    this.digests = fs.existsSync(this.file) ? (JSON.parse(fs.readFileSync(this.file, 'utf8')) as Record<string, string>) : {};
  }

  /** The files of `files` whose content differs from when they were last loaded. */
  changed(files: readonly string[]): string[] {
    return files.filter((f) => this.digests[f] !== digest(f));
  }

  /** Notes `files` as loaded with their current content. */
  loaded(files: readonly string[]): void {
    for (const f of files) this.digests[f] = digest(f);
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    fs.writeFileSync(this.file, `${JSON.stringify(this.digests, null, 2)}\n`);
  }
}

const digest = (file: string): string => sha256Hex(fs.readFileSync(file, 'utf8'));
