import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Button } from 'react-aria-components';
import { FormView, errorMessage, recordsKey, request, resultMessage, toast, useAppT, useT, type FormExtensionProps, type FormPlan, type PlanButton, type Row, type ViewProps } from '@fw/web';
import { graphql } from '@fw/gql';
import type { messages } from './messages.ts';

const TypesDocument = graphql(`
  query ConnectorTypes {
    connectorsListTypes { types { category provider_type display_name oauth config_schema { key label required secret } } }
  }
`);
const ParamsDocument = graphql(`
  query ConnectorParams($id: ID!) {
    irConnectorParams(where: { connector_id: { eq: $id } }, orderBy: [{ sequence: asc }], limit: 500) { id key value value_type }
  }
`);
const SaveParamsDocument = graphql(`
  mutation SaveConnectorParams($id: ID!, $json: JSON) { irConnectorImportConfig(id: $id, json_data: $json) { count } }
`);
const TestDocument = graphql(`
  mutation TestConnector($id: ID!) { irConnectorTestConnection(id: $id) { success message message_id message_values status } }
`);

const MASK = '********';

const PARAMS = 'connector_params';
const typesQuery = { queryKey: ['connector-types'], queryFn: () => request(TypesDocument), staleTime: Infinity };

/**
 * The connector form: the generic form plus the provider picker and the parameters panel, which
 * takes the place of the raw parameter lines (editing those would bypass the schema's secrets).
 * The form's one Save writes the record and the parameters; the panel's Test (which shows its
 * result) replaces the view's Test connection button, and Authorize is only offered when the
 * provider declares an OAuth flow.
 */
export default function ConnectorForm(props: ViewProps<FormPlan>) {
  const qc = useQueryClient();
  const types = useQuery(typesQuery);
  const all = types.data?.connectorsListTypes?.types ?? [];
  const headerButton = (b: PlanButton, record: Row | null | undefined) => {
    if (b.name === 'ir.connector.test_connection') return false;
    if (b.name === 'ir.connector.oauth_start') return !!all.find((x) => x.category === record?.category && x.provider_type === record?.provider_type)?.oauth;
    return true;
  };
  const onSave = async (id: string, values: Record<string, unknown>, dirty: ReadonlySet<string>) => {
    if (!dirty.has(PARAMS)) return;
    // import_config replaces the params and keeps a secret sent back as the mask
    await request(SaveParamsDocument, { id, json: values[PARAMS] });
    await qc.invalidateQueries({ queryKey: ['records', 'ir.connector.param'] });
  };
  return <FormView {...props} extension={ConnectorPanel} hiddenFields={HIDDEN} onSave={onSave} headerButton={headerButton} />;
}
// the parameter lines are the panel's; the last test's message is shown by the panel, in the reader's language
const HIDDEN = ['param_ids', 'status_message'];

/**
 * Parameters come from the provider's `config_schema`: one input per key, secrets as password
 * inputs that show the stored mask and keep the stored value unless retyped. The values live in
 * the form (so they make it dirty and Discard resets them) and the form's Save writes them.
 */
function ConnectorPanel({ recordId, form, record, reload }: FormExtensionProps) {
  const t = useT();
  const ct = useAppT<typeof messages>();
  const qc = useQueryClient();
  const types = useQuery(typesQuery);
  const params = useQuery({
    queryKey: recordsKey('ir.connector.param', 'of', recordId),
    queryFn: () => request(ParamsDocument, { id: recordId! }),
    enabled: !!recordId,
  });
  const all = types.data?.connectorsListTypes?.types ?? [];
  const category = form.watch('category') as string | undefined;
  const provider = form.watch('provider_type') as string | undefined;
  const type = all.find((x) => x.category === (category ?? record?.category) && x.provider_type === (provider ?? record?.provider_type));
  const stored = useMemo(() => Object.fromEntries((params.data?.irConnectorParams ?? []).map((p) => [p.key, p.value ?? ''])), [params.data]);
  const edited = form.watch(PARAMS) as Record<string, string> | undefined;
  const values = edited ?? stored;
  // a focused secret that still holds the mask shows empty, so it can be retyped
  const [focused, setFocused] = useState<string | null>(null);
  const [result, setResult] = useState<{ success: boolean; message: string } | null>(null);
  // before a test of this visit, the last one's, as stored (its message id formatted like a fresh result's)
  const last = record && (record.status === 'connected' || record.status === 'error') && typeof record.status_message === 'string' && record.status_message
    ? { success: record.status === 'connected', message: resultMessage(t.intl, { message: record.status_message, message_id: record.status_message_id, message_values: record.status_message_values }) ?? '' }
    : null;
  const shown = result ?? last;

  async function test() {
    // the test reads the stored configuration: unsaved edits would not be what is tested
    if (form.formState.isDirty) { toast(ct('connectors.save_first'), 'error'); return; }
    try {
      const r = (await request(TestDocument, { id: recordId! })).irConnectorTestConnection;
      // the server's message id, in the reader's language (./messages.ts), else its English
      setResult(r ? { success: !!r.success, message: resultMessage(t.intl, r) ?? '' } : null);
      reload();
      await qc.invalidateQueries({ queryKey: ['records', 'ir.connector'] });
    } catch (err) {
      toast(errorMessage(t, err), 'error');
    }
  }

  if (!recordId) {
    // a new connector starts from a registered provider type
    return (
      <section className="sheet extension" aria-labelledby="provider-title">
        <h2 id="provider-title" className="separator">{ct('connectors.type')}</h2>
        <select className="input" data-testid="provider-select" aria-labelledby="provider-title"
          value={category && provider ? `${category}/${provider}` : ''}
          onChange={(e) => {
            const [c, p] = e.target.value.split('/');
            form.setValue('category', c || null, { shouldDirty: true });
            form.setValue('provider_type', p || null, { shouldDirty: true });
          }}>
          <option value="">—</option>
          {all.map((x) => <option key={`${x.category}/${x.provider_type}`} value={`${x.category}/${x.provider_type}`}>{providerName(t.intl, x)} ({inCatalogue(t.intl, `connectors.category.${x.category}`, x.category)})</option>)}
        </select>
      </section>
    );
  }
  const schema = type?.config_schema ?? [];
  return (
    <section className="sheet extension" aria-labelledby="params-title" data-testid="connector-params">
      <h2 id="params-title" className="separator">{ct('connectors.params')}{type ? ` — ${providerName(t.intl, type)}` : ''}</h2>
      <div className="group-grid">
        {schema.map((k) => (
          <div className="field" key={k.key}>
            <label className="label" htmlFor={`param-${k.key}`}>{type ? inCatalogue(t.intl, `connectors.param.${type.provider_type}.${k.key}`, k.label) : k.label}{k.required && <span className="req" aria-hidden="true"> *</span>}</label>
            <input id={`param-${k.key}`} className="input" data-testid={`param-${k.key}`} type={k.secret ? 'password' : 'text'} autoComplete="off"
              value={k.secret && focused === k.key && values[k.key] === MASK ? '' : values[k.key] ?? ''}
              placeholder={k.secret && values[k.key] === MASK ? ct('connectors.secret_set') : undefined}
              onFocus={() => setFocused(k.key)} onBlur={() => setFocused(null)}
              onChange={(e) => form.setValue(PARAMS, { ...values, [k.key]: e.target.value }, { shouldDirty: true })} />
          </div>
        ))}
      </div>
      <div className="form-buttons">
        <Button className="btn" onPress={() => void test()} data-testid="connector-test">{ct('connectors.test')}</Button>
      </div>
      {shown && (
        <p role="status" className={shown.success ? 'test-ok' : 'test-failed'} data-testid="test-result">
          {ct(shown.success ? 'connectors.test_ok' : 'connectors.test_failed', { message: shown.message })}
        </p>
      )}
    </section>
  );
}

/** The catalogue's text for `id` when this language has it, else the server's (English) text: a provider another app adds may not be in it. */
function inCatalogue(intl: Parameters<typeof resultMessage>[0], id: string, text: string): string {
  return resultMessage(intl, { message: text, message_id: id }) ?? text;
}

const providerName = (intl: Parameters<typeof resultMessage>[0], p: { category: string; provider_type: string; display_name: string }) =>
  inCatalogue(intl, `connectors.provider.${p.category}.${p.provider_type}`, p.display_name);
