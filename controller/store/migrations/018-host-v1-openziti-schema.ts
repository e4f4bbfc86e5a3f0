/**
 * 18: the stored `host.v1` schema becomes OpenZiti's own, exactly as its controller stores it
 * (store/openziti-host-v1-schema.ts): unknown fields are refused there, `port` 0 and any non-empty address are
 * accepted, and listenOptions, proxy, address translations and health checks have their shapes. Like
 * migration 13, only the built-in type's schema is replaced, and `updated_at` moves so a compiled validator of
 * the old schema is dropped. (Numbered 20 after the other branches' 18 and 19; its position in MIGRATIONS is
 * what `user_version` counts.)
 */
import { OPENZITI_HOST_V1_SCHEMA } from '../openziti-host-v1-schema.js';

export const hostV1OpenZitiSchema = `
  UPDATE config_types
    SET doc = json_set(doc, '$.schema', json('${JSON.stringify(OPENZITI_HOST_V1_SCHEMA).replace(/'/g, "''")}')),
      updated_at = strftime('%Y-%m-%dT%H:%M:%fZ','now')
    WHERE name = 'host.v1' AND id = 'NH5p4FpGR';
`;
