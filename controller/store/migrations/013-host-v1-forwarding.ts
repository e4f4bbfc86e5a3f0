/**
 * 13: the stored `host.v1` schema becomes OpenZiti's whole one: forwardProtocol/forwardAddress/forwardPort with
 * their allowed lists (store/builtin-config-types.ts). A built-in type cannot be edited through the API, so its
 * document is the one migration 4 wrote: only the schema is replaced, and `updated_at` moves so a compiled
 * validator of the old schema is dropped.
 */
import { HOST_V1_SCHEMA } from '../builtin-config-types.js';

export const hostV1Forwarding = `
  UPDATE config_types
    SET doc = json_set(doc, '$.schema', json('${JSON.stringify(HOST_V1_SCHEMA).replace(/'/g, "''")}')),
      updated_at = strftime('%Y-%m-%dT%H:%M:%fZ','now')
    WHERE name = 'host.v1' AND id = 'NH5p4FpGR';
`;
