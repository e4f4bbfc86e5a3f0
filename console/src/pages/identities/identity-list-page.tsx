/** Identities: searched, sorted and paged by the API (`GET /identities?filter=…`). */
import type { Identity } from '../../api/types.js';
import { DataTable, type Column } from '../../components/data-table.js';
import { Badge } from '../../components/status.js';
import { Link } from '../../lib/router.js';
import { useList } from '../../lib/use-list.js';

const COLUMNS: Column<Identity>[] = [
  { label: 'Name', sortBy: 'name', render: (i) => <Link to={`/identities/${i.id}`}>{i.name}</Link> },
  { label: 'Type', sortBy: 'type', render: (i) => i.typeId + (i.isAdmin ? ' · admin' : '') },
  { label: 'Attributes', render: (i) => i.roleAttributes.map((a) => `#${a}`).join(' ') },
  {
    label: 'MFA',
    render: (i) => (i.isMfaEnabled ? <Badge tone="granted">on</Badge> : <Badge tone="checking">off</Badge>),
  },
  { label: 'Signed in', render: (i) => (i.hasApiSession ? 'yes' : 'no') },
  { label: 'Created', sortBy: 'createdAt', render: (i) => new Date(i.createdAt).toLocaleDateString() },
];

export function IdentityListPage() {
  const list = useList<Identity>('identities');
  return (
    <>
      <div className="page-title">
        <h1>Identities</h1>
        <Link className="button" to="/identities/new">
          New identity
        </Link>
      </div>
      <DataTable list={list} columns={COLUMNS} caption="Identities" />
    </>
  );
}
