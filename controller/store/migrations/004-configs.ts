/**
 * 4: service configs (OpenZiti's config types and configs). The built-in types keep OpenZiti's own ids, so
 * clients that name them by id work unchanged; their JSON schemas live in `store/builtin-config-types.ts` and are
 * stored here so a listing shows them like any other type.
 */
import { BUILTIN_CONFIG_TYPES } from '../builtin-config-types.js';

const row = (t: (typeof BUILTIN_CONFIG_TYPES)[number]) =>
  `('${t.id}', '${t.name}', '${JSON.stringify({ schema: t.schema, target: 'service', tags: {} }).replace(/'/g, "''")}',
    strftime('%Y-%m-%dT%H:%M:%fZ','now'), strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;

export const configs = `
  CREATE TABLE config_types (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, doc TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
  CREATE TABLE configs (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, doc TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
  INSERT INTO config_types (id, name, doc, created_at, updated_at) VALUES ${BUILTIN_CONFIG_TYPES.map(row).join(', ')};
`;
