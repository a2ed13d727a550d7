import { chunkMessages } from '../../i18n/chunk-messages.ts';

/** The graph view's messages, loaded with its chunk (../../i18n/chunk-messages.ts). */
export const graphMessages = {
  'graph.type': 'Chart type',
  'graph.type.bar': 'Bar',
  'graph.type.line': 'Line',
  'graph.type.pie': 'Pie',
  'graph.summary': '{type} chart of {measure} by {groupby}',
  'graph.data': 'Data of the chart',
} as const;

export const useGraphT = chunkMessages(graphMessages);
