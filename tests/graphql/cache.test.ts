/**
 * yoga's parse caches are bounded in bytes (src/server/graphql/cache.ts): a document longer than
 * 64 KiB is not cached, and the cache holds at most 2 MiB of document text (least recently used
 * first out), so a flood of large distinct documents cannot fill memory through it.
 */
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { boundedParseCaches, PARSE_CACHE_LIMITS } from '../../src/server/graphql/cache.ts';

describe('boundedParseCaches', () => {
  it('the limits are 1,024 documents, 2 MiB of text, 64 KiB per document', () => {
    expect(PARSE_CACHE_LIMITS).toEqual({ entries: 1024, maxBytes: 2 * 1024 * 1024, maxEntryBytes: 64 * 1024 });
  });

  it('a document up to 64 KiB is cached, a longer one is not (documents and errors alike)', () => {
    const { documentCache, errorCache } = boundedParseCaches();
    const doc = parse('{ __typename }');
    const at = `{ __typename }${' '.repeat(64 * 1024 - 14)}`;
    const over = `${at} `;
    documentCache.set(at, doc);
    documentCache.set(over, doc);
    expect(documentCache.get(at)).toBe(doc);
    expect(documentCache.get(over)).toBeUndefined();
    errorCache.set(over, new Error('x'));
    expect(errorCache.get(over)).toBeUndefined();
  });

  it('at most 2 MiB of text is kept: the least recently used documents go first', () => {
    const { documentCache } = boundedParseCaches();
    const doc = parse('{ __typename }');
    const key = (i: number) => `# ${i}\n${'x'.repeat(60 * 1024)}`;
    for (let i = 0; i < 100; i++) documentCache.set(key(i), doc);
    const kept = Array.from({ length: 100 }, (_, i) => i).filter((i) => documentCache.get(key(i)) !== undefined);
    expect(kept.length).toBeLessThanOrEqual(Math.floor((2 * 1024 * 1024) / (60 * 1024)));
    expect(kept.length).toBeGreaterThan(20);
    expect(kept.at(-1)).toBe(99);
    expect(kept[0]).toBe(100 - kept.length);
  });
});
