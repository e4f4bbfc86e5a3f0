/** Configs (`GET /configs?filter=…`): what services carry, e.g. the address clients use and where to dial. */
import type { Config } from '../../api/types.js';
import { DataTable, type Column } from '../../components/data-table.js';
import { ValueView } from '../../components/value-view.js';
import { Link } from '../../lib/router.js';
import { useList } from '../../lib/use-list.js';

const COLUMNS: Column<Config>[] = [
  { label: 'Name', sortBy: 'name', render: (c) => <Link to={`/configs/${c.id}`}>{c.name}</Link> },
  { label: 'Type', render: (c) => c.configType.name },
  { label: 'Data', render: (c) => <ValueView value={c.data} /> },
];

export function ConfigListPage() {
  const list = useList<Config>('configs');
  return (
    <>
      <div className="page-title">
        <h1>Configs</h1>
        <Link className="button" to="/configs/new">
          New config
        </Link>
      </div>
      <DataTable list={list} columns={COLUMNS} caption="Configs" />
    </>
  );
}
