import { FwError } from '../../kernel/errors.js';

type Details = Record<string, unknown>;

/** The AI rows of the spec's "Errors" table, each with a stable code and status. */
export class BudgetExceeded extends FwError {
  constructor(message: string, details?: Details) { super('BUDGET_EXCEEDED', 429, message, details); }
}
export class PiiBlocked extends FwError {
  constructor(message: string, details?: Details) { super('AI_PII_BLOCKED', 422, message, details); }
}
export class InjectionDetected extends FwError {
  constructor(message: string, details?: Details) { super('AI_INJECTION_DETECTED', 422, message, details); }
}
export class SafetyRuleBlocked extends FwError {
  constructor(message: string, details?: Details) { super('AI_SAFETY_RULE_BLOCKED', 422, message, details); }
}
export class WriteNotAllowed extends FwError {
  constructor(message: string, details?: Details) { super('AI_WRITE_NOT_ALLOWED', 403, message, details); }
}
export class WriteCapReached extends FwError {
  constructor(message: string, details?: Details) { super('AI_WRITE_CAP_REACHED', 429, message, details); }
}
export class ResidencyRefused extends FwError {
  constructor(message: string, details?: Details) { super('AI_RESIDENCY_REFUSED', 403, message, details); }
}
export class ProviderNotAllowed extends FwError {
  constructor(message: string, details?: Details) { super('AI_PROVIDER_NOT_ALLOWED', 403, message, details); }
}
export class ProviderNotConfigured extends FwError {
  constructor(message: string, details?: Details) { super('AI_PROVIDER_NOT_CONFIGURED', 409, message, details); }
}
export class ConfirmationInvalid extends FwError {
  constructor(message = 'this confirmation token is unknown', details?: Details) { super('AI_CONFIRMATION_INVALID', 404, message, details); }
}
export class ConfirmationExpired extends FwError {
  constructor(message: string, details?: Details) { super('AI_CONFIRMATION_EXPIRED', 410, message, details); }
}
export class ConfirmationUsed extends FwError {
  constructor(message = 'this confirmation token was already used', details?: Details) { super('AI_CONFIRMATION_USED', 409, message, details); }
}
export class UndoConflict extends FwError {
  constructor(message: string, details?: Details) { super('AI_UNDO_CONFLICT', 409, message, details); }
}
export class ProviderUrlNotAllowed extends FwError {
  constructor(message: string, details?: Details) { super('AI_PROVIDER_URL_NOT_ALLOWED', 403, message, details); }
}
export class ProviderKeyRequired extends FwError {
  constructor(message: string, details?: Details) { super('AI_PROVIDER_KEY_REQUIRED', 409, message, details); }
}
export class MessageTooLong extends FwError {
  constructor(message: string, details?: Details) { super('AI_MESSAGE_TOO_LONG', 413, message, details); }
}
