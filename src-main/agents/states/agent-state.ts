import type { AgentStatus } from '../../protocol';
import type { BasicAgent } from '../basic-agent';
import type { AgentRuntime } from '../runtime';

/**
 * One state of an agent (the agent's first level: its states). `handle` does the state's work; the round loop
 * then asks for the next agent and the next state.
 */
export interface AgentState {
  readonly name: AgentStatus;
  handle(agent: BasicAgent, runtime: AgentRuntime): Promise<void>;
  nextState(agent: BasicAgent): AgentState;
  nextAgent(agent: BasicAgent): BasicAgent;
  isRoundEnd(): boolean;
  isSubtaskEnd(): boolean;
}

/** The states of one kind of agent, registered by name. */
export class StateManager {
  private readonly states = new Map<AgentStatus, AgentState>();

  constructor(readonly agentKind: string) {}

  register(...states: AgentState[]): this {
    for (const state of states) {
      if (this.states.has(state.name)) throw new Error(`${this.agentKind}: state ${state.name} is registered twice`);
      this.states.set(state.name, state);
    }
    return this;
  }

  get(name: AgentStatus): AgentState {
    const state = this.states.get(name);
    if (!state) throw new Error(`${this.agentKind} has no state ${name}`);
    return state;
  }

  names(): AgentStatus[] {
    return [...this.states.keys()];
  }
}
