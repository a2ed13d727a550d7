/**
 * The narration of polished videos is written for people (issue 32 item 5): a step's caption or
 * a chapter's title when the recorder has one, else a sentence from the step's intent, read in
 * the context of the steps before it ("Create the organization Wayne", "Fill Name with Wayne",
 * "Search for Wayne"), never an accessible name read as it is ("Fill Search Name, Slug for:
 * with Wayne"), never a URL.
 */
import { describe, expect, it } from 'vitest';
import { narrate, pageOf, speakable } from '../../src/apps/qa/polish/intent.ts';
import { stepSentence } from '../../src/apps/qa/polish/narration.ts';
import { spokenSeconds } from '../../src/apps/qa/polish/polish.ts';
import { checkStep, type StepData } from '../../src/apps/qa/steps.ts';

const step = (s: Record<string, unknown>) => checkStep(s);
const LIST = '/default/action-base.action_organizations';
const NEW = `${LIST}/new`;
const REC = `${LIST}/0192f3a4-1111-4222-8333-444455556666`;
const tid = (value: string) => [{ by: 'testid', value }];

/** The organization flow as the recorder stores it (candidates as recorded, no captions). */
const FLOW: StepData[] = [
  step({ kind: 'navigate', value: { kind: 'literal', value: LIST }, url: '/default' }),
  step({ kind: 'fill', target: { candidates: [tid('search-input'), [{ by: 'role', value: 'searchbox', name: 'Search Name, Slug for:', exact: true }]] }, value: { kind: 'literal', value: 'Wayne' }, url: LIST }),
  step({ kind: 'press', target: { candidates: [tid('search-input')] }, value: { kind: 'literal', value: 'Enter' }, url: LIST }),
  step({ kind: 'click', target: { candidates: [tid('new-record'), [{ by: 'role', value: 'link', name: 'New', exact: true }]] }, url: LIST }),
  step({ kind: 'fill', target: { candidates: [tid('input-name'), [{ by: 'role', value: 'textbox', name: 'Name', exact: true }], [{ by: 'label', value: 'Name' }]] }, value: { kind: 'literal', value: 'Wayne' }, url: NEW }),
  step({ kind: 'fill', target: { candidates: [tid('input-country'), [{ by: 'role', value: 'combobox', name: 'Country', exact: true }]] }, value: { kind: 'literal', value: 'Fra' }, url: NEW }),
  step({ kind: 'click', target: { candidates: [[{ by: 'role', value: 'option', name: 'France', exact: true }]] }, url: NEW }),
  step({ kind: 'click', target: { candidates: [tid('form-save'), [{ by: 'role', value: 'button', name: 'Save', exact: true }]] }, url: NEW }),
  step({ kind: 'assert', target: { candidates: [[{ by: 'css', value: 'form[data-testid="form-view"][data-synced]' }, ...tid('input-country')]] }, assertion: { kind: 'value', expected: 'France' }, caption: 'Country shows France after saving', url: REC }),
  step({ kind: 'upload', target: { candidates: [tid('upload-button'), [{ by: 'role', value: 'button', name: 'Upload', exact: true }]] }, value: { kind: 'literal', value: 'brief.pdf' }, url: '/default/action-storage.action_documents' }),
  step({ kind: 'navigate', value: { kind: 'literal', value: 'https://fw.example.com/default/action-storage.action_documents?folder=1' }, url: REC }),
  step({ kind: 'click', target: { candidates: [tid('form-save')] }, url: REC }),
  step({ kind: 'assert', assertion: { kind: 'url', expected: '/default/action-base.action_organizations/*' } }),
  step({ kind: 'chapter', caption: 'Read the report at https://fw.example.com/r/1 and /default/action-x.y' }),
];

describe('narration from intent', () => {
  const lines = narrate(FLOW);

  it('says what each step is for, reading the steps before it: no accessible name read as it is', () => {
    expect(lines).toEqual([
      'Go to the organizations page.',
      'Search for Wayne.',
      'Run the search.',
      'Start a new organization.',
      'Fill Name with Wayne.',
      'Fill Country with Fra.',
      'Pick France.',
      'Create the organization Wayne.',
      'Country shows France after saving.',
      'Upload brief.pdf.',
      'Go to the documents page.',
      'Save the organization.',
      'Check that the right page is open.',
      'Read the report at the page and the page.',
    ]);
  });

  it('never reads a URL, a path or a "for:" fragment aloud, whatever the source (a caption included)', () => {
    for (const l of lines) {
      expect(l).not.toMatch(/https?:|www\.|\/\w|for:/);
      expect(l).toMatch(/^[A-Z].*[.!?…]$/);
    }
    expect(speakable('Fill Search Name, Slug for: with Wayne')).toBe('Fill Search Name, Slug with Wayne.');
    expect(speakable('Open http://127.0.0.1:4000/default/action-base.action_organizations now')).toBe('Open the page now.');
    expect(speakable('see /login')).toBe('See the page.');
    expect(speakable('and/or 1/4')).toBe('And/or 1/4.');
  });

  it('a step on its own (stepSentence) keeps the caption, else says its intent; secrets are never read', () => {
    expect(stepSentence(FLOW[4]!)).toBe('Fill Name with Wayne.');
    expect(stepSentence(step({ kind: 'click', target: { candidates: [tid('form-save')] }, caption: 'Save the new organization' }))).toBe('Save the new organization.');
    expect(stepSentence(step({ kind: 'fill', target: { candidates: [tid('login-password')] }, value: { kind: 'secret', value: 'password' } }))).toBe('Type the password into login password.');
    expect(stepSentence(step({ kind: 'check', target: { candidates: [tid('input-is_active'), [{ by: 'role', value: 'checkbox', name: 'Active' }]] } }))).toBe('Tick Active.');
    expect(stepSentence(step({ kind: 'assert', target: { candidates: [tid('input-is_active')] }, assertion: { kind: 'checked', expected: 'false' } }))).toBe('Check that Is active is not ticked.');
  });

  it('names the record a page shows from its action, in the singular', () => {
    expect(pageOf(NEW)).toEqual({ plural: 'organizations', singular: 'organization', record: 'new' });
    expect(pageOf('/acme/action-crm.action_leads')).toEqual({ plural: 'leads', singular: 'lead', record: null });
    expect(pageOf('/acme/action-base.action_countries/x')).toMatchObject({ singular: 'country' });
    expect(pageOf('/acme')).toBeNull();
  });

  it('reads a run time as people say it', () => {
    expect(spokenSeconds(12.64)).toBe('12.6 seconds');
    expect(spokenSeconds(1)).toBe('1 second');
    expect(spokenSeconds(125.2)).toBe('2 minutes 5 seconds');
  });
});
