import { Key } from '@nut-tree-fork/nut-js';
import { describe, expect, it } from 'vitest';
import { deviceArgs, parseDeviceArgs } from '../../src-main/device/config';
import { checkEnvironment, parseDisplay } from '../../src-main/device/health';
import { keyFromName, parseKeys, usLayoutKey } from '../../src-main/device/keys';
import { deviceEnv, deviceLaunchSpec } from '../../src-main/device/launch';
import { toRgb } from '../../src-main/device/screen';
import { ToolTimeoutError, withTimeout } from '../../src-main/device/queue';
import { toolTimeoutMs } from '../../src-main/device/timeouts';
import { normaliseNewlines } from '../../src-main/device/typing';
import { cardinals, decodeTextProperty, formatWindowId, parseWindowId } from '../../src-main/device/windows';
import { cookieFor, FAMILY_LOCAL, FAMILY_WILD, parseXauthority } from '../../src-main/device/x11/auth';
import { chunkBySlots, keysymFor, missingChars, parseKeymap } from '../../src-main/device/xkeymap';

describe('toRgb', () => {
  it('swaps BGRA to RGB and drops the (zero) alpha', () => {
    const bgra = Buffer.from([1, 2, 3, 0, 4, 5, 6, 0]);
    const rgb = toRgb({ width: 2, height: 1, data: bgra, channels: 4, byteWidth: 8, bgr: true });
    expect([...rgb]).toEqual([3, 2, 1, 6, 5, 4]);
  });

  it('crops and honours row padding', () => {
    // 2x2 BGRA with 4 bytes of padding per row.
    const data = Buffer.from([10, 11, 12, 0, 20, 21, 22, 0, 9, 9, 9, 9, 30, 31, 32, 0, 40, 41, 42, 0, 9, 9, 9, 9]);
    const image = { width: 2, height: 2, data, channels: 4, byteWidth: 12, bgr: true };
    expect([...toRgb(image, { x: 1, y: 1, width: 1, height: 1 })]).toEqual([42, 41, 40]);
    expect([...toRgb(image)]).toEqual([12, 11, 10, 22, 21, 20, 32, 31, 30, 42, 41, 40]);
  });

  it('keeps RGB order when the image already is RGB', () => {
    const rgb = toRgb({ width: 1, height: 1, data: Buffer.from([1, 2, 3]), channels: 3, byteWidth: 3, bgr: false });
    expect([...rgb]).toEqual([1, 2, 3]);
  });
});

describe('toRgb, a word at a time', () => {
  // 2x2 BGRA with 4 bytes of padding per row, in its own (4-byte aligned) memory.
  const bytes = [10, 11, 12, 0, 20, 21, 22, 0, 9, 9, 9, 9, 30, 31, 32, 0, 40, 41, 42, 0, 9, 9, 9, 9];
  const aligned = Buffer.from(new Uint8Array(bytes).buffer);

  it('crops and skips row padding in aligned memory', () => {
    const image = { width: 2, height: 2, data: aligned, channels: 4, byteWidth: 12, bgr: true };
    expect([...toRgb(image)]).toEqual([12, 11, 10, 22, 21, 20, 32, 31, 30, 42, 41, 40]);
    expect([...toRgb(image, { x: 1, y: 0, width: 1, height: 2 })]).toEqual([22, 21, 20, 42, 41, 40]);
    expect([...toRgb(image, { x: 1, y: 1, width: 1, height: 1 })]).toEqual([42, 41, 40]);
  });

  it('gives what the byte path gives for every tail length, and leaves the capture alone', () => {
    for (const [width, height] of [[4, 3], [5, 1], [3, 3], [7, 5], [1, 1], [64, 17]] as const) {
      const bgra = Buffer.from(new Uint8Array(width * height * 4).map((_, i) => (i * 97 + 13) & 255).buffer);
      const before = Buffer.from(bgra);
      const words = toRgb({ width, height, data: bgra, channels: 4, byteWidth: width * 4, bgr: true });
      // The same bytes one past a word boundary can only be read a byte at a time.
      const shifted = Buffer.from(new Uint8Array([0, ...bgra]).buffer, 1, bgra.length);
      const bytewise = toRgb({ width, height, data: shifted, channels: 4, byteWidth: width * 4, bgr: true });
      expect(words.length, `${width}x${height}`).toBe(width * height * 3);
      expect(words.equals(bytewise), `${width}x${height}`).toBe(true);
      expect(bgra.equals(before)).toBe(true);
    }
  });

  it('reads memory that is not on a word boundary a byte at a time', () => {
    const unaligned = Buffer.from(new Uint8Array([0, ...bytes]).buffer, 1, bytes.length);
    const rgb = toRgb({ width: 2, height: 2, data: unaligned, channels: 4, byteWidth: 12, bgr: true });
    expect([...rgb]).toEqual([12, 11, 10, 22, 21, 20, 32, 31, 30, 42, 41, 40]);
  });
});

describe('keys', () => {
  it('maps the contract key names and common aliases', () => {
    expect(parseKeys(['ctrl', 's'])).toEqual([Key.LeftControl, Key.S]);
    expect(parseKeys(['Ctrl', 'Shift', 'T'])).toEqual([Key.LeftControl, Key.LeftShift, Key.T]);
    expect(parseKeys(['enter'])).toEqual([Key.Enter]);
    expect(parseKeys(['esc'])).toEqual([Key.Escape]);
    expect(parseKeys(['alt', 'f4'])).toEqual([Key.LeftAlt, Key.F4]);
    expect(parseKeys(['meta'])).toEqual([Key.LeftSuper]);
    expect(keyFromName('7')).toBe(Key.Num7);
    expect(keyFromName('/')).toBe(Key.Slash);
    for (const name of ['tab', 'backspace', 'delete', 'space', 'up', 'down', 'left', 'right', 'home', 'end', 'pageup', 'pagedown', 'f12']) {
      expect(keyFromName(name), name).not.toBeUndefined();
    }
  });

  it('names every unknown key in one error', () => {
    expect(() => parseKeys(['ctrl', 'hyper', 'ö'])).toThrow(/unknown key names "hyper", "ö"/);
  });

  it('refuses names only inherited object properties answer to (constructor, __proto__)', () => {
    for (const name of ['constructor', '__proto__', 'Constructor']) {
      expect(keyFromName(name), name).toBeUndefined();
      expect(() => parseKeys(['ctrl', name]), name).toThrow(/unknown key name/);
    }
  });

  it('knows which US-layout keys need shift', () => {
    expect(usLayoutKey('>')).toEqual({ key: Key.Period, shift: true });
    expect(usLayoutKey('A')).toEqual({ key: Key.A, shift: true });
    expect(usLayoutKey('a')).toEqual({ key: Key.A, shift: false });
    expect(usLayoutKey('\n')).toEqual({ key: Key.Enter, shift: false });
    expect(usLayoutKey('ü')).toBeUndefined();
  });
});

describe('xkeymap', () => {
  const pke = [
    'keycode   8 =',
    'keycode  38 = a A a A',
    'keycode  34 = bracketleft braceleft bracketleft braceleft',
    'keycode  60 = period greater period greater',
    'keycode  93 =',
    'keycode 247 =',
    'keycode 100 = NoSymbol NoSymbol udiaeresis',
  ].join('\n');

  it('finds free keycodes (highest first, never 8) and what is typable with at most Shift', () => {
    const keymap = parseKeymap(pke);
    expect(keymap.free).toEqual([247, 93]);
    expect(keymap.typable.has('braceleft')).toBe(true);
    expect(keymap.typable.has('udiaeresis')).toBe(false);
  });

  it('names keysyms the way xmodmap reads them', () => {
    expect(keysymFor('{')).toBe('braceleft');
    expect(keysymFor('a')).toBe('a');
    expect(keysymFor('ü')).toBe('U00FC');
    expect(keysymFor('😀')).toBe('U1F600');
  });

  it('lists characters the layout cannot type', () => {
    expect(missingChars('aA{>\n\tü€}', parseKeymap(pke)).sort()).toEqual(['\u20ac', '}', 'ü'].sort());
  });

  it('chunks text so each piece needs at most the free keycodes', () => {
    const missing = new Set(['ü', '€', 'é']);
    expect(chunkBySlots('aü€bé', missing, 2)).toEqual([
      { text: 'aü€b', needs: ['ü', '€'] },
      { text: 'é', needs: ['é'] },
    ]);
    expect(chunkBySlots('üüü', missing, 1)).toEqual([{ text: 'üüü', needs: ['ü'] }]);
    expect(chunkBySlots('plain', missing, 1)).toEqual([{ text: 'plain', needs: [] }]);
  });
});

describe('window properties and X authority', () => {
  it('decodes Latin-1 STRING and UTF8_STRING titles, NUL-separated', () => {
    const UTF8 = 300;
    expect(decodeTextProperty({ type: 31, format: 8, data: Buffer.from('Gr\xfc\xdfe', 'latin1') }, UTF8)).toEqual(['Grüße']);
    expect(decodeTextProperty({ type: UTF8, format: 8, data: Buffer.from('日本語 ✓', 'utf8') }, UTF8)).toEqual(['日本語 ✓']);
    expect(decodeTextProperty({ type: 31, format: 8, data: Buffer.from('xterm\0XTerm\0', 'latin1') }, UTF8)).toEqual(['xterm', 'XTerm']);
    expect(decodeTextProperty({ type: 0, format: 0, data: Buffer.alloc(0) }, UTF8)).toEqual([]);
  });

  it('reads 32-bit items and ignores other formats', () => {
    const data = Buffer.alloc(8);
    data.writeUInt32LE(1, 0);
    data.writeUInt32LE(0x60000c, 4);
    expect(cardinals({ type: 6, format: 32, data })).toEqual([1, 0x60000c]);
    expect(cardinals({ type: 31, format: 8, data })).toEqual([]);
  });

  it('finds the cookie for this display in an Xauthority file', () => {
    const field = (value: string | Buffer): Buffer => {
      const bytes = typeof value === 'string' ? Buffer.from(value, 'latin1') : value;
      return Buffer.concat([Buffer.from([bytes.length >> 8, bytes.length & 0xff]), bytes]);
    };
    const entry = (family: number, address: string, display: string, data: Buffer): Buffer =>
      Buffer.concat([Buffer.from([family >> 8, family & 0xff]), field(address), field(display), field('MIT-MAGIC-COOKIE-1'), field(data)]);
    const file = Buffer.concat([
      entry(FAMILY_LOCAL, 'other-host', '0', Buffer.from('aa', 'hex')),
      entry(FAMILY_LOCAL, 'this-host', '1', Buffer.from('bb', 'hex')),
      entry(FAMILY_LOCAL, 'this-host', '0', Buffer.from('cc', 'hex')),
      entry(FAMILY_WILD, '', '', Buffer.from('dd', 'hex')),
    ]);
    const entries = parseXauthority(file);
    expect(entries).toHaveLength(4);
    expect(cookieFor(entries, 0, 'this-host')?.data.toString('hex')).toBe('cc');
    expect(cookieFor(entries, 1, 'this-host')?.data.toString('hex')).toBe('bb');
    expect(cookieFor(entries, 7, 'this-host')?.data.toString('hex')).toBe('dd');
    expect(cookieFor(entries.slice(0, 1), 0, 'this-host')).toBeNull();
  });

  it('uses the Xauthority entries before a truncated last one, as Xlib does', () => {
    const field = (value: string): Buffer => Buffer.concat([Buffer.from([0, value.length]), Buffer.from(value, 'latin1')]);
    const entry = (display: string, cookie: string): Buffer =>
      Buffer.concat([Buffer.from([FAMILY_LOCAL >> 8, FAMILY_LOCAL & 0xff]), field('this-host'), field(display), field('MIT-MAGIC-COOKIE-1'), field(cookie)]);
    const file = Buffer.concat([entry('0', 'aa'), entry('1', 'bb')]);
    const cutInData = parseXauthority(file.subarray(0, file.length - 1));
    expect(cutInData.map((e) => e.display)).toEqual(['0']);
    expect(cookieFor(cutInData, 0, 'this-host')?.data.toString('latin1')).toBe('aa');
    expect(parseXauthority(Buffer.concat([file, Buffer.from([1])])).map((e) => e.display), 'one stray byte').toEqual(['0', '1']);
    expect(parseXauthority(Buffer.concat([file, Buffer.from([1, 0, 0, 9, 0x61])])).map((e) => e.display), 'cut in a length').toEqual(['0', '1']);
    expect(parseXauthority(Buffer.alloc(0))).toEqual([]);
  });

  it('spells and parses window ids', () => {
    expect(formatWindowId(0x20000c)).toBe('0x0020000c');
    expect(parseWindowId('0x0020000c')).toBe(0x20000c);
    expect(parseWindowId('2097164')).toBe(0x20000c);
    expect(parseWindowId('xterm')).toBeNull();
    expect(parseWindowId('0x100000000')).toBeNull();
  });
});

describe('config and launch', () => {
  it('parses flags and round-trips them', () => {
    expect(parseDeviceArgs([])).toEqual({ maxEdge: 1280, format: 'auto', quality: 70 });
    const config = parseDeviceArgs(['--max-edge=640', '--format', 'webp', '--quality=50']);
    expect(config).toEqual({ maxEdge: 640, format: 'webp', quality: 50 });
    expect(parseDeviceArgs(deviceArgs(config))).toEqual(config);
    expect(() => parseDeviceArgs(['--bogus'])).toThrow(/unknown argument/);
    expect(() => parseDeviceArgs(['--quality=0'])).toThrow(/quality/);
    const guarded = parseDeviceArgs(['--protect-pid=4242']);
    expect(guarded.protectPid).toBe(4242);
    expect(parseDeviceArgs(deviceArgs(guarded))).toEqual(guarded);
    expect(() => parseDeviceArgs(['--protect-pid=0'])).toThrow(/protectPid/);
    expect(() => parseDeviceArgs(['--protect-pid=me'])).toThrow(/protectPid/);
    // Browser mode's mark, kept as text: a number-looking mark stays a string, and a short one is refused.
    const marked = parseDeviceArgs(['--protect-title', '01234567']);
    expect(marked.protectTitle).toBe('01234567');
    expect(parseDeviceArgs(deviceArgs(marked))).toEqual(marked);
    expect(parseDeviceArgs(deviceArgs({ protectTitle: 'Deskhand · 5e1f0a9c' })).protectTitle).toBe('Deskhand · 5e1f0a9c');
    expect(() => parseDeviceArgs(['--protect-title='])).toThrow(/protectTitle/);
    expect(() => parseDeviceArgs(['--protect-title=abc'])).toThrow(/protectTitle/);
  });

  it('keeps secrets out of the device environment', () => {
    const env = deviceEnv({ DISPLAY: ':1', OPENAI_API_KEY: 'sk', GITHUB_TOKEN: 't', PATH: '/bin' });
    expect(env).toEqual({ DISPLAY: ':1', PATH: '/bin' });
  });

  it('builds the command for source and built modes', () => {
    const source = deviceLaunchSpec({ root: '/r', mode: 'source', env: { DISPLAY: ':1' }, config: { maxEdge: 1000 } });
    expect(source.args).toEqual(['--import', 'tsx', '/r/src-main/device/main.ts', '--max-edge=1000']);
    expect(source.cwd).toBe('/r');
    const built = deviceLaunchSpec({ root: '/r', mode: 'built', env: {} });
    expect(built.args).toEqual(['/r/out/main/device.js']);
  });
});

describe('health', () => {
  it('parses DISPLAY values', () => {
    expect(parseDisplay(':0')).toEqual({ kind: 'unix', path: '/tmp/.X11-unix/X0', display: 0 });
    expect(parseDisplay(':90.0')).toEqual({ kind: 'unix', path: '/tmp/.X11-unix/X90', display: 90 });
    expect(parseDisplay('localhost:10.0')).toEqual({ kind: 'tcp', host: 'localhost', port: 6010 });
    expect(parseDisplay('/private/tmp/launchd/org.xquartz:0')).toBeNull();
  });

  it('fails with exit code 3 and a clear message on Linux without DISPLAY', async () => {
    const result = await checkEnvironment('linux', {});
    expect(result).toMatchObject({ ok: false });
    if (!result.ok) expect(result.message).toMatch(/DISPLAY is not set/);
    expect(await checkEnvironment('darwin', {})).toEqual({ ok: true });
  });

  it('fails when nothing listens on the display', async () => {
    const result = await checkEnvironment('linux', { DISPLAY: ':987' });
    expect(result).toMatchObject({ ok: false });
    if (!result.ok) expect(result.message).toMatch(/cannot connect to X display :987/);
  });
});

describe('typing helpers', () => {
  it('turns CRLF and CR into one Enter each', () => {
    expect(normaliseNewlines('a\r\nb\rc\n')).toBe('a\nb\nc\n');
  });
});

describe('timeouts', () => {
  it('gives long texts and long waits more time than the SDK default allows', () => {
    expect(toolTimeoutMs('click', { x: 1, y: 1 })).toBe(10_000);
    expect(toolTimeoutMs('wait', { seconds: 60 })).toBeGreaterThan(60_000);
    expect(toolTimeoutMs('type_text', { text: 'x'.repeat(10_000) })).toBeGreaterThan(10_000 * 8);
  });

  it('rejects a call that outlives its budget with a clear error', async () => {
    const never = new Promise<never>(() => undefined);
    await expect(withTimeout(never, 20, 'click')).rejects.toThrow(ToolTimeoutError);
    await expect(withTimeout(never, 20, 'click')).rejects.toThrow(/click timed out after 20 ms/);
    await expect(withTimeout(Promise.resolve(7), 20, 'click')).resolves.toBe(7);
  });
});
