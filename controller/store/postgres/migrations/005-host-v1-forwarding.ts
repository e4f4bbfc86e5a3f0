/**
 * 5: the stored `host.v1` schema becomes OpenZiti's whole one, with forwarding (SQLite's migration 13 says
 * why); only the schema in the built-in type's document is replaced.
 */
import { HOST_V1_SCHEMA } from '../../builtin-config-types.js';

export const hostV1Forwarding = `
UPDATE config_types
  SET doc = jsonb_set(doc, '{schema}', '${JSON.stringify(HOST_V1_SCHEMA).replace(/'/g, "''")}'::jsonb),
    updated_at = to_iso_timestamp(now())
  WHERE name = 'host.v1' AND id = 'NH5p4FpGR';
`;
