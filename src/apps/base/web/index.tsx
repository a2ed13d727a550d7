import { defineWebExtension, useAppT, useBootstrap, type DisplayWidget, type InputWidget } from '@fw/web';
import './base.css';
import { messages } from './messages.ts';

/** The groups the active apps declare, from the bootstrap (label, description, what each implies), in the user's language. */
function useGroups() {
  return useBootstrap().groups;
}

const asList = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/**
 * `widget="base.groups"` on res.user.groups: one checkbox per declared group, with its description;
 * a group another checked one implies is shown as included, so an administrator sees what the
 * user will hold without checking it twice.
 */
const GroupsInput: InputWidget = (p) => <GroupsChecklist {...p} />;

function GroupsChecklist(p: Parameters<InputWidget>[0]) {
  const t = useAppT<typeof messages>();
  const groups = useGroups();
  const value = asList(p.value);
  const implied = new Set(groups.filter((g) => value.includes(g.name)).flatMap((g) => closure(groups, g.name)).filter((n) => !value.includes(n)));
  const toggle = (name: string, on: boolean) => p.onChange(on ? [...value, name] : value.filter((v) => v !== name));
  return (
    <div role="group" id={p.id} aria-describedby={p.describedBy} aria-invalid={p.invalid || undefined} aria-label={p.ariaLabel}
      className="base-groups" data-testid={p.testId ?? `input-${p.field.name}`} onBlur={p.onBlur}>
      {groups.map((g) => (
        <label key={g.name} className="base-group" data-testid={`group-${g.name}`}>
          <input type="checkbox" className="check" checked={value.includes(g.name)} disabled={p.disabled} onChange={(e) => toggle(g.name, e.target.checked)} />
          <span className="base-group-text">
            <span className="base-group-label">{g.label}</span>
            {implied.has(g.name) && <span className="badge">{t('base.groups.included')}</span>}
            {g.description && <span className="muted base-group-description">{g.description}</span>}
          </span>
        </label>
      ))}
    </div>
  );
}

/** Every group `name` implies, transitively (not itself). */
function closure(groups: ReadonlyArray<{ name: string; implies: readonly string[] }>, name: string, seen = new Set<string>()): string[] {
  for (const i of groups.find((g) => g.name === name)?.implies ?? []) {
    if (seen.has(i)) continue;
    seen.add(i);
    closure(groups, i, seen);
  }
  return [...seen];
}

function GroupLabels({ value }: { value: unknown }) {
  const groups = useGroups();
  const names = asList(value);
  if (!names.length) return <span className="muted">—</span>;
  return <span data-testid="base-groups">{names.map((n) => groups.find((g) => g.name === n)?.label ?? n).join(', ')}</span>;
}

/** The labels of the user's groups, in lists and read-only forms. */
const GroupsDisplay: DisplayWidget = ({ value }) => <GroupLabels value={value} />;

export default defineWebExtension({ widgets: { 'base.groups': { display: GroupsDisplay, input: GroupsInput } }, messages });
