// Electron's binary is not fetched at install time (package.json allowScripts denies its install script
// so `npm ci` works offline); fetch it on the first `npm start` instead.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const electronDir = dirname(require.resolve('electron/package.json'));

if (!existsSync(join(electronDir, 'path.txt'))) {
  console.log('Deskhand: downloading the Electron binary (first start only)…');
  try {
    // Its errors come with a stack trace: only their first line is worth showing.
    execFileSync(process.execPath, [join(electronDir, 'install.js')], { stdio: ['ignore', 'inherit', 'pipe'] });
  } catch (error) {
    const stderr = String(error?.stderr ?? '');
    const reason = stderr.split('\n').find((line) => /error/i.test(line) && !/^\s+at /.test(line))?.trim();
    console.error(
      `Deskhand: Electron could not be downloaded${reason ? ` (${reason})` : ''}. Check the internet connection ` +
        '(or ELECTRON_MIRROR), or use browser mode instead: npm run web',
    );
    process.exit(1);
  }
}
