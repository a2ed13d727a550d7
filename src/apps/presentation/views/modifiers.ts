/**
 * View modifiers: `invisible`, `readonly` and `required` attributes whose value is a small
 * expression over the record's values, as Odoo's views have them:
 *
 * ```xml
 * <button name="crm.lead.mark_won" invisible="stage in ['won', 'lost']"/>
 * <field name="closed_at" readonly="stage not in ['won', 'lost']" required="stage == 'won'"/>
 * ```
 *
 * The text is parsed here, at boot, into a tree the render plan carries (JSON); the client
 * evaluates the tree against the form's current values (web/src/views/form/modifiers.ts). Nothing is ever `eval`ed, and the
 * language has no calls, attributes or assignment: literals, field names, comparisons, `in`,
 * `not`, `and`, `or` and parentheses.
 *
 *   expr    := or
 *   or      := and ('or' and)*
 *   and     := not ('and' not)*
 *   not     := 'not' not | compare
 *   compare := operand (('==' | '!=' | '<' | '<=' | '>' | '>=' | 'in' | 'not in') operand)?
 *   operand := literal | field | '[' literals ']' | '(' expr ')'
 *   literal := 'text' | "text" | number | True | False | None (true/false/null too)
 *
 * A field stands for its value: a Reference's is the referenced record's id (null when empty),
 * an Enum's its value. "1"/"0" (and True/False) are the constant forms.
 */

export type Expr =
  | { const: unknown }
  | { field: string }
  | { op: 'and' | 'or'; args: Expr[] }
  | { op: 'not'; args: [Expr] }
  | { op: '==' | '!=' | '<' | '<=' | '>' | '>=' | 'in' | 'not in'; args: [Expr, Expr] };

export type ModifierName = 'invisible' | 'readonly' | 'required';
export type Modifiers = Partial<Record<ModifierName, Expr>>;

/** A modifier text that cannot be parsed: the message names what and where. */
export class ModifierError extends Error {}

type Token = { kind: 'str' | 'num' | 'name' | 'punct'; text: string; value?: unknown; at: number };

const PUNCT = ['==', '!=', '<=', '>=', '<', '>', '(', ')', '[', ']', ','];
const KEYWORDS: Record<string, unknown> = { True: true, False: false, None: null, true: true, false: false, null: null };

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c)) { i++; continue; }
    if (c === '"' || c === "'") {
      let j = i + 1;
      let s = '';
      while (j < text.length && text[j] !== c) {
        if (text[j] === '\\' && j + 1 < text.length) { s += text[j + 1]; j += 2; } else s += text[j++];
      }
      if (j >= text.length) throw new ModifierError(`unterminated text starting at ${i + 1}`);
      out.push({ kind: 'str', text: text.slice(i, j + 1), value: s, at: i });
      i = j + 1;
      continue;
    }
    const num = /^-?\d+(\.\d+)?/.exec(text.slice(i));
    if (num && (c !== '-' || !out.length || out.at(-1)!.kind === 'punct')) {
      out.push({ kind: 'num', text: num[0], value: Number(num[0]), at: i });
      i += num[0].length;
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i));
    if (name) {
      out.push({ kind: 'name', text: name[0], at: i });
      i += name[0].length;
      continue;
    }
    const p = PUNCT.find((x) => text.startsWith(x, i));
    if (!p) throw new ModifierError(`unexpected "${c}" at ${i + 1}`);
    out.push({ kind: 'punct', text: p, at: i });
    i += p.length;
  }
  return out;
}

/**
 * Parses a modifier's text into its tree; `isField` says which names are fields of the model
 * (any other name is refused, with the closest field suggested by the caller's message).
 */
export function parseModifier(text: string, isField: (name: string) => boolean): Expr {
  const trimmed = text.trim();
  if (trimmed === '1') return { const: true };
  if (trimmed === '0' || trimmed === '') return { const: false };
  const tokens = tokenize(trimmed);
  let pos = 0;
  const peek = () => tokens[pos];
  const isWord = (w: string) => peek()?.kind === 'name' && peek()!.text === w;
  const isPunct = (p: string) => peek()?.kind === 'punct' && peek()!.text === p;
  const expect = (p: string) => {
    if (!isPunct(p)) throw new ModifierError(`expected "${p}" ${peek() ? `at ${peek()!.at + 1}, found "${peek()!.text}"` : 'at the end'}`);
    pos++;
  };

  const literal = (): Expr => {
    const t = peek();
    if (!t) throw new ModifierError('expected a value at the end');
    if (t.kind === 'str' || t.kind === 'num') { pos++; return { const: t.value }; }
    if (t.kind === 'name' && t.text in KEYWORDS) { pos++; return { const: KEYWORDS[t.text] }; }
    throw new ModifierError(`expected a value at ${t.at + 1}, found "${t.text}"`);
  };

  const operand = (): Expr => {
    const t = peek();
    if (!t) throw new ModifierError('expected a value or a field at the end');
    if (isPunct('(')) {
      pos++;
      const e = or();
      expect(')');
      return e;
    }
    if (isPunct('[')) {
      pos++;
      const items: unknown[] = [];
      while (!isPunct(']')) {
        items.push((literal() as { const: unknown }).const);
        if (!isPunct(']')) expect(',');
      }
      pos++;
      return { const: items };
    }
    if (t.kind === 'name' && !(t.text in KEYWORDS)) {
      if (['and', 'or', 'not', 'in'].includes(t.text)) throw new ModifierError(`expected a value or a field at ${t.at + 1}, found "${t.text}"`);
      if (!isField(t.text)) throw new ModifierError(`unknown field "${t.text}"`);
      pos++;
      return { field: t.text };
    }
    return literal();
  };

  const compare = (): Expr => {
    const left = operand();
    const t = peek();
    if (t?.kind === 'punct' && ['==', '!=', '<', '<=', '>', '>='].includes(t.text)) {
      pos++;
      return { op: t.text as '==', args: [left, operand()] };
    }
    if (isWord('in')) { pos++; return { op: 'in', args: [left, operand()] }; }
    if (isWord('not') && tokens[pos + 1]?.kind === 'name' && tokens[pos + 1].text === 'in') {
      pos += 2;
      return { op: 'not in', args: [left, operand()] };
    }
    return left;
  };

  const not = (): Expr => {
    if (isWord('not')) { pos++; return { op: 'not', args: [not()] }; }
    return compare();
  };

  const chain = (word: 'and' | 'or', next: () => Expr) => (): Expr => {
    const args = [next()];
    while (isWord(word)) { pos++; args.push(next()); }
    return args.length === 1 ? args[0] : { op: word, args };
  };
  const and = chain('and', not);
  const or = chain('or', and);

  const tree = or();
  if (pos < tokens.length) throw new ModifierError(`unexpected "${tokens[pos].text}" at ${tokens[pos].at + 1}`);
  return tree;
}

/** The fields an expression reads (a client watches them; the plan loads them). */
export function fieldsOf(e: Expr, out = new Set<string>()): Set<string> {
  if ('field' in e) out.add(e.field);
  if ('args' in e) for (const a of e.args) fieldsOf(a, out);
  return out;
}
