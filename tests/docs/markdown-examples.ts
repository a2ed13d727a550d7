/**
 * Extraction and comparison for the executable documentation examples (tests/docs/examples.test.ts;
 * the convention is described in docs/examples.md).
 *
 * A fenced block is an example when an HTML comment marker stands right before it (blank lines
 * between are allowed):
 *
 *   <!-- run -->                 run it: ```sh (bash, curl, jq), ```graphql, ```js
 *   <!-- run: stream after=X --> ```sh that streams: started, then trigger X, then its output checked
 *   <!-- output -->              ```json: the expected answer of the runnable block just before
 *   <!-- response: GET /path --> ```json: the expected answer of that request (as an admin)
 *   <!-- excerpt: path/file -->  any block: its code must be found in that file (whitespace aside)
 *   <!-- norun: reason -->       not run, on purpose (installs, servers, repository rewrites, …)
 *   <!-- setup                   hidden shell lines run before the next runnable ```sh block
 *   …sh lines…
 *   -->
 *
 * Expected output inside a block: a `# <json>` comment after a shell command (same line or the
 * lines below) or at the end of a GraphQL block, `# shape: <json>` (keys and value types only),
 * the `# …` lines after a streaming command (text), and `// prints:` lines in a js block.
 */
import fs from 'node:fs';

export type MarkerKind = 'run' | 'norun' | 'excerpt' | 'output' | 'response' | 'setup' | 'guide';

export interface Marker { kind: MarkerKind; arg: string; line: number }

export interface Block {
  file: string;
  /** 1-based line of the opening fence (for setup blocks: of the `<!-- setup` line) */
  line: number;
  lang: string;
  code: string;
  /** 1-based line of the first code line */
  codeLine: number;
  marker?: Marker;
}

const MARKER = /^<!--\s*(run|norun|excerpt|output|response|guide)(?:\s*:\s*(.*?))?\s*-->\s*$/;

/** Every fenced block of a Markdown file, with the marker that precedes it, plus hidden setup blocks. */
export function extractBlocks(file: string, text = fs.readFileSync(file, 'utf8')): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  let pending: Marker | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    // ~~~ fences show Markdown source (docs/examples.md): opaque, never examples
    if (/^\s*~~~/.test(line)) {
      for (i++; i < lines.length && !/^\s*~~~\s*$/.test(lines[i]); i++);
      pending = undefined;
      continue;
    }
    const fence = /^(\s*)```\s*([\w+-]*)\s*$/.exec(line);
    if (fence) {
      const start = i;
      const body: string[] = [];
      for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]); i++) body.push(lines[i].slice(fence[1].length));
      blocks.push({ file, line: start + 1, lang: fence[2].toLowerCase(), code: body.join('\n'), codeLine: start + 2, marker: pending });
      pending = undefined;
      continue;
    }
    if (/^<!--\s*setup\s*$/.test(line.trim())) {
      const start = i;
      const body: string[] = [];
      for (i++; i < lines.length && lines[i].trim() !== '-->'; i++) body.push(lines[i]);
      blocks.push({ file, line: start + 1, lang: 'sh', code: body.join('\n'), codeLine: start + 2, marker: { kind: 'setup', arg: '', line: start + 1 } });
      continue;
    }
    const m = MARKER.exec(line.trim());
    if (m) {
      pending = { kind: m[1] as MarkerKind, arg: (m[2] ?? '').trim(), line: i + 1 };
      continue;
    }
    // a marker belongs to the block right after it; prose in between detaches it
    if (line.trim() !== '') pending = undefined;
  }
  return blocks;
}

/** Blocks that must say what they are (run, excerpt or norun): commands, queries and code. */
export function needsMarker(b: Block): boolean {
  if (b.marker?.kind === 'setup') return false;
  if (['graphql', 'js', 'javascript', 'ts', 'typescript', 'tsx', 'http'].includes(b.lang)) return true;
  return ['sh', 'bash', 'shell', 'console'].includes(b.lang) && /\bcurl\b/.test(b.code);
}

// ---------------------------------------------------------------------------------------------
// Shell blocks → steps

export interface Step {
  /** 1-based line in the Markdown file */
  line: number;
  command: string;
  /** expected output: JSON (or `shape:` JSON) or text lines */
  expected?: string;
  shape?: boolean;
}

/** Splits a shell block into commands (joining `\` continuations), each with the output the docs show for it. */
export function shellSteps(b: Block, opts: { allComments?: boolean } = {}): Step[] {
  // a hidden setup block runs as one piece (it may define functions or loops)
  if (b.marker?.kind === 'setup') return [{ line: b.line, command: b.code }];
  const lines = b.code.split('\n');
  const steps: Step[] = [];
  let current: Step | undefined;
  let expecting = false;
  for (let i = 0; i < lines.length; i++) {
    const lineNo = b.codeLine + i;
    const raw = lines[i];
    const comment = /^\s*#(?: (.*)|$)/.exec(raw);
    if (comment) {
      const text = comment[1] ?? '';
      if (current && (expecting || opts.allComments || isOutput(text))) {
        addExpected(current, text);
        expecting = true;
      }
      continue;
    }
    if (raw.trim() === '') {
      expecting = false;
      continue;
    }
    // a command, possibly continued over several lines
    let cmd = raw;
    const first = lineNo;
    while (/\\\s*$/.test(cmd) && i + 1 < lines.length) cmd = `${cmd}\n${lines[++i]}`;
    const inline = /\s{2,}#\s+(.*)$/.exec(cmd);
    current = { line: first, command: inline ? cmd.slice(0, inline.index) : cmd };
    expecting = false;
    if (inline && isOutput(inline[1])) addExpected(current, inline[1]);
    steps.push(current);
  }
  return steps;
}

const isOutput = (text: string) => /^\s*(\{|\[|shape:)/.test(text);

function addExpected(step: Step, text: string): void {
  const shape = /^shape:\s*/.exec(text);
  if (shape) {
    step.shape = true;
    text = text.slice(shape[0].length);
  }
  step.expected = step.expected === undefined ? text : `${step.expected}\n${text}`;
}

// ---------------------------------------------------------------------------------------------
// Expected output: JSON patterns and text

const ANY = '\u0000any';
const REST = '\u0000rest';
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const ISO = '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?Z';

/**
 * Parses the JSON the docs show, where `…` stands for what varies: a bare `…` value is any value,
 * a bare `…` in an object means "other keys", at the end of a list "more items"; inside a string
 * it matches any text. Returns undefined when the text is not such JSON.
 */
export function parsePattern(text: string): unknown {
  let out = '';
  const stack: string[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') stack.push(c);
    else if (c === '}' || c === ']') stack.pop();
    else if (c === '…') {
      const prev = out.trimEnd().at(-1);
      out += stack.at(-1) === '{' && prev !== ':' ? `${JSON.stringify(REST)}: 0` : JSON.stringify(ANY);
      continue;
    }
    out += c;
  }
  try {
    return JSON.parse(out);
  } catch {
    return undefined;
  }
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A string the docs show → a regex: `…` any text, a UUID any UUID, an ISO timestamp any timestamp. */
export function textPattern(s: string): RegExp {
  const parts = s.split('…').map((p) => escapeRe(p)
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, UUID)
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\\\.\d+)?Z/g, ISO));
  return new RegExp(`^${parts.join('[\\s\\S]*')}$`);
}

const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** Differences between what the docs show and what came back (empty when it matches). */
export function compareJson(expected: unknown, actual: unknown, opts: { shape?: boolean } = {}, path = '$'): string[] {
  if (expected === ANY || expected === '…') return [];
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path}: expected a list, got ${JSON.stringify(actual)}`];
    const rest = expected.at(-1) === ANY;
    const items = rest ? expected.slice(0, -1) : expected;
    const problems: string[] = [];
    if (rest ? actual.length < items.length : actual.length !== items.length) {
      problems.push(`${path}: expected ${rest ? 'at least ' : ''}${items.length} items, got ${actual.length}: ${JSON.stringify(actual).slice(0, 300)}`);
    }
    items.forEach((e, i) => { if (i < actual.length) problems.push(...compareJson(e, actual[i], opts, `${path}[${i}]`)); });
    return problems;
  }
  if (expected && typeof expected === 'object') {
    if (!actual || typeof actual !== 'object' || Array.isArray(actual)) return [`${path}: expected an object, got ${JSON.stringify(actual)?.slice(0, 300)}`];
    const problems: string[] = [];
    for (const [k, v] of Object.entries(expected)) {
      if (k === REST) continue;
      if (!(k in actual)) problems.push(`${path}.${k}: missing (got keys ${Object.keys(actual).join(', ')})`);
      else problems.push(...compareJson(v, (actual as Record<string, unknown>)[k], opts, `${path}.${k}`));
    }
    return problems;
  }
  if (opts.shape) return typeOf(expected) === typeOf(actual) ? [] : [`${path}: expected a ${typeOf(expected)}, got ${JSON.stringify(actual)}`];
  if (typeof expected === 'string') {
    if (typeof actual === 'string' && textPattern(expected).test(actual)) return [];
    return [`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
  }
  if (typeof expected === 'number' && typeof actual === 'number' && Math.abs(expected - actual) < 1e-9) return [];
  return expected === actual ? [] : [`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
}

/** Text output (streams): the expected lines appear in this order among the actual ones. */
export function compareLines(expected: string, actual: string): string[] {
  const norm = (l: string) => l.trim().replace(/\s+/g, ' ');
  const want = expected.split('\n').map(norm);
  const got = actual.split('\n').map(norm);
  let at = 0;
  for (const w of want) {
    const re = textPattern(w);
    while (at < got.length && !re.test(got[at])) at++;
    if (at === got.length) return [`line "${w}" not found (in order) in the output:\n${actual}`];
    at++;
  }
  return [];
}

/** Compares one output: as JSON when the docs show JSON, else line by line. */
export function compareOutput(expected: string, actual: string, opts: { shape?: boolean } = {}): string[] {
  const pattern = parsePattern(expected);
  if (pattern === undefined) return compareLines(expected, actual);
  let value: unknown;
  try {
    value = JSON.parse(actual);
  } catch {
    return [`expected JSON like ${expected}\ngot: ${actual.slice(0, 1000)}`];
  }
  return compareJson(pattern, value, opts);
}

// ---------------------------------------------------------------------------------------------
// Excerpts

/** Whether `code` (a docs excerpt) is found in `source`: whitespace, trailing commas and `// …` comments aside, `…` skipping anything. */
export function excerptFound(code: string, source: string): boolean {
  const squash = (s: string) => s.replace(/\s+\/\/\s.*$/gm, '').replace(/\s+/g, '').replace(/,([}\])])/g, '$1');
  const parts = squash(code).split('…').map(escapeRe);
  return new RegExp(parts.join('[\\s\\S]*?')).test(squash(source));
}
