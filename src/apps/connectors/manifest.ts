import type { AppManifest } from '../../kernel/app.js';

const manifest: AppManifest = {
  name: 'connectors',
  summary: 'Admin-configured integrations: storage, email and messaging connectors',
  description: 'ir.connector and ir.connector.param, the provider registry (local and S3-compatible storage, SMTP email, webhook messaging), connection tests, config import and assembly, encrypted secrets and the OAuth callback.',
  author: 'fw',
  category: 'Foundation',
  version: '1.0.0',
  depends: ['base', 'auth'],
  data: ['data/menus.json', 'i18n/fr.json', 'views/ir_connector_list.xml', 'views/ir_connector_form.xml'],
  web: { views: ['connectors.form'] },
};
export default manifest;
