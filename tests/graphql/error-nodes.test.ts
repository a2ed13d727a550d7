/**
 * `fieldNodesAt` (src/server/graphql/error-nodes.ts): the field nodes a field error's path ends
 * at, found as graphql-js collects fields (by response key, through inline fragments and
 * spreads, list indices skipped), so errors raised under graphql-jit get the `locations`
 * graphql-js gives them (the server-level check is in tests/graphql/jit.test.ts).
 */
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { fieldNodesAt } from '../../src/server/graphql/error-nodes.ts';

const at = (doc: string, path: Array<string | number>, op?: string) =>
  fieldNodesAt(parse(doc), op, path).map((n) => `${n.loc!.startToken.line}:${n.loc!.startToken.column}`);

describe('the field nodes of an error path', () => {
  it('follows response keys (aliases first) and skips list indices', () => {
    expect(at('{\n  a: list { x }\n  list { y }\n}', ['a', 3, 'x'])).toEqual(['2:13']);
    expect(at('{\n  a: list { x }\n  list { y }\n}', ['list', 0, 'y'])).toEqual(['3:10']);
  });

  it('a key selected twice answers with both fields, as graphql-js merges them', () => {
    expect(at('{\n  me { name }\n  me { email }\n}', ['me'])).toEqual(['2:3', '3:3']);
    expect(at('{\n  me { name }\n  me { email }\n}', ['me', 'email'])).toEqual(['3:8']);
  });

  it('reaches fields through inline fragments and spreads, and a spread cycle ends', () => {
    const doc = 'query Q {\n  me { ...F ... on User { email } }\n}\nfragment F on User { name ...F }';
    expect(at(doc, ['me', 'name'], 'Q')).toEqual(['4:22']);
    expect(at(doc, ['me', 'email'], 'Q')).toEqual(['2:27']);
  });

  it('picks the named operation, and a path that leads nowhere gives no node', () => {
    const doc = 'query A { a }\nquery B { b }';
    expect(at(doc, ['b'], 'B')).toEqual(['2:11']);
    expect(at(doc, ['b'], 'A')).toEqual([]);
    expect(at(doc, ['b'])).toEqual([]); // two operations and no name: no operation
    expect(at('{ a { b } }', ['a', 'c'])).toEqual([]);
  });
});
