/**
 * USD per million tokens, versioned: a usage row records the version it was priced with, so a
 * later price change never rewrites yesterday's spend. A tenant's `ai.provider.config` may set
 * its own prices, which then win (version `config:<provider>@<revision>`).
 */
export const PRICE_TABLE = {
  version: '2026-11-01',
  models: {
    'gpt-4o-mini': { input: 0.15, output: 0.6 },
    'gpt-4o': { input: 2.5, output: 10 },
    'gpt-4.1': { input: 2, output: 8 },
    'gpt-4.1-mini': { input: 0.4, output: 1.6 },
    'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  } as Record<string, { input: number; output: number }>,
  /** An unknown model is priced high rather than free, so budgets still bind. */
  fallback: { input: 5, output: 15 },
};

export interface Price { input: number; output: number; version: string }

export function priceOf(model: string, override?: { input?: number | null; output?: number | null; version: string }): Price {
  if (override && override.input != null && override.output != null) return { input: override.input, output: override.output, version: override.version };
  const p = PRICE_TABLE.models[model] ?? PRICE_TABLE.fallback;
  return { ...p, version: `${PRICE_TABLE.version}${PRICE_TABLE.models[model] ? '' : ':fallback'}` };
}

export const usdOf = (p: Price, inputTokens: number, outputTokens: number): number =>
  Math.round(((inputTokens * p.input + outputTokens * p.output) / 1e6) * 1e8) / 1e8;

/** A deliberately generous estimate (4 characters per token, rounded up, plus per-message overhead). */
export function estimateTokens(texts: Array<string | null | undefined>): number {
  return texts.reduce<number>((n, t) => n + Math.ceil((t?.length ?? 0) / 4) + 4, 0);
}
