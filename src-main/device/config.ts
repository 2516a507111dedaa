import { z } from 'zod';

/** Settings of one device client process, passed by the host as command-line flags. */
export const DeviceConfig = z
  .object({
    /** Screenshots are downscaled so their long edge is at most this many pixels. */
    maxEdge: z.number().int().min(200).max(8192).default(1280),
    /** auto: PNG for user interfaces, JPEG for photographic frames (see encodePixels). */
    format: z.enum(['auto', 'png', 'jpeg', 'webp']).default('auto'),
    quality: z.number().int().min(1).max(100).default(70),
    /**
     * The process whose windows the agent never sees or focuses: Deskhand's own (the desktop app passes
     * its main process). Otherwise an instruction on screen could have the agent click through
     * Deskhand's Settings.
     */
    protectPid: z.number().int().min(1).optional(),
    /**
     * Windows whose title contains this are Deskhand's own too, as if of protectPid: browser mode puts a
     * per-launch mark in its page's title, which the browser shows in its window's title while the
     * Deskhand tab is the one on screen. Long enough not to turn up in other titles by chance.
     */
    protectTitle: z.string().min(6).max(100).optional(),
    /**
     * The folder where the running shell commands are recorded (see command-record.ts), so that the host
     * can end them if this client is killed; the host passes its data folder's device-commands. Unset:
     * nothing is recorded (a client started by hand or by a test).
     */
    commandRecordDir: z.string().min(1).optional(),
  })
  .strict();
export type DeviceConfig = z.infer<typeof DeviceConfig>;

const FLAGS: Record<string, keyof DeviceConfig> = {
  '--max-edge': 'maxEdge',
  '--format': 'format',
  '--quality': 'quality',
  '--protect-pid': 'protectPid',
  '--protect-title': 'protectTitle',
  '--command-record-dir': 'commandRecordDir',
};
const TEXT_FLAGS: ReadonlySet<keyof DeviceConfig> = new Set(['format', 'protectTitle', 'commandRecordDir']);

/** Inverse of parseDeviceArgs, for whoever spawns the client. */
export function deviceArgs(config: Partial<DeviceConfig>): string[] {
  const args: string[] = [];
  for (const [flag, key] of Object.entries(FLAGS)) {
    const value = config[key];
    if (value !== undefined) args.push(`${flag}=${value}`);
  }
  return args;
}

/** Parses `--max-edge=1280 --format=auto --quality=70` (or `--flag value`); throws on anything else. */
export function parseDeviceArgs(argv: readonly string[]): DeviceConfig {
  const raw: Record<string, unknown> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const eq = arg.indexOf('=');
    const flag = eq >= 0 ? arg.slice(0, eq) : arg;
    const key = FLAGS[flag];
    if (!key) throw new Error(`unknown argument ${arg}; known: ${Object.keys(FLAGS).join(', ')}`);
    const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    raw[key] = TEXT_FLAGS.has(key) ? value : Number(value);
  }
  const parsed = DeviceConfig.safeParse(raw);
  if (!parsed.success) throw new Error(`bad device client arguments: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
