/** The example user domain: listed in ACTIVE_DOMAINS as `crm`, it boots these apps. */
export default { ACTIVE_MODULES: ['crm.sales'] };
