/**
 * electron-builder.yml as electron-builder itself reads and validates it (its own config loader and schema
 * validation, CommonJS, from its app-builder-lib): for the packaging tests.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');

interface ExtraResource {
  from: string;
  to: string;
  filter?: string[];
}

/** The parts of electron-builder's Configuration the tests read. */
export interface BuilderConfig {
  appId: string;
  productName: string;
  files: unknown;
  extraMetadata: { main: string };
  asar: boolean;
  asarUnpack: string[];
  electronFuses: Record<string, boolean>;
  win: { target: string[]; icon: string; extraResources: ExtraResource[] };
  mac: { target: string[]; extraResources: ExtraResource[] };
  linux: { target: string[]; icon: string; extraResources: ExtraResource[] };
  deb: { afterInstall: string; afterRemove: string; fpm: string[]; depends: string[] };
  rpm: { afterInstall: string; afterRemove: string; fpm: string[] };
}

const require = createRequire(join(ROOT, 'node_modules', 'electron-builder', 'package.json'));
const { getConfig, validateConfiguration } = require('app-builder-lib/out/util/config/config') as {
  getConfig(projectDir: string, configPath: string | null, fromOptions: null): Promise<BuilderConfig>;
  validateConfiguration(config: unknown, logger: unknown): Promise<void>;
};
const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };

export const loadBuilderConfig = () => getConfig(ROOT, join(ROOT, 'electron-builder.yml'), null);

export const validateBuilderConfig = (config: BuilderConfig) =>
  validateConfiguration(config, new DebugLogger(false));
