import { Conflict, FwError, NotFound, UniqueViolation, ValidationError } from '../errors.js';
import type { ResolvedModel } from '../registry/model.js';

interface PrismaLikeError {
  code?: string;
  meta?: {
    target?: string[] | string;
    modelName?: string;
    driverAdapterError?: { cause?: { kind?: string; constraint?: { fields?: string[]; index?: string } } };
  };
}

/**
 * Turns a database error of a write on `model` into our error classes. Known Prisma codes:
 * P2002 unique, P2003 foreign key, P2025 record to update/delete not found.
 */
export function mapDbError(model: ResolvedModel, opts: { op?: 'write' | 'delete'; onMissing?: () => FwError } = {}) {
  const { op = 'write', onMissing } = opts;
  return (err: unknown): never => {
    const e = err as PrismaLikeError;
    const cause = e.meta?.driverAdapterError?.cause;
    if (e.code === 'P2002' || cause?.kind === 'UniqueConstraintViolation') {
      const target = e.meta?.target ?? cause?.constraint?.fields ?? [];
      throw new UniqueViolation(model.key, (Array.isArray(target) ? target : [target]).map(String));
    }
    if (e.code === 'P2003' || cause?.kind === 'ForeignKeyConstraintViolation') {
      if (op === 'delete') {
        throw new Conflict(`${model.key}: other records still refer to this one`, { model: model.key }, 'RECORD_REFERENCED');
      }
      throw new ValidationError(`${model.key}: a referenced record does not exist`, { model: model.key }, 'INVALID_REFERENCE');
    }
    if (e.code === 'P2025') throw onMissing ? onMissing() : new NotFound(`${model.key}: record not found`, { model: model.key }, 'RECORD_NOT_FOUND');
    if (e.code === 'P2000') throw new ValidationError(`${model.key}: a value is too long for its column`, { model: model.key }, 'TOO_LONG');
    throw err;
  };
}
