/** Finding a command the way a shell would: shared by the prerequisite check and the PostgreSQL lookup. */
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The folders of a PATH-style list, in order, without the empty entries. */
export function pathFolders(path = process.env.PATH ?? ''): string[] {
  return path.split(delimiter).filter(Boolean);
}

/** The command's path: itself when absolute, else the first executable of that name on PATH. */
export function findCommand(command: string, path = process.env.PATH ?? ''): string | undefined {
  if (isAbsolute(command)) return isExecutable(command) ? command : undefined;
  return pathFolders(path)
    .map((dir) => join(dir, command))
    .find(isExecutable);
}
