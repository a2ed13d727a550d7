/**
 * SQLite sort indexes store `fw_sortkey` keys (src/kernel/db/sort-indexes.ts), and an index is
 * only rebuilt when `sortKeyVersion()` changes. A change to how keys are built must therefore
 * bump KEY_FORMAT (src/kernel/data/collation.ts): this test pins the keys of sample texts and
 * fails until the pinned hash and KEY_FORMAT are updated together.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { KEY_FORMAT, sortKey, sortKeyVersion } from '../../../src/kernel/data/collation.ts';

// Latin letters, digits, spaces, punctuation, accents and expansions: ranks ICU versions agree on
const SAMPLES = ['', 'a', 'A', 'ab', 'a b', 'a-b', 'a_b', 'Zeta', 'zeta', '42 Labs', 'Résumé', 'resume', 'Ærø', 'straße', 'Œuvre'];
const keysHash = () => createHash('sha256').update(SAMPLES.map((s) => sortKey(s).toString('hex')).join('|')).digest('hex').slice(0, 16);

describe('the sort key version', () => {
  it('keys of sample texts are pinned to KEY_FORMAT: a new key algorithm bumps it (and rebuilds every sort index)', () => {
    expect({ format: KEY_FORMAT, keys: keysHash() }).toEqual({ format: 1, keys: '48b3b429b4e3cb17' });
  });

  it('the version is stable within a process and names the key format', () => {
    expect(sortKeyVersion()).toMatch(/^[0-9a-f]{10}$/);
    expect(sortKeyVersion()).toBe(sortKeyVersion());
  });
});
