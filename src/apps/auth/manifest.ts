import type { AppManifest } from '../../kernel/app.js';

const manifest: AppManifest = {
  name: 'auth',
  summary: 'Login, refresh-token rotation, logout and the bearer-token authenticator',
  description: 'JWT access tokens, opaque refresh tokens stored as SHA-256 in ir.session with rotation and reuse detection, login throttling.',
  author: 'fw',
  category: 'Foundation',
  version: '1.0.0',
  depends: ['base'],
  data: ['i18n/fr.json'],
};
export default manifest;
