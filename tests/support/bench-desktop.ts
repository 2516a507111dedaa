import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startXProgram, startXvfb, type XDisplay, type XProgram } from './xvfb';

/**
 * A realistic desktop for the bench: 1280x800 under Xvfb and openbox, an xterm full of text on the left
 * half (its last line a clock that changes every 10 ms) and a Chromium window with a busy page (text, a
 * table, buttons, a chart) on the right half.
 */
export interface BenchDesktop {
  x: XDisplay;
  xtermTitle: string;
  stop(): Promise<void>;
}

export const DESKTOP = { width: 1280, height: 800 };
export const XTERM_TITLE = 'bench-xterm';

/**
 * The blocks of text on that desktop, as it shows once Chromium has painted (measured on its frame):
 * the xterm's lines, the page's header, its links, its paragraphs and the top of its table.
 */
export const TEXT_BLOCKS = [
  { left: 0, top: 20, width: 630, height: 770 },
  { left: 640, top: 80, width: 620, height: 40 },
  { left: 640, top: 120, width: 165, height: 380 },
  { left: 810, top: 140, width: 450, height: 450 },
  { left: 820, top: 690, width: 440, height: 110 },
] as const;

function busyPage(): string {
  const words = 'desktop agent screenshot window request blackboard trajectory model prompt session step action result status'.split(' ');
  const sentence = (n: number): string => Array.from({ length: 12 + (n % 9) }, (_, i) => words[(n * 7 + i * 3) % words.length]).join(' ');
  const rows = Array.from({ length: 14 }, (_, i) => `<tr><td>${1000 + i * 37}</td><td>${sentence(i).slice(0, 28)}</td><td>${(i * 13.7).toFixed(2)}</td><td class="${i % 3 ? 'ok' : 'bad'}">${i % 3 ? 'done' : 'failed'}</td></tr>`).join('');
  const bars = Array.from({ length: 18 }, (_, i) => `<rect x="${i * 17}" y="${80 - ((i * 29) % 70)}" width="12" height="${(i * 29) % 70}" fill="hsl(${i * 20},60%,50%)"/>`).join('');
  return `<!doctype html><html><head><meta charset="utf-8"><title>Quarterly report - Deskhand bench</title><style>
    body { font: 14px/1.4 sans-serif; margin: 0; color: #222; }
    header { background: #1e4f8a; color: white; padding: 10px 16px; font-size: 18px; }
    nav { float: left; width: 150px; background: #eef1f5; height: 720px; padding: 8px; }
    nav a { display: block; color: #1e4f8a; padding: 3px 0; }
    main { margin-left: 170px; padding: 8px 12px; }
    table { border-collapse: collapse; width: 100%; font-size: 12px; }
    td { border: 1px solid #ccd; padding: 2px 4px; } .ok { color: #2a7d2a; } .bad { color: #b32; }
    button { margin: 4px; padding: 4px 10px; } .primary { background: #2d6cdf; color: white; border: 0; }
  </style></head><body>
    <header>Quarterly report &mdash; Sales and operations</header>
    <nav>${words.map((word) => `<a href="#">${word}</a>`).join('')}</nav>
    <main>
      <h2>Summary</h2>
      ${Array.from({ length: 4 }, (_, i) => `<p>${sentence(i)}. ${sentence(i + 5)}.</p>`).join('')}
      <svg width="320" height="84">${bars}</svg>
      <table>${rows}</table>
      <p><button class="primary">Save</button><button>Export as PDF</button><button>Send</button><input value="search the report"></p>
    </main></body></html>`;
}

export async function startBenchDesktop(): Promise<BenchDesktop> {
  const x = await startXvfb(DESKTOP);
  const scratch = mkdtempSync(join(tmpdir(), 'deskhand-bench-desktop-'));
  const programs: XProgram[] = [];
  try {
    // xterm's default font is 6x13: 106 columns and 61 rows fill the left half.
    programs.push(
      await startXProgram(x, 'xterm', [
        '-geometry',
        '104x59+0+0',
        '-title',
        XTERM_TITLE,
        '-e',
        'bash',
        '--norc',
        '--noprofile',
        '-c',
        // A clock on the last line, redrawn every 10 ms with builtins only: the window changes between
        // steps, as it does after most actions, so no step sees the very frame it saw before.
        'ls -la /usr/lib /usr/bin | head -120; echo; uname -a; while :; do printf "\\r%s " "$EPOCHREALTIME"; read -rt 0.01; done',
      ], { env: { PS1: '$ ', HISTFILE: '/dev/null' } }),
    );
    const page = join(scratch, 'report.html');
    writeFileSync(page, busyPage());
    programs.push(
      await startXProgram(x, 'chromium', [
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--no-default-browser-check',
        '--disable-background-networking',
        '--disable-dev-shm-usage',
        '--password-store=basic',
        '--force-device-scale-factor=1',
        '--ozone-platform=x11',
        `--user-data-dir=${join(scratch, 'profile')}`,
        `--window-position=${DESKTOP.width / 2},0`,
        `--window-size=${DESKTOP.width / 2},${DESKTOP.height}`,
        `--app=file://${page}`,
      ], { timeoutMs: 30_000 }),
    );
    // Let Chromium paint its page.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  } catch (error) {
    for (const program of programs.reverse()) await program.stop();
    await x.stop();
    throw error;
  }
  return {
    x,
    xtermTitle: XTERM_TITLE,
    async stop() {
      for (const program of programs.reverse()) await program.stop();
      await x.stop();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
