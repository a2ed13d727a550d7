/**
 * PII detection: every kind is found with exact offsets, masking replaces each finding by its
 * kind, checksum/structure failures are not flagged, and business text full of ids, amounts,
 * dates and versions yields nothing — for every default country.
 */
import { describe, expect, it } from 'vitest';
import { findPii, ibanChecksumValid, luhnValid, maskPii } from '../../../src/apps/ai/guards/pii.ts';
import { BENIGN_BUSINESS, PII_SAMPLES } from './pii-corpus.ts';

const kinds = (text: string, defaultCountry?: 'FR' | 'DE' | 'US' | 'GB') => findPii(text, { defaultCountry }).map((f) => [f.kind, f.text]);

describe('findPii: each kind', () => {
  it('a Luhn-valid number with a known issuer prefix, plain or grouped, is a card', () => {
    expect(kinds('Visa 4111 1111 1111 1111 ok')).toEqual([['card', '4111 1111 1111 1111']]);
    expect(kinds('Amex 3782-822463-10005')).toEqual([['card', '3782-822463-10005']]);
    expect(kinds('MC 5555555555554444.')).toEqual([['card', '5555555555554444']]);
  });

  it('an IBAN is a known country code, its exact length and mod-97 = 1, compact or in groups of 4', () => {
    expect(kinds('IBAN DE89 3704 0044 0532 0130 00.')).toEqual([['iban', 'DE89 3704 0044 0532 0130 00']]);
    expect(kinds('IBAN GB82WEST12345698765432')).toEqual([['iban', 'GB82WEST12345698765432']]);
  });

  it('an e-mail is a dot-atom local part, a domain and a TLD of ≥ 2 letters, without the sentence dot', () => {
    expect(kinds('Write to jane.doe+crm@acme.co.uk.')).toEqual([['email', 'jane.doe+crm@acme.co.uk']]);
  });

  it('an international (+…) phone number valid for its region is found without a default country', () => {
    expect(kinds('Call +33 6 12 34 56 78 today')).toEqual([['phone', '+33 6 12 34 56 78']]);
    expect(kinds('US +1 (213) 373-4253 ext. 12')).toEqual([['phone', '+1 (213) 373-4253 ext. 12']]);
  });

  it('a national phone number is only read with a default country', () => {
    expect(kinds('Tel. 01 42 68 53 00')).toEqual([]);
    expect(kinds('Tel. 01 42 68 53 00', 'FR')).toEqual([['phone', '01 42 68 53 00']]);
    expect(kinds('Call (415) 555-2671', 'US')).toEqual([['phone', '(415) 555-2671']]);
  });

  it('findings carry offsets into the input, sorted by start', () => {
    const text = 'a jane@acme.example b +33 6 12 34 56 78 c 4111111111111111';
    const found = findPii(text);
    expect(found.map((f) => f.kind)).toEqual(['email', 'phone', 'card']);
    for (const f of found) expect(text.slice(f.start, f.end)).toBe(f.text);
  });

  it('overlapping candidates resolve to one finding, the more specific kind winning (e-mail over phone)', () => {
    const found = findPii('mail +4930901820@fax.example now');
    expect(found.map((f) => [f.kind, f.text])).toEqual([['email', '+4930901820@fax.example']]);
  });
});

describe('findPii: checksum and structure failures are not flagged', () => {
  it('a card-like number failing Luhn is not a card', () => {
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(kinds('card 4111 1111 1111 1112')).toEqual([]);
  });

  it('a Luhn-valid number with an unknown issuer prefix or a wrong length is not a card', () => {
    expect(luhnValid('1234567812345670')).toBe(true);
    expect(kinds('ref 1234567812345670')).toEqual([]); // prefix 1: no network
    expect(kinds('ref 41111111111111111')).toEqual([]); // Visa has no 17-digit numbers (and Luhn)
  });

  it('placeholders and mostly-zero round codes are not cards', () => {
    expect(kinds('0000 0000 0000 0000 and 4000 3000 2000 1000')).toEqual([]);
  });

  it('digits glued to a longer token (ids, decimals) are not cards', () => {
    expect(kinds('ORD-4111111111111111 and 4111111111111111.50 and x4111111111111111')).toEqual([]);
  });

  it('an IBAN with a wrong check digit, wrong length or unknown country is not an IBAN', () => {
    expect(ibanChecksumValid('DE89370400440532013001')).toBe(false);
    expect(kinds('DE89 3704 0044 0532 0130 01')).toEqual([]);
    expect(kinds('DE89 3704 0044 0532 0130')).toEqual([]);
    expect(kinds('ZZ89370400440532013000')).toEqual([]);
  });

  it('spaces inside an IBAN are only accepted between groups of four', () => {
    expect(kinds('DE 89 3704 0044 0532 0130 00')).toEqual([]);
    expect(kinds('DE89 37040044 0532 0130 00')).toEqual([['iban', 'DE89 37040044 0532 0130 00']]); // compact groups are fine
  });

  it('addresses without a letter TLD, with a trailing dot or in an scp remote are not e-mails', () => {
    expect(kinds('lodash@4.17.21 and user@localhost and git@github.com:acme/crm.git')).toEqual([]);
    expect(kinds('a@b.c')).toEqual([]);
  });

  it('an international number that is not valid for its region is not a phone', () => {
    expect(kinds('Call +1 555 0100 or +33 1 23')).toEqual([]);
  });

  it('dates, versions and labelled ids are not read as national phone numbers', () => {
    for (const c of ['FR', 'DE', 'US', 'GB'] as const) {
      expect(kinds('due 2024-06-30, build 10.2.30.4455, v20.19.43', c)).toEqual([]);
      expect(kinds('Invoice no. 0612345678, EAN 036000291452', c)).toEqual([]);
    }
  });

  it('a number read as an extension after a comma is cut back to the phone number', () => {
    expect(kinds('call (415) 555-2671, 2024 budget', 'US')).toEqual([['phone', '(415) 555-2671']]);
  });
});

describe('maskPii', () => {
  it('replaces each finding with its kind in brackets and keeps the rest of the text', () => {
    const text = 'Write to jane@acme.io, IBAN DE89 3704 0044 0532 0130 00, card 4111111111111111, +44 20 7946 0958.';
    expect(maskPii(text)).toBe('Write to [email], IBAN [iban], card [card], [phone].');
  });

  it('uses the findings it is given (e.g. found with a default country)', () => {
    const text = 'Tel. 01 42 68 53 00';
    expect(maskPii(text)).toBe(text);
    expect(maskPii(text, findPii(text, { defaultCountry: 'FR' }))).toBe('Tel. [phone]');
  });

  it('leaves text without PII unchanged', () => {
    expect(maskPii('Order 2024-05-17-00042 shipped.')).toBe('Order 2024-05-17-00042 shipped.');
  });
});

describe('corpora', () => {
  it('the PII corpus: every sample yields exactly the expected findings', () => {
    for (const s of PII_SAMPLES) expect(kinds(s.text, s.country), s.text).toEqual(s.expect);
  });

  it(`the benign business corpus (${BENIGN_BUSINESS.length} sentences with ids, amounts, dates) yields 0 findings with and without a default country`, () => {
    expect(BENIGN_BUSINESS.length).toBeGreaterThanOrEqual(50);
    for (const c of [undefined, 'FR', 'DE', 'US', 'GB'] as const) {
      const hits = BENIGN_BUSINESS.flatMap((t) => findPii(t, { defaultCountry: c }).map((f) => `${c ?? '-'}: ${f.kind} "${f.text}" in "${t}"`));
      expect(hits).toEqual([]);
    }
  });
});
