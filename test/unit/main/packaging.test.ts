/**
 * electron-builder.yml as electron-builder itself reads and validates it (this machine cannot download
 * Electron to package for real): the four targets, the app id, native modules unpacked from asar, the
 * hardening fuses, the entry electron-vite builds, and icons of the sizes the targets need.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBuilderConfig, ROOT, validateBuilderConfig } from '../../helpers/electron-builder-config.js';

const config = await loadBuilderConfig();

/** Width and height from a PNG's IHDR chunk. */
function pngSize(path: string): [number, number] {
  const png = readFileSync(path);
  expect(png.subarray(1, 4).toString()).toBe('PNG');
  return [png.readUInt32BE(16), png.readUInt32BE(20)];
}

describe('electron-builder.yml', () => {
  it("passes electron-builder's schema", async () => {
    await expect(validateBuilderConfig(config)).resolves.toBeUndefined();
  });

  it('builds nsis, dmg, AppImage and deb for dev.postern.agent', () => {
    expect(config.appId).toBe('dev.postern.agent');
    expect(config.win.target).toEqual(['nsis']);
    expect(config.mac.target).toEqual(['dmg']);
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
  });

  it('packs what electron-vite builds and starts at out/main/index.js', () => {
    expect(config.files).toEqual([{ filter: expect.arrayContaining(['out/**', 'package.json']) }]);
    expect(config.extraMetadata.main).toBe('out/main/index.js');
    expect(readFileSync(join(ROOT, 'electron.vite.config.ts'), 'utf8')).toMatch(/outDir: 'out\/main'/);
  });

  it('keeps the native modules out of the asar archive', () => {
    expect(config.asar).toBe(true);
    expect(config.asarUnpack).toEqual(
      expect.arrayContaining([
        '**/node_modules/better-sqlite3/**',
        '**/node_modules/@napi-rs/keyring/**',
        '**/node_modules/@napi-rs/keyring-*/**',
      ]),
    );
  });

  it('flips the hardening fuses', () => {
    expect(config.electronFuses).toEqual({
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
    });
  });

  it('has icons large enough for every target', () => {
    const [width, height] = pngSize(join(ROOT, config.win.icon));
    expect(width).toBeGreaterThanOrEqual(512);
    expect(height).toBe(width);
    for (const size of [16, 32, 48, 64, 128, 256, 512]) {
      expect(pngSize(join(ROOT, config.linux.icon, `${size}x${size}.png`))).toEqual([size, size]);
    }
  });
});
