import { chunkMessages } from '../../i18n/chunk-messages.ts';

/**
 * The calendar view's messages, kept out of the main catalogue (web/src/i18n/en.ts, in the
 * initial JavaScript) as the transfer dialogs' are: they load with the view's chunk. A translation
 * catalogue may carry the same ids (it wins); these are the English defaults.
 */
export const calendarMessages = {
  'calendar.today': 'Today',
  'calendar.prev.month': 'Previous month',
  'calendar.prev.week': 'Previous week',
  'calendar.prev.day': 'Previous day',
  'calendar.next.month': 'Next month',
  'calendar.next.week': 'Next week',
  'calendar.next.day': 'Next day',
  'calendar.modes': 'Calendar range',
  'calendar.mode.month': 'Month',
  'calendar.mode.week': 'Week',
  'calendar.mode.day': 'Day',
  'calendar.moved': 'Moved to {date}.',
  'calendar.empty': 'Nothing in this range.',
  'calendar.capped': 'Showing the first {count, number} records of this range: narrow the search or the range to see the others.',
  'calendar.instructions': 'Press Enter to open. Press the arrow keys to move it to another day at the same time: left and right by a day, up and down by a week.',
} as const;

export type CalendarMessageId = keyof typeof calendarMessages;

/** `useT` for these ids: the catalogue's text when it has one, else the English default here. */
export const useCalendarT = chunkMessages(calendarMessages);
