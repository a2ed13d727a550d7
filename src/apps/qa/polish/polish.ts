import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { systemPrincipal, type Principal } from '../../../kernel/env.js';
import { FwError, NotFound } from '../../../kernel/errors.js';
import { startUrl } from '../same-origin.js';
import type { Kernel } from '../../../kernel/kernel.js';
import { runSteps as engineRunSteps, type StepResult, type StepRunContext } from '../replay/engine.js';
import { CHROMIUM_PATH, DEFAULT_FIXTURES_DIR, DEFAULT_STEP_TIMEOUT_MS, startServer } from '../replay/run.js';
import { withSandbox as sandboxWith, type SandboxCredentials } from '../replay/sandbox.js';
import { qaSettings, reportDir, type QaSettings } from '../settings.js';
import { stepOf, type StepData } from '../steps.js';
import { bandHeight, CardPainter, captionHtml, resultCardHtml, titleCardHtml, type ResultCard } from './cards.js';
import { narrate, speakable } from './intent.js';
import { espeakBinary, speak, type Clip } from './narration.js';
import { composeVideo, findToolchain, FPS, framesOf, ScreencastCapture, webVtt, type Segment, type Toolchain } from './video.js';

/**
 * `fw e2e polish --run <run_uuid>`: a narrated MP4 per use case of a run.
 *
 * For each `qa.run.result` of the run, its use case's steps are replayed again — slowly
 * (QA_VIDEO_SLOWMO_MS around each step), in Debian Chromium, on the sandbox tenant reset first,
 * signed in as the replay user — with the page's screencast streamed into ffmpeg. Nothing is
 * written to qa.run / qa.run.result: a polish is a film of the run, not a new run. Then:
 *
 *   title card (≥ 3 s: use case, module, run date; its name is spoken)
 *   → one part per step that ran: the screencast from the step's start to the next step's
 *     start, its caption in a band under the page (the page is filmed at the frame's height
 *     less the band, so a caption hides nothing) and its sentence spoken (intent.ts: the step's
 *     caption, else its intent; never a URL); a part lasts at least as long as its sentence
 *     (+ 0.5 s): the step's last frame is held while it is still being spoken
 *   → result card (≥ 3 s): green "Passed", or red "Failed" with the failing step and its error,
 *     with the time the run took (its result's duration, not the slowed-down film's)
 *
 * at QA_VIDEO_RESOLUTION, 25 fps, H.264 (libx264; MPEG-4 part 2 when this ffmpeg has no
 * libx264), yuv420p, AAC, written to `<QA_E2E_VIDEO_DIR>/<run uuid>-<use case key>.mp4`.
 */

type Rec = Record<string, unknown>;

/** The seconds a card stays at least; longer when its spoken line is. */
export const CARD_SECONDS = 3;
/** Silence after each spoken sentence before the next part starts. */
export const SENTENCE_GAP = 0.5;
const SIGN_IN_TIMEOUT_MS = 20_000;
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** The replay engine's pieces polish uses (src/apps/qa/replay/): passed in, so a test can wrap them. */
export interface PolishDeps {
  runSteps: (page: Page, steps: StepData[], ctx: StepRunContext) => Promise<StepResult[]>;
  withSandbox: <T>(kernel: Kernel, o: { sandbox: string; source: string; role: SandboxCredentials['role'] }, fn: (creds: SandboxCredentials) => Promise<T>) => Promise<T>;
}
export const defaultDeps: PolishDeps = { runSteps: engineRunSteps, withSandbox: sandboxWith };

export interface PolishOptions {
  tenant: string;
  run: string;
  log: (line: string) => void;
  fixturesDir?: string;
  defaultTimeoutMs?: number;
}

export interface PolishedVideo {
  usecase_key: string;
  /** Absolute path of the MP4, or null when it could not be made. */
  file: string | null;
  /** Outcome of this replay (`error`: it could not run: sandbox, sign-in, start page). */
  status: 'passed' | 'failed' | 'error';
  /** Outcome stored in the run's result. */
  recorded_status: string;
  seconds: number;
  /** What is spoken (and shown as captions): the title, one sentence per step that ran, the result. */
  narration: { title: string; steps: string[]; result: string } | null;
  /** The run's own time as the result card states it (the recorded result's duration), in seconds. */
  run_seconds: number | null;
  /** Parts of the timeline, in order (title, steps, result), with their length in seconds. */
  timeline: Array<{ part: string; seconds: number }>;
  error: string | null;
}

export interface PolishOutcome { run: Rec; videos: PolishedVideo[]; duration_ms: number }

const errMsg = (err: unknown) => String((err as Error)?.message ?? err).split('\n')[0]!;
const round = (s: number) => Math.round(s * 100) / 100;

async function loadRun(kernel: Kernel, sys: Principal, runId: string): Promise<{ run: Rec; results: Rec[] }> {
  let run: Rec;
  try {
    run = await kernel.dispatch<Rec>('fw.read_one', { model: 'qa.run', id: runId }, sys);
  } catch (err) {
    if ((err as { status?: number }).status === 404) throw new NotFound(`no QA run "${runId}" in tenant ${sys.tenant_id} (fw e2e replay prints the run's id)`, { run: runId }, 'QA_RUN_NOT_FOUND');
    throw err;
  }
  const results = await kernel.dispatch<{ items: Rec[] }>('fw.search', { model: 'qa.run.result', domain: [['run_id', '=', run.id]], order: 'dbid asc', limit: 1000 }, sys);
  return { run, results: results.items };
}

async function loadUsecase(kernel: Kernel, sys: Principal, result: Rec): Promise<{ row: Rec; steps: StepData[] } | null> {
  let row: Rec | undefined;
  if (result.usecase_id) {
    try {
      row = await kernel.dispatch<Rec>('fw.read_one', { model: 'qa.usecase', id: result.usecase_id }, sys);
    } catch (err) {
      if ((err as { status?: number }).status !== 404) throw err;
    }
  }
  // the use case was deleted and imported again: the same key
  row ??= (await kernel.dispatch<{ items: Rec[] }>('fw.search', { model: 'qa.usecase', domain: [['key', '=', result.usecase_key]], limit: 1 }, sys)).items[0];
  if (!row) return null;
  const steps = await kernel.dispatch<{ items: Rec[] }>('fw.search', { model: 'qa.usecase.step', domain: [['usecase_id', '=', row.id]], order: 'sequence asc', limit: 10_000 }, sys);
  return { row, steps: steps.items.map(stepOf) };
}

async function launch(qs: QaSettings): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM_PATH)) throw new FwError('QA_BROWSER_MISSING', 500, `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set FW_CHROMIUM)`);
  try {
    return await chromium.launch({ executablePath: CHROMIUM_PATH, headless: qs.QA_E2E_HEADLESS, args: CHROMIUM_ARGS });
  } catch (err) {
    throw new FwError('QA_BROWSER_FAILED', 500, `Chromium did not start${qs.QA_E2E_HEADLESS ? '' : ' (QA_E2E_HEADLESS=false needs a display)'}: ${errMsg(err)}`);
  }
}

/** Signs in through the web client's login page, as a replay does (not a step, not filmed). */
async function signIn(page: Page, base: string, creds: SandboxCredentials): Promise<void> {
  await page.goto(`${base}/login`, { timeout: SIGN_IN_TIMEOUT_MS });
  await page.getByTestId('login-email').fill(creds.email, { timeout: SIGN_IN_TIMEOUT_MS });
  await page.getByTestId('login-password').fill(creds.password);
  await page.getByTestId('login-submit').click();
  const refused = page.getByTestId('login-error');
  await page.getByTestId('user-menu').or(refused).first().waitFor({ timeout: SIGN_IN_TIMEOUT_MS });
  if (await refused.isVisible()) throw new Error(`the login page refused the replay user: ${await refused.innerText()}`);
}

const interpolate = (text: string, vars: Record<string, string>) =>
  text.replace(/\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}/gi, (m, name: string) => (Object.hasOwn(vars, name) ? vars[name]! : m));

function secretsOf(creds: SandboxCredentials): Record<string, string> {
  const secrets: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (k.startsWith('QA_SECRET_') && v) secrets[k.slice('QA_SECRET_'.length).toLowerCase()] = v;
  secrets.password = creds.password;
  return secrets;
}

interface Filmed {
  status: 'passed' | 'failed' | 'error';
  error: string | null;
  steps: StepResult[];
  /** Start of each step that ran, on the capture's timeline (seconds). */
  starts: Array<number | null>;
  capture: { file: string; seconds: number } | null;
  seconds: number;
}

/** Replays one use case on a fresh sandbox with the screencast on. */
async function film(kernel: Kernel, deps: PolishDeps, o: {
  qs: QaSettings; opts: PolishOptions; browser: Browser; base: string; tools: Toolchain; work: string; runId: string; usecase: { row: Rec; steps: StepData[] };
  sentences: string[];
}): Promise<Filmed> {
  const { qs, opts, usecase } = o;
  const key = String(usecase.row.key);
  const out: Filmed = { status: 'passed', error: null, steps: [], starts: usecase.steps.map(() => null), capture: null, seconds: 0 };
  const role = (['admin', 'user', 'qa'].includes(String(usecase.row.replay_role)) ? usecase.row.replay_role : 'admin') as SandboxCredentials['role'];
  const started = Date.now();
  // the page is filmed above the caption band (cards.ts bandHeight): a caption covers none of it
  const viewport = { width: qs.resolution.width, height: qs.resolution.height - bandHeight(qs.resolution) };
  const context = await o.browser.newContext({ viewport, deviceScaleFactor: 1, locale: 'en-US', timezoneId: 'UTC', extraHTTPHeaders: { 'x-tenant': qs.QA_SANDBOX_TENANT_KEY } });
  let capture: ScreencastCapture | null = null;
  try {
    const page = await context.newPage();
    await deps.withSandbox(kernel, { sandbox: qs.QA_SANDBOX_TENANT_KEY, source: opts.tenant, role }, async (creds) => {
      try {
        await signIn(page, o.base, creds);
      } catch (err) {
        throw new FwError('QA_SIGN_IN_FAILED', 500, `signing in to ${creds.tenant} as ${creds.email} failed: ${errMsg(err)}`);
      }
      const variables: Record<string, string> = {};
      const declared = usecase.row.variables;
      if (declared && typeof declared === 'object' && !Array.isArray(declared)) {
        for (const [k, v] of Object.entries(declared as Rec)) if (v !== null && v !== undefined) variables[k] = String(v);
      }
      Object.assign(variables, { run_id: o.runId, usecase: key, sandbox_tenant: creds.tenant, org: creds.organization?.code ?? '-', replay_email: creds.email });
      const start = interpolate(String(usecase.row.start_path || '/'), variables);
      const url = startUrl(start, o.base);
      try {
        await page.goto(url.toString(), { timeout: SIGN_IN_TIMEOUT_MS });
      } catch (err) {
        throw new FwError('QA_START_FAILED', 500, `opening the start page ${start} failed: ${errMsg(err)}`);
      }
      const file = path.join(o.work, 'capture.mkv');
      capture = await ScreencastCapture.start(page, { ffmpeg: o.tools.ffmpeg, file, size: viewport });
      const cap = capture;
      out.steps = await deps.runSteps(page, usecase.steps, {
        baseUrl: o.base,
        variables,
        secrets: secretsOf(creds),
        fixturesDir: path.resolve(opts.fixturesDir ?? DEFAULT_FIXTURES_DIR),
        // the video films every step: a screenshot would only freeze the screencast for a moment
        screenshotDir: path.join(o.work, 'screenshots'),
        noScreenshots: true,
        defaultTimeoutMs: opts.defaultTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS,
        slowMoMs: qs.QA_VIDEO_SLOWMO_MS,
        hooks: {
          beforeStep: (i) => { out.starts[i] = cap.now(); },
          afterStep: (i, _step, r) => {
            if (r.status === 'skipped') return;
            opts.log(`  ${r.status === 'passed' ? '✓' : '✗'} ${r.sequence} ${o.sentences[i]}${r.error ? `\n      ${r.error}` : ''}`);
          },
        },
      });
      capture = null;
      out.capture = { file, ...(await cap.stop()) };
    });
    const failed = out.steps.find((s) => s.status === 'failed');
    if (failed) {
      out.status = 'failed';
      out.error = failed.error;
    }
  } catch (err) {
    (capture as ScreencastCapture | null)?.abort();
    out.status = 'error';
    out.error = errMsg(err);
    out.capture = null;
    opts.log(`  ! ${out.error}`);
  } finally {
    await context.close().catch(() => undefined);
  }
  out.seconds = (Date.now() - started) / 1000;
  return out;
}

/**
 * The time the result card states: how long the use case took in the run being filmed (its
 * result's `duration_ms`), not the film's slowed-down length. A result without a duration falls
 * back to what the steps took in this replay (their `action_ms`, without the slow-motion pauses).
 */
function realSeconds(result: Rec, filmed: Filmed): number {
  const ms = Number(result.duration_ms);
  if (result.duration_ms !== null && result.duration_ms !== undefined && Number.isFinite(ms) && ms >= 0) return ms / 1000;
  return filmed.steps.reduce((t, s) => t + (s.action_ms ?? 0), 0) / 1000;
}

/** `12.6 seconds`, `1 second`, `2 minutes 5 seconds`: a length as it is read aloud. */
export function spokenSeconds(seconds: number): string {
  const s = Math.round(seconds * 10) / 10;
  if (s < 60) return `${s} second${s === 1 ? '' : 's'}`;
  const m = Math.floor(s / 60);
  const rest = Math.round(s - m * 60);
  return `${m} minute${m === 1 ? '' : 's'}${rest ? ` ${rest} second${rest === 1 ? '' : 's'}` : ''}`;
}

/** The timeline of one use case's video (see the module header). */
function timeline(o: {
  clips: Clip[]; captions: string[]; filmed: Filmed;
  title: { image: string; clip: Clip }; result: { image: string; clip: Clip };
}): Segment[] {
  const card = (label: string, image: string, clip: Clip): Segment => ({ kind: 'card', label, text: clip.text, image, narration: clip.file, seconds: Math.max(CARD_SECONDS, clip.seconds + SENTENCE_GAP + 0.3) });
  const segments: Segment[] = [card('title', o.title.image, o.title.clip)];
  const { filmed } = o;
  if (filmed.capture) {
    const ran = filmed.starts.map((t, i) => ({ t, i })).filter((x): x is { t: number; i: number } => x.t !== null);
    ran.forEach(({ t, i }, n) => {
      const from = n === 0 ? 0 : t; // the first part also shows the start page before the first step
      const to = n + 1 < ran.length ? ran[n + 1]!.t : filmed.capture!.seconds;
      segments.push({ kind: 'capture', label: `step ${i + 1}`, text: o.clips[i]!.text, from, to, caption: o.captions[i]!, narration: o.clips[i]!.file, seconds: Math.max(to - from, o.clips[i]!.seconds + SENTENCE_GAP) });
    });
  }
  segments.push(card('result', o.result.image, o.result.clip));
  return segments;
}

/**
 * Films every use case of the run and writes one video each. Throws QA_RUN_NOT_FOUND,
 * QA_RUN_EMPTY, QA_FFMPEG_MISSING, QA_ESPEAK_MISSING (before any browser starts); a use case
 * that cannot be filmed or encoded is reported in its entry, not thrown.
 */
export async function polishRun(kernel: Kernel, opts: PolishOptions, deps: PolishDeps = defaultDeps): Promise<PolishOutcome> {
  const qs = qaSettings(kernel.settings);
  if (!qs.QA_E2E_ENABLED) throw new FwError('QA_E2E_DISABLED', 400, 'fw e2e polish replays the run in a browser: set QA_E2E_ENABLED=true');
  const started = Date.now();
  const sys = systemPrincipal(opts.tenant);
  const { run, results } = await loadRun(kernel, sys, opts.run);
  if (qs.QA_SANDBOX_TENANT_KEY === opts.tenant) {
    throw new FwError('QA_SANDBOX_IS_SOURCE', 400, `the use cases of ${opts.tenant} cannot be filmed on ${opts.tenant} itself: QA_SANDBOX_TENANT_KEY is reset before each use case`);
  }
  if (!results.length) throw new FwError('QA_RUN_EMPTY', 422, `run ${String(run.id)} has no use case results: nothing to film (status ${String(run.status)}${run.error ? `: ${String(run.error)}` : ''})`);
  const tools = await findToolchain(qs.QA_VIDEO_FFMPEG_PATH);
  const videoDir = reportDir(qs.QA_E2E_VIDEO_DIR);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-polish-'));
  const videos: PolishedVideo[] = [];
  try {
    // espeak-ng answers before a browser starts (QA_ESPEAK_MISSING)
    await speak('Test.', work, 'probe', tools.ffprobe);
    const runDate = new Date(String(run.started_at ?? run.created_at ?? new Date().toISOString()));
    opts.log(`polish run ${String(run.id)}: ${results.length} use case${results.length === 1 ? '' : 's'} → ${videoDir} (${qs.resolution.width}x${qs.resolution.height}, ${tools.videoEncoder}, slow-mo ${qs.QA_VIDEO_SLOWMO_MS} ms, ${espeakBinary()})`);
    const { server, base } = await startServer(kernel);
    let browser: Browser | null = null;
    let painter: CardPainter | null = null;
    try {
      browser = await launch(qs);
      painter = await CardPainter.open(browser, qs.resolution);
      for (const [n, result] of results.entries()) {
        const key = String(result.usecase_key);
        const entry: PolishedVideo = { usecase_key: key, file: null, status: 'error', recorded_status: String(result.status), seconds: 0, narration: null, run_seconds: null, timeline: [], error: null };
        videos.push(entry);
        const dir = path.join(work, `uc-${n}`);
        fs.mkdirSync(dir);
        try {
          const usecase = await loadUsecase(kernel, sys, result);
          if (!usecase) throw new FwError('QA_USECASE_NOT_FOUND', 404, `use case ${key} no longer exists`);
          if (!usecase.steps.length) throw new FwError('QA_USECASE_EMPTY', 422, `use case ${key} has no steps`);
          const name = String(usecase.row.name);
          const total = usecase.steps.length;
          opts.log(`▶ ${key} — ${name} (${total} step${total === 1 ? '' : 's'})`);
          if (result.usecase_version !== null && result.usecase_version !== undefined && Number(result.usecase_version) !== Number(usecase.row.version)) {
            opts.log(`  (the run replayed version ${String(result.usecase_version)}; the video shows version ${String(usecase.row.version)}, its steps now)`);
          }
          // narration and overlays first: the replay then only waits for the page
          const sentences = narrate(usecase.steps, String(usecase.row.start_path ?? '') || null);
          const clips: Clip[] = [];
          const captions: string[] = [];
          for (const [i, s] of sentences.entries()) {
            clips.push(await speak(s, dir, `step-${i + 1}`, tools.ffprobe));
            captions.push(await painter.paint(captionHtml(s, i + 1, total, qs.resolution), path.join(dir, `caption-${i + 1}.png`), true));
          }
          const titleImage = await painter.paint(titleCardHtml({
            usecaseName: name, usecaseKey: key, module: String(usecase.row.module), runDate, runId: String(run.id), stepCount: total, browser: String(run.browser ?? 'chromium'),
          }), path.join(dir, 'title.png'));
          const titleLine = speakable(name);
          const titleClip = await speak(titleLine, dir, 'title', tools.ffprobe);

          const filmed = await film(kernel, deps, { qs, opts, browser, base, tools, work: dir, runId: String(run.id), usecase, sentences });
          const runSeconds = realSeconds(result, filmed);
          entry.status = filmed.status;
          const failedStep = filmed.steps.find((s) => s.status === 'failed');
          const passedSteps = filmed.steps.filter((s) => s.status === 'passed').length;
          const note = (result.status === 'passed') === (filmed.status === 'passed') ? null
            : `The recorded run ${String(result.status)}${result.failed_step ? ` at step ${String(result.failed_step)}` : ''}; this replay ${filmed.status}.`;
          const card: ResultCard = {
            passed: filmed.status === 'passed', usecaseName: name, passedSteps, totalSteps: total, seconds: runSeconds, note,
            failed: failedStep
              ? { number: failedStep.sequence, sentence: sentences[failedStep.sequence - 1]!, error: failedStep.error ?? 'failed' }
              : filmed.status === 'error' ? { number: null, sentence: 'The use case could not run.', error: filmed.error ?? 'error' } : null,
          };
          const resultImage = await painter.paint(resultCardHtml(card), path.join(dir, 'result.png'));
          const took = spokenSeconds(runSeconds);
          const resultLine = filmed.status === 'passed' ? `Passed. All ${total} steps passed in ${took}.`
            : failedStep ? `Failed at step ${failedStep.sequence}, after ${took}.` : 'The use case could not run.';
          const resultClip = await speak(resultLine, dir, 'result', tools.ffprobe);

          const segments = timeline({ clips, captions, filmed, title: { image: titleImage, clip: titleClip }, result: { image: resultImage, clip: resultClip } });
          const file = path.join(videoDir, `${String(run.id)}-${key.replace(/[^a-z0-9_.-]/gi, '_')}.mp4`);
          opts.log(`  composing ${segments.length} parts…`);
          entry.seconds = await composeVideo({ tools, size: qs.resolution, band: bandHeight(qs.resolution), capture: filmed.capture?.file ?? '', segments, out: file, work: dir });
          entry.file = file;
          // the narration as subtitles next to the video (`<video>.vtt`)
          fs.writeFileSync(file.replace(/\.mp4$/, '.vtt'), webVtt(segments));
          entry.narration = { title: titleLine, steps: filmed.steps.filter((st) => st.status !== 'skipped').map((st) => sentences[st.sequence - 1]!), result: resultLine };
          entry.run_seconds = runSeconds;
          entry.timeline = segments.map((seg) => ({ part: seg.label ?? seg.kind, seconds: round(framesOf(seg.seconds) / FPS) }));
          entry.error = filmed.status === 'passed' ? null : filmed.error;
          opts.log(`  timeline: ${entry.timeline.map((t) => `${t.part} ${t.seconds.toFixed(2)} s`).join(' · ')}`);
          opts.log(`${filmed.status === 'passed' ? '✓' : '✗'} ${key}: ${file} (${entry.seconds.toFixed(1)} s, replay ${filmed.status})`);
        } catch (err) {
          entry.status = 'error';
          entry.error = err instanceof FwError ? `${err.code}: ${err.message}` : errMsg(err);
          opts.log(`✗ ${key}: no video — ${entry.error}`);
        } finally {
          fs.rmSync(dir, { recursive: true, force: true }); // the parts of a long run add up
        }
      }
    } finally {
      await painter?.close();
      await browser?.close().catch(() => undefined);
      await server.close();
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  return { run, videos, duration_ms: Date.now() - started };
}
