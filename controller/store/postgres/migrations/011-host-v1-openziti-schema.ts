/**
 * 11: the stored `host.v1` schema becomes OpenZiti's own (SQLite's migration 18 says why); only the schema in
 * the built-in type's document is replaced.
 */
import { OPENZITI_HOST_V1_SCHEMA } from '../../openziti-host-v1-schema.js';

export const hostV1OpenZitiSchema = `
UPDATE config_types
  SET doc = jsonb_set(doc, '{schema}', '${JSON.stringify(OPENZITI_HOST_V1_SCHEMA).replace(/'/g, "''")}'::jsonb),
    updated_at = to_iso_timestamp(now())
  WHERE name = 'host.v1' AND id = 'NH5p4FpGR';
`;
