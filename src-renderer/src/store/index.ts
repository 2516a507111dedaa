export * from './state';
export { createDeskhandStore, type DeskhandActions, type DeskhandStore } from './store';
export { DeskhandProvider, useBridge, useDeskhand } from './context';
