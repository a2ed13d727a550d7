/**
 * The organization this tab works in: the workspace slug that starts the URL (`/<slug>/…`). Every
 * request of the tab names it (`X-Fw-Organization`, or the `organization` connection parameter of
 * graphql-ws), so two tabs may work in two organizations of the same user at once, and a link to
 * a record of another of the user's organizations opens in it (docs/security.md#organizations).
 * `/`, `/login` and the placeholder `-` name none: the server uses the user's default organization.
 */
const NOT_A_WORKSPACE = new Set(['', '-', 'login']);

export function currentOrganization(): string | null {
  if (typeof location === 'undefined') return null;
  const first = location.pathname.split('/')[1] ?? '';
  return NOT_A_WORKSPACE.has(first) ? null : decodeURIComponent(first);
}

/** The header naming it, for fetch calls. */
export function organizationHeaders(): Record<string, string> {
  const org = currentOrganization();
  return org ? { 'x-fw-organization': org } : {};
}

/**
 * The connection parameter naming it, for graphql-ws. The live hub shares one socket between the
 * tabs of a browser: each organization gets its own channel and leader (live/hub.ts).
 */
export function organizationParams(): Record<string, string> {
  const org = currentOrganization();
  return org ? { organization: org } : {};
}
