import type { AppManifest } from 'fw/app';

const manifest: AppManifest = {
  name: 'crm.sales',
  summary: 'Leads (example user domain)',
  description: 'A small user-domain app: leads that reference res.organization, res.country and res.user.',
  author: 'fw',
  category: 'Sales',
  version: '1.0.0',
  depends: ['base'],
  data: [
    'data/menus.json',
    'i18n/fr.json',
    'views/crm_lead_list.xml',
    'views/crm_lead_form.xml',
    'views/crm_lead_kanban.xml',
    'views/crm_lead_search.xml',
    'views/crm_lead_funnel.xml',
    'views/crm_lead_graph.xml',
    'views/crm_lead_pivot.xml',
    'views/crm_lead_calendar.xml',
  ],
  // the client code in web/: a display widget (crm_lead_list.xml) and a view type (crm_lead_funnel.xml)
  web: { widgets: ['crm.probability'], views: ['crm.funnel'] },
};
export default manifest;
