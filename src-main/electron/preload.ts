import { contextBridge, ipcRenderer } from 'electron';
import { COMMAND_CHANNEL, MESSAGE_CHANNEL } from './channels';

// Two small functions, nothing more: the page never sees ipcRenderer or an IpcRendererEvent.
contextBridge.exposeInMainWorld('deskhand', {
  invoke: (command: unknown): Promise<unknown> => ipcRenderer.invoke(COMMAND_CHANNEL, command),
  onMessage: (callback: (message: unknown) => void): (() => void) => {
    const listener = (_event: Electron.IpcRendererEvent, message: unknown): void => callback(message);
    ipcRenderer.on(MESSAGE_CHANNEL, listener);
    return () => ipcRenderer.removeListener(MESSAGE_CHANNEL, listener);
  },
});
