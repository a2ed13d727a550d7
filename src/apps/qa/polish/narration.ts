import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { FwError } from '../../../kernel/errors.js';
import type { LocatorChain, StepData } from '../steps.js';

const run = promisify(execFile);

/**
 * What a step's target is called, in words: the first accessible name, label, placeholder, text,
 * title or alt text among its candidates (in their order), else its test id made readable
 * (`new-record` → "new record"), else "the element".
 */
export function targetName(step: StepData): string | null {
  const candidates: LocatorChain[] = step.target?.candidates ?? [];
  if (!candidates.length) return null;
  for (const chain of candidates) {
    for (const s of [...chain].reverse()) {
      if (s.by === 'role' && s.name) return s.name;
      if (['label', 'placeholder', 'text', 'title', 'alt'].includes(s.by)) return s.value;
    }
  }
  for (const chain of candidates) {
    const id = [...chain].reverse().find((s) => s.by === 'testid');
    if (id) return humanize(id.value);
  }
  const role = candidates[0]!.find((s) => s.by === 'role');
  return role ? `the ${role.value}` : 'the element';
}

/** `list-new` → `list new`, `org_name` → `org name`, `saveButton` → `save button`. */
function humanize(id: string): string {
  return id.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[-_.]+/g, ' ').trim().toLowerCase() || id;
}

function valueWords(step: StepData): string {
  const v = step.value;
  if (!v) return '';
  if (v.kind === 'secret') return 'the secret';
  if (v.kind === 'variable') return `the ${humanize(v.value)} value`;
  // `{{org}}` inside a literal is read as "org"
  const text = v.value.replace(/\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}/gi, '$1');
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

const quoteless = (s: string) => s.replace(/\s+/g, ' ').trim();
const sentence = (s: string) => {
  const t = quoteless(s);
  if (!t) return t;
  const capital = t[0]!.toUpperCase() + t.slice(1);
  return /[.!?…]$/.test(capital) ? capital : `${capital}.`;
};

/**
 * The one sentence narrating a step: its caption when it has one, else a sentence made from the
 * step ("Click Save.", "Fill Name with Acme."). Secrets are never read out.
 */
export function stepSentence(step: StepData): string {
  if (step.caption && step.caption.trim()) return sentence(step.caption);
  const what = targetName(step) ?? 'the page';
  const value = valueWords(step);
  switch (step.kind) {
    case 'navigate': return sentence(`Open ${value || 'the page'}`);
    case 'click': return sentence(`Click ${what}`);
    case 'fill': return sentence(step.value?.kind === 'secret' ? `Type the secret into ${what}` : value ? `Fill ${what} with ${value}` : `Clear ${what}`);
    case 'press': return sentence(step.target ? `Press ${value} in ${what}` : `Press ${value}`);
    case 'select': return sentence(`Select ${value} in ${what}`);
    case 'check': return sentence(`Check ${what}`);
    case 'uncheck': return sentence(`Uncheck ${what}`);
    case 'upload': return sentence(`Upload ${value} to ${what}`);
    case 'hover': return sentence(`Hover over ${what}`);
    case 'wait': {
      const ms = Number(step.value?.value ?? step.timeout_ms ?? 0);
      return sentence(ms >= 1000 ? `Wait ${+(ms / 1000).toFixed(1)} seconds` : 'Wait a moment');
    }
    case 'chapter': return sentence(value || 'Next part');
    case 'assert': {
      const a = step.assertion;
      const expected = a?.expected === undefined ? '' : String(a.expected);
      switch (a?.kind) {
        case 'hidden': return sentence(`Check that ${what} is hidden`);
        case 'text': return sentence(`Check that ${what} reads ${expected}`);
        case 'contains_text': return sentence(`Check that ${what} contains ${expected}`);
        case 'value': return sentence(`Check that ${what} holds ${expected}`);
        case 'url': return sentence(`Check that the address is ${expected}`);
        case 'count': return sentence(`Check that there are ${expected} of ${what}`);
        case 'checked': return sentence(`Check that ${what} is checked`);
        case 'enabled': return sentence(`Check that ${what} is enabled`);
        case 'disabled': return sentence(`Check that ${what} is disabled`);
        default: return sentence(`Check that ${what} is visible`);
      }
    }
    default: return sentence(`Do ${String(step.kind)}`);
  }
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
