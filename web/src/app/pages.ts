import type { ComponentType } from 'react';
import { DuplicateNameError } from '../widgets/registry.ts';
import type { Action } from './nav.ts';

/** What a page receives: the action that opened it (its name, model, domain) and the organization slug. */
export interface PageProps { action: Action; org: string }

/**
 * Whole screens apps register by name (`registerPage('acme.dashboard', …)`), opened by an action
 * whose `view_id` names the page (the bootstrap's `actions[].page`). fw itself has none.
 */
const pages = new Map<string, ComponentType<PageProps>>();

export function registerPage(name: string, page: ComponentType<PageProps>): void {
  if (pages.has(name)) throw new DuplicateNameError('page', name);
  pages.set(name, page);
}

export const pageComponent = (name: string): ComponentType<PageProps> | undefined => pages.get(name);
export const pageNames = (): string[] => [...pages.keys()].sort();
