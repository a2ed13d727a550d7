/**
 * The icon of an app tile, by the menu's `icon` name: a small line drawing for the names the
 * platform's apps use, else the app's first letter on a colour derived from its key, so no two
 * tiles look alike. Decorative: the tile's text names the app.
 */
const PATHS: Record<string, string> = {
  // a page with a folded corner and lines
  documents: 'M6 3h8l5 5v13H6z M14 3v5h5 M9 13h7 M9 17h7',
  // two people
  crm: 'M9 11a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7z M2.5 20c.5-4 3-6 6.5-6s6 2 6.5 6 M16 4.5a3.2 3.2 0 0 1 0 6.2 M18 14c2 .6 3.3 2.6 3.5 6',
  // a checked box
  qa: 'M4 4h16v16H4z M8 12l3 3 5-6',
  // a gear
  settings: 'M12 15a3 3 0 1 0 0-6 3 3 0 0 0 0 6z M12 2v3 M12 19v3 M4.9 4.9l2.1 2.1 M17 17l2.1 2.1 M2 12h3 M19 12h3 M4.9 19.1 7 17 M17 7l2.1-2.1',
  // a plug
  connectors: 'M9 2v6 M15 2v6 M6 8h12v3a6 6 0 0 1-12 0z M12 17v5',
  // a spark
  ai: 'M12 3l2 6 6 2-6 2-2 6-2-6-6-2 6-2z M19 3v4 M17 5h4',
};

/** Hues far apart for the drawn icons, so the platform's apps never look alike side by side. */
const HUES: Record<string, number> = { crm: 145, documents: 210, qa: 30, settings: 265, connectors: 330, ai: 295 };

/** A hue from the key (a string hash), so an app keeps its colour across sessions. */
export function hueOf(key: string): number {
  let h = 0;
  for (const ch of key) h = (h * 31 + ch.codePointAt(0)!) % 360;
  return h;
}

export function AppIcon({ icon, appKey, name }: { icon: string | null | undefined; appKey: string; name: string }) {
  const path = icon ? PATHS[icon] : undefined;
  const style = { '--app-hue': String(icon && path ? HUES[icon] ?? hueOf(icon) : hueOf(appKey)) } as React.CSSProperties;
  if (path) {
    return (
      <span className={`app-icon app-icon-drawn icon-${icon}`} style={style} aria-hidden="true" data-icon={icon}>
        <svg viewBox="0 0 24 24" width="24" height="24" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" focusable="false">
          <path d={path} />
        </svg>
      </span>
    );
  }
  return (
    <span className="app-icon app-icon-letter" style={style} aria-hidden="true" data-icon={`letter-${appKey}`}>
      {[...name.trim()][0]?.toUpperCase() ?? '?'}
    </span>
  );
}
