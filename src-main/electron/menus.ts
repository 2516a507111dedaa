/**
 * The application menu and the tray menu, as plain templates built from the run status (no Electron
 * calls here, so the wording and the enabled states are testable).
 */
import type { MenuItemConstructorOptions } from 'electron';
import type { TrayStatus } from './run-tracker';
import { describeAccelerator } from './stop-control';

export interface MenuActions {
  stop(): void;
  showWindow(): void;
  openDataFolder(): void;
  openLogsFolder(): void;
  quit(): void;
}

function stopItem(status: TrayStatus, hotkey: string | null, actions: MenuActions, platform: NodeJS.Platform): MenuItemConstructorOptions {
  return {
    label: hotkey ? `Stop the agent (${describeAccelerator(hotkey, platform)})` : 'Stop the agent',
    enabled: status.canStop,
    click: () => actions.stop(),
  };
}

export function trayMenuTemplate(
  status: TrayStatus,
  hotkey: string | null,
  actions: MenuActions,
  platform: NodeJS.Platform = process.platform,
): MenuItemConstructorOptions[] {
  return [
    { label: status.label, enabled: false },
    { type: 'separator' },
    stopItem(status, hotkey, actions, platform),
    { label: 'Show Deskhand', click: () => actions.showWindow() },
    { type: 'separator' },
    { label: 'Quit Deskhand', click: () => actions.quit() },
  ];
}

export function appMenuTemplate(
  status: TrayStatus,
  hotkey: string | null,
  actions: MenuActions,
  options: { platform?: NodeJS.Platform; developer?: boolean } = {},
): MenuItemConstructorOptions[] {
  const platform = options.platform ?? process.platform;
  const mac = platform === 'darwin';
  const template: MenuItemConstructorOptions[] = [];
  if (mac) {
    template.push({
      label: 'Deskhand',
      submenu: [{ role: 'about' }, { type: 'separator' }, { role: 'hide' }, { role: 'hideOthers' }, { role: 'unhide' }, { type: 'separator' }, { label: 'Quit Deskhand', accelerator: 'Cmd+Q', click: () => actions.quit() }],
    });
  }
  template.push({
    label: mac ? 'File' : '&File',
    submenu: [
      { label: 'Open Data Folder', click: () => actions.openDataFolder() },
      { label: 'Open Logs Folder', click: () => actions.openLogsFolder() },
      ...(mac ? [] : ([{ type: 'separator' }, { label: 'Quit', accelerator: 'Ctrl+Q', click: () => actions.quit() }] as MenuItemConstructorOptions[])),
    ],
  });
  // Cut/copy/paste need menu roles on macOS, or the shortcuts do nothing in text boxes.
  template.push({
    label: mac ? 'Edit' : '&Edit',
    submenu: [{ role: 'undo' }, { role: 'redo' }, { type: 'separator' }, { role: 'cut' }, { role: 'copy' }, { role: 'paste' }, { role: 'selectAll' }],
  });
  template.push({
    label: mac ? 'Agent' : '&Agent',
    submenu: [
      // Shown for reference; the global hotkey itself is registered with globalShortcut.
      { ...stopItem(status, null, actions, platform), accelerator: hotkey ?? undefined, registerAccelerator: false },
      { label: status.label, enabled: false },
    ],
  });
  template.push({
    label: mac ? 'View' : '&View',
    submenu: [
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { type: 'separator' },
      { role: 'togglefullscreen' },
      ...(options.developer ? ([{ type: 'separator' }, { role: 'reload' }, { role: 'toggleDevTools' }] as MenuItemConstructorOptions[]) : []),
    ],
  });
  template.push({ role: 'windowMenu' });
  return template;
}
