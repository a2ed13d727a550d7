import path from 'node:path';
import { BootError } from '../../../kernel/errors.js';
import { perSettings, type Settings } from '../../../kernel/settings.js';
import { storageSettings } from '../../storage/settings.js';
import { FolderNotAllowedError } from '../errors.js';
import { connectorSettings } from '../settings.js';

/**
 * Where a local storage connector may keep its files. Its folder is entered by an administrator
 * of a tenant, who is not the operator of the deployment: without a rule, a connection test
 * tells whether any folder of the server can be written (it writes and removes a probe file
 * there), and uploads land wherever the process may write. So in production the folder must be
 * STORAGE_LOCAL_ROOT or inside it, or inside a folder the operator lists in CONNECTOR_LOCAL_ROOTS.
 * Outside production any folder is allowed, as every address is for the network
 * (services/network.ts).
 *
 * Paths are compared after `path.resolve` (`..` cannot climb out); symbolic links inside an
 * allowed folder are the operator's and are followed.
 */
export interface FolderPolicy {
  /** The folder, resolved; FolderNotAllowedError (naming the setting) when it is not allowed. */
  check(folder: string): string;
}

const inside = (base: string, folder: string): boolean => {
  const rel = path.relative(base, folder);
  return rel === '' || (rel.split(path.sep)[0] !== '..' && !path.isAbsolute(rel));
};

export function folderPolicy(settings: Pick<Settings, 'NODE_ENV'> & { STORAGE_LOCAL_ROOT: string; CONNECTOR_LOCAL_ROOTS: readonly string[] }): FolderPolicy {
  for (const entry of settings.CONNECTOR_LOCAL_ROOTS) {
    if (!path.isAbsolute(entry)) throw new BootError(`CONNECTOR_LOCAL_ROOTS entry "${entry}" is not an absolute path`, { entry }, 'CONNECTOR_SETTINGS_INVALID');
  }
  const open = settings.NODE_ENV !== 'production';
  const bases = [settings.STORAGE_LOCAL_ROOT, ...settings.CONNECTOR_LOCAL_ROOTS].map((b) => path.resolve(b));
  return {
    check(folder) {
      const resolved = path.resolve(folder);
      if (open || bases.some((b) => inside(b, resolved))) return resolved;
      throw new FolderNotAllowedError(
        `a local connector may not use the folder ${resolved}: it is outside STORAGE_LOCAL_ROOT (${bases[0]}); the operator lists other folders in CONNECTOR_LOCAL_ROOTS`,
        { folder: resolved },
      );
    },
  };
}

/** The deployment's folder policy, built once per settings object (a relative CONNECTOR_LOCAL_ROOTS entry: BootError). */
export const connectorFolders = perSettings((settings): FolderPolicy => folderPolicy({
  NODE_ENV: settings.NODE_ENV,
  STORAGE_LOCAL_ROOT: storageSettings(settings).STORAGE_LOCAL_ROOT,
  CONNECTOR_LOCAL_ROOTS: connectorSettings(settings).CONNECTOR_LOCAL_ROOTS,
}));
