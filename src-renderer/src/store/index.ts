export * from './state';
export * from './damaged';
export * from './trajectory';
export { createDeskhandStore, type DeskhandActions, type DeskhandStore } from './store';
export { DeskhandProvider, useBridge, useDeskhand } from './context';
export { useUi, FOCUS_TARGETS, type UiState } from './ui';
