import { XMLParser, XMLValidator } from 'fast-xml-parser';

/** An XML element with its attributes, children, and a path naming it in error messages. */
export interface XmlNode {
  tag: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  path: string;
}

export class ViewFileError extends Error {}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  preserveOrder: true,
  // only the five predefined entities and character references remain: DOCTYPE is refused first
  processEntities: true,
  htmlEntities: false,
  allowBooleanAttributes: true,
  parseAttributeValue: false,
  parseTagValue: false,
  trimValues: true,
});

type Raw = Record<string, unknown> & { ':@'?: Record<string, string> };

/**
 * Parses one view file. DOCTYPE declarations and entities are refused outright: no entity
 * expansion (billion laughs) and no external fetch, whatever the parser would do with them.
 */
export function parseXml(text: string, file: string): XmlNode {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new ViewFileError(`${file}: DOCTYPE and ENTITY declarations are not allowed in view files`);
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new ViewFileError(`${file}: line ${valid.err.line}: ${valid.err.msg}`);
  const roots = (parser.parse(text) as Raw[]).filter((r) => !('?xml' in r) && !('#text' in r));
  if (roots.length !== 1) throw new ViewFileError(`${file}: a view file has exactly one root element`);
  return toNode(roots[0], tagOf(roots[0]));
}

const tagOf = (raw: Raw): string => Object.keys(raw).find((k) => k !== ':@')!;

/** `path` names the element like `view/form/sheet/group[2]/field[1]`. */
function toNode(raw: Raw, path: string): XmlNode {
  const tag = tagOf(raw);
  const kids = (raw[tag] as Raw[]).filter((c) => !('#text' in c) && !('#comment' in c));
  const counts = new Map<string, number>();
  const children = kids.map((c) => {
    const t = tagOf(c);
    const n = (counts.get(t) ?? 0) + 1;
    counts.set(t, n);
    return toNode(c, `${path}/${t}[${n}]`);
  });
  return { tag, attrs: { ...(raw[':@'] ?? {}) }, children, path };
}
