/**
 * `npx tsx bench/ai-guards.ts` — figures for the AI guards (src/apps/ai/guards/):
 *  1. prompt injection: precision / recall / F1 at thresholds 40–80 on the labelled corpus and
 *     on the blind set (never tuned against: the honest estimate for unseen phrasings);
 *  2. PII: findings on the PII corpus (per kind), false positives on the benign business corpus
 *     and on synthetic random ids (seeded, reproducible);
 *  3. time per 1 kB of text for each guard.
 * Pure CPU, no server. Timings depend on the machine and its load (printed with the figures).
 */
import os from 'node:os';
import { scoreInjection } from '../src/apps/ai/guards/injection.ts';
import { findPii, type PiiKind } from '../src/apps/ai/guards/pii.ts';
import { validateAgainst } from '../src/apps/ai/guards/output.ts';
import { ATTACKS, BENIGN, BLIND_ATTACKS, BLIND_BENIGN } from '../tests/ai/guards/injection-corpus.ts';
import { BENIGN_BUSINESS, PII_SAMPLES } from '../tests/ai/guards/pii-corpus.ts';

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : '  -  ');
const table = (head: string[], rows: Array<Array<string | number>>) => {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (r: Array<string | number>) => r.map((c, i) => String(c).padStart(w[i])).join('  ');
  console.log(line(head));
  for (const r of rows) console.log(line(r));
};

// -- 1. injection ------------------------------------------------------------------------------

function prf(attacks: string[], benign: string[], threshold: number) {
  const tp = attacks.filter((t) => scoreInjection(t).score >= threshold).length;
  const fp = benign.filter((t) => scoreInjection(t).score >= threshold).length;
  const precision = tp / (tp + fp);
  const recall = tp / attacks.length;
  return { tp, fp, fn: attacks.length - tp, precision, recall, f1: (2 * precision * recall) / (precision + recall) };
}

function injectionTable(title: string, attacks: string[], benign: string[]) {
  console.log(`\n${title} (${attacks.length} attacks, ${benign.length} benign)`);
  table(
    ['threshold', 'precision', 'recall', 'F1', 'TP', 'FP', 'FN'],
    [40, 50, 60, 70, 80].map((t) => {
      const r = prf(attacks, benign, t);
      return [t, f3(r.precision), f3(r.recall), f3(r.f1), r.tp, r.fp, r.fn];
    }),
  );
}

console.log(`AI guards — node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'} ×${os.cpus().length}, load ${os.loadavg()[0].toFixed(1)}`);
console.log('\n== prompt injection (scoreInjection) ==');
injectionTable('labelled corpus', ATTACKS.map((a) => a.text), BENIGN);
injectionTable('blind set — never tuned against', BLIND_ATTACKS, BLIND_BENIGN);
console.log('\nrecall at 60 by attack kind (labelled corpus)');
table(
  ['kind', 'n', 'recall'],
  (['direct', 'indirect', 'obfuscated', 'multilingual'] as const).map((k) => {
    const texts = ATTACKS.filter((a) => a.kind === k).map((a) => a.text);
    return [k, texts.length, f3(prf(texts, [], 60).recall)];
  }),
);

// -- 2. PII -------------------------------------------------------------------------------------

console.log('\n== PII (findPii) ==');
const KINDS: PiiKind[] = ['card', 'iban', 'email', 'phone'];
const counts = Object.fromEntries(KINDS.map((k) => [k, { expected: 0, found: 0, missed: 0, extra: 0 }]));
for (const s of PII_SAMPLES) {
  const got = findPii(s.text, { defaultCountry: s.country }).map((f) => `${f.kind}\u0000${f.text}`);
  const want = s.expect.map(([k, t]) => `${k}\u0000${t}`);
  for (const w of want) {
    const k = w.split('\u0000')[0] as PiiKind;
    counts[k].expected++;
    if (got.includes(w)) counts[k].found++;
    else counts[k].missed++;
  }
  for (const g of got) if (!want.includes(g)) counts[g.split('\u0000')[0]].extra++;
}
console.log(`\nPII corpus (${PII_SAMPLES.length} sentences)`);
table(['kind', 'expected', 'found', 'missed', 'unexpected'], KINDS.map((k) => [k, counts[k].expected, counts[k].found, counts[k].missed, counts[k].extra]));

console.log(`\nbenign business corpus (${BENIGN_BUSINESS.length} sentences full of ids, amounts, dates, versions)`);
table(
  ['default country', 'findings', 'sentences flagged', 'FP rate'],
  ([undefined, 'FR', 'DE', 'US', 'GB'] as const).map((c) => {
    const per = BENIGN_BUSINESS.map((t) => findPii(t, { defaultCountry: c }).length);
    const flagged = per.filter((n) => n > 0).length;
    return [c ?? '(none)', per.reduce((a, b) => a + b, 0), flagged, pct(flagged / BENIGN_BUSINESS.length)];
  }),
);

// Synthetic ids: what fraction of random numbers of a given shape a detector accepts. This is
// the false-positive rate on id columns; it is bounded below by the checksum (1/10 for Luhn,
// 1/97 for IBAN) times the share of the structure (issuer prefixes, country lengths).
let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const digits = (n: number) => Array.from({ length: n }, () => Math.floor(rand() * 10)).join('');
const N = 20_000;
const synthetic: Array<[string, () => string, Parameters<typeof findPii>[1]]> = [
  ['16 random digits, unlabelled', () => `value ${digits(16)} ok`, undefined],
  ['16 random digits after "order"', () => `order ${digits(16)} shipped`, undefined],
  ['13–19 random digits, unlabelled', () => `value ${digits(13 + Math.floor(rand() * 7))}`, undefined],
  ['4×4 digit groups, unlabelled', () => `code ${digits(4)} ${digits(4)} ${digits(4)} ${digits(4)}`, undefined],
  ['"DE" + 20 random digits', () => `acct DE${digits(20)} ok`, undefined],
  ['"0" + 9 random digits, FR', () => `value 0${digits(9)} ok`, { defaultCountry: 'FR' }],
  ['"0" + 9 random digits after "invoice", FR', () => `invoice 0${digits(9)} ok`, { defaultCountry: 'FR' }],
  ['9–12 random digits, FR', () => `value ${digits(9 + Math.floor(rand() * 4))} ok`, { defaultCountry: 'FR' }],
  ['"+" and 11 random digits', () => `value +${digits(11)} ok`, undefined],
  ['ISO timestamps + UUIDs, DE', () => `at 2024-0${1 + Math.floor(rand() * 9)}-1${Math.floor(rand() * 9)}T10:${digits(2)}:00Z id ${crypto.randomUUID()}`, { defaultCountry: 'DE' }],
];
console.log(`\nsynthetic ids (${N} each, seeded)`);
table(
  ['shape', 'flagged', 'rate', 'as'],
  synthetic.map(([name, gen, opts]) => {
    const kinds = new Map<string, number>();
    let flagged = 0;
    for (let i = 0; i < N; i++) {
      const f = findPii(gen(), opts);
      if (f.length) flagged++;
      for (const x of f) kinds.set(x.kind, (kinds.get(x.kind) ?? 0) + 1);
    }
    return [name, flagged, pct(flagged / N), [...kinds].map(([k, n]) => `${k} ${n}`).join(', ') || '-'];
  }),
);

// -- 3. time per kB -----------------------------------------------------------------------------

function perKb(text: string, f: (t: string) => unknown): number {
  f(text); // warm-up (regex compilation, libphonenumber metadata)
  let runs = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < 300) {
    f(text);
    runs++;
  }
  return (performance.now() - t0) / runs / (text.length / 1024);
}

const prose = [...BENIGN, ...ATTACKS.map((a) => a.text)].join('\n');
const businessNumbers = [...BENIGN_BUSINESS, ...PII_SAMPLES.map((s) => s.text)].join('\n');
const longTool = JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ id: `cus_${i}`, name: `Customer ${i}`, note: BENIGN[i % BENIGN.length] })));
const schema = { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' }, note: { type: 'string' } }, required: ['id', 'name'] } };
const longToolValue = JSON.parse(longTool) as unknown;
console.log('\ntime per 1 kB (ms)');
table(
  ['text', 'size', 'scoreInjection', 'findPii', 'findPii FR', 'validateAgainst'],
  [
    ['prompts (corpus)', prose],
    ['numbers-heavy business text', businessNumbers],
    ['JSON tool result', longTool],
  ].map(([name, text]) => [
    name,
    `${(text.length / 1024).toFixed(1)} kB`,
    perKb(text, scoreInjection).toFixed(3),
    perKb(text, (t) => findPii(t)).toFixed(3),
    perKb(text, (t) => findPii(t, { defaultCountry: 'FR' })).toFixed(3),
    name === 'JSON tool result' ? perKb(text, () => validateAgainst(schema, longToolValue)).toPrecision(2) : '-',
  ]),
);
