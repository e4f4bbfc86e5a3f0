import { posternVersion } from '../src/common/package-version.js';

/** Postern's own version, from package.json (read once). */
export const POSTERN_VERSION: string = posternVersion(import.meta.url);
