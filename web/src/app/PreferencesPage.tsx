import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { request } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import { graphql } from '../gql/index.ts';
import { useT } from '../i18n/index.tsx';
import { errorMessage, fieldErrorsOf } from './errors.ts';
import { bootstrapKey, meKey, meQuery, planKey, useMe } from './meta.ts';
import { applyPreferences } from './preferences.ts';
import { usePreferencesT } from './preferences-messages.ts';
import { toast } from './toast.tsx';

const SetPreferencesDocument = graphql(`
  mutation SetPreferences($id: ID!, $lang: ResUserLang, $tz: String, $theme: ResUserTheme, $organization: ID) {
    resUserSetPreferences(id: $id, lang: $lang, tz: $tz, theme: $theme, organization: $organization) { id }
  }
`);

/** Each language named in itself, as a person looking for theirs reads it. */
const LANGUAGES = [['en', 'English'], ['fr', 'Français']] as const;
const THEMES = ['system', 'light', 'dark'] as const;
type Lang = typeof LANGUAGES[number][0];
type ThemePref = typeof THEMES[number];
const BROWSER_ZONE = '';
const langOf = (code: string): Lang => LANGUAGES.find(([c]) => c === code)?.[0] ?? 'en';

/**
 * The user's preferences (res.user.set_preferences, docs/web-client.md#languages-and-preferences):
 * language, time zone, theme, default organization. Saved together; a field the server refuses
 * shows its message beside it. Its own chunk, opened from the user menu.
 */
export default function PreferencesPage() {
  const t = useT();
  const pt = usePreferencesT();
  const me = useMe();
  const qc = useQueryClient();
  const [lang, setLang] = useState<Lang>(langOf(me.lang));
  const [tz, setTz] = useState<string>(me.tz ?? BROWSER_ZONE);
  const [theme, setThemePref] = useState<ThemePref>(THEMES.find((v) => v === me.theme) ?? 'system');
  const [organization, setOrganization] = useState<string>(me.default_organization ?? '');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function save(e: React.FormEvent) {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    setError(null);
    try {
      await request(SetPreferencesDocument, { id: me.id, lang, tz, theme, ...(organization ? { organization } : {}) });
      const fresh = await qc.fetchQuery({ ...meQuery, staleTime: 0 });
      qc.setQueryData(meKey, fresh);
      await applyPreferences(fresh.me, theme !== me.theme);
      // menus, view titles and field labels come from the server in the user's language
      // (docs/views.md#translations): the cached plans and bootstrap are of the old one
      if (fresh.me?.lang !== me.lang) {
        qc.removeQueries({ queryKey: planKey });
        await qc.invalidateQueries({ queryKey: bootstrapKey });
      }
      toast(pt('preferences.saved'));
    } catch (err) {
      const fields = err instanceof ApiError ? fieldErrorsOf(t, err) : {};
      if (Object.keys(fields).length) setErrors(fields);
      else setError(errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  }

  const fieldError = (name: string) => errors[name] && <p className="field-error" id={`pref-${name}-error`} role="alert" data-testid={`pref-${name}-error`}>{errors[name]}</p>;
  const described = (name: string) => (errors[name] ? { 'aria-describedby': `pref-${name}-error`, 'aria-invalid': true } : {});
  return (
    <section className="view-form preferences" aria-labelledby="pref-title">
      <h1 id="pref-title" className="view-title">{pt('preferences.title')}</h1>
      <form className="sheet" onSubmit={save} data-testid="preferences-form">
        <div className="field">
          <label className="label" htmlFor="pref-lang">{pt('preferences.lang')}</label>
          <div>
            <select id="pref-lang" className="input" data-testid="pref-lang" value={lang} onChange={(e) => setLang(langOf(e.target.value))} {...described('lang')}>
              {LANGUAGES.map(([code, name]) => <option key={code} value={code} lang={code}>{name}</option>)}
            </select>
            {fieldError('lang')}
          </div>
        </div>
        <div className="field">
          <label className="label" htmlFor="pref-tz">{pt('preferences.tz')}</label>
          <div>
            <TimeZonePicker value={tz} onChange={setTz} invalid={!!errors.tz} />
            <p className="field-help muted small" id="pref-tz-example" data-testid="pref-tz-example">{pt('preferences.tz.example', { example: exampleDate(lang, tz) })}</p>
            {fieldError('tz')}
          </div>
        </div>
        <div className="field">
          <span className="label" id="pref-theme-label">{pt('preferences.theme')}</span>
          <div className="radio-row" role="radiogroup" aria-labelledby="pref-theme-label">
            {THEMES.map((v) => (
              <label key={v} className="radio">
                <input type="radio" name="theme" value={v} checked={theme === v} onChange={() => setThemePref(v)} data-testid={`pref-theme-${v}`} />
                {pt(`preferences.theme.${v}`)}
              </label>
            ))}
          </div>
        </div>
        {me.organizations.length > 0 && (
          <div className="field">
            <label className="label" htmlFor="pref-organization">{pt('preferences.organization')}</label>
            <div>
              <select id="pref-organization" className="input" data-testid="pref-organization" value={organization} onChange={(e) => setOrganization(e.target.value)} aria-describedby="pref-organization-help" {...described('organization')}>
                {me.organizations.map((o) => <option key={o.id} value={o.id}>{o.name}</option>)}
              </select>
              <p className="field-help muted small" id="pref-organization-help">{pt('preferences.organization.help')}</p>
              {fieldError('organization')}
            </div>
          </div>
        )}
        {error && <p className="form-error" role="alert" data-testid="pref-error">{error}</p>}
        <div><button type="submit" className="btn btn-primary" disabled={busy} data-testid="pref-save">{pt('preferences.save')}</button></div>
      </form>
    </section>
  );
}

/** Now, as dates will be shown; while the zone typed is not one yet, in the browser's. */
function exampleDate(lang: string, tz: string): string {
  const format = (timeZone?: string) => new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(new Date());
  try {
    return format(tz || undefined);
  } catch {
    return format();
  }
}

/**
 * Every IANA zone this browser knows, searched as the person types (the input's own list: the
 * browser filters it); empty is "this browser's".
 */
function TimeZonePicker({ value, onChange, invalid }: { value: string; onChange: (tz: string) => void; invalid: boolean }) {
  const pt = usePreferencesT();
  const zones = useMemo(() => Intl.supportedValuesOf('timeZone'), []);
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return (
    <>
      <input id="pref-tz" className="input" list="pref-tz-zones" value={value} data-testid="pref-tz" autoComplete="off" spellCheck={false}
        placeholder={pt('preferences.tz.browser', { zone: browserZone })} aria-invalid={invalid || undefined}
        aria-describedby="pref-tz-example" onChange={(e) => onChange(e.target.value)} />
      <datalist id="pref-tz-zones">{zones.map((z) => <option key={z} value={z} />)}</datalist>
    </>
  );
}
