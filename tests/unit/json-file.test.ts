// JSON files in the data folder: written whole or not at all, read back checked.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readValidatedJson, writeJsonAtomic } from '../../src-main/common/json-file';

let folder: string;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'deskhand-json-file-'));
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

describe('writeJsonAtomic', () => {
  it('writes the value whole, private by default, creating the folder', () => {
    const path = join(folder, 'nested', 'settings.json');
    writeJsonAtomic(path, { device: { screenshotFormat: 'png' } });
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ device: { screenshotFormat: 'png' } });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(folder, 'nested')).mode & 0o777).toBe(0o700);
    writeJsonAtomic(path, { replaced: true }, 0o644);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ replaced: true });
    expect(readdirSync(join(folder, 'nested'))).toEqual(['settings.json']);
  });

  it('leaves what was there, and no temporary file, when the write cannot finish', () => {
    // A folder where the file should go: the rename over it fails.
    const path = join(folder, 'settings.json');
    mkdirSync(path);
    writeFileSync(join(path, 'kept'), 'x');
    expect(() => writeJsonAtomic(path, { lost: false })).toThrow();
    expect(readFileSync(join(path, 'kept'), 'utf8')).toBe('x');
    expect(readdirSync(folder)).toEqual(['settings.json']);
  });
});

describe('readValidatedJson', () => {
  const Settings = z.object({ quality: z.number().int().max(100) });

  it('reads a valid file, and reports none when there is none', () => {
    const path = join(folder, 'settings.json');
    expect(readValidatedJson(path, Settings)).toEqual({ value: null, problem: null });
    writeJsonAtomic(path, { quality: 60 });
    expect(readValidatedJson(path, Settings)).toEqual({ value: { quality: 60 }, problem: null });
  });

  it('moves a damaged file aside and says which field is wrong', () => {
    const path = join(folder, 'settings.json');
    writeFileSync(path, JSON.stringify({ quality: 400 }));
    const read = readValidatedJson(path, Settings);
    expect(read.value).toBeNull();
    expect(read.problem).toContain('quality: ');
    expect(read.problem).toContain(`kept as ${path}.bad`);
    expect(existsSync(path)).toBe(false);
    expect(JSON.parse(readFileSync(`${path}.bad`, 'utf8'))).toEqual({ quality: 400 });

    writeFileSync(path, '{"quality": 6');
    expect(readValidatedJson(path, Settings).problem).toContain('not valid JSON');
  });
});
