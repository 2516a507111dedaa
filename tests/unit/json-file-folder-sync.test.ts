// A data folder on a file system that cannot flush a folder (some network and FUSE mounts answer EINVAL):
// the file is written all the same, and saving it is not reported as failed.
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { writeJsonAtomic } from '../../src-main/common/json-file';

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  return { ...actual, fsyncSync: vi.fn(actual.fsyncSync) };
});

let folder: string;
beforeEach(() => {
  folder = fs.mkdtempSync(join(tmpdir(), 'deskhand-json-sync-'));
});
afterEach(() => {
  vi.mocked(fs.fsyncSync).mockReset();
  fs.rmSync(folder, { recursive: true, force: true });
});

it('writes the file when the folder cannot be flushed, and still fails when the file cannot be', () => {
  const fileSync = vi.mocked(fs.fsyncSync).getMockImplementation();
  vi.mocked(fs.fsyncSync).mockImplementation((fd) => {
    if (fs.fstatSync(fd).isDirectory()) throw Object.assign(new Error('EINVAL: invalid argument, fsync'), { code: 'EINVAL' });
    fileSync?.(fd);
  });
  const path = join(folder, 'settings.json');
  expect(() => writeJsonAtomic(path, { quality: 60 })).not.toThrow();
  expect(JSON.parse(fs.readFileSync(path, 'utf8'))).toEqual({ quality: 60 });

  vi.mocked(fs.fsyncSync).mockImplementation(() => {
    throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
  });
  expect(() => writeJsonAtomic(path, { quality: 70 })).toThrow(/EIO/);
  expect(JSON.parse(fs.readFileSync(path, 'utf8'))).toEqual({ quality: 60 });
});
