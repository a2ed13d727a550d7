import { defineModel, f } from '../../src/kernel/declare.js';

/**
 * One row per issued refresh token. Rows of one login share `family_id` (the access token's
 * `sid`): rotation adds a row and retires the old one; reusing a retired token revokes the family.
 * A rotation whose answer never reached the client (the page that sent it was unloaded) may be
 * retried with the same retry key for AUTH_REFRESH_RETRY_SECONDS: the unseen successor is
 * superseded instead of the family being revoked.
 */
export default defineModel({
  key: 'ir.session',
  description: 'Session',
  record_name: 'record_uuid',
  default_order: 'dbid desc',
  fields: {
    user_id: f.uuid({ required: true, index: true, description: "The user's record_uuid" }),
    tenant_id: f.char(100, { required: true }),
    family_id: f.uuid({ required: true, index: true, description: 'Login the token belongs to (access-token sid)' }),
    refresh_token_hash: f.char(64, { required: true, unique: true, private: true, description: 'SHA-256 of the refresh token' }),
    expires_at: f.datetime({ required: true }),
    revoked: f.boolean({ default: false }),
    revoked_reason: f.enum(['rotated', 'logout', 'reuse_detected', 'revoke_all', 'user_inactive', 'user_deleted', 'superseded', 'password_changed', 'max_lifetime']),
    revoked_at: f.datetime(),
    rotation_key_hash: f.char(64, { private: true, description: 'SHA-256 of the retry key sent with the refresh that rotated this token' }),
    replaced_by: f.integer({ private: true, description: 'dbid of the row this token was rotated into' }),
    os: f.char(100),
    browser: f.char(100),
    ip: f.char(64, { description: 'Client address at login' }),
  },
  access: {
    roles: { admin: 'r', '*': 'r' },
    rules: [{ domain: [['user_id', '=', '$principal.user_id']] }],
  },
});
