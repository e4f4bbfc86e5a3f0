/**
 * 10: the identity list sorted by type or creation time reads the first page from an index instead of parsing
 * and sorting every document (the console sorts its identities page by any column; at 10,000 identities an
 * unindexed sort by type took 40 times as long as by name). The expressions are exactly those the filter
 * compiler writes (store/sqlite/document-filter.ts), or SQLite would not use them; `id` last, as every list's
 * tie-breaker.
 */
export const identitySortIndexes = `
CREATE INDEX identities_by_created ON identities (created_at, id);
CREATE INDEX identities_by_type ON identities (json_extract(doc, '$.type'), id);
`;
