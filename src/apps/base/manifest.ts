import type { AppManifest } from '../../kernel/app.js';

const manifest: AppManifest = {
  name: 'base',
  summary: 'Users, organizations, countries and navigation metadata',
  description: 'Shared business resources (res.country, res.organization, res.user) and the ir.action / ir.menu metadata every client navigates by.',
  author: 'fw',
  category: 'Foundation',
  version: '1.0.0',
  depends: [],
  data: [],
};
export default manifest;
