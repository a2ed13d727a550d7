import type { AppManifest } from '../../kernel/app.js';

const manifest: AppManifest = {
  name: 'storage',
  summary: 'Versioned documents on the local filesystem or a storage connector',
  description: 'storage.document, storage.document_version and the storage.folder tree, streamed uploads and downloads, routing to the organization\'s default storage connector.',
  author: 'fw',
  category: 'Foundation',
  version: '1.1.0',
  depends: ['base', 'auth', 'connectors'],
  data: ['data/menus.json', 'i18n/fr.json', 'views/storage_document_list.xml', 'views/storage_document_form.xml', 'views/storage_folder_list.xml', 'views/storage_folder_form.xml'],
  web: { views: ['storage.documents'] },
};
export default manifest;
