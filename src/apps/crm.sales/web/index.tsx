import { defineWebExtension } from '@fw/web';
import './crm.css';
import FunnelView from './FunnelView.tsx';
import { ProbabilityBar } from './ProbabilityBar.tsx';

/** The CRM example's client code: a display widget and a view type (docs/extend-client.md). */
export default defineWebExtension({
  widgets: { 'crm.probability': { display: ProbabilityBar } },
  views: { 'crm.funnel': FunnelView },
  messages: {
    'crm.funnel.label': '{title}: records per stage',
    'crm.funnel.count': '{count, plural, one {# lead} other {# leads}}',
  },
});
