import type { Browser, BrowserContext, Page } from 'playwright-core';

/**
 * Title card, result card and per-step caption overlays, drawn as HTML by Chromium (the browser
 * the replay runs in anyway) and screenshot at the video's resolution. Chromium rather than
 * ffmpeg `drawtext`: text wraps and scales to fit (long captions, multi-line errors), fonts come
 * from fontconfig without naming a .ttf file, any character is safe after HTML escaping (drawtext
 * needs its own escaping or a textfile per text), and a transparent PNG overlays cleanly.
 */

export interface Size { width: number; height: number }

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]!));
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

const FONT = `'DejaVu Sans', 'Liberation Sans', Arial, sans-serif`;

/** Every size in the cards is relative to the frame (vh/vw), so 1280x720 and 1920x1080 look alike. */
const page = (body: string, background: string) => `<!doctype html><html><head><meta charset="utf-8"><style>
  html, body { margin: 0; width: 100vw; height: 100vh; overflow: hidden; background: ${background}; font-family: ${FONT}; }
  * { box-sizing: border-box; }
  .card { position: absolute; inset: 0; display: flex; flex-direction: column; justify-content: center; padding: 0 9vw; color: #fff; }
  .kicker { font-size: 3.2vh; letter-spacing: .35vh; text-transform: uppercase; opacity: .8; margin-bottom: 2.5vh; }
  h1 { font-size: 8.5vh; line-height: 1.1; margin: 0 0 3vh; font-weight: 700; overflow-wrap: anywhere; }
  .meta { font-size: 3.4vh; line-height: 1.6; opacity: .92; }
  .meta b { font-weight: 600; }
  .mono { font-family: 'DejaVu Sans Mono', 'Liberation Mono', monospace; }
  .error { margin-top: 3vh; padding: 2.2vh 2.6vh; border-radius: 1.2vh; background: rgba(0,0,0,.28); font-size: 2.7vh; line-height: 1.45;
           white-space: pre-wrap; overflow-wrap: anywhere; max-height: 30vh; overflow: hidden; }
  .badge { display: inline-flex; align-items: center; gap: 2vh; }
  .mark { width: 11vh; height: 11vh; border-radius: 50%; background: rgba(255,255,255,.18); display: inline-flex; align-items: center; justify-content: center; font-size: 7vh; }
  .foot { position: absolute; left: 9vw; bottom: 5vh; font-size: 2.4vh; opacity: .65; }
</style></head><body>${body}</body></html>`;

export interface TitleCard {
  usecaseName: string;
  usecaseKey: string;
  module: string;
  /** When the run was made (its `started_at`). */
  runDate: Date;
  runId: string;
  stepCount: number;
  browser: string;
}

export function titleCardHtml(t: TitleCard): string {
  const date = t.runDate.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
  return page(`<div class="card" data-card="title">
    <div class="kicker">QA replay · ${esc(t.module)}</div>
    <h1>${esc(clip(t.usecaseName, 120))}</h1>
    <div class="meta">
      <div>Use case <b class="mono">${esc(t.usecaseKey)}</b> · module <b>${esc(t.module)}</b></div>
      <div>Run of ${esc(date)} · ${t.stepCount} step${t.stepCount === 1 ? '' : 's'} · ${esc(t.browser)}</div>
    </div>
    <div class="foot mono">run ${esc(t.runId)}</div>
  </div>`, 'linear-gradient(135deg, #1e293b 0%, #334155 100%)');
}

export interface ResultCard {
  passed: boolean;
  usecaseName: string;
  /** Steps that ran and passed, and the use case's step count. */
  passedSteps: number;
  totalSteps: number;
  /** How long the run took, in its own time: never the slowed-down length of the video. */
  seconds: number;
  /** The failing step: its 1-based number (null: the use case could not run), its sentence and the error. */
  failed?: { number: number | null; sentence: string; error: string } | null;
  /** Said when the recorded run's outcome differs from what this replay shows. */
  note?: string | null;
}

export function resultCardHtml(r: ResultCard): string {
  const body = r.passed
    ? `<div class="card" data-card="result" data-status="passed">
        <div class="badge"><span class="mark">✓</span><h1 style="margin:0">Passed</h1></div>
        <div class="meta" style="margin-top:4vh">
          <div><b>${esc(clip(r.usecaseName, 120))}</b></div>
          <div>All ${r.totalSteps} step${r.totalSteps === 1 ? '' : 's'} passed in ${r.seconds.toFixed(1)} s</div>
          ${r.note ? `<div>${esc(r.note)}</div>` : ''}
        </div>
      </div>`
    : `<div class="card" data-card="result" data-status="failed">
        <div class="badge"><span class="mark">✗</span><h1 style="margin:0">${r.failed && r.failed.number === null ? 'Could not run' : 'Failed'}</h1></div>
        <div class="meta" style="margin-top:4vh">
          <div><b>${esc(clip(r.usecaseName, 120))}</b></div>
          ${r.failed ? `<div>${r.failed.number === null ? '' : `Step ${r.failed.number} of ${r.totalSteps}: `}${esc(clip(r.failed.sentence, 160))}</div>` : ''}
          <div>${r.passedSteps} of ${r.totalSteps} step${r.totalSteps === 1 ? '' : 's'} passed in ${r.seconds.toFixed(1)} s</div>
          ${r.note ? `<div>${esc(r.note)}</div>` : ''}
        </div>
        ${r.failed?.error ? `<div class="error mono">${esc(clip(r.failed.error, 700))}</div>` : ''}
      </div>`;
  return page(body, r.passed ? 'linear-gradient(135deg, #166534 0%, #15803d 100%)' : 'linear-gradient(135deg, #7f1d1d 0%, #b91c1c 100%)');
}

/**
 * The caption band's height in pixels for a frame: 16 % of its height, even (yuv420p). The page is
 * filmed above it (the viewport is the frame less the band), so a caption never covers a toast,
 * a dialog or the control a step uses.
 */
export const bandHeight = (size: Size) => Math.round((size.height * 0.16) / 2) * 2;

/**
 * A transparent frame with the step's caption in the band at the bottom (`bandHeight`), outside
 * the page: overlaid on the screencast, which sits above the band.
 */
export function captionHtml(text: string, number: number, total: number, size: Size): string {
  const band = bandHeight(size);
  return `<!doctype html><html><head><meta charset="utf-8"><style>
    html, body { margin: 0; width: 100vw; height: 100vh; background: transparent; font-family: ${FONT}; overflow: hidden; }
    .band { position: absolute; left: 0; right: 0; bottom: 0; height: ${band}px; padding: 0 4vw; box-sizing: border-box;
            background: #0f172a; color: #fff; display: flex; gap: 2.2vh; align-items: center; }
    .n { font-size: 2.6vh; opacity: .7; white-space: nowrap; font-variant-numeric: tabular-nums; }
    .t { font-size: ${Math.round(band * 0.24)}px; line-height: 1.3; overflow-wrap: anywhere; max-height: ${band - 8}px; overflow: hidden; }
  </style></head><body><div class="band" data-caption><span class="n">${number}/${total}</span><span class="t">${esc(clip(text, 180))}</span></div></body></html>`;
}

/** Paints cards with one page of its own context (closed by `close()`). */
export class CardPainter {
  private constructor(private readonly context: BrowserContext, private readonly page: Page) {}

  static async open(browser: Browser, size: Size): Promise<CardPainter> {
    const context = await browser.newContext({ viewport: size, deviceScaleFactor: 1, locale: 'en-US' });
    try {
      return new CardPainter(context, await context.newPage());
    } catch (err) {
      await context.close().catch(() => {});
      throw err;
    }
  }

  /** A PNG of `html` at the frame size; `transparent` keeps the background's alpha (overlays). */
  async paint(html: string, file: string, transparent = false): Promise<string> {
    await this.page.setContent(html, { waitUntil: 'load' });
    await this.page.evaluate(() => document.fonts?.ready);
    await this.page.screenshot({ path: file, type: 'png', omitBackground: transparent, animations: 'disabled', caret: 'hide' });
    return file;
  }

  async close(): Promise<void> {
    await this.context.close().catch(() => {});
  }
}
