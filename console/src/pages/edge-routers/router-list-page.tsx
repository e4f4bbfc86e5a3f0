/** Edge routers with their state and enrollment (`GET /edge-routers?filter=…`). */
import type { EdgeRouter } from '../../api/types.js';
import { DataTable, type Column } from '../../components/data-table.js';
import { Badge, When } from '../../components/status.js';
import { Link } from '../../lib/router.js';
import { useList } from '../../lib/use-list.js';

export function enrollmentState(r: EdgeRouter) {
  if (r.enrollmentExpiresAt) {
    return (
      <>
        token pending, expires <When at={r.enrollmentExpiresAt} />
      </>
    );
  }
  return r.isVerified ? 'enrolled' : 'not enrolled';
}

const COLUMNS: Column<EdgeRouter>[] = [
  { label: 'Name', sortBy: 'name', render: (r) => <Link to={`/edge-routers/${r.id}`}>{r.name}</Link> },
  {
    label: 'Online',
    render: (r) =>
      r.isOnline ? <Badge tone="granted">online</Badge> : <Badge tone="checking">offline</Badge>,
  },
  { label: 'Enrollment', render: enrollmentState },
  { label: 'Address', render: (r) => r.hostname || '—' },
  { label: 'Attributes', render: (r) => r.roleAttributes.map((a) => `#${a}`).join(' ') },
];

export function RouterListPage() {
  const list = useList<EdgeRouter>('edge-routers');
  return (
    <>
      <div className="page-title">
        <h1>Edge routers</h1>
        <Link className="button" to="/edge-routers/new">
          New edge router
        </Link>
      </div>
      <DataTable list={list} columns={COLUMNS} caption="Edge routers" />
    </>
  );
}
