import { describe, expect, it } from 'vitest';
import {
  chooseWindow,
  isLauncher,
  launchNote,
  localPids,
  programNames,
  tieOf,
  type LaunchCandidate,
  type WindowFacts,
} from '../../src-main/device/launch-window';
import { inProcessTree, parseProcStat, type ProcStat } from '../../src-main/device/proc-tree';
import { parseClientPidReply } from '../../src-main/device/x11/xres';
import { LaunchResult } from '../../src-main/device/contract';

/**
 * launch_app's choice of the launched program's window among the new ones. Before, any new window
 * counted (the started process's own first, else the topmost new one): every case here is one where
 * that picked a window of another program, or picked one too early.
 */

const LAUNCHED = 4000;
const bounds = { x: 0, y: 0, width: 100, height: 100 };
const candidate = (id: string, title: string, app: string, tie: LaunchCandidate['tie'], pid: number | null, seenAt = 0): LaunchCandidate => ({
  window: { id, title, app, bounds },
  tie,
  pid,
  seenAt,
});
const running = { exitCode: undefined, waitOver: false } as const;
const notification = candidate('0x00a00001', 'New mail', 'xmessage', 'other_program', 777);

describe('chooseWindow', () => {
  it('takes the window of a process the launched one started, though a window of another program is above it', () => {
    const own = candidate('0x00b00001', 'editor', 'xterm', 'launched_process', LAUNCHED + 1);
    const decision = chooseWindow([notification, own], running);
    expect(decision).toMatchObject({ kind: 'window', match: 'launched_process', chosen: own, others: [notification] });
  });

  it('keeps waiting while the only new window is another program\'s', () => {
    expect(chooseWindow([notification], running)).toEqual({ kind: 'wait' });
    // Also after a clean exit of a program that is no launcher: that window is still not what it opened.
    expect(chooseWindow([notification], { exitCode: 0, waitOver: false })).toEqual({ kind: 'wait' });
  });

  it('reports no window of the program when the wait ends with only other programs\' windows, naming them', () => {
    const decision = chooseWindow([notification], { exitCode: undefined, waitOver: true });
    expect(decision).toEqual({ kind: 'none', others: [notification] });
    expect(launchNote('xterm', LAUNCHED, decision, 15_000)).toBe(
      'started xterm (pid 4000) but no window of it appeared within 15 s; a window of another program appeared: "New mail" (xmessage, pid 777)',
    );
  });

  it('takes a window of an already running instance of the program only once the started process handed over and exited', () => {
    const instance = candidate('0x00c00001', 'Untitled 2 - Mousepad', 'mousepad', 'same_program', 1234);
    // Still running: it may be opening its own window (another instance started by someone else came first).
    expect(chooseWindow([instance], running)).toEqual({ kind: 'wait' });
    const decision = chooseWindow([notification, instance], { exitCode: 0, waitOver: false });
    expect(decision).toMatchObject({ kind: 'window', match: 'same_program', chosen: instance });
    expect(launchNote('mousepad', LAUNCHED, decision, 500)).toBe(
      'the window belongs to an already running mousepad (pid 1234), which mousepad (pid 4000) handed over to',
    );
  });

  it('prefers a window without an owner whose class names the program to another program\'s window above it', () => {
    const classed = candidate('0x00d00001', 'Game', 'mygame', 'window_class', null);
    expect(chooseWindow([notification, classed], running)).toMatchObject({ kind: 'window', match: 'window_class', chosen: classed });
  });

  it('takes a window without any owner or class hint only when the wait is over, and says it is unverified', () => {
    const unknown = candidate('0x00e00001', 'Untitled', 'SunAwtFrame', 'unverified', null);
    expect(chooseWindow([unknown], running)).toEqual({ kind: 'wait' });
    const decision = chooseWindow([notification, unknown], { exitCode: undefined, waitOver: true });
    expect(decision).toMatchObject({ kind: 'window', match: 'unverified', chosen: unknown, others: [notification] });
    expect(launchNote('java', LAUNCHED, decision, 15_000)).toMatch(/does not say which process owns it, so it may belong to another program/);
  });

  it('takes what a launcher such as xdg-open handed over to only once it exited cleanly, and not a window from before', () => {
    const viewer = candidate('0x00f00001', 'report.pdf', 'evince', 'other_program', 5555, 10_000);
    expect(chooseWindow([viewer], running, true)).toEqual({ kind: 'wait' });
    const exited = { exitCode: 0, waitOver: false, exitedAt: 9_800 };
    expect(chooseWindow([viewer], exited, true)).toMatchObject({ kind: 'window', match: 'handed_over', chosen: viewer });
    expect(chooseWindow([viewer], { ...exited, exitCode: 4 }, true)).toEqual({ kind: 'wait' });
    // A window that was up well before the launcher exited is another program opening meanwhile.
    const early = candidate('0x00a00002', 'New mail', 'xmessage', 'other_program', 777, 5_000);
    expect(chooseWindow([early], exited, true)).toEqual({ kind: 'wait' });
    expect(chooseWindow([early, viewer], exited, true)).toMatchObject({ kind: 'window', chosen: viewer, others: [early] });
  });
});

describe('tieOf and the owner facts', () => {
  const names = programNames('xterm', ['xterm', '-title', 'x']);
  const facts = (over: Partial<WindowFacts>): WindowFacts => ({ pids: [], inLaunch: false, wmClass: [], commands: [], ...over });

  it('tells the launched program\'s window, another instance of it, and another program\'s apart', () => {
    expect(tieOf(facts({ pids: [LAUNCHED], inLaunch: true, wmClass: ['xterm', 'XTerm'] }), names)).toBe('launched_process');
    expect(tieOf(facts({ pids: [999], wmClass: ['xterm', 'XTerm'], commands: ['xterm'] }), names)).toBe('same_program');
    expect(tieOf(facts({ pids: [999], wmClass: ['xmessage', 'Xmessage'], commands: ['xmessage'] }), names)).toBe('other_program');
    expect(tieOf(facts({ wmClass: ['xterm', 'XTerm'] }), names)).toBe('window_class');
    expect(tieOf(facts({ wmClass: ['xmessage', 'Xmessage'] }), names)).toBe('unverified');
  });

  it('counts a class or process named the program and a part as the program\'s, and nothing merely starting alike', () => {
    const office = programNames('libreoffice', ['libreoffice', '--writer']);
    expect(tieOf(facts({ pids: [999], wmClass: ['libreoffice', 'libreoffice-writer'], commands: ['soffice.bin'] }), office)).toBe('same_program');
    const terminal = programNames('gnome-terminal', ['gnome-terminal']);
    // /proc cuts gnome-terminal-server to 15 characters.
    expect(tieOf(facts({ pids: [999], commands: ['gnome-terminal-'] }), terminal)).toBe('same_program');
    const long = programNames('thunderbird-beta', ['thunderbird-beta']);
    expect(tieOf(facts({ pids: [999], commands: ['thunderbird-bet'] }), long)).toBe('same_program');
    expect(tieOf(facts({ pids: [999], wmClass: ['xtermfoo', 'Xtermfoo'], commands: ['xtermfoo'] }), names)).toBe('other_program');
  });

  it('does not trust a _NET_WM_PID written on another host', () => {
    // A remote program (ssh -X) whose pid there happens to be the launched one's here.
    const remote = { netWmPid: LAUNCHED, clientMachine: 'far-away', clientPid: null, wmClass: ['xeyes', 'XEyes'] };
    expect(localPids(remote, 'desk.example.org')).toEqual([]);
    expect(localPids({ ...remote, clientMachine: 'desk' }, 'desk.example.org')).toEqual([LAUNCHED]);
    expect(localPids({ ...remote, clientMachine: '' }, 'desk')).toEqual([LAUNCHED]);
    // The X server's own record of the client comes first.
    expect(localPids({ ...remote, clientPid: 12 }, 'desk')).toEqual([12]);
  });

  it('names the program by its word, its desktop id\'s last part, and past an env wrapper', () => {
    expect(programNames('org.xfce.mousepad', ['mousepad'])).toEqual(expect.arrayContaining(['org.xfce.mousepad', 'mousepad']));
    // A desktop file id's reverse-domain prefix, or a script's extension, names no program: another
    // program's window of class org.gnome.Nautilus is not the launched org.gnome.Terminal's.
    const terminal = programNames('org.gnome.Terminal', ['gnome-terminal']);
    expect(terminal).not.toContain('org');
    expect(tieOf({ pids: [999], inLaunch: false, wmClass: ['org.gnome.Nautilus', 'Org.gnome.Nautilus'], commands: ['nautilus'] }, terminal)).toBe('other_program');
    expect(programNames('tool.py', ['tool.py'])).toEqual(expect.arrayContaining(['tool.py', 'tool']));
    expect(programNames('tool.py', ['tool.py'])).not.toContain('py');
    expect(programNames('Game', ['env', 'WINEPREFIX=/w', '/usr/bin/wine', 'game.exe'])).toEqual(expect.arrayContaining(['game', 'wine']));
    expect(isLauncher(['/usr/bin/xdg-open', 'a.pdf'])).toBe(true);
    expect(isLauncher(['xterm'])).toBe(false);
  });
});

describe('process tree (/proc)', () => {
  it('reads a stat line whose process name holds spaces and parentheses', () => {
    expect(parseProcStat('42 (my (odd) prog) S 7 42 40 0 -1 4194304 ...')).toEqual({ pid: 42, comm: 'my (odd) prog', ppid: 7, pgrp: 42, session: 40 });
    expect(parseProcStat('garbage')).toBeNull();
  });

  const table = (rows: ProcStat[]) => async (pid: number): Promise<ProcStat | null> => rows.find((r) => r.pid === pid) ?? null;
  const row = (pid: number, ppid: number, session: number, pgrp = pid): ProcStat => ({ pid, comm: 'p', ppid, pgrp, session });

  it('counts descendants, also when a middle process exited and they were reparented, and nothing else', async () => {
    const read = table([
      row(LAUNCHED + 1, LAUNCHED + 5, 50, 50), // a grandchild that made its own session, under a child
      row(LAUNCHED + 5, LAUNCHED, LAUNCHED),
      row(LAUNCHED + 2, 1, LAUNCHED), // double-forked: its parent is gone, its session says where it came from
      row(777, 1, 700), // another program
    ]);
    expect(await inProcessTree(LAUNCHED + 1, LAUNCHED, read)).toBe(true);
    expect(await inProcessTree(LAUNCHED + 2, LAUNCHED, read)).toBe(true);
    expect(await inProcessTree(777, LAUNCHED, read)).toBe(false);
    expect(await inProcessTree(31337, LAUNCHED, read)).toBe(false);
  });
});

describe('X-Resource client ids reply', () => {
  it('reads the local pid, and none when the client has none', () => {
    const reply = (ids: { mask: number; values: number[] }[]): Buffer => {
      const parts = ids.map(({ mask, values }) => {
        const part = Buffer.alloc(12 + values.length * 4);
        part.writeUInt32LE(0x00400000, 0);
        part.writeUInt32LE(mask, 4);
        part.writeUInt32LE(values.length * 4, 8);
        values.forEach((v, i) => part.writeUInt32LE(v, 12 + i * 4));
        return part;
      });
      const header = Buffer.alloc(32);
      header.writeUInt8(1, 0);
      header.writeUInt32LE(ids.length, 8);
      return Buffer.concat([header, ...parts]);
    };
    expect(parseClientPidReply(reply([{ mask: 1, values: [] }, { mask: 2, values: [4321] }]))).toBe(4321);
    expect(parseClientPidReply(reply([{ mask: 1, values: [] }]))).toBeNull();
  });
});

describe('LaunchResult', () => {
  it('carries how the window was matched and the other programs\' windows, and still reads results without them', () => {
    const full = { pid: 1, command: ['xterm'], window: null, window_match: null, other_windows: [notification.window], note: 'x' };
    expect(LaunchResult.parse(full)).toEqual(full);
    expect(LaunchResult.parse({ pid: 1, command: ['xterm'], window: null })).toEqual({ pid: 1, command: ['xterm'], window: null });
    expect(LaunchResult.safeParse({ ...full, window_match: 'guessed' }).success).toBe(false);
  });
});
