import type { ExtensionMessages } from '@fw/web';

/** The base app's texts, read with `useAppT<typeof messages>()` (docs/extend-client.md#messages). */
const en = {
  'base.groups.included': 'included',
};

export const messages = {
  en,
  fr: {
    'base.groups.included': 'inclus',
  },
} satisfies ExtensionMessages<typeof en>;
