import { connect } from 'node:net';

/** Whether there is a desktop to use; when not (no display, or one not reachable), why. */
export type HealthResult = { ok: true } | { ok: false; message: string };

/** Where an X11 DISPLAY value says the server listens. */
export type XEndpoint = { kind: 'unix'; path: string; display: number } | { kind: 'tcp'; host: string; port: number };

/** Parses "[host]:display[.screen]"; null for forms we do not probe (e.g. a socket path). */
export function parseDisplay(value: string): XEndpoint | null {
  const match = /^([^:/]*):(\d+)(?:\.\d+)?$/.exec(value);
  if (!match) return null;
  const host = match[1] ?? '';
  const display = Number(match[2]);
  if (host === '' || host === 'unix') return { kind: 'unix', path: `/tmp/.X11-unix/X${display}`, display };
  return { kind: 'tcp', host, port: 6000 + display };
}

function tryConnect(options: { path: string } | { host: string; port: number }, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(options);
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** True when something accepts connections where the DISPLAY points (no X handshake). */
export async function displayReachable(endpoint: XEndpoint, timeoutMs = 2_000): Promise<boolean> {
  if (endpoint.kind === 'tcp') return tryConnect({ host: endpoint.host, port: endpoint.port }, timeoutMs);
  if (await tryConnect({ path: endpoint.path }, timeoutMs)) return true;
  // Linux X servers also listen on the abstract socket of the same name, which survives a deleted /tmp.
  return process.platform === 'linux' && tryConnect({ path: `\0${endpoint.path}` }, timeoutMs);
}

/**
 * Checks the desktop is usable before any native code runs: libnut dereferences a null X display
 * and segfaults when it cannot open one, which would give the host nothing to report.
 */
export async function checkEnvironment(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): Promise<HealthResult> {
  if (platform !== 'linux') return { ok: true };
  const display = env.DISPLAY?.trim();
  if (!display) {
    const wayland = env.WAYLAND_DISPLAY
      ? ` WAYLAND_DISPLAY is set (${env.WAYLAND_DISPLAY}): Deskhand drives X11 applications through XWayland, which sets DISPLAY.`
      : '';
    return {
      ok: false,
      message:
        `deskhand device client: no X display: DISPLAY is not set, so there is no screen to see or control.${wayland} ` +
        'Run it inside a desktop session, or start a virtual one, e.g. `Xvfb :99 -screen 0 1280x800x24 & openbox &` with DISPLAY=:99.',
    };
  }
  const endpoint = parseDisplay(display);
  if (endpoint && !(await displayReachable(endpoint))) {
    const where = endpoint.kind === 'unix' ? endpoint.path : `${endpoint.host}:${endpoint.port}`;
    return {
      ok: false,
      message: `deskhand device client: cannot connect to X display ${display} (nothing listens at ${where}). Is the X server running?`,
    };
  }
  return { ok: true };
}
