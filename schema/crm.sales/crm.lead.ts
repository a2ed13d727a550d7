import { defineModel, f } from 'fw/declare';

export default defineModel({
  key: 'crm.lead',
  description: 'Lead',
  record_name: 'name',
  default_order: 'expected_revenue desc',
  name_search_fields: ['name', 'email'],
  fields: {
    name: f.char(200, { required: true }),
    email: f.char(255),
    stage: f.enum(['new', 'qualified', 'won', 'lost'], { default: 'new' }),
    expected_revenue: f.integer({ default: 0, min: 0 }),
    probability: f.float({ description: 'Win probability (0–1)' }),
    notes: f.text(),
    closed_at: f.datetime(),
    organization: f.reference('res.organization', { on_delete: 'cascade' }),
    country: f.reference('res.country'),
    salesperson: f.reference('res.user'),
  },
  access: {
    roles: { admin: 'crud', user: 'cru' },
    rules: [{ domain: [['organization', '=', '$principal.organization_id']] }],
  },
});
