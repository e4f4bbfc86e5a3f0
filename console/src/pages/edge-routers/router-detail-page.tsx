/**
 * One edge router, or a new one. Its one-time enrollment token exists in clear only in the answer that issues
 * it (create, or `POST /edge-routers/<id>/re-enroll`), so it is shown right then, with its QR code and the
 * command that enrolls a standalone router.
 */
import { useState } from 'react';
import { api } from '../../api/client.js';
import type { EdgeRouter, RouterEnrollment } from '../../api/types.js';
import { CheckboxField, TextField, attributesOf } from '../../components/fields.js';
import { FormFooter } from '../../components/form-footer.js';
import { QrImage } from '../../components/qr-image.js';
import { ErrorNote, Loading, When } from '../../components/status.js';
import { fieldErrorsOf, messageFor } from '../../lib/field-errors.js';
import { Link } from '../../lib/router.js';
import { useEntityEditor, type EntityEditor } from '../../lib/use-entity-editor.js';
import { enrollmentState } from './router-list-page.js';

const CLAIMED = ['name', 'roleAttributes', 'disabled'];

export function RouterDetailPage({ id }: { id: string | undefined }) {
  const editor = useEntityEditor<EdgeRouter>('edge-routers', id);
  const [issued, setIssued] = useState<RouterEnrollment | null>(null);
  if (!id) return issued ? <IssuedToken enrollment={issued} /> : <NewRouter onCreated={setIssued} />;
  if (!editor.existing.value) {
    return editor.existing.error ? (
      <ErrorNote error={editor.existing.error} />
    ) : (
      <Loading what="the router" />
    );
  }
  return (
    <>
      <RouterForm editor={editor} initial={editor.existing.value} />
      <Reenroll
        router={editor.existing.value}
        onIssued={(enrollment) => {
          setIssued(enrollment);
          editor.existing.reload();
        }}
      />
      {issued && <IssuedToken enrollment={issued} />}
    </>
  );
}

function NewRouter({ onCreated }: { onCreated: (enrollment: RouterEnrollment) => void }) {
  const [name, setName] = useState('');
  const [attributes, setAttributes] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const errors = fieldErrorsOf(error);
  return (
    <section className="card form-card">
      <h1>New edge router</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          setBusy(true);
          setError(null);
          api
            .post<RouterEnrollment>('/edge-routers', {
              name: name.trim(),
              roleAttributes: attributesOf(attributes),
            })
            .then((answer) => onCreated(answer.data), setError)
            .finally(() => setBusy(false));
        }}
      >
        <TextField
          label="Name"
          name="name"
          value={name}
          onChange={setName}
          error={messageFor(errors, 'name')}
        />
        <TextField
          label="Attributes"
          name="roleAttributes"
          value={attributes}
          onChange={setAttributes}
          hint="Comma-separated; edge router policies select routers by them."
          error={messageFor(errors, 'roleAttributes')}
        />
        {errors.length === 0 && <ErrorNote error={error} />}
        <div className="actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Creating…' : 'Create and issue a token'}
          </button>
          <Link to="/edge-routers">Back to the list</Link>
        </div>
      </form>
    </section>
  );
}

function RouterForm({ editor, initial }: { editor: EntityEditor<EdgeRouter>; initial: EdgeRouter }) {
  const [name, setName] = useState(initial.name);
  const [attributes, setAttributes] = useState(initial.roleAttributes.join(', '));
  const [disabled, setDisabled] = useState(initial.disabled);
  return (
    <section className="card form-card">
      <h1>Edge router {initial.name}</h1>
      <dl className="facts">
        <dt>State</dt>
        <dd>{initial.isOnline ? 'online' : 'offline'}</dd>
        <dt>Enrollment</dt>
        <dd>{enrollmentState(initial)}</dd>
        <dt>Address</dt>
        <dd>{initial.hostname || '—'}</dd>
        <dt>Certificate</dt>
        <dd>{initial.fingerprint ? <code className="hash">{initial.fingerprint}</code> : '—'}</dd>
      </dl>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void editor.save({ name: name.trim(), roleAttributes: attributesOf(attributes), disabled });
        }}
      >
        <TextField
          label="Name"
          name="name"
          value={name}
          onChange={setName}
          error={messageFor(editor.errors, 'name')}
        />
        <TextField
          label="Attributes"
          name="roleAttributes"
          value={attributes}
          onChange={setAttributes}
          error={messageFor(editor.errors, 'roleAttributes')}
        />
        <CheckboxField label="Disabled" name="disabled" checked={disabled} onChange={setDisabled} />
        <FormFooter editor={editor} claimed={CLAIMED} noun="router" />
      </form>
    </section>
  );
}

function Reenroll({ router, onIssued }: { router: EdgeRouter; onIssued: (e: RouterEnrollment) => void }) {
  const [error, setError] = useState<unknown>(null);
  return (
    <section className="card">
      <h2>Enrollment</h2>
      <p>
        A new token replaces the router&apos;s certificate: it stops working at once and must enroll again.
      </p>
      <button
        type="button"
        className="secondary"
        onClick={() => {
          setError(null);
          api
            .post<RouterEnrollment>(`/edge-routers/${router.id}/re-enroll`)
            .then((a) => onIssued(a.data), setError);
        }}
      >
        Issue a new enrollment token
      </button>
      <ErrorNote error={error} />
    </section>
  );
}

function IssuedToken({ enrollment }: { enrollment: RouterEnrollment }) {
  return (
    <section className="card" aria-labelledby="token-heading">
      <h2 id="token-heading">Enrollment token</h2>
      <p className="notice">Shown this once: the controller keeps only its hash.</p>
      <div className="enroll-grid">
        <QrImage text={enrollment.enrollmentToken} label="Router enrollment token" />
        <div>
          <p>
            Expires <When at={enrollment.enrollmentExpiresAt} />
          </p>
          <p className="secret" data-testid="router-token">
            {enrollment.enrollmentToken}
          </p>
          <p className="hint">On the router&apos;s machine:</p>
          <pre className="command">
            npm run router -- --controller {window.location.origin} --enroll {enrollment.enrollmentToken}{' '}
            --data-dir ./router --port 3022
          </pre>
          <Link to={`/edge-routers/${enrollment.id}`}>Open the router</Link>
        </div>
      </div>
    </section>
  );
}
