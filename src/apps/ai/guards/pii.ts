/**
 * PII detection for text that leaves the platform (prompts to a model, tool results, logs).
 *
 * Every detector validates structure or a checksum instead of matching "long digit runs", so
 * ordinary business text (order numbers, invoice ids, amounts, dates, timestamps, UUIDs,
 * versions, SKUs) stays clean:
 *  - card: 13–19 digits, Luhn, and an issuer prefix whose allowed lengths include the length;
 *  - iban: a known country code, that country's exact length, ISO 7064 mod-97 == 1;
 *  - email: pragmatic RFC 5322 subset (dot-atoms, TLD of ≥ 2 letters, no trailing dot);
 *  - phone: libphonenumber's matcher with full ("max") metadata and `isValid()`; international
 *    numbers (+…) always, national numbers only when the caller names a default country.
 * Offsets are UTF-16 code-unit indices into the input, like String#slice.
 */
import { findPhoneNumbersInText, type CountryCode, type PhoneNumber } from 'libphonenumber-js/max';

export type PiiKind = 'card' | 'iban' | 'email' | 'phone';
export interface PiiFinding {
  kind: PiiKind;
  start: number;
  end: number;
  text: string;
}
export interface PiiOptions {
  /** ISO 3166-1 alpha-2 region used to read national phone numbers ("01 42 68 53 00" for FR). */
  defaultCountry?: CountryCode;
}

// When two detectors claim overlapping text the more specific one wins (an e-mail local part
// may hold digits that look like a phone number; an IBAN's BBAN may hold a Luhn-valid run).
const PRIORITY: PiiKind[] = ['email', 'iban', 'card', 'phone'];

export function findPii(text: string, options: PiiOptions = {}): PiiFinding[] {
  const byKind: Record<PiiKind, PiiFinding[]> = {
    email: findEmails(text),
    iban: findIbans(text),
    card: findCards(text),
    phone: findPhones(text, options.defaultCountry),
  };
  const accepted: PiiFinding[] = [];
  for (const kind of PRIORITY) {
    for (const f of byKind[kind]) {
      if (!accepted.some((a) => f.start < a.end && a.start < f.end)) accepted.push(f);
    }
  }
  return accepted.sort((a, b) => a.start - b.start);
}

export function maskPii(text: string, findings: PiiFinding[] = findPii(text)): string {
  // Right to left so earlier offsets stay valid; findings are assumed non-overlapping.
  let out = text;
  for (const f of [...findings].sort((a, b) => b.start - a.start)) {
    out = `${out.slice(0, f.start)}[${f.kind}]${out.slice(f.end)}`;
  }
  return out;
}

const finding = (kind: PiiKind, text: string, start: number, end: number): PiiFinding => ({ kind, start, end, text: text.slice(start, end) });

// ---------------------------------------------------------------------------------------------
// e-mail

// Local part: dot-atom (no leading/trailing/double dots). Domain: labels of letters/digits/
// hyphens (no edge hyphens), TLD letters only — that rejects "pkg@1.2.3" and "user@host".
// Unicode letters are allowed for internationalised addresses. "git@github.com:org/repo" is an
// scp-style remote, not a mailbox: a ":" glued to the domain rejects the match.
const ATOM = "[\\p{L}\\p{N}!#$%&'*+/=?^_`{|}~-]+";
const LABEL = '[\\p{L}\\p{N}](?:[\\p{L}\\p{N}-]{0,61}[\\p{L}\\p{N}])?';
const EMAIL_RE = new RegExp(
  `(?<![\\p{L}\\p{N}!#$%&'*+/=?^_\`{|}~.-])${ATOM}(?:\\.${ATOM})*@(?:${LABEL}\\.)+\\p{L}{2,63}(?![\\p{L}\\p{N}-]|\\.[\\p{L}\\p{N}]|:[^\\s])`,
  'gu',
);

function findEmails(text: string): PiiFinding[] {
  if (!text.includes('@')) return [];
  return [...text.matchAll(EMAIL_RE)].map((m) => finding('email', text, m.index, m.index + m[0].length));
}

// ---------------------------------------------------------------------------------------------
// payment cards

// Either one unbroken run, or groups joined by one consistent separator (4-4-4-4, 4-6-5,
// 4-6-4, 4-4-4-4-3). Not preceded by a letter/digit/"+" nor by "ID-"-style glue, not followed
// by more of the same token — so digits inside longer ids, decimals and phones are skipped.
const CARD_RE = /(?<![\p{L}\p{N}_+])(?<![\p{L}\p{N}][-./_])(?:\d{13,19}|\d{4}([ -])\d{3,6}(?:\1\d{3,6}){1,3})(?![\p{L}\p{N}_]|[-.,/]\p{N})/gu;

interface Issuer {
  prefixes: Array<[number, number]>; // inclusive ranges over the first N digits (N = digits of the bound)
  lengths: number[];
}
const r = (lo: number, hi = lo): [number, number] => [lo, hi];
const range = (lo: number, hi: number) => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
// Public IIN ranges of the major networks. Unknown prefixes are rejected on purpose: Luhn alone
// passes one random number in ten, the prefix + length check cuts that by another order.
const ISSUERS: Issuer[] = [
  { prefixes: [r(4)], lengths: [13, 16, 19] }, // Visa
  { prefixes: [r(51, 55), r(2221, 2720)], lengths: [16] }, // Mastercard
  { prefixes: [r(34), r(37)], lengths: [15] }, // American Express
  { prefixes: [r(6011), r(644, 649), r(65), r(622126, 622925)], lengths: range(16, 19) }, // Discover
  { prefixes: [r(300, 305), r(3095), r(36), r(38, 39)], lengths: range(14, 19) }, // Diners Club
  { prefixes: [r(3528, 3589)], lengths: range(16, 19) }, // JCB
  { prefixes: [r(62), r(81)], lengths: range(16, 19) }, // UnionPay
  { prefixes: [r(5018), r(5020), r(5038), r(5893), r(6304), r(6759), r(6761, 6763)], lengths: range(13, 19) }, // Maestro
  { prefixes: [r(2200, 2204)], lengths: range(16, 19) }, // Mir
  { prefixes: [r(9792)], lengths: [16] }, // Troy
];

function issuerMatches(digits: string): boolean {
  return ISSUERS.some(
    (iss) =>
      iss.lengths.includes(digits.length) &&
      iss.prefixes.some(([lo, hi]) => {
        const p = Number(digits.slice(0, String(lo).length));
        return p >= lo && p <= hi;
      }),
  );
}

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

// Labels of other long numeric ids; a number right after one is that id, not a card. Narrower
// than ID_LABEL_RE: "card number 4111…" and "account no. 4111…" must still be found.
const NOT_CARD_LABEL_RE = /\b(?:order|ord|invoice|inv|po|ref|reference|ticket|case|sku|ean|upc|gtin|isbn|sscc|imei|tracking|serial|batch|lot|shipment|parcel|contract|commande|facture|bestellung|rechnung|sendung|pedido|factura)\b[\s.:#-]*(?:no\.?|nr\.?|n°|#|number|id)?[\s.:#-]*$/iu;

function findCards(text: string): PiiFinding[] {
  const out: PiiFinding[] = [];
  for (const m of text.matchAll(CARD_RE)) {
    if (NOT_CARD_LABEL_RE.test(text.slice(Math.max(0, m.index - 30), m.index))) continue;
    const digits = m[0].replace(/\D/g, '');
    if (digits.length < 13 || digits.length > 19) continue;
    // "0000 0000 0000 0000" passes Luhn; a run of one digit is a placeholder, and a number that
    // is mostly zeros ("4000 3000 2000 1000") is a round code from a chart of accounts or a
    // range bound. This also skips the zero-padded test cards (4000 0000 0000 0002).
    if (/^(\d)\1+$/.test(digits) || digits.replace(/[^0]/g, '').length * 2 > digits.length) continue;
    if (issuerMatches(digits) && luhnValid(digits)) out.push(finding('card', text, m.index, m.index + m[0].length));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// IBAN

// Total IBAN length per country (SWIFT IBAN registry).
const IBAN_LENGTHS: Record<string, number> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BI: 27, BR: 29, BY: 28,
  CH: 21, CR: 22, CY: 28, CZ: 24, DE: 22, DJ: 27, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18,
  FK: 18, FO: 18, FR: 27, GB: 22, GE: 22, GI: 23, GL: 18, GR: 27, GT: 28, HN: 28, HR: 21, HU: 28,
  IE: 22, IL: 23, IQ: 23, IS: 26, IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28, LC: 32, LI: 21, LT: 20,
  LU: 20, LV: 21, LY: 25, MC: 27, MD: 24, ME: 22, MK: 19, MN: 20, MR: 27, MT: 31, MU: 30, NI: 28,
  NL: 18, NO: 15, OM: 23, PK: 24, PL: 28, PS: 29, PT: 25, QA: 29, RO: 24, RS: 22, RU: 33, SA: 24,
  SC: 31, SD: 18, SE: 24, SI: 19, SK: 24, SM: 27, SO: 23, ST: 25, SV: 28, TL: 23, TN: 24, TR: 26,
  UA: 29, VA: 22, VG: 24, XK: 20, YE: 30,
};

// Only the start is found by regex; the body is read char by char because its length depends
// on the country and spaces are allowed only between the printed groups of four.
const IBAN_START_RE = /(?<![\p{L}\p{N}])([A-Z]{2})(\d{2})/gu;
const ALNUM = /[A-Za-z0-9]/;

function findIbans(text: string): PiiFinding[] {
  const out: PiiFinding[] = [];
  for (const m of text.matchAll(IBAN_START_RE)) {
    const length = IBAN_LENGTHS[m[1]];
    if (!length) continue;
    let compact = m[0];
    let i = m.index + 4;
    while (compact.length < length && i < text.length) {
      const c = text[i];
      if (ALNUM.test(c)) {
        compact += c.toUpperCase();
        i++;
      } else if (c === ' ' && compact.length % 4 === 0 && i + 1 < text.length && ALNUM.test(text[i + 1])) {
        i++;
      } else break;
    }
    if (compact.length !== length) continue;
    if (i < text.length && /[\p{L}\p{N}]/u.test(text[i])) continue; // part of a longer token
    if (ibanChecksumValid(compact)) out.push(finding('iban', text, m.index, i));
  }
  return out;
}

export function ibanChecksumValid(compact: string): boolean {
  // ISO 13616: move the first four characters to the end, letters → 10..35, remainder mod 97
  // must be 1. Computed piecewise so no bigint is needed.
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let rem = 0;
  for (const ch of rearranged) {
    const code = ch.charCodeAt(0);
    const v = code >= 65 ? code - 55 : code - 48;
    rem = v >= 10 ? (rem * 100 + v) % 97 : (rem * 10 + v) % 97;
  }
  return rem === 1;
}

// ---------------------------------------------------------------------------------------------
// phone

// A label just before a number decides ambiguous national matches: "Invoice 0612345678" is an
// id, "Tel. 0612345678" is a phone.
const ID_LABEL_RE = /(?:\b(?:invoice|inv|order|ord|po|ref|reference|ticket|case|id|sku|ean|upc|gtin|isbn|sscc|mpn|item|article|art|no|nr|num|number|account|acct|customer|client|contract|batch|lot|serial|tracking|facture|commande|bestellung|rechnung|kunde|pedido|factura|numéro|nummer|número)\b|[#№]|n°)[\s.:#-]*$/iu;
const PHONE_LABEL_RE = /(?:\b(?:tel|tél|phone|telephone|téléphone|telefon|teléfono|telefono|mobile|mobil|portable|cell|cellphone|handy|móvil|celular|fax|call|ring|whatsapp|sms|text|contact|gsm)\b)(?:\s*(?:number|no|nr|n°|#|numéro|nummer|número))?[^\p{L}\p{N}]{0,4}$/iu;
const EXT_MARKER_RE = /(?:ext|extension|x|#|poste|durchwahl|dw|anexo|ext\.)\s*\.?\s*\d+$/i;

function findPhones(text: string, defaultCountry?: CountryCode): PiiFinding[] {
  if (!/\d/.test(text)) return [];
  const out: PiiFinding[] = [];
  const starts = new Set<number>(); // segments may overlap: keep each number once
  for (const [offset, chunk] of defaultCountry ? lineChunks(text) : plusSegments(text)) {
    for (const m of findPhoneNumbersInText(chunk, { defaultCountry, maxTries: MAX_TRIES } as MatcherOptions)) {
      if (starts.has(offset + m.startsAt)) continue;
      starts.add(offset + m.startsAt);
      const f = acceptPhone(text, offset + m.startsAt, offset + m.endsAt, m.number);
      if (f) out.push(f);
    }
  }
  return out;
}

// `maxTries` ("invalid candidates to try before giving up on the text", the library's guard for
// degenerate input) is honoured at runtime but missing from the typings of 1.13.x.
type MatcherOptions = Parameters<typeof findPhoneNumbersInText>[1];
// Per chunk of ≤ 1 kB (one line, or the text after a "+"): real text rarely has more than a few
// dozen numeric candidates per line; "digit soup" would otherwise cost ~30 ms/kB.
const MAX_TRIES = 100;

// The matcher's cost is per digit group it tries to parse (≈ 3–5 ms per kB of number-dense text
// handed over in one piece), so it is only shown text that can contain a match:
//  - without a default country only "+…" numbers can match: the text right after each "+";
//  - with one, each line separately (long lines are cut between two words), as a phone number
//    never spans a line break or a word gap.
const PLUS_WINDOW = 48; // "+1 (213) 373-4253 ext. 1234" and some slack
function* plusSegments(text: string): Generator<[number, string]> {
  let start = -1;
  let end = -1;
  for (const m of text.matchAll(/\+(?=[\s(]{0,2}\d)/g)) {
    const nl = text.indexOf('\n', m.index);
    const windowEnd = Math.min(m.index + PLUS_WINDOW, nl < 0 ? text.length : nl);
    if (start >= 0 && m.index < end && windowEnd - start <= LINE_CHUNK) {
      end = Math.max(end, windowEnd); // overlapping windows merge into one segment
      continue;
    }
    if (start >= 0) yield [start, text.slice(start, end)];
    start = m.index;
    end = windowEnd;
  }
  if (start >= 0) yield [start, text.slice(start, end)];
}

const LINE_CHUNK = 1024;
function* lineChunks(text: string): Generator<[number, string]> {
  let lineStart = 0;
  for (const line of text.split('\n')) {
    let start = 0;
    while (line.length - start > LINE_CHUNK) {
      const window = line.slice(start, start + LINE_CHUNK);
      const cut = window.search(/\p{L}\s+\p{L}[^\p{L}]*$/u); // last word gap in the window
      const end = cut > 0 ? start + cut + 1 : start + LINE_CHUNK; // digit soup: hard cut
      yield [lineStart + start, line.slice(start, end)];
      start = end;
    }
    if (/\d/.test(line.slice(start))) yield [lineStart + start, line.slice(start)];
    lineStart += line.length + 1;
  }
}

function acceptPhone(text: string, start: number, matchEnd: number, phone: PhoneNumber): PiiFinding | null {
  if (!phone.isValid()) return null;
  let end = matchEnd;
  let raw = text.slice(start, end);
  // The matcher reads ", 2024" after a number as an extension; keep an extension only when it
  // is announced ("ext. 12", "x12", "poste 12") and cut the stray digits otherwise.
  const ext = phone.ext && EXT_MARKER_RE.test(raw) ? phone.ext : undefined;
  if (phone.ext && !ext) {
    end = start + cutAfterDigits(raw, raw.replace(/\D/g, '').length - phone.ext.length);
    raw = text.slice(start, end);
  }
  const before = text.slice(Math.max(0, start - 2), start);
  const after = text.slice(end, end + 2);
  // Glued to a longer token: "INV-2024-00123", "v10.2.30", "1715940153000".
  if (/[\p{L}\p{N}_]$/u.test(before) || /[\p{L}\p{N}][-./_]$/u.test(before)) return null;
  if (/^[\p{L}\p{N}_]/u.test(after) || /^[-./]\p{N}/u.test(after)) return null;
  if (!raw.startsWith('+') && !plausibleWithoutPlus(text, start, raw, ext, phone)) return null;
  return finding('phone', text, start, end);
}

// Dates ("2024-06-30", "12/05/2024", "2024/05") and amounts ("899.00") that the matcher can
// read as national numbers of some region.
const DATE_OR_AMOUNT_RE = /^(?:\d{4}[-/.]\d{1,2}(?:[-/.]\d{1,2})?|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}|\d+[.,]\d{2})$/;

// Numbers without "+" (national, or international after the "00" IDD prefix) are where ids,
// dates and amounts get misread, so they need more than a valid parse.
function plausibleWithoutPlus(text: string, start: number, raw: string, ext: string | undefined, phone: PhoneNumber): boolean {
  const context = text.slice(Math.max(0, start - 30), start);
  const phoneLabel = PHONE_LABEL_RE.test(context); // "Phone number: …" beats the "number" id label
  if ((!phoneLabel && ID_LABEL_RE.test(context)) || DATE_OR_AMOUNT_RE.test(raw)) return false;
  const idd = raw.startsWith('00');
  if (!idd) {
    // The digits as written must be the number in that region's national format, trunk prefix
    // included ("030 901820" in DE, not "20240630"); NANP numbers may carry their leading "1".
    const written = mainDigits(raw, ext);
    const national = mainDigits(phone.formatNational(), phone.ext);
    if (written !== national && !(written.endsWith(national) && written.length === national.length + 1)) return false;
  }
  if (phoneLabel) return true;
  // Dates/versions are split into 1-digit groups ("10.2.30.4455"); national phone groups are
  // ≥ 2 digits after a possible one-digit trunk prefix ("1 800 …", "0 6…"). After "00" and a
  // country code a one-digit area code is normal ("0033 1 42 68 53 00").
  const groups = raw.replace(/[()]/g, ' ').split(/[\s./-]+/).filter(Boolean);
  if (!idd && groups.slice(1).some((g) => g.length < 2)) return false;
  // An unformatted run of digits is an id more often than a phone, unless it starts with the
  // trunk prefix "0" that national numbers carry in most of Europe ("0612345678"); an
  // unformatted "00…" run needs a label.
  const formatted = groups.length > 1 || raw.includes('(');
  return formatted || (!idd && raw.startsWith('0'));
}

function mainDigits(s: string, ext: string | undefined): string {
  const digits = s.replace(/\D/g, '');
  return ext && digits.endsWith(ext) ? digits.slice(0, -ext.length) : digits;
}

function cutAfterDigits(raw: string, keepDigits: number): number {
  let seen = 0;
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] >= '0' && raw[i] <= '9' && ++seen === keepDigits) return i + 1;
  }
  return raw.length;
}
