import { chunkMessages } from '../i18n/chunk-messages.ts';

/** The preferences screen's texts: loaded with it (./PreferencesPage.tsx), not in the initial catalogue. */
export const preferencesMessages = {
  'preferences.title': 'Preferences',
  'preferences.lang': 'Language',
  'preferences.tz': 'Time zone',
  'preferences.tz.browser': 'This browser\'s ({zone})',
  'preferences.tz.search': 'Search a time zone',
  'preferences.tz.none': 'No time zone matches.',
  'preferences.tz.example': 'Dates are shown like this: {example}',
  'preferences.theme': 'Theme',
  'preferences.theme.system': 'Same as the device',
  'preferences.theme.light': 'Light',
  'preferences.theme.dark': 'Dark',
  'preferences.organization': 'Default organization',
  'preferences.organization.help': 'The workspace that opens after you sign in.',
  'preferences.save': 'Save',
  'preferences.saved': 'Preferences saved.',
} as const;
export const usePreferencesT = chunkMessages(preferencesMessages);
