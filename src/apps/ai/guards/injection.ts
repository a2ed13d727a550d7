/**
 * Prompt-injection scoring with a transparent, weighted rule set (no model).
 *
 * Each rule is a few regular expressions over a normalised copy of the text and a weight
 * w ∈ (0, 1): roughly "the probability that this cue alone means an attack". Cues combine like
 * independent evidence, score = 100 × (1 − Π(1 − wᵢ)), counting each rule once. Weights are
 * set so that one weak cue (≤ 0.55, e.g. "without asking for confirmation") stays below the
 * threshold of 60 that callers use, while an unambiguous cue (instruction override, special
 * chat tokens, system-prompt extraction) or two weaker ones exceed it.
 *
 * The same function scores user prompts and tool results (text fed back to the model); in the
 * latter any imperative addressed to "the assistant" is already suspicious.
 *
 * Obfuscation is handled by scoring a second, de-obfuscated view (homoglyphs folded, leetspeak
 * and spaced-out letters joined, RTL-override text reversed, invisible tag characters and
 * base64 blocks decoded). A rule that only matches there still counts, plus an obfuscation cue:
 * hiding an instruction is itself evidence of intent.
 *
 * The rules themselves live in injection-rules.ts.
 */
import { RULES, type Rule } from './injection-rules.js';

export interface InjectionSignal {
  id: string;
  weight: number;
  match: string;
}
export interface InjectionScore {
  score: number; // 0..100 integer
  signals: InjectionSignal[];
}

/** The threshold callers are expected to use; the weights are calibrated around it. */
export const INJECTION_THRESHOLD = 60;

// --------------------------------------------------------------------------------------------
// normalisation

const ZERO_WIDTH_RE = /[\u200b-\u200d\u2060-\u2064\ufeff\u00ad\u180e]/g;
const BIDI_RE = /[\u202a-\u202e\u2066-\u2069]/g;
// Tag characters U+E0000–U+E007F. Emoji subdivision flags (🏴 + tags) use them legitimately.
const TAGS_RE = /(?<!\u{1f3f4}[\u{e0000}-\u{e007f}]*)[\u{e0000}-\u{e007f}]+/gu;

// Cyrillic and Greek letters that render like Latin ones (after lower-casing).
const HOMOGLYPHS: Record<string, string> = {
  а: 'a', в: 'b', е: 'e', ё: 'e', к: 'k', м: 'm', н: 'h', о: 'o', р: 'p', с: 'c', т: 't', у: 'y', х: 'x',
  і: 'i', ї: 'i', ј: 'j', ѕ: 's', ԁ: 'd', ԛ: 'q', ԝ: 'w', һ: 'h', ӏ: 'l', ɡ: 'g', ո: 'n', ս: 'u',
  α: 'a', β: 'b', ε: 'e', η: 'n', ι: 'i', κ: 'k', ν: 'v', ο: 'o', ρ: 'p', τ: 't', υ: 'u', χ: 'x', ω: 'w',
};
const CONFUSABLE_CLASS = `[${Object.keys(HOMOGLYPHS).join('')}]`;
// A word mixing Latin letters with look-alikes from another script: "іgnоrе".
const MIXED_SCRIPT_RE = new RegExp(`(?=[\\p{L}]*[a-z])(?=[\\p{L}]*${CONFUSABLE_CLASS})[\\p{L}]{2,}`, 'gu');
const LEET: Record<string, string> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', $: 's', '!': 'i' };
// Base64 runs long enough to carry a sentence; shorter ones are ids and hashes.
const BASE64_RE = /(?<![a-z0-9+/=_-])[a-z0-9+/]{40,}={0,2}(?![a-z0-9+/=_-])/gi;

/**
 * Tool results usually arrive as serialised JSON: newlines are the two characters "\n" (which
 * would hide line-anchored role markers) and some serialisers (Python's json.dumps) escape every
 * non-ASCII letter as \uXXXX, which would hide homoglyphs and keywords alike. Decode them.
 */
function unescapeJson(s: string): string {
  if (!s.includes('\\')) return s;
  return s
    .replace(/\\u([0-9a-fA-F]{4})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
    .replace(/\\[nr]/g, '\n')
    .replace(/\\t/g, ' ')
    .replace(/\\(["\\/])/g, '$1');
}

/** NFKC (folds full-width and mathematical letters), invisible characters out, lower case. */
function canonical(s: string): string {
  return s
    .normalize('NFKC')
    .replace(ZERO_WIDTH_RE, '')
    .replace(BIDI_RE, '')
    .replace(/[\u{e0000}-\u{e007f}]/gu, '')
    .toLowerCase();
}

/** Runs of blanks become one space, line breaks are kept (role markers are line-anchored). */
function collapse(s: string): string {
  return s.replace(/[ \t\f\v\u00a0\u2000-\u200a\u202f\u205f\u3000]+/g, ' ').replace(/\s*\n\s*/g, '\n');
}

const normalise = (s: string) => collapse(canonical(s));

function foldHomoglyphs(s: string): string {
  return s.replace(MIXED_SCRIPT_RE, (w) => [...w].map((c) => HOMOGLYPHS[c] ?? c).join(''));
}

function foldLeet(s: string): string {
  // Only tokens that mix letters with digit/symbol stand-ins ("1gn0r3"), never plain numbers.
  return s.replace(/[a-z0-9@$!]*[a-z][a-z0-9@$!]*/g, (t) => (/[0-9@$!]/.test(t) ? t.replace(/[0-9@$!]/g, (c) => LEET[c] ?? c) : t));
}

function joinSpacedLetters(s: string): string {
  // "i g n o r e" / "i.g.n.o.r.e": ≥ 3 single letters with the same separator between them.
  // A different separator (the space in "i.g.n.o.r.e a.l.l") or a wider gap ("i g n o r e   a l l")
  // ends the run, so word boundaries survive.
  return s.replace(/\b\p{L}([ .*_-])(?:\p{L}\1)+\p{L}\b/gu, (m, sep: string) => m.split(sep).join(''));
}

interface Hidden {
  id: string;
  weight: number;
  match: string;
  text: string; // decoded text to score as well
}

function hiddenPayloads(raw: string): Hidden[] {
  const out: Hidden[] = [];
  for (const m of raw.matchAll(TAGS_RE)) {
    const text = [...m[0]].map((c) => String.fromCharCode(c.codePointAt(0)! - 0xe0000)).join('');
    out.push({ id: 'obfuscation.tag_chars', weight: 0.6, match: clip(text), text });
  }
  // RIGHT-TO-LEFT OVERRIDE displays the following characters reversed.
  for (const m of raw.matchAll(/\u202e([^\u202c\n]*)/g)) {
    const text = [...m[1]].reverse().join('');
    out.push({ id: 'obfuscation.bidi', weight: 0.4, match: clip(text), text });
  }
  for (const m of raw.matchAll(BASE64_RE)) {
    const decoded = decodeBase64Text(m[0]);
    if (decoded) out.push({ id: 'encoded.base64', weight: 0.3, match: clip(decoded), text: decoded });
  }
  return out;
}

function decodeBase64Text(s: string): string | null {
  // A hex digest or a run of one case is not base64 text; real base64 mixes cases and digits.
  if (!/[a-z]/.test(s) || !/[A-Z]/.test(s)) return null;
  const text = Buffer.from(s, 'base64').toString('utf8');
  // Keep only payloads that decode to readable text (images and keys decode to binary noise).
  const readable = text.replace(/[^\p{L}\p{N}\p{P}\p{Zs}\n\r\t]/gu, '').length;
  return text.length >= 20 && readable / text.length > 0.95 && /\p{L}{3,}\s\p{L}{2,}/u.test(text) ? text : null;
}

// --------------------------------------------------------------------------------------------
// scoring

export function scoreInjection(text: string): InjectionScore {
  const signals = new Map<string, InjectionSignal>();
  const add = (id: string, weight: number, match: string) => {
    const prev = signals.get(id);
    if (!prev || prev.weight < weight) signals.set(id, { id, weight, match: clip(match) });
  };

  text = unescapeJson(text); // first: everything below reads the decoded text
  // Invisible / reordering characters are evidence in themselves; measure them on the raw text.
  const zw = text.match(/\p{L}[\u200b-\u200d\u2060-\u2064\ufeff\u00ad]+\p{L}/gu);
  if (zw && zw.length >= 2) add('obfuscation.zero_width', 0.35, `${zw.length} zero-width characters inside words`);
  if (/[\u202a-\u202e\u2066-\u2069]/.test(text)) add('obfuscation.bidi', 0.4, 'bidirectional control character');

  const hidden = hiddenPayloads(text);
  for (const h of hidden) add(h.id, h.weight, h.match);

  const canon = canonical(text);
  const plain = collapse(canon);
  const mixed = plain.match(MIXED_SCRIPT_RE);
  if (mixed) add('obfuscation.homoglyph', 0.4, mixed.slice(0, 3).join(' '));

  // Spaced letters are joined before blanks collapse, so wider word gaps stay word gaps.
  const folded = collapse(foldLeet(joinSpacedLetters(foldHomoglyphs(canon))));
  const extra = hidden.map((h) => normalise(h.text)).join('\n');
  const deob = extra ? `${folded}\n${extra}` : folded;

  let obfuscatedHit = false;
  for (const rule of RULES) {
    const direct = firstMatch(rule, plain);
    if (direct) {
      add(rule.id, rule.weight, direct);
      continue;
    }
    const viaDeob = firstMatch(rule, deob);
    if (viaDeob) {
      add(rule.id, rule.weight, viaDeob);
      obfuscatedHit = true;
    }
  }
  // Leetspeak / spaced letters leave no trace of their own: infer them from rules that only
  // matched once the text was folded.
  if (obfuscatedHit && !hidden.length && !mixed) add('obfuscation.keyword', 0.3, 'instruction only visible after de-obfuscation');

  const list = [...signals.values()].sort((a, b) => b.weight - a.weight);
  const keep = list.reduce((p, s) => p * (1 - s.weight), 1);
  return { score: Math.round(100 * (1 - keep)), signals: list };
}

function firstMatch(rule: Rule, s: string): string | null {
  for (const re of rule.patterns) {
    const m = re.exec(s);
    if (m) return m[0];
  }
  return null;
}

function clip(s: string, n = 80): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
}
