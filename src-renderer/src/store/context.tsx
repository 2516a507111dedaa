import { createContext, useContext, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { Bridge } from '../bridge';
import type { DeskhandActions, DeskhandStore } from './store';
import type { DeskhandState } from './state';

interface DeskhandContextValue {
  store: DeskhandStore;
  bridge: Bridge;
}

const DeskhandContext = createContext<DeskhandContextValue | null>(null);

export function DeskhandProvider({ store, bridge, children }: DeskhandContextValue & { children: ReactNode }) {
  return <DeskhandContext.Provider value={{ store, bridge }}>{children}</DeskhandContext.Provider>;
}

function useDeskhandContext(): DeskhandContextValue {
  const value = useContext(DeskhandContext);
  if (!value) throw new Error('Deskhand components must be inside <DeskhandProvider>.');
  return value;
}

/** Selects from the store; return stable values (or use `useShallow`) to avoid needless renders. */
export function useDeskhand<T>(selector: (state: DeskhandState & DeskhandActions) => T): T {
  return useStore(useDeskhandContext().store, selector);
}

export function useBridge(): Bridge {
  return useDeskhandContext().bridge;
}
