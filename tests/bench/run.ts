// `npm run bench`: the figures of issue 7, measured side by side in one run, printed as a table and
// written to tests/bench/results.json as [{ figure, value, unit, goal, meets }].
//
//   node --import tsx tests/bench/run.ts              every figure (after `npm run build`)
//   node --import tsx tests/bench/run.ts ui-paint     only some (names below); results.json is left alone
//
// Each group of figures runs in its own Node process (the memory figure with --expose-gc), so one
// cannot disturb another; the desktop ones share one Xvfb display with an xterm and a Chromium window.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startBenchDesktop, type BenchDesktop } from '../support/bench-desktop';
import { RESULT_PREFIX, runBench, type Figure } from '../support/bench-stats';

interface Group {
  name: string;
  file: string;
  desktop?: boolean;
  exposeGc?: boolean;
  renderer?: boolean;
}

const GROUPS: Group[] = [
  { name: 'step-overhead', file: 'step-overhead.ts', desktop: true },
  { name: 'prompt-size', file: 'prompt-size.ts' },
  { name: 'persistence', file: 'persistence.ts' },
  { name: 'ui-paint', file: 'ui-paint.ts', renderer: true },
  { name: 'stop', file: 'stop.ts' },
  { name: 'memory', file: 'memory.ts', exposeGc: true },
];

const ROOT = resolve(import.meta.dirname, '../..');
const RESULTS = join(ROOT, 'tests/bench/results.json');

function runGroup(group: Group, env: NodeJS.ProcessEnv): Promise<{ figures: Figure[]; error: string | null }> {
  const args = [...(group.exposeGc ? ['--expose-gc'] : []), '--import', 'tsx', join(ROOT, 'tests/bench', group.file)];
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.once('exit', (code, signal) => {
      const line = stdout.split('\n').find((candidate) => candidate.startsWith(RESULT_PREFIX));
      const figures = line ? (JSON.parse(line.slice(RESULT_PREFIX.length)) as Figure[]) : [];
      const error = code === 0 && line ? null : `${group.name} failed (exit ${code ?? signal})${line ? '' : ': no result'}`;
      done({ figures, error });
    });
  });
}

function table(figures: Figure[]): string {
  const rows = figures.map((figure) => [
    figure.figure,
    `${figure.value}${figure.unit === 'ratio' ? '' : ` ${figure.unit}`}`,
    figure.goal ?? '',
    figure.meets === null ? '' : figure.meets ? 'yes' : 'NO',
  ]);
  const header = ['Figure', 'Value', 'Goal', 'Meets'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] as string).length)));
  const line = (cells: string[]): string => `| ${cells.map((cell, column) => cell.padEnd(widths[column] as number)).join(' | ')} |`;
  return [line(header), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

async function main(): Promise<number> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !GROUPS.some((group) => group.name === name));
  if (unknown.length) {
    process.stderr.write(`unknown figure group(s): ${unknown.join(', ')}; known: ${GROUPS.map((group) => group.name).join(', ')}\n`);
    return 2;
  }
  const groups = wanted.length ? GROUPS.filter((group) => wanted.includes(group.name)) : GROUPS;
  const started = performance.now();

  if (groups.some((group) => group.renderer) && !existsSync(join(ROOT, 'out/renderer/index.html'))) {
    process.stderr.write('The renderer is not built: building it (npx electron-vite build) ...\n');
    const build = spawnSync('npx', ['electron-vite', 'build'], { cwd: ROOT, stdio: 'inherit' });
    if (build.status !== 0) return 1;
  }

  let desktop: BenchDesktop | null = null;
  const figures: Figure[] = [];
  const errors: string[] = [];
  try {
    for (const group of groups) {
      let env: NodeJS.ProcessEnv = { ...process.env };
      if (group.desktop) {
        if (!desktop) {
          process.stderr.write('Starting the bench desktop (Xvfb 1280x800, openbox, xterm, Chromium) ...\n');
          desktop = await startBenchDesktop();
        }
        env = { ...desktop.x.env };
      }
      process.stderr.write(`\n== ${group.name}\n`);
      const groupStarted = performance.now();
      const result = await runGroup(group, env);
      figures.push(...result.figures);
      if (result.error) errors.push(result.error);
      process.stderr.write(`   (${((performance.now() - groupStarted) / 1000).toFixed(1)} s)\n`);
    }
  } finally {
    await desktop?.stop();
  }

  process.stdout.write(`\n${table(figures)}\n\nMeasured in ${((performance.now() - started) / 1000).toFixed(0)} s on ${process.platform}, Node ${process.versions.node}.\n`);
  if (!wanted.length && !errors.length) {
    writeFileSync(RESULTS, `${JSON.stringify(figures, null, 2)}\n`);
    process.stdout.write(`Written to ${RESULTS}\n`);
  }
  for (const error of errors) process.stderr.write(`${error}\n`);
  return errors.length ? 1 : 0;
}

runBench(main);
