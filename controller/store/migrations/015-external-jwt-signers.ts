/**
 * 15: sign-in through an OpenID provider. External JWT signers are documents like the catalogue's; an
 * identity's `externalId` becomes unique among identities that have one (as in OpenZiti), so a token's subject
 * names one identity and two first sign-ins at once create one identity, not two (the index decides). Should
 * an older database hold the same externalId twice, the oldest identity keeps it and the others lose it (they
 * could never have signed in by it: no identity could be told apart). An empty externalId (what ZAC's identity
 * form sends when the field is left blank) is none: it becomes null first.
 */
export const externalJwtSigners = `
CREATE TABLE IF NOT EXISTS external_jwt_signers (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, doc TEXT NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
UPDATE identities SET doc = json_set(doc, '$.externalId', json('null')) WHERE json_extract(doc, '$.externalId') = '';
UPDATE identities SET doc = json_set(doc, '$.externalId', json('null'))
  WHERE json_extract(doc, '$.externalId') IS NOT NULL
    AND EXISTS (SELECT 1 FROM identities older
      WHERE json_extract(older.doc, '$.externalId') = json_extract(identities.doc, '$.externalId')
        AND (older.created_at < identities.created_at
          OR (older.created_at = identities.created_at AND older.id < identities.id)));
CREATE UNIQUE INDEX IF NOT EXISTS identities_external_id_unique ON identities (json_extract(doc, '$.externalId'))
  WHERE json_extract(doc, '$.externalId') IS NOT NULL;
`;
