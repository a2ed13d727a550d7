import type { AppManifest } from '../../kernel/app.js';

const manifest: AppManifest = {
  name: 'crm.sales',
  summary: 'Leads (example user domain)',
  description: 'A small user-domain app: leads that reference res.organization, res.country and res.user.',
  author: 'fw',
  category: 'Sales',
  version: '1.0.0',
  depends: ['base'],
  data: [],
};
export default manifest;
