import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { FwError } from '../../../kernel/errors.js';
import type { Size } from './cards.js';
import { ffprobeOf } from './narration.js';

const run = promisify(execFile);

/** Frame rate of the capture and of the video. */
export const FPS = 25;

export interface Toolchain {
  ffmpeg: string;
  ffprobe: string;
  /** `libx264` (H.264) when this ffmpeg has it, else `mpeg4` (MPEG-4 part 2). */
  videoEncoder: 'libx264' | 'mpeg4';
}

const missing = (ffmpeg: string, why: string) => new FwError('QA_FFMPEG_MISSING', 500,
  `ffmpeg is not usable at QA_VIDEO_FFMPEG_PATH="${ffmpeg}" (${why}): install Debian's ffmpeg (apt-get install -y ffmpeg) or point QA_VIDEO_FFMPEG_PATH at it`,
  { QA_VIDEO_FFMPEG_PATH: ffmpeg });

/**
 * The configured ffmpeg (QA_VIDEO_FFMPEG_PATH) and its ffprobe, and the encoders to use. Throws
 * QA_FFMPEG_MISSING naming the setting when either binary cannot run.
 */
export async function findToolchain(ffmpeg: string): Promise<Toolchain> {
  let encoders: string;
  try {
    encoders = (await run(ffmpeg, ['-hide_banner', '-encoders'], { maxBuffer: 8 * 1024 * 1024 })).stdout;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw missing(ffmpeg, e.code === 'ENOENT' ? 'no such file' : e.code === 'EACCES' ? 'not executable' : `it failed: ${String(e.message).split('\n')[0]}`);
  }
  if (!/\bmjpeg\b/.test(encoders) && !/\bmpeg4\b/.test(encoders)) throw missing(ffmpeg, 'it does not look like ffmpeg: no encoder list');
  const ffprobe = ffprobeOf(ffmpeg);
  try {
    await run(ffprobe, ['-version']);
  } catch {
    throw missing(ffmpeg, `its ffprobe (${ffprobe}) does not run`);
  }
  if (!/^\s*A\S*\s+aac\s/m.test(encoders)) throw missing(ffmpeg, 'it has no AAC encoder');
  return { ffmpeg, ffprobe, videoEncoder: /^\s*V\S*\s+libx264\s/m.test(encoders) ? 'libx264' : 'mpeg4' };
}

/** Runs ffmpeg to completion; a failure carries the end of its log. */
async function ffmpegRun(ffmpeg: string, args: string[]): Promise<void> {
  try {
    await run(ffmpeg, ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', ...args], { maxBuffer: 4 * 1024 * 1024 });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`ffmpeg failed: ${(e.stderr || e.message).trim().slice(-1500)}`);
  }
}

/**
 * Streams a page's screencast (playwright-core's `page.screencast`, JPEG frames) into ffmpeg at a
 * constant frame rate: the latest frame is written once per frame slot of the wall clock, so the
 * capture's timeline is the replay's (Chromium sends frames only when the page changes). ffmpeg
 * stream-copies the JPEGs into a Matroska file (no encoding while the replay runs: the browser
 * keeps the CPU). Memory stays flat: repeated slots write the same Buffer again, and nothing but
 * the latest frame is kept.
 */
export class ScreencastCapture {
  private latest: Buffer | null = null;
  private written = 0;
  private readonly t0 = performance.now();
  private readonly timer: NodeJS.Timeout;
  private stderr = '';
  private failed: Error | null = null;
  private readonly closed: Promise<number | null>;

  private constructor(private readonly page: Page, private readonly proc: ChildProcess, readonly file: string) {
    proc.stderr!.on('data', (d: Buffer) => { this.stderr = (this.stderr + d.toString()).slice(-4000); });
    proc.stdin!.on('error', (err) => { this.failed ??= err; });
    this.closed = new Promise((resolve) => {
      proc.on('error', (err) => { this.failed ??= err; resolve(null); });
      proc.on('close', (code) => resolve(code));
    });
    this.timer = setInterval(() => this.pump(), 1000 / FPS);
  }

  static async start(page: Page, o: { ffmpeg: string; file: string; size: Size }): Promise<ScreencastCapture> {
    const proc = spawn(o.ffmpeg, ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'image2pipe', '-framerate', String(FPS), '-c:v', 'mjpeg', '-i', 'pipe:0',
      '-c:v', 'copy', o.file], { stdio: ['pipe', 'ignore', 'pipe'] });
    const cap = new ScreencastCapture(page, proc, o.file);
    try {
      await page.screencast.start({ size: o.size, quality: 85, onFrame: ({ data }) => cap.frame(data) });
    } catch (err) {
      clearInterval(cap.timer);
      proc.kill('SIGKILL');
      throw err;
    }
    return cap;
  }

  /** Seconds since the capture started: step marks on the capture's timeline. */
  now(): number {
    return (performance.now() - this.t0) / 1000;
  }

  private frame(data: Buffer): void {
    this.pump(); // the slots up to now still showed the previous frame
    this.latest = data;
  }

  private pump(): void {
    if (!this.latest || this.failed) return;
    const due = Math.floor(this.now() * FPS);
    // the slots a frame did not fill (before the first frame, or while the event loop was busy)
    // get the latest frame: the same Buffer, no copy
    while (this.written < due) {
      this.proc.stdin!.write(this.latest);
      this.written++;
    }
  }

  /** Stops the screencast and waits for ffmpeg; returns the capture's length in seconds. */
  async stop(): Promise<{ seconds: number; frames: number }> {
    await this.page.screencast.stop().catch(() => {});
    if (!this.latest) this.latest = await this.page.screenshot({ type: 'jpeg', quality: 85 }).catch(() => null);
    this.pump();
    if (this.written === 0 && this.latest) { this.proc.stdin!.write(this.latest); this.written = 1; }
    clearInterval(this.timer);
    this.proc.stdin!.end();
    const code = await this.closed;
    if (this.failed || code !== 0) throw new Error(`ffmpeg could not record the screencast (${this.failed?.message ?? `exit ${String(code)}`}): ${this.stderr.trim().slice(-800)}`);
    return { seconds: this.written / FPS, frames: this.written };
  }

  /** Ends ffmpeg without waiting for a clean file (on errors). */
  abort(): void {
    clearInterval(this.timer);
    this.proc.kill('SIGKILL');
  }
}

/** One part of the timeline: a still card or a window of the capture, with its narration. */
export type Segment = { label?: string; /** what is said (and shown) in it: its subtitle */ text?: string } & (
  | { kind: 'card'; image: string; narration: string | null; seconds: number }
  | { kind: 'capture'; from: number; to: number; caption: string | null; narration: string | null; seconds: number });

export interface ComposeInput {
  tools: Toolchain;
  size: Size;
  /** The screencast capture (Matroska, MJPEG at FPS). */
  capture: string;
  segments: Segment[];
  out: string;
  /** A scratch folder for the parts (the caller removes it). */
  work: string;
  /**
   * Pixels at the bottom of the frame kept for the caption band: the capture (filmed at the
   * frame's width and its height less the band) is placed above it, so a caption hides nothing
   * of the page (a toast, the control being used). 0: the capture fills the frame.
   */
  band?: number;
}

/** The caption band's colour (cards.ts draws the band in it, ffmpeg pads the frame with it). */
export const BAND_COLOUR = '0x0f172a';

/** Frames of a segment: its seconds rounded to whole frames (at least one). */
export const framesOf = (seconds: number) => Math.max(1, Math.round(seconds * FPS));

/** Segments encoded by one ffmpeg: bounds its open inputs (two per step) on long use cases. */
const SEGMENTS_PER_PART = 24;

function videoArgs(t: Toolchain): string[] {
  return t.videoEncoder === 'libx264'
    ? ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-profile:v', 'high', '-pix_fmt', 'yuv420p', '-g', String(FPS * 2), '-r', String(FPS)]
    : ['-c:v', 'mpeg4', '-q:v', '4', '-pix_fmt', 'yuv420p', '-g', String(FPS * 2), '-r', String(FPS)];
}

// ---------------------------------------------------------------------------------------------
// the narration track: built here as PCM, sample-exact against the frame counts

/** The narration track's format: espeak-ng's own (22.05 kHz, mono, 16 bit), so its clips are copied as they are. */
const TRACK = { rate: 22_050, channels: 1, bits: 16 } as const;
const SAMPLES_PER_FRAME = TRACK.rate / FPS; // 882

interface Wav { rate: number; channels: number; bits: number; format: number; data: Buffer }

/** The PCM of a RIFF/WAVE file (its `fmt ` and `data` chunks). */
export function readWav(file: string): Wav {
  const buf = fs.readFileSync(file);
  if (buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') throw new Error(`${file} is not a WAVE file`);
  let at = 12;
  let fmt: Omit<Wav, 'data'> | null = null;
  while (at + 8 <= buf.length) {
    const id = buf.toString('ascii', at, at + 4);
    let size = buf.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === 'fmt ') fmt = { format: buf.readUInt16LE(body), channels: buf.readUInt16LE(body + 2), rate: buf.readUInt32LE(body + 4), bits: buf.readUInt16LE(body + 14) };
    if (id === 'data') {
      if (!fmt) break;
      // a size of 0 or past the end: a stream that was not finalised, the data runs to the end
      if (size === 0 || body + size > buf.length) size = buf.length - body;
      return { ...fmt, data: buf.subarray(body, body + size) };
    }
    at = body + size + (size % 2);
  }
  throw new Error(`${file} has no PCM data`);
}

function wavHeader(dataBytes: number): Buffer {
  const h = Buffer.alloc(44);
  const blockAlign = TRACK.channels * TRACK.bits / 8;
  h.write('RIFF', 0, 'ascii'); h.writeUInt32LE(36 + dataBytes, 4); h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii'); h.writeUInt32LE(16, 16); h.writeUInt16LE(1, 20); h.writeUInt16LE(TRACK.channels, 22);
  h.writeUInt32LE(TRACK.rate, 24); h.writeUInt32LE(TRACK.rate * blockAlign, 28); h.writeUInt16LE(blockAlign, 32); h.writeUInt16LE(TRACK.bits, 34);
  h.write('data', 36, 'ascii'); h.writeUInt32LE(dataBytes, 40);
  return h;
}

/**
 * Writes the narration track: per segment its clip, then silence up to exactly the segment's
 * frame count. Written clip by clip (one clip in memory at a time). A clip in another format
 * than espeak-ng's is converted with ffmpeg first.
 */
export async function writeNarrationTrack(tools: Toolchain, segments: Segment[], file: string, work: string): Promise<void> {
  const bytesPerSample = TRACK.channels * TRACK.bits / 8;
  const total = segments.reduce((n, s) => n + framesOf(s.seconds) * SAMPLES_PER_FRAME, 0) * bytesPerSample;
  const silence = Buffer.alloc(64 * 1024);
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, wavHeader(total));
    for (const [i, s] of segments.entries()) {
      let left = framesOf(s.seconds) * SAMPLES_PER_FRAME * bytesPerSample;
      if (s.narration) {
        let wav = readWav(s.narration);
        if (wav.format !== 1 || wav.rate !== TRACK.rate || wav.channels !== TRACK.channels || wav.bits !== TRACK.bits) {
          const converted = path.join(work, `narration-${i}.wav`);
          await ffmpegRun(tools.ffmpeg, ['-i', s.narration, '-ar', String(TRACK.rate), '-ac', String(TRACK.channels), '-c:a', 'pcm_s16le', converted]);
          wav = readWav(converted);
        }
        const take = wav.data.subarray(0, Math.min(wav.data.length - (wav.data.length % bytesPerSample), left));
        fs.writeSync(fd, take);
        left -= take.length;
      }
      while (left > 0) {
        const n = Math.min(left, silence.length);
        fs.writeSync(fd, silence, 0, n);
        left -= n;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

// ---------------------------------------------------------------------------------------------

/**
 * One ffmpeg for a run of segments: every card and capture window is an input of its own (the
 * card's PNG; the capture opened at the window with `-ss`/`-t`; the caption PNG), fitted to the
 * frame size, cut to exactly its frame count (`trim=end_frame`; a card repeats its one frame, a capture
 * window shorter than its sentence holds its last frame: `tpad` clone) and joined with the `concat` filter. The concat
 * filter pulls one input after the other, so only the current window is being decoded.
 */
async function encodePart(c: ComposeInput, segments: Segment[], out: string): Promise<void> {
  const { size } = c;
  const fit = `scale=${size.width}:${size.height}:force_original_aspect_ratio=decrease,pad=${size.width}:${size.height}:(ow-iw)/2:(oh-ih)/2:color=white,setsar=1`;
  // the page above the caption band, never under it
  const pageHeight = size.height - (c.band ?? 0);
  const fitPage = `scale=${size.width}:${pageHeight}:force_original_aspect_ratio=decrease,pad=${size.width}:${size.height}:(ow-iw)/2:0:color=${BAND_COLOUR},setsar=1`;
  const inputs: string[] = [];
  const graph: string[] = [];
  let n = 0;
  for (const [j, s] of segments.entries()) {
    const frames = framesOf(s.seconds);
    const cut = `trim=end_frame=${frames},setpts=PTS-STARTPTS,format=yuv420p[v${j}]`;
    if (s.kind === 'card') {
      // decoded and scaled once, then the same frame repeated
      inputs.push('-i', s.image);
      graph.push(`[${n++}:v]${fit},fps=${FPS},tpad=stop=-1:stop_mode=clone,${cut}`);
    } else {
      const from = Math.max(0, Math.floor(s.from * FPS) / FPS);
      const length = Math.max(1 / FPS, s.to - from);
      inputs.push('-ss', from.toFixed(3), '-t', length.toFixed(3), '-i', c.capture);
      const video = n++;
      const base = `[${video}:v]fps=${FPS},${fitPage},tpad=stop=-1:stop_mode=clone`;
      if (s.caption) {
        inputs.push('-i', s.caption);
        graph.push(`${base}[b${j}]`, `[b${j}][${n++}:v]overlay=0:0:eof_action=repeat,${cut}`);
      } else {
        graph.push(`${base},${cut}`);
      }
    }
  }
  graph.push(`${segments.map((_, j) => `[v${j}]`).join('')}concat=n=${segments.length}:v=1:a=0[v]`);
  await ffmpegRun(c.tools.ffmpeg, [...inputs, '-filter_complex', graph.join(';'), '-map', '[v]', '-an', ...videoArgs(c.tools), out]);
}

/**
 * The video: the segments encoded in parts (one ffmpeg per SEGMENTS_PER_PART segments), the
 * narration track written as PCM with exactly the same length, then both muxed into the MP4
 * (video stream-copied through the concat demuxer, audio encoded once to AAC). Memory stays
 * small whatever the length of the run. Returns the video's length in seconds.
 */
export async function composeVideo(c: ComposeInput): Promise<number> {
  const total = c.segments.reduce((t, s) => t + framesOf(s.seconds), 0) / FPS;
  const narration = path.join(c.work, 'narration.wav');
  await writeNarrationTrack(c.tools, c.segments, narration, c.work);
  const parts: string[] = [];
  for (let i = 0; i < c.segments.length; i += SEGMENTS_PER_PART) {
    const part = path.join(c.work, `part-${String(parts.length).padStart(3, '0')}.mp4`);
    await encodePart(c, c.segments.slice(i, i + SEGMENTS_PER_PART), part);
    parts.push(`file '${part.replace(/'/g, "'\\''")}'`);
  }
  const list = path.join(c.work, 'parts.txt');
  fs.writeFileSync(list, `ffconcat version 1.0\n${parts.join('\n')}\n`);
  fs.mkdirSync(path.dirname(c.out), { recursive: true });
  const tmp = `${c.out}.part.mp4`;
  try {
    await ffmpegRun(c.tools.ffmpeg, ['-f', 'concat', '-safe', '0', '-i', list, '-i', narration, '-map', '0:v:0', '-map', '1:a:0',
      '-c:v', 'copy', '-c:a', 'aac', '-b:a', '128k', '-ac', '2', '-ar', '44100', '-t', total.toFixed(3), '-movflags', '+faststart', tmp]);
    fs.renameSync(tmp, c.out); // a reader never sees half a video
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  return total;
}

export interface ProbeResult { seconds: number; width: number | null; height: number | null; video: string | null; audio: string | null; pixFmt: string | null }

/** ffprobe's view of a video: length, frame size, codecs. */
export async function probeVideo(ffprobe: string, file: string): Promise<ProbeResult> {
  const { stdout } = await run(ffprobe, ['-v', 'error', '-show_entries', 'format=duration:stream=codec_type,codec_name,width,height,pix_fmt', '-of', 'json', file]);
  const j = JSON.parse(stdout) as { format?: { duration?: string }; streams?: Array<{ codec_type: string; codec_name: string; width?: number; height?: number; pix_fmt?: string }> };
  const v = j.streams?.find((s) => s.codec_type === 'video');
  const a = j.streams?.find((s) => s.codec_type === 'audio');
  return { seconds: Number(j.format?.duration ?? NaN), width: v?.width ?? null, height: v?.height ?? null, video: v?.codec_name ?? null, audio: a?.codec_name ?? null, pixFmt: v?.pix_fmt ?? null };
}

const vttTime = (frames: number) => {
  const ms = Math.round((frames / FPS) * 1000);
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const sec = (ms % 60_000) / 1000;
  return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${sec.toFixed(3).padStart(6, '0')}`;
};

/**
 * The narration as WebVTT subtitles, one cue per segment with a text, timed on the same frame
 * counts as the video: a player shows them, a reader (or a test) reads what is said.
 */
export function webVtt(segments: Segment[]): string {
  const cues: string[] = [];
  let at = 0;
  for (const s of segments) {
    const frames = framesOf(s.seconds);
    if (s.text) cues.push(`${vttTime(at)} --> ${vttTime(at + frames)}\n${s.text.replace(/-->/g, '->').replace(/\n+/g, ' ')}`);
    at += frames;
  }
  return `WEBVTT\n\n${cues.join('\n\n')}\n`;
}
