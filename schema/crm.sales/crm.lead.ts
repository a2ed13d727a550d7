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
    // when the salesperson expects to close: what the leads' calendar (crm_lead_calendar.xml) lays out
    date_deadline: f.datetime({ description: 'Expected closing' }),
    // a new lead belongs to the organization its creator works in unless they name another of theirs
    organization: f.reference('res.organization', { on_delete: 'cascade', default_principal: 'organization_id' }),
    country: f.reference('res.country'),
    salesperson: f.reference('res.user'),
  },
  access: {
    roles: { admin: 'crud', user: 'cru' },
    // read in the organization the user works in; written in any organization they belong to, so a
    // lead can be moved to another of theirs, never to one they do not belong to
    rules: [
      { ops: ['read'], domain: [['organization', '=', '$principal.organization_id']] },
      { ops: ['create', 'update', 'delete'], domain: [['organization', 'in', '$principal.organization_ids']] },
    ],
  },
});
