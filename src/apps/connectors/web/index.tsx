import { defineWebExtension } from '@fw/web';
import ConnectorForm from './ConnectorForm.tsx';
import { messages } from './messages.ts';

/**
 * The connector form: fw's form of the plan plus the provider's typed parameters, a connection
 * test and OAuth (`<form model="ir.connector" js_class="connectors.form">`).
 */
export default defineWebExtension({
  views: { 'connectors.form': ConnectorForm },
  messages,
});
