/** The IPC channel names, shared by the main process and the preload. */
export const COMMAND_CHANNEL = 'deskhand:command';
export const MESSAGE_CHANNEL = 'deskhand:message';
export const APP_SCHEME = 'app';
