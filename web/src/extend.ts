/**
 * `@fw/web`: the client API an app's web/ code imports (docs/extend-client.md). Everything an
 * extension may use of fw's client is exported here; an extension imports nothing else of
 * web/src, so fw's client can change behind this module. The rest an extension may import:
 * react, react-dom, react-intl, react-aria-components, @tanstack/react-query, @tanstack/react-router,
 * the project's typed GraphQL documents (`@fw/gql`), and its own files.
 */
import type { WebExtension } from './extensions/install.ts';

export type { WebExtension } from './extensions/install.ts';
export type { ExtensionMessages } from './i18n/index.tsx';
export type { WidgetDef } from './widgets/registry.ts';
export type { DisplayWidget } from './widgets/display.tsx';
export type { InputProps, InputWidget } from './widgets/inputs.tsx';
export type { ViewProps } from './views/registry.ts';
export type { PageProps } from './app/pages.ts';
export type { Action } from './app/nav.ts';
export type { AppViewPlan, FormPlan, KanbanPlan, ListPlan, Plan, PlanButton, SearchPlan } from './app/meta.ts';
export type { FieldInfo, ModelInfo, Models, Row } from './model/records.ts';
export type { Where } from './model/domain.ts';
export type { ViewSearch } from './app/search-params.ts';
export type { FormCustomisation, FormExtensionProps } from './views/form/FormView.tsx';

/**
 * What an app's `web/index.ts(x)` default-exports: its widgets, view components and pages by
 * name (exactly the names its manifest's `web` declares) and its messages. Registered when the
 * app's chunk first loads; a name already registered is refused.
 */
export const defineWebExtension = (ext: WebExtension): WebExtension => ext;

// reading records and running commands: the same typed client fw's views use
export { request } from './api/client.ts';
export { ApiError, fromResponse } from './api/errors.ts';
export { downloadFile, fetchWithToken, uploadFile } from './api/files.ts';
export { createDocument, deleteDocument, displayName, groupDocument, modelOf, oneDocument, orderBy, rowsDocument, selection, updateDocument } from './model/records.ts';
export { recordsKey, useBlock, useCount, useGroups, useInvalidateModel } from './model/useRecords.ts';
export { andWhere, domainToWhere } from './model/domain.ts';
export { pickFile, runCommand } from './views/form/commands.ts';
export { asFields, useBootstrap, useModels } from './app/meta.ts';

// what a screen is made of
export { useAppT, useT } from './i18n/index.tsx';
export { errorMessage } from './app/errors.ts';
export { resultMessage } from './app/result-message.ts';
export { toast } from './app/toast.tsx';
export { actionSegment } from './app/search-params.ts';
export { Display, enumLabel } from './widgets/display.tsx';
export { ControlPanel } from './views/ControlPanel.tsx';
export { Pager } from './views/list/Pager.tsx';
export { default as FormView } from './views/form/FormView.tsx';
