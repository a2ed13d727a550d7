import { chunkMessages } from '../../i18n/chunk-messages.ts';

/** The Favorites menu's messages, loaded with the views that show a search bar (../../i18n/chunk-messages.ts). */
export const favoritesMessages = {
  'favorites.title': 'Favorites',
  'favorites.save': 'Save current search…',
  'favorites.save.title': 'Save current search',
  'favorites.name': 'Name',
  'favorites.share': 'Share with everyone in this organization',
  'favorites.use_default': 'Use by default when opening this page',
  'favorites.shared': 'shared',
  'favorites.default': 'default',
  'favorites.saved': 'Saved "{name}"',
  'favorites.delete': 'Delete "{name}"',
  'favorites.deleted': 'Deleted "{name}"',
} as const;

export const useFavoritesT = chunkMessages(favoritesMessages);
