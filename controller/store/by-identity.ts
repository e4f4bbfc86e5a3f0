/**
 * The answer of a by-many-identities read (`listByIdentities`, `listOutstandingByIdentities`), one list per
 * identity: what a per-identity read would have answered each, read once for a whole page.
 */
export function byIdentity<T extends { identityId: string }>(rows: readonly T[]): Map<string, T[]> {
  const lists = new Map<string, T[]>();
  for (const row of rows) {
    const list = lists.get(row.identityId);
    if (list) list.push(row);
    else lists.set(row.identityId, [row]);
  }
  return lists;
}
