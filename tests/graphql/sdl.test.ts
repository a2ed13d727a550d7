/**
 * The committed SDL (generated/schema.graphql, read by codegen and schema explorers) is the
 * printed schema of the default configuration: any registry change must regenerate it
 * (`npm run fw -- generate`).
 */
import fs from 'node:fs';
import { expect, it } from 'vitest';
import { projectLayout } from '../../src/kernel/modules/loader.ts';
import { featuresSdlPath, printDefaultSdl, printFeaturesSdl, sdlPath } from '../../src/server/graphql/sdl.ts';

it('generated/schema.graphql equals the SDL compiled from the registry (no drift)', async () => {
  const layout = projectLayout();
  const committed = fs.readFileSync(sdlPath(layout), 'utf8');
  const compiled = await printDefaultSdl(layout);
  // compare line by line first so a drift shows as a readable diff
  expect(compiled.split('\n')).toEqual(committed.split('\n'));
  expect(compiled).toBe(committed);
});

it('generated/schema.features.graphql (every feature on; the web client is typed against it) does not drift either', async () => {
  const layout = projectLayout();
  const compiled = await printFeaturesSdl(layout);
  expect(compiled.split('\n')).toEqual(fs.readFileSync(featuresSdlPath(layout), 'utf8').split('\n'));
  expect(compiled).toMatch(/aiConversationEvents\(\s+"""Conversation id"""\s+id: ID!\s+\): AiConversationEvent!/);
  expect(await printDefaultSdl(layout)).not.toContain('aiConversation');
});

it('the compiled default SDL has the generic operations, commands and subscriptions of the default models', async () => {
  const sdl = await printDefaultSdl(projectLayout());
  for (const field of ['resOrganization(id: ID!)', 'resOrganizations(', 'resOrganizationsConnection(', 'resOrganizationCount(',
    'resOrganizationGroupBy(', 'resOrganizationCreate(', 'resOrganizationUpdate(', 'resOrganizationDelete(',
    'resOrganizationCreateMany(', 'resOrganizationUpdateMany(', 'resOrganizationDeleteMany(', 'resUserRegister(',
    'resOrganizationChanged', 'clientReload', 'command(name: String!, payload: JSON): JSON']) {
    expect(sdl).toContain(field);
  }
});

it('commands that declare an output answer typed objects, not JSON', async () => {
  const sdl = await printDefaultSdl(projectLayout());
  for (const field of ['login(email: String!, password: String!): AuthTokens', 'refresh(refresh_token: String!, retry_key: String): AuthTokens',
    'logout: LogoutResult', 'me: Me', 'presentationBootstrap: Bootstrap', 'presentationListViews: ViewList',
    'presentationGetViewPlan(view_id: String!): ViewPlan', 'interface ViewPlan {', 'type FormPlan implements ViewPlan {',
    'nodes: [FormNode!]!', 'models: [ModelInfo!]!', 'menus: [BootstrapMenu!]!', 'actions: [BootstrapAction!]!']) {
    expect(sdl).toContain(field);
  }
});
