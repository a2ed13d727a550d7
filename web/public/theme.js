// The theme before first paint (no flash of the wrong theme). A file, not an inline script: the
// Content-Security-Policy allows scripts from this origin only (src/server/security.ts).
try { var t = localStorage.getItem('fw.theme'); document.documentElement.dataset.theme = t === 'dark' || t === 'light' ? t : (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'); } catch (e) {}
