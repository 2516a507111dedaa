import { randomUUID } from 'node:crypto';
import { logError } from '../common/log';
import type { InteractionStore } from '../memory/interaction-store';
import type { HostEvent, Interaction } from '../protocol';
import { CommandError } from './command-error';

export type InteractionResponse =
  | { kind: 'answers'; answers: string[] }
  | { kind: 'decision'; approved: boolean; note: string | null };

/** Answers interactions without a person (the CLI's --answer/--approve, tests); null: leave it to the UI. */
export type AutoResponder = (interaction: Interaction) => InteractionResponse | null;

export class InteractionCancelled extends Error {
  constructor() {
    super('the question was cancelled');
  }
}

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;
export type InteractionRequest = DistributiveOmit<Interaction, 'id'>;

interface Waiting {
  interaction: Interaction;
  resolve(response: InteractionResponse): void;
  reject(error: Error): void;
}

/**
 * Where agents ask the user something (PENDING questions, CONFIRM approvals) and wait. Each interaction
 * is persisted before it is shown; the first valid answer wins, later ones are refused.
 */
export class InteractionBroker {
  private readonly waiting = new Map<string, Waiting>();

  constructor(
    private readonly store: InteractionStore,
    private readonly emit: (event: HostEvent) => void,
    private autoResponder: AutoResponder | null = null,
  ) {}

  setAutoResponder(responder: AutoResponder | null): void {
    this.autoResponder = responder;
  }

  /** Answered by a responder (the CLI), not a person at a UI: nobody can fill in an agent's form. */
  get headless(): boolean {
    return this.autoResponder !== null;
  }

  ask(request: InteractionRequest, signal: AbortSignal): Promise<InteractionResponse> {
    const interaction = { ...request, id: randomUUID() } as Interaction;
    this.store.save(interaction);
    // Stopped before it was asked: kept as cancelled, and shown to no one (nobody could answer it).
    if (signal.aborted) {
      this.store.resolve(interaction.id, 'cancelled', null);
      return Promise.reject(new InteractionCancelled());
    }
    this.emit({ kind: 'interaction.requested', interaction });
    const automatic = this.autoResponder?.(interaction) ?? null;
    if (automatic) {
      this.settle(interaction, automatic);
      return Promise.resolve(automatic);
    }
    return new Promise<InteractionResponse>((resolve, reject) => {
      const onAbort = (): void => {
        if (!this.waiting.delete(interaction.id)) return;
        // An abort listener must not throw (Node ends the process): a row that cannot be marked now (a
        // full disk) stays open, and is cancelled with the round's end or at the next start.
        try {
          this.store.resolve(interaction.id, 'cancelled', null);
        } catch (error) {
          logError(`[deskhand] a cancelled question or approval could not be marked as such: ${(error as Error).message}`);
        }
        this.emit({ kind: 'interaction.resolved', sessionId: interaction.sessionId, interactionId: interaction.id, outcome: 'cancelled' });
        reject(new InteractionCancelled());
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(interaction.id, {
        interaction,
        resolve: (response) => {
          signal.removeEventListener('abort', onAbort);
          resolve(response);
        },
        reject,
      });
    });
  }

  /** The user's answer from a UI. Throws a message for the user when it does not fit. */
  respond(sessionId: string, interactionId: string, response: InteractionResponse): void {
    const waiting = this.waiting.get(interactionId);
    if (!waiting) throw new CommandError('conflict', 'nothing is waiting for that answer (it was already answered or cancelled)');
    if (waiting.interaction.sessionId !== sessionId) throw new CommandError('not_found', 'that session has no such question or approval');
    const { interaction } = waiting;
    if (interaction.kind === 'questions') {
      if (response.kind !== 'answers') throw new CommandError('bad_message', 'this interaction expects answers');
      if (response.answers.length !== interaction.questions.length || response.answers.some((answer) => !answer.trim())) {
        throw new CommandError('bad_message', `answer all ${interaction.questions.length} question(s)`);
      }
    } else if (response.kind !== 'decision') {
      throw new CommandError('bad_message', 'this interaction expects Approve or Reject');
    }
    // Saved first: an answer the store refuses (a full disk) fails the command and leaves the question
    // open, to be answered again once there is room.
    this.settle(interaction, response);
    this.waiting.delete(interactionId);
    waiting.resolve(response);
  }

  pending(sessionId: string): Interaction[] {
    return [...this.waiting.values()].filter((entry) => entry.interaction.sessionId === sessionId).map((entry) => entry.interaction);
  }

  private settle(interaction: Interaction, response: InteractionResponse): void {
    const outcome = response.kind === 'answers' ? 'answered' : response.approved ? 'approved' : 'rejected';
    this.store.resolve(interaction.id, outcome, response);
    this.emit({ kind: 'interaction.resolved', sessionId: interaction.sessionId, interactionId: interaction.id, outcome });
  }
}
