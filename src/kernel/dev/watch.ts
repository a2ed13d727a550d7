import fs from 'node:fs';
import path from 'node:path';

/**
 * Watches every folder of a tree, one non-recursive watcher per folder. Node 20's recursive
 * watcher on Linux follows files, and loses a file an editor (or `sed -i`) replaces by renaming a
 * new one over it; a folder's watcher reports that rename under the file's name. Folders created
 * later are watched as they appear. Returns a function that stops every watcher.
 */
export function watchTree(root: string, onChange: (file: string) => void, skip: (dir: string) => boolean = () => false): () => void {
  const watchers = new Map<string, fs.FSWatcher>();
  const add = (dir: string): void => {
    if (watchers.has(dir) || skip(dir)) return;
    let w: fs.FSWatcher;
    try {
      w = fs.watch(dir, (_event, name) => {
        if (!name) return;
        const file = path.join(dir, name.toString());
        if (isDir(file)) add(file);
        onChange(file);
      });
    } catch {
      return; // gone already
    }
    w.on('error', () => {
      w.close();
      watchers.delete(dir);
    });
    watchers.set(dir, w);
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) add(path.join(dir, e.name));
  };
  if (fs.existsSync(root)) add(root);
  return () => {
    for (const w of watchers.values()) w.close();
    watchers.clear();
  };
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
