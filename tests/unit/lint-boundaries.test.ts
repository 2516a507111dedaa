import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint();

async function boundaryErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === 'no-restricted-imports' || message.ruleId === 'no-restricted-syntax')
    .map((message) => message.message);
}

describe('layer import boundaries', () => {
  it('lets the renderer import only the protocol from the main side', async () => {
    expect(await boundaryErrors('src-renderer/src/x.ts', "import { HostCommand } from '../../src-main/protocol';\nexport { HostCommand };\n")).toEqual([]);
    expect(await boundaryErrors('src-renderer/src/x.ts', "import { createHost } from '../../src-main/host/create-host';\nexport { createHost };\n")).not.toEqual([]);
    expect(await boundaryErrors('src-renderer/src/x.ts', "import { readFileSync } from 'node:fs';\nexport { readFileSync };\n")).not.toEqual([]);
  });

  it('keeps electron inside src-main/electron', async () => {
    const code = "import { app } from 'electron';\nexport { app };\n";
    expect(await boundaryErrors('src-main/host/x.ts', code)).not.toEqual([]);
    expect(await boundaryErrors('src-main/electron/x.ts', code)).toEqual([]);
  });

  it('keeps the protocol free of Node and of other layers', async () => {
    expect(await boundaryErrors('src-main/protocol/x.ts', "import { z } from 'zod';\nexport { z };\n")).toEqual([]);
    expect(await boundaryErrors('src-main/protocol/x.ts', "import { join } from 'node:path';\nexport { join };\n")).not.toEqual([]);
    expect(await boundaryErrors('src-main/protocol/x.ts', "import { SessionStore } from '../memory/session-store';\nexport { SessionStore };\n")).not.toEqual([]);
  });
});
