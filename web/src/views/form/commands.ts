import { request } from '../../api/client.ts';
import { graphql } from '../../gql/index.ts';
import type { PlanButton } from '../../app/meta.ts';

/**
 * Header and sheet buttons name commands of the registry; the client cannot know their argument
 * types ahead, so it sends them through the command bus mutation with the record's id.
 */
export const CommandDocument = graphql(`
  mutation RunCommand($name: String!, $payload: JSON) { command(name: $name, payload: $payload) }
`);

export async function runCommand(name: string, payload: Record<string, unknown>): Promise<unknown> {
  return (await request(CommandDocument, { name, payload })).command;
}

/** The spec's file_upload payload: base64 without the data-URL prefix, name and MIME type. */
export async function filePayload(file: File): Promise<{ file_content: string; file_name: string; file_mime: string }> {
  const buf = new Uint8Array(await file.arrayBuffer());
  let bin = '';
  for (let i = 0; i < buf.length; i += 0x8000) bin += String.fromCharCode(...buf.subarray(i, i + 0x8000));
  return { file_content: btoa(bin), file_name: file.name, file_mime: file.type || 'application/octet-stream' };
}

/** Opens a file picker; resolves null when the person cancels it (then nothing is dispatched). */
export function pickFile(accept: string | null | undefined): Promise<File | null> {
  return new Promise((resolve) => {
    const input = document.createElement('input');
    input.type = 'file';
    if (accept) input.accept = accept;
    input.dataset.testid = 'file-picker';
    input.style.display = 'none';
    document.body.append(input);
    const done = (f: File | null) => { input.remove(); resolve(f); };
    input.addEventListener('change', () => done(input.files?.[0] ?? null), { once: true });
    input.addEventListener('cancel', () => done(null), { once: true });
    input.click();
  });
}

export const isFileButton = (b: PlanButton) => b.special === 'file_upload';
