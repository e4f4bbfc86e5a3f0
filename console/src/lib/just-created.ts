/**
 * The entity this console just created, so the page that opens next says "created" once: after a create the
 * console moves to the new entity's page, and without this the administrator could not tell the create worked
 * from having opened an existing one.
 */
let justCreated: string | null = null;

export function markCreated(id: string): void {
  justCreated = id;
}

/** True once for the id just created (the first page to ask), false otherwise. */
export function consumeCreated(id: string | undefined): boolean {
  if (!id || id !== justCreated) return false;
  justCreated = null;
  return true;
}
