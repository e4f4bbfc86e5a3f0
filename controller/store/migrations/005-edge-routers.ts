/**
 * 5: edge routers and the two policies that decide which routers an identity and a service may use. A fresh
 * controller (and an existing one, upgraded) gets OpenZiti's usual defaults: every identity and every service
 * may use every router, so one router needs no extra setup.
 */
const now = `strftime('%Y-%m-%dT%H:%M:%fZ','now')`;

export const edgeRouters = `
  CREATE TABLE edge_routers (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, doc TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
  CREATE TABLE edge_router_policies (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, doc TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
  CREATE TABLE service_edge_router_policies (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, doc TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
  INSERT INTO edge_router_policies (id, name, doc, created_at, updated_at) VALUES ('all-identities-all-routers',
    'all-identities-all-routers',
    '{"semantic":"AnyOf","identityRoles":["#all"],"edgeRouterRoles":["#all"],"tags":{}}', ${now}, ${now});
  INSERT INTO service_edge_router_policies (id, name, doc, created_at, updated_at) VALUES ('all-services-all-routers',
    'all-services-all-routers',
    '{"semantic":"AnyOf","serviceRoles":["#all"],"edgeRouterRoles":["#all"],"tags":{}}', ${now}, ${now});
`;
