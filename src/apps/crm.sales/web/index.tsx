import { defineWebExtension } from '@fw/web';
import './crm.css';
import FunnelView from './FunnelView.tsx';
import { messages } from './messages.ts';
import { ProbabilityBar } from './ProbabilityBar.tsx';

/** The CRM example's client code: a display widget, a view type and their texts in English and French (docs/extend-client.md). */
export default defineWebExtension({
  widgets: { 'crm.probability': { display: ProbabilityBar } },
  views: { 'crm.funnel': FunnelView },
  messages,
});
