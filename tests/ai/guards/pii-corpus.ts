/**
 * PII corpora for findPii (tests and bench/ai-guards.ts).
 *
 * PII_SAMPLES: each sentence lists the exact substrings that must be found, by kind. Cards are
 * public test numbers, IBANs the registry's examples, phones in fictional/example ranges.
 * BENIGN_BUSINESS: ordinary business text full of numbers that look like PII to a naive regex
 * (order/invoice ids, amounts, dates, ISO timestamps, UUIDs, versions, SKUs, tracking numbers,
 * Luhn-failing card-like runs, IBAN-like strings with a bad checksum): expected to yield nothing.
 */
import type { PiiKind } from '../../../src/apps/ai/guards/pii.ts';

export interface PiiSample {
  text: string;
  expect: Array<[PiiKind, string]>;
  /** region for national phone numbers */
  country?: 'FR' | 'DE' | 'US' | 'GB';
}

export const PII_SAMPLES: PiiSample[] = [
  // cards
  { text: 'Please charge card 4111 1111 1111 1111, expiry 12/27.', expect: [['card', '4111 1111 1111 1111']] },
  { text: 'Mastercard: 5555-5555-5555-4444', expect: [['card', '5555-5555-5555-4444']] },
  { text: 'New 2-series Mastercard 2223003122003222 was declined.', expect: [['card', '2223003122003222']] },
  { text: 'Amex 3782 822463 10005 on file for Globex.', expect: [['card', '3782 822463 10005']] },
  { text: 'Discover card 6011111111111117 expires soon', expect: [['card', '6011111111111117']] },
  { text: 'JCB: 3530 1113 3330 0000.', expect: [['card', '3530 1113 3330 0000']] },
  { text: 'Diners Club 3056 930902 5904 belongs to the CFO', expect: [['card', '3056 930902 5904']] },
  { text: 'UnionPay 6214 8390 2415 7364 used for the Shanghai order', expect: [['card', '6214 8390 2415 7364']] },
  { text: 'Visa (4242424242424242) and Maestro 6759649826438453', expect: [['card', '4242424242424242'], ['card', '6759649826438453']] },
  // IBANs
  { text: 'Our IBAN is DE89 3704 0044 0532 0130 00, BIC COBADEFFXXX.', expect: [['iban', 'DE89 3704 0044 0532 0130 00']] },
  { text: 'Pay to GB82WEST12345698765432 by Friday', expect: [['iban', 'GB82WEST12345698765432']] },
  { text: 'IBAN FR14 2004 1010 0505 0001 3M02 606 (Paris branch)', expect: [['iban', 'FR14 2004 1010 0505 0001 3M02 606']] },
  { text: 'Dutch account NL91ABNA0417164300; Belgian BE68 5390 0754 7034.', expect: [['iban', 'NL91ABNA0417164300'], ['iban', 'BE68 5390 0754 7034']] },
  { text: 'Swiss supplier: CH93 0076 2011 6238 5295 7', expect: [['iban', 'CH93 0076 2011 6238 5295 7']] },
  { text: 'Spanish office ES91 2100 0418 4502 0005 1332, Italian IT60 X054 2811 1010 0000 0123 456', expect: [['iban', 'ES91 2100 0418 4502 0005 1332'], ['iban', 'IT60 X054 2811 1010 0000 0123 456']] },
  { text: 'Norway NO93 8601 1117 947 and Poland PL61 1090 1014 0000 0712 1981 2874', expect: [['iban', 'NO93 8601 1117 947'], ['iban', 'PL61 1090 1014 0000 0712 1981 2874']] },
  { text: 'Austrian account: AT611904300234573201.', expect: [['iban', 'AT611904300234573201']] },
  // e-mails
  { text: 'Contact jane.doe@acme.example for the renewal.', expect: [['email', 'jane.doe@acme.example']] },
  { text: 'CC: ops+alerts@mail.globex.co.uk, billing@initech.io.', expect: [['email', 'ops+alerts@mail.globex.co.uk'], ['email', 'billing@initech.io']] },
  { text: '<mailto:Peter_O-Neil@sub.domain-name.org>', expect: [['email', 'Peter_O-Neil@sub.domain-name.org']] },
  { text: 'Écrivez à françois.müller@société.fr', expect: [['email', 'françois.müller@société.fr']] },
  // phones (international: always)
  { text: 'Call me on +33 6 12 34 56 78 after 5pm.', expect: [['phone', '+33 6 12 34 56 78']] },
  { text: 'US office: +1 (213) 373-4253 ext. 12', expect: [['phone', '+1 (213) 373-4253 ext. 12']] },
  { text: 'London: +44 20 7946 0958; Berlin: +49 30 901820.', expect: [['phone', '+44 20 7946 0958'], ['phone', '+49 30 901820']] },
  { text: 'WhatsApp +34 612 345 678', expect: [['phone', '+34 612 345 678']] },
  { text: 'Zurich desk +41 44 668 18 00', expect: [['phone', '+41 44 668 18 00']] },
  // phones (national: with a default country)
  { text: 'Tel. 01 42 68 53 00 (standard)', expect: [['phone', '01 42 68 53 00']], country: 'FR' },
  { text: 'Mobile: 06 12 34 56 78', expect: [['phone', '06 12 34 56 78']], country: 'FR' },
  { text: 'Rufen Sie 030 901820 an.', expect: [['phone', '030 901820']], country: 'DE' },
  { text: 'Call (415) 555-2671 to reschedule.', expect: [['phone', '(415) 555-2671']], country: 'US' },
  { text: 'Phone 020 7946 0958', expect: [['phone', '020 7946 0958']], country: 'GB' },
  { text: 'Phone number: 0612345678', expect: [['phone', '0612345678']], country: 'FR' },
  { text: 'Depuis l’étranger : 0033 1 42 68 53 00', expect: [['phone', '0033 1 42 68 53 00']], country: 'FR' },
  // mixed
  {
    text: 'Refund to IBAN DE89370400440532013000, confirm with jane@acme.example or +33 6 12 34 56 78; card 4111111111111111 was cancelled.',
    expect: [
      ['iban', 'DE89370400440532013000'],
      ['email', 'jane@acme.example'],
      ['phone', '+33 6 12 34 56 78'],
      ['card', '4111111111111111'],
    ],
  },
];

export const BENIGN_BUSINESS: string[] = [
  'Order 2024-05-17-00042 shipped on 2024-05-17T10:22:33Z.',
  'Invoice INV-2024-00891 total 1,234.56 EUR, due 2024-06-30.',
  'PO 4500012345 was approved by the purchasing team.',
  'Quote Q-88231 valid until 31/12/2024, amount 12 500,00 €.',
  'Customer ID 100045 placed 3 orders in Q2 for a total of 48,300 USD.',
  'Record 123e4567-e89b-12d3-a456-426614174000 was updated by user 42.',
  'Deploy version 2.14.3 (build 20240517.1) to production tonight.',
  'SKU AB-1029-XL is out of stock, reorder 240 units.',
  'Tracking number 1Z999AA10123456784 for the Lyon shipment.',
  'The batch 2024-17-0042 contains 1,200 items at 3.50 each.',
  'Meeting on 12.05.2024 at 10:30 in room 4.12.',
  'Account balance: 1 234 567,89 EUR as of 2024-05-31.',
  'Epoch timestamp 1715940153 corresponds to 17 May 2024.',
  'Ticket #4471 reopened; previous ticket #4402 closed.',
  'Serial number SN-5500-1234-9876 needs a warranty check.',
  'The contract runs from 01/07/2024 to 30/06/2027 (36 months).',
  'Revenue grew from 4,111,111 to 5,555,555 EUR year over year.',
  'Reference 4111-1111-1111-1112 fails validation in the import.',
  'Container MSKU 1234567 arrived at port on 2024-05-02.',
  'VAT number FR40303265045 is on the invoice header.',
  'EAN 4006381333931 and UPC 036000291452 for the same product.',
  'Loan 2021-00077 repaid in 48 instalments of 1,045.30.',
  'The warehouse code DE-HAM-07 ships to postcode 20095.',
  'Phone model SM-A546B firmware A546BXXU4BWJ1 is affected.',
  'Use coupon SUMMER2024 for 15% off orders above 100.',
  'Server 10.0.12.254 restarted at 02:14:55 UTC.',
  'Spreadsheet row 16384 contains the totals for 2023.',
  'Item 3 of 12: 7x chairs at 149.00, 2x desks at 899.00.',
  'Bank reference DE00 1234 5678 9012 3456 78 has a bad checksum and was rejected.',
  'Test string GB00WEST12345698765432 is not a real account.',
  'Commit a1b2c3d4e5f6 fixed the rounding bug in release 3.2.1.',
  'SHA-256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 of the file.',
  'The KPI dropped from 98.7% to 96.2% between weeks 18 and 22.',
  'Shift schedule: 06:00-14:00, 14:00-22:00, 22:00-06:00.',
  'Employee E-1043 joined on 2019-09-01 with grade 7.',
  'Pallet 000123456789012345 (SSCC) scanned at dock 3.',
  'Price list 2024/05 replaces 2024/04 from Monday.',
  'Flight LH 1234 departs at 07:45, seat 14C, booking ref K7XQ2P.',
  'The lot numbers 202405170001 to 202405170250 were recalled.',
  'Budget line 6011-200 (travel) is at 78% of plan.',
  'Account code 4000 3000 2000 1000 in the chart of accounts.',
  'Order numbers 5105105105105101 and 3530111333300001 are duplicates in the ERP.',
  'Invoice no. 0612345678 was issued twice.',
  'Customer number 0142685300 moved to the key account team.',
  'IBAN field left empty; BIC COBADEFFXXX only.',
  'Dimensions 120 x 80 x 144 cm, weight 22.5 kg.',
  'The SLA requires 99.95% uptime and response within 4 hours.',
  'Order 7700123 contains items 1-12, 14, 16-20.',
  'Hotline opens at 08:00; press 1 for sales and 2 for support.',
  'The ISO week 2024-W20 starts on 2024-05-13.',
  'Use email templates v2 and v3 for the campaign (IDs 8812, 8813).',
  'Download the report at https://intranet.example.com/reports/2024/05?id=4471.',
  'Version constraint lodash@4.17.21 and @types/node@20.19.43 in package.json.',
  'Git remote git@github.com:acme/crm.git is read-only.',
  'Interest rate 3.75% on a principal of 250,000 over 20 years.',
  'Temperatures ranged from -4 to +12 degrees during delivery.',
  'Ref +20240517 in the bank statement matches the transfer.',
  'Order 4111111111111111 and invoice no. 5555555555554444 are ERP ids that happen to pass Luhn.',
  'Invoice 0039070397 was credited.',
];
