import type { AppManifest } from '../../kernel/app.js';

const manifest: AppManifest = {
  name: 'base',
  summary: 'Users, organizations, countries and navigation metadata',
  description: 'Shared business resources (res.country, res.organization, res.user) and the ir.action / ir.menu metadata every client navigates by.',
  author: 'fw',
  category: 'Foundation',
  version: '1.1.0',
  depends: [],
  data: [
    'data/menus.json',
    'i18n/fr.json',
    'views/res_organization_list.xml',
    'views/res_organization_form.xml',
    'views/res_organization_search.xml',
    'views/res_user_list.xml',
    'views/res_user_form.xml',
    'views/res_country_list.xml',
    'views/res_country_search.xml',
  ],
  // the user form's checklist of groups (web/index.tsx)
  web: { widgets: ['base.groups'] },
  // the roles of res.user.role as groups: access may name either (docs/security.md#groups)
  groups: [
    { name: 'base.admin', label: 'Administrator', role: 'admin', description: 'Manages users, settings and every record' },
    { name: 'base.user', label: 'User', role: 'user', description: 'Works with the records of their organization' },
  ],
};
export default manifest;
