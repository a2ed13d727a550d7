/**
 * The client's evaluation of view modifiers (web/src/views/form/modifiers.ts) on trees the server
 * parsed (src/apps/presentation/views/modifiers.ts): Python-like truth, References by id, `in`,
 * and comparisons of different kinds false instead of an error.
 */
import { describe, expect, it } from 'vitest';
import { parseModifier } from '../../../src/apps/presentation/views/modifiers.ts';
import { evaluate, holds, modifiersOf, truthy, watchedFields } from '../../../web/src/views/form/modifiers.ts';

const tree = (text: string) => parseModifier(text, () => true);
const run = (text: string, values: Record<string, unknown>) => truthy(evaluate(tree(text), values));

describe('view modifiers in the client', () => {
  it('compares a field\'s current value; an enum by its value, a Reference by its id', () => {
    expect(run("stage in ['won', 'lost']", { stage: 'won' })).toBe(true);
    expect(run("stage in ['won', 'lost']", { stage: 'new' })).toBe(false);
    expect(run("stage not in ['won', 'lost']", { stage: 'new' })).toBe(true);
    expect(run("country == 'c-1'", { country: { id: 'c-1', name: 'France' } })).toBe(true);
    expect(run('country', { country: null })).toBe(false);
    expect(run('not country', {})).toBe(true);
  });

  it('numbers compare as numbers; different kinds and nulls compare false, never throw', () => {
    expect(run('probability >= 0.5', { probability: 0.5 })).toBe(true);
    expect(run('probability > 0.5', { probability: null })).toBe(false);
    expect(run("probability > 'x'", { probability: 3 })).toBe(false);
  });

  it('and/or/not combine as in Python; empty text, 0 and [] are false', () => {
    expect(run("not is_active or stage == 'won'", { is_active: true, stage: 'won' })).toBe(true);
    expect(run("not is_active or stage == 'won'", { is_active: true, stage: 'new' })).toBe(false);
    expect([truthy(''), truthy(0), truthy([]), truthy('0'), truthy([0])]).toEqual([false, false, false, true, true]);
  });

  it('reads a plan\'s modifiers JSON, ignoring malformed entries, and lists the fields to watch', () => {
    const m = modifiersOf({ invisible: tree("stage == 'won'"), readonly: { op: 'not', args: [42] }, required: 'yes' });
    expect(Object.keys(m)).toEqual(['invisible']);
    expect(holds(m, 'invisible', { stage: 'won' })).toBe(true);
    expect(holds(m, 'readonly', { stage: 'won' })).toBe(false);
    expect(modifiersOf(null)).toEqual({});
    expect(watchedFields([m, modifiersOf({ required: tree('closed_at and country') })]).sort()).toEqual(['closed_at', 'country', 'stage']);
  });
});
