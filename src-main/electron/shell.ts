/**
 * The desktop app's composition: Electron around the host core. Each concern lives in its own module;
 * this file only wires them:
 *
 *   app://           app-protocol.ts   (renderer + screenshots, CSP)
 *   IPC              ipc.ts            (one registration point, sender and input checks)
 *   security         security.ts       (web preferences, navigation/window/permission guards)
 *   device client    device-process.ts (utility process, MCP over its port)
 *   API keys         safe-storage.ts + host/secrets.ts, settings in host/settings-store.ts
 *   Stop             stop-control.ts   (hotkey, tray, menu -> session.stop)
 *   window           window-state.ts, window-policy.ts (out of the agent's screenshots, no focus theft)
 *   tray and menus   menus.ts, run-tracker.ts
 *   notifications    waiting-notifications.ts (held until what they announce is decided)
 *   quitting         quit.ts           (the host closes first, within a time limit)
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import {
  app,
  BrowserWindow,
  dialog,
  globalShortcut,
  ipcMain,
  Menu,
  nativeImage,
  Notification,
  protocol,
  safeStorage,
  screen,
  session,
  shell,
  Tray,
  utilityProcess,
} from 'electron';
import { deviceArgs } from '../device/config';
import { deviceEnv } from '../device/launch';
import { tokenVariables } from '../host/config';
import { createHost, type Host, type HostOptions } from '../host/create-host';
import { appRoot, rendererDir } from '../host/paths';
import { openDataDir } from '../host/open-settings';
import { deviceCommandsDir } from '../host/orphan-commands';
import { APP_SCHEME_PRIVILEGES, registerAppProtocol } from './app-protocol';
import { APP_ORIGIN, Channel, type DesktopSettingsReply } from './channels';
import { DesktopSettingsFile, effectiveWindowPolicy } from './desktop-settings';
import { UtilityProcessTransport } from './device-process';
import { createFileLog, teeConsole } from './file-log';
import { createChannels, isAppUrl, registerIpc } from './ipc';
import { appMenuTemplate, trayMenuTemplate, type MenuActions } from './menus';
import { closeBeforeQuit } from './quit';
import { notificationFor, RunTracker, waitingKey, type TrayStatus, type Waiting } from './run-tracker';
import { createSafeStorageEncryptor } from './safe-storage';
import { guardSession, guardWebContents } from './security';
import { changeStopHotkey, startStopHotkey, StopHotkey, stopSessions } from './stop-control';
import { WaitingNotifications } from './waiting-notifications';
import { ActingWindowController } from './window-policy';
import { WindowStateFile, type WindowState } from './window-state';

export interface ShellOptions {
  /** The app's main entry file; the device utility process runs it again with DEVICE_MARKER. */
  entry: string;
}

const PRODUCT_NAME = 'Deskhand';
/** A page that dies is loaded again at most this many times within PAGE_RELOAD_WINDOW_MS. */
const PAGE_RELOADS = 3;
const PAGE_RELOAD_WINDOW_MS = 60_000;
const APP_USER_MODEL_ID = 'dev.deskhand.app';

/** Icons shipped with the app: build/tray in development, resources/tray when packaged. */
function trayIcon(state: TrayStatus['state']): Electron.NativeImage {
  const dir = app.isPackaged ? join(process.resourcesPath, 'tray') : join(appRoot(), 'build', 'tray');
  const file = process.platform === 'darwin' ? 'trayTemplate.png' : `tray-${state}.png`;
  const image = nativeImage.createFromPath(join(dir, file));
  if (process.platform === 'darwin') image.setTemplateImage(true);
  return image;
}

function windowIcon(): string | undefined {
  // Windows and macOS take the icon from the executable; Linux windows need it given.
  if (process.platform !== 'linux') return undefined;
  return app.isPackaged ? join(process.resourcesPath, 'tray', 'icon.png') : join(appRoot(), 'build', 'icon.png');
}

/**
 * better-sqlite3 built for Electron's ABI (build/electron-native.mjs): resources/native when packaged,
 * node_modules/.cache/deskhand-electron in development. Null (with a warning) when it is not there.
 */
function electronSqliteBinding(): string | null {
  const path = app.isPackaged
    ? join(process.resourcesPath, 'native', 'better_sqlite3.node')
    : join(appRoot(), 'node_modules', '.cache', 'deskhand-electron', 'better_sqlite3.node');
  if (existsSync(path)) return path;
  console.warn(`[deskhand] ${path} is missing: run  node build/electron-native.mjs`);
  return null;
}

function fail(message: string): never {
  console.error(`Deskhand could not start: ${message}`);
  dialog.showErrorBox('Deskhand could not start', message);
  app.exit(1);
  throw new Error(message);
}

export async function startShell(options: ShellOptions): Promise<void> {
  // --- before ready ---------------------------------------------------------------------------------
  protocol.registerSchemesAsPrivileged([APP_SCHEME_PRIVILEGES]);
  app.setName(PRODUCT_NAME);
  // The same folder in development (package name "deskhand") and packaged (product name "Deskhand").
  app.setPath('userData', join(app.getPath('appData'), PRODUCT_NAME));
  if (process.platform === 'win32') app.setAppUserModelId(APP_USER_MODEL_ID);
  app.enableSandbox();
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  app.on('web-contents-created', (_event, contents) => {
    guardWebContents(contents, { onBlocked: (what, url) => console.warn(`[deskhand] blocked ${what} to ${url.slice(0, 200)}`) });
  });

  await app.whenReady();

  // --- logs, settings, secrets, host ------------------------------------------------------------------
  app.setAppLogsPath();
  const log = createFileLog(app.getPath('logs'));
  teeConsole(log);
  console.log(`[deskhand] starting ${PRODUCT_NAME} ${app.getVersion()} (Electron ${process.versions.electron})`);

  guardSession(session.defaultSession);
  // The page talks to the host over IPC and loads app:// only; nothing of ours needs the web.
  session.defaultSession.webRequest.onBeforeRequest(
    { urls: ['http://*/*', 'https://*/*', 'ws://*/*', 'wss://*/*', 'ftp://*/*'] },
    (details, callback) => {
      console.warn(`[deskhand] blocked a ${details.resourceType} request to ${details.url.slice(0, 200)}`);
      callback({ cancel: true });
    },
  );

  const dataDir = process.env.DESKHAND_DATA_DIR || app.getPath('userData');
  // A value of the environment Deskhand cannot use (OPENAI_BASE_URL that is no URL, say), an unreadable
  // data folder or keychain, another Deskhand on the folder: said in a dialog, as the host's own start-up
  // failures are, since an app started from the desktop has no terminal to read. The folder's lock comes
  // before its settings are read (nor a damaged file rewritten) under another Deskhand (the CLI or browser
  // mode on the same DESKHAND_DATA_DIR); the host lets it go on close.
  const { keychain, lock, settings } = await (async () => {
    const keychain = await createSafeStorageEncryptor(safeStorage);
    const { lock, settings } = await openDataDir(dataDir, process.env, keychain.encryptor);
    return { keychain, lock, settings };
  })().catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));
  if (!keychain.protected) console.warn(`[deskhand] API keys saved in Settings are not protected (backend: ${keychain.backend})`);
  const desktopSettings = new DesktopSettingsFile(app.getPath('userData'));
  if (desktopSettings.loadProblem) console.error(`[deskhand] ${desktopSettings.loadProblem}`);

  const config = settings.config();
  const sqliteBinding = electronSqliteBinding();
  const hostOptions: HostOptions = {
    dataDir,
    dataDirLock: lock,
    config,
    env: process.env,
    // Keys saved in Settings (keychain-encrypted), else OPENAI_API_KEY; settings.get/set answered here.
    apiKey: (profile) => settings.apiKey(profile),
    settings: settings.handler(),
    watchConfig: (listener) => settings.onChange(listener),
    ...(sqliteBinding ? { sqliteNativeBinding: sqliteBinding } : {}),
    deviceTransport: () =>
      new UtilityProcessTransport({
        fork: (modulePath, args, forkOptions) => utilityProcess.fork(modulePath, args, forkOptions),
        modulePath: options.entry,
        args: deviceArgs({
          format: config.device.screenshotFormat,
          quality: config.device.screenshotQuality,
          maxEdge: config.device.screenshotMaxLongEdge,
          // Deskhand's own windows belong to this process: the agent neither lists nor focuses them.
          protectPid: process.pid,
          // Where the client records its running commands, for the host to end if the client is killed.
          commandRecordDir: deviceCommandsDir(dataDir),
        }),
        // Read at each start: the variables named as MCP servers' tokens in Settings now, and at start-up
        // (a device client started after a server was added in Settings must not get its token).
        env: deviceEnv(process.env, new Set([...tokenVariables(config), ...tokenVariables(settings.config())])),
        cwd: homedir(),
      }),
  };
  let host: Host;
  try {
    host = createHost(hostOptions);
  } catch (error) {
    const message = (error as Error).message;
    fail(
      /NODE_MODULE_VERSION|was compiled against a different Node\.js version/.test(message)
        ? `${message}\n\nbetter-sqlite3 is not built for Electron: run  node build/electron-native.mjs  (npm start does).`
        : message,
    );
  }
  registerAppProtocol(protocol, {
    rendererDir: rendererDir(),
    screenshotPath: (sessionId, file) => host.screenshots.pathOf(sessionId, file),
  });
  app.on('child-process-gone', (_event, details) => {
    if (details.type === 'Utility') console.error(`[deskhand] ${details.name ?? 'utility process'} ended: ${details.reason} (${details.exitCode})`);
  });

  // --- state shared by window, tray, menu, hotkey ---------------------------------------------------------
  const tracker = new RunTracker();
  let mainWindow: BrowserWindow | null = null;
  let windowPolicy: ActingWindowController | null = null;
  let tray: Tray | null = null;
  let shownStatus = '';

  const showWindow = (): void => {
    // Only ever called for something the user did (tray, menu, notification, second launch).
    const window = mainWindow && !mainWindow.isDestroyed() ? mainWindow : openMainWindow();
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
  };
  const stopAll = (): void => {
    void stopSessions(tracker.activeSessionIds(), (command) => host.endpoint.handle(command));
  };
  const hotkey = new StopHotkey(globalShortcut, stopAll);
  const actions: MenuActions = {
    stop: stopAll,
    showWindow,
    openDataFolder: () => void shell.openPath(dataDir),
    openLogsFolder: () => void shell.openPath(app.getPath('logs')),
    quit: () => app.quit(),
  };

  const refreshStatus = (force = false): void => {
    const status = tracker.status();
    const key = `${status.label}|${status.canStop}|${hotkey.current}`;
    if (!force && key === shownStatus) return;
    shownStatus = key;
    Menu.setApplicationMenu(Menu.buildFromTemplate(appMenuTemplate(status, hotkey.current, actions, { developer: !app.isPackaged })));
    if (tray && !tray.isDestroyed()) {
      tray.setImage(trayIcon(status.state));
      tray.setToolTip(status.label);
      tray.setContextMenu(Menu.buildFromTemplate(trayMenuTemplate(status, hotkey.current, actions)));
    }
  };

  // --- the main window ----------------------------------------------------------------------------------
  const windowState = new WindowStateFile(app.getPath('userData'));
  if (windowState.loadProblem) console.error(`[deskhand] ${windowState.loadProblem}`);

  function openMainWindow(): BrowserWindow {
    const state = windowState.load(screen.getAllDisplays().map((display) => display.workArea));
    const window = new BrowserWindow({
      ...(state.x !== undefined && state.y !== undefined ? { x: state.x, y: state.y } : {}),
      width: state.width,
      height: state.height,
      minWidth: 720,
      minHeight: 480,
      show: false,
      title: PRODUCT_NAME,
      icon: windowIcon(),
      autoHideMenuBar: process.platform !== 'darwin',
      webPreferences: {
        preload: join(appRoot(), 'out', 'preload', 'preload.cjs'),
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        nodeIntegrationInWorker: false,
        nodeIntegrationInSubFrames: false,
        webSecurity: true,
        allowRunningInsecureContent: false,
        experimentalFeatures: false,
        webviewTag: false,
        navigateOnDragDrop: false,
        spellcheck: false,
        // Middle-click on a link would open a new window around the preload's click handler.
        disableBlinkFeatures: 'Auxclick',
      },
    });
    mainWindow = window;
    windowPolicy = new ActingWindowController(window, effectiveWindowPolicy(desktopSettings.get().windowWhileActing));
    window.once('ready-to-show', () => {
      if (state.maximized) window.maximize();
      // While the agent acts, appearing must not take the keyboard from the program it drives.
      if (tracker.isActing()) window.showInactive();
      else window.show();
      windowPolicy?.update(tracker.isActing());
    });
    let saveTimer: NodeJS.Timeout | null = null;
    const saveState = (): void => {
      if (window.isDestroyed()) return;
      const bounds = window.getNormalBounds();
      const next: WindowState = { ...bounds, maximized: window.isMaximized() };
      try {
        windowState.save(next);
      } catch (error) {
        console.error(`[deskhand] could not save the window state: ${(error as Error).message}`);
      }
    };
    const saveSoon = (): void => {
      if (saveTimer) clearTimeout(saveTimer);
      saveTimer = setTimeout(saveState, 1_000);
    };
    window.on('resized', saveSoon);
    window.on('moved', saveSoon);
    window.on('close', () => {
      if (saveTimer) clearTimeout(saveTimer);
      saveState();
    });
    window.on('closed', () => {
      if (mainWindow === window) {
        mainWindow = null;
        windowPolicy = null;
      }
    });
    // A page whose process died (out of memory with a long trajectory, a GPU fault) leaves the window
    // blank while a run may wait for an approval in it: it is loaded again, but not in a loop.
    const crashes: number[] = [];
    window.webContents.on('render-process-gone', (_event, details) => {
      if (details.reason === 'clean-exit' || window.isDestroyed()) return;
      const now = Date.now();
      while (crashes.length > 0 && now - (crashes[0] as number) > PAGE_RELOAD_WINDOW_MS) crashes.shift();
      const reload = crashes.length < PAGE_RELOADS;
      console.error(
        `[deskhand] the window's page ended (${details.reason}, exit code ${details.exitCode})` +
          (reload ? ': loading it again' : `; not loaded again, after ${PAGE_RELOADS} times within a minute: restart Deskhand`),
      );
      if (!reload) return;
      crashes.push(now);
      void window.loadURL(`${APP_ORIGIN}/index.html`);
    });
    void window.loadURL(`${APP_ORIGIN}/index.html`);
    return window;
  }

  // --- host events -> page, tray, window, notifications ----------------------------------------------------
  const notifications = new WaitingNotifications<Notification>();
  const notify = (needsUser: Waiting | null): void => {
    if (!needsUser || !desktopSettings.get().notifications || !Notification.isSupported()) return;
    if (mainWindow && !mainWindow.isDestroyed() && mainWindow.isFocused()) return;
    const notification = new Notification(notificationFor(needsUser));
    notification.on('click', showWindow);
    notifications.add(waitingKey(needsUser), notification);
    notification.show();
  };
  host.sessions.subscribe((event) => {
    const change = tracker.apply(event);
    for (const key of change.settled) notifications.close(key);
    const window = mainWindow;
    if (window && !window.isDestroyed() && isAppUrl(window.webContents.getURL())) {
      window.webContents.send(Channel.message, { type: 'event', event });
    }
    if (change.actingChanged || change.needsUser) windowPolicy?.update(tracker.isActing());
    notify(change.needsUser);
    refreshStatus();
  });

  // --- IPC --------------------------------------------------------------------------------------------------
  const desktopReply = (): DesktopSettingsReply => ({ ok: true, settings: desktopSettings.get(), hotkeyRegistered: hotkey.current });
  registerIpc(
    ipcMain,
    createChannels({
      handleCommand: (command) => host.endpoint.handle(command),
      // Reached only from the preload's handler for real clicks on links, with a URL ipc.ts checked to be
      // http(s) without credentials: the default browser opens it, nothing else can be launched this way.
      openInBrowser: (url) => shell.openExternal(url),
      getDesktopSettings: desktopReply,
      setDesktopSettings(values) {
        const checked = desktopSettings.check(values);
        if (!checked.ok) return checked;
        const hotkeyBefore = hotkey.current;
        const refused = changeStopHotkey(hotkey, checked.settings.stopHotkey, desktopSettings.get().stopHotkey);
        if (refused) return { ok: false, errors: [{ path: 'stopHotkey', message: refused }] };
        try {
          desktopSettings.save(checked.settings);
        } catch (error) {
          // Nothing changes when they cannot be saved (a full disk, a read-only folder): Stop goes back to
          // the hotkey it had, which is the one the saved settings and the page name.
          if (hotkey.current !== hotkeyBefore) {
            if (hotkeyBefore) hotkey.restore(hotkeyBefore);
            else hotkey.clear();
          }
          const message = `the desktop settings could not be saved: ${(error as Error).message}`;
          console.error(`[deskhand] ${message}`);
          return { ok: false, errors: [{ path: '', message }] };
        }
        windowPolicy?.setPolicy(effectiveWindowPolicy(checked.settings.windowWhileActing));
        refreshStatus(true);
        return desktopReply();
      },
    }),
    {
      isOurContents: (sender) => mainWindow !== null && !mainWindow.isDestroyed() && sender === mainWindow.webContents,
      onRefused: (channel, refusal) => console.warn(`[deskhand] IPC ${channel} refused: ${refusal.message}`),
    },
  );

  // --- tray, menu, hotkey ----------------------------------------------------------------------------------
  const hotkeyProblem = startStopHotkey(hotkey, desktopSettings.get().stopHotkey);
  if (hotkeyProblem) console.error(`[deskhand] ${hotkeyProblem}`);
  try {
    tray = new Tray(trayIcon('idle'));
    tray.on('click', showWindow);
  } catch (error) {
    console.error(`[deskhand] no tray icon: ${(error as Error).message}`);
  }
  refreshStatus(true);
  openMainWindow();

  // --- lifetime ----------------------------------------------------------------------------------------------
  app.on('second-instance', showWindow);
  app.on('activate', () => {
    if (!mainWindow || mainWindow.isDestroyed()) openMainWindow();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  // Quitting waits for the host to stop its runs and close the database, within QUIT_WAIT_MS.
  let closing: Promise<void> | null = null;
  let closed = false;
  app.on('before-quit', (event) => {
    if (closed) return;
    event.preventDefault();
    if (closing) return;
    hotkey.clear();
    closing = closeBeforeQuit(() => host.close()).finally(() => {
      closed = true;
      notifications.closeAll();
      tray?.destroy();
      app.quit();
    });
  });
  app.on('will-quit', () => globalShortcut.unregisterAll());
}
