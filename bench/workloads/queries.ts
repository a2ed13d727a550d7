/** The operations of workloads 1–4 (and the yoga floor), exactly as the issue words them. */

export const GQL_LIST = 'query { resOrganizations(limit: 50) { id name code country { code name } } }';
export const GQL_LIST_BODY = JSON.stringify({ query: GQL_LIST });

export const GQL_READ = 'query Read($id: ID!) { resOrganization(id: $id) { id name code country { code name } } }';
export const GQL_CREATE = 'mutation Create($input: ResOrganizationCreateInput!) { resOrganizationCreate(input: $input) { id name code country { code name } } }';

export const REST_LIST = '/api/data/res.organization?limit=50';

/** Workload 8: the same list at another page size. */
export const gqlListOf = (limit: number) => `query { resOrganizations(limit: ${limit}) { id name code country { code name } } }`;
