import { chunkMessages } from '../i18n/chunk-messages.ts';

/** Messages shared by the graph and pivot views, loaded with their chunks (../i18n/chunk-messages.ts). */
export const analysisMessages = {
  'analysis.count': 'Count',
  'analysis.measure': 'Measure',
  'analysis.measures': 'Measures',
  'analysis.total': 'Total',
  'analysis.empty': 'No records match.',
  'analysis.week': 'W{week} {year}',
  'analysis.quarter': 'Q{quarter} {year}',
} as const;

export const useAnalysisT = chunkMessages(analysisMessages);
