/** Services, with their configs (`GET /services?filter=…`; config names from `GET /configs`). */
import { api } from '../../api/client.js';
import type { Config, Service } from '../../api/types.js';
import { DataTable, type Column } from '../../components/data-table.js';
import { Link } from '../../lib/router.js';
import { useList } from '../../lib/use-list.js';
import { useLoad } from '../../lib/use-load.js';

export function ServiceListPage() {
  const list = useList<Service>('services');
  const configs = useLoad(() => api.get<Config[]>('/configs?limit=500').then((a) => a.data), []);
  const configName = (id: string) => configs.value?.find((c) => c.id === id)?.name ?? id;
  const columns: Column<Service>[] = [
    { label: 'Name', sortBy: 'name', render: (s) => <Link to={`/services/${s.id}`}>{s.name}</Link> },
    { label: 'Attributes', render: (s) => s.roleAttributes.map((a) => `#${a}`).join(' ') },
    { label: 'Configs', render: (s) => s.configs.map(configName).join(', ') || '—' },
    { label: 'Updated', sortBy: 'updatedAt', render: (s) => new Date(s.updatedAt).toLocaleString() },
  ];
  return (
    <>
      <div className="page-title">
        <h1>Services</h1>
        <Link className="button" to="/services/new">
          New service
        </Link>
      </div>
      <DataTable list={list} columns={columns} caption="Services" />
    </>
  );
}
