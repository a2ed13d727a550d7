import type { FeatureDecl } from '../kernel/modules/loader.js';

/** QA automation is off unless ENABLE_QA_AUTOMATION is true (the spec's default is false). */
const feature: FeatureDecl = { setting: 'ENABLE_QA_AUTOMATION', ACTIVE_MODULES: ['qa'] };
export default feature;
