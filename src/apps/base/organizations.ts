import type { HookContext } from '../../kernel/app.js';
import { countReferences, referencedError } from '../../kernel/data/references.js';
import { Conflict } from '../../kernel/errors.js';
import { DEFAULT_ORG_CODE } from './seed.js';

/**
 * An organization is deleted only once nothing belongs to it any more. Whatever refers to it,
 * through any Reference of any active app (documents, folders, connectors, users, leads, …),
 * refuses the delete with 409 RECORD_REFERENCED naming the models and counts: the database
 * would otherwise cascade rows whose files stay on disk (a cascade runs no hooks) and detach
 * users, who then create records for an organization that no longer exists. The seeded default
 * organization is never deleted: every tenant has it and the base seed finds it by its code.
 */
export async function beforeOrganizationDelete(ctx: HookContext): Promise<void> {
  const org = ctx.before!;
  const model = ctx.env.registry.model('res.organization');
  if (org.code === DEFAULT_ORG_CODE) {
    throw new Conflict(`the default organization ("${DEFAULT_ORG_CODE}") is created with every tenant and cannot be deleted`,
      { model: model.key, id: org.id, code: org.code }, 'ORGANIZATION_PROTECTED');
  }
  const refs = await countReferences(ctx.env, model, org.id as string, ['restrict', 'cascade', 'set null']);
  if (refs.length) throw referencedError(model, org, refs, 'delete them or move them to another organization first');
}
