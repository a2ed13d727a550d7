import { defineWebExtension } from '@fw/web';
import DocumentsView from './DocumentsView.tsx';
import { messages } from './messages.ts';

/**
 * The documents screen (folders, uploads, versions, previews): the component that draws the
 * documents list (`<list model="storage.document" js_class="storage.documents">`).
 */
export default defineWebExtension({
  views: { 'storage.documents': DocumentsView },
  messages,
});
