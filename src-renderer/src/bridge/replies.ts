import { z } from 'zod';
import {
  CommandResults,
  HostMessage,
  type CommandResult,
  type HostCommandInput,
  type HostCommandType,
} from '../../../src-main/protocol';
import { HostCommandError } from './errors';
import type { CommandInput } from './types';

export type ReplyMessage = Extract<HostMessage, { type: 'reply' }>;

/** Parses one message from the host; returns null (and warns) when it does not follow the protocol. */
export function parseHostMessage(raw: unknown): HostMessage | null {
  const parsed = HostMessage.safeParse(raw);
  if (parsed.success) return parsed.data;
  console.warn(`Deskhand: dropped a message that does not follow the protocol:\n${z.prettifyError(parsed.error)}`, raw);
  return null;
}

/** The result a reply carries, checked against the command's result schema; throws the host's error otherwise. */
export function resultFromReply<T extends HostCommandType>(type: T, reply: ReplyMessage): CommandResult<T> {
  if (!reply.ok) throw new HostCommandError(reply.error.message, reply.error.code);
  const parsed = CommandResults[type].safeParse(reply.result);
  if (!parsed.success) {
    throw new Error(`The host sent an unexpected result for ${type}: ${z.prettifyError(parsed.error)}`);
  }
  // The schema for `type` just validated this value; TypeScript cannot narrow the indexed schema by T.
  return parsed.data as CommandResult<T>;
}

let requestCounter = 0;
const requestPrefix = Math.random().toString(36).slice(2, 10);

/** Ids only need to be unique among this page's pending requests; the prefix separates reloads in host logs. */
export function nextRequestId(): string {
  requestCounter += 1;
  return `${requestPrefix}-${requestCounter}`;
}

/** Adds the id the reply will repeat. */
export function withRequestId<T extends HostCommandType>(command: CommandInput<T>, id: string): HostCommandInput {
  // CommandInput<T> is one member of HostCommandInput minus `id`; TypeScript cannot see that through the generic.
  return { ...command, id } as HostCommandInput;
}
