import { defineModel, f } from '../../src/kernel/declare.js';

/** Per-user daily ceilings on top of the tenant budget (0 = no ceiling of that kind). */
export default defineModel({
  key: 'ai.user.quota',
  description: 'AI user quota',
  fields: {
    user_id: f.uuid({ required: true, unique: true }),
    daily_usd: f.float({ default: 0, description: 'Daily spend ceiling (USD)' }),
    daily_writes: f.integer({ default: 0, description: 'Daily confirmed AI writes' }),
  },
  access: {
    roles: { admin: 'crud', '*': 'r' },
    rules: [{ domain: [['user_id', '=', '$principal.user_id']] }],
  },
});
