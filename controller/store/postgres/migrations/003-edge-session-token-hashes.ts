/**
 * 3: edge sessions keep only the SHA-256 of their token (lowercase hex), as SQLite's migration 11 does: the
 * tokens stored so far are hashed in place (routers already know them by these hashes), and the column is
 * renamed to say what it holds.
 */
export const edgeSessionTokenHashes = `
  UPDATE edge_sessions SET token = encode(sha256(convert_to(token, 'UTF8')), 'hex');
  ALTER TABLE edge_sessions RENAME COLUMN token TO token_hash;
`;
