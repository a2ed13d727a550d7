import { Link, Navigate, Outlet, useNavigate, useParams, useRouter, useRouterState } from '@tanstack/react-router';
import { PageLoading } from './PageLoading.tsx';
import { Suspense, useEffect, useMemo, useRef, useState } from 'react';
import { Button, Dialog, Menu, MenuItem, MenuTrigger, Modal, ModalOverlay, Popover } from 'react-aria-components';
import { AssistantButton } from '../ai/AssistantButton.tsx';
import { useQueryClient } from '@tanstack/react-query';
import { logout as endSession, request } from '../api/client.ts';
import { graphql } from '../gql/index.ts';
import { useT } from '../i18n/index.tsx';
import { LiveBridge, LiveStatusBanner } from '../live/LiveBridge.tsx';
import { RecorderButton } from '../qa/RecorderButton.tsx';
import { AppIcon } from './AppIcon.tsx';
import { ErrorBoundary } from './ErrorBoundary.tsx';
import { meKey, useBootstrap, useMe, useModels } from './meta.ts';
import { appOfAction, firstAction, menuDepth, orgSlug, visibleApps, type App } from './nav.ts';
import { actionKeyOf, actionSegment } from './search-params.ts';
import { setTheme, useCurrentTheme } from './theme.ts';


export function Shell() {
  return (
    <ErrorBoundary>
      <Suspense fallback={<PageLoading full />}>
        <ShellFrame />
      </Suspense>
    </ErrorBoundary>
  );
}

/** The bootstrap's apps without the entries that open a model the caller cannot read. */
function useApps() {
  const boot = useBootstrap();
  const models = useModels();
  return useMemo(() => visibleApps(boot.apps, boot.actions, (m) => models.has(m)), [boot, models]);
}

/**
 * A link that does not know the reader's organization (one the server posts, like a QA replay's
 * chatter message) uses `-`; once the reader's organization has a slug, the URL gets it.
 */
function useOrgSlugFix(slug: string | undefined, mine: string) {
  const router = useRouter();
  const href = useRouterState({ select: (s) => s.location.href });
  useEffect(() => {
    if (slug !== '-' || mine === '-') return;
    router.history.replace(href.replace(/^\/-(?=\/|\?|#|$)/, `/${encodeURIComponent(mine)}`));
  }, [slug, mine, href, router]);
}

function ShellFrame() {
  const t = useT();
  const apps = useApps();
  const me = useMe();
  const params = useParams({ strict: false }) as { org?: string; action?: string };
  useOrgSlugFix(params.org, orgSlug(me.organization));
  const slug = params.org ?? orgSlug(me.organization);
  // an action no menu opens (a record reached from a line or a link of another record) keeps the
  // sidebar on the app the person came from
  const found = appOfAction(apps, params.action ? actionKeyOf(params.action) : null);
  const last = useRef<App | undefined>(undefined);
  if (found || !params.action) last.current = found;
  const current = found ?? (last.current && apps.some((a) => a.key === last.current!.key) ? last.current : undefined);
  return (
    <div className="shell">
      <a className="skip-link" href="#main">{t('shell.skip')}</a>
      <nav className="sidebar" aria-label={t('shell.apps')}>
        <NavTree apps={apps} current={current} slug={slug} />
      </nav>
      <div className="main-col">
        <header className="topbar">
          <NavDrawer apps={apps} current={current} slug={slug} name={me.name} email={me.email} org={me.organization} orgs={me.organizations} />
          <div className="topbar-title">{current?.name ?? ''}</div>
          <div className="wide-only"><OrganizationSwitcher current={me.organization} organizations={me.organizations} /></div>
          <RecorderButton />
          <AssistantButton />
          <div className="wide-only"><ThemeToggle /></div>
          <div className="wide-only"><UserMenu name={me.name} email={me.email} slug={slug} /></div>
        </header>
        <LiveStatusBanner />
        <main id="main" className="content" tabIndex={-1}>
          <ErrorBoundary>
            <Suspense fallback={<PageLoading />}>
              <Outlet />
            </Suspense>
          </ErrorBoundary>
        </main>
      </div>
      <LiveBridge slug={slug} orgId={me.organization?.id ?? null} />
    </div>
  );
}

/** The apps and, for the current one, its menus: the sidebar's content, and the phone drawer's. */
function NavTree({ apps, current, slug }: { apps: App[]; current: App | undefined; slug: string }) {
  const t = useT();
  return (
    <>
      <Link to="/$org" params={{ org: slug }} className="brand" data-testid="home-link">
        <span className="brand-mark" aria-hidden="true" /> {t('app.name')}
      </Link>
      <ul className="nav-apps">
        {apps.map((app) => {
          const act = firstAction(app);
          return (
            <li key={app.key}>
              {act ? (
                <Link to="/$org/$action" params={{ org: slug, action: actionSegment(act) }} search={{}}
                  className={`nav-app${current?.key === app.key ? ' active' : ''}`} data-testid={`app-${app.key}`}>
                  {app.name}
                </Link>
              ) : <span className="nav-app">{app.name}</span>}
              {current?.key === app.key && app.menus.length > 0 && (
                <ul className="nav-menus">
                  {app.menus.map((m) => (
                    <li key={m.key} style={{ paddingInlineStart: `${menuDepth(app.menus, m) * 0.75}rem` }}>
                      {m.action ? (
                        <Link to="/$org/$action" params={{ org: slug, action: actionSegment(m.action) }} search={{}}
                          activeProps={{ className: 'active', 'aria-current': 'page' }} className="nav-menu" data-testid={`menu-${m.key}`}>
                          {m.name}
                        </Link>
                      ) : <span className="nav-heading">{m.name}</span>}
                    </li>
                  ))}
                </ul>
              )}
            </li>
          );
        })}
      </ul>
    </>
  );
}

/**
 * Below the phone breakpoint the sidebar and the account controls move into a drawer opened from
 * the top bar's menu button: apps and menus, the theme and the account (CSS hides the button on
 * wider screens). Following a link closes it; Escape and a tap outside too (react-aria's modal).
 */
function NavDrawer({ apps, current, slug, name, email, org, orgs }: {
  apps: App[]; current: App | undefined; slug: string; name: string; email: string; org: Org | null | undefined; orgs: readonly Org[];
}) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const href = useRouterState({ select: (s) => s.location.href });
  useEffect(() => { setOpen(false); }, [href]);
  return (
    <>
      <Button className="btn btn-ghost nav-toggle" aria-label={t('shell.menu')} aria-expanded={open} data-testid="nav-toggle" onPress={() => setOpen(true)}>
        <span aria-hidden="true">☰</span>
      </Button>
      <ModalOverlay className="drawer-overlay" isOpen={open} onOpenChange={setOpen} isDismissable>
        <Modal className="drawer">
          <Dialog className="drawer-dialog" aria-label={t('shell.apps')} data-testid="nav-drawer">
            <nav aria-label={t('shell.apps')}>
              <NavTree apps={apps} current={current} slug={slug} />
            </nav>
            <div className="drawer-account">
              <div className="drawer-user"><strong>{name}</strong><span className="muted small">{email}</span></div>
              <OrganizationSwitcher current={org} organizations={orgs} testId="drawer-org-switcher" />
              <ThemeToggle testId="drawer-theme-toggle" />
              <Link to="/$org/preferences" params={{ org: slug }} className="btn" data-testid="drawer-preferences">{t('shell.preferences')}</Link>
              <Button className="btn" data-testid="drawer-logout" onPress={() => void signOut()}>{t('shell.logout')}</Button>
            </div>
          </Dialog>
        </Modal>
      </ModalOverlay>
    </>
  );
}

async function signOut() {
  await endSession(); // the server ends the login; every tab, this one included, reloads at /login (main.tsx)
}

const StoreThemeDocument = graphql(`
  mutation StoreTheme($id: ID!, $theme: ResUserTheme) { resUserSetPreferences(id: $id, theme: $theme) { id } }
`);

/**
 * Light or dark for this browser; when the person stored one of them as their preference, the
 * toggle stores the other one too, or the next sign-in would bring the stored one back. A
 * person who left it to the device keeps a per-browser choice.
 */
function ThemeToggle({ testId = 'theme-toggle' }: { testId?: string }) {
  const t = useT();
  const me = useMe();
  const qc = useQueryClient();
  const theme = useCurrentTheme();
  const next = theme === 'dark' ? 'light' : 'dark';
  const toggle = () => {
    setTheme(next);
    if (me.theme === 'light' || me.theme === 'dark') {
      void request(StoreThemeDocument, { id: me.id, theme: next }).then(() => qc.invalidateQueries({ queryKey: meKey }), () => {});
    }
  };
  return (
    <Button className="btn btn-ghost" data-testid={testId} onPress={toggle}>
      {t(next === 'dark' ? 'shell.theme.dark' : 'shell.theme.light')}
    </Button>
  );
}

type Org = { id: string; name: string; code?: string | null };

/**
 * The organizations the user belongs to, when more than one: choosing another opens its
 * workspace (`/<slug>`), a page load, so every cache and the live connection start in it
 * (docs/security.md#organizations). A user of one organization sees nothing here.
 */
function OrganizationSwitcher({ current, organizations, testId = 'org-switcher' }: { current: Org | null | undefined; organizations: readonly Org[]; testId?: string }) {
  const t = useT();
  if (organizations.length < 2) return null;
  const name = current?.name ?? '';
  return (
    <MenuTrigger>
      <Button className="btn btn-ghost org-button" aria-label={t('shell.organization.switch', { name })} data-testid={testId}>{name} <span aria-hidden="true">▾</span></Button>
      <Popover className="popover">
        <Menu className="menu" aria-label={t('shell.organization')} selectionMode="single" selectedKeys={current ? [current.id] : []}
          onAction={(key) => {
            const org = organizations.find((o) => o.id === key);
            if (org && org.id !== current?.id) window.location.assign(`/${encodeURIComponent(orgSlug(org))}`);
          }}>
          {organizations.map((o) => (
            <MenuItem key={o.id} id={o.id} className="menu-item" data-testid={`org-${orgSlug(o)}`}>{o.name}</MenuItem>
          ))}
        </Menu>
      </Popover>
    </MenuTrigger>
  );
}

function UserMenu({ name, email, slug }: { name: string; email: string; slug: string }) {
  const t = useT();
  const navigate = useNavigate();
  return (
    <MenuTrigger>
      <Button className="btn btn-ghost user-button" aria-label={`${name} (${t('shell.user')})`} data-testid="user-menu">{name}</Button>
      <Popover className="popover">
        <Menu className="menu" onAction={(key) => {
          if (key === 'logout') void signOut();
          if (key === 'preferences') void navigate({ to: '/$org/preferences', params: { org: slug } });
        }}>
          <MenuItem id="email" isDisabled className="menu-item muted">{email}</MenuItem>
          <MenuItem id="preferences" className="menu-item" data-testid="preferences">{t('shell.preferences')}</MenuItem>
          <MenuItem id="logout" className="menu-item" data-testid="logout">{t('shell.logout')}</MenuItem>
        </Menu>
      </Popover>
    </MenuTrigger>
  );
}

/** `/` → the user's organization home. */
export function GoHome() {
  const me = useMe();
  return <Navigate to="/$org" params={{ org: orgSlug(me.organization) }} replace />;
}

export function Home() {
  const t = useT();
  const apps = useApps();
  const { org } = useParams({ strict: false }) as { org: string };
  const navigate = useNavigate();
  return (
    <section className="home">
      <h1>{t('home.title')}</h1>
      {apps.length === 0 && <p>{t('home.empty')}</p>}
      <div className="app-tiles">
        {apps.map((app) => {
          const act = firstAction(app);
          return act ? (
            <Button key={app.key} className="app-tile" data-testid={`tile-${app.key}`}
              onPress={() => navigate({ to: '/$org/$action', params: { org, action: actionSegment(act) }, search: {} })}>
              <AppIcon icon={app.icon} appKey={app.key} name={app.name} />
              <span>{app.name}</span>
            </Button>
          ) : null;
        })}
      </div>
    </section>
  );
}
