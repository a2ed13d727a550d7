/**
 * The currency money is shown in: the server's CURRENCY setting (the bootstrap payload) unless a
 * view names one (`widget="money:USD"`) or a field of the record holding an ISO 4217 code
 * (`widget="money:currency"`).
 */
let fallback = 'EUR';

export function setDefaultCurrency(code: string | null | undefined): void {
  if (code && /^[A-Z]{3}$/.test(code)) fallback = code;
}

const ISO = /^[A-Z]{3}$/;
export function currencyFor(arg: string | undefined, record: Record<string, unknown> | undefined): string {
  if (arg && ISO.test(arg)) return arg;
  const fromField = arg && record ? record[arg] : undefined;
  return typeof fromField === 'string' && ISO.test(fromField) ? fromField : fallback;
}
