import { createContext, useContext } from 'react';

export interface AgentFormActions {
  /** A Button element was pressed: its `props.action`. */
  onAction(action: string): void;
  /** The form was closed by the agent: nothing in it can be used. */
  closed: boolean;
}

export const AgentFormContext = createContext<AgentFormActions>({ onAction: () => {}, closed: true });

export function useAgentForm(): AgentFormActions {
  return useContext(AgentFormContext);
}
