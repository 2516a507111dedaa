// electron-builder.yml checked against electron-builder's own schema (the same check `electron-builder`
// runs before building), plus what the issue asks of the packaging, and the fuses hook.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const require = createRequire(import.meta.url);
const config = parse(readFileSync(resolve('electron-builder.yml'), 'utf8')) as Record<string, unknown> & {
  linux: { target: string[] };
  win: { target: string[] };
  mac: { target: string[] };
  asarUnpack: string[];
  afterPack: string;
  extraResources: Array<{ from: string; to: string }>;
};

interface AfterPackModule {
  (context: unknown, fuses?: unknown): Promise<void>;
  FUSES: Record<string, boolean>;
  executablePath(context: unknown): string;
}
const afterPack = require('../../build/after-pack.cjs') as AfterPackModule;

describe('electron-builder.yml', () => {
  it('passes electron-builder 25 schema validation', async () => {
    const { validateConfiguration } = require('app-builder-lib/out/util/config/config') as {
      validateConfiguration(config: unknown, debugLogger: { isEnabled: boolean; add(): void }): Promise<void>;
    };
    await expect(validateConfiguration(config, { isEnabled: false, add: () => undefined })).resolves.toBeUndefined();
  });

  it('builds the installers, ids and icons the issue names', () => {
    expect(config.appId).toBe('dev.deskhand.app');
    expect(config.productName).toBe('Deskhand');
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.win.target).toEqual(['nsis']);
    expect(config.mac.target).toEqual(['dmg']);
    expect(config.asar).toBe(true);
    for (const icon of ['build/icon.png', 'build/tray/tray-idle.png', 'build/tray/tray-acting.png', 'build/tray/tray-waiting.png', 'build/tray/tray-paused.png', 'build/tray/trayTemplate.png', 'build/tray/icon.png']) {
      expect(existsSync(resolve(icon)), icon).toBe(true);
    }
    const png = readFileSync(resolve('build/icon.png'));
    expect(png.readUInt32BE(16)).toBeGreaterThanOrEqual(512); // width, from the IHDR chunk
  });

  it('has the .deb recommend the programs the device client runs on Linux (the README asks for the same)', () => {
    const recommends = (config.deb as { recommends: string[] }).recommends;
    // xdotool types and focuses, wmctrl focuses, x11-xserver-utils has xmodmap (typing) and xrandr (displays).
    for (const name of ['xdotool', 'wmctrl', 'x11-xserver-utils', 'xclip']) expect(recommends).toContain(name);
  });

  it('keeps native modules out of the archive', () => {
    const unpacked = config.asarUnpack.join('\n');
    for (const name of ['*.node', 'sharp', '@img', '@nut-tree-fork/libnut']) expect(unpacked).toContain(name);
    expect(config.extraResources).toContainEqual(expect.objectContaining({ from: 'node_modules/.cache/deskhand-electron', to: 'native' }));
    // No in-place rebuild: tests and browser mode use the Node build in the same node_modules.
    expect(config.npmRebuild).toBe(false);
  });
});

describe('fuses (build/after-pack.cjs)', () => {
  it('is the afterPack hook and turns off run-as-node, NODE_OPTIONS and inspect; on asar integrity and asar-only', () => {
    expect(config.afterPack).toBe('build/after-pack.cjs');
    expect(afterPack.FUSES).toMatchObject({
      RunAsNode: false,
      EnableNodeOptionsEnvironmentVariable: false,
      EnableNodeCliInspectArguments: false,
      EnableEmbeddedAsarIntegrityValidation: true,
      OnlyLoadAppFromAsar: true,
    });
  });

  const packager = { appInfo: { productFilename: 'Deskhand' }, executableName: 'deskhand' };
  const fakeFuses = () => {
    const calls: Array<{ path: string; options: Record<string, unknown> }> = [];
    const FuseV1Options = {
      RunAsNode: '0',
      EnableCookieEncryption: '1',
      EnableNodeOptionsEnvironmentVariable: '2',
      EnableNodeCliInspectArguments: '3',
      EnableEmbeddedAsarIntegrityValidation: '4',
      OnlyLoadAppFromAsar: '5',
      LoadBrowserProcessSpecificV8Snapshot: '6',
      GrantFileProtocolExtraPrivileges: '7',
    };
    return {
      calls,
      api: { FuseVersion: { V1: '1' }, FuseV1Options, flipFuses: async (path: string, options: Record<string, unknown>) => void calls.push({ path, options }) },
    };
  };

  it('flips the fuses in the packaged executable of each platform', async () => {
    const out = mkdtempSync(join(tmpdir(), 'deskhand-pack-'));
    const cases = [
      { electronPlatformName: 'linux', arch: 1, appOutDir: join(out, 'linux-unpacked'), executable: 'deskhand', resources: 'resources' },
      { electronPlatformName: 'win32', arch: 1, appOutDir: join(out, 'win-unpacked'), executable: 'Deskhand.exe', resources: 'resources' },
      { electronPlatformName: 'darwin', arch: 3, appOutDir: join(out, 'mac-arm64'), executable: 'Deskhand.app', resources: 'Deskhand.app/Contents/Resources' },
    ];
    try {
      for (const { electronPlatformName, arch, appOutDir, executable, resources } of cases) {
        const context = { appOutDir, electronPlatformName, arch, packager };
        const fuses = fakeFuses();
        // Without the Electron build of better-sqlite3 packed, the build fails before touching fuses.
        await expect(afterPack(context, fuses.api)).rejects.toThrow(/electron-native\.mjs/);
        mkdirSync(join(appOutDir, resources, 'native'), { recursive: true });
        writeFileSync(join(appOutDir, resources, 'native', 'better_sqlite3.node'), '');
        const log = console.log;
        console.log = () => undefined;
        await afterPack(context, fuses.api);
        console.log = log;
        expect(fuses.calls).toHaveLength(1);
        expect(fuses.calls[0]?.path).toBe(join(appOutDir, executable));
        expect(fuses.calls[0]?.options).toMatchObject({ version: '1', '0': false, '2': false, '3': false, '4': true, '5': true, '7': false });
        expect(fuses.calls[0]?.options.resetAdHocDarwinSignature).toBe(electronPlatformName === 'darwin' ? true : undefined);
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('fails a release build when @electron/fuses is missing, saying how to fix it', async () => {
    let installed = true;
    try {
      require.resolve('@electron/fuses');
    } catch {
      installed = false;
    }
    if (installed) return;
    const appOutDir = mkdtempSync(join(tmpdir(), 'deskhand-pack-'));
    try {
      mkdirSync(join(appOutDir, 'resources', 'native'), { recursive: true });
      writeFileSync(join(appOutDir, 'resources', 'native', 'better_sqlite3.node'), '');
      await expect(afterPack({ appOutDir, electronPlatformName: 'linux', arch: 1, packager })).rejects.toThrow(/npm install --save-dev @electron\/fuses/);
    } finally {
      rmSync(appOutDir, { recursive: true, force: true });
    }
  });
});
