#!/usr/bin/env node
// The `deskhand` command: runs the built CLI (npm run build makes it).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const cli = fileURLToPath(new URL('../out/main/cli.js', import.meta.url));
if (!existsSync(cli)) {
  console.error('deskhand: the app is not built yet; run `npm run build` in the Deskhand folder first.');
  process.exit(2);
}
await import(pathToFileURL(cli).href);
