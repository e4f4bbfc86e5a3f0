/** Service policies (`GET /service-policies?filter=…`): who may Dial or Bind what, under which checks. */
import type { ServicePolicy } from '../../api/types.js';
import { DataTable, type Column } from '../../components/data-table.js';
import { RolesView } from '../../components/value-view.js';
import { Link } from '../../lib/router.js';
import { useList } from '../../lib/use-list.js';

const COLUMNS: Column<ServicePolicy>[] = [
  { label: 'Name', sortBy: 'name', render: (p) => <Link to={`/service-policies/${p.id}`}>{p.name}</Link> },
  { label: 'Type', sortBy: 'type', render: (p) => `${p.type}, ${p.semantic}` },
  {
    label: 'Identities',
    render: (p) => <RolesView roles={p.identityRoles} display={p.identityRolesDisplay} />,
  },
  { label: 'Services', render: (p) => <RolesView roles={p.serviceRoles} display={p.serviceRolesDisplay} /> },
  {
    label: 'Posture checks',
    render: (p) => <RolesView roles={p.postureCheckRoles} display={p.postureCheckRolesDisplay} />,
  },
];

export function PolicyListPage() {
  const list = useList<ServicePolicy>('service-policies');
  return (
    <>
      <div className="page-title">
        <h1>Service policies</h1>
        <Link className="button" to="/service-policies/new">
          New service policy
        </Link>
      </div>
      <DataTable list={list} columns={COLUMNS} caption="Service policies" />
    </>
  );
}
