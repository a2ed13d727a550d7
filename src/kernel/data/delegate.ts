import type { DbClient, Delegate } from '../env.js';
import type { ResolvedModel } from '../registry/model.js';

/** The Prisma delegate of a model, found by the registry's name for it. */
export function delegateOf(db: DbClient, model: ResolvedModel): Delegate {
  return (db as unknown as Record<string, Delegate>)[model.names.delegate];
}
