import type { AgentStatus } from '../../protocol';
import type { BasicAgent } from '../basic-agent';
import type { AgentRuntime } from '../runtime';
import { StateManager, type AgentState } from './agent-state';

/** What every state shares: the next state follows the agent's status; the agent stays the same. */
abstract class BaseState implements AgentState {
  abstract readonly name: AgentStatus;

  abstract handle(agent: BasicAgent, runtime: AgentRuntime): Promise<void>;

  nextState(agent: BasicAgent): AgentState {
    return agent.states.get(agent.status);
  }

  nextAgent(agent: BasicAgent): BasicAgent {
    return agent;
  }

  isRoundEnd(): boolean {
    return false;
  }

  isSubtaskEnd(): boolean {
    return false;
  }
}

/** Take a step: observe, ask the model, act. */
export class ContinueState extends BaseState {
  readonly name: AgentStatus = 'CONTINUE';

  async handle(agent: BasicAgent, runtime: AgentRuntime): Promise<void> {
    await agent.process(runtime);
  }

  /** The host hands over to the agent it picked; others go on themselves. */
  override nextAgent(agent: BasicAgent): BasicAgent {
    return agent.takeHandoff() ?? agent;
  }
}

/** The model asked for a fresh look before acting: the next step observes again. */
export class ScreenshotState extends ContinueState {
  override readonly name: AgentStatus = 'SCREENSHOT';
}

/** Ask the user the agent's questions (or wait for its form), then go on with the answers. */
export class PendingState extends BaseState {
  readonly name: AgentStatus = 'PENDING';

  async handle(agent: BasicAgent, runtime: AgentRuntime): Promise<void> {
    await agent.askUser(runtime);
  }
}

/** An action is held: wait for Approve or Reject; it runs only on approval. */
export class ConfirmState extends BaseState {
  readonly name: AgentStatus = 'CONFIRM';

  async handle(agent: BasicAgent, runtime: AgentRuntime): Promise<void> {
    await agent.resolveConfirmation(runtime);
  }

  /** An approved hand-off (the host opening an application for it) goes on to its agent. */
  override nextAgent(agent: BasicAgent): BasicAgent {
    return agent.takeHandoff() ?? agent;
  }
}

/**
 * FINISH and FAIL: a delegate's sub-task ends and the host takes over again; for the root agent (the
 * host, or the ShellAgent alone in shell mode) the round ends.
 */
abstract class EndState extends BaseState {
  constructor(private readonly root: boolean) {
    super();
  }

  async handle(): Promise<void> {}

  override nextAgent(agent: BasicAgent): BasicAgent {
    return this.root || !agent.host ? agent : agent.host;
  }

  override isRoundEnd(): boolean {
    return this.root;
  }

  override isSubtaskEnd(): boolean {
    return true;
  }
}

export class FinishState extends EndState {
  readonly name: AgentStatus = 'FINISH';
}

export class FailState extends EndState {
  readonly name: AgentStatus = 'FAIL';
}

/** Too many failed steps in a row: the round ends with ERROR, whoever the agent is. */
export class ErrorState extends BaseState {
  readonly name: AgentStatus = 'ERROR';

  async handle(): Promise<void> {}

  override nextState(): AgentState {
    return this;
  }

  override isRoundEnd(): boolean {
    return true;
  }
}

/** The states of an agent kind. `root`: its FINISH/FAIL end the round (host; ShellAgent in shell mode). */
export function agentStates(kind: string, root: boolean): StateManager {
  return new StateManager(kind).register(
    new ContinueState(),
    new ScreenshotState(),
    new PendingState(),
    new ConfirmState(),
    new FinishState(root),
    new FailState(root),
    new ErrorState(),
  );
}
