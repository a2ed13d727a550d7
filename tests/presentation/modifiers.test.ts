/**
 * The view-modifier language (src/apps/presentation/views/modifiers.ts): what parses into which
 * tree, what is refused and how the refusal reads. Parsed at boot; never evaluated as code.
 */
import { describe, expect, it } from 'vitest';
import { ModifierError, parseModifier } from '../../src/apps/presentation/views/modifiers.ts';

const FIELDS = new Set(['stage', 'probability', 'closed_at', 'is_active', 'country']);
const parse = (text: string) => parseModifier(text, (n) => FIELDS.has(n));
const refusal = (text: string): string => {
  try {
    parse(text);
  } catch (err) {
    expect(err).toBeInstanceOf(ModifierError);
    return (err as Error).message;
  }
  throw new Error(`"${text}" parsed, but it should have been refused`);
};

describe('view modifier expressions', () => {
  it('"1", "0", True and False are constants', () => {
    expect(parse('1')).toEqual({ const: true });
    expect(parse('0')).toEqual({ const: false });
    expect(parse('True')).toEqual({ const: true });
    expect(parse('false')).toEqual({ const: false });
  });

  it('comparisons of a field with text, numbers and None', () => {
    expect(parse("stage == 'won'")).toEqual({ op: '==', args: [{ field: 'stage' }, { const: 'won' }] });
    expect(parse('probability >= 0.5')).toEqual({ op: '>=', args: [{ field: 'probability' }, { const: 0.5 }] });
    expect(parse('probability < -1')).toEqual({ op: '<', args: [{ field: 'probability' }, { const: -1 }] });
    expect(parse('country != None')).toEqual({ op: '!=', args: [{ field: 'country' }, { const: null }] });
    expect(parse('stage == "it\\"s"')).toEqual({ op: '==', args: [{ field: 'stage' }, { const: 'it"s' }] });
  });

  it('in and not in a list; not, and, or with Python\'s precedence; parentheses', () => {
    expect(parse("stage in ['won', 'lost']")).toEqual({ op: 'in', args: [{ field: 'stage' }, { const: ['won', 'lost'] }] });
    expect(parse("stage not in ['won']")).toEqual({ op: 'not in', args: [{ field: 'stage' }, { const: ['won'] }] });
    expect(parse("not is_active or stage == 'won' and probability > 0")).toEqual({
      op: 'or', args: [
        { op: 'not', args: [{ field: 'is_active' }] },
        { op: 'and', args: [{ op: '==', args: [{ field: 'stage' }, { const: 'won' }] }, { op: '>', args: [{ field: 'probability' }, { const: 0 }] }] },
      ],
    });
    expect(parse("(not is_active or stage == 'won') and closed_at")).toMatchObject({ op: 'and', args: [{ op: 'or' }, { field: 'closed_at' }] });
  });

  it('refuses unknown fields, calls, attribute access, stray tokens and unfinished text, saying where', () => {
    expect(refusal("stag == 'won'")).toBe('unknown field "stag"');
    expect(refusal('__import__("os")')).toBe('unknown field "__import__"');
    expect(refusal('stage.lower')).toBe('unexpected "." at 6');
    expect(refusal("stage == 'won")).toBe('unterminated text starting at 10');
    expect(refusal("stage == 'won' stage")).toBe('unexpected "stage" at 16');
    expect(refusal('stage in')).toBe('expected a value or a field at the end');
    expect(refusal('(stage')).toBe('expected ")" at the end');
    expect(refusal("stage in [country]")).toBe('expected a value at 11, found "country"');
    expect(refusal('and stage')).toBe('expected a value or a field at 1, found "and"');
  });
});
