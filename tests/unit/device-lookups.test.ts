import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findClipboardTool } from '../../src-main/device/clipboard';
import { hasCommand } from '../../src-main/device/exec';

/**
 * The device client's program lookups: after type_text failed for want of xclip and the agent installed
 * it with execute_command, the next try must find it without a device restart.
 */

describe('program lookups', () => {
  let dir: string;
  const saved = { PATH: process.env.PATH, DISPLAY: process.env.DISPLAY, arch: process.arch };

  const install = async (name: string): Promise<void> => {
    await writeFile(join(dir, name), '#!/bin/sh\nexit 0\n');
    await chmod(join(dir, name), 0o755);
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'deskhand-lookups-'));
  });

  afterEach(() => {
    process.env.PATH = saved.PATH;
    if (saved.DISPLAY === undefined) delete process.env.DISPLAY;
    else process.env.DISPLAY = saved.DISPLAY;
    Object.defineProperty(process, 'arch', { value: saved.arch });
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('hasCommand finds a program installed after it was missing, and remembers one it found', async () => {
    process.env.PATH = dir;
    expect(await hasCommand('deskhand-late')).toBe(false);
    await install('deskhand-late');
    expect(await hasCommand('deskhand-late')).toBe(true);
    await rm(join(dir, 'deskhand-late'));
    expect(await hasCommand('deskhand-late'), 'a program found is remembered').toBe(true);
  });

  it('hasCommand looks on the PATH it is given', async () => {
    await install('deskhand-elsewhere');
    process.env.PATH = '/nonexistent';
    expect(await hasCommand('deskhand-elsewhere')).toBe(false);
    expect(await hasCommand('deskhand-elsewhere', `/nonexistent:${dir}`)).toBe(true);
  });

  it.runIf(process.platform === 'linux')('findClipboardTool finds xclip installed after it found no tool', async () => {
    process.env.PATH = dir;
    process.env.DISPLAY = ':99';
    // No bundled xsel either (it ships for x86-64 only).
    Object.defineProperty(process, 'arch', { value: 'arm64' });
    expect(await findClipboardTool()).toBeNull();
    await install('xclip');
    expect(await findClipboardTool()).toEqual({ kind: 'xclip', path: 'xclip' });
  });
});
