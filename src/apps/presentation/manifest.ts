import type { AppManifest } from '../../kernel/app.js';

const manifest: AppManifest = {
  name: 'presentation',
  summary: 'XML views, render plans, bootstrap payload and live client reload',
  description: 'Parses the XML views every app declares in its manifest data, validates them against the registry at boot, serves render plans and the web client bootstrap, and pushes web.client.reload to browsers.',
  author: 'fw',
  category: 'Foundation',
  version: '1.0.0',
  depends: ['base', 'auth'],
  data: ['i18n/fr.json'],
};
export default manifest;
