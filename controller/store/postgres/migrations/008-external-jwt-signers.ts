/**
 * 8: sign-in through an OpenID provider: external JWT signers, and a unique `externalId` among identities
 * (SQLite's migration 18 says why, and what happens to duplicates an older database holds).
 */
export const externalJwtSigners = `
CREATE TABLE external_jwt_signers (id text COLLATE "C" PRIMARY KEY, name text COLLATE "C" NOT NULL UNIQUE,
  doc jsonb NOT NULL, created_at iso_timestamp NOT NULL, updated_at iso_timestamp NOT NULL);
UPDATE identities SET doc = jsonb_set(doc, '{externalId}', 'null'::jsonb) WHERE doc->>'externalId' = '';
UPDATE identities SET doc = jsonb_set(doc, '{externalId}', 'null'::jsonb)
  WHERE doc->>'externalId' IS NOT NULL
    AND EXISTS (SELECT 1 FROM identities older
      WHERE older.doc->>'externalId' = identities.doc->>'externalId'
        AND (older.created_at < identities.created_at
          OR (older.created_at = identities.created_at AND older.id < identities.id)));
CREATE UNIQUE INDEX identities_external_id_unique ON identities (((doc->>'externalId') COLLATE "C"))
  WHERE doc->>'externalId' IS NOT NULL;
`;
