/**
 * yoga's parse caches, bounded by size. yoga keeps the last 1,024 documents it parsed (and the
 * last 1,024 parse errors) keyed by their full text, whatever their length: a flood of distinct
 * 229 KB documents (the 10,000 aliases of issue 26, each refused) held 229 MB of text in the
 * error cache, and 1,024 documents of 1,000 tokens keep their syntax trees too. Here each cache
 * holds at most `maxBytes` of document text, and a document longer than `maxEntryBytes` is not
 * cached at all (it is parsed again when it comes back, which its token bound keeps cheap).
 * The validation cache is keyed by the parsed document (a WeakMap) and goes with it.
 */
import type { DocumentNode } from 'graphql';
import { LRUCache } from 'lru-cache';

export interface ParseCacheLimits {
  entries: number;
  maxBytes: number;
  maxEntryBytes: number;
}

/** 1,024 entries (yoga's default), 2 MiB of text in all, 64 KiB per document. */
export const PARSE_CACHE_LIMITS: ParseCacheLimits = { entries: 1024, maxBytes: 2 * 1024 * 1024, maxEntryBytes: 64 * 1024 };

function textCache<T extends object>(limits: ParseCacheLimits): { get(key: string): T | undefined; set(key: string, value: T): void } {
  const lru = new LRUCache<string, T>({
    max: limits.entries, maxSize: limits.maxBytes, maxEntrySize: limits.maxEntryBytes,
    // UTF-16 code units: close enough to the bytes of the text, and free to compute
    sizeCalculation: (_value, key) => Math.max(1, key.length),
  });
  return { get: (key) => lru.get(key), set: (key, value) => void lru.set(key, value) };
}

/** yoga's `parserAndValidationCache` option. */
export function boundedParseCaches(limits: ParseCacheLimits = PARSE_CACHE_LIMITS): { documentCache: { get(key: string): DocumentNode | undefined; set(key: string, value: DocumentNode): void }; errorCache: { get(key: string): object | undefined; set(key: string, value: object): void }; validationCache: true } {
  return { documentCache: textCache<DocumentNode>(limits), errorCache: textCache<object>(limits), validationCache: true };
}
