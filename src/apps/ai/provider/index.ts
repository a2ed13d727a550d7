export * from './types.js';
export * from './errors.js';
export { parseToolArguments, type ParsedArguments } from './arguments.js';
export {
  createOpenAiCompatibleProvider,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  type MaxTokensField,
  type OpenAiCompatibleOptions,
} from './openai-compatible.js';
