// `npm test`: everything CI checks, in order, stopping at the first failure.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function run(title, command, args) {
  console.log(`\n== ${title}`);
  const result = spawnSync(command, args, { stdio: 'inherit', shell: false });
  if (result.status !== 0) {
    console.error(`\n${title} failed (exit ${result.status ?? result.signal}).`);
    process.exit(result.status || 1);
  }
}

const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
if (process.platform === 'linux') run('System packages', 'bash', ['scripts/install-system-deps.sh']);
run('Type check', npx, ['tsc', '-p', 'tsconfig.node.json', '--noEmit']);
run('Type check (renderer)', npx, ['tsc', '-p', 'tsconfig.web.json', '--noEmit']);
run('Lint', npx, ['eslint', '.']);
run('Build', npx, ['electron-vite', 'build']);

const report = join(tmpdir(), `deskhand-vitest-${process.pid}.json`);
console.log('\n== Tests');
const tests = spawnSync(npx, ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`], {
  stdio: 'inherit',
});
try {
  const summary = JSON.parse(readFileSync(report, 'utf8'));
  const skipped = summary.numPendingTests + summary.numTodoTests;
  console.log(`\n${summary.numPassedTests} passed, ${summary.numFailedTests} failed, ${skipped} skipped`);
  rmSync(report, { force: true });
} catch {
  console.log('\n(no test summary was written)');
}
process.exit(tests.status ?? 1);
