import { ValidationError } from '../../../kernel/errors.js';

/** Workspace slugs: what a URL path segment can carry without escaping. */
export const SLUG_RE = /^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){0,62}$/;

export function checkSlug(code: unknown): string {
  if (typeof code !== 'string' || !SLUG_RE.test(code)) {
    throw new ValidationError(`code "${String(code)}" must be 1–63 lowercase letters, digits and single inner hyphens`, { field: 'code' }, 'INVALID_SLUG');
  }
  return code;
}

export function slugify(name: string): string {
  const s = name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase()
    .replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 56).replace(/-+$/, '');
  return s || 'org';
}
