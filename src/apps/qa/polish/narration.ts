import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { FwError } from '../../../kernel/errors.js';
import type { StepData } from '../steps.js';
import { sentenceAt } from './intent.js';

const run = promisify(execFile);

/**
 * The one sentence narrating a step on its own: its caption when it has one, else a sentence
 * made from its intent (intent.ts). A video narrates a use case with `narrate(steps)`, which
 * also reads the steps before each one ("Create the organization Wayne").
 */
export function stepSentence(step: StepData): string {
  return sentenceAt([step], 0);
}

export interface Clip { text: string; file: string; seconds: number }

/** Where espeak-ng is (the `ESPEAK_NG_PATH` environment variable, else `espeak-ng` on the PATH). */
export const espeakBinary = () => process.env.ESPEAK_NG_PATH || 'espeak-ng';

/** ffprobe next to the configured ffmpeg (Debian ships them together). */
export function ffprobeOf(ffmpeg: string): string {
  const dir = path.dirname(ffmpeg);
  const base = path.basename(ffmpeg).replace(/ffmpeg/, 'ffprobe');
  return dir === '.' && !ffmpeg.includes('/') ? base : path.join(dir, base);
}

/** The duration of a media file in seconds, read with ffprobe. */
export async function mediaSeconds(ffprobe: string, file: string): Promise<number> {
  const { stdout } = await run(ffprobe, ['-v', 'error', '-show_entries', 'format=duration', '-of', 'default=nw=1:nk=1', file]);
  const s = Number(stdout.trim());
  if (!Number.isFinite(s)) throw new Error(`ffprobe could not read the duration of ${file}`);
  return s;
}

/**
 * Speaks `text` with espeak-ng (US English, 160 words a minute) into `<dir>/<name>.wav` and
 * returns the clip with its duration. The text goes through a file (`-f`), never a shell or an
 * argument espeak could read as an option.
 */
export async function speak(text: string, dir: string, name: string, ffprobe: string): Promise<Clip> {
  const txt = path.join(dir, `${name}.txt`);
  const file = path.join(dir, `${name}.wav`);
  fs.writeFileSync(txt, text);
  try {
    await run(espeakBinary(), ['-v', 'en-us', '-s', '160', '-w', file, '-f', txt]);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new FwError('QA_ESPEAK_MISSING', 500, `espeak-ng was not found (${espeakBinary()}): install it (apt-get install -y espeak-ng) or set ESPEAK_NG_PATH`);
    }
    throw err;
  }
  return { text, file, seconds: await mediaSeconds(ffprobe, file) };
}
