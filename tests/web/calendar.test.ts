/**
 * The calendar view (issue 29 §3): leads on the days of their expected closing, fetched for the
 * visible month, week or day only (AND the search); dragging an entry with the mouse, or the
 * arrow keys on a focused one, moves it to another day at the same time of day through the
 * update mutation, checked against the revision it was read at; a click opens the form.
 * Every day is a day of the user's time zone (their `tz` preference), not the browser's: a lead
 * lies on the day it falls on there, and a move keeps its wall-clock time there, across a
 * daylight-saving change too. Screenshots desktop and phone, light and dark; axe finds no serious
 * or critical violation.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_EMAIL, ADMIN_PASSWORD, actionUrl, axeSerious, countGraphql, describeViolations, getRecord, login, patchRecord, seedLeads, shot, startWeb, toastText, UI_TIMEOUT, type WebEnv,
} from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
let ids: string[];
// a month away from today's, so nothing else a test seeds lands in it (the browser runs in UTC)
const MONTH = '2031-03';
beforeAll(async () => {
  env = await startWeb();
  ids = await seedLeads(env, [
    { name: 'Cal Alpha', stage: 'new', expected_revenue: 1200, date_deadline: `${MONTH}-10T14:30:00.000Z` },
    { name: 'Cal Beta', stage: 'qualified', expected_revenue: 800, date_deadline: `${MONTH}-10T09:00:00.000Z` },
    { name: 'Cal Gamma', stage: 'won', expected_revenue: 5000, date_deadline: `${MONTH}-20T16:15:00.000Z` },
    { name: 'Cal Later', stage: 'new', date_deadline: '2031-05-06T10:00:00.000Z' },
    { name: 'Cal Undated', stage: 'new' },
    { name: 'Cal Delta', stage: 'new', date_deadline: `${MONTH}-25T08:00:00.000Z` },
  ]);
  page = await env.newPage();
  await login(page);
});
afterAll(async () => { await env?.close(); });

const url = (search: Record<string, string> = {}) => actionUrl('default', 'crm.action_leads', undefined, { view: 'calendar', date: `${MONTH}-10`, ...search });
const day = (p: Page, d: string) => p.getByTestId(`calendar-day-${d}`);
const namesOn = (p: Page, d: string) => day(p, d).locator('.cal-entry-title').allTextContents();
const entry = (p: Page, name: string) => p.getByTestId('calendar-entry').filter({ hasText: name });
const title = (p: Page) => p.getByTestId('calendar-title').textContent();

/** Drags an entry with the mouse onto a day cell, as a person does (a few pixels first: the sensor's threshold). */
async function drag(p: Page, name: string, to: string): Promise<void> {
  const from = (await entry(p, name).boundingBox())!;
  const target = (await day(p, to).boundingBox())!;
  await p.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await p.mouse.down();
  await p.mouse.move(from.x + from.width / 2 + 10, from.y + from.height / 2 + 5, { steps: 5 });
  await p.mouse.move(target.x + target.width / 2, target.y + target.height / 2, { steps: 20 });
  await expect.poll(() => day(p, to).getAttribute('class')).toContain('over');
  await p.mouse.up();
}

/** A signed-in context whose browser runs in `timezoneId`, at a desktop's or a phone's size. */
async function signedIn(timezoneId: string, phone = false): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await env.browser.newContext({
    baseURL: env.base, locale: 'en-US', timezoneId,
    ...(phone ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } : { viewport: { width: 1280, height: 800 } }),
  });
  ctx.setDefaultTimeout(UI_TIMEOUT);
  const p = await ctx.newPage();
  await p.goto('/login');
  await p.getByTestId('login-email').fill(ADMIN_EMAIL);
  await p.getByTestId('login-password').fill(ADMIN_PASSWORD);
  await p.getByTestId('login-submit').click();
  await p.getByTestId(phone ? 'nav-toggle' : 'user-menu').waitFor();
  return { ctx, page: p };
}

describe('calendar view', () => {
  it('shows the month\'s leads on the days of their expected closing, with their time, fetched for that month only', async () => {
    const rows = countGraphql(page, 'query Rows');
    await page.goto(url());
    await page.getByTestId('calendar').waitFor();
    expect(await page.getByTestId('calendar-title').textContent()).toBe('March 2031');
    await expect.poll(() => namesOn(page, `${MONTH}-10`)).toEqual(['Cal Beta', 'Cal Alpha']);
    expect(await namesOn(page, `${MONTH}-20`)).toEqual(['Cal Gamma']);
    expect(await entry(page, 'Cal Alpha').locator('.cal-time').textContent()).toBe('2:30 PM');
    // whole weeks, Sunday first for en-US: Feb 23 … Apr 5
    expect(await page.locator('.calendar thead th').allTextContents()).toEqual(['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']);
    expect(await page.locator('.cal-day').count()).toBe(42);
    expect(await page.getByTestId('calendar-entry').filter({ hasText: 'Cal Later' }).count()).toBe(0);
    expect(await page.getByTestId('calendar-entry').filter({ hasText: 'Cal Undated' }).count()).toBe(0);
    // the request asked for the visible range only
    const where = JSON.parse(rows.bodies.at(-1)!).variables.where;
    expect(JSON.stringify(where)).toContain('"date_deadline":{"gte":"2031-02-23T00:00:00.000Z","lt":"2031-04-06T00:00:00.000Z"}');
    rows.stop();
    expect(describeViolations(await axeSerious(page))).toBe('');
    await shot(page, 'calendar-month', { dark: true });
  });

  it('combines the range with the search, switches to week and day, and steps back, forth and to today', async () => {
    await page.goto(url({ q: 'Alpha' }));
    await expect.poll(() => namesOn(page, `${MONTH}-10`)).toEqual(['Cal Alpha']);
    expect(await page.getByTestId('calendar-entry').count()).toBe(1);

    await page.goto(url());
    await page.getByTestId('calendar-mode-week').click();
    await expect.poll(() => page.getByTestId('calendar-title').textContent()).toBe('Mar 9 – 15, 2031');
    expect(await page.locator('.cal-day').count()).toBe(7);
    await expect.poll(() => namesOn(page, `${MONTH}-10`)).toEqual(['Cal Beta', 'Cal Alpha']);
    // a week shows every card field
    expect(await entry(page, 'Cal Alpha').textContent()).toContain('Expected revenue: 1,200');
    expect(describeViolations(await axeSerious(page))).toBe('');
    await shot(page, 'calendar-week', { dark: true });
    await page.getByTestId('calendar-next').click();
    await expect.poll(() => page.getByTestId('calendar-title').textContent()).toBe('Mar 16 – 22, 2031');
    await expect.poll(() => namesOn(page, `${MONTH}-20`)).toEqual(['Cal Gamma']);
    expect(new URL(page.url()).searchParams.get('date')).toBe(`${MONTH}-17`);

    await page.getByTestId('calendar-mode-day').click();
    await expect.poll(() => page.getByTestId('calendar-title').textContent()).toBe('Monday, March 17, 2031');
    expect(await page.locator('.cal-day').count()).toBe(1);
    await page.getByTestId('calendar-prev').click();
    await expect.poll(() => page.getByTestId('calendar-title').textContent()).toBe('Sunday, March 16, 2031');
    await page.getByTestId('calendar-today').click();
    const today = new Date();
    await expect.poll(() => page.getByTestId('calendar-title').textContent())
      .toBe(today.toLocaleDateString('en-US', { weekday: 'long', month: 'long', day: 'numeric', year: 'numeric', timeZone: 'UTC' }));
  });

  it('dragging an entry with the mouse to another day moves its lead there at the same time', async () => {
    await page.goto(url());
    await entry(page, 'Cal Alpha').waitFor();
    await drag(page, 'Cal Alpha', `${MONTH}-12`);
    await expect.poll(() => namesOn(page, `${MONTH}-12`)).toEqual(['Cal Alpha']);
    expect(await namesOn(page, `${MONTH}-10`)).toEqual(['Cal Beta']);
    await expect.poll(async () => (await getRecord(env, 'crm.lead', ids[0])).date_deadline).toBe(`${MONTH}-12T14:30:00.000Z`);
    await expect.poll(() => page.getByTestId('toast-info').last().locator('span').first().textContent()).toBe('Moved to Wednesday, March 12, 2031.');
    // the drag did not open the form, and the move survives a reload
    expect(new URL(page.url()).pathname).toBe('/default/action-crm.action_leads');
    await page.reload();
    await expect.poll(() => namesOn(page, `${MONTH}-12`)).toEqual(['Cal Alpha']);
  });

  it('the arrow keys on a focused entry move it a day or a week, and focus stays on it', async () => {
    await page.goto(url());
    const gamma = entry(page, 'Cal Gamma');
    await gamma.focus();
    expect(await gamma.getAttribute('role')).toBe('button');
    // its description tells how (dnd-kit's hidden instructions, ours)
    const described = await gamma.getAttribute('aria-describedby');
    expect(await page.locator(`[id="${described}"]`).textContent()).toContain('arrow keys');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => namesOn(page, `${MONTH}-21`)).toEqual(['Cal Gamma']);
    await expect.poll(async () => (await getRecord(env, 'crm.lead', ids[2])).date_deadline).toBe(`${MONTH}-21T16:15:00.000Z`);
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent ?? '')).toContain('Cal Gamma');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => namesOn(page, `${MONTH}-28`)).toEqual(['Cal Gamma']);
    await expect.poll(async () => (await getRecord(env, 'crm.lead', ids[2])).date_deadline).toBe(`${MONTH}-28T16:15:00.000Z`);
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent ?? '')).toContain('Cal Gamma');
  });

  it('a move of a lead someone changed meanwhile is refused with a message, and the entry returns to its day', async () => {
    await page.goto(url());
    await entry(page, 'Cal Delta').waitFor();
    // someone else changes the lead between the calendar's read and its write (the open page
    // would refetch a change it hears of live: the change is made as the write is on its way)
    let changed = false;
    await page.route('**/graphql', async (route) => {
      const body = route.request().postData() ?? '';
      if (!changed && body.includes('mutation Update')) {
        changed = true;
        expect(JSON.parse(body).variables.revision).toBe(1);
        await patchRecord(env, 'crm.lead', ids[5], { expected_revenue: 42 });
      }
      await route.continue();
    });
    await entry(page, 'Cal Delta').focus();
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => page.getByTestId('toast-error').last().textContent(), { timeout: UI_TIMEOUT }).toContain('changed by someone else');
    await expect.poll(() => namesOn(page, `${MONTH}-25`)).toEqual(['Cal Delta']);
    await page.unroute('**/graphql');
    expect((await getRecord(env, 'crm.lead', ids[5])).date_deadline).toBe(`${MONTH}-25T08:00:00.000Z`);
  });

  it('a click on an entry opens its form, which shows the expected closing', async () => {
    await page.goto(url());
    await entry(page, 'Cal Beta').click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/default/action-crm.action_leads/${ids[1]}`);
    await expect.poll(() => page.getByTestId('form-title').textContent()).toBe('Cal Beta');
    expect(await page.getByText('Expected closing').count()).toBeGreaterThan(0);
  });

  it('on a phone the month fits the screen', async () => {
    const { ctx, page: phone } = await signedIn('UTC', true);
    await phone.goto(url());
    await expect.poll(() => namesOn(phone, `${MONTH}-10`)).toContain('Cal Beta');
    expect(await phone.evaluate(() => Math.max(0, document.documentElement.scrollWidth - window.innerWidth))).toBe(0);
    expect(describeViolations(await axeSerious(phone))).toBe('');
    await shot(phone, 'calendar-phone', { dark: true, themeByAttribute: true });
    await ctx.close();
  });
});

/**
 * The user's zone is not the browser's: the admin lives in Auckland (+12, +13 from the last
 * Sunday of September) and opens the calendar on a laptop set to Los Angeles (-7). Their days are
 * Auckland's: a lead at 23:30 UTC lies on the next day, the month asks for the instants
 * Auckland's days start at, and a move keeps the Auckland wall-clock time, across the change to
 * summer time too.
 */
describe('calendar in the user\'s time zone, not the browser\'s', () => {
  const USER_ZONE = 'Pacific/Auckland';
  const BROWSER_ZONE = 'America/Los_Angeles';
  let adminId: string;
  let zoneIds: string[];
  let ctx: BrowserContext;
  let p: Page;
  const setTz = async (tz: string | null) => {
    const res = await env.api('POST', `/api/data/res.user/${adminId}/set_preferences`, { tz: tz ?? '' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.tz).toBe(tz);
  };
  const zoneUrl = (search: Record<string, string> = {}) => actionUrl('default', 'crm.action_leads', undefined, { view: 'calendar', date: '2031-09-10', ...search });

  beforeAll(async () => {
    adminId = (await env.gql('{ me { id } }')).me.id;
    await setTz(USER_ZONE);
    zoneIds = await seedLeads(env, [
      // 11:30 on Sep 10 in Auckland (+12); 16:30 on Sep 9 in Los Angeles
      { name: 'Zone Late', stage: 'new', date_deadline: '2031-09-09T23:30:00.000Z' },
      // 09:00 on Sep 25 in Auckland, before its clocks go forward on the 28th
      { name: 'Zone Drift', stage: 'qualified', date_deadline: '2031-09-24T21:00:00.000Z' },
    ]);
    ({ ctx, page: p } = await signedIn(BROWSER_ZONE));
  });
  afterAll(async () => {
    await ctx?.close();
    if (adminId) await setTz(null);
  });

  it('a lead lies on the day and at the time it has in the user\'s zone, and the month is asked for by the instants its days start at there', async () => {
    expect(await p.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone)).toBe(BROWSER_ZONE);
    const rows = countGraphql(p, 'query Rows');
    await p.goto(zoneUrl());
    await expect.poll(() => namesOn(p, '2031-09-10')).toEqual(['Zone Late']);
    expect(await namesOn(p, '2031-09-09')).toEqual([]);
    expect(await entry(p, 'Zone Late').locator('.cal-time').textContent()).toBe('11:30 AM');
    expect(await title(p)).toBe('September 2031');
    // Sunday Aug 31 00:00 at +12 to Sunday Oct 5 00:00 at +13
    expect(await p.locator('.cal-day').first().getAttribute('data-testid')).toBe('calendar-day-2031-08-31');
    const where = JSON.stringify(JSON.parse(rows.bodies.at(-1)!).variables.where);
    expect(where).toContain('"date_deadline":{"gte":"2031-08-30T12:00:00.000Z","lt":"2031-10-04T11:00:00.000Z"}');
    rows.stop();
    expect(describeViolations(await axeSerious(p))).toBe('');
    await shot(p, 'calendar-zone', { dark: true });

    // the week and the day say the user's dates too
    await p.getByTestId('calendar-mode-week').click();
    await expect.poll(() => title(p)).toBe('Sep 7 – 13, 2031');
    await expect.poll(() => namesOn(p, '2031-09-10')).toEqual(['Zone Late']);
    await p.getByTestId('calendar-mode-day').click();
    await expect.poll(() => title(p)).toBe('Wednesday, September 10, 2031');
    await expect.poll(() => namesOn(p, '2031-09-10')).toEqual(['Zone Late']);
  });

  it('today is the user\'s today, not the browser\'s', async () => {
    await p.goto(zoneUrl({ mode: 'day' }));
    await p.getByTestId('calendar-today').click();
    const todayThere = () => new Intl.DateTimeFormat('en-CA', { timeZone: USER_ZONE }).format(new Date());
    await expect.poll(() => p.locator('.cal-day[aria-current="date"]').getAttribute('data-testid')).toBe(`calendar-day-${todayThere()}`);
    expect(await title(p)).toBe(new Date().toLocaleDateString('en-US', { weekday: 'long', month: 'long', day: 'numeric', year: 'numeric', timeZone: USER_ZONE }));
  });

  it('dragging a lead across the change to summer time keeps its wall-clock time in the user\'s zone and writes that instant', async () => {
    await p.goto(zoneUrl());
    await entry(p, 'Zone Drift').waitFor();
    expect(await namesOn(p, '2031-09-25')).toEqual(['Zone Drift']);
    await drag(p, 'Zone Drift', '2031-09-30');
    // 09:00 on Sep 30 at +13 (moving the browser's instant by five days would give 10:00 there)
    await expect.poll(async () => (await getRecord(env, 'crm.lead', zoneIds[1])).date_deadline).toBe('2031-09-29T20:00:00.000Z');
    await expect.poll(() => namesOn(p, '2031-09-30')).toEqual(['Zone Drift']);
    expect(await entry(p, 'Zone Drift').locator('.cal-time').textContent()).toBe('9:00 AM');
    await expect.poll(() => toastText(p, 'info')).toBe('Moved to Tuesday, September 30, 2031.');
    expect((await getRecord(env, 'crm.lead', zoneIds[1])).revision).toBe(2);
  });

  it('the arrow keys move a lead by the user\'s days, and its form shows the same day and time', async () => {
    await p.goto(zoneUrl());
    await entry(p, 'Zone Late').focus();
    await p.keyboard.press('ArrowRight');
    await expect.poll(() => namesOn(p, '2031-09-11')).toEqual(['Zone Late']);
    await expect.poll(async () => (await getRecord(env, 'crm.lead', zoneIds[0])).date_deadline).toBe('2031-09-10T23:30:00.000Z');
    await entry(p, 'Zone Late').click();
    await expect.poll(() => p.getByTestId('form-title').textContent()).toBe('Zone Late');
    expect(await p.getByTestId('field-date_deadline').locator('input').inputValue()).toBe('2031-09-11T11:30');
  });

  it('on a phone in another zone the month shows the user\'s days', async () => {
    const phone = await signedIn(BROWSER_ZONE, true);
    try {
      await phone.page.goto(zoneUrl());
      await expect.poll(() => namesOn(phone.page, '2031-09-11')).toEqual(['Zone Late']);
      expect(await phone.page.evaluate(() => Math.max(0, document.documentElement.scrollWidth - window.innerWidth))).toBe(0);
      await shot(phone.page, 'calendar-zone-phone', { dark: true, themeByAttribute: true });
    } finally {
      await phone.ctx.close();
    }
  });
});
