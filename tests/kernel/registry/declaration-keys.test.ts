/**
 * A model declaration with a key fw does not know stops the boot, naming the model, the place
 * and the key meant (src/kernel/registry/declaration-keys.ts): a misspelt key was ignored, so
 * `rule:` for `rules:` dropped every record rule and `requird:` left a field optional.
 */
import { describe, expect, it } from 'vitest';
import { defineModel, f, type ModelDecl } from '../../../src/kernel/declare.ts';
import { BootError } from '../../../src/kernel/errors.ts';
import { resolveModel } from '../../../src/kernel/registry/model.ts';

const base = (): ModelDecl => defineModel({
  key: 'kt.ticket',
  description: 'Ticket',
  fields: {
    name: f.char(100, { required: true }),
    owner: f.reference('res.user', { default_principal: 'user_id' }),
    stage: f.enum(['new', 'done'], { default: 'new' }),
  },
  access: {
    roles: { admin: 'crud', user: 'cru' },
    fields: { stage: { write: ['admin'] } },
    rules: [{ ops: ['update'], domain: [['owner', '=', '$principal.user_id']] }],
  },
});

/** The declaration with one part changed as a hand slip would: plain data, as a file holds it. */
function broken(change: (d: Record<string, any>) => void): ModelDecl {
  const d = structuredClone(base()) as unknown as Record<string, any>;
  change(d);
  return d as unknown as ModelDecl;
}

const refusal = (decl: ModelDecl): string => {
  try {
    resolveModel(decl, 'kt');
  } catch (err) {
    expect(err).toBeInstanceOf(BootError);
    return (err as Error).message;
  }
  throw new Error('the declaration was accepted');
};

describe('unknown keys of a model declaration', () => {
  it('the declaration as written is accepted, rules and options read', () => {
    const m = resolveModel(base(), 'kt');
    expect(m.access.rules).toHaveLength(1);
    expect(m.fields.get('name')!.required).toBe(true);
  });

  it('access.rule for rules stops the boot instead of dropping every record rule', () => {
    expect(refusal(broken((d) => { d.access.rule = d.access.rules; delete d.access.rules; })))
      .toBe('model kt.ticket: access has no option "rule" (did you mean rules?); it would be ignored');
  });

  it('a misspelt field option stops the boot (requird: the field would stay optional)', () => {
    expect(refusal(broken((d) => { d.fields.name.requird = true; delete d.fields.name.required; })))
      .toBe('model kt.ticket, field name has no option "requird" (did you mean required?); it would be ignored');
  });

  it('an option of another field type is refused too (min on a Char, size on a Text)', () => {
    expect(refusal(broken((d) => { d.fields.name.min = 3; }))).toMatch(/^model kt\.ticket, field name has no option "min"/);
    expect(refusal(broken((d) => { d.fields.body = { type: 'text', size: 10 }; }))).toMatch(/field body has no option "size"/);
  });

  it('an unknown key at the model, a rule or a field\'s access, and an unknown field type', () => {
    expect(refusal(broken((d) => { d.default_ordr = 'name asc'; }))).toMatch(/^model kt\.ticket has no option "default_ordr" \(did you mean default_order\?\)/);
    expect(refusal(broken((d) => { d.access.rules[0].domian = d.access.rules[0].domain; delete d.access.rules[0].domain; })))
      .toMatch(/^model kt\.ticket: access\.rules\[0\] has no option "domian" \(did you mean domain\?\)/);
    expect(refusal(broken((d) => { d.access.fields.stage = { wirte: ['admin'] }; }))).toMatch(/access\.fields\.stage has no option "wirte" \(did you mean write\?\)/);
    expect(refusal(broken((d) => { d.fields.name.type = 'chr'; }))).toMatch(/field name: unknown field type "chr" \(did you mean char\?\)/);
    expect(refusal(broken((d) => { d.fields.name.type = 'Dateish'; }))).toMatch(/field name: unknown field type "Dateish" \(one of char, text, .*, one2many\)/);
    expect(refusal(broken((d) => { d.fields.name = 'char'; }))).toMatch(/field name must be a field declaration/);
  });
});
