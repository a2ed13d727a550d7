/**
 * Reads a view's domain attribute, a Python-style literal such as
 * `[('state', '=', 'done'), ('created_at_utc', '>=', '%(month_start)s')]`: lists, tuples,
 * quoted strings, numbers, True/False/None. Nothing is evaluated.
 */
export function parseDomainLiteral(text: string): unknown {
  let i = 0;
  const ws = () => { while (/\s/.test(text[i] ?? '')) i++; };
  const value = (): unknown => {
    ws();
    const c = text[i];
    if (c === '[' || c === '(') {
      const close = c === '[' ? ']' : ')';
      i++;
      const out: unknown[] = [];
      ws();
      while (text[i] !== close) {
        out.push(value());
        ws();
        if (text[i] === ',') { i++; ws(); } else if (text[i] !== close) throw new SyntaxError(`expected , or ${close} at ${i}`);
      }
      i++;
      return out;
    }
    if (c === '"' || c === "'") {
      let s = '';
      i++;
      while (text[i] !== c) {
        if (i >= text.length) throw new SyntaxError('unterminated string');
        if (text[i] === '\\') i++;
        s += text[i++];
      }
      i++;
      return s;
    }
    const m = /^(-?\d+(?:\.\d+)?|True|False|None)/.exec(text.slice(i));
    if (!m) throw new SyntaxError(`unexpected "${text.slice(i, i + 10)}" at ${i}`);
    i += m[0].length;
    return m[0] === 'True' ? true : m[0] === 'False' ? false : m[0] === 'None' ? null : Number(m[0]);
  };
  const v = value();
  ws();
  if (i !== text.length) throw new SyntaxError(`unexpected text after the domain at ${i}`);
  return v;
}

/** Request-time values of `%(name)s` placeholders in view domains. */
export function placeholderValues(now: Date, principal: { user_id: string | null; organization_id?: string | null }): Record<string, unknown> {
  const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  return {
    now: now.toISOString(),
    today: day.toISOString(),
    month_start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
    year_start: new Date(Date.UTC(now.getUTCFullYear(), 0, 1)).toISOString(),
    user_id: principal.user_id,
    organization_id: principal.organization_id ?? null,
  };
}

const PLACEHOLDER = /^%\((\w+)\)s$/;

export function resolvePlaceholders(domain: unknown, values: Record<string, unknown>): unknown {
  if (Array.isArray(domain)) return domain.map((d) => resolvePlaceholders(d, values));
  if (typeof domain === 'string') {
    const m = PLACEHOLDER.exec(domain);
    if (m) {
      if (!(m[1] in values)) throw new Error(`unknown placeholder ${domain}`);
      return values[m[1]];
    }
  }
  return domain;
}
