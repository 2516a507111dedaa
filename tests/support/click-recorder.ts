import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from '../../src-main/commands/command';
import { eventually, startXProgram, type XDisplay, type XProgram } from './xvfb';

/**
 * Clicks counted by the program that gets them: an xterm with mouse reporting on writes every button
 * event it receives to a file, so a test sees whether a click reached it, and how many did.
 */
export interface ClickRecorder {
  program: XProgram;
  clicks(): Promise<number>;
}

/** How long a click sent has to reach its program before "no click" is believed. */
const SETTLE_MS = 700;

/** An xterm titled `name` at `place` ("+0+0"), 60x16, recording into `dir`. */
export async function startClickRecorder(x: XDisplay, dir: string, name: string, place: string): Promise<ClickRecorder> {
  const file = join(dir, `${name}.clicks`);
  const script = `stty raw -echo; printf '\\033[?1000h'; exec cat -v > '${file}'`;
  const program = await startXProgram(x, 'xterm', ['-geometry', `60x16${place}`, '-title', name, '-e', 'sh', '-c', script]);
  const clicks = async (): Promise<number> => {
    const text = await readFile(file, 'utf8').catch(() => '');
    return text.split('^[[M').length - 1;
  };
  // The shell has set up the terminal once the file exists.
  await eventually(`${name} ready`, 10_000, async () => ((await readFile(file, 'utf8').catch(() => null)) !== null ? true : undefined));
  return { program, clicks };
}

export const clicksSettled = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

let calls = 0;
/** A click command at pixel (px, py) of a screenshot, naming that screenshot when `screenshotId` is given. */
export function clickCommand(px: number, py: number, screenshotId?: string): Command {
  return { toolName: 'click', parameters: { x: px, y: py }, toolType: 'action', callId: `click-${++calls}`, ...(screenshotId ? { screenshotId } : {}) };
}
