/** Posture checks, filtered by type through the API's grammar (`typeId = "MFA"`) and by name. */
import { useState } from 'react';
import { quoted } from '../../api/list-query.js';
import type { PostureCheck } from '../../api/types.js';
import { DataTable, type Column } from '../../components/data-table.js';
import { SelectField } from '../../components/fields.js';
import { Link } from '../../lib/router.js';
import { useList } from '../../lib/use-list.js';
import { CHECK_TYPES, CHECK_TYPE_NAMES } from './check-form-state.js';
import { enforcementText } from './enforcement/enforcement-state.js';

const COLUMNS: Column<PostureCheck>[] = [
  { label: 'Name', sortBy: 'name', render: (c) => <Link to={`/posture-checks/${c.id}`}>{c.name}</Link> },
  {
    label: 'Type',
    sortBy: 'typeId',
    render: (c) => CHECK_TYPE_NAMES[c.typeId as keyof typeof CHECK_TYPE_NAMES] ?? c.typeId,
  },
  { label: 'Attributes', render: (c) => c.roleAttributes.map((a) => `#${a}`).join(' ') },
  { label: 'Advice', render: (c) => c.remediation ?? <span className="hint">none</span> },
  {
    label: 'Enforcement',
    render: (c) => <Link to={`/posture-checks/${c.id}/devices`}>{enforcementText(c.enforcement)}</Link>,
  },
  { label: 'Updated', sortBy: 'updatedAt', render: (c) => new Date(c.updatedAt).toLocaleString() },
];

export function CheckListPage() {
  const [type, setType] = useState('');
  const list = useList<PostureCheck>('posture-checks', type ? { where: `typeId = ${quoted(type)}` } : {});
  return (
    <>
      <div className="page-title">
        <h1>Posture checks</h1>
        <Link className="button" to="/posture-checks/new">
          New posture check
        </Link>
      </div>
      <div className="filters">
        <SelectField
          label="Type"
          name="type-filter"
          value={type}
          options={[
            { value: '', label: 'Every type' },
            ...CHECK_TYPES.map((t) => ({ value: t, label: CHECK_TYPE_NAMES[t] })),
          ]}
          onChange={(next) => {
            setType(next);
            list.setOffset(0);
          }}
        />
      </div>
      <DataTable list={list} columns={COLUMNS} caption="Posture checks" />
    </>
  );
}
