import type { ExtensionMessages } from '@fw/web';

/** The CRM example's texts, read with `useAppT<typeof messages>()` (docs/extend-client.md#messages). */
const en = {
  'crm.funnel.label': '{title}: records per stage',
  'crm.funnel.count': '{count, plural, one {# lead} other {# leads}}',
};

export const messages = {
  en,
  fr: {
    'crm.funnel.label': '{title} : enregistrements par étape',
    'crm.funnel.count': '{count, plural, one {# piste} other {# pistes}}',
  },
} satisfies ExtensionMessages<typeof en>;
