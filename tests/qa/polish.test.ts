/**
 * `fw e2e polish`: a run's use cases are filmed again in Debian Chromium (the screencast piped
 * into Debian's ffmpeg), narrated with espeak-ng and cut into one MP4 per use case: title card,
 * the steps with their captions and sentences, a green or red result card. Checked with ffprobe
 * (length, frame size, codecs, an audio stream that is not silent) and with frames taken from
 * the title and result cards (kept under .tmp/qa-polish/ to look at). Also the refusals: an
 * unknown run, and an ffmpeg that is not where QA_VIDEO_FFMPEG_PATH says.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { polishFromCli } from '../../src/apps/qa/polish/cli.ts';
import { narrate } from '../../src/apps/qa/polish/intent.ts';
import { checkStep, type StepData } from '../../src/apps/qa/steps.ts';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { Kernel } from '../../src/kernel/kernel.ts';
import { loadSettings } from '../../src/kernel/settings.ts';

type Rec = Record<string, any>;
const LONG = 120_000;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const WEB_DIST = process.env.FW_WEB_CLIENT_DIR ? path.resolve(process.env.FW_WEB_CLIENT_DIR) : path.join(ROOT, 'web/dist');
const FRAMES_DIR = path.join(ROOT, '.tmp/qa-polish');
/** Not the default 1280x720: the video must follow the setting. */
const RESOLUTION = { width: 1024, height: 576 };
const SLOWMO_MS = 200;

const ORG = 'Acme Polish';
const START = '/{{org}}/action-base.action_organizations';
const newButton = { candidates: [[{ by: 'testid', value: 'new-record' }], [{ by: 'role', value: 'link', name: 'New' }]] };
/**
 * Without captions but the last: narrated from intent. The search box's accessible name
 * ("Search Name, Slug for:") and the page's path must not be read out.
 */
const PASSING: Rec[] = [
  { kind: 'navigate', value: { kind: 'literal', value: START } },
  { kind: 'fill', target: { candidates: [[{ by: 'testid', value: 'search-input' }], [{ by: 'role', value: 'searchbox', name: 'Search Name, Slug for:', exact: true }]] }, value: { kind: 'literal', value: 'Default' } },
  { kind: 'press', target: { candidates: [[{ by: 'testid', value: 'search-input' }]] }, value: { kind: 'literal', value: 'Enter' } },
  { kind: 'click', target: newButton },
  { kind: 'fill', target: { candidates: [[{ by: 'label', value: 'Name' }], [{ by: 'testid', value: 'input-name' }]] }, value: { kind: 'literal', value: ORG } },
  { kind: 'click', target: { candidates: [[{ by: 'testid', value: 'form-save' }], [{ by: 'role', value: 'button', name: 'Save' }]] } },
  { kind: 'assert', target: { candidates: [[{ by: 'testid', value: 'form-title' }]] }, assertion: { kind: 'text', expected: ORG }, caption: 'The form shows its name' },
];
/** What the video says for PASSING. */
const PASSING_SAID = [
  'Go to the organizations page.', 'Search for Default.', 'Run the search.', 'Start a new organization.', `Fill Name with ${ORG}.`,
  `Create the organization ${ORG}.`, 'The form shows its name.',
];
const FAILING: Rec[] = [
  { kind: 'click', target: newButton, caption: 'Click New' },
  { kind: 'fill', target: { candidates: [[{ by: 'label', value: 'Organization title', exact: true }]] }, value: { kind: 'literal', value: ORG }, timeout_ms: 1500, caption: 'Name the organization' },
  { kind: 'click', target: { candidates: [[{ by: 'testid', value: 'form-save' }]] }, caption: 'Save' },
];

let kernel: Kernel;
let dataDir: string;
let videoDir: string;
let runId: string;
const tenant = () => kernel.settings.DEFAULT_TENANT;
const sys = () => systemPrincipal(tenant());

const probe = (file: string): Rec => JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration:stream=codec_type,codec_name,width,height,pix_fmt,sample_rate', '-of', 'json', file], { encoding: 'utf8' }));
const seconds = (file: string) => Number(probe(file).format.duration);

/** A frame at `at` seconds as a PNG under .tmp/qa-polish/, and its average colour. */
function frame(video: string, at: number, name: string): { file: string; rgb: [number, number, number] } {
  fs.mkdirSync(FRAMES_DIR, { recursive: true });
  const file = path.join(FRAMES_DIR, `${name}.png`);
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-ss', at.toFixed(2), '-i', video, '-frames:v', '1', file]);
  return { file, rgb: average(file) };
}

/** The average colour of a PNG, or of a region of it (`crop=w:h:x:y`). */
function average(file: string, crop?: string): [number, number, number] {
  const px = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-vf', `${crop ? `${crop},` : ''}scale=1:1:flags=area`, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-']);
  return [px[0]!, px[1]!, px[2]!];
}

/** The cues of a WebVTT file, in order: when each is shown (seconds) and its text. */
function timedCues(file: string): Array<{ from: number; to: number; text: string }> {
  const secs = (t: string) => t.split(':').reduce((n, p) => n * 60 + Number(p), 0);
  return fs.readFileSync(file, 'utf8').trim().split(/\n\n+/).slice(1).map((c) => {
    const [times, ...text] = c.split('\n');
    const [from, to] = times!.split(' --> ');
    return { from: secs(from!), to: secs(to!), text: text.join(' ') };
  });
}
const cues = (file: string) => timedCues(file).map((c) => c.text);

/** The loudest sample of the audio track in dB (silence is -91 dB). */
function maxVolume(video: string): number {
  const log = spawnSync('ffmpeg', ['-hide_banner', '-nostats', '-i', video, '-map', '0:a:0', '-af', 'volumedetect', '-f', 'null', '-'], { encoding: 'utf8' }).stderr;
  return Number(/max_volume: (-?[\d.]+) dB/.exec(log)?.[1] ?? NaN);
}

/** Where the audio's silences end (speech starts), in seconds. */
function speechStarts(video: string): number[] {
  const log = spawnSync('ffmpeg', ['-hide_banner', '-nostats', '-i', video, '-map', '0:a:0', '-af', 'silencedetect=n=-40dB:d=0.3', '-f', 'null', '-'], { encoding: 'utf8' }).stderr;
  return [...log.matchAll(/silence_end: ([\d.]+)/g)].map((m) => Number(m[1]));
}

/** Seconds espeak-ng takes to say a sentence the way polish does. */
function spoken(text: string): number {
  const wav = path.join(dataDir, `probe-${Math.random().toString(36).slice(2)}.wav`);
  execFileSync('espeak-ng', ['-v', 'en-us', '-s', '160', '-w', wav, text]);
  return seconds(wav);
}

beforeAll(async () => {
  for (const [bin, flag] of [['ffmpeg', '-version'], ['ffprobe', '-version'], ['espeak-ng', '--version'], ['/usr/bin/chromium', '--version']]) {
    try { execFileSync(bin!, [flag!], { stdio: 'ignore' }); } catch { throw new Error(`${bin} is missing: apt-get install -y ffmpeg espeak-ng chromium (.ci/run does)`); }
  }
  if (!fs.existsSync(path.join(WEB_DIST, 'index.html'))) throw new Error(`the web client is not built (${WEB_DIST}/index.html): npm run build:web`);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-polish-test-'));
  videoDir = path.join(dataDir, 'videos');
  const settings = loadSettings({
    DATA_DIR: dataDir, ACTIVE_MODULES: 'base,auth,presentation,connectors,storage', WEB_CLIENT_DIR: WEB_DIST,
    ENABLE_QA_AUTOMATION: 'true', QA_E2E_ENABLED: 'true', QA_E2E_TRACE_DIR: path.join(dataDir, 'traces'), QA_E2E_VIDEO_DIR: videoDir,
    QA_VIDEO_RESOLUTION: `${RESOLUTION.width}x${RESOLUTION.height}`, QA_VIDEO_SLOWMO_MS: String(SLOWMO_MS), QA_VIDEO_FFMPEG_PATH: 'ffmpeg',
    BCRYPT_COST: '4', ADMIN_EMAIL: 'admin@example.com', ADMIN_PASSWORD: 'admin-pass-1', LOG_LEVEL: 'silent', EVENT_WORKER: 'false',
  });
  kernel = await Kernel.boot({ settings, worker: false, log: () => {} });
  await kernel.tenants.get(settings.DEFAULT_TENANT);
  // the use cases, as `fw e2e import` writes them (system principal), and a run with their results
  await kernel.dispatch('qa.usecase.import', { usecase_key: 'org.polish', name: 'Create an organization', module: 'base', start_path: START, steps: PASSING }, sys());
  await kernel.dispatch('qa.usecase.import', { usecase_key: 'org.polish.broken', name: 'Create an organization (renamed label)', module: 'base', start_path: START, steps: FAILING }, sys());
  const run = await kernel.dispatch<Rec>('fw.create', { model: 'qa.run', values: {
    sandbox_tenant: 'qa-sandbox', browser: 'chromium', status: 'failed', started_at: '2026-11-20T09:30:00.000Z', finished_at: '2026-11-20T09:31:00.000Z',
    usecase_count: 2, passed_count: 1, failed_count: 1,
  } }, sys());
  runId = run.id;
  const usecases = (await kernel.dispatch<{ items: Rec[] }>('fw.search', { model: 'qa.usecase', order: 'key asc' }, sys())).items;
  for (const u of usecases) {
    const broken = u.key === 'org.polish.broken';
    await kernel.dispatch('fw.create', { model: 'qa.run.result', values: {
      run_id: runId, usecase_id: u.id, usecase_key: u.key, usecase_version: 1, module: 'base', status: broken ? 'failed' : 'passed',
      started_at: '2026-11-20T09:30:00.000Z', finished_at: '2026-11-20T09:31:00.000Z', duration_ms: 6000, failed_step: broken ? 2 : null,
      error: broken ? 'step 2 (fill: Name the organization) failed: no locator matched' : null,
    } }, sys());
  }
}, LONG);

afterAll(async () => {
  await kernel?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('fw e2e polish', () => {
  it('films each use case of the run into a narrated MP4: title card, captioned steps, result card', async () => {
    const lines: string[] = [];
    const started = Date.now();
    const code = await polishFromCli(kernel, { tenant: tenant(), run: runId, log: (l) => lines.push(l) });
    const log = lines.join('\n');
    expect(code, log).toBe(0);
    const passedFile = path.join(videoDir, `${runId}-org.polish.mp4`);
    const failedFile = path.join(videoDir, `${runId}-org.polish.broken.mp4`);
    // progress per step, then one summary line naming both files
    expect(log).toContain('▶ org.polish — Create an organization (7 steps)');
    expect(log).toContain('  ✓ 5 Fill Name with Acme Polish.');
    expect(log).toMatch(/ {2}✗ 2 Name the organization\.\n {6}no locator matched/);
    expect(lines[lines.length - 1]).toBe(lines.find((l) => l.startsWith('polish: ')));
    expect(lines[lines.length - 1]).toMatch(new RegExp(`^polish: 2 videos of run ${runId} in \\d+\\.\\d s: ${passedFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(passed\\), .*org\\.polish\\.broken\\.mp4 \\(failed\\)$`));
    const elapsed = (Date.now() - started) / 1000;

    for (const [file, name, steps, ran] of [[passedFile, 'Create an organization', PASSING, 7], [failedFile, 'Create an organization (renamed label)', FAILING, 2]] as const) {
      const p = probe(file);
      const video = p.streams.find((s: Rec) => s.codec_type === 'video');
      const audio = p.streams.find((s: Rec) => s.codec_type === 'audio');
      expect(video).toMatchObject({ codec_name: 'h264', width: RESOLUTION.width, height: RESOLUTION.height, pix_fmt: 'yuv420p' });
      expect(audio).toMatchObject({ codec_name: 'aac' });
      expect(maxVolume(file), 'the narration is audible').toBeGreaterThan(-30);
      // the title is spoken from 0 s; the first step's sentence starts as the title card ends
      // (3 s, or its spoken name + 0.8 s when that is longer)
      const titleEnds = Math.round(Math.max(3, spoken(`${name}.`) + 0.8) * 25) / 25;
      const starts = speechStarts(file);
      expect(starts.some((t) => t >= titleEnds - 0.05 && t < titleEnds + 0.15), `title ends at ${titleEnds}, speech starts at ${starts.join(', ')}`).toBe(true);
      // title (≥ 3 s) + each step that ran, at least as long as its sentence + 0.5 s + result (≥ 3 s);
      // at most that plus the real time of the replay
      const sentences = narrate((steps as Rec[]).map((s) => checkStep(s) as StepData), START).slice(0, ran);
      const floor = 3 + 3 + sentences.reduce((t, s) => t + spoken(s) + 0.5, 0);
      const d = Number(p.format.duration);
      expect(d, file).toBeGreaterThanOrEqual(floor - 0.1);
      expect(d, file).toBeLessThan(floor + elapsed);
    }

    // what is said, as subtitles next to each video: written for people, no URL, no accessible
    // name read as it is, and the run's own time (its result took 6 s), not the slowed-down film's
    const said = cues(passedFile.replace(/\.mp4$/, '.vtt'));
    expect(said).toEqual(['Create an organization.', ...PASSING_SAID, 'Passed. All 7 steps passed in 6 seconds.']);
    const saidFailing = cues(failedFile.replace(/\.mp4$/, '.vtt'));
    expect(saidFailing).toEqual(['Create an organization (renamed label).', 'Click New.', 'Name the organization.', 'Failed at step 2, after 6 seconds.']);
    for (const line of [...said, ...saidFailing]) {
      expect(line).not.toMatch(/https?:|www\.|\/\w|\{\{|for:/);
      expect(line).not.toContain('Search Name');
    }

    // frames to look at: the title card (dark slate), a step with its caption, the result cards
    const title = frame(passedFile, 1.5, 'title-card');
    expect(Math.max(...title.rgb), 'the title card is dark slate').toBeLessThan(90);
    const at = (file: string, text: string) => timedCues(file.replace(/\.mp4$/, '.vtt')).find((c) => c.text === text)!;
    const step = frame(passedFile, at(passedFile, `Fill Name with ${ORG}.`).to - 0.15, 'step-fill-name');
    // after the save: the toast shows above the caption band, not under it
    frame(passedFile, at(passedFile, `Create the organization ${ORG}.`).to - 0.15, 'step-created-toast');
    // the caption is a band under the page, not over it: the bottom 16 % is the band's slate, the
    // page above it is the client's light background
    const band = Math.round((RESOLUTION.height * 0.16) / 2) * 2;
    expect(Math.max(...average(step.file, `crop=${RESOLUTION.width}:${band - 4}:0:${RESOLUTION.height - band + 4}`)), 'the caption band').toBeLessThan(80);
    expect(Math.min(...average(step.file, `crop=${RESOLUTION.width}:${RESOLUTION.height - band - 4}:0:0`)), 'the page above it').toBeGreaterThan(150);
    const passed = frame(passedFile, seconds(passedFile) - 1, 'result-passed');
    expect(passed.rgb[1], 'the passed card is green').toBeGreaterThan(passed.rgb[0] + 40);
    frame(failedFile, at(failedFile, 'Name the organization.').to - 0.15, 'failed-step'); // the failing step's part, before the result card
    const failed = frame(failedFile, seconds(failedFile) - 1, 'result-failed');
    expect(failed.rgb[0], 'the failed card is red').toBeGreaterThan(failed.rgb[1] + 60);

    // the whole file decodes without an error
    execFileSync('ffmpeg', ['-v', 'error', '-i', passedFile, '-f', 'null', '-']);
    // a polish is not a run: nothing new in qa.run
    expect((await kernel.dispatch<{ items: Rec[] }>('fw.search', { model: 'qa.run' }, sys())).items).toHaveLength(1);
  }, LONG);

  it('refuses an unknown run with QA_RUN_NOT_FOUND', async () => {
    const lines: string[] = [];
    expect(await polishFromCli(kernel, { tenant: tenant(), run: '00000000-0000-4000-8000-000000000000', log: (l) => lines.push(l) })).toBe(1);
    expect(lines).toEqual([expect.stringMatching(/^polish failed: QA_RUN_NOT_FOUND: no QA run "00000000-0000-4000-8000-000000000000" in tenant /)]);
    lines.length = 0;
    expect(await polishFromCli(kernel, { tenant: tenant(), run: 'not-a-uuid', log: (l) => lines.push(l) })).toBe(1);
    expect(lines[0]).toMatch(/^polish failed: QA_RUN_NOT_FOUND: /);
  });

  it('refuses with QA_FFMPEG_MISSING naming QA_VIDEO_FFMPEG_PATH when ffmpeg is not there, before any browser starts', async () => {
    const missing = path.join(dataDir, 'no-such-ffmpeg');
    // the same kernel, but QA_VIDEO_FFMPEG_PATH names a file that does not exist
    const settings = { ...kernel.settings, extra: { ...kernel.settings.extra, QA_VIDEO_FFMPEG_PATH: missing } };
    const k = Object.create(kernel, { settings: { value: settings } }) as Kernel;
    const lines: string[] = [];
    const t0 = Date.now();
    expect(await polishFromCli(k, { tenant: tenant(), run: runId, log: (l) => lines.push(l) })).toBe(1);
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('polish failed: QA_FFMPEG_MISSING: ');
    expect(lines[0]).toContain(`QA_VIDEO_FFMPEG_PATH="${missing}" (no such file)`);
  });
});
