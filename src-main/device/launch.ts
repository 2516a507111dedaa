import { join } from 'node:path';
import { deviceArgs, type DeviceConfig } from './config';

/**
 * How the host starts a device client. Pure (no native code is loaded by importing this), so the host
 * can use it without pulling nut.js into its own process. Feed the result to the MCP SDK's
 * StdioClientTransport: `new StdioClientTransport({ ...spec, stderr: 'pipe' })`.
 */

export interface DeviceLaunchSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

export interface DeviceLaunchOptions {
  /** Repository root in dev and tests; the app's resources root when built. */
  root: string;
  /** 'source' runs src-main/device/main.ts through tsx; 'built' runs out/main/device.js. */
  mode: 'source' | 'built';
  /** Overrides the built entry path (e.g. inside an asar-unpacked folder). */
  entry?: string;
  config?: Partial<DeviceConfig>;
  /** Base environment (default process.env); DISPLAY etc. come from here. */
  env?: NodeJS.ProcessEnv;
  /** More variables to keep from the device client besides those named like secrets. */
  secretNames?: ReadonlySet<string>;
  /** Node-compatible runtime (default process.execPath; Electron is switched to Node mode). */
  execPath?: string;
}

/** Exit code of a device client that found no usable display. */

// The device client runs shell commands the model chooses; the host's secrets stay with the host.
// KEY, PAT and AUTH count as words (STRIPE_KEY, GH_PAT, NPM_AUTH), not inside others (MONKEY_PATH,
// XAUTHORITY); SSH_AUTH_SOCK is needed and holds no secret itself. PASS and PWD count as words too
// (DB_PASS, MYSQL_PWD), PWD only after an underscore: PWD and OLDPWD are the working directory.
// Password managers' unlocked sessions (Bitwarden's BW_SESSION, 1Password's OP_SESSION_<account>) open
// the whole vault; SESSION alone is no secret (XDG_SESSION_TYPE, DBUS_SESSION_BUS_ADDRESS). A webhook's
// URL (SLACK_WEBHOOK_URL) lets anyone who has it post to the channel; a JWT (CI_JOB_JWT) is a bearer token.
const SECRET_NAME =
  /(API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|(^|_)KEY($|_)|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|COOKIE|WEBHOOK|(^|_)JWT($|_)|(^|_)PAT($|_)|(^|_)AUTH($|_)|(^|_)PASS($|_)|_PWD($|_)|^SSHPASS$|^BW_SESSION$|^OP_SESSION_)/i;
const NOT_SECRET_NAMES = new Set(['SSH_AUTH_SOCK']);
/**
 * A URL with a password in it, whatever the variable is called (DATABASE_URL=postgres://me:pw@db/x), the
 * user name left out too (REDIS_URL=redis://:pw@cache).
 */
const CREDENTIAL_URL = /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:[^@\s]+@/i;

/** Whether an environment variable's name says it holds a secret (OPENAI_API_KEY, GITHUB_TOKEN, ...). */
export function isSecretEnvName(name: string): boolean {
  return SECRET_NAME.test(name) && !NOT_SECRET_NAMES.has(name.toUpperCase());
}

/** Whether a variable holds a secret: by its name, or a value that is a URL with a password. */
export function isSecretEnv(name: string, value: string): boolean {
  return isSecretEnvName(name) || CREDENTIAL_URL.test(value);
}

/**
 * `base` without the variables isSecretEnv matches, those named in `secretNames` (an MCP server's token
 * variable, whatever it is called), and unset ones.
 */
export function deviceEnv(base: NodeJS.ProcessEnv, secretNames: ReadonlySet<string> = new Set()): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && !isSecretEnv(name, value) && !secretNames.has(name)) env[name] = value;
  }
  return env;
}

/**
 * Names the variables the host withholds from the device client beyond those named like secrets, so its
 * commands and programs go without them even when the login profile (loginChildEnv) sets them again.
 */
export const WITHHELD_ENV = 'DESKHAND_WITHHELD_ENV';

/** The names `env` says are withheld (WITHHELD_ENV). */
export function withheldNames(env: NodeJS.ProcessEnv): Set<string> {
  return new Set((env[WITHHELD_ENV] ?? '').split(',').filter(Boolean));
}

export function deviceLaunchSpec(options: DeviceLaunchOptions): DeviceLaunchSpec {
  const env = deviceEnv(options.env ?? process.env, options.secretNames);
  if (options.secretNames && options.secretNames.size > 0) env[WITHHELD_ENV] = [...options.secretNames].join(',');
  const command = options.execPath ?? process.execPath;
  const flags = deviceArgs(options.config ?? {});
  if (process.versions.electron && command === process.execPath) env.ELECTRON_RUN_AS_NODE = '1';
  if (options.mode === 'source') {
    // `--import tsx` resolves tsx from the working directory, hence cwd = root.
    return { command, args: ['--import', 'tsx', join(options.root, 'src-main/device/main.ts'), ...flags], env, cwd: options.root };
  }
  const entry = options.entry ?? join(options.root, 'out/main/device.js');
  return { command, args: [entry, ...flags], env, cwd: options.root };
}
