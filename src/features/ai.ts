import type { FeatureDecl } from '../kernel/modules/loader.js';

/** The AI capability layer is off unless AI_ENABLED is true (the spec's default is false). */
const feature: FeatureDecl = { setting: 'AI_ENABLED', ACTIVE_MODULES: ['ai'] };
export default feature;
