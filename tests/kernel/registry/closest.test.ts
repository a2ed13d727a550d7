/**
 * "Did you mean …?" (src/kernel/registry/closest.ts): the nearest candidate within a third of the
 * name's length in edits, a swap of two neighbours counting as one; nothing when none is that near.
 */
import { describe, expect, it } from 'vitest';
import { closest, didYouMean, editDistance } from '../../../src/kernel/registry/closest.ts';

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions, and a swap of neighbours as one edit', () => {
    expect(editDistance('res.user', 'res.user')).toBe(0);
    expect(editDistance('res.usr', 'res.user')).toBe(1);
    expect(editDistance('res.users', 'res.user')).toBe(1);
    expect(editDistance('res.uzer', 'res.user')).toBe(1);
    expect(editDistance('feild', 'field')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });
});

describe('closest', () => {
  const models = ['res.user', 'res.country', 'res.organization', 'crm.lead'];

  it('answers the nearest candidate, case-insensitively', () => {
    expect(closest('res.usr', models)).toBe('res.user');
    expect(closest('res.contry', models)).toBe('res.country');
    expect(closest('CRM.Lead', models)).toBe('crm.lead');
    expect(closest('helpdesk.ticket.feild_changed', ['helpdesk.ticket.field_changed', 'helpdesk.ticket.closed'])).toBe('helpdesk.ticket.field_changed');
  });

  it('answers nothing when no candidate is within a third of the name in edits, or there are none', () => {
    expect(closest('storage.folder', models)).toBeUndefined();
    expect(closest('ab', ['xy'])).toBeUndefined();
    expect(closest('res.user', [])).toBeUndefined();
  });

  it('never suggests the name itself; ties go to the first candidate', () => {
    expect(closest('res.user', ['res.user'])).toBeUndefined();
    expect(closest('abcd', ['abce', 'abcf'])).toBe('abce');
  });

  it('a name of one or two characters still gets a one-edit suggestion', () => {
    expect(closest('id', ['ix', 'name'])).toBe('ix');
  });
});

describe('didYouMean', () => {
  it('is a suffix for a message, or nothing', () => {
    expect(didYouMean('res.usr', ['res.user'])).toBe(' (did you mean res.user?)');
    expect(didYouMean('zzz', ['res.user'])).toBe('');
  });
});
