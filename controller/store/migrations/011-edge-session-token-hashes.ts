/**
 * 11: edge sessions keep only the SHA-256 of their token (lowercase hex), as routers always have. The tokens
 * stored so far are hashed in place, so sessions and their live tunnels survive the upgrade: routers already
 * know them by these hashes. Their tokens cannot be handed out again (a token is now derived from the session
 * id under the master key, platform/keys/session-tokens.ts): the next `POST /sessions` for one gives it a
 * derived token and its hash (`setTokenHash`). `postern_sha256` is registered by store/database.ts.
 */
export const edgeSessionTokenHashes = `
  UPDATE edge_sessions SET token = postern_sha256(token);
  ALTER TABLE edge_sessions RENAME COLUMN token TO token_hash;
`;
