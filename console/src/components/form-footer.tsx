/**
 * The end of every entity form: problems the API named for fields no input shows, any other error, Save,
 * Cancel, and Delete (asked first; when policies still name the entity, the API refuses with 409 and the
 * administrator may delete it from them too). A previewed change that alters access shows its impact here
 * and waits for a confirmation; a previewed editor's Delete says what deleting would do before asking.
 */
import { ApiError } from '../api/api-error.js';
import { unclaimed } from '../lib/field-errors.js';
import { Link } from '../lib/router.js';
import type { EntityEditor } from '../lib/use-entity-editor.js';
import { ConfirmButton } from './confirm-button.js';
import { ImpactPreview } from './impact-preview.js';
import { ErrorNote } from './status.js';

export function FormFooter<T>({
  editor,
  claimed,
  noun,
}: {
  editor: EntityEditor<T>;
  /** the fields the form's inputs show errors for */
  claimed: readonly string[];
  noun: string;
}) {
  const others = unclaimed(editor.errors, claimed);
  const referenced =
    editor.failure instanceof ApiError && editor.failure.code === 'CAN_NOT_DELETE_REFERENCED_ENTITY';
  return (
    <>
      {others.map((p) => (
        <p key={p.field} className="error" role="alert">
          {p.field}: {p.reason}
        </p>
      ))}
      {editor.errors.length === 0 && <ErrorNote error={editor.failure} />}
      {editor.note && <p className="hint">{editor.note}</p>}
      {editor.created && (
        <p className="success" role="status">
          Created the {noun}. Change it below, or go back to the list.
        </p>
      )}
      {editor.saved && (
        <p className="success" role="status">
          Saved.
        </p>
      )}
      {editor.pending ? (
        <ImpactPreview
          preview={editor.pending.preview}
          busy={editor.busy}
          onConfirm={() => void editor.confirm()}
          onDismiss={editor.dismiss}
        />
      ) : (
        <div className="actions">
          <button type="submit" disabled={editor.busy}>
            {editor.busy ? 'Saving…' : editor.id ? 'Save' : `Create ${noun}`}
          </button>
          <Link to={`/${editor.collection}`}>Back to the list</Link>
          {editor.id && (
            <ConfirmButton
              label={referenced ? `Delete from policies too` : `Delete ${noun}`}
              question={
                referenced
                  ? 'Remove it from every policy that names it, and delete it?'
                  : `Delete this ${noun}?`
              }
              onConfirm={() => editor.remove(referenced)}
              consequence={editor.removalImpact}
            />
          )}
        </div>
      )}
    </>
  );
}
